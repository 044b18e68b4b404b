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


def test_the_notebook_example_draws_fig_1d_and_its_gap_to_the_theory():
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    namespace: dict = {}
    exec(compile(notebook_example(), str(README), "exec"), namespace)
    ds = namespace["ds"]
    assert ds.transfer.dims == ("rho_a", "rho_b") and ds.transfer.shape == (6, 6)
    assert int(ds.nx) == 3000 and int(ds.ns) == 30 and int(ds.seeds) == 10
    # the gap is numerics minus eq_epsilon_vanilla: small at Nx = 3000 (the 1/Nx term: -Ns(1 -
    # rho_a^2)/Nx, at most 0.01), and it is what the theory says it is
    assert float(abs(ds.gap).max()) < 0.03
    np.testing.assert_allclose(ds.gap, ds.transfer - ds.transfer_leading, atol=1e-12)
    assert len(plt.gcf().axes) >= 2  # the two panels
    plt.close("all")
