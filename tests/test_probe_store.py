"""The probe's resume store (reports/probe_store.py) keys its chunks by the code as well as by
the parameters: a chunk computed by another version or commit of tasksim is not reused."""
import json

import pytest

from tasksim.reports import probe_store
from tasksim.reports.probe_store import ProbeStore, code_identity
from tasksim.solvers.probe import ChunkResult, Moments, ProbeSpec

SPEC = ProbeSpec("vanilla", rho_a=0.5, rho_b=0.5, ns=2)
CHUNK = ChunkResult(30, 0, Moments(2, 0.1, 0.01), Moments(2, 0.9, 0.02))


def _stored(folder, seeds=2):
    return ProbeStore(folder, SPEC, seed=0).done(seeds=seeds)


def _write_one_chunk(folder):
    store = ProbeStore(folder, SPEC, seed=0)
    store.add(CHUNK)
    store.close()
    return store.path


def test_the_header_names_the_version_and_commit_that_computed_the_chunks(tmp_path):
    path = _write_one_chunk(tmp_path)
    header = json.loads(path.read_text().splitlines()[0])
    assert header["tasksim"] == code_identity()["tasksim"]
    assert header["commit"] == code_identity()["commit"]
    assert list(_stored(tmp_path)) == [(30, 0)]  # the same code reuses it


@pytest.mark.parametrize("field, value", [("commit", "0" * 40), ("tasksim", "0.0.1")])
def test_chunks_of_other_code_are_set_aside_not_reused(tmp_path, monkeypatch, field, value):
    path = _write_one_chunk(tmp_path)
    monkeypatch.setattr(probe_store, "code_identity", lambda: {**code_identity(), field: value})
    assert _stored(tmp_path) == {}
    assert path.with_suffix(".jsonl.old").exists()
