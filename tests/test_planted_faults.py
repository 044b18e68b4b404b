"""The planted-fault benchmark's catalogue (benchmarks/planted_faults.py) matches the code: each
fault's text occurs exactly once in its file, so every fault plants a change (a stale entry would
measure nothing, and the benchmark refuses to start with one)."""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _catalogue():
    spec = importlib.util.spec_from_file_location("planted_faults",
                                                  ROOT / "benchmarks" / "planted_faults.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("planted_faults", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_planted_fault_applies_to_the_current_code():
    faults = _catalogue()
    assert faults.stale_faults(faults.FAULTS, ROOT) == []


def test_a_fault_whose_text_is_gone_is_reported_stale(tmp_path):
    faults = _catalogue()
    (fault,) = [f for f in faults.FAULTS if f.name == "euclidean-lam-linear-models"]
    (tmp_path / fault.path).parent.mkdir(parents=True)
    (tmp_path / fault.path).write_text("nothing of the patched text\n")
    assert faults.stale_faults((fault,), tmp_path) == [fault.name]
