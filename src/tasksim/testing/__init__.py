"""Helpers for testing tasksim and its extensions, imported on purpose by test code only.

:mod:`tasksim.testing.strategies` holds Hypothesis strategies for valid model parameters; it
needs Hypothesis (the ``test`` extra: ``pip install 'tasksim[test]'``). No runtime module of
tasksim imports this package, so running tasksim never needs a test-only dependency.
"""
