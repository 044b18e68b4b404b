"""The notebook API: tasksim.sweep (a grid as an xarray.Dataset), tasksim.theory (sympy and
numeric), tasksim.claims (the registry as objects, round-tripped through claims.json)."""
import json

import numpy as np
import pytest
import sympy as sp
import xarray as xr

import tasksim
from tasksim.solvers.grid_sweep import grid_sweep

SMALL = dict(nx=400, ns=4, seeds=3)


def test_the_list_arguments_are_the_dimensions_in_parameter_order():
    ds = tasksim.sweep("random-gating", rho_b=[0.0, 0.5], rho_a=[0.2, 0.6, 1.0],
                       alpha=[0.5, 1.0], generator="gaussian", **SMALL)
    assert ds.transfer.dims == ("rho_a", "rho_b", "alpha")
    assert dict(ds.sizes) == {"rho_a": 3, "rho_b": 2, "alpha": 2}
    assert ds.rho_b.values.tolist() == [0.0, 0.5]
    assert int(ds.nx) == 400 and str(ds.generator.values) == "gaussian"  # scalars: coordinates
    for name in ("transfer_sem", "retention", "retention_sem", "transfer_leading",
                 "transfer_nlo", "retention_leading", "retention_nlo"):
        assert name in ds
    assert json.loads(ds.attrs["provenance"])["tasksim"].split(" (")[0] == tasksim.__version__


@pytest.mark.parametrize("model, extra", [
    ("vanilla", {}), ("random-gating", {"alpha": 0.5}), ("plasticity-gating", {"alpha": 0.5}),
    ("euclidean", {"gamma": 0.6}), ("fisher", {"lam": 2.0})])
def test_every_point_of_the_batched_path_is_simulate_at_that_point(model, extra):
    ds = tasksim.sweep(model, rho_a=[0.3, 0.9], rho_b=[0.1, 0.7], generator="gaussian",
                       seed=5, **SMALL, **extra)
    assert ds.attrs["path"] == "batched"
    for a in (0.3, 0.9):
        for b in (0.1, 0.7):
            r = tasksim.simulate(model, rho_a=a, rho_b=b, generator="gaussian", seed=5,
                                 **SMALL, **extra)
            point = ds.sel(rho_a=a, rho_b=b)
            np.testing.assert_allclose(point.transfer, r.transfer.mean, rtol=1e-10, atol=1e-13)
            np.testing.assert_allclose(point.retention_sem, r.retention.sem, rtol=1e-8,
                                       atol=1e-13)


def test_the_per_sample_path_is_simulate_exactly_with_sequences():
    ds = tasksim.sweep("vanilla", rho_a=[0.5, 0.8], rho_b=0.5, tasks=[2, 3], **SMALL)
    assert ds.attrs["path"] == "samples"
    r = tasksim.simulate("vanilla", rho_a=0.8, rho_b=0.5, tasks=3, **SMALL)
    point = ds.sel(rho_a=0.8, tasks=3)
    assert float(point.transfer) == r.transfer.mean
    np.testing.assert_array_equal(point.errors.values, r.errors.mean)
    assert float(point.backward_transfer) == r.metrics["backward_transfer"].mean
    assert np.isnan(ds.errors.sel(rho_a=0.8, tasks=2).values[3]).all()  # K = 2: no W_3


def test_same_seed_same_numbers_for_any_workers_and_chunking():
    kwargs = dict(rho_a=[0.0, 0.7], rho_b=[0.3, 1.0], generator="gaussian", nx=300, ns=3,
                  seeds=7, seed=11)
    serial = grid_sweep("vanilla", **kwargs)
    with tasksim.solvers.executors.open_executor(workers=2) as pool:
        parallel = grid_sweep("vanilla", executor=pool, workers=2, **kwargs)  # chunks of 2
    for name in ("transfer", "retention"):
        np.testing.assert_array_equal(serial.samples[name], parallel.samples[name])
    np.testing.assert_array_equal(
        tasksim.sweep("vanilla", **kwargs).transfer.values,
        tasksim.sweep("vanilla", workers=2, **kwargs).transfer.values)


