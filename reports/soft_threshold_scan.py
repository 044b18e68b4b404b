"""The soft-thresholding scan over alpha at the paper's sizes, as the verdicts read it:
the stored file's path and :func:`scan_size` (computed by
:func:`tasksim.reports.soft_threshold_results.alpha_scan` on ``tasksim report --rerun
soft-threshold``). A module of its own so that the verdicts read the stored numbers without
importing the experiment's code."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Optional, Union

import numpy as np

from .pmnist_results import RESULTS_DIR

__all__ = ["ALPHA_SCAN", "SCAN_REASON", "TRANSFER_PATH_FILE", "scan_size"]

TRANSFER_PATH_FILE = RESULTS_DIR / "soft_threshold_transfer_path.json"
"""Where ``tasksim report --rerun soft-threshold`` stores the path off the paper's sizes and
the scan over alpha."""

ALPHA_SCAN = (0.1, 0.3, 0.5)
"""The alphas at which lines 271 (transfer) and 903 are sized at the paper's sizes, on the
same tasks: the statements are about every alpha, the measurements' own point is 0.3."""

SCAN_REASON = "measured over alpha ="
"""How a size taken over :data:`ALPHA_SCAN` opens its reason (its phrase says so)."""


def scan_size(key: str, path: Union[str, Path] = TRANSFER_PATH_FILE
              ) -> Optional[tuple[float, dict[str, float], str]]:
    """The largest magnitude over :data:`ALPHA_SCAN` of the stored draws ``key`` ("gaps" or
    "learned") at the paper's sizes: (value, point, reason), the reason listing every alpha
    with its standard error; None when nothing is stored."""
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    rows = record.get("alpha_scan") or []
    if not rows or not all(key in r for r in rows):
        return None
    stats = [(r["alpha"], float(np.mean(r[key])),
              float(np.std(r[key], ddof=1) / math.sqrt(len(r[key])))) for r in rows]
    alpha, mean, se = max(stats, key=lambda x: abs(x[1]))
    n = len(rows[0][key])
    listed = ", ".join(f"{m:+.3g} +- {e:.1g} at alpha = {a:g}" for a, m, e in stats)
    what = ("the transfer at alpha minus the transfer at alpha = 1 on the same tasks"
            if key == "gaps" else "eps_2[W_2], the error on the task just learned")
    reason = (f"{SCAN_REASON} {', '.join(f'{a:g}' for a, _, _ in stats)} on the same tasks, "
              f"Nx = 3000, Ns = 30, (rho_a, rho_b) = (0.5, 0.5), exact solver, {n} task draws "
              f"(seed {record['settings']['seed']}; results/{Path(path).name}): {what}, "
              f"{listed}; the largest in magnitude at alpha = {alpha:g}")
    return float(f"{abs(mean):.6g}"), {"Nx": 3000, "Ns": 30, "rho_a": 0.5, "rho_b": 0.5,
                                       "alpha": alpha}, reason
