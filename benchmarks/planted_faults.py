"""Planted faults: what the correctness suite catches, and what each fault moves.

Each fault of :data:`FAULTS` is a realistic bug written as a textual patch of one file (a few
percent on a regularizer strength, a gating level or a threshold; a Wishart degree of
freedom off by one; a similarity where its square belongs; a dropped diagonal; the other
task generator; a transposed matrix; ...). For each fault this script

1. copies the checkout's tracked files to a scratch directory, applies the patch there, and
   builds an import shim so that ``import tasksim`` loads the scratch copy (checked: the
   subprocess reports the file it imported, which must lie in the scratch directory);
2. runs the default ``python -m pytest verify -x -q -p no:cacheprovider`` in the scratch
   copy and records whether it failed and which test failed first;
3. measures what the fault moves at the paper's sizes (Nx = 3000, Ns = 30): transfer and
   retention of the affected models at a few parameter points, with the exact solvers
   through the route the patched code lies on, on the same seeds with and without the fault
   (so the difference is the fault's, not sampling noise; its standard error is that of the
   paired differences).

It prints one line per fault (caught or survived, by which test, the largest move), and the
survivors with the reason. Target (issue 18): every fault that moves a transfer or retention
by 0.5 % or more (5e-3 in the units of eps, whose value before learning is 1) is caught.

Usage::

    python benchmarks/planted_faults.py                  # every fault, one at a time
    python benchmarks/planted_faults.py --jobs 2         # two faults at once
    python benchmarks/planted_faults.py --only euclidean-lam-linear-models,wishart-dof
    python benchmarks/planted_faults.py --list           # the catalogue
    python benchmarks/planted_faults.py --no-suite       # only measure what each moves

Each fault costs one run of the suite (1 - 6 minutes: a caught fault stops at its first
failure) and a measurement (seconds to a minute).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
THRESHOLD = 5e-3
"""0.5 % of the error before learning (eps_mu[W_0] = 1): a move the suite must catch."""

PAPER = dict(nx=3000, ns=30)
G = {"rho_a": 0.5, "rho_b": 0.5}


@dataclass(frozen=True)
class Fault:
    """A patch (``old`` -> ``new`` in ``path``, ``old`` must occur exactly once) and where to
    measure what it moves: ``route`` (see :func:`measure`) and points (model, parameters)."""

    name: str
    what: str
    path: str
    old: str
    new: str
    route: str
    points: tuple = ()
    seeds: int = 200


def _p(model: str, **kw) -> tuple:
    return (model, tuple(sorted(kw.items())))


GRAM_POINTS = (
    _p("vanilla", rho_a=0.5, rho_b=0.5), _p("vanilla", rho_a=0.2, rho_b=0.9),
    _p("random-gating", rho_a=0.5, rho_b=0.5, alpha=0.5),
    _p("random-gating", rho_a=0.9, rho_b=0.2, alpha=0.3),
    _p("plasticity-gating", rho_a=0.5, rho_b=0.5, alpha=0.5),
    _p("euclidean", rho_a=0.5, rho_b=0.5, gamma=0.5),
    _p("euclidean", rho_a=0.2, rho_b=0.9, gamma=0.8),
    _p("fisher", rho_a=0.5, rho_b=0.5, gamma=0.5), _p("fisher", rho_a=1.0, rho_b=0.5, gamma=0.5),
)
EUCLID = (_p("euclidean", rho_a=0.5, rho_b=0.5, gamma=0.5),
          _p("euclidean", rho_a=0.2, rho_b=0.9, gamma=0.5),
          _p("euclidean", rho_a=0.9, rho_b=0.2, gamma=0.8))
FISHER = (_p("fisher", rho_a=0.5, rho_b=0.5, gamma=0.5),
          _p("fisher", rho_a=1.0, rho_b=0.5, gamma=0.5),
          _p("fisher", rho_a=1.0, rho_b=0.2, gamma=0.3))
GATED = (_p("random-gating", rho_a=0.5, rho_b=0.5, alpha=0.5),
         _p("random-gating", rho_a=0.9, rho_b=0.2, alpha=0.3),
         _p("plasticity-gating", rho_a=0.5, rho_b=0.5, alpha=0.5))
VANILLA = (_p("vanilla", rho_a=0.5, rho_b=0.5), _p("vanilla", rho_a=0.2, rho_b=0.9),
           _p("vanilla", rho_a=0.9, rho_b=0.2))

FAULTS: tuple[Fault, ...] = (
    Fault("euclidean-lam-linear-models", "Euclidean lam x 1.05 in LinearModel (issue 18's)",
          "solvers/linear_models.py", "return (self.nx / self.ns) * (1.0 / gamma - 1.0)",
          "return 1.05 * (self.nx / self.ns) * (1.0 / gamma - 1.0)", "solve-gamma", EUCLID,
          seeds=40),
    Fault("euclidean-lam-api", "Euclidean lam x 1.05 in the API's gamma -> lam",
          "solvers/api.py", 'scale = nx / ns if model == "euclidean" else 1.0',
          'scale = 1.05 * nx / ns if model == "euclidean" else 1.0', "simulate", EUCLID),
    Fault("euclidean-lam-second-task", "Euclidean lam x 1.05 on the second task's step only",
          "solvers/linear_models.py",
          'tuple(Step(mu, "euclidean", f"A{mu}", lam=self.lam)',
          'tuple(Step(mu, "euclidean", f"A{mu}", lam=1.05 * self.lam)', "simulate", EUCLID),
    Fault("euclidean-lam-probe-engine", "Euclidean lam x 1.05 in the probe engine",
          "solvers/two_task_batch.py", 'shift = lam if model == "euclidean" else 0.0',
          'shift = 1.05 * lam if model == "euclidean" else 0.0', "probe", EUCLID),
    Fault("euclidean-lam-0.98", "Euclidean lam x 0.98 in the API (2 %)",
          "solvers/api.py", 'scale = nx / ns if model == "euclidean" else 1.0',
          'scale = 0.98 * nx / ns if model == "euclidean" else 1.0', "simulate", EUCLID),
    Fault("fisher-lam-api", "Fisher lam x 1.05 in the API's gamma -> lam",
          "solvers/api.py", 'scale = nx / ns if model == "euclidean" else 1.0',
          'scale = nx / ns if model == "euclidean" else 1.05', "simulate", FISHER),
    Fault("fisher-lam-linear-models", "Fisher lam x 1.05 in LinearModel",
          "solvers/linear_models.py", "        return 1.0 / gamma - 1.0",
          "        return 1.05 * (1.0 / gamma - 1.0)", "solve-gamma", FISHER, seeds=40),
    Fault("fisher-lam-probe-engine", "Fisher sqrt(lam) x 1.03 (lam x 1.06) in the probe engine",
          "solvers/two_task_batch.py", "h = np.concatenate([np.full(ns, np.sqrt(lam)), np.ones(ns)])",
          "h = np.concatenate([np.full(ns, 1.03 * np.sqrt(lam)), np.ones(ns)])", "probe",
          FISHER),
    Fault("gating-alpha-wishart", "gating level alpha x 1.03 in the Wishart-sampled Grams",
          "solvers/gram.py", "self.classes, self.probabilities = gate_classes(alpha, rho_g, self.n_tasks)",
          "self.classes, self.probabilities = gate_classes(min(1.0, 1.03 * alpha), rho_g, self.n_tasks)",
          "simulate", GATED),
    Fault("gating-alpha-explicit", "gating level alpha x 1.03 in the explicit gates",
          "solvers/tasks.py", "    gates = [rng.random(nx) < alpha]",
          "    gates = [rng.random(nx) < min(1.0, 1.03 * alpha)]", "appendix", GATED, seeds=40),
    Fault("soft-threshold-h", "soft threshold h x 1.03",
          "solvers/soft_threshold_moments.py", "return 0.0 if alpha == 1.0 else float(_SQRT2 * erfcinv(alpha))",
          "return 0.0 if alpha == 1.0 else float(1.03 * _SQRT2 * erfcinv(alpha))", "soft",
          (_p("soft-threshold", rho_a=0.5, rho_b=0.5, alpha=0.3),
           _p("soft-threshold", rho_a=0.9, rho_b=0.2, alpha=0.5)), seeds=4),
    Fault("adaptive-rho-g", "adaptive gating: rho_g = 1 - 1.05 eps_pb/eps_o",
          "solvers/linear_models.py", "rho_g = max(0.0, 1.0 - eps_pb / eps_o)",
          "rho_g = max(0.0, 1.0 - 1.05 * eps_pb / eps_o)", "appendix",
          (_p("adaptive-gating", rho_a=0.9, rho_b=0.9, alpha=0.5),
           _p("adaptive-gating", rho_a=0.5, rho_b=0.5, alpha=0.5)), seeds=20),
    Fault("wishart-dof-bartlett", "Wishart: Bartlett chi degrees of freedom off by one",
          "solvers/gram.py", "chi_dof = dofs[..., None] - rows",
          "chi_dof = dofs[..., None] - rows - 1", "simulate", GRAM_POINTS),
    Fault("wishart-dof-seeded", "Wishart (probe engine): chi degrees of freedom off by one",
          "solvers/gram.py",
          "steps = np.arange(p)\n    half_nx = np.maximum(nx - steps, 1) / 2.0\n    for j, seed in "
          "enumerate(seeds):\n        # per seed",
          "steps = np.arange(p)\n    half_nx = np.maximum(nx - steps - 1, 1) / 2.0\n    for j, seed "
          "in enumerate(seeds):\n        # per seed", "probe", GRAM_POINTS),
    Fault("wishart-dof-nx", "Wishart: Nx - 1 degrees of freedom for the ungated Gram",
          "solvers/gram.py", "counts = np.full((batch, 1), nx)",
          "counts = np.full((batch, 1), nx - 1)", "simulate", VANILLA + EUCLID),
    Fault("similarity-not-squared-wishart", "Wishart factor sqrt(1 - rho_a) for sqrt(1 - rho_a^2)",
          "solvers/gram.py", "fresh = np.sqrt(1.0 - rho_a * rho_a)",
          "fresh = np.sqrt(1.0 - rho_a)", "simulate", GRAM_POINTS),
    Fault("similarity-not-squared-gaussian", "gaussian generator sqrt(1 - rho) for sqrt(1 - rho^2)",
          "solvers/tasks.py", "fresh *= np.sqrt(1.0 - rho * rho)", "fresh *= np.sqrt(1.0 - rho)",
          "gaussian-explicit", VANILLA, seeds=40),
    Fault("readout-similarity-squared", "readout moment rho_b^2 where rho_b belongs",
          "solvers/metrics.py", 'T = task_correlation(rho_b, n_tasks, structure, name="rho_b")',
          'T = task_correlation(rho_b ** 2, n_tasks, structure, name="rho_b")', "simulate",
          GRAM_POINTS),
    Fault("other-generator", "the appendix generator draws the gaussian mixture",
          "solvers/tasks.py", '    if generator == "appendix":\n        if rho > 0.0:',
          '    if generator == "never":\n        if rho > 0.0:', "appendix",
          VANILLA + GATED[:1], seeds=100),
    Fault("fisher-diag-dropped-diagonal", "diagonal Fisher metric replaced by its mean",
          "solvers/span.py", 'diagonal = np.einsum("ij,ij->i", M, M)',
          'diagonal = np.full(M.shape[0], np.einsum("ij,ij->", M, M) / M.shape[0])',
          "appendix", (_p("fisher-diag", rho_a=0.5, rho_b=0.5, gamma=0.5),
                       _p("fisher-diag", rho_a=0.9, rho_b=0.2, gamma=0.2)), seeds=20),
    Fault("transposed-block-probe-engine", "probe engine: G_21 for G_12 (transposed block)",
          "solvers/two_task_batch.py", "np.concatenate([G[0][1], G[1][0]]), full_rank=full_rank)",
          "np.concatenate([G[1][0], G[1][0]]), full_rank=full_rank)", "probe", GRAM_POINTS),
    Fault("transposed-plasticity", "plasticity gating (probe engine): A_1^T P_2 for P_2^T A_1",
          "solvers/two_task_batch.py", "_plastic_solve(K2, G[1][0])",
          "_plastic_solve(K2, G[1][0].swapaxes(-1, -2))", "probe", GATED[2:]),
    Fault("transposed-plasticity-kernel",
          "plasticity gating (compiled kernel): W_12 added to P_2^T A_1 where W_12^T belongs",
          "solvers/gram_kernels.py", "X[ns + c, i] += both", "X[ns + i, c] += both", "probe",
          GATED[2:]),
    Fault("soft-threshold-variance", "soft thresholding: cross moment with sigma^2 for sigma",
          "solvers/soft_threshold_moments.py",
          "cross = A.T * active_fraction(sigma, h)[None, :]",
          "cross = A.T * active_fraction(sigma * sigma, h)[None, :]", "soft",
          (_p("soft-threshold", rho_a=0.5, rho_b=0.5, alpha=0.3),
           _p("soft-threshold", rho_a=0.9, rho_b=0.2, alpha=0.5)), seeds=4),
    Fault("soft-threshold-diagonal", "soft thresholding: E[phi(m)^2] without its -2 t varphi(t)",
          "solvers/soft_threshold_moments.py",
          "bracket = (1.0 + t * t) * erfc(t / _SQRT2) - 2.0 * t * _normal_pdf(t)",
          "bracket = (1.0 + t * t) * erfc(t / _SQRT2) - 1.9 * t * _normal_pdf(t)", "soft",
          (_p("soft-threshold", rho_a=0.5, rho_b=0.5, alpha=0.3),
           _p("soft-threshold", rho_a=0.9, rho_b=0.2, alpha=0.5)), seeds=4),
    Fault("adaptive-reported-rho-g", "adaptive gating: the reported rho_g 10 % off (not the gates)",
          "solvers/linear_models.py", "rho = tuple(max(0.0, 1.0 - e / o) for e, o in zip(pb, base))",
          "rho = tuple(max(0.0, 1.0 - 1.1 * e / o) for e, o in zip(pb, base))", "appendix",
          (_p("adaptive-gating", rho_a=0.9, rho_b=0.9, alpha=0.5),), seeds=10),
    Fault("gd-epochs", "GD protocol: 400 epochs where the paper has 500",
          "solvers/linear_models.py", "paper_epochs: ClassVar[int] = 500",
          "paper_epochs: ClassVar[int] = 400", "gd",
          (_p("euclidean", rho_a=0.5, rho_b=0.5, gamma=0.5),
           _p("fisher", rho_a=0.5, rho_b=0.5, gamma=0.5)), seeds=3),
    Fault("gd-eta", "GD protocol: learning rate 0.00105",
          "solvers/gd.py", "PAPER_ETA = 0.001", "PAPER_ETA = 0.00105", "gd",
          (_p("vanilla", rho_a=0.5, rho_b=0.5), _p("euclidean", rho_a=0.5, rho_b=0.5, gamma=0.5)),
          seeds=3),
    Fault("transfer-sign", "transfer formula: ||M||^2 counted twice",
          "solvers/two_task_batch.py",
          "transfer = (2.0 * rho_b * np.trace(M, axis1=-2, axis2=-1) - np.sum(M * M, axis=(-2, -1))) / ns",
          "transfer = (2.0 * rho_b * np.trace(M, axis1=-2, axis2=-1) - 1.01 * np.sum(M * M, axis=(-2, -1))) / ns",
          "probe", GRAM_POINTS),
)


# -- the scratch copy ---------------------------------------------------------------------

def tracked_files(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return [f for f in out if f and (root / f).is_file()]


def snapshot(root: Path) -> Path:
    """A copy of the checkout's tracked files (working-tree versions), taken once at the start
    so that every fault is planted in the same code even if the checkout changes meanwhile."""
    base = Path(tempfile.mkdtemp(prefix="tasksim-faults-base-"))
    for f in tracked_files(root):
        if f.startswith(("reports/figures/",)) and not f.endswith(".tex"):
            continue
        target = base / f
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / f, target)
    return base


def make_scratch(base: Path, fault: Optional[Fault]) -> Path:
    """A copy of the snapshot ``base`` with ``fault`` applied, and an import shim
    ``_import/tasksim`` mapping the package as pyproject.toml does."""
    scratch = Path(tempfile.mkdtemp(prefix=f"tasksim-fault-{fault.name if fault else 'clean'}-"))
    shutil.rmtree(scratch)
    shutil.copytree(base, scratch, symlinks=True)
    if fault is not None:
        path = scratch / fault.path
        text = path.read_text()
        count = text.count(fault.old)
        if count != 1:
            raise SystemExit(f"fault {fault.name}: the patched text occurs {count} times in "
                             f"{fault.path} (must be once)")
        path.write_text(text.replace(fault.old, fault.new))
    shim = scratch / "_import" / "tasksim"
    shim.mkdir(parents=True)
    for item in (scratch / "src" / "tasksim").iterdir():
        (shim / item.name).symlink_to(item)
    for sub in ("derivations", "solvers", "reports"):
        (shim / sub).symlink_to(scratch / sub)
    return scratch


def stale_faults(faults: tuple[Fault, ...], root: Path) -> list[str]:
    """The names of the faults whose ``old`` text does not occur exactly once in its file
    under ``root``: a catalogue that no longer matches the code plants nothing."""
    return [f.name for f in faults
            if not (root / f.path).is_file() or (root / f.path).read_text().count(f.old) != 1]


def scratch_env(scratch: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{scratch / '_import'}{os.pathsep}{scratch}"
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def check_import(scratch: Path) -> None:
    """The scratch copy's code is what gets imported (else the run would measure nothing)."""
    out = subprocess.run([sys.executable, "-c", "import tasksim.solvers.linear_models as m, "
                          "verify; print(m.__file__); print(verify.__file__)"],
                         cwd=scratch, env=scratch_env(scratch), capture_output=True, text=True)
    files = out.stdout.split()
    if out.returncode or len(files) != 2 or not all(f.startswith(str(scratch)) for f in files):
        raise SystemExit(f"the scratch copy {scratch} is not what gets imported: "
                         f"{out.stdout.strip()} {out.stderr.strip()[-300:]}")


