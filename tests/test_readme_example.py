"""The README's notebook example runs as written (extracted from README.md, so the two cannot
drift): Fig. 1D with its theory in at most five lines."""
import re
from pathlib import Path

import matplotlib
import numpy as np

README = Path(__file__).resolve().parent.parent / "README.md"
HEADING = "### In a notebook"


def notebook_example() -> str:
    """The first python block after the notebook heading of the README."""
    text = README.read_text(encoding="utf-8")
    assert HEADING in text, f"the README has no section {HEADING!r}"
    found = re.search(r"```python\n(.*?)```", text[text.index(HEADING):], re.S)
    assert found, "no python block in the README's notebook section"
    return found.group(1)


def test_the_notebook_example_is_at_most_five_lines():
    lines = [line for line in notebook_example().splitlines() if line.strip()]
    assert len(lines) <= 5, lines


def test_the_notebook_example_draws_fig_1d_with_its_theory():
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import tasksim

    plt.close("all")
    namespace: dict = {}
    exec(compile(notebook_example(), str(README), "exec"), namespace)
    ds = namespace["ds"]
    assert ds.transfer.dims == ("rho_a", "rho_b") and ds.transfer.shape == (6, 6)
    assert int(ds.nx) == 3000 and int(ds.ns) == 30 and int(ds.seeds) == 10
    # what the README says of the gap: numerics minus eq_epsilon_vanilla is within 0.01 (the
    # 1/Nx term -Ns (1 - rho_a^2)/Nx), and the 1/Nx term predicts it within 5 standard errors
    gap = ds.transfer - tasksim.theory("vanilla", "transfer").numeric()(ds)
    assert gap.dims == ("rho_a", "rho_b") and float(abs(gap).max()) < 0.012
    z = (ds.transfer - ds.transfer_nlo) / ds.transfer_sem.where(ds.transfer_sem > 1e-12)
    assert float(abs(z).max()) < 5
    axes = plt.gcf().axes
    assert axes and axes[0].collections, "nothing drawn"
    assert len(axes[0].collections) >= 2  # the heatmap and the theory's contours
    plt.close("all")
