"""DESIGN.md: `derivations` and `solvers` know nothing of each other; plotting and file IO
live in `reports` only. Checked on the import statements of every module."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _package_of(module: str) -> str:
    """The package an absolute import names: ``tasksim.solvers.api`` -> ``solvers``."""
    parts = module.split(".")
    return parts[1] if parts[0] == "tasksim" and len(parts) > 1 else parts[0]


def imported_packages(package: str) -> dict[str, set[str]]:
    found = {}
    for path in sorted((ROOT / package).glob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {_package_of(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(_package_of(node.module))
        found[path.name] = names
    return found


def flat_imports(folder: str) -> list[str]:
    """Absolute imports of the old top-level names (``solvers``, ``derivations``, ``reports``)."""
    old = {"solvers", "derivations", "reports"}
    found = []
    for path in sorted((ROOT / folder).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                       [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                       and node.module else [])
            found += [f"{folder}/{path.name}: {m}" for m in modules if m.split(".")[0] in old]
    return found


@pytest.mark.parametrize("package, forbidden", [
    ("derivations", {"solvers", "reports", "verify", "numpy", "matplotlib"}),
    ("solvers", {"derivations", "reports", "verify", "matplotlib"}),
])
def test_derivations_and_solvers_do_not_import_each_other(package, forbidden):
    offenders = {name: sorted(names & forbidden)
                 for name, names in imported_packages(package).items() if names & forbidden}
    assert not offenders, f"{package} imports what it must not: {offenders}"


@pytest.mark.parametrize("folder", ["derivations", "solvers", "reports", "verify", "tests",
                                    "benchmarks"])
def test_the_packages_are_imported_under_tasksim(folder):
    assert not flat_imports(folder), "import tasksim.<package>, not <package>"


def _module_graph(folder: str) -> dict[str, set[str]]:
    """Which modules of a package import which others (relative imports, at any depth of the
    file: a function-level import is still a dependency)."""
    names = {path.stem for path in (ROOT / folder).glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / folder).glob("*.py")):
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    edges.add(node.module.split(".")[0])
                else:
                    edges |= {a.name for a in node.names}
        graph[path.stem] = edges & names - {path.stem}
    return graph


def _a_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` as a list of modules, or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return []

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return []


@pytest.mark.parametrize("folder", ["derivations", "solvers", "reports"])
def test_no_module_imports_itself_through_others(folder):
    cycle = _a_cycle(_module_graph(folder))
    assert not cycle, "import cycle: " + " -> ".join(cycle)
