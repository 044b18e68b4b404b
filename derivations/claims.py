"""The claim record and how its status is computed.

A :class:`Claim` pairs a statement of the paper *as printed* (typed from ``paper.tex``) with a
function that *derives* it from the model's definitions. :func:`evaluate` runs the derivation
and compares; the status is computed, never assigned:

``verified``
    the derived expression equals the printed one identically;
``leading order``
    they differ, but the derived expression's limit Ns/Nx -> 0 equals the printed one (the
    difference is recorded as ``correction``);
``erratum``
    they differ even at leading order: the derived form is the correction;
``open``
    there is no derivation (the claim's note must say why).

Where a claim stands and what it is (all optional, so that a claim written with only the
first five fields still loads; :mod:`tasksim.reports.statements` resolves a missing line):

``line``
    the line of the statement in the paper's source (``paper/paper.tex``, 1-based);
``printed_latex``
    what the paper prints there, *verbatim* (whitespace aside): a formula from a display
    equation, or a sentence or clause of prose with its inline ``$...$`` math. Paraphrases
    and values the paper does not print belong in the note or in the derivation;
``headline``
    True for the one verdict on the statement at ``line`` (judged against the model: exact
    derivations, or measurements with the exact solvers); False for a step-level claim under
    it (the paper's intermediate algebra, the other task generator, a finite-N variant), to
    be read as "given the paper's step, ...";
``condition``
    when the statement holds, as a reader needs it ("Ns << alpha Nx"); for an erratum, when
    the correction holds;
``restates``
    other places that state the same thing, as (line, verbatim clause) pairs (the abstract,
    the introduction, the discussion): the headline's verdict answers them too.

Examples
--------
>>> from tasksim.derivations.symbols import Nx, Ns, rho_a
>>> c = Claim("demo", "nowhere", printed=rho_a**2, printed_latex=r"\\rho_a^2",
...           derive=lambda: Derivation(rho_a**2 + Ns / Nx))
>>> evaluate(c).status
'leading order'
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Optional

import mpmath
import sympy as sp

from .latex import latex, inline_math
from .symbols import Ns, Nx, eps

__all__ = ["Step", "Derivation", "Claim", "Verdict", "evaluate", "leading_order",
           "identical", "STATUSES", "VERDICTS", "statement_verdict"]

STATUSES = ("verified", "leading order", "erratum", "open")
"""How a claim's printed form compares with its derivation (step level; see the module
docstring). Not a verdict on the paper: :data:`VERDICTS` are."""

VERDICTS = ("exact", "holds in the stated limit", "holds under a stronger condition", "wrong",
            "misprint", "not decided")
"""The verdict on a statement of the paper, judged against the model in the regime the paper
states (one per statement; :func:`statement_verdict`):

``exact``
    true at every finite size (an identity, an exact expectation);
``holds in the stated limit``
    true in the paper's own regime (its approximate sign, Ns << Nx, leading order): the
    normal verdict for the paper's closed forms, not a reservation;
``holds under a stronger condition``
    true only in a narrower regime than the printed one; the derived condition is part of
    the verdict (plasticity gating: Ns << alpha Nx);
``wrong``
    false even in the paper's own regime (an erratum), with the correction and whether a
    measurement confirms it;
``misprint``
    a typo in an intermediate step whose stated result is right (a slip of derivation in an
    intermediate display counts too: its card says which); counted apart from the errata;
``not decided``
    nothing decides it yet; the record says what would.
