"""The report's independent pieces of work, as top-level functions a process pool or a dask
cluster can run: a chunk of the claim registry, one measurement, one figure.

Each returns plain, picklable data (so the report's keyed store can keep it,
:mod:`tasksim.reports.report_cache`) and gives the same numbers wherever it runs: the seeds are
fixed by the build's root seed and the piece's name alone.

- :func:`claims_job`: the verdicts of claims ``start:stop`` of the registry, each with its
  claim's callables dropped (:func:`picklable`; nothing downstream calls them);
- :func:`measurement_job`: one measured verdict of :data:`tasksim.reports.measurements.MEASUREMENTS`;
- :func:`figure_job`: one figure builder of :data:`tasksim.reports.figures.BUILDERS`, its PNGs
  and CSVs as bytes with their captions (:class:`FigureOutput`).
"""
from __future__ import annotations

import dataclasses
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

__all__ = ["timed", "FigureOutput", "claims_job", "claim_count", "measurement_job", "measurement_ids",
           "figure_job", "figure_names", "picklable", "with_text_chunks"]


def timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``fn(*args)`` and the CPU seconds it took in this process (threads included; what a
    piece costs, whatever the machine's load)."""
    start = time.process_time()
    value = fn(*args)
    return value, time.process_time() - start


def picklable(verdict: Any) -> Any:
    """``verdict`` with every callable field of its claim set to None (the registry's claims
    carry their derivation as a closure, which cannot be pickled)."""
    claim = verdict.claim
    gone = {f.name: None for f in dataclasses.fields(claim) if callable(getattr(claim, f.name))}
    return dataclasses.replace(verdict, claim=dataclasses.replace(claim, **gone))


def claim_count() -> int:
    """How many claims the registry holds."""
    from tasksim.derivations.registry import all_claims

    return len(all_claims())


def claims_job(start: int, stop: int) -> list[Any]:
    """The verdicts of claims ``start:stop`` (registry order), made picklable."""
    from tasksim.derivations.claims import evaluate
    from tasksim.derivations.registry import all_claims

    from .figures_blas import single_threaded_blas

    with single_threaded_blas():
        return [picklable(evaluate(c)) for c in all_claims()[start:stop]]


def measurement_ids() -> list[str]:
    """The claim ids of the measurements, in the report's order."""
    from .measurements import MEASUREMENTS

    return [m.claim_id for m in MEASUREMENTS]


def measurement_job(index: int, quick: bool, seed: int) -> tuple[str, Any]:
    """Measurement ``index`` of :data:`MEASUREMENTS`: (claim id, measured verdict)."""
    from .figures_blas import single_threaded_blas
    from .measurements import MEASUREMENTS, measure

    m = MEASUREMENTS[index]
    with single_threaded_blas():
        return m.claim_id, measure(m, quick=quick, seed=seed)


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


def figure_job(name: str, quick: bool, seed: int) -> list[FigureOutput]:
    """Run the figure builder ``name`` serially in this process (its numerics on one core:
    the build spreads figures, not panels, over the workers) and return what it drew (PNGs
    without provenance: :meth:`FigureOutput.write` adds it)."""
    import matplotlib

    from .figures import BUILDERS
    from .figures_blas import single_threaded_blas
    from .figures_config import FigureConfig
    from .figures_context import FigureContext
    from .figures_plot import STYLE, data_path, save_png

    builder = dict(BUILDERS)[name]
    config = dataclasses.replace(FigureConfig.for_mode(bool(quick)), workers=None)
    out = []
    with matplotlib.rc_context(STYLE), single_threaded_blas(), \
            tempfile.TemporaryDirectory() as folder:
        for result in builder(FigureContext(config, seed)):
            path = save_png(result.figure, Path(folder) / f"{result.name}.png", dpi=config.dpi)
            out.append(FigureOutput(result.name, result.title, result.caption,
                                    result.verdict, path.read_bytes(),
                                    data_path(path).read_bytes()))
    return out
