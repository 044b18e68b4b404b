"""``tasksim sweep MODEL --rho-a LIST --rho-b LIST ... --out FILE.nc|FILE.csv``: the
command-line form of :func:`tasksim.sweep`.

A value is one number or word, a comma-separated list (``0,0.5,1``: a dimension), or
``start:stop:count`` (``0:1:6``: ``numpy.linspace(0, 1, 6)``). The Dataset goes to ``FILE.nc``
(netCDF3 through scipy, a core dependency; everything, the error matrix of sequences too) or
``FILE.csv`` (one row per grid point, the variables over the grid only; provenance first as
``#`` comment lines, as the probe's CSV has it).

Examples
--------
>>> parse_values("0:1:3", float)
[0.0, 0.5, 1.0]
>>> parse_values("gaussian", str), parse_values("1000,3e3", int)
('gaussian', [1000, 3000])
"""
from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np

from tasksim.errors import InputError

__all__ = ["FORMATS", "parse_values", "write_dataset", "sweep_benchmark"]

FORMATS = (".nc", ".csv")


def _integer(text: str) -> int:
    value = float(text)
    if not math.isfinite(value) or not value.is_integer():
        raise ValueError
    return int(value)


def parse_values(text: str, kind: Callable[[str], Any]) -> Union[Any, list]:
    """One value, a comma-separated list, or ``start:stop:count`` (numbers only); ValueError
    with the offending text."""
    convert = _integer if kind is int else kind
    try:
        if ":" in text and kind is not str:
            start, stop, count = text.split(":")
            return [convert(repr(float(x))) if kind is int else float(x)
                    for x in np.linspace(float(start), float(stop), _integer(count))]
        parts = [part.strip() for part in text.split(",")]
        if any(not part for part in parts):
            raise ValueError
        values = [convert(part) for part in parts]
    except ValueError:
        what = {float: "a number", int: "an integer", str: "a word"}[kind]
        raise InputError(f"invalid value {text!r}: give {what}, a comma-separated list of them "
                         "or start:stop:count") from None
    return values[0] if len(values) == 1 else values


def write_dataset(ds: Any, path: Path) -> None:
    """``ds`` to ``path`` by its suffix (module docstring); ValueError for another suffix."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"--out must end in {' or '.join(FORMATS)}, got {str(path)!r}")
    if suffix == ".nc":
        ds.to_netcdf(path, engine="scipy")
        return
    grid = ds.drop_dims([d for d in ("weight", "task") if d in ds.dims])
    table = grid.reset_coords().to_dataframe() if grid.sizes else None
    buffer = io.StringIO()
    for key, value in json.loads(ds.attrs.get("provenance", "{}")).items():
        buffer.write(f"# {key}: {value}\n")
    if table is None:  # no list argument: one row
        row = {name: grid[name].values.item() for name in list(grid.coords) + list(grid.data_vars)}
        import pandas as pd

        table = pd.DataFrame([row]).set_index(list(grid.coords)[:1])
    table.to_csv(buffer)
    path.write_text(buffer.getvalue(), encoding="utf-8")


def sweep_benchmark(*, quick: bool = False, repeats: int = 3,
                    log: Optional[Callable[[str], None]] = None) -> dict[str, Any]:
    """The Fig. 1 grid (6 x 6 (rho_a, rho_b), 10 seeds, Nx = 3000, Ns = 30; ``quick``: 3 x 3,
    3 seeds, Nx = 1000, Ns = 10), vanilla, gaussian generator, in this process: the batched
    benchmark path (:func:`tasksim.solvers.benchmark.fig1_exact`), the numeric grid alone
    (:func:`tasksim.solvers.grid_sweep.grid_sweep`) and :func:`tasksim.sweep` (with the
    theory, the labels and the provenance), each the best of ``repeats`` after a first call
    (whose time, sympy's derivation and compilation of the theory included, is reported as
    ``sweep_first_seconds``). Required: the sweep within twice the batched path's time."""
    import time

    from tasksim.datasets import sweep
    from tasksim.solvers.benchmark import fig1_exact
    from tasksim.solvers.grid_sweep import grid_sweep

    grid, seeds, nx, ns = (3, 3, 1000, 10) if quick else (6, 10, 3000, 30)
    rho = np.linspace(0.0, 1.0, grid)
    arguments = dict(rho_a=rho, rho_b=rho, nx=nx, ns=ns, seeds=seeds, generator="gaussian")

    def best(run: Callable[[], Any]) -> float:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times)

    start = time.perf_counter()
    sweep("vanilla", **arguments)
    first = time.perf_counter() - start
    fig1_exact(grid=grid, seeds=seeds, nx=nx, ns=ns)  # warm up
    batched = min(fig1_exact(grid=grid, seeds=seeds, nx=nx, ns=ns)[1] for _ in range(repeats))
    numeric = best(lambda: grid_sweep("vanilla", **arguments))
    labelled = best(lambda: sweep("vanilla", **arguments))
    if log is not None:
        log(f"tasksim.sweep, Fig. 1 grid: {labelled:.3f} s (numbers alone {numeric:.3f} s, "
            f"first call {first:.2f} s); batched benchmark path {batched:.3f} s")
    return {"grid": f"{grid} x {grid}", "seeds": seeds, "nx": nx, "ns": ns,
            "batched_seconds": batched, "grid_sweep_seconds": numeric,
            "sweep_seconds": labelled, "sweep_first_seconds": first,
            "ratio": labelled / batched}