def test_a_list_of_seed_counts_averages_the_first_samples():
    ds = tasksim.sweep("vanilla", rho_a=0.5, rho_b=0.5, generator="gaussian", nx=300, ns=3,
                       seeds=[2, 6])
    one = grid_sweep("vanilla", rho_a=0.5, rho_b=0.5, generator="gaussian", nx=300, ns=3,
                     seeds=6).samples["transfer"]
    np.testing.assert_allclose(ds.transfer.sel(seeds=2), one[:2].mean())
    np.testing.assert_allclose(ds.transfer.sel(seeds=6), one.mean())


def test_theory_is_sympy_and_its_numeric_form_broadcasts_over_a_dataset():
    t = tasksim.theory("vanilla", "retention", order="nlo", generator="gaussian")
    expr = sp.sympify(t)
    assert expr == t.expr and isinstance(expr, sp.Expr)
    ds = tasksim.sweep("vanilla", rho_a=[0.2, 0.8], rho_b=[0.0, 0.5, 1.0], nx=[500, 2000],
                       ns=5, seeds=2, generator="gaussian")
    gap = ds.retention - t.numeric()(ds)
    assert set(gap.dims) == {"rho_a", "rho_b", "nx"}
    symbols = {s.name: s for s in expr.free_symbols}
    at = {symbols["rho_a"]: sp.Rational(8, 10), symbols["rho_b"]: sp.Rational(1, 2),
          symbols["N_x"]: 500, symbols["N_s"]: 5}
    point = float(ds.retention_nlo.sel(rho_a=0.8, rho_b=0.5, nx=500))
    assert point == pytest.approx(float(expr.subs(at)), rel=1e-12)
    assert float(gap.sel(rho_a=0.8, rho_b=0.5, nx=500)) == pytest.approx(
        float(ds.retention.sel(rho_a=0.8, rho_b=0.5, nx=500)) - point)


def test_the_measured_sweep_agrees_with_the_theory_at_the_paper_sizes():
    ds = tasksim.sweep("vanilla", rho_a=[0.2, 0.8], rho_b=[0.2, 0.8], generator="gaussian",
                       seeds=20)
    for quantity in ("transfer", "retention"):
        z = (ds[quantity] - ds[f"{quantity}_nlo"]) / ds[f"{quantity}_sem"]
        assert float(abs(z).max()) < 5, f"{quantity}: z = {z.values}"


def test_euclidean_at_fixed_lambda_has_gamma_as_a_coordinate_for_its_theory():
    ds = tasksim.sweep("euclidean", rho_a=0.5, rho_b=0.5, lam=[0.0, 50.0], nx=[500, 1000],
                       ns=5, seeds=2, generator="gaussian")
    assert set(ds.gamma.dims) == {"lam", "nx"}
    assert float(ds.gamma.sel(lam=50.0, nx=1000)) == pytest.approx(1 / (1 + 50 * 5 / 1000))
    assert np.isfinite(ds.transfer_leading).all()


def test_models_without_a_derived_expression_have_no_theory_variables():
    with pytest.raises(NotImplementedError, match="measured only"):
        tasksim.theory("soft-threshold", "transfer")
    ds = tasksim.sweep("soft-threshold", rho_a=0.5, rho_b=0.5, alpha=0.5, nx=100, ns=3, seeds=2)
    assert "transfer_leading" not in ds and "transfer" in ds


@pytest.mark.parametrize("call, name", [
    (lambda: tasksim.sweep("vanilla", rho_a=[0.5, 2.0], rho_b=0.5), "rho_a"),
    (lambda: tasksim.sweep("vanilla", rho_a=[], rho_b=0.5), "rho_a"),
    (lambda: tasksim.sweep("vanilla", rho_a=0.5, rho_b=0.5, seeds=0), "seeds"),
    (lambda: tasksim.sweep("vanilla", rho_a=0.5, rho_b=0.5, alpha=[0.5]), "alpha"),
    (lambda: tasksim.sweep("nope", rho_a=0.5, rho_b=0.5), "model"),
    (lambda: tasksim.sweep("vanilla", rho_a=0.5, rho_b=0.5, workers=0), "workers"),
    (lambda: tasksim.theory("vanilla", "forgetting"), "quantity"),
    (lambda: tasksim.theory("vanilla", "transfer", order="nnlo"), "order"),
    (lambda: tasksim.theory("vanilla", "transfer").numeric()(rho_a=0.5), "rho_b"),
])
def test_bad_arguments_raise_one_line_naming_the_parameter(call, name):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert name in message and "\n" not in message


