"""The correctness suite of tasksim: every claim of the paper, symbolically and numerically.

Run with ``pytest verify`` (``--paper-scale`` adds the paper-size statistics). Modules:
:mod:`verify.tolerances` (the statistical rule and its table), :mod:`verify.theory` (the claim
registry as numbers), :mod:`verify.estimators` (measurements with the exact solvers), and one
test module per part of the paper.
"""
