"""Aggregation over folds: f1posterior.aggregate beside prob_conf_mat's aggregators.

Two fixed cases of 5 folds (3 classes, 300 documents each): identical folds, and
heterogeneous folds (true accuracies 0.62 to 0.92). For each method: the aggregate's
mean and 95% HDI of macro-F1 and accuracy, I^2, and the time of one call. Then a
coverage study from a known truth: 5 binary folds of 200 documents whose true
accuracies are logit-normal(logit(0.8), tau); how often each method's 95% interval
covers the true population-mean accuracy, with and without heterogeneity.

Both libraries use the same per-table prior here (Jeffreys, alpha = beta = 1/2:
prob_conf_mat's ``prevalence_prior=0.5, confusion_prior=0.5``), so only the
aggregation differs. The reference cost is numpy's Gamma variates for the same
draws of the K tables (K x draws x M(M + 1)).

Writes benchmarks/results/aggregate.json and .md.
Run: python benchmarks/bench_aggregate.py [--quick] [--tau-prior] [--image]
``--tau-prior`` adds the coverage of the random-effects interval for two priors of tau
and four true tau, 200 simulations each (about 1.5 more minutes); ``--image`` only
redraws docs/img/aggregate_forest.png.
"""

from __future__ import annotations

import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from _common import best_of, machine

from f1posterior import aggregate
from f1posterior.analysis._random_effects import population_mean

OUT = Path(__file__).resolve().parent / "results"

#: prob_conf_mat's aggregators compared (its names).
PCM_METHODS = ("fe_gaussian", "re_gaussian", "re_gaussian_hksj", "beta", "hist")
OURS = ("pooled", "random_effects")
#: The per-table Dirichlet prior of both libraries (Jeffreys: alpha = beta = 1/2).
PRIOR = 0.5
METRICS = {"macro_f1": "f1@macro", "accuracy": "acc"}


def _fold(acc_per_class: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """One (M, M) table: class j's n documents are right with probability acc_per_class[j],
    wrong ones spread evenly."""
    m = acc_per_class.size
    t = np.zeros((m, m))
    for j in range(m):
        wrong_p = np.full(m, (1 - acc_per_class[j]) / (m - 1))
        wrong_p[j] = acc_per_class[j]
        t[j] = rng.multinomial(n, wrong_p)
    return t


def cases() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2024)
    one = _fold(np.array([0.85, 0.8, 0.75]), 100, rng)
    hetero = np.stack([_fold(np.full(3, a), 100, rng) for a in (0.62, 0.7, 0.78, 0.85, 0.92)])
    return {"identical": np.repeat(one[None], 5, axis=0), "heterogeneous": hetero}


def pcm_aggregate(tables: np.ndarray, metric: str, method: str, draws: int, seed: int) -> dict:
    from prob_conf_mat import Study

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = Study(seed=seed, num_samples=draws, ci_probability=0.95)
        for i, t in enumerate(tables):
            s.add_experiment(
                f"m/fold{i}", confusion_matrix=t.astype(int), prevalence_prior=PRIOR,
                confusion_prior=PRIOR,
            )  # fmt: skip
        if method == "re_gaussian_hksj":  # the Hartung-Knapp-Sidik-Jonkman t interval
            s.add_metric(metric, aggregation="re_gaussian", hksj_sampling_distribution=True)
        else:
            s.add_metric(metric, aggregation=method)
        r = s.get_metric_samples(
            metric=metric, experiment_name="m/aggregated", sampling_method="posterior"
        )
    x = np.asarray(r.values)[:, 0]
    het = r.heterogeneity_results[0] if r.heterogeneity_results else None
    return {"draws": x, "i2": None if het is None else float(het.i2)}


def _hdi(x: np.ndarray) -> list[float]:
    from f1posterior import hdi

    return [float(v) for v in hdi(x, 0.95)]