def test_to_netcdf_works_with_the_core_dependencies(tmp_path):
    ds = tasksim.sweep("vanilla", rho_a=[0.0, 1.0], rho_b=0.5, tasks=[2, 3], nx=200, ns=3,
                       seeds=2, generator="gaussian")
    path = tmp_path / "sweep.nc"
    ds.to_netcdf(path, engine="scipy")  # scipy: a core dependency (netCDF3)
    back = xr.open_dataset(path, engine="scipy")
    np.testing.assert_array_equal(back.transfer.values, ds.transfer.values)
    np.testing.assert_array_equal(back.errors.values, ds.errors.values)
    assert back.attrs["provenance"] == ds.attrs["provenance"]


# --- claims ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def registry():
    from tasksim.statements import registry_verdicts

    return tasksim.claims(), registry_verdicts()


def test_claims_are_the_registry_with_sympy_forms(registry):
    statements, verdicts = registry
    assert [s.id for s in statements] == [v.claim.id for v in verdicts]
    by_id = {v.claim.id: v for v in verdicts}
    for s in statements:
        assert s.printed == by_id[s.id].claim.printed and s.derived == by_id[s.id].derived
        assert s.verdict in tasksim.statements.VERDICTS
    headline = next(s for s in statements if s.headline and s.evidence)
    assert headline.line is not None and headline.quote
    assert all(not e.get("headline", False) for e in headline.evidence
               if isinstance(e, dict))


def test_claims_round_trip_through_claims_json(registry, tmp_path):
    from tasksim.reports.report import claims_document

    statements, verdicts = registry
    path = tmp_path / "claims.json"
    path.write_text(claims_document(verdicts, {"command": "test"}))
    loaded = tasksim.claims(path)
    assert [s.id for s in loaded] == [s.id for s in statements]
    forms = sum(s.printed is not None for s in statements) + sum(
        s.derived is not None for s in statements)
    assert forms > 300  # the registry's forms, not a handful
    def same(a, b):  # a matrix word rebuilt from its srepr can compare unequal by identity
        return a == b or sp.srepr(a) == sp.srepr(b)

    for before, after in zip(statements, loaded):
        assert same(after.printed, before.printed), before.id
        assert same(after.derived, before.derived), before.id
        assert (after.verdict, after.line, after.quote) == (before.verdict, before.line,
                                                            before.quote)


def test_a_claims_json_without_sympy_forms_says_so(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"claims": [{"id": "a", "status": "verified"}]}))
    with pytest.raises(ValueError, match="printed_srepr"):
        tasksim.claims(path)
    with pytest.raises(ValueError, match="cannot read"):
        tasksim.claims(tmp_path / "missing.json")


def test_a_dask_cluster_gives_the_serial_numbers():
    distributed = pytest.importorskip("distributed")
    kwargs = dict(rho_a=[0.2, 0.9], rho_b=0.4, nx=300, ns=3, seeds=4, seed=3)
    serial = tasksim.sweep("vanilla", **kwargs)  # appendix generator: the per-sample path
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        spread = tasksim.sweep("vanilla", dask=cluster.scheduler_address, workers=2, **kwargs)
    np.testing.assert_array_equal(spread.retention.values, serial.retention.values)


@pytest.mark.parametrize("name", ["tasksim.datasets", "tasksim.expressions",
                                  "tasksim.statements", "tasksim.solvers.grid_sweep",
                                  "tasksim.reports.sweep_command"])
def test_the_docstring_examples_of_the_notebook_modules_run(name):
    import doctest
    import importlib

    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
