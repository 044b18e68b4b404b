"""The report's independent pieces of work, as top-level functions a process pool or a dask
cluster can run: a chunk of the claim registry, one measurement, one figure.

Each returns plain, picklable data (so the report's keyed store can keep it,
:mod:`tasksim.reports.report_cache`) and gives the same numbers wherever it runs: the seeds are
fixed by the build's root seed and the piece's name alone.

- :func:`claims_job`: the verdicts of claims ``start:stop`` of the registry, each with its
  claim's callables dropped (:func:`picklable`; nothing downstream calls them);
- :func:`measurement_job`: one measured verdict of :data:`tasksim.reports.measurements.MEASUREMENTS`;
- :func:`measurement_group_job`: the measurements that share their tasks
  (:func:`measurement_groups`: one seed key), in one process so that they share the solves;
- :func:`figure_job`: one figure builder of :data:`tasksim.reports.figures.BUILDERS`, its PNGs
  and CSVs as bytes with their captions (:class:`FigureOutput`);
- :func:`sizes_job`: the statements' sizes from the exact 1/Nx terms (sympy);
- :func:`findings_job`: one exact-solver check of the findings (:data:`FINDINGS_CHECKS`), or
  part of one (:data:`FINDINGS_PARTS`, joined by :func:`findings_joined`).

The build submits its pieces longest first (:func:`by_expected_cost`: the CPU seconds a piece
took in the last build that computed it, kept in the keyed store, else
:data:`EXPECTED_CPU`), so that on a few workers the longest piece does not start last.
"""
from __future__ import annotations

import dataclasses
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

__all__ = ["timed", "timed_sharing", "FigureOutput", "claims_job", "claim_count", "measurement_job", "measurement_ids",
           "measurement_groups", "measurement_group_job", "figure_job", "figure_names",
           "figure_groups", "SHARED_PANELS",
           "findings_job", "FINDINGS_CHECKS", "FINDINGS_PARTS", "findings_labels",
           "findings_joined", "sizes_job", "picklable", "with_text_chunks", "Piece",
           "EXPECTED_CPU", "by_expected_cost", "known_costs", "remember_costs"]


@dataclass(frozen=True)
class Piece:
    """One piece of a build: its key in the keyed store (without the code version), the label
    its CPU seconds are recorded under, and the call that computes it."""

    key: list
    label: str
    fn: Callable[..., Any]
    args: tuple


EXPECTED_CPU: dict[str, float] = {
    "figure fig2+fig3": 26.9,
    "figure fig5": 16.8,
    "figure sequences": 14.7,
    "figure finite_size_paper_sizes": 14.0,
    "claims 7/8": 13.0,
    "figure finite_size": 11.1,
    "findings k-task-ranking 2/2": 10.4,
    "findings k-task-ranking 1/2": 10.1,
    "figure fig1": 7.5,
    "figure fig4": 7.2,
    "claims 2/8": 5.0,
    "figure fig7": 4.3,
    "claims 6/8": 4.1,
    "claims 5/8": 3.3,
    "sizes": 3.3,
    "claims 1/8": 3.1,
    "claims 4/8": 3.0,
    "figure fig1_numeric_heatmaps": 3.0,
}
"""CPU seconds of the largest pieces at the paper's sizes (one core, OPENBLAS_NUM_THREADS=1,
a cold build's build-info.json, the soft-thresholding numerics read from results/): the order
of a build with no record of its own (the others take a few seconds each and follow in the
report's order)."""

_COSTS_KEY = ["piece-cpu"]  # a quick build's costs under their own key: ["piece-cpu", "quick"]
"""Where the store keeps the CPU seconds per piece of the builds (any code version: only an
order of work is read from them)."""


def by_expected_cost(pieces: list[Piece], known: Optional[dict[str, float]] = None
                     ) -> list[Piece]:
    """``pieces`` longest first: by ``known`` CPU seconds, else :data:`EXPECTED_CPU`, else 0
    (ties keep their order). Only the order of work depends on it, never a number.

    >>> p = [Piece([], name, len, ()) for name in ("a", "b", "c")]
    >>> [x.label for x in by_expected_cost(p, {"b": 3.0, "c": 1.0})]
    ['b', 'c', 'a']
    """
    known = known or {}
    return sorted(pieces, key=lambda p: -known.get(p.label, EXPECTED_CPU.get(p.label, 0.0)))


def known_costs(store: Any, quick: bool = False) -> dict[str, float]:
    """The CPU seconds per piece recorded in ``store`` (:func:`remember_costs`) by builds of
    the same mode (a quick build's costs would misorder a full one), or {}."""
    value = store.get(_COSTS_KEY + (["quick"] if quick else []))
    return value if isinstance(value, dict) else {}