# -- running the suite --------------------------------------------------------------------

def run_suite(scratch: Path, timeout: float) -> dict:
    start = time.time()
    try:
        out = subprocess.run([sys.executable, "-m", "pytest", "verify", "-x", "-q",
                              "-p", "no:cacheprovider"], cwd=scratch, env=scratch_env(scratch),
                             capture_output=True, text=True, timeout=timeout)
        text, code = out.stdout + out.stderr, out.returncode
    except subprocess.TimeoutExpired as e:
        text, code = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else \
            (e.stdout or ""), -1
    failed = [line.split(" ", 1)[1].split(" - ")[0] for line in text.splitlines()
              if line.startswith(("FAILED ", "ERROR "))]
    summary = [line for line in text.splitlines() if " passed" in line or " failed" in line]
    return {"caught": code not in (0, -1), "exit": code, "first_failure": failed[0] if failed
            else None, "summary": summary[-1] if summary else "", "seconds": time.time() - start}


# -- measuring what a fault moves ---------------------------------------------------------

MEASURE = r'''
import json, sys
import numpy as np
spec = json.loads(sys.argv[1])
route, points, seeds, nx, ns = spec["route"], spec["points"], spec["seeds"], spec["nx"], spec["ns"]
out = []
for model, params in points:
    params = dict(params)
    if route in ("simulate", "appendix", "gaussian-explicit", "soft", "gd"):
        from tasksim.solvers.api import resolve_params, simulate_samples
        generator = "gaussian" if route in ("simulate", "gaussian-explicit") else "appendix"
        gram = "explicit" if route == "gaussian-explicit" else "auto"
        method = "gd" if route == "gd" else "exact"
        p = resolve_params(model, nx=nx, ns=ns, seeds=seeds, generator=generator, gram=gram,
                           method=method, **params)
        s = simulate_samples(p, np.random.SeedSequence(18).spawn(seeds))
        tf, rt = s["transfer"], s["retention"]
    elif route == "probe":
        from tasksim.solvers.probe import ProbeSpec, chunk_samples, sample_seed
        spec_ = ProbeSpec(model, ns=ns, **params)
        tf, rt = chunk_samples(spec_, nx, [sample_seed(18, nx, j) for j in range(seeds)])
    elif route == "solve-gamma":  # explicit tasks, solve(model, tasks, gamma=...) as a user would
        from tasksim.solvers.linear_models import solve
        from tasksim.solvers.metrics import error_matrix, transfer_retention
        from tasksim.solvers.rng import as_generator
        from tasksim.solvers.tasks import draw_tasks
        tf, rt = [], []
        for child in np.random.SeedSequence(18).spawn(seeds):
            rng = as_generator(child)
            t = draw_tasks(nx=nx, ns=ns, ny=10, rho_a=params["rho_a"], rho_b=params["rho_b"],
                           generator="appendix", seed=rng)
            level = {k: v for k, v in params.items() if k not in ("rho_a", "rho_b")}
            a, b = transfer_retention(error_matrix(solve(model, t, seed=rng, **level), params["rho_b"]))
            tf.append(a[0]); rt.append(b[0])
    else:
        raise SystemExit(f"unknown route {route}")
    out.append({"model": model, "params": params, "transfer": [float(x) for x in tf],
                "retention": [float(x) for x in rt]})
print(json.dumps(out))
'''