def side_by_side(draws: int) -> list[dict]:
    rows = []
    for case, tables in cases().items():
        for metric, pcm_metric in METRICS.items():
            for method in OURS:
                res = aggregate(tables, metric=metric, method=method, draws=draws, rng=0,
                                alpha=PRIOR, beta=PRIOR)  # fmt: skip
                secs = best_of(lambda method=method, metric=metric, tables=tables: aggregate(
                    tables, metric=metric, method=method, draws=draws, rng=0, alpha=PRIOR,
                    beta=PRIOR))  # fmt: skip
                rows.append({
                    "case": case, "metric": metric, "library": "f1posterior", "method": method,
                    "mean": res.summary.mean, "hdi": res.summary.hdi.tolist(),
                    "i2": res.heterogeneity.i2_median, "seconds": secs,
                })  # fmt: skip
            for method in PCM_METHODS:
                out = pcm_aggregate(tables, pcm_metric, method, draws, 0)
                secs = best_of(lambda method=method, pcm_metric=pcm_metric, tables=tables:
                               pcm_aggregate(tables, pcm_metric, method, draws, 0))  # fmt: skip
                rows.append({
                    "case": case, "metric": metric, "library": "prob_conf_mat", "method": method,
                    "mean": float(out["draws"].mean()), "hdi": _hdi(out["draws"]),
                    "i2": out["i2"], "seconds": secs,
                })  # fmt: skip
    return rows


def coverage(n_sim: int, tau: float, draws: int) -> list[dict]:
    """Share of 95% intervals covering the true population-mean accuracy."""
    m = math.log(0.8 / 0.2)
    truth = float(population_mean(np.array([m]), np.array([tau]), "logit")[0])
    rng = np.random.default_rng(7)
    hits: dict[str, int] = {}
    widths: dict[str, list[float]] = {}
    for s in range(n_sim):
        acc = 1 / (1 + np.exp(-(m + tau * rng.standard_normal(5))))
        tables = np.stack([_fold(np.full(2, a), 100, rng) for a in acc])
        intervals = {}
        for method in OURS:
            res = aggregate(tables, metric="accuracy", method=method, draws=draws, rng=s,
                            alpha=PRIOR, beta=PRIOR)  # fmt: skip
            intervals[f"f1posterior {method}"] = res.summary.eti
        for method in PCM_METHODS:
            x = pcm_aggregate(tables, "acc", method, draws, s)["draws"]
            intervals[f"prob_conf_mat {method}"] = np.quantile(x, [0.025, 0.975])
        for k, (lo, hi) in intervals.items():
            hits[k] = hits.get(k, 0) + int(lo <= truth <= hi)
            widths.setdefault(k, []).append(float(hi - lo))
    se = math.sqrt(0.95 * 0.05 / n_sim)
    return [
        {"tau": tau, "method": k, "coverage": hits[k] / n_sim, "binomial_se_at_95": se,
         "mean_width": float(np.mean(widths[k])), "simulations": n_sim, "truth": truth}
        for k in hits
    ]  # fmt: skip


def tau_prior_study(n_sim: int) -> list[dict]:
    """Coverage of f1posterior's random-effects interval against the true tau, for the
    default half-normal(0.5) prior of tau and a wider half-normal(1) (5 binary folds)."""
    m = math.log(0.8 / 0.2)
    out = []
    for a in (0.5, 1.0):
        for tau in (0.0, 0.25, 0.5, 1.0):
            truth = float(population_mean(np.array([m]), np.array([tau]), "logit")[0])
            rng = np.random.default_rng(7)
            hits, widths = 0, []
            for s in range(n_sim):
                acc = 1 / (1 + np.exp(-(m + tau * rng.standard_normal(5))))
                tables = np.stack([_fold(np.full(2, x), 100, rng) for x in acc])
                res = aggregate(
                    tables,
                    metric="accuracy",
                    draws=1500,
                    rng=s,
                    tau_scale=a,
                    tau_prior="half_normal",
                )
                lo, hi = res.summary.eti
                hits += int(lo <= truth <= hi)
                widths.append(float(hi - lo))
            out.append({"tau_scale": a, "tau": tau, "coverage": hits / n_sim,
                        "mean_width": float(np.mean(widths)), "simulations": n_sim})  # fmt: skip
    return out