def remember_costs(store: Any, cpu: dict[str, float], quick: bool = False) -> None:
    """Record the CPU seconds of the pieces computed in this build in ``store`` (merged into
    what it holds for builds of its mode)."""
    if cpu:
        store.put(_COSTS_KEY + (["quick"] if quick else []),
                  {**known_costs(store, quick), **cpu})


def timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``fn(*args)`` and the CPU seconds it took in this process (threads included; what a
    piece costs, whatever the machine's load)."""
    start = time.process_time()
    value = fn(*args)
    return value, time.process_time() - start


def picklable(verdict: Any) -> Any:
    """``verdict`` with every callable field of its claim set to None (the registry's claims
    carry their derivation as a closure, which cannot be pickled)."""
    from tasksim.derivations.registry import without_callables

    return without_callables(verdict)


def timed_sharing(share: Optional[tuple[str, str]], fn: Callable[..., Any], *args: Any
                  ) -> tuple[Any, float]:
    """:func:`timed` in a worker process that shares evaluated claims with the build's other
    processes through the keyed store in folder ``share[0]`` under the pieces' version
    ``share[1]`` (:func:`tasksim.derivations.registry.share_evaluations`: a claim that a
    figure and a claims piece both need is evaluated once where their timing allows); None:
    no sharing."""
    from tasksim.derivations.registry import share_evaluations

    from .report_cache import KeyedStore

    if share is not None:
        share_evaluations(KeyedStore(share[0]), share[1])
    try:
        return timed(fn, *args)
    finally:
        share_evaluations(None)


def claim_count() -> int:
    """How many claims the registry holds."""
    from tasksim.derivations.registry import all_claims

    return len(all_claims())


def claims_job(start: int, stop: int) -> list[Any]:
    """The verdicts of claims ``start:stop`` (registry order), made picklable (copies: the
    process's evaluated claims are shared, :func:`~tasksim.derivations.registry.evaluate_once`)."""
    from tasksim.derivations.registry import all_claims, evaluate_once

    from .figures_blas import single_threaded_blas

    with single_threaded_blas():
        return [picklable(evaluate_once(c)) for c in all_claims()[start:stop]]


def measurement_ids() -> list[str]:
    """The claim ids of the measurements, in the report's order."""
    from .measurements import MEASUREMENTS

    return [m.claim_id for m in MEASUREMENTS]


def measurement_job(index: int, quick: bool, seed: int, stored: Any = None) -> tuple[str, Any]:
    """Measurement ``index`` of :data:`MEASUREMENTS`: (claim id, measured verdict). The
    soft-thresholding measurements take their draws from the stored experiment (``stored``,
    else read here: :func:`tasksim.reports.soft_threshold_results.report_data`)."""
    from .figures_blas import single_threaded_blas
    from .measurements import MEASUREMENTS, measure
    from .soft_threshold_results import (MEASURED_CLAIMS, Protocol, measured_draws,
                                         report_data, training_time_note,
                                         transfer_path_note, learned_path_note,
                                         retention_path_note)

    m = MEASUREMENTS[index]
    if m.claim_id not in MEASURED_CLAIMS:
        with single_threaded_blas():
            return m.claim_id, measure(m, quick=quick, seed=seed)
    if stored is None:
        stored = report_data(quick=quick, seed=seed, part=None)
    with single_threaded_blas():
        measured = measure(m, quick=quick, seed=seed, stored=measured_draws(stored, m.claim_id))
    if m.claim_id == MEASURED_CLAIMS[0]:  # the alpha gap: how it depends on training time
        note = training_time_note(stored, Protocol.for_report(quick=quick, seed=seed))
        measured = dataclasses.replace(measured, note=note)
    if m.claim_id == MEASURED_CLAIMS[1] and not quick:  # the retention off the paper's sizes
        measured = dataclasses.replace(measured, note=retention_path_note(seed))
    if m.claim_id == MEASURED_CLAIMS[2] and not quick:  # the transfer off the paper's sizes
        measured = dataclasses.replace(measured, note=transfer_path_note(seed))
    if m.claim_id == MEASURED_CLAIMS[3] and not quick:  # the learned error off them
        measured = dataclasses.replace(measured, note=learned_path_note(seed))
    return m.claim_id, measured


def measurement_groups() -> list[tuple[int, ...]]:
    """Indices of :data:`MEASUREMENTS` in groups run as one piece: those with the same seed
    key draw the same tasks (and share the solves through the measurements' own cache, within
    one process); every other measurement alone. In the report's order of first members.

    >>> ids = measurement_ids()
    >>> [[ids[i] for i in g] for g in measurement_groups() if len(g) > 1]  # doctest: +NORMALIZE_WHITESPACE
    [['soft_threshold.alpha_independence', 'soft_threshold.retention_with_diagonal',
      'soft_threshold.transfer_with_diagonal', 'soft_threshold.learning_preserved'],
     ['gating.probe_error', 'gating.adaptive_rho_g', 'gating.adaptive_alpha_tilde']]
    """
    from .measurements import MEASUREMENTS

    groups: dict[str, list[int]] = {}
    for i, m in enumerate(MEASUREMENTS):
        groups.setdefault(m.seed_key or f"claim {m.claim_id}", []).append(i)
    return [tuple(g) for g in groups.values()]


def measurement_group_job(indices: tuple[int, ...], quick: bool, seed: int
                          ) -> list[tuple[str, Any]]:
    """Measurements ``indices`` of :data:`MEASUREMENTS`, in this process: [(claim id,
    measured verdict)] (the stored soft-thresholding experiment read once for the group)."""
    from .measurements import MEASUREMENTS
    from .soft_threshold_results import MEASURED_CLAIMS, report_data

    stored = None
    if any(MEASUREMENTS[i].claim_id in MEASURED_CLAIMS for i in indices):
        stored = report_data(quick=quick, seed=seed, part=None)
    return [measurement_job(i, quick, seed, stored) for i in indices]


FINDINGS_CHECKS: tuple[str, ...] = ("fisher-retention-exactly-one", "k-task-ranking")
"""The findings that run the exact solvers (:mod:`tasksim.reports.findings`), in the report's
order (the third, ``surrogate-1/Nx-terms``, reads the measurements)."""

FINDINGS_PARTS: dict[str, int] = {"k-task-ranking": 2}
"""Checks run in several pieces (:func:`findings_labels`; the others in one): the K-task
ranking's solver sweeps dealt out in turn (:func:`tasksim.reports.findings_checks.ranking_part`;
the leading order computes two at the paper's sizes, so two pieces of one sweep each), so
that it is not the build's longest piece."""


def findings_labels(name: str) -> list[str]:
    """The pieces' labels of the check ``name``: ``findings <name>``, or ``findings <name>
    k/n`` for a check in n parts (:data:`FINDINGS_PARTS`).

    >>> findings_labels("k-task-ranking")
    ['findings k-task-ranking 1/2', 'findings k-task-ranking 2/2']
    """
    parts = FINDINGS_PARTS.get(name, 1)
    return [f"findings {name}"] if parts == 1 else [f"findings {name} {k + 1}/{parts}"
                                                    for k in range(parts)]


def findings_job(name: str, quick: bool, seed: int, part: int = 0) -> Any:
    """Part ``part`` of the check ``name`` of :data:`FINDINGS_CHECKS` (its solver checks at
    the paper's sizes; quick: small ones): the :class:`tasksim.reports.findings.Finding` of a
    check in one part, else what :func:`findings_joined` makes it from."""
    from .figures_blas import single_threaded_blas
    from .findings import fisher_retention_finding
    from .findings_checks import fisher_retention_draws, ranking_part

    with single_threaded_blas():
        if name == "fisher-retention-exactly-one":
            sizes = ((12, 6), (240, 6)) if quick else ((60, 30), (300, 30), (3000, 30))
            return fisher_retention_finding(lambda ra, rb, nx, ns, n: fisher_retention_draws(
                ra, rb, nx, ns, n, seed), sizes=sizes, seeds=2 if quick else 3)
        if name == "k-task-ranking":
            return ranking_part(part, FINDINGS_PARTS[name], quick=quick, seed=seed)
    raise ValueError(f"no findings check {name!r} (checks: {', '.join(FINDINGS_CHECKS)})")


def findings_joined(name: str, parts: list[Any]) -> Any:
    """The finding of the check ``name`` from its pieces' values (:func:`findings_job`, in
    the order of :func:`findings_labels`), as :func:`tasksim.reports.findings.findings`
    computes it in one process."""
    if FINDINGS_PARTS.get(name, 1) == 1:
        return parts[0]
    from .findings import ranking_finding
    from .findings_checks import ranking_joined

    return ranking_finding(*ranking_joined(parts))


def sizes_job() -> dict[str, tuple[Any, str]]:
    """The statements' sizes from the exact 1/Nx terms
    (:func:`tasksim.reports.verdicts.all_limit_sizes`: sympy, seconds), computed as a piece so
    that the pages, built after every piece is in, do not wait for them."""
    from .verdicts import all_limit_sizes

    return all_limit_sizes()


@dataclass(frozen=True)
class FigureOutput:
    """One figure as built: file stem, title, caption, verdict, PNG bytes and its plotted
    numbers as gzip-compressed CSV bytes."""

    name: str
    title: str
    caption: str
    verdict: str
    png: bytes
    csv: bytes

    def write(self, folder: Path, metadata: Optional[dict[str, str]] = None) -> None:
        """Write ``<name>.png`` (with ``metadata`` as text chunks: the provenance is added
        here, so a stored figure does not depend on the commit) and ``<name>.csv.gz``."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{self.name}.png").write_bytes(with_text_chunks(self.png, metadata or {}))
        (folder / f"{self.name}.csv.gz").write_bytes(self.csv)


def with_text_chunks(png: bytes, text: dict[str, str]) -> bytes:
    """``png`` with one ``tEXt`` chunk (``iTXt`` for text beyond Latin-1) per item of ``text``,
    placed right after the header chunk: deterministic, the image unchanged.

    >>> import zlib
    >>> ihdr = b"IHDR" + bytes(13)
    >>> png = (b"\\x89PNG\\r\\n\\x1a\\n" + (13).to_bytes(4, "big") + ihdr
    ...        + zlib.crc32(ihdr).to_bytes(4, "big"))
    >>> with_text_chunks(png, {"Source": "abc"})[33:49]
    b'\\x00\\x00\\x00\\ntEXtSource\\x00a'
    """
    signature, header_end = png[:8], 8 + 4 + 4 + 13 + 4
    chunks = []
    for key, value in text.items():
        try:
            kind, data = b"tEXt", key.encode("latin-1") + b"\0" + value.encode("latin-1")
        except UnicodeEncodeError:
            kind, data = b"iTXt", key.encode("latin-1") + b"\0\0\0\0\0" + value.encode("utf-8")
        chunks.append(len(data).to_bytes(4, "big") + kind + data
                      + zlib.crc32(kind + data).to_bytes(4, "big"))
    return signature + png[8:header_end] + b"".join(chunks) + png[header_end:]


def figure_names() -> list[str]:
    """The figure builders' names, in the report's order."""
    from .figures import BUILDERS

    return [name for name, _ in BUILDERS]


SHARED_PANELS: tuple[tuple[str, ...], ...] = (("fig2", "fig3"),)
"""Figure builders that plot the same numerics (Figs. 2D and 3A-B: the random-gating averages
over the prior), run as one piece so that their shared panels are computed once (each group's
members adjacent in :data:`tasksim.reports.figures.BUILDERS`, so the report keeps its order)."""


def figure_groups() -> list[tuple[str, ...]]:
    """The figure builders' names in pieces (:data:`SHARED_PANELS` together, the others
    alone), in the report's order.

    >>> [g for g in figure_groups() if len(g) > 1]
    [('fig2', 'fig3')]
    """
    groups: list[tuple[str, ...]] = []
    for name in figure_names():
        group = next((g for g in SHARED_PANELS if name in g), (name,))
        if group not in groups:
            groups.append(group)
    return groups


def figure_job(name: str, quick: bool, seed: int) -> list[FigureOutput]:
    """Run the figure builder ``name`` (or several, joined by ``+``, on one context: their
    shared panels computed once) serially in this process (its numerics on one core: the
    build spreads figures, not panels, over the workers) and return what it drew (PNGs
    without provenance: :meth:`FigureOutput.write` adds it)."""
    import matplotlib

    from .figures import BUILDERS
    from .figures_blas import single_threaded_blas
    from .figures_config import FigureConfig
    from .figures_context import FigureContext
    from .figures_plot import STYLE, data_path, save_png

    builders = [dict(BUILDERS)[part] for part in name.split("+")]
    config = dataclasses.replace(FigureConfig.for_mode(bool(quick)), workers=None)
    out = []
    context = FigureContext(config, seed)
    with matplotlib.rc_context(STYLE), single_threaded_blas(), \
            tempfile.TemporaryDirectory() as folder:
        for result in (r for builder in builders for r in builder(context)):
            path = save_png(result.figure, Path(folder) / f"{result.name}.png", dpi=config.dpi)
            out.append(FigureOutput(result.name, result.title, result.caption,
                                    result.verdict, path.read_bytes(),
                                    data_path(path).read_bytes()))
    return out
