"""Calibration of the cluster-aware posterior (clustered documents) by simulation.

A known population: class prevalences ``mu`` and confusion rows ``theta[t]`` (M = 3).
Each cluster (a user, a conversation, a source) has its own prevalences and rows drawn
around the population's::

    mu_c ~ Dirichlet(kappa mu),  theta_c[t] ~ Dirichlet(kappa theta[t]),  kappa = 1/ICC - 1

so a document's class indicator (and, within a class, its "predicted u" indicator) has
intra-cluster correlation ``ICC`` (the Dirichlet-multinomial's ``1 / (kappa + 1)``; ICC 0
is no cluster effect). Cluster sizes vary (log-normal, median 20, from 2 to ~150).
The truth is the metric of the population table ``mu_t theta[t, u]`` (the expected
per-document table; sizes are independent of the cluster effects, so the pooled table
converges to it).

Per scenario (ICC x number of clusters), the 95% HDI coverage of micro-F1 and macro-F1:

- ``cluster``: :func:`f1posterior.evaluate_clusters`'s model, the Bayesian bootstrap over
  clusters of per-cluster confusion counts, with its small-sample correction (weights
  ``Dirichlet(a, ..., a)``, ``a`` from the number and sizes of the clusters);
- ``bb``: the same without the small-sample correction (Dirichlet(1, ..., 1) weights);
- ``naive``: :func:`f1posterior.evaluate` of the pooled table (documents independent),
  the negative control, which must under-cover at ICC >= 0.1;
- the mean design effect reported (variance ratio cluster-aware / document bootstrap).

Run: python benchmarks/cluster_calibration.py [--quick]
 ->  benchmarks/results/cluster_calibration{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

# Tiny matrix products: one BLAS thread (a threaded BLAS spins on a shared, loaded machine).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from pathlib import Path
from typing import Any

import numpy as np  # noqa: E402
from _common import machine  # noqa: E402

from f1posterior import evaluate
from f1posterior.metrics import METRICS
from f1posterior.posterior import hdi
from f1posterior.posterior._clusters import (
    cluster_draws,
    design_effects,
    iid_draws,
    small_sample_concentration,
)

RESULTS = Path(__file__).resolve().parent / "results"
METRIC_NAMES = ("micro_f1", "macro_f1")
MU = np.array([0.5, 0.3, 0.2])
ACC = np.array([0.85, 0.75, 0.65])
ICCS = (0.0, 0.05, 0.1, 0.3)
CLUSTERS = (10, 20, 30, 50, 100, 200)


def population() -> np.ndarray:
    """The population's confusion rows (M, M): recall ``ACC`` on the diagonal."""
    m = len(MU)
    theta = np.repeat(((1 - ACC) / (m - 1))[:, None], m, axis=1)
    np.fill_diagonal(theta, ACC)
    return theta


def truth() -> dict[str, float]:
    table = MU[:, None] * population()
    return {n: float(METRICS[n](table)) for n in METRIC_NAMES}


def simulate(icc: float, n_clusters: int, gen: np.random.Generator) -> np.ndarray:
    """Per-cluster confusion counts (C, M, M) of one clustered test set."""
    theta = population()
    m = len(MU)
    sizes = np.clip(np.rint(np.exp(gen.normal(math.log(20), 0.8, n_clusters))), 2, None)
    out = np.empty((n_clusters, m, m), dtype=np.int64)
    for c in range(n_clusters):
        if icc > 0:
            kappa = 1.0 / icc - 1.0
            mu_c = gen.dirichlet(kappa * MU)
            th_c = np.stack([gen.dirichlet(kappa * theta[t]) for t in range(m)])
        else:
            mu_c, th_c = MU, theta
        p = (mu_c[:, None] * th_c).reshape(-1)
        out[c] = gen.multinomial(int(sizes[c]), p / p.sum()).reshape(m, m)
    return out


def one_rep(
    icc: float, n_clusters: int, seed: int, draws: int, naive: bool = True
) -> dict[str, Any]:
    """Coverage indicators (cluster, naive) and design effects of one simulated test set."""
    gen = np.random.default_rng(seed)
    tables = simulate(icc, n_clusters, gen)
    fns = [(n, METRICS[n]) for n in METRIC_NAMES]
    root = np.random.SeedSequence(seed)
    a = small_sample_concentration(tables.sum(axis=(1, 2)), 0.95)
    x = cluster_draws(tables, fns, draws, root, a)
    bb = cluster_draws(tables, fns, draws, root)
    pooled = tables.sum(axis=0).astype(float)
    iid = iid_draws(pooled, fns, draws, root)
    tr = truth()
    out: dict[str, Any] = {"concentration": a}
    for n in METRIC_NAMES:
        for key, v in (("cluster", x[n]), ("bb", bb[n])):
            lo, hi = hdi(v, 0.95)
            out[f"{key}_{n}"] = bool(lo <= tr[n] <= hi)
        out[f"deff_{n}"] = float(design_effects(x[n], iid[n], n_clusters, a))
    if naive:
        ev = evaluate(pooled, metrics=list(METRIC_NAMES), draws=draws, rng=seed)
        for n in METRIC_NAMES:
            lo, hi = ev[n].hdi
            out[f"naive_{n}"] = bool(lo <= tr[n] <= hi)
    return out


def scenario(icc: float, n_clusters: int, reps: int, draws: int, seed: int) -> dict[str, Any]:
    rs = [one_rep(icc, n_clusters, seed * 100_003 + r, draws) for r in range(reps)]
    row: dict[str, Any] = {"icc": icc, "clusters": n_clusters, "reps": reps}
    for k in rs[0]:
        v = np.array([r[k] for r in rs], dtype=float)
        row[k] = float(np.nanmean(v))
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args()
    reps, draws = (150, 2_000) if args.quick else (500, 4_000)
    t0 = time.perf_counter()
    rows = []
    for i, icc in enumerate(ICCS):
        for j, c in enumerate(CLUSTERS):
            row = scenario(icc, c, reps, draws, seed=1 + 10 * i + j)
            rows.append(row)
            shown = "  ".join(
                f"{k} {row[k + '_micro_f1']:.3f}/{row[k + '_macro_f1']:.3f}"
                for k in ("cluster", "bb", "naive")
            )
            print(f"ICC {icc:<4} C {c:>3}: {shown}  deff {row['deff_micro_f1']:.2f}", flush=True)
    se = math.sqrt(0.95 * 0.05 / reps)
    out = {
        "truth": truth(),
        "reps": reps,
        "draws": draws,
        "binomial_se_at_0.95": se,
        "rows": rows,
        "seconds": time.perf_counter() - t0,
        "machine": machine(),
    }
    name = "cluster_calibration" + ("_quick" if args.quick else "")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [
        f"# Cluster-aware coverage ({reps} test sets per row, {draws:,} draws; binomial SE "
        f"{se:.3f})",
        "",
        "| ICC | clusters | cluster micro-F1 | cluster macro-F1 | uncorrected micro-F1 | "
        "uncorrected macro-F1 | naive micro-F1 | naive macro-F1 | design effect (micro) | a |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['icc']} | {r['clusters']} | {r['cluster_micro_f1']:.3f} | "
            f"{r['cluster_macro_f1']:.3f} | {r['bb_micro_f1']:.3f} | {r['bb_macro_f1']:.3f} | "
            f"{r['naive_micro_f1']:.3f} | {r['naive_macro_f1']:.3f} | {r['deff_micro_f1']:.2f} | "
            f"{r['concentration']:.2f} |"
        )
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n")
    print(f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