"""


@dataclass(frozen=True)
class Step:
    """One named step of a derivation (shown in the report)."""

    name: str
    expr: sp.Basic
    note: str = ""


@dataclass(frozen=True)
class Derivation:
    """What a derivation computed.

    ``derived`` is exact at finite Nx, Ns unless ``exact`` is False (then it is itself a
    leading-order result, e.g. after a tall-matrix surrogate step that the steps name).
    """

    derived: sp.Basic
    steps: tuple[Step, ...] = ()
    exact: bool = True
    note: str = ""
    exceptions: str = ""
    """Where the derived statement fails although the printed one says it holds (a set of
    parameters, computed by the derivation), for a statement that holds except on a small
    set; empty otherwise."""
    stronger_condition: str = ""
    """The regime the derived statement needs when it is narrower than the printed one (e.g.
    "Ns << alpha Nx" where the paper says Ns << Nx), found by the derivation; empty when the
    printed regime suffices."""


@dataclass(frozen=True)
class Claim:
    """A statement of the paper: where it stands, its printed form, and how to derive it.

    ``equivalent`` replaces the default comparison (identity of expressions) for claims that
    are not equations, e.g. a region of the (rho_a, rho_b) plane. ``line``, ``headline``,
    ``condition`` and ``restates``: see the module docstring.
    """

    id: str
    where: str
    printed: Optional[sp.Basic]
    printed_latex: str
    derive: Optional[Callable[[], Derivation]]
    note: str = ""
    equivalent: Optional[Callable[[sp.Basic, sp.Basic], bool]] = field(default=None, compare=False)
    line: Optional[int] = None
    headline: bool = False
    condition: str = ""
    restates: tuple[tuple[int, str], ...] = ()
    clause: Optional[int] = None
    """Which clause of the line (0: the first): a line may hold several statements. None:
    the order of the quote's first word on the line among the line's headline quotes
    (:func:`tasksim.reports.verdicts.clauses`)."""
    observable: str = ""
    """What the statement is about, in plain words ("Delta eps_RT", "eps"): the unit of its
    size. Empty: the claim's expression itself is the observable."""
    carry: Optional[Callable[[sp.Expr], sp.Expr]] = field(default=None, compare=False)
    """For an intermediate term: maps (derived - printed) of the term to the change it makes
    in the observable (the coefficient the paper's own expansion gives the term)."""
    cause: str = ""
    """For an erratum: the id of its root cause, shared by every claim the same mistake
    produces (errata are grouped and ranked by cause)."""
    misprint_of: str = ""
    """For an erratum that is a typo in an intermediate step: the id of the claim of the
    intended expression, whose derivation shows the stated result is right."""
    decide: str = ""
    """For a statement nothing decides yet: what would decide it."""
    reading_from: str = ""
    """Where the form the claim compares with (``printed``) comes from when the statement's
    own line prints none (a caption that names a quantity without a value): the line whose
    statement implies it. Empty: ``printed`` is what the line prints."""
    finding: str = ""
    """The id of a finding beyond the paper's statements this claim belongs to (K-task
    sequences, exact 1/Nx terms): the report lists findings apart, never as a verdict."""


def statement_verdict(v: "Verdict", intended: Optional["Verdict"] = None) -> str:
    """The verdict (:data:`VERDICTS`) on the statement ``v`` answers, from its computed
    status: how the toolkit derived it never changes the word, only whether the statement
    holds at every size, in the paper's regime, only in a narrower one, or not at all.

    ``intended``: for a claim with ``misprint_of``, the verdict of the intended expression
    (a typo is a misprint only when the intended expression is not itself wrong).
    A printed form that differs from the derivation only on a set the derivation computes
    (``stronger_condition``: e.g. a window of gamma) holds under that stronger condition.

    >>> from tasksim.derivations.symbols import Nx, Ns, rho_a
    >>> c = Claim("demo", "nowhere", rho_a**2, "x", lambda: Derivation(rho_a**2 + Ns / Nx))
    >>> statement_verdict(evaluate(c))
    'holds in the stated limit'
    """
    if v.status == "open":
        return "not decided"
    if v.status == "erratum":
        if v.claim.misprint_of and intended is not None and intended.status in (
                "verified", "leading order"):
            return "misprint"
        if v.derivation is not None and v.derivation.stronger_condition:
            # false on a set the derivation computes, true outside it: a narrower regime
            return "holds under a stronger condition"
        return "wrong"
    if v.derivation is not None and v.derivation.stronger_condition:
        return "holds under a stronger condition"
    if v.status == "verified" and v.derivation is not None and v.derivation.exact:
        return "exact"
    return "holds in the stated limit"


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`evaluate` for one claim."""

    claim: Claim
    status: str
    derivation: Optional[Derivation]
    correction: Optional[sp.Basic]
    note: str

    @property
    def derived(self) -> Optional[sp.Basic]:
        return None if self.derivation is None else self.derivation.derived

    @property
    def exceptions(self) -> str:
        return "" if self.derivation is None else self.derivation.exceptions

    def as_record(self, derived_latex: Optional[str] = None) -> dict[str, object]:
        """The claim as a record: ``id, where, line, headline, printed`` (the paper's words,
        verbatim), ``derived`` (LaTeX; ``derived_latex`` when the caller printed it
        already), ``status, condition, exceptions, restates`` (lines) and ``note``."""
        derived = self.derived
        if derived_latex is None:
            derived_latex = "" if derived is None else latex(derived)
        return {
            "id": self.claim.id,
            "where": self.claim.where,
            "line": self.claim.line,
            "headline": self.claim.headline,
            "printed": self.claim.printed_latex,
            "derived": derived_latex,
            "status": self.status,
            "condition": self.claim.condition,
            "exceptions": self.exceptions,
            "restates": list(dict.fromkeys(line for line, _ in self.claim.restates)),
            "reading_from": self.claim.reading_from,
            "note": self.note,
        }


def _rational_limit(expr: sp.Expr) -> sp.Expr:
    """The limit epsilon -> 0 of a rational function of epsilon: ratio of lowest-order terms."""
    numerator, denominator = sp.fraction(sp.cancel(sp.together(expr)))
    num = sp.Poly(numerator, eps)
    den = sp.Poly(denominator, eps)
    low_num = min(m[0] for m in num.monoms())
    low_den = min(m[0] for m in den.monoms())
    if low_num > low_den:
        return sp.S.Zero
    if low_num < low_den:
        return sp.zoo
    return sp.factor(num.coeff_monomial(eps**low_num) / den.coeff_monomial(eps**low_den))


def leading_order(expr: sp.Basic) -> sp.Basic:
    """The limit Ns/Nx -> 0 at fixed Ns (substitute Nx = Ns/epsilon, let epsilon -> 0).

    Rational functions (most finite-N results) take an exact shortcut: the ratio of the
    lowest-order coefficients in epsilon; anything else goes through ``sympy.limit``.
    """
    if not expr.has(Nx):
        return expr
    substituted = expr.subs(Nx, Ns / eps)
    if substituted.is_rational_function(eps) and not substituted.has(sp.Piecewise):
        return _rational_limit(substituted)
    return sp.simplify(sp.limit(sp.simplify(substituted), eps, 0, "+"))


def _numerically_zero(expr: sp.Basic, trials: int = 8) -> bool:
    """Evaluate at random points in the parameters' domains with 50 digits."""
    rng = random.Random(20240531)
    symbols = sorted(expr.free_symbols, key=str)
    with mpmath.workdps(50):
        for _ in range(trials):
            point = {}
            for s in symbols:
                if s.is_integer:
                    point[s] = rng.randint(3, 40) if s != Nx else rng.randint(200, 4000)
                else:
                    point[s] = sp.Rational(rng.randint(1, 999), 1000)
            value = sp.N(expr.subs(point), 50)
            if not value.is_number or abs(complex(value)) > 1e-35:
                return False
    return True