def to_markdown(out: dict) -> str:
    lines = [
        "# Aggregation over 5 folds: f1posterior vs prob_conf_mat",
        "",
        f"Draws per posterior: {out['draws']:,}; prior alpha = beta = {PRIOR} in both "
        f"libraries. Machine: {out['machine']['cores']} cores, shared by other jobs (load "
        f"{', '.join(f'{x:.1f}' for x in out['machine']['load_average'])}). numpy's Gamma "
        f"variates for the 5 tables' draws alone: {1000 * out['gamma_seconds']:.1f} ms.",
        "",
        "| case | metric | library | method | mean | 95% HDI | I^2 | ms / call |",
        "|---|---|---|---|---:|---|---:|---:|",
    ]
    for r in out["side_by_side"]:
        i2 = "" if r["i2"] is None else f"{r['i2']:.2f}"
        lines.append(
            f"| {r['case']} | {r['metric']} | {r['library']} | {r['method']} | {r['mean']:.4f} "
            f"| [{r['hdi'][0]:.4f}, {r['hdi'][1]:.4f}] | {i2} | {1000 * r['seconds']:.1f} |"
        )
    lines += [
        "",
        "Coverage of the true population-mean accuracy by 95% intervals "
        f"({out['coverage'][0]['simulations']} simulations of 5 binary folds of 200 "
        "documents, true fold accuracies logit-normal(logit(0.8), tau); binomial SE "
        f"{out['coverage'][0]['binomial_se_at_95']:.3f} at 0.95):",
        "",
        "| tau | method | coverage | mean width |",
        "|---:|---|---:|---:|",
    ]
    for r in out["coverage"]:
        lines.append(
            f"| {r['tau']:g} | {r['method']} | {r['coverage']:.3f} | {r['mean_width']:.4f} |"
        )
    if out.get("tau_prior"):
        n = out["tau_prior"][0]["simulations"]
        lines += [
            "",
            f"f1posterior random effects, prior of tau: coverage and mean width ({n} "
            f"simulations each, binomial SE {math.sqrt(0.95 * 0.05 / n):.3f} at 0.95; 5 binary "
            "folds of 200 documents, as above):",
            "",
            "| tau_scale | true tau | coverage | mean width |",
            "|---:|---:|---:|---:|",
        ]
        for r in out["tau_prior"]:
            lines.append(
                f"| {r['tau_scale']:g} | {r['tau']:g} | {r['coverage']:.3f} | "
                f"{r['mean_width']:.4f} |"
            )
    return "\n".join(lines) + "\n"


def image() -> None:
    """docs/img/aggregate_forest.png: the heterogeneous case's macro-F1, default settings."""
    import matplotlib

    matplotlib.use("Agg")
    from f1posterior.report.plots import plot_aggregate

    tables = cases()["heterogeneous"]
    res = aggregate(tables, metric="macro_f1", rng=0, names=[f"fold {i + 1}" for i in range(5)])
    path = Path(__file__).resolve().parent.parent / "docs" / "img" / "aggregate_forest.png"
    plot_aggregate(res).savefig(path, dpi=100)


def main() -> None:
    if "--image" in sys.argv:
        image()
        return
    quick = "--quick" in sys.argv
    draws = 10_000
    t0 = time.perf_counter()
    out = {
        "draws": draws,
        "machine": machine(),
        "side_by_side": side_by_side(draws),
        "gamma_seconds": best_of(
            lambda: np.random.default_rng(0).standard_gamma(np.ones((5, draws, 12)))
        ),
        "coverage": [
            *coverage(40 if quick else 100, 0.5, 4000),
            *coverage(40 if quick else 100, 0.0, 4000),
        ],
    }
    if "--tau-prior" in sys.argv:
        out["tau_prior"] = tau_prior_study(40 if quick else 200)
    out["seconds_total"] = time.perf_counter() - t0
    OUT.mkdir(exist_ok=True)
    (OUT / "aggregate.json").write_text(json.dumps(out, indent=2) + "\n")
    (OUT / "aggregate.md").write_text(to_markdown(out))
    print(to_markdown(out))


if __name__ == "__main__":
    main()
