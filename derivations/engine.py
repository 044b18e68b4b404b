"""The expectation engine: exact expectations of traces of products of task matrices.

Given a :class:`tasksim.derivations.matrix_words.MatrixExpr` built from A_1, A_2 (Nx x Ns), B_1, B_2
(Ny x Ns), gates D_1, D_2 and identities, :func:`expect_trace` returns E tr(X) *exactly* at
finite Nx, Ns, Ny, as a sympy expression in Nx, Ns, Ny, rho_a, rho_b, alpha and rho_g (or
alpha~ = rho_g + (1 - rho_g) alpha, eq_def_rho_g, with ``alpha_tilde=True``).

Model (Appendix A, "Assumption I"; eq_def_rho_g)
--------------------------------------------------
Entries of A_mu and B_mu have mean 0 and variance 1/Ns; entries at different positions are
independent; the pair (a^(1)_{ji}, a^(2)_{ji}) at one position has correlation rho_a (rho_b for
B). Two generators fix the joint law of that pair:

``"gaussian"``  jointly Gaussian: A_2 = rho_a A_1 + sqrt(1 - rho_a^2) Z;
``"appendix"``  the paper's Appendix A: a^(2) = a^(1) with probability rho_a, else an
                independent copy. Then E[a1^p a2^q] = rho_a m_{p+q} + (1 - rho_a) m_p m_q,
                with m_k the Gaussian moments; the pair is *not* jointly Gaussian.

Gates g_mu in {0, 1}^Nx are independent of A and B: P(g_1j = 1) = alpha, and g_2j keeps g_1j
with probability rho_g, otherwise redraws it, so E[g_1 g_2] = alpha alpha~ (eq_def_rho_g).
The A, B and gate families are mutually independent.

Method
------
A trace of a word is a cyclic index sum. Gates and identities only identify their two
indices; what remains are *index classes* in the x, s and y spaces and random entries
sitting at (x-class, s-class) or (y-class, s-class) positions. The sum over index values is
split by the equality pattern of the classes: a set partition of the x-classes (and of the s-
and y-classes) with b blocks is realised by the falling factorial (N)_b assignments, and given
the pattern, entries at distinct positions are independent. So

    E tr(word) = sum over patterns of (Nx)_bx (Ns)_bs (Ny)_by
                 * prod over positions E[a1^p a2^q] * prod over x-blocks E[g1^p g2^q].

No Gaussian assumption enters beyond the per-position moments, so the result is exact for
both generators. Patterns are counted with integers first and only the distinct
(block counts, moment multiset, gate multiset) keys become sympy terms. Traces of words are
cached up to cyclic rotation and transposition. For the Gaussian generator
:func:`expect_trace_wick` computes the same numbers by Isserlis/Wick pairings; the tests check
that the two agree.

Examples
--------
>>> from tasksim.derivations.matrix_words import task, gate
>>> A1, A2 = task(1), task(2)
>>> expect_trace(A1.T @ A1)
N_x
>>> sp.factor(expect_trace(A1.T @ A1 @ A1.T @ A1))
N_x*(N_s + N_x + 1)/N_s
>>> expect_trace(A1.T @ gate(1) @ gate(2) @ A2, alpha_tilde=True)
N_x*\\tilde{alpha}*alpha*rho_a

References
----------
Isserlis (1918) for Gaussian moments; the set-partition (moment) expansion of index sums is the
standard combinatorics of random-matrix moments (e.g. Mingo and Speicher, *Free Probability
and Random Matrices*, 2017, ch. 1).
"""
from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Iterator, Sequence

import sympy as sp

from .matrix_words import MatrixExpr, Word
from .symbols import Ns, Nx, Ny, alpha, alpha_t, eps, rho_a, rho_b, rho_g

__all__ = [
    "GENERATORS",
    "expect_trace",
    "trace_terms",
    "expect_frobenius2",
    "expect_trace_wick",
    "expect_index_sum",
    "wick_census",
    "joint_moment",
    "gate_moment",
    "set_partitions",
    "ratio_expansion",
    "large_Ns_part",
    "alpha_tilde_value",
]