def identical(a: sp.Basic, b: sp.Basic) -> bool:
    """True when ``a - b`` vanishes: symbolically if sympy can tell, else at random points."""
    if isinstance(a, sp.Basic) and isinstance(b, sp.Basic) and (
        isinstance(a, sp.logic.boolalg.Boolean) or isinstance(b, sp.logic.boolalg.Boolean)
    ):
        return a == b
    diff = sp.sympify(a) - sp.sympify(b)
    if diff == 0:
        return True
    if diff.is_rational_function():
        return sp.cancel(sp.together(diff)) == 0
    simplified = sp.simplify(diff)
    if simplified == 0:
        return True
    return _numerically_zero(simplified)


def evaluate(claim: Claim) -> Verdict:
    """Run the claim's derivation and compute its status (see the module docstring)."""
    if claim.derive is None:
        if not claim.note:
            raise ValueError(f"claim {claim.id} is open without a note saying why")
        return Verdict(claim, "open", None, None, claim.note)
    derivation = claim.derive()
    derived = derivation.derived
    notes = [n for n in (claim.note, derivation.note) if n]
    if claim.printed is None:
        notes.append("no printed form to compare with")
        return Verdict(claim, "open", derivation, None, "; ".join(notes))
    same = claim.equivalent or identical
    if same(derived, claim.printed):
        return Verdict(claim, "verified", derivation, None, "; ".join(notes))
    if claim.equivalent is None and isinstance(derived, sp.Expr):
        limit = leading_order(derived)
        if identical(limit, claim.printed):
            difference = derived - claim.printed
            correction = (sp.factor(sp.cancel(sp.together(difference)))
                          if difference.is_rational_function() else sp.simplify(difference))
            notes.append(f"finite-size correction: {inline_math(correction)}")
            return Verdict(claim, "leading order", derivation, correction, "; ".join(notes))
    if not notes:
        raise ValueError(f"claim {claim.id} is an erratum: its note must say what is wrong")
    return Verdict(claim, "erratum", derivation, None, "; ".join(notes))


def annotate(claims: list[Claim], fields: dict[str, dict[str, object]]) -> list[Claim]:
    """``claims`` with the named claims' fields replaced (``cause``, ``observable``,
    ``carry``, ``misprint_of``, ``decide``, ...): a module states what it knows about its
    errata next to its list of claims. Raises KeyError for an id that is not in ``claims``.

    >>> c = Claim("demo", "nowhere", None, "x", None, note="n")
    >>> annotate([c], {"demo": {"cause": "typo"}})[0].cause
    'typo'
    """
    from dataclasses import replace

    known = {c.id for c in claims}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise KeyError(f"no such claims: {unknown}")
    return [replace(c, **fields[c.id]) if c.id in fields else c for c in claims]
