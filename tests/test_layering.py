"""DESIGN.md: `derivations` and `solvers` know nothing of each other; plotting and file IO
live in `reports` only. Checked on the import statements of every module."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_packages(package: str) -> dict[str, set[str]]:
    found = {}
    for path in sorted((ROOT / package).glob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[path.name] = names
    return found


@pytest.mark.parametrize("package, forbidden", [
    ("derivations", {"solvers", "reports", "verify", "numpy", "matplotlib"}),
    ("solvers", {"derivations", "reports", "verify", "matplotlib"}),
])
def test_derivations_and_solvers_do_not_import_each_other(package, forbidden):
    offenders = {name: sorted(names & forbidden)
                 for name, names in imported_packages(package).items() if names & forbidden}
    assert not offenders, f"{package} imports what it must not: {offenders}"
