"""Every docstring example of the package runs (the "Examples" sections are specifications).

Collected by import name (``tasksim.solvers.api``, ...), not by file path: the subpackages live
in folders whose names are not their import names, so ``pytest --doctest-modules solvers``
would import them under the wrong name.
"""
import doctest
import importlib
import pkgutil

import pytest

import tasksim


def _modules() -> list[str]:
    names = ["tasksim"]
    for package in ("derivations", "solvers", "reports"):
        module = importlib.import_module(f"tasksim.{package}")
        names.append(module.__name__)
        names += [info.name for info in sorted(pkgutil.walk_packages(
            module.__path__, prefix=f"{module.__name__}."), key=lambda m: m.name)]
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs=vars(module).copy()):
        runner.run(test)
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} of {attempted} examples of {name} failed (output above)"