def measure(scratch: Path, fault: Fault, timeout: float) -> list[dict]:
    """Per-sample transfer and retention at the fault's points through its route, run with
    the scratch copy's code (seeds fixed: the same with and without the fault)."""
    nx, ns = PAPER["nx"], PAPER["ns"]
    if fault.route == "soft":
        nx, ns = 1000, 10  # the exact soft-thresholding solver is O(Nx^3): see the report
    spec = {"route": fault.route, "points": [[m, dict(p)] for m, p in fault.points],
            "seeds": fault.seeds, "nx": nx, "ns": ns}
    out = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(spec)], cwd=scratch,
                         env=scratch_env(scratch), capture_output=True, text=True,
                         timeout=timeout)
    if out.returncode:
        return [{"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else
                 f"exit {out.returncode}"}]
    return json.loads(out.stdout.strip().splitlines()[-1])


def moves(clean: list[dict], faulty: list[dict]) -> list[dict]:
    """Paired differences faulty - clean per point and quantity: mean and standard error."""
    import numpy as np

    if faulty and "error" in faulty[0]:
        return [{"label": "measurement failed", "delta": float("inf"), "sem": 0.0,
                 "error": faulty[0]["error"]}]
    rows = []
    for c, f in zip(clean, faulty):
        for q in ("transfer", "retention"):
            d = np.array(f[q]) - np.array(c[q])
            where = ", ".join(f"{k}={v:g}" for k, v in f["params"].items())
            sem = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0
            rows.append({"label": f"{f['model']} {q} ({where})", "delta": float(d.mean()),
                         "sem": sem})
    return rows