GENERATORS = ("gaussian", "appendix")

_CORRELATION = {"A": rho_a, "B": rho_b}


def alpha_tilde_value() -> sp.Expr:
    """alpha~ = rho_g + (1 - rho_g) alpha, so that E[g_1 g_2] = alpha alpha~ (eq_def_rho_g).

    >>> alpha_tilde_value()
    alpha*(1 - rho_g) + rho_g
    """
    return rho_g + (1 - rho_g) * alpha


def _check_generator(generator: str) -> str:
    if generator not in GENERATORS:
        raise ValueError(f"generator must be one of {', '.join(GENERATORS)}, got {generator!r}")
    return generator


# -- per-position moments -----------------------------------------------------------------

def gaussian_moment(k: int) -> int:
    """E[z^k] for z ~ N(0, 1): (k - 1)!! for even k, 0 for odd k."""
    if k % 2:
        return 0
    return math.prod(range(k - 1, 0, -2)) if k else 1


@lru_cache(maxsize=None)
def joint_moment(p: int, q: int, generator: str, family: str = "A") -> sp.Expr:
    """E[a1^p a2^q] for one position at *unit* variance (the engine rescales by 1/Ns).

    ``family`` ``"A"`` uses rho_a, ``"B"`` uses rho_b.

    >>> joint_moment(2, 2, "gaussian")
    2*rho_a**2 + 1
    >>> joint_moment(2, 2, "appendix")
    2*rho_a + 1
    >>> joint_moment(1, 1, "appendix") == joint_moment(1, 1, "gaussian") == rho_a
    True
    """
    _check_generator(generator)
    if p < 0 or q < 0:
        raise ValueError(f"moment orders must be non-negative, got p={p}, q={q}")
    rho = _CORRELATION[family]
    m = gaussian_moment
    if generator == "appendix":
        return sp.expand(rho * m(p + q) + (1 - rho) * m(p) * m(q))
    # a2 = rho a1 + sqrt(1 - rho^2) z: only even powers of z survive.
    total = sp.Integer(0)
    for j in range(q + 1):
        if (q - j) % 2:
            continue
        total += (sp.binomial(q, j) * rho**j * (1 - rho**2) ** ((q - j) // 2)
                  * m(p + j) * m(q - j))
    return sp.expand(total)


def gate_moment(tasks: frozenset[int], alpha_tilde: bool = False) -> sp.Expr:
    """E[prod_{mu in tasks} g_mu] for one unit (gates are 0/1, so powers do not matter).

    >>> gate_moment(frozenset({1, 2}))
    alpha*(alpha*(1 - rho_g) + rho_g)
    >>> gate_moment(frozenset())
    1
    """
    if not tasks:
        return sp.Integer(1)
    if not set(tasks) <= {1, 2}:
        raise NotImplementedError(
            "gate moments are implemented for tasks 1 and 2 only: eq_def_rho_g couples "
            "subsequent tasks, and no derivation of the paper needs three gates"
        )
    if len(tasks) == 1:
        return alpha
    return alpha * (alpha_t if alpha_tilde else alpha_tilde_value())


def _falling(n: sp.Expr, b: int) -> sp.Expr:
    return sp.Mul(*[n - i for i in range(b)])


# -- set partitions -----------------------------------------------------------------------

@lru_cache(maxsize=None)
def set_partitions(n: int) -> tuple[tuple[int, ...], ...]:
    """All set partitions of ``range(n)`` as restricted growth strings (block label per item).

    >>> len(set_partitions(4)), set_partitions(2)
    (15, ((0, 0), (0, 1)))
    """
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    out: list[tuple[int, ...]] = []

    def grow(prefix: list[int], top: int) -> None:
        if len(prefix) == n:
            out.append(tuple(prefix))
            return
        for label in range(top + 2):
            prefix.append(label)
            grow(prefix, max(top, label))
            prefix.pop()

    grow([], -1)
    return tuple(out)


# -- index structure of a trace -----------------------------------------------------------

class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> None:
        ri, rj = self.find(i), self.find(j)
        if ri != rj:
            self.parent[max(ri, rj)] = min(ri, rj)


class _TraceStructure:
    """Index classes of a cyclic word and the random entries sitting on them.

    ``classes[space]`` lists class ids; ``gates[k]`` is the frozenset of gate tasks on x-class
    ``k`` (position in ``classes["x"]``); ``entries`` are (family, task, row-class position,
    s-class position) with the row class in the x (family A) or y (family B) space.
    """

    def __init__(self, word: Word) -> None:
        k = len(word)
        uf = _UnionFind(k)
        for t, letter in enumerate(word):
            if letter.is_diagonal:
                uf.union(t, (t + 1) % k)
        space_of: dict[int, str] = {}
        for t, letter in enumerate(word):
            for slot, space in ((t, letter.rows), ((t + 1) % k, letter.cols)):
                root = uf.find(slot)
                if space_of.setdefault(root, space) != space:
                    raise ValueError(f"inconsistent spaces in word {word}")
        self.classes: dict[str, list[int]] = {"x": [], "s": [], "y": []}
        for root in sorted(space_of):
            self.classes[space_of[root]].append(root)
        pos = {space: {c: i for i, c in enumerate(ids)} for space, ids in self.classes.items()}
        gate_sets: dict[int, set[int]] = {c: set() for c in self.classes["x"]}
        self.entries: list[tuple[str, int, int, int]] = []
        for t, letter in enumerate(word):
            row, col = uf.find(t), uf.find((t + 1) % k)
            if letter.kind == "D":
                gate_sets[row].add(letter.task)
            elif letter.is_random:
                if letter.task not in (1, 2):
                    raise NotImplementedError(
                        "the engine averages over tasks 1 and 2 only: the joint law of "
                        "three or more correlated tasks is not needed by the paper"
                    )
                outer, inner = (col, row) if letter.transposed else (row, col)
                outer_space = "x" if letter.kind == "A" else "y"
                self.entries.append(
                    (letter.kind, letter.task, pos[outer_space][outer], pos["s"][inner])
                )
            elif letter.kind == "op":
                raise ValueError(
                    f"the word contains the opaque matrix {letter}: replace it by an exact "
                    "identity or a surrogate before taking an expectation"
                )
        self.gates = [frozenset(gate_sets[c]) for c in self.classes["x"]]


def _rotations(word: Word) -> Iterator[Word]:
    for t in range(len(word)):
        yield word[t:] + word[:t]


def _cyclic_normal_form(word: Word) -> Word:
    """Rotate to start at a non-diagonal letter, merging a gate run that wraps around."""
    from .matrix_words import _normalise  # the one normalisation rule for words

    starts = [t for t, letter in enumerate(word) if not letter.is_diagonal]
    if not starts:
        gates = tuple(sorted({letter for letter in word if letter.kind == "D"}))
        if gates:
            return gates
        return word[:1]
    t = starts[0]
    return _normalise(word[t:] + word[:t])


def _canonical(word: Word) -> Word:
    """The least rotation of the word or of its transpose (tr X = tr X^T)."""
    candidates = []
    for w in (word, tuple(letter.T for letter in reversed(word))):
        w = _cyclic_normal_form(w)
        candidates.extend(
            r for r in _rotations(w) if not r[0].is_diagonal or all(x.is_diagonal for x in w)
        )
    return min(candidates)


def trace_terms(X: MatrixExpr) -> dict[Word, sp.Expr]:
    """tr X as coefficients of words in the canonical form of :func:`_canonical` (the least
    rotation of a word or of its transpose, since tr(XY) = tr(YX) and tr X = tr X^T), zero
    coefficients dropped: two expressions whose terms agree have equal traces for every value
    of their letters, opaque ones included (no expectation is taken).

    >>> from tasksim.derivations.matrix_words import opaque
    >>> P = opaque("P", "s", "s")
    >>> trace_terms(P - P.T), len(trace_terms(P @ P.T - P.T @ P + P))
    ({}, 1)
    """
    out: dict[Word, sp.Expr] = {}
    for word, coefficient in X:
        key = _canonical(word)
        out[key] = sp.expand(out.get(key, 0) + coefficient)
    return {word: c for word, c in out.items() if c != 0}


# -- the expectation ----------------------------------------------------------------------

@lru_cache(maxsize=None)
def _trace_of_word(word: Word, generator: str, alpha_tilde: bool) -> sp.Expr:
    """E tr(word), exact (module docstring: the set-partition method)."""
    structure = _TraceStructure(word)
    counts = Counter(family for family, *_ in structure.entries)
    if any(n % 2 for n in counts.values()):
        return sp.Integer(0)  # odd moments of symmetric entries vanish
    entries = structure.entries
    n_x, n_s, n_y = (len(structure.classes[s]) for s in ("x", "s", "y"))
    tally: Counter = Counter()
    for xpart in set_partitions(n_x):
        bx = 1 + max(xpart, default=-1)
        gate_blocks: list[set[int]] = [set() for _ in range(bx)]
        for cls, block in enumerate(xpart):
            gate_blocks[block] |= structure.gates[cls]
        gate_key = tuple(sorted(tuple(sorted(g)) for g in gate_blocks if g))
        for ypart in set_partitions(n_y):
            by = 1 + max(ypart, default=-1)
            for spart in set_partitions(n_s):
                cells: dict[tuple[str, int, int], list[int]] = {}
                for family, mu, outer, inner in entries:
                    row = xpart[outer] if family == "A" else ypart[outer]
                    cell = cells.setdefault((family, row, spart[inner]), [0, 0])
                    cell[mu - 1] += 1
                if any((p + q) % 2 for p, q in cells.values()):
                    continue
                moment_key = tuple(sorted((f, p, q) for (f, _, _), (p, q) in cells.items()))
                bs = 1 + max(spart, default=-1)
                tally[(bx, bs, by, moment_key, gate_key)] += 1
    # integer counts first, then polynomial arithmetic (sympy Poly) on the distinct keys
    total = _poly(0)
    for (bx, bs, by, moment_key, gate_key), count in tally.items():
        term = _size_poly(bx, bs, by) * count
        term *= _moment_poly(moment_key, generator)
        term *= _gate_poly(gate_key, alpha_tilde)
        total += term
    return _laurent(total, len(entries) // 2)


_POLY_GENS = (Nx, Ns, Ny, rho_a, rho_b, alpha, rho_g, alpha_t)
_RING, *_ = sp.polys.rings.ring(_POLY_GENS, sp.QQ)  # sparse polynomials: fast products


def _poly(expr):
    return _RING.from_expr(sp.sympify(expr))


def _laurent(poly, ns_power: int) -> sp.Expr:
    """poly / Ns**ns_power as an expanded sympy expression, built term by term."""
    terms = []
    ns_index = _POLY_GENS.index(Ns)
    for exponents, coeff in poly.terms():
        factors = [sp.Rational(coeff.numerator, coeff.denominator)]
        for k, (gen, e) in enumerate(zip(_POLY_GENS, exponents)):
            power = e - ns_power if k == ns_index else e
            if power:
                factors.append(gen**power)
        terms.append(sp.Mul(*factors))
    return sp.Add(*terms)


@lru_cache(maxsize=None)
def _size_poly(bx: int, bs: int, by: int):
    return _poly(_falling(Nx, bx) * _falling(Ns, bs) * _falling(Ny, by))


@lru_cache(maxsize=None)
def _joint_moment_poly(p: int, q: int, generator: str, family: str):
    return _poly(joint_moment(p, q, generator, family))


@lru_cache(maxsize=None)
def _single_gate_poly(tasks: tuple[int, ...], alpha_tilde: bool):
    return _poly(gate_moment(frozenset(tasks), alpha_tilde))


@lru_cache(maxsize=None)
def _moment_poly(moment_key: tuple, generator: str):
    product = _poly(1)
    for family, p, q in moment_key:
        product *= _joint_moment_poly(p, q, generator, family)
    return product


@lru_cache(maxsize=None)
def _gate_poly(gate_key: tuple, alpha_tilde: bool):
    product = _poly(1)
    for g in gate_key:
        product *= _single_gate_poly(tuple(g), alpha_tilde)
    return product


def _check_square(X: MatrixExpr) -> None:
    if not isinstance(X, MatrixExpr):
        raise ValueError(f"X must be a MatrixExpr, got {type(X).__name__}")
    if X.rows != X.cols:
        raise ValueError(f"a trace needs a square expression, got shape {X.shape}")


def expect_trace(X: MatrixExpr, generator: str = "gaussian", *,
                 alpha_tilde: bool = False) -> sp.Expr:
    """E tr(X), exact at finite Nx, Ns, Ny, for either generator (module docstring).

    ``alpha_tilde=True`` writes E[g_1 g_2] as alpha * alpha~ (the symbol ``alpha_t``) instead
    of alpha (rho_g + (1 - rho_g) alpha). Opaque letters must have been removed.

    >>> from tasksim.derivations.matrix_words import task, readout
    >>> expect_trace(readout(1).T @ readout(2))
    N_y*rho_b
    >>> sp.factor(expect_trace(task(1).T @ task(2) @ task(1).T @ task(2), "appendix")
    ...           - expect_trace(task(1).T @ task(2) @ task(1).T @ task(2), "gaussian"))
    -2*N_x*rho_a*(rho_a - 1)/N_s
    """
    _check_square(X)
    _check_generator(generator)
    total = sp.Integer(0)
    for word, coeff in X:
        total += coeff * _trace_of_word(_canonical(word), generator, bool(alpha_tilde))
    return sp.expand(total)


def expect_frobenius2(X: MatrixExpr, generator: str = "gaussian", *,
                      alpha_tilde: bool = False) -> sp.Expr:
    """E ||X||_F^2 = E tr(X X^T), exact (see :func:`expect_trace`).

    >>> from tasksim.derivations.matrix_words import task
    >>> sp.factor(expect_frobenius2(task(1).T @ task(2)))
    N_x*(N_s + N_x*rho_a**2 + rho_a**2)/N_s
    """
    if not isinstance(X, MatrixExpr):
        raise ValueError(f"X must be a MatrixExpr, got {type(X).__name__}")
    return expect_trace(X @ X.T, generator, alpha_tilde=alpha_tilde)


# -- general index sums (entries at named indices) ----------------------------------------

Entry = tuple[str, int, str, str]


def expect_index_sum(
    entries: Sequence[Entry],
    spaces: dict[str, str],
    *,
    summed: Sequence[str] = (),
    gates: Sequence[tuple[int, str]] = (),
    generator: str = "gaussian",
    alpha_tilde: bool = False,
) -> sp.Expr:
    """E sum_{summed indices} prod_entries a^(task)_{outer, s} prod_gates g^(task)_x, exact.

    ``entries`` are ``(family, task, outer, inner)``: the entry of A_task (family ``"A"``, outer
    index in the x space) or B_task (``"B"``, outer index in y) at row ``outer`` and column
    ``inner`` (an s index). ``gates`` are ``(task, x index)``. ``spaces`` maps every index name
    to its space. Indices not in ``summed`` are *fixed*: distinct names stand for distinct
    values (write one name twice for equal indices). Summed indices range over their whole
    space, coinciding with fixed ones or not.

    This is the engine of :func:`expect_trace` for an arbitrary index structure, used for
    element-wise statements (eq_ap_aquad_isserlis, Appendix D).

    >>> a = [("A", 1, "j", "i"), ("A", 2, "j", "i")] * 2     # a1^2 a2^2 at one position
    >>> sp.factor(expect_index_sum(a, {"i": "s", "j": "x"}, generator="appendix"))
    (2*rho_a + 1)/N_s**2
    >>> expect_index_sum([("A", 1, "j", "i")] * 2, {"i": "s", "j": "x"}, summed=["j"])
    N_x/N_s
    """
    _check_generator(generator)
    summed_set = set(summed)
    for name in list(summed_set) + [n for e in entries for n in e[2:]] + [x for _, x in gates]:
        if spaces.get(name) not in SPACE_SIZES:
            raise ValueError(f"index {name!r} needs a space among x, s, y in `spaces`")
    for family, mu, outer, inner in entries:
        if family not in _CORRELATION or mu not in (1, 2):
            raise ValueError(f"entries must be ('A'|'B', 1|2, outer, inner), got {family, mu}")
        if spaces[outer] != ("x" if family == "A" else "y") or spaces[inner] != "s":
            raise ValueError(f"entry {family}_{mu}[{outer},{inner}] has indices in the wrong "
                             "spaces")
    names = {sp_: sorted({n for n, s in spaces.items() if s == sp_}) for sp_ in SPACE_SIZES}
    per_space_patterns = []
    for space, idx in names.items():
        fixed = [n for n in idx if n not in summed_set]
        patterns = []
        for part in set_partitions(len(idx)):
            fixed_blocks = [part[idx.index(n)] for n in fixed]
            if len(set(fixed_blocks)) != len(fixed_blocks):
                continue  # distinct fixed names are distinct values
            blocks = set(part)
            new_blocks = len(blocks - set(fixed_blocks))
            weight = _falling(SPACE_SIZES[space] - len(fixed), new_blocks)
            patterns.append(({n: part[k] for k, n in enumerate(idx)}, weight))
        per_space_patterns.append((space, patterns))
    total = sp.Integer(0)

    def combine(k: int, label: dict[str, tuple[str, int]], weight: sp.Expr) -> None:
        nonlocal total
        if k == len(per_space_patterns):
            cells: dict[tuple, list[int]] = {}
            for family, mu, outer, inner in entries:
                cell = cells.setdefault((family, label[outer], label[inner]), [0, 0])
                cell[mu - 1] += 1
            if any((p + q) % 2 for p, q in cells.values()):
                return
            term = weight
            for (family, _, _), (p, q) in cells.items():
                term *= joint_moment(p, q, generator, family)
            gate_blocks: dict[tuple[str, int], set[int]] = {}
            for mu, x in gates:
                gate_blocks.setdefault(label[x], set()).add(mu)
            for g in gate_blocks.values():
                term *= gate_moment(frozenset(g), alpha_tilde)
            total += term
            return
        space, patterns = per_space_patterns[k]
        for blocks, w in patterns:
            new_label = dict(label)
            new_label.update({n: (space, b) for n, b in blocks.items()})
            combine(k + 1, new_label, weight * w)

    combine(0, {}, sp.Integer(1))
    return sp.expand(total / Ns ** sp.Rational(len(entries), 2))


SPACE_SIZES = {"x": Nx, "s": Ns, "y": Ny}


def wick_census(X: MatrixExpr) -> Counter:
    """How many Wick pairings of E tr(X) (Gaussian entries) leave (c_x, c_s, c_y) free index
    components with (p_a, p_b) cross-task pairs: ``{(c_x, c_s, c_y, p_a, p_b): count}``.

    A pairing contributes rho_a^p_a rho_b^p_b Nx^c_x Ns^c_s Ny^c_y / Ns^(n/2) (before gates),
    so the census says which pairings make the leading and next-to-leading orders. X must be
    a single word.

    >>> from tasksim.derivations.matrix_words import task
    >>> X = task(1).T @ task(2)
    >>> sorted(wick_census(X @ X.T).items())
    [((1, 1, 0, 2, 0), 1), ((1, 2, 0, 0, 0), 1), ((2, 1, 0, 2, 0), 1)]
    """
    _check_square(X)
    structure = _TraceStructure(X.single_word())
    entries = structure.entries
    n_x, n_s, n_y = (len(structure.classes[s]) for s in ("x", "s", "y"))
    offset = {"x": 0, "s": n_x, "y": n_x + n_s}
    census: Counter = Counter()
    for pairing in _pairings(list(range(len(entries)))):
        uf = _UnionFind(n_x + n_s + n_y)
        powers = {"A": 0, "B": 0}
        if any(entries[i][0] != entries[j][0] for i, j in pairing):
            continue
        for i, j in pairing:
            fi, mi, oi, si = entries[i]
            _, mj, oj, sj = entries[j]
            outer = "x" if fi == "A" else "y"
            uf.union(offset[outer] + oi, offset[outer] + oj)
            uf.union(offset["s"] + si, offset["s"] + sj)
            powers[fi] += int(mi != mj)
        comps = [len({uf.find(offset[s] + c) for c in range(n)})
                 for s, n in (("x", n_x), ("s", n_s), ("y", n_y))]
        census[(*comps, powers["A"], powers["B"])] += 1
    return census


# -- the Wick / Isserlis form (Gaussian generator) ----------------------------------------

def _pairings(items: Sequence[int]) -> Iterator[list[tuple[int, int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for k, other in enumerate(rest):
        for tail in _pairings(rest[:k] + rest[k + 1:]):
            yield [(first, other)] + tail


@lru_cache(maxsize=None)
def _wick_trace_of_word(word: Word, alpha_tilde: bool) -> sp.Expr:
    structure = _TraceStructure(word)
    entries = structure.entries
    if len(entries) % 2:
        return sp.Integer(0)
    n_x, n_s, n_y = (len(structure.classes[s]) for s in ("x", "s", "y"))
    # one union-find over all classes: x at 0.., s after, y after
    offset = {"x": 0, "s": n_x, "y": n_x + n_s}
    tally: Counter = Counter()
    for pairing in _pairings(list(range(len(entries)))):
        uf = _UnionFind(n_x + n_s + n_y)
        rho_power = {"A": 0, "B": 0}
        possible = True
        for i, j in pairing:
            fi, mi, oi, si = entries[i]
            fj, mj, oj, sj = entries[j]
            if fi != fj:
                possible = False  # A and B are independent, zero mean
                break
            outer = "x" if fi == "A" else "y"
            uf.union(offset[outer] + oi, offset[outer] + oj)
            uf.union(offset["s"] + si, offset["s"] + sj)
            rho_power[fi] += int(mi != mj)
        if not possible:
            continue
        roots = {space: sorted({uf.find(offset[space] + c) for c in range(n)})
                 for space, n in (("x", n_x), ("s", n_s), ("y", n_y))}
        comp_gates: dict[int, set[int]] = {r: set() for r in roots["x"]}
        for c in range(n_x):
            comp_gates[uf.find(c)] |= structure.gates[c]
        gate_key = tuple(tuple(sorted(comp_gates[r])) for r in roots["x"])
        tally[(gate_key, len(roots["s"]), len(roots["y"]), rho_power["A"],
               rho_power["B"])] += 1
    total = sp.Integer(0)
    for (gate_key, cs, cy, pa, pb), count in tally.items():
        # sum over the values of the x-components: their coincidences matter for the gates
        x_sum = sp.Integer(0)
        for part in set_partitions(len(gate_key)):
            blocks: dict[int, set[int]] = {}
            for comp, block in enumerate(part):
                blocks.setdefault(block, set()).update(gate_key[comp])
            term = _falling(Nx, len(blocks))
            for g in blocks.values():
                term *= gate_moment(frozenset(g), alpha_tilde)
            x_sum += term
        total += count * x_sum * Ns**cs * Ny**cy * rho_a**pa * rho_b**pb
    return sp.expand(total / Ns ** sp.Rational(len(entries), 2))


def expect_trace_wick(X: MatrixExpr, *, alpha_tilde: bool = False) -> sp.Expr:
    """E tr(X) for the Gaussian generator by Isserlis/Wick pairings of the entries.

    Each pairing identifies indices (a union-find); free s- and y-components give powers of
    Ns and Ny, free x-components are summed over their coincidence patterns because the gates
    see them. Agrees with ``expect_trace(X, "gaussian")`` (tested).

    >>> from tasksim.derivations.matrix_words import task
    >>> A1 = task(1)
    >>> sp.factor(expect_trace_wick(A1.T @ A1 @ A1.T @ A1))
    N_x*(N_s + N_x + 1)/N_s
    """
    _check_square(X)
    total = sp.Integer(0)
    for word, coeff in X:
        total += coeff * _wick_trace_of_word(_canonical(word), bool(alpha_tilde))
    return sp.expand(total)


# -- orders in Ns / Nx --------------------------------------------------------------------

def ratio_expansion(expr: sp.Expr, order: int = 1, *, gated: bool = False) -> list[sp.Expr]:
    """Coefficients [c_0, ..., c_order] of ``expr`` in epsilon at fixed Ns.

    epsilon = Ns/Nx, or Ns/(alpha Nx) with ``gated=True`` (the paper's small parameter with
    gates): ``expr = sum_k c_k epsilon^k + O(epsilon^(order+1))``. The c_k may still depend on
    Ns (a term 1/Nx is epsilon/Ns). Raises ValueError if ``expr`` diverges as epsilon -> 0.

    >>> ratio_expansion((Nx + Ns + 1) / Nx)
    [1, (N_s + 1)/N_s]
    """
    if order < 0:
        raise ValueError(f"order must be a non-negative integer, got {order}")
    expr = sp.sympify(expr)
    nx_value = Ns / (alpha * eps) if gated else Ns / eps
    substituted = sp.expand(expr.subs(Nx, nx_value))
    coeffs: dict[int, sp.Expr] = {}
    laurent = True
    for term in sp.Add.make_args(substituted):
        c, power = term.as_coeff_exponent(eps)
        if c.has(eps) or not power.is_integer:
            laurent = False
            break
        coeffs[int(power)] = coeffs.get(int(power), sp.Integer(0)) + c
    if not laurent:
        series = sp.series(substituted, eps, 0, order + 1).removeO()
        coeffs = {}
        for term in sp.Add.make_args(sp.expand(series)):
            c, power = term.as_coeff_exponent(eps)
            coeffs[int(power)] = coeffs.get(int(power), sp.Integer(0)) + c
    negative = [p for p, c in coeffs.items() if p < 0 and sp.simplify(c) != 0]
    if negative:
        raise ValueError(f"the expression diverges as Ns/Nx -> 0 (powers {sorted(negative)})")
    return [sp.simplify(coeffs.get(k, sp.Integer(0))) for k in range(order + 1)]


def large_Ns_part(expr: sp.Expr) -> sp.Expr:
    """The terms of highest power of Ns in ``expr`` (a Laurent polynomial in Ns).

    Reads the paper's convention "Ns/(alpha Nx) c + O(1/(alpha Nx))": the next-to-leading
    coefficient is kept at its leading order in Ns.

    >>> large_Ns_part(1 + rho_a**2 / Ns)
    1
    """
    expanded = sp.expand(sp.sympify(expr))
    by_power: dict[sp.Expr, sp.Expr] = {}
    for term in sp.Add.make_args(expanded):
        c, power = term.as_coeff_exponent(Ns)
        if c.has(Ns):
            raise ValueError(f"not a Laurent polynomial in Ns: {expr}")
        by_power[power] = by_power.get(power, sp.Integer(0)) + c
    nonzero = {p: c for p, c in by_power.items() if sp.simplify(c) != 0}
    if not nonzero:
        return sp.Integer(0)
    top = max(nonzero)
    return sp.factor(nonzero[top] * Ns**top)
