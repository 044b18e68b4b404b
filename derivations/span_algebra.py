"""Small symbolic helpers shared by the regularization, plasticity and soft-threshold
derivations (:mod:`tasksim.derivations.euclidean`, :mod:`tasksim.derivations.fisher`,
:mod:`tasksim.derivations.plasticity`, :mod:`tasksim.derivations.soft_threshold`).

- matrix calculus on sympy ``MatrixSymbol`` losses (``frobenius2``, ``matrix_gradient``,
  ``split_linear``) and conversion of the result to :class:`~tasksim.derivations.matrix_words.MatrixExpr`
  (``to_words``);
- right-linear solves in the span of named letters (``split_by_last_letter``,
  ``solve_right_linear``, ``strip_suffix``), and the thin SVD letters with their exact
  reduction rules (``SVD_U``, ..., ``reduce_svd``, ``solve_in_svd_span``);
- the tall-matrix surrogate of Gram blocks (``gram_mean``, ``gram_surrogate``; eq_AtA_approx)
  and expected errors over B, and over A either by surrogate or exactly with the engine
  (``expected_error``).

Examples
--------
>>> from tasksim.derivations.matrix_words import task
>>> gram_mean(task(1).T @ task(2))
N_x*rho_a/N_s
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping, Optional, Sequence

import sympy as sp

from .engine import expect_frobenius2, expect_trace
from .matrix_words import Letter, MatrixExpr, eye, opaque, readout, task  # noqa: F401 (doctests)
from .symbols import Ns, Nx, Ny, alpha, gamma, lam, rho_a, rho_b, rho_g  # noqa: F401 (doctests)

__all__ = [
    "EXPECTATIONS",
    "frobenius2",
    "matrix_gradient",
    "split_linear",
    "to_words",
    "split_by_last_letter",
    "solve_right_linear",
    "substitute_scalar",
    "gram_mean",
    "gram_surrogate",
    "expected_error",
    "SVD_U",
    "SVD_LAMBDA",
    "SVD_LAMBDA_INV",
    "SVD_V",
    "reduce_svd",
    "strip_suffix",
    "solve_in_svd_span",
    "same_matrix_expression",
    "by_powers_of_nx",
    "zero_matrix",
]

EXPECTATIONS = ("surrogate", "gaussian", "appendix")
"""How an error is averaged over the task matrices: every Gram block replaced by its mean
(``"surrogate"``, leading order in Ns/Nx), or exactly at finite Nx, Ns with the engine for
either generator (``"gaussian"``, ``"appendix"``)."""

_SPACE_OF_SIZE = {Nx: "x", Ns: "s", Ny: "y"}


def frobenius2(X: sp.MatrixExpr) -> sp.Expr:
    """||X||_F^2 = tr(X X^T) as a sum of traces of monomials (so that it can be differentiated).

    >>> W = sp.MatrixSymbol("W", 2, 3)
    >>> frobenius2(W)
    Trace(W*W.T)
    """
    expanded = sp.expand(X * X.T)
    terms = expanded.args if isinstance(expanded, sp.MatAdd) else (expanded,)
    return sp.Add(*[sp.Trace(t) for t in terms])


def matrix_gradient(loss: sp.Expr, W: sp.MatrixSymbol) -> sp.MatrixExpr:
    """d loss / d W for a loss that is a sum of (scalar multiples of) traces of monomials.

    Differentiates term by term: sympy 1.14 returns 0 for the derivative of some sums of
    traces, while each trace of a monomial is handled correctly.

    >>> W, A, B = (sp.MatrixSymbol(n, *s) for n, s in (("W", (2, 5)), ("A", (5, 3)),
    ...                                               ("B", (2, 3))))
    >>> matrix_gradient(frobenius2(B - W * A) / 2, W)
    -B*A.T + W*A*A.T
    """
    total = sp.ZeroMatrix(*W.shape)
    for term in sp.Add.make_args(sp.expand(loss)):
        total = total + term.diff(W)
    return sp.expand(total)


def split_linear(expression: sp.MatrixExpr, W: sp.MatrixSymbol
                 ) -> tuple[sp.MatrixExpr, sp.MatrixExpr]:
    """Write a right-linear matrix expression as ``W M - R``; returns ``(M, R)``.

    Every term must either not contain ``W`` or be ``c W X`` (W the leftmost matrix factor).
    The decomposition is checked: ``W M - R - expression`` expands to the zero matrix.

    >>> W, A, B = (sp.MatrixSymbol(n, *s) for n, s in (("W", (2, 5)), ("A", (5, 3)),
    ...                                               ("B", (2, 3))))
    >>> split_linear(W * A * A.T + 3 * W - B * A.T, W)
    (3*I + A*A.T, B*A.T)
    """
    n = W.shape[1]
    M: sp.MatrixExpr = sp.ZeroMatrix(n, n)
    R: sp.MatrixExpr = sp.ZeroMatrix(*W.shape)
    terms = expression.args if isinstance(expression, sp.MatAdd) else (expression,)
    for term in terms:
        if not term.has(W):
            R = R - term
            continue
        scalars = [f for f in (term.args if isinstance(term, sp.MatMul) else (term,))
                   if not getattr(f, "is_Matrix", False)]
        matrices = [f for f in (term.args if isinstance(term, sp.MatMul) else (term,))
                    if getattr(f, "is_Matrix", False)]
        if not matrices or matrices[0] != W or any(m.has(W) for m in matrices[1:]):
            raise ValueError(f"term {term} is not of the form c W X: not right-linear in W")
        rest = sp.MatMul(*matrices[1:]) if len(matrices) > 1 else sp.Identity(n)
        M = M + sp.Mul(*scalars) * rest
    M, R = M.doit(), R.doit()
    check = sp.expand(W * M - R - expression).doit()
    if not (check == sp.ZeroMatrix(*W.shape) or check == 0):
        raise ValueError(f"split_linear failed to reproduce the expression: {check}")
    return M, R


def to_words(expression: sp.MatrixExpr, table: Mapping[sp.MatrixSymbol, MatrixExpr]
             ) -> MatrixExpr:
    """Convert a sympy matrix expression into a :class:`MatrixExpr` (``table`` maps symbols).

    Identities become ``eye`` of the space their size names (Nx: x, Ns: s, Ny: y).

    >>> A = sp.MatrixSymbol("A", Nx, Ns)
    >>> to_words(A.T * A + 2 * sp.Identity(Ns), {A: task(1)})
    (2)*I_s + A_1^T A_1
    """
    if isinstance(expression, sp.MatrixSymbol):
        return table[expression]
    if isinstance(expression, sp.Identity):
        return eye(_SPACE_OF_SIZE[expression.rows])
    if isinstance(expression, sp.Transpose):
        return to_words(expression.arg, table).T
    if isinstance(expression, sp.MatAdd):
        parts = [to_words(a, table) for a in expression.args]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        return total
    if isinstance(expression, sp.MatMul):
        scalar = sp.Integer(1)
        product: Optional[MatrixExpr] = None
        for factor in expression.args:
            if getattr(factor, "is_Matrix", False):
                w = to_words(factor, table)
                product = w if product is None else product @ w
            else:
                scalar = scalar * factor
        if product is None:
            raise ValueError(f"no matrix factor in {expression}")
        return scalar * product
    raise ValueError(f"cannot convert {type(expression).__name__} {expression} to words: only "
                     "symbols, identities, transposes, sums and products are supported")


def _word_expr(word: tuple[Letter, ...], coeff: sp.Expr, rows: str, cols: str) -> MatrixExpr:
    if not word:
        return coeff * eye(rows)
    return MatrixExpr({word: coeff}, rows, cols)


def split_by_last_letter(expression: MatrixExpr, letters: Sequence[MatrixExpr]
                         ) -> list[MatrixExpr]:
    """Write ``expression = sum_c X_c @ L_c`` for the given single letters ``L_c``.

    This is the full-rank cancellation step of a span argument: if the rows of the stacked
    L_c are linearly independent (e.g. [A_{mu-1}, A_mu] of full column rank), the sum
    vanishes only if every X_c does. Raises ValueError if a word ends in another letter.

    >>> A1, A2 = task(1), task(2)
    >>> split_by_last_letter(readout(1) @ A1.T + readout(2) @ A2.T @ A1 @ A2.T, [A1.T, A2.T])
    [B_1, B_2 A_2^T A_1]
    """
    keys = [L.single_letter() for L in letters]
    parts: list[Optional[MatrixExpr]] = [None] * len(keys)
    for word, coeff in expression:
        if not word or word[-1] not in keys:
            raise ValueError(f"word {word} does not end in one of {[str(k) for k in keys]}")
        c = keys.index(word[-1])
        piece = _word_expr(word[:-1], coeff, expression.rows, keys[c].rows)
        parts[c] = piece if parts[c] is None else parts[c] + piece
    out = []
    for c, part in enumerate(parts):
        out.append(part if part is not None else 0 * zero_matrix(expression.rows, keys[c].rows))
    return out


def zero_matrix(rows: str, cols: str) -> MatrixExpr:
    """The zero matrix between the spaces ``rows`` and ``cols`` ("x", "s" or "y")."""
    return MatrixExpr({}, rows, cols)


def solve_right_linear(expression: MatrixExpr, unknowns: Sequence[MatrixExpr]
                       ) -> tuple[list[MatrixExpr], MatrixExpr]:
    """Read ``expression = sum_i Q_i @ M_i - R`` for opaque single letters ``Q_i``.

    Returns ``([M_0, M_1, ...], R)``: the right coefficient of every unknown and the part free
    of unknowns (negated). Setting the expression to zero gives the linear system
    ``[Q_0, Q_1, ...] [M_0; M_1; ...] = R``. Raises ValueError if an unknown occurs other
    than once, as the first letter of a word.

    >>> Q = opaque("Q", "y", "s")
    >>> solve_right_linear(Q @ task(1).T @ task(1) - readout(1), [Q])
    ([A_1^T A_1], B_1)
    """
    keys = [u.single_letter() for u in unknowns]
    coeffs: list[Optional[MatrixExpr]] = [None] * len(keys)
    rest: Optional[MatrixExpr] = None
    for word, coeff in expression:
        hits = [i for i, letter in enumerate(word) if letter in keys]
        if not hits:
            piece = _word_expr(word, -coeff, expression.rows, expression.cols)
            rest = piece if rest is None else rest + piece
            continue
        if hits != [0]:
            raise ValueError(f"word {word}: unknowns may only occur once, as the first letter")
        i = keys.index(word[0])
        piece = _word_expr(word[1:], coeff, keys[i].cols, expression.cols)
        coeffs[i] = piece if coeffs[i] is None else coeffs[i] + piece
    M = [c if c is not None else zero_matrix(keys[i].cols, expression.cols)
         for i, c in enumerate(coeffs)]
    R = rest if rest is not None else zero_matrix(expression.rows, expression.cols)
    return M, R


def substitute_scalar(expression: MatrixExpr, symbol: sp.Symbol, value: sp.Expr
                      ) -> MatrixExpr:
    """Substitute a scalar symbol in every coefficient of a :class:`MatrixExpr`.

    >>> substitute_scalar(lam * readout(1), lam, 2)
    (2)*B_1
    """
    return MatrixExpr({w: sp.sympify(c).subs(symbol, value) for w, c in expression},
                      expression.rows, expression.cols)


@lru_cache(maxsize=None)
def _gram_mean_cached(word: tuple[Letter, ...], independent_gates: bool) -> sp.Expr:
    value = expect_trace(MatrixExpr({word: sp.Integer(1)}, "s", "s")) / Ns
    if independent_gates:
        value = value.subs(rho_g, 0)
    return sp.simplify(value)


def gram_mean(block: MatrixExpr, *, independent_gates: bool = True) -> sp.Expr:
    """The scalar m with E[block] = m I_s for a Gram block A_mu^T [D ...] A_nu.

    Computed by the engine as E tr(block) / Ns (the mean of a Gram block is a multiple of the
    identity). Gates of different tasks are independent (rho_g = 0) unless
    ``independent_gates=False``. eq_AtA_approx and eq_ap_DAtDA_approx use these means.

    >>> gram_mean(task(1).T @ task(2))
    N_x*rho_a/N_s
    """
    return _gram_mean_cached(block.single_word(), independent_gates)


def _gram_blocks(expression: MatrixExpr) -> set[tuple[Letter, ...]]:
    """Every maximal segment A_mu^T D... A_nu occurring in a word of the expression."""
    found = set()
    for word, _ in expression:
        for start, letter in enumerate(word):
            if not (letter.kind == "A" and letter.transposed):
                continue
            end = start + 1
            while end < len(word) and word[end].kind == "D":
                end += 1
            if end < len(word) and word[end].kind == "A" and not word[end].transposed:
                found.add(word[start:end + 1])
    return found


def gram_surrogate(expression: MatrixExpr, *, same_task_only: bool = False,
                   values: Optional[Callable[[MatrixExpr], sp.Expr]] = None,
                   independent_gates: bool = True) -> MatrixExpr:
    """Replace Gram blocks A_mu^T [D ...] A_nu by their mean times I_s (eq_AtA_approx).

    ``same_task_only`` restricts the step to mu = nu (what the appendix does when it
    simplifies the weights). ``values`` overrides the surrogate value of a block (used by the
    tests to show that the result follows the surrogate). Repeated until no block is left.

    >>> from tasksim.derivations.symbols import rho_a
    >>> gram_surrogate(readout(1) @ task(1).T @ task(2))
    (N_x*rho_a/N_s)*B_1
    >>> gram_surrogate(readout(1) @ task(1).T @ task(2), same_task_only=True)
    B_1 A_1^T A_2
    """
    value_of = values or (lambda b: gram_mean(b, independent_gates=independent_gates))
    current = expression
    for _ in range(50):
        blocks = [b for b in _gram_blocks(current)
                  if not same_task_only or b[0].task == b[-1].task]
        if not blocks:
            return current
        for block in sorted(blocks):
            pattern = MatrixExpr({block: sp.Integer(1)}, "s", "s")
            current = current.replace(pattern, value_of(pattern) * eye("s"))
    raise ValueError("gram_surrogate did not terminate")


SVD_U = opaque("U", "x", "s")
SVD_LAMBDA = opaque("Lambda", "s", "s", symmetric=True)
SVD_LAMBDA_INV = opaque("Lambda^{-1}", "s", "s", symmetric=True)
SVD_V = opaque("V", "s", "s")
"""Opaque letters of the thin SVD A = U Lam V^T of an Nx x Ns matrix of full column rank."""


def reduce_svd(expression: MatrixExpr,
               extra_rules: Sequence[tuple[MatrixExpr, MatrixExpr]] = (), *,
               square_v: bool = True) -> MatrixExpr:
    """Apply U^T U = V^T V = V V^T = Lam Lam^{-1} = Lam^{-1} Lam = I_s (exact for an
    A = U Lam V^T of full column rank, V square) and ``extra_rules`` until nothing changes;
    ``square_v=False`` leaves V V^T alone (a V with fewer columns than rows).

    >>> reduce_svd(SVD_U.T @ SVD_U @ SVD_LAMBDA @ SVD_LAMBDA_INV @ SVD_V.T @ SVD_V)
    I_s
    """
    rules = [(SVD_U.T @ SVD_U, eye("s")), (SVD_V.T @ SVD_V, eye("s")),
             *([(SVD_V @ SVD_V.T, eye("s"))] if square_v else []),
             (SVD_LAMBDA @ SVD_LAMBDA_INV, eye("s")),
             (SVD_LAMBDA_INV @ SVD_LAMBDA, eye("s"))] + list(extra_rules)
    current = expression
    for _ in range(50):
        before = current
        for pattern, by in rules:
            current = current.replace(pattern, by)
        if current == before:
            return current
    raise ValueError("the SVD reduction did not terminate")


def solve_in_svd_span(gradient: MatrixExpr, unknown: MatrixExpr) -> MatrixExpr:
    """Solve a stationarity condition whose gradient is written with W = W_o + Q U^T and
    A = U Lam V^T (letters :data:`SVD_U`, ...): returns Q.

    Steps, all exact for A of full column rank: every word ends in U^T (the span argument),
    which is cancelled; the remaining factor is multiplied on the right by Lam^{-1} V^T and
    then V Lam^{-1}, reduced by :func:`reduce_svd`, and read as ``Q c - R`` with a scalar c.

    >>> Q, B = opaque("Q", "y", "s"), readout(1)
    >>> A = SVD_U @ SVD_LAMBDA @ SVD_V.T
    >>> W = Q @ SVD_U.T
    >>> solve_in_svd_span(((W @ A - B) @ A.T) * 2, Q)
    B_1 V Lambda^{-1}
    """
    (X,) = split_by_last_letter(gradient, [SVD_U.T])
    Y = reduce_svd(X @ SVD_LAMBDA_INV @ SVD_V.T)
    Z = reduce_svd(Y @ SVD_V @ SVD_LAMBDA_INV)
    (M,), R = solve_right_linear(Z, [unknown])
    if M.terms_count() != 1 or next(iter(M))[0] != eye("s").single_word():
        raise ValueError(f"expected a scalar multiple of I_s as the coefficient, got {M}")
    scale = next(iter(M))[1]
    return MatrixExpr({w: sp.factor(c / scale) for w, c in R}, R.rows, R.cols)


def strip_suffix(expression: MatrixExpr, suffix: MatrixExpr) -> MatrixExpr:
    """X with ``expression = X @ suffix`` (every word must end with the word ``suffix``).

    The full-rank cancellation step of a span argument when the factor that multiplies
    from the right has full row rank as a whole, e.g. (D A)^T = A^T D.

    >>> from tasksim.derivations.matrix_words import gate
    >>> strip_suffix(readout(1) @ task(1).T @ gate(1), task(1).T @ gate(1))
    B_1
    """
    tail = suffix.single_word()
    result: Optional[MatrixExpr] = None
    for word, coeff in expression:
        if word[len(word) - len(tail):] != tail or len(word) < len(tail):
            raise ValueError(f"word {word} does not end with {suffix}")
        piece = _word_expr(word[:len(word) - len(tail)], coeff, expression.rows, suffix.rows)
        result = piece if result is None else result + piece
    if result is None:
        return zero_matrix(expression.rows, suffix.rows)
    return result


def expected_error(residual: MatrixExpr, expectation: str = "surrogate") -> sp.Expr:
    """E (1/Ny) ||residual||_F^2 for a residual B_mu - W A_mu (linear in the readouts).

    ``expectation``: ``"surrogate"`` replaces every Gram block by its mean first (leading
    order in Ns/Nx), ``"gaussian"`` / ``"appendix"`` are exact at finite Nx, Ns (the engine).
    The average over B is exact in every case (only its second moments enter).

    >>> from tasksim.derivations.symbols import rho_b
    >>> expected_error(readout(2) - readout(1))
    2 - 2*rho_b
    """
    if expectation not in EXPECTATIONS:
        raise ValueError(f"expectation must be one of {', '.join(EXPECTATIONS)}, "
                         f"got {expectation!r}")
    if residual.shape != ("y", "s"):
        raise ValueError(f"a residual B - W A has shape ('y', 's'), got {residual.shape}")
    if expectation == "surrogate":
        residual = gram_surrogate(residual)
        generator = "gaussian"
    else:
        generator = expectation
    return sp.expand(expect_frobenius2(residual, generator) / Ny)


def by_powers_of_nx(value: sp.Expr) -> sp.Expr:
    """Write a Laurent polynomial in Nx as sum_k c_k Nx^k with factored c_k (free of Nx):
    the exact 1/Nx expansion at fixed Ns, readable and quick to simplify. Falls back to one
    common denominator if ``value`` is not a Laurent polynomial in Nx.

    >>> by_powers_of_nx((Nx + Ns + 1) / Nx)
    1 + (N_s + 1)/N_x
    """
    expanded = sp.expand(value)
    coefficients: dict[sp.Expr, sp.Expr] = {}
    for term in sp.Add.make_args(expanded):
        c, power = term.as_coeff_exponent(Nx)
        if c.has(Nx):
            return sp.together(expanded)
        coefficients[power] = coefficients.get(power, sp.Integer(0)) + c
    return sp.Add(*[sp.factor(c) * Nx**p for p, c in coefficients.items()])


def same_matrix_expression(a: sp.Basic, b: sp.Basic) -> bool:
    """True when two noncommutative sympy expressions (``MatrixExpr.to_sympy()``) agree:
    the coefficients of every word of ``a - b`` simplify to zero.

    >>> x, y = sp.symbols("x y", commutative=False)
    >>> same_matrix_expression(sp.Rational(1, 2) * x * y + x * y / 2, x * y)
    True
    """
    groups: dict[tuple, sp.Expr] = {}
    for term in sp.Add.make_args(sp.expand(a - b)):
        c, nc = term.args_cnc()
        key = tuple(nc)
        groups[key] = groups.get(key, sp.Integer(0)) + sp.Mul(*c)
    return all(sp.simplify(v) == 0 for v in groups.values())
