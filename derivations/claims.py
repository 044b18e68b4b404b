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
           "identical", "STATUSES"]

STATUSES = ("verified", "leading order", "erratum", "open")


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

    def as_record(self) -> dict[str, object]:
        """The claim as a record: ``id, where, line, headline, printed`` (the paper's words,
        verbatim), ``derived`` (LaTeX), ``status, condition, exceptions, restates`` (lines)
        and ``note``."""
        derived = self.derived
        return {
            "id": self.claim.id,
            "where": self.claim.where,
            "line": self.claim.line,
            "headline": self.claim.headline,
            "printed": self.claim.printed_latex,
            "derived": "" if derived is None else latex(derived),
            "status": self.status,
            "condition": self.claim.condition,
            "exceptions": self.exceptions,
            "restates": [line for line, _ in self.claim.restates],
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
