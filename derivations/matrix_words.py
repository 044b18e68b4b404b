"""Noncommutative matrix expressions over the task matrices: linear combinations of words.

The expectation engine (:mod:`tasksim.derivations.engine`) evaluates traces of products of

``A_mu``  (:func:`task`)     Nx x Ns feature (mixing) matrix of task mu, entries of variance 1/Ns;
``B_mu``  (:func:`readout`)  Ny x Ns readout matrix of task mu, entries of variance 1/Ns;
``D_mu``  (:func:`gate`)     Nx x Nx diagonal gate diag(g_mu), g Bernoulli(alpha) (eq_def_rho_g);
``I``     (:func:`eye`)      the identity on the x, s or y space;

their transposes, and *opaque* letters (:func:`opaque`) that stand for objects the engine cannot
average directly, such as the pseudo-inverse ``(D_1 A_1)^+`` or the projector ``U_2 U_2^T`` of
eq_W_fp_gated_gd. Opaque letters are removed by exact identities (:meth:`MatrixExpr.replace`)
or by the paper's surrogates (:meth:`MatrixExpr.subs`, eq_DA+_approx, eq_UUt_approx) before
an expectation is taken; that is how the derivations make every surrogate an explicit step.

A :class:`MatrixExpr` is a finite sum ``sum_w c_w w`` of words ``w`` (tuples of letters) with
sympy scalar coefficients ``c_w``; ``@``, ``+``, ``-``, scalar ``*`` and ``.T`` expand eagerly.
Words are normalised: identities next to other letters are dropped, runs of gates are sorted
and made idempotent (D_mu D_mu = D_mu, D_1 D_2 = D_2 D_1: gates are diagonal 0/1 matrices).
Shapes are tracked by *space* (``"x"``, ``"s"``, ``"y"``), and a product of mismatched spaces
raises ``ValueError``.

Examples
--------
>>> import sympy as sp
>>> from tasksim.derivations.symbols import rho_a
>>> A1, A2, D1, D2 = task(1), task(2), gate(1), gate(2)
>>> X = A1.T @ D1 @ D2 @ A2
>>> X.shape
('s', 's')
>>> X
A_1^T D_1 D_2 A_2
>>> (A1.T @ (A2 - rho_a * A1)).terms_count()
2
>>> (D2 @ D1 @ D1) == (D1 @ D2)
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping, Union

import sympy as sp

__all__ = [
    "SPACES",
    "Letter",
    "MatrixExpr",
    "task",
    "readout",
    "gate",
    "eye",
    "opaque",
    "Scalar",
    "words_of",
]

SPACES = ("x", "s", "y")
Scalar = Union[int, sp.Expr]

_RANDOM_SPACES = {"A": ("x", "s"), "B": ("y", "s")}


@dataclass(frozen=True, order=True)
class Letter:
    """One factor of a word.

    ``kind`` is ``"A"`` or ``"B"`` (a random task matrix), ``"D"`` (a gate), ``"I"`` (an
    identity) or ``"op"`` (an opaque matrix). ``task`` is the task number (0 for identities and
    opaque letters), ``name`` the label of an opaque letter or the space of an identity.
    ``rows``/``cols`` are spaces. ``symmetric`` opaque letters are their own transpose.

    >>> task(1).single_letter().T
    Letter(kind='A', task=1, transposed=True, rows='s', cols='x', name='', symmetric=False)
    """

    kind: str
    task: int
    transposed: bool
    rows: str
    cols: str
    name: str = ""
    symmetric: bool = False

    @property
    def is_diagonal(self) -> bool:
        """Gates and identities: they only identify their row and column index."""
        return self.kind in ("D", "I")

    @property
    def is_random(self) -> bool:
        return self.kind in ("A", "B")

    @property
    def T(self) -> "Letter":
        if self.is_diagonal or (self.kind == "op" and self.symmetric):
            return self
        return Letter(self.kind, self.task, not self.transposed, self.cols, self.rows,
                      self.name, self.symmetric)

    def __str__(self) -> str:
        if self.kind == "I":
            return f"I_{self.name}"
        if self.kind == "op":
            return self.name + ("^T" if self.transposed else "")
        return f"{self.kind}_{self.task}" + ("^T" if self.transposed else "")

    def latex(self) -> str:
        if self.kind == "I":
            return rf"I_{{{self.name}}}"
        if self.kind == "op":
            if not self.transposed:
                return self.name
            # a name with its own superscript, (D_1 A_1)^{+}, is braced before ^{T}
            return (f"{{{self.name}}}^{{T}}" if "^" in self.name else self.name + "^{T}")
        return f"{self.kind}_{{{self.task}}}" + ("^{T}" if self.transposed else "")


Word = tuple[Letter, ...]


def _normalise(word: Word) -> Word:
    """Drop identities next to other letters; sort and deduplicate runs of gates."""
    if all(letter.kind == "I" for letter in word):
        return word[:1]
    out: list[Letter] = []
    run: list[Letter] = []

    def flush() -> None:
        out.extend(sorted(set(run)))
        run.clear()

    for letter in word:
        if letter.kind == "I":
            continue
        if letter.kind == "D":
            run.append(letter)
            continue
        flush()
        out.append(letter)
    flush()
    return tuple(out)


def _transpose_word(word: Word) -> Word:
    return tuple(letter.T for letter in reversed(word))


def _as_scalar(value: object) -> sp.Expr:
    if isinstance(value, MatrixExpr):
        raise TypeError("use @ for a matrix product; * is for scalars")
    scalar = sp.sympify(value)
    if not isinstance(scalar, sp.Expr) or scalar.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise ValueError(f"a scalar factor must be a finite sympy expression, got {value!r}")
    return scalar


class MatrixExpr:
    """A linear combination of words of one shape (see the module docstring).

    Build it with :func:`task`, :func:`readout`, :func:`gate`, :func:`eye`, :func:`opaque`
    and the operators; do not call the constructor directly.

    >>> X = task(1).T @ gate(1) @ task(2)
    >>> X.shape, X.T.shape
    (('s', 's'), ('s', 's'))
    """

    __slots__ = ("_terms", "rows", "cols")

    def __init__(self, terms: Mapping[Word, sp.Expr], rows: str, cols: str) -> None:
        clean: dict[Word, sp.Expr] = {}
        for word, coeff in terms.items():
            word = _normalise(word)
            clean[word] = clean.get(word, sp.Integer(0)) + coeff
        self._terms = {w: c for w, c in clean.items() if c != 0}
        self.rows = rows
        self.cols = cols

    # -- inspection -----------------------------------------------------------------------
    @property
    def shape(self) -> tuple[str, str]:
        """The (row space, column space)."""
        return (self.rows, self.cols)

    @property
    def terms(self) -> dict[Word, sp.Expr]:
        """``{word: coefficient}`` (a copy)."""
        return dict(self._terms)

    def terms_count(self) -> int:
        """Number of distinct words."""
        return len(self._terms)

    def letters(self) -> set[Letter]:
        """Every letter that occurs (transposed letters as they occur)."""
        return {letter for word in self._terms for letter in word}

    def has_opaque(self) -> bool:
        """True if an opaque letter (pseudo-inverse, projector, ...) is still present."""
        return any(letter.kind == "op" for letter in self.letters())

    def __iter__(self) -> Iterator[tuple[Word, sp.Expr]]:
        return iter(self._terms.items())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MatrixExpr):
            return NotImplemented
        if self.shape != other.shape:
            return False
        diff = (self - other)._terms
        return all(sp.simplify(c) == 0 for c in diff.values())

    def __hash__(self) -> int:  # expressions are mutable-free but compare by value
        return hash((self.rows, self.cols, frozenset(self._terms)))

    # -- algebra --------------------------------------------------------------------------
    def _check_same_shape(self, other: "MatrixExpr", op: str) -> None:
        if not isinstance(other, MatrixExpr):
            raise TypeError(f"cannot {op} a matrix expression and {type(other).__name__}")
        if self.shape != other.shape:
            raise ValueError(f"cannot {op} shapes {self.shape} and {other.shape}")

    def __add__(self, other: "MatrixExpr") -> "MatrixExpr":
        self._check_same_shape(other, "add")
        terms = dict(self._terms)
        for w, c in other._terms.items():
            terms[w] = terms.get(w, sp.Integer(0)) + c
        return MatrixExpr(terms, self.rows, self.cols)

    def __neg__(self) -> "MatrixExpr":
        return MatrixExpr({w: -c for w, c in self._terms.items()}, self.rows, self.cols)

    def __sub__(self, other: "MatrixExpr") -> "MatrixExpr":
        self._check_same_shape(other, "subtract")
        return self + (-other)

    def __mul__(self, scalar: Scalar) -> "MatrixExpr":
        s = _as_scalar(scalar)
        return MatrixExpr({w: s * c for w, c in self._terms.items()}, self.rows, self.cols)

    __rmul__ = __mul__

    def __truediv__(self, scalar: Scalar) -> "MatrixExpr":
        return self * (1 / _as_scalar(scalar))

    def __matmul__(self, other: "MatrixExpr") -> "MatrixExpr":
        if not isinstance(other, MatrixExpr):
            raise TypeError("@ needs two matrix expressions; use * for a scalar")
        if self.cols != other.rows:
            raise ValueError(
                f"shape mismatch in a product: columns in space {self.cols!r}, "
                f"rows in space {other.rows!r}"
            )
        terms: dict[Word, sp.Expr] = {}
        for w1, c1 in self._terms.items():
            for w2, c2 in other._terms.items():
                w = _normalise(w1 + w2)
                terms[w] = terms.get(w, sp.Integer(0)) + c1 * c2
        return MatrixExpr(terms, self.rows, other.cols)

    @property
    def T(self) -> "MatrixExpr":
        """The transpose (words reversed, letters transposed)."""
        return MatrixExpr({_transpose_word(w): c for w, c in self._terms.items()},
                          self.cols, self.rows)

    # -- rewriting ------------------------------------------------------------------------
    def subs(self, mapping: Mapping["MatrixExpr", "MatrixExpr"]) -> "MatrixExpr":
        """Replace single opaque letters by expressions (their transposes by the transpose).

        Keys must be one opaque letter each (e.g. ``opaque("(D_1A_1)^+", "s", "x")``), of the
        same shape as their replacement. This is how a surrogate such as eq_DA+_approx
        becomes an explicit step.
        """
        table: dict[Letter, MatrixExpr] = {}
        for key, value in mapping.items():
            letter = key.single_letter()
            if letter.kind != "op":
                raise ValueError(f"only opaque letters can be substituted, got {letter}")
            if key.shape != value.shape:
                raise ValueError(f"substitute for {letter} has shape {value.shape}, "
                                 f"expected {key.shape}")
            table[letter] = value
            table[letter.T] = value.T
        result = MatrixExpr({}, self.rows, self.cols)
        for word, coeff in self._terms.items():
            product: MatrixExpr | None = None
            for letter in word:
                factor = table[letter] if letter in table else _single(letter)
                product = factor if product is None else product @ factor
            assert product is not None
            result = result + coeff * product
        return result

    def replace(self, pattern: "MatrixExpr", by: "MatrixExpr", max_passes: int = 50
                ) -> "MatrixExpr":
        """Rewrite every contiguous occurrence of the word ``pattern`` (and of its transpose)
        by ``by`` (resp. its transpose), until none is left: an exact identity such as
        (D_1 A_1)^+ D_1 A_1 = I_s (full column rank).
        """
        pword = pattern.single_word()
        if pattern == by:
            return self
        if pattern.shape != by.shape:
            raise ValueError(f"replacement has shape {by.shape}, pattern {pattern.shape}")
        rules = [(pword, by), (_transpose_word(pword), by.T)]
        current = self
        for _ in range(max_passes):
            changed = False
            result = MatrixExpr({}, self.rows, self.cols)
            for word, coeff in current._terms.items():
                piece = None
                for pat, rep in rules:
                    k = len(pat)
                    for start in range(len(word) - k + 1):
                        if word[start:start + k] == pat:
                            piece = _word_expr(word[:start], rep, word[start + k:])
                            break
                    if piece is not None:
                        break
                if piece is None:
                    result = result + MatrixExpr({word: coeff}, self.rows, self.cols)
                else:
                    changed = True
                    result = result + coeff * piece
            current = result
            if not changed:
                return current
        raise ValueError(f"replace did not terminate after {max_passes} passes")

    def single_word(self) -> Word:
        """The word of a one-term expression with coefficient 1 (else ValueError)."""
        if len(self._terms) != 1:
            raise ValueError("expected a single word")
        (word, coeff), = self._terms.items()
        if coeff != 1:
            raise ValueError("expected a single word with coefficient 1")
        return word

    def single_letter(self) -> Letter:
        """The letter of a one-letter expression (else ValueError)."""
        word = self.single_word()
        if len(word) != 1:
            raise ValueError("expected a single letter")
        return word[0]

    # -- display --------------------------------------------------------------------------
    def _sorted_terms(self) -> list[tuple[Word, sp.Expr]]:
        return sorted(self._terms.items(), key=lambda t: (len(t[0]), [str(x) for x in t[0]]))

    def __repr__(self) -> str:
        if not self._terms:
            return f"0[{self.rows}x{self.cols}]"
        parts = []
        for word, coeff in self._sorted_terms():
            w = " ".join(str(x) for x in word)
            parts.append(w if coeff == 1 else f"({sp.sstr(coeff)})*{w}")
        return " + ".join(parts)

    def to_sympy(self) -> sp.Expr:
        """The expression with noncommutative symbols, for display in a derivation Step."""
        total = sp.Integer(0)
        for word, coeff in self._sorted_terms():
            product = sp.Integer(1)
            for letter in word:
                product = product * sp.Symbol(letter.latex(), commutative=False)
            total = total + coeff * product
        return total

    def latex(self) -> str:
        return sp.latex(self.to_sympy())


def _single(letter: Letter) -> MatrixExpr:
    return MatrixExpr({(letter,): sp.Integer(1)}, letter.rows, letter.cols)


def _word_expr(left: Word, middle: MatrixExpr, right: Word) -> MatrixExpr:
    result = middle
    if left:
        result = MatrixExpr({left: sp.Integer(1)}, left[0].rows, left[-1].cols) @ result
    if right:
        result = result @ MatrixExpr({right: sp.Integer(1)}, right[0].rows, right[-1].cols)
    return result


def _check_task(mu: int) -> int:
    if isinstance(mu, bool) or not isinstance(mu, int) or mu < 1:
        raise ValueError(f"mu must be a task number >= 1, got {mu!r}")
    return mu


def task(mu: int) -> MatrixExpr:
    """A_mu, the Nx x Ns feature matrix of task ``mu`` (x = A_mu s: eq_generative_model).

    >>> task(1).shape
    ('x', 's')
    """
    rows, cols = _RANDOM_SPACES["A"]
    return _single(Letter("A", _check_task(mu), False, rows, cols))


def readout(mu: int) -> MatrixExpr:
    """B_mu, the Ny x Ns readout matrix of task ``mu`` (y* = B_mu s: eq_generative_model).

    >>> readout(2).T.shape
    ('s', 'y')
    """
    rows, cols = _RANDOM_SPACES["B"]
    return _single(Letter("B", _check_task(mu), False, rows, cols))


def gate(mu: int) -> MatrixExpr:
    """D_mu = diag(g_mu), the Nx x Nx gate of task ``mu`` (eq_ap_epsilonW, eq_def_rho_g).

    >>> gate(1) @ gate(1) == gate(1)
    True
    """
    return _single(Letter("D", _check_task(mu), False, "x", "x"))


def eye(space: str) -> MatrixExpr:
    """The identity on ``space`` (``"x"``: I_x, ``"s"``: I_s, ``"y"``: I_y).

    >>> (eye("s") @ task(1).T).shape
    ('s', 'x')
    """
    if space not in SPACES:
        raise ValueError(f"space must be one of {', '.join(SPACES)}, got {space!r}")
    return _single(Letter("I", 0, False, space, space, name=space))


def opaque(name: str, rows: str, cols: str, symmetric: bool = False) -> MatrixExpr:
    """A matrix the engine cannot average: to be removed by :meth:`MatrixExpr.replace` or
    :meth:`MatrixExpr.subs` first. ``symmetric`` letters equal their transpose.

    >>> P = opaque("(D_1A_1)^+", "s", "x")
    >>> (P @ gate(1) @ task(1)).replace(P @ gate(1) @ task(1), eye("s"))
    I_s
    """
    for label, space in (("rows", rows), ("cols", cols)):
        if space not in SPACES:
            raise ValueError(f"{label} must be one of {', '.join(SPACES)}, got {space!r}")
    if symmetric and rows != cols:
        raise ValueError("a symmetric opaque matrix must be square")
    if not name:
        raise ValueError("an opaque matrix needs a name")
    return _single(Letter("op", 0, False, rows, cols, name=name, symmetric=symmetric))


def words_of(exprs: Iterable[MatrixExpr]) -> set[Word]:
    """Every word of the given expressions (used to report the work an expectation needs).

    >>> sorted(len(w) for w in words_of([task(1).T @ task(2), gate(1)]))
    [1, 2]
    """
    return {w for e in exprs for w, _ in e}
