"""The claim registry as objects: :func:`claims` returns one :class:`Statement` per claim.

Each statement has its line in ``paper/paper.tex``, the paper's words (``quote``), its verdict,
its size at the paper's sizes, the printed and derived forms as sympy objects, and its
evidence. The records are those ``claims.json`` holds (:func:`tasksim.reports.report.claim_records`,
the report's own writer), so a statement read from the registry and one read back from a
``claims.json`` are the same: the forms travel as sympy ``srepr`` strings
(``printed_srepr``, ``derived_srepr``) beside their LaTeX, and :func:`parse_form` loads them.

Fields the registry is still growing (the verdict vocabulary of DESIGN.md, ``observable``,
``size_at_paper_sizes``, ``cause``, ``clause``, ``confirmation``, ``evidence``) are read with
fallbacks: ``verdict`` from the older ``status`` (verified -> exact, leading order -> holds
in the stated limit, erratum -> wrong, open -> not decided), ``size`` from ``size``, and
``evidence`` as the step-level claims at the same line. Every field of the record stays in
:attr:`Statement.record`.

Examples
--------
>>> import sympy as sp
>>> from tasksim.derivations.symbols import rho_a
>>> parse_form(sp.srepr(rho_a**2 / 2)) == rho_a**2 / 2
True
>>> s = from_records([{"id": "x", "line": 3, "headline": True, "printed": "= 1",
...                    "status": "verified", "printed_srepr": "Integer(1)",
...                    "derived_srepr": "Integer(1)"}])[0]
>>> s.verdict, s.printed, s.quote
('exact', 1, '= 1')
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

import sympy as sp

__all__ = ["VERDICTS", "STATUS_VERDICT", "Statement", "claims", "from_records", "from_verdicts",
           "registry_verdicts", "parse_form", "load_claims"]

VERDICTS = ("exact", "holds in the stated limit", "holds under a stronger condition", "wrong",
            "misprint", "not decided")
"""The verdict vocabulary of DESIGN.md."""
STATUS_VERDICT = {"verified": "exact", "leading order": "holds in the stated limit",
                  "erratum": "wrong", "open": "not decided",
                  "finding": "holds in the stated limit",
                  # a step's neutral words (claims.json since the verdicts became per statement)
                  "derived: equals the print": "exact",
                  "derived: equals the print at leading order": "holds in the stated limit",
                  "derived: differs from the print": "wrong", "not derived": "not decided",
                  "differs from the print": "wrong",  # claims.json of Nov 2026
                  "derived: no printed value to compare": "not decided",
                  "pending": "not decided"}  # claims.json before Nov 2026
"""The fallback for records without a verdict field (older files, and the steps, which carry
a status in neutral words): status -> verdict. A step of a finding beyond the paper (status
"finding": the surrogate's 1/Nx terms) is right in the paper's own regime, which writes it
with an approximate sign and keeps the leading order."""


@dataclass(frozen=True)
class Statement:
    """One claim of the registry (module docstring). ``printed`` and ``derived`` are sympy
    objects (None when absent); ``record`` is the whole claims.json record."""

    id: str
    line: Optional[int]
    headline: bool
    where: str
    quote: str
    verdict: str
    size: Any
    condition: str
    printed: Optional[sp.Basic]
    derived: Optional[sp.Basic]
    evidence: tuple
    note: str
    record: Mapping[str, Any] = field(repr=False, compare=False)

    @property
    def observable(self) -> Optional[str]:
        return self.record.get("observable")

    @property
    def cause(self) -> Optional[str]:
        return self.record.get("cause")

    @property
    def size_reason(self) -> Optional[str]:
        return self.record.get("size_reason")

    @property
    def clause(self) -> Optional[str]:
        return self.record.get("clause")

    @property
    def confirmation(self) -> Any:
        return self.record.get("confirmation", self.record.get("correction"))


@lru_cache(maxsize=1)
def _namespace() -> dict[str, Any]:
    """The names ``srepr`` writes: sympy's public names and every class of sympy objects."""
    names: dict[str, Any] = {k: v for k, v in vars(sp).items() if not k.startswith("_")}
    stack = [sp.Basic]
    while stack:
        cls = stack.pop()
        names.setdefault(cls.__name__, cls)
        stack.extend(cls.__subclasses__())
    names["__builtins__"] = {}
    return names


def parse_form(text: str) -> Optional[sp.Basic]:
    """The sympy object of an ``srepr`` string (None for an empty one). claims.json is trusted
    input: the string is evaluated with sympy's names only. ValueError on a malformed one."""
    if not text:
        return None
    try:
        return eval(text, dict(_namespace()))  # noqa: S307 - sympy's names only, no builtins
    except Exception as problem:
        raise ValueError(f"not a sympy srepr string ({type(problem).__name__}: "
                         f"{problem}): {text[:80]!r}") from None


def _verdict(record: Mapping[str, Any]) -> str:
    verdict = record.get("verdict")
    if verdict:
        return str(verdict)
    return STATUS_VERDICT.get(record.get("status", ""), str(record.get("status", "not decided")))


def _evidence(record: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> tuple:
    if "evidence" in record:
        evidence = record["evidence"]
        return tuple(evidence) if isinstance(evidence, (list, tuple)) else (evidence,)
    if not record.get("headline") or record.get("line") is None:
        return ()
    return tuple({"id": r["id"], "status": r.get("status"), "where": r.get("where", "")}
                 for r in records
                 if not r.get("headline") and r.get("line") == record.get("line"))


def from_records(records: Sequence[Mapping[str, Any]],
                 forms: Optional[Mapping[str, tuple]] = None) -> list[Statement]:
    """Statements from claims.json records; ``forms`` ({id: (printed, derived)}) gives the
    sympy objects directly, else they are parsed from the records' srepr strings."""
    out = []
    for r in records:
        if forms is not None and r["id"] in forms:
            printed, derived = forms[r["id"]]
        else:
            if "printed_srepr" not in r or "derived_srepr" not in r:
                raise ValueError(f"claim {r.get('id')!r} has no printed_srepr/derived_srepr: "
                                 "written by an older tasksim (rebuild with tasksim report)")
            printed, derived = parse_form(r["printed_srepr"]), parse_form(r["derived_srepr"])
        size = r.get("size_at_paper_sizes", r.get("size"))
        out.append(Statement(
            id=r["id"], line=r.get("line"), headline=bool(r.get("headline")),
            where=r.get("where", ""), quote=r.get("quote", r.get("printed", "")),
            verdict=_verdict(r), size=size, condition=r.get("condition", ""),
            printed=printed, derived=derived, evidence=_evidence(r, records),
            note=r.get("note", ""), record=dict(r)))
    return out


def load_claims(path: Union[str, Path]) -> list[Statement]:
    """The statements of a ``claims.json`` file; ValueError (one line) for a missing or
    malformed file."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as problem:
        raise ValueError(f"cannot read {path}: {problem.strerror or problem}") from None
    except json.JSONDecodeError as problem:
        raise ValueError(f"{path} is not JSON: {problem}") from None
    if not isinstance(document, dict) or not isinstance(document.get("claims"), list):
        raise ValueError(f"{path} is not a claims.json (no list under 'claims')")
    return from_records(document["claims"])


@lru_cache(maxsize=1)
def registry_verdicts() -> tuple:
    """The registry's verdicts (:func:`tasksim.derivations.registry.evaluate_all`), evaluated
    once per process."""
    from tasksim.derivations.registry import evaluate_all

    return tuple(evaluate_all())


def from_verdicts(verdicts: Sequence[Any]) -> list[Statement]:
    """Statements of evaluated claims, through the records claims.json stores
    (:func:`tasksim.reports.report.claim_records`, with the paper's places when its source is
    here), with the registry's own sympy objects."""
    from tasksim.reports.paper import load_paper
    from tasksim.reports.report import claim_records

    try:
        paper = load_paper()
    except FileNotFoundError:  # the paper's source is not shipped with an installed package
        paper = None
    records = claim_records(verdicts, paper)
    forms = {v.claim.id: (v.claim.printed, v.derived) for v in verdicts}
    return from_records(records, forms)


@lru_cache(maxsize=1)
def _registry() -> tuple[Statement, ...]:
    return tuple(from_verdicts(registry_verdicts()))


def claims(path: Union[str, Path, None] = None, *, headlines: bool = False) -> list[Statement]:
    """The claim registry as :class:`Statement` objects, evaluated now (about half a minute,
    once per process), or read from a ``claims.json`` at ``path``. ``headlines``: only the
    one verdict per statement of the paper."""
    statements = list(_registry()) if path is None else load_claims(path)
    return [s for s in statements if s.headline] if headlines else statements
