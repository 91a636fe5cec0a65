"""Optional benchmark: the paper's own method (PyMC Metropolis) beside f1posterior.

Runs the Zhang et al. model on the Figure 3 matrix in PyMC with Metropolis,
50,000 samples, one chain and no tuning (as the paper did with PyMC3), and
reports wall time and the effective sample size (ArviZ) of micro- and
macro-F1, next to f1posterior's exact conjugate draws (ESS = draws).

PyMC is not a dependency of f1posterior; run this in an environment where it
is installed: ``pip install pymc arviz && pip install -e . && python
benchmarks/bench_pymc.py``. Writes ``benchmarks/results/bench_pymc.json``.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import numpy as np

from f1posterior import evaluate, f1
from f1posterior.io._data import figure3

OUT = Path(__file__).resolve().parent / "results" / "bench_pymc.json"
DRAWS = 50_000


def main() -> None:
    import arviz as az
    import pymc as pm

    c = figure3()
    m = c.shape[0]
    n = c.sum(axis=1)
    with pm.Model():
        mu = pm.Dirichlet("mu", a=np.ones(m))
        pm.Multinomial("n", n=int(n.sum()), p=mu, observed=n)
        theta = pm.Dirichlet("theta", a=np.ones((m, m)), shape=(m, m))
        pm.Multinomial("c", n=n, p=theta, observed=c)
        t0 = time.perf_counter()
        idata = pm.sample(
            draws=DRAWS,
            tune=0,
            chains=1,
            step=pm.Metropolis(),
            random_seed=2015,
            progressbar=False,
            compute_convergence_checks=False,
        )
        t_pymc = time.perf_counter() - t0
    post = idata.posterior
    mu_d = post["mu"].values[0]  # (draws, M)
    th_d = post["theta"].values[0]  # (draws, M, M)
    p = mu_d[:, :, None] * th_d
    micro = f1(p, average="micro")
    macro = f1(p, average="macro")
    ess = {k: float(az.ess(v[None, :])) for k, v in (("micro_f1", micro), ("macro_f1", macro))}

    t0 = time.perf_counter()
    ours = evaluate(c, draws=DRAWS, ref=0.8, rng=2015)
    t_ours = time.perf_counter() - t0
    res = {
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pymc": pm.__version__,
            "platform": platform.platform(),
        },
        "pymc_metropolis": {
            "seconds": t_pymc,
            "draws": DRAWS,
            "ess": ess,
            "mean": {"micro_f1": float(micro.mean()), "macro_f1": float(macro.mean())},
            "std": {"micro_f1": float(micro.std()), "macro_f1": float(macro.std())},
        },
        "f1posterior": {
            "seconds": t_ours,
            "draws": DRAWS,
            "ess": {"micro_f1": DRAWS, "macro_f1": DRAWS},
            "mean": {k: ours[k].mean for k in ours},
            "std": {k: ours[k].std for k in ours},
        },
    }
    res["speedup_per_effective_draw"] = {k: (t_pymc / ess[k]) / (t_ours / DRAWS) for k in ess}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(res, indent=2))
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
