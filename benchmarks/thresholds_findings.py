"""Reproduce the findings of Lipton, Elkan & Naryanaswamy (2014) with
f1posterior.analysis.thresholds.

Run: ``python benchmarks/thresholds_findings.py [--quick]``. Writes
``benchmarks/results/thresholds_findings.json`` and two figures,
``thresholds_winners_curse.png`` and ``thresholds_macro_micro.png``, in
``docs/img/``; prints a summary. Seeds are fixed, so a rerun gives
the same numbers.

1. Theorem 4.3: an uninformative calibrated classifier (every probability = b)
   maximises expected F1 by predicting everything positive; expected F1 ->
   2b/(1+b).
2. Corollary 1: for calibrated scores, the empirically optimal threshold
   approaches F*/2 as n grows (population F* and t* from the Beta model).
3. Section 7, the winner's curse: uninformative scores s = b + N(0, 1); the
   empirically chosen threshold predicts only a small fraction positive for
   small b, although predicting all positive is optimal.
4. Section 5-6: macro (per-label) versus micro (shared) thresholding over many
   labels with heterogeneous base rates; rare uninformative labels get
   near-zero macro thresholds and are predicted for (almost) every document.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _common import machine
from scipy import stats

from f1posterior.analysis.thresholds import (
    best_threshold,
    evaluate_threshold,
    expected_fbeta_decisions,
)

RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "thresholds_findings.json"
FIGURES = Path(__file__).resolve().parent.parent / "docs" / "img"


# 1. Theorem 4.3 ---------------------------------------------------------------------------


def uninformative(n: int, base_rates: list[float], mc_runs: int, gen: np.random.Generator):
    rows = []
    for b in base_rates:
        r = expected_fbeta_decisions(np.full(n, b))
        curve = r.curve
        # Monte Carlo check of the exact expectation of "predict all"
        y = gen.random((mc_runs, n)) < b
        a = y.sum(1)
        mc = 2 * a / (a + n)
        rows.append(
            {
                "b": b,
                "n": n,
                "n_positive": int(r.n_positive),
                "expected_f1": float(r.expected),
                "two_b_over_1_plus_b": 2 * b / (1 + b),
                "curve_increasing": bool(np.all(np.diff(curve[1:]) > 0)),
                "expected_f1_predict_half": float(curve[n // 2]),
                "monte_carlo_mean": float(mc.mean()),
                "monte_carlo_se": float(mc.std(ddof=1) / np.sqrt(mc_runs)),
            }
        )
    return rows


# 2. Corollary 1: threshold -> F*/2 ---------------------------------------------------------


def population_optimum(a: float, b: float) -> tuple[float, float]:
    mean = a / (a + b)
    grid = np.linspace(0.0, 0.999, 199_801)
    f = 2 * mean * stats.beta.sf(grid, a + 1, b) / (mean + stats.beta.sf(grid, a, b))
    i = int(np.argmax(f))
    return float(f[i]), float(grid[i])


def calibrated(sizes: list[int], runs: int, gen: np.random.Generator, a=2.0, b=5.0):
    f_star, t_star = population_optimum(a, b)
    rows = []
    for n in sizes:
        r_here = max(10, min(runs, int(runs * 20_000 / n)))
        p = gen.beta(a, b, size=(n, r_here))
        y = gen.random((n, r_here)) < p
        res = best_threshold(y, p)
        t, f = res.threshold, res.score
        row = {
            "n": n,
            "runs": r_here,
            "threshold_mean": float(t.mean()),
            "threshold_sd": float(t.std(ddof=1)),
            "rmse_to_t_star": float(np.sqrt(np.mean((t - t_star) ** 2))),
            "empirical_f1_mean": float(f.mean()),
            "mean_threshold_minus_half_f1": float(np.mean(t - f / 2)),
        }
        if n <= 5000:  # the exact expected-F1 plug-in on the probabilities alone
            e = expected_fbeta_decisions(p[:, :10])
            row["plugin_threshold_mean"] = float(np.mean(e.threshold))
            row["plugin_half_expected_mean"] = float(np.mean(e.theory_threshold))
        rows.append(row)
    return {"a": a, "b": b, "f_star": f_star, "t_star": t_star, "half_f_star": f_star / 2}, rows


# 3. Winner's curse (section 7) ---------------------------------------------------------------


def winners_curse(n: int, runs: int, base_rates: list[float], gen: np.random.Generator):
    out = {}
    for b in base_rates:
        fracs, f1s = [], []
        for c0 in range(0, runs, 25):
            m = min(25, runs - c0)
            s = b + gen.standard_normal((n, m))
            y = gen.random((n, m)) < b
            res = best_threshold(y, s)
            fracs.append((res.table[:, :, 1].sum(-1)) / n)
            f1s.append(res.score)
        frac = np.concatenate(fracs)
        f1 = np.concatenate(f1s)
        out[b] = {
            "fraction_predicted_positive": frac,
            "in_sample_f1": f1,
            "sharp_n": (1 - b) / b**2,
        }
    return out


def curse_honest(gen: np.random.Generator, draws: int):
    """Cross-fitted posterior vs in-sample F1 for one uninformative problem per base rate."""
    rows = []
    for b, n in ((0.1, 5000), (0.01, 20_000), (0.001, 100_000)):
        y = gen.random(n) < b
        s = b + gen.standard_normal(n)
        r = evaluate_threshold(y, s, folds=5, draws=draws, rng=int(gen.integers(2**31)))
        rows.append(
            {
                "b": b,
                "n": n,
                "observed_base_rate": float(y.mean()),
                "in_sample_f1": r.in_sample,
                "held_out_f1": float(r.held_out.score),
                "posterior_mean": float(r.held_out.mean),
                "posterior_hdi": r.held_out.hdi.tolist(),
                "optimism": r.optimism,
                "p_below_in_sample": r.p_below_in_sample,
                "all_positive_f1": float(2 * y.mean() / (1 + y.mean())),
            }
        )
    return rows


# 4. Macro vs micro thresholding ---------------------------------------------------------------


def macro_micro(d: int, n_labels: int, gen: np.random.Generator):
    base = np.exp(gen.uniform(np.log(0.002), np.log(0.3), n_labels))
    informative = base > 0.02  # rare labels lost their predictive features
    kappa = 1.0  # calibrated Beta(kappa b, kappa (1-b)) probabilities when informative
    p = np.where(
        informative,
        gen.beta(kappa * base, kappa * (1 - base), size=(d, n_labels)),
        np.broadcast_to(base, (d, n_labels)),
    )
    y = gen.random((d, n_labels)) < p
    macro = best_threshold(y, p, strategy="per_label")
    micro = best_threshold(y, p, strategy="shared")
    plug_macro = expected_fbeta_decisions(p[:2000], strategy="per_label")  # O(D^2 L)
    frac_macro = macro.table[:, :, 1].sum(-1) / d
    frac_micro = micro.table[:, :, 1].sum(-1) / d
    frac_plug = plug_macro.decisions.mean(0)
    order = np.argsort(-frac_macro)[:8]
    top = [
        {
            "label": int(j),
            "base_rate": float(base[j]),
            "informative": bool(informative[j]),
            "count_predicted_macro": int(macro.table[j, :, 1].sum()),
            "max_f1": float(macro.score[j]),
            "macro_threshold": float(macro.threshold[j]),
        }
        for j in order
    ]
    un = ~informative & (y.sum(0) > 0)
    return {
        "documents": d,
        "labels": n_labels,
        "uninformative_labels": int((~informative).sum()),
        "shared_threshold": float(micro.threshold),
        "micro_f1_shared": float(micro.score),
        "macro_f1_per_label": float(np.mean(macro.score)),
        "uninformative_median_macro_threshold": float(np.median(macro.threshold[un])),
        "uninformative_median_fraction_predicted_macro": float(np.median(frac_macro[un])),
        "uninformative_median_fraction_predicted_micro": float(np.median(frac_micro[un])),
        "uninformative_plugin_fraction_predicted": float(np.median(frac_plug[~informative])),
        "informative_median_fraction_predicted_macro": float(np.median(frac_macro[informative])),
        "informative_median_fraction_predicted_micro": float(np.median(frac_micro[informative])),
        "most_predicted_labels_macro": top,
        "_plot": (base, informative, frac_macro, frac_micro, macro.threshold),
    }


# figures --------------------------------------------------------------------------------------


def plot_curse(curse: dict, n: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = list(curse)
    fig, axes = plt.subplots(2, 3, figsize=(11, 6.5), sharex=True)
    bins = np.linspace(0, 1, 41)
    for ax, b in zip(axes.ravel(), rates, strict=False):
        frac = curse[b]["fraction_predicted_positive"]
        ax.hist(frac, bins=bins, color="tab:blue", edgecolor="white")
        ax.set_title(f"b = {b:g}:   n b² / (1 - b) = {n / curse[b]['sharp_n']:.3g}", fontsize=10)
        ax.axvline(1.0, color="tab:red", ls="--", lw=1.5)
        ax.set_yscale("log")
        ax.tick_params(labelsize=9)
    fig.supxlabel(
        "fraction of the n documents predicted positive at the empirical F1-optimal threshold"
    )
    fig.supylabel("number of runs (log scale)")
    fig.suptitle(
        f"Winner's curse: uninformative scores b + N(0,1), n = {n:,} per run, "
        f"{len(curse[rates[0]]['fraction_predicted_positive'])} runs per base rate\n"
        "dashed: the analytic optimum (predict all positive); the seed expects small fractions "
        "with constant probability when n b² / (1 - b) < 1",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_macro_micro(mm: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    base, informative, frac_macro, frac_micro, thr = mm["_plot"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, frac, title in (
        (axes[0], frac_macro, "per-label thresholds (macro-F1)"),
        (axes[1], frac_micro, "one shared threshold (micro-F1)"),
    ):
        ax.scatter(base[informative], frac[informative], s=14, label="informative scores")
        ax.scatter(
            base[~informative], frac[~informative], s=14, marker="x", label="uninformative scores"
        )
        ax.plot(
            [0.002, 0.3], [0.002, 0.3], color="grey", lw=1, ls=":", label="fraction = base rate"
        )
        ax.set_xscale("log")
        ax.set_xlabel("label base rate")
        ax.set_ylabel("fraction of documents predicted positive")
        ax.set_ylim(-0.03, 1.03)
        ax.set_title(title)
    axes[0].legend(fontsize=9, loc="center right")
    fig.suptitle(
        f"{mm['labels']} labels, {mm['documents']:,} documents, calibrated scores; "
        "rare labels (b < 0.02) have uninformative scores",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def timings() -> dict:
    gen = np.random.default_rng(0)
    out = {}
    s = gen.random(1_000_000)
    y = gen.random(1_000_000) < 0.1
    t0 = time.perf_counter()
    best_threshold(y, s)
    out["best_threshold_n1e6_seconds"] = time.perf_counter() - t0
    s = gen.random((100_000, 50))
    y = gen.random((100_000, 50)) < 0.1
    t0 = time.perf_counter()
    best_threshold(y, s)
    out["best_threshold_1e5x50_seconds"] = time.perf_counter() - t0
    for n in (1000, 5000):
        p = gen.random(n)
        t0 = time.perf_counter()
        expected_fbeta_decisions(p)
        out[f"expected_fbeta_decisions_n{n}_seconds"] = time.perf_counter() - t0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = ap.parse_args()
    quick = args.quick
    gen = np.random.default_rng(20140915)
    RESULTS.mkdir(exist_ok=True)
    t_all = time.perf_counter()

    uninf = uninformative(2000, [0.5, 0.2, 0.1, 0.05, 0.01, 0.001], 2000, gen)
    pop, calib = calibrated(
        [100, 1000, 10_000] if quick else [100, 1000, 10_000, 100_000, 1_000_000],
        50 if quick else 400,
        gen,
    )
    n_curse = 10_000 if quick else 100_000
    runs = 50 if quick else 500
    rates = [0.5, 0.1, 0.05, 0.01, 0.005, 0.001]
    curse = winners_curse(n_curse, runs, rates, gen)
    honest = curse_honest(gen, 2000 if quick else 20_000)
    mm = macro_micro(2000 if quick else 10_000, 200, gen)
    plot_curse(curse, n_curse, FIGURES / "thresholds_winners_curse.png")
    plot_macro_micro(mm, FIGURES / "thresholds_macro_micro.png")

    curse_json = {
        str(b): {
            "sharp_n": v["sharp_n"],
            "median_fraction_predicted": float(np.median(v["fraction_predicted_positive"])),
            "share_of_runs_predicting_all": float(np.mean(v["fraction_predicted_positive"] == 1.0)),
            "share_of_runs_predicting_under_10pct": float(
                np.mean(v["fraction_predicted_positive"] < 0.1)
            ),
            "mean_in_sample_f1": float(v["in_sample_f1"].mean()),
            "all_positive_f1": 2 * b / (1 + b),
        }
        for b, v in curse.items()
    }
    result = {
        "machine": machine(),
        "quick": quick,
        "theorem_4_3_uninformative": uninf,
        "corollary_1_calibrated": {"population": pop, "by_n": calib},
        "winners_curse": {"n": n_curse, "runs": runs, "by_base_rate": curse_json},
        "winners_curse_cross_fitted": honest,
        "macro_vs_micro": {k: v for k, v in mm.items() if not k.startswith("_")},
        "timings": timings(),
        "total_seconds": time.perf_counter() - t_all,
    }
    OUT.write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=1)[:6000])


if __name__ == "__main__":
    main()