@dataclass
class Outcome:
    fault: Fault
    suite: dict = field(default_factory=dict)
    moves: list = field(default_factory=list)

    @property
    def largest(self) -> dict:
        return max(self.moves, key=lambda r: abs(r["delta"])) if self.moves else {}


def run_one(fault: Fault, clean: dict, args, base: Path) -> Outcome:
    scratch = make_scratch(base, fault)
    try:
        check_import(scratch)
        outcome = Outcome(fault)
        faulty = measure(scratch, fault, args.timeout)
        outcome.moves = moves(clean[fault.name], faulty)
        if not args.no_suite:
            outcome.suite = run_suite(scratch, args.timeout)
        return outcome
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


def report(outcome: Outcome) -> str:
    f, s, big = outcome.fault, outcome.suite, outcome.largest
    if not s:
        state = "not run"
    elif s["caught"]:
        state = f"CAUGHT by {s['first_failure'] or '(collection error)'}"
    else:
        state = "SURVIVED" + (" (timeout)" if s.get("exit") == -1 else "")
    move = (f"largest move {big['delta']:+.2e} +- {big['sem']:.0e} at {big['label']}"
            if big and "error" not in big else f"measurement failed: {big.get('error', '')}")
    seconds = f", suite {s['seconds']:.0f} s" if s else ""
    return f"{f.name}: {state}; {move}{seconds}\n    ({f.what}; {f.path})"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Plant faults and run the suite on each.")
    parser.add_argument("--only", default="", help="comma-separated fault names")
    parser.add_argument("--jobs", type=int, default=1, help="faults run at once")
    parser.add_argument("--list", action="store_true", help="print the catalogue and exit")
    parser.add_argument("--no-suite", action="store_true", help="only measure the moves")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies")
    parser.add_argument("--no-clean-run", action="store_true",
                        help="skip running the suite without a fault first (its check that "
                             "the suite passes on the unpatched copy)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument("--json", type=Path, help="also write the outcomes as JSON here")
    args = parser.parse_args(argv)
    faults = FAULTS
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in {f.name for f in FAULTS}]
        if unknown:
            parser.error(f"unknown faults {unknown}; --list shows the catalogue")
        faults = tuple(f for f in FAULTS if f.name in names)
    if args.list:
        for f in faults:
            print(f"{f.name:34} {f.route:18} {f.what}")
        return 0
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    stale = stale_faults(faults, ROOT)
    if stale:
        raise SystemExit("faults whose patched text is not found exactly once (update the "
                         f"catalogue to the code): {', '.join(stale)}")
    print(f"planting {len(faults)} faults in scratch copies of {ROOT} "
          f"(jobs={args.jobs}, threshold {THRESHOLD:g})", flush=True)
    base = snapshot(ROOT)
    try:
        clean_copy = make_scratch(base, None)
        try:
            check_import(clean_copy)
            if not (args.no_suite or args.no_clean_run):
                suite = run_suite(clean_copy, args.timeout)
                print(f"without a fault: {suite['summary']} ({suite['seconds']:.0f} s)",
                      flush=True)
                if suite["caught"]:
                    raise SystemExit("the suite fails without a fault: "
                                     f"{suite['first_failure']}")
            clean = {f.name: measure(clean_copy, f, args.timeout) for f in faults}
        finally:
            shutil.rmtree(clean_copy, ignore_errors=True)
        for name, rows in clean.items():
            if rows and "error" in rows[0]:
                raise SystemExit(f"the clean measurement of {name} failed: {rows[0]['error']}")

        outcomes = []
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:  # printed as they finish
            futures = [pool.submit(run_one, f, clean, args, base) for f in faults]
            for future in as_completed(futures):
                outcome = future.result()
                print(report(outcome), flush=True)
                outcomes.append(outcome)
        order = {f.name: k for k, f in enumerate(faults)}
        outcomes.sort(key=lambda o: order[o.fault.name])
    finally:
        shutil.rmtree(base, ignore_errors=True)

    if args.no_suite:
        return 0
    survivors = [o for o in outcomes if not o.suite.get("caught")]
    required = [o for o in survivors if abs(o.largest.get("delta", 0.0)) >= THRESHOLD]
    print(f"\n{len(outcomes) - len(survivors)} of {len(outcomes)} faults caught; "
          f"{len(required)} survivors move something by {THRESHOLD:g} or more")
    for o in survivors:
        big = abs(o.largest.get("delta", 0.0))
        reason = ("below the 0.5 % threshold: largest move "
                  f"{big:.1e}" if big < THRESHOLD else "MOVES MORE THAN 0.5 %: a gap of the suite")
        print(f"  survivor {o.fault.name}: {reason}")
    if args.json:
        args.json.write_text(json.dumps([{"fault": o.fault.name, "what": o.fault.what,
                                          "suite": o.suite, "moves": o.moves}
                                         for o in outcomes], indent=1))
    return 1 if required else 0


if __name__ == "__main__":
    sys.exit(main())
