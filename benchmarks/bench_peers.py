"""f1posterior against prob_conf_mat: averaging, model, pairing, exact forms, speed.

prob_conf_mat (Ferdinand Schlatt's ``prob_conf_mat``, here version 0.4.0) samples the
same Dirichlet model of a confusion matrix as f1posterior: class prevalences from
Dir(prevalence_prior + row sums), each row from Dir(confusion_prior + row). With
``prevalence_prior = beta`` and ``confusion_prior = alpha`` the two posteriors are
the same distribution. This script establishes, with numbers:

1. ``micro``: what prob_conf_mat's ``f1@micro`` computes, against scikit-learn's
   ``f1_score(average="micro"/"weighted")`` and f1posterior's ``micro_f1`` and
   ``weighted_f1`` (point values and posterior means under the same prior);
2. ``model``: posterior mean and 95% HDI of macro-F1 and accuracy from both
   samplers under the same prior, with Monte Carlo standard errors;
3. ``paired``: two classifiers on the same documents, compared by prob_conf_mat
   (two experiments), by f1posterior's ``compare`` (independent) and by its
   ``compare_predictions`` (paired);
4. ``exact``: prob_conf_mat's sampled accuracy and per-class recall against
   f1posterior's closed forms (``exact_posterior``);
5. ``speed``: seconds per matrix at 10,000 draws for M = 2, 5, 10, 20, one matrix
   and a batch, against numpy's raw Gamma-variate cost for the same shapes.

Run from the repository root (prob_conf_mat and scikit-learn must be installed;
they are benchmark-only peers, never dependencies)::

    python benchmarks/bench_peers.py [--quick]

Writes ``benchmarks/results/peers.json`` and ``peers.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from _common import machine

import f1posterior as f1p
from f1posterior.io._data import figure3

RESULTS = Path(__file__).resolve().parent / "results"

TABLES: dict[str, np.ndarray] = {
    "figure3_5x5": figure3(),
    "imbalanced_3x3": np.array([[500, 20, 5], [30, 40, 10], [5, 8, 12]]),
    "binary_rare_positive": np.array([[950, 10], [30, 10]]),
    "dominant_class_4x4": np.array(
        [[800, 50, 30, 20], [10, 20, 5, 5], [10, 5, 15, 0], [2, 3, 0, 5]]
    ),
}


def labels_of(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """y_true, y_pred vectors whose confusion matrix is ``c``."""
    t, p = np.nonzero(c)
    reps = c[t, p]
    return np.repeat(t, reps), np.repeat(p, reps)


def study(
    experiments: dict[str, np.ndarray],
    metrics: tuple[str, ...],
    draws: int,
    prevalence_prior: float = 1.0,
    confusion_prior: float = 1.0,
    seed: int = 0,
) -> Any:
    from prob_conf_mat import Study

    s = Study(seed=seed, num_samples=draws, ci_probability=0.95)
    for name, c in experiments.items():
        s.add_experiment(
            f"{name}/{name}",  # one group per experiment: no aggregation needed
            confusion_matrix=c,
            prevalence_prior=prevalence_prior,
            confusion_prior=confusion_prior,
        )
    for m in metrics:
        s.add_metric(m)
    return s


def pcm_values(s: Any, metric: str, exp: str, method: str) -> np.ndarray:
    return np.asarray(s.get_metric_samples(metric, f"{exp}/{exp}", method).values)


def batch_se_hdi(x: np.ndarray, batches: int = 20) -> np.ndarray:
    """Monte Carlo standard error of the two HDI ends of ``x`` (batch means)."""
    ends = np.array([f1p.hdi(b, 0.95) for b in np.array_split(x, batches)])
    return ends.std(axis=0, ddof=1) / np.sqrt(batches)


def summarize(x: np.ndarray) -> dict[str, Any]:
    return {
        "mean": float(x.mean()),
        "mean_se": float(x.std(ddof=1) / np.sqrt(x.size)),
        "hdi": f1p.hdi(x, 0.95).tolist(),
        "hdi_se": batch_se_hdi(x).tolist(),
    }


def agree(a: dict[str, Any], b: dict[str, Any], k: float = 4.0) -> dict[str, Any]:
    """Differences of two summaries in units of their joint MC standard error."""
    z_mean = (a["mean"] - b["mean"]) / np.hypot(a["mean_se"], b["mean_se"])
    z_hdi = (np.subtract(a["hdi"], b["hdi"])) / np.hypot(a["hdi_se"], b["hdi_se"])
    zs = [float(z_mean), *map(float, z_hdi)]
    return {"z_mean": zs[0], "z_hdi": zs[1:], "within_4_se": bool(max(map(abs, zs)) <= k)}


# ---------------------------------------------------------------------------- 1


def micro(draws: int) -> list[dict[str, Any]]:
    from sklearn.metrics import f1_score

    rows = []
    for name, c in TABLES.items():
        s = study({"e": c}, ("f1@micro", "f1@weighted", "acc"), draws)
        yt, yp = labels_of(c)
        ev = f1p.evaluate(
            c, metrics=("micro_f1", "weighted_f1"), alpha=1.0, beta=1.0, draws=draws, rng=0,
            keep_draws=True,
        )  # fmt: skip
        pcm_micro = pcm_values(s, "f1@micro", "e", "posterior").ravel()
        row = {
            "table": name,
            "classes": int(c.shape[0]),
            "point": {
                "pcm_f1_micro": float(pcm_values(s, "f1@micro", "e", "input").item()),
                "pcm_f1_weighted": float(pcm_values(s, "f1@weighted", "e", "input").item()),
                "pcm_acc": float(pcm_values(s, "acc", "e", "input").item()),
                "sklearn_micro": float(f1_score(yt, yp, average="micro")),
                "sklearn_weighted": float(f1_score(yt, yp, average="weighted")),
                "f1posterior_micro_f1": float(ev["micro_f1"].score),
                "f1posterior_weighted_f1": float(ev["weighted_f1"].score),
            },
            "posterior_prior_1_1": {
                "pcm_f1_micro": summarize(pcm_micro),
                "f1posterior_micro_f1": summarize(ev.metric_draws["micro_f1"]),
                "f1posterior_weighted_f1": summarize(ev.metric_draws["weighted_f1"]),
            },
        }
        p = row["point"]
        post = row["posterior_prior_1_1"]
        row["pcm_micro_equals_sklearn_weighted"] = bool(
            abs(p["pcm_f1_micro"] - p["sklearn_weighted"]) < 1e-12
        )
        row["pcm_micro_minus_sklearn_micro"] = p["pcm_f1_micro"] - p["sklearn_micro"]
        row["posterior_pcm_micro_vs_weighted_f1"] = agree(
            post["pcm_f1_micro"], post["f1posterior_weighted_f1"]
        )
        row["posterior_pcm_micro_vs_micro_f1"] = agree(
            post["pcm_f1_micro"], post["f1posterior_micro_f1"]
        )
        rows.append(row)
        print(json.dumps({"micro": name, **p}), flush=True)
    return rows


# ---------------------------------------------------------------------------- 2


def model(draws: int) -> list[dict[str, Any]]:
    rows = []
    for name in ("figure3_5x5", "imbalanced_3x3"):
        c = TABLES[name]
        s = study({"e": c}, ("f1@macro", "acc"), draws, seed=1)
        ev = f1p.evaluate(
            c, metrics=("macro_f1", "accuracy"), alpha=1.0, beta=1.0, draws=draws, rng=1,
            keep_draws=True,
        )  # fmt: skip
        for ours, theirs in (("macro_f1", "f1@macro"), ("accuracy", "acc")):
            a = summarize(pcm_values(s, theirs, "e", "posterior").ravel())
            b = summarize(ev.metric_draws[ours])
            rows.append(
                {
                    "table": name,
                    "metric": ours,
                    "prior": "alpha = beta = 1 (prevalence_prior = confusion_prior = 1)",
                    "draws": draws,
                    "prob_conf_mat": a,
                    "f1posterior": b,
                    **agree(a, b),
                }
            )
            print(json.dumps({"model": name, "metric": ours, **agree(a, b)}), flush=True)
    return rows


# ---------------------------------------------------------------------------- 3


def paired_data(n: int = 1000, m: int = 5, seed: int = 7) -> tuple[np.ndarray, ...]:
    """y_true and two classifiers that disagree on few documents (B fixes 60, breaks 30)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n)
    wrong = rng.random(n) > 0.8
    a = np.where(wrong, (y + rng.integers(1, m, n)) % m, y)
    b = a.copy()
    fix = rng.choice(np.flatnonzero(a != y), 60, replace=False)
    brk = rng.choice(np.flatnonzero(a == y), 30, replace=False)
    b[fix] = y[fix]
    b[brk] = (y[brk] + 1) % m
    return y, a, b


def paired(draws: int) -> dict[str, Any]:
    y, a, b = paired_data()
    ca = f1p.confusion_matrix(y, a).counts
    cb = f1p.confusion_matrix(y, b).counts
    out: dict[str, Any] = {
        "documents": int(y.size),
        "classes": 5,
        "disagreements": int(np.sum(a != b)),
        "metric": "macro_f1",
        "prior": "alpha = beta = 1",
        "draws": draws,
    }
    s = study({"A": ca, "B": cb}, ("f1@macro",), draws, seed=2)
    res = s.get_pairwise_comparison("f1@macro", experiment_a="B/B", experiment_b="A/A")
    da = pcm_values(s, "f1@macro", "A", "posterior").ravel()
    db = pcm_values(s, "f1@macro", "B", "posterior").ravel()
    diff = db - da
    out["prob_conf_mat"] = {
        "model": "two experiments, each sampled from its own Dirichlet (independent)",
        "corr_of_A_and_B_draws": float(np.corrcoef(da, db)[0, 1]),
        "diff_mean": float(diff.mean()),
        "diff_hdi": [float(v) for v in res.diff_dist_summary.hdi],
        "p_B_better": float(np.mean(diff > 0)),
        "p_direction": float(res.p_direction),
    }
    ind = f1p.compare(cb, ca, metric="macro_f1", alpha=1.0, beta=1.0, draws=draws, rng=3)
    pair = f1p.compare_predictions(
        y, b, a, metric="macro_f1", alpha=1.0, beta=1.0, draws=draws, rng=4
    )
    for key, r, what in (
        ("f1posterior_compare", ind, "independent: two tables, two posteriors"),
        ("f1posterior_compare_predictions", pair, "paired: one posterior over documents"),
    ):
        out[key] = {
            "model": what,
            "diff_mean": float(r.difference.mean),
            "diff_hdi": [float(v) for v in r.difference.hdi],
            "p_B_better": float(r.p_a_better),
            "decision_B_vs_A": r.decision,
        }
    w = {k: out[k]["diff_hdi"][1] - out[k]["diff_hdi"][0] for k in
         ("prob_conf_mat", "f1posterior_compare", "f1posterior_compare_predictions")}  # fmt: skip
    out["hdi_widths"] = w
    out["width_ratio_independent_over_paired"] = (
        w["f1posterior_compare"] / w["f1posterior_compare_predictions"]
    )
    print(json.dumps({"paired": w}), flush=True)
    return out


# ---------------------------------------------------------------------------- 4


def exact(draws: int) -> dict[str, Any]:
    from scipy import stats

    c = TABLES["figure3_5x5"]
    m = c.shape[0]
    # aligned prior: beta_j = sum_k alpha_jk = M -> prevalence_prior = M, confusion_prior = 1
    s = study({"e": c}, ("acc", "tpr"), draws, prevalence_prior=float(m), seed=5)
    acc = pcm_values(s, "acc", "e", "posterior").ravel()
    post = f1p.exact_posterior(c, "micro_f1", alpha=1.0, beta="aligned")
    ks = stats.kstest(acc, lambda x: post.cdf(x))
    out: dict[str, Any] = {
        "table": "figure3_5x5",
        "draws": draws,
        "accuracy_aligned_prior": {
            "exact": {
                "distribution": f"Beta({float(post.a):g}, {float(post.b):g})",
                "mean": float(post.mean()),
                "hdi": [float(v) for v in post.hdi(0.95)],
                "p_below_0.8": float(post.cdf(0.8)),
            },
            "prob_conf_mat": {
                **summarize(acc),
                "p_below_0.8": float(np.mean(acc < 0.8)),
                "p_below_0.8_se": float(np.sqrt(post.cdf(0.8) * post.sf(0.8) / draws)),
            },
            "ks_statistic": float(ks.statistic),
            "ks_pvalue": float(ks.pvalue),
        },
    }
    # recall is Beta(A_jj, r_j - A_jj) under any prior: take the paper's alpha = beta = 1
    s1 = study({"e": c}, ("tpr",), draws, seed=6)
    tpr = pcm_values(s1, "tpr", "e", "posterior")
    rec = f1p.exact_posterior(c, "recall", alpha=1.0, beta=1.0)
    a, b = np.asarray(rec.a), np.asarray(rec.b)
    out["recall_prior_1_1"] = [
        {
            "class": j,
            "exact": f"Beta({a[j]:g}, {b[j]:g})",
            "ks_pvalue": float(stats.kstest(tpr[:, j], stats.beta(a[j], b[j]).cdf).pvalue),
        }
        for j in range(m)
    ]
    print(json.dumps({"exact_ks_p": out["accuracy_aligned_prior"]["ks_pvalue"]}), flush=True)
    return out


# ---------------------------------------------------------------------------- 5


def stack(b: int, m: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 30, size=(b, m, m))
    c[..., np.arange(m), np.arange(m)] += 50
    return c


def timed(fn: Any) -> tuple[float, float]:
    """Wall time and process CPU time of one call (seconds)."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def speed(sizes: list[tuple[int, int]], draws: int, repeats: int) -> list[dict[str, Any]]:
    """Seconds per matrix; every repeat runs all contenders in turn (interleaved)."""
    from prob_conf_mat import Study

    def pcm(cs: np.ndarray) -> None:  # one Study per matrix, as bench_batch.py
        for i, c in enumerate(cs):
            st = Study(seed=i, num_samples=draws, ci_probability=0.95)
            st.add_experiment("g/e", confusion_matrix=c, prevalence_prior=1.0, confusion_prior=1.0)
            st.add_metric("acc")
            st.add_metric("f1@macro")
            st.report_metric_summaries("acc", table_fmt="records")
            st.report_metric_summaries("f1@macro", table_fmt="records")

    def ours(cs: np.ndarray) -> None:
        f1p.evaluate(
            cs if cs.shape[0] > 1 else cs[0], metrics=("accuracy", "macro_f1"), alpha=1.0,
            beta=1.0, draws=draws, rng=0, workers=1,
        )  # fmt: skip

    gen = np.random.default_rng(1)
    buffers: dict[int, np.ndarray] = {}

    def gamma(cs: np.ndarray) -> None:
        # numpy's raw cost: the same M(M+1) posterior concentrations (alpha = beta = 1)
        # times draws, one standard_gamma call per matrix into a preallocated buffer
        b, m = cs.shape[0], cs.shape[1]
        conc = np.concatenate([cs + 1.0, cs.sum(axis=2)[:, None, :] + 1.0], axis=1)
        out = buffers.setdefault(m, np.empty((m + 1, m, draws)))
        for i in range(b):
            gen.standard_gamma(conc[i][..., None], out=out)

    FNS = {"gamma": gamma, "f1posterior": ours, "prob_conf_mat": pcm}  # noqa: N806
    cases = []
    for m, b in sizes:
        cases += [(m, 1, stack(1, m)), (m, b, stack(b, m))]
    times: dict[tuple[int, int], dict[str, list[tuple[float, float]]]] = {
        (m, b): {"gamma": [], "f1posterior": [], "prob_conf_mat": []} for m, b, _ in cases
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _m, _, cs in cases:  # warm-up
            ours(cs[:1])
            pcm(cs[:1])
        for r in range(repeats):
            for m, b, cs in cases:
                order = ["gamma", "f1posterior", "prob_conf_mat"]
                if r % 2:
                    order.reverse()
                for k in order:
                    wall, cpu = timed(lambda k=k, cs=cs: FNS[k](cs))
                    times[(m, b)][k].append((wall / b, cpu / b))
            print(f"speed round {r + 1}/{repeats}", file=sys.stderr, flush=True)
    rows = []
    for (m, b), t in times.items():
        # process CPU time is the primary figure: every contender runs on one thread, and
        # CPU time is far less disturbed than wall time by other jobs on a shared machine
        best = {k: min(c for _, c in v) for k, v in t.items()}
        wall = {k: min(w for w, _ in v) for k, v in t.items()}
        rows.append(
            {
                "classes": m,
                "matrices": b,
                "draws": draws,
                "variates_per_matrix": m * (m + 1) * draws,
                "gamma_s_per_matrix": best["gamma"],
                "f1posterior_s_per_matrix": best["f1posterior"],
                "prob_conf_mat_s_per_matrix": best["prob_conf_mat"],
                "f1posterior_over_gamma": best["f1posterior"] / best["gamma"],
                "prob_conf_mat_over_gamma": best["prob_conf_mat"] / best["gamma"],
                "prob_conf_mat_over_f1posterior": best["prob_conf_mat"] / best["f1posterior"],
                "wall_s_per_matrix": wall,
                "spread_cpu": {
                    k: float(np.ptp([c for _, c in v]) / min(c for _, c in v)) for k, v in t.items()
                },
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


# ---------------------------------------------------------------------------- report


def markdown(res: dict[str, Any]) -> str:
    mach = res["machine"]
    out = [
        "# f1posterior against prob_conf_mat",
        "",
        f"prob_conf_mat {res['prob_conf_mat_version']}, f1posterior {mach['f1posterior']}, "
        f"Python {mach['python']}, NumPy {mach['numpy']}; {mach['cores']} cores shared with "
        f"other jobs (load average {mach['load_average'][0]:.2f} before, "
        f"{mach['load_average_after'][0]:.2f} after). Produced by `benchmarks/bench_peers.py`.",
        "",
        "## 1. What prob_conf_mat's `f1@micro` is",
        "",
        "Point values (observed table) and posterior means under alpha = beta = 1 "
        "(prob_conf_mat: prevalence_prior = confusion_prior = 1).",
        "",
        "| table | pcm f1@micro | sklearn weighted | sklearn micro (= accuracy) | "
        "pcm micro = weighted? | posterior: pcm f1@micro | f1posterior weighted_f1 | "
        "f1posterior micro_f1 |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in res["micro"]:
        p, q = r["point"], r["posterior_prior_1_1"]
        out.append(
            f"| {r['table']} | {p['pcm_f1_micro']:.4f} | {p['sklearn_weighted']:.4f} | "
            f"{p['sklearn_micro']:.4f} | "
            f"{'yes' if r['pcm_micro_equals_sklearn_weighted'] else 'no'} | "
            f"{q['pcm_f1_micro']['mean']:.4f} | {q['f1posterior_weighted_f1']['mean']:.4f} "
            f"(z = {r['posterior_pcm_micro_vs_weighted_f1']['z_mean']:+.1f}) | "
            f"{q['f1posterior_micro_f1']['mean']:.4f} "
            f"(z = {r['posterior_pcm_micro_vs_micro_f1']['z_mean']:+.1f}) |"
        )
    out += [
        "",
        "z = difference of posterior means over their joint Monte Carlo standard error.",
        "",
        "## 2. Same model, same prior: posterior mean and 95% HDI",
        "",
        "| table | metric | draws | prob_conf_mat mean [HDI] | f1posterior mean [HDI] | "
        "max abs z | within 4 MC s.e. |",
        "|---|---|---:|---|---|---:|---|",
    ]
    for r in res["model"]:
        a, b = r["prob_conf_mat"], r["f1posterior"]
        z = max(abs(r["z_mean"]), *map(abs, r["z_hdi"]))
        out.append(
            f"| {r['table']} | {r['metric']} | {r['draws']:,} | {a['mean']:.4f} "
            f"[{a['hdi'][0]:.4f}, {a['hdi'][1]:.4f}] | {b['mean']:.4f} "
            f"[{b['hdi'][0]:.4f}, {b['hdi'][1]:.4f}] | {z:.1f} | {r['within_4_se']} |"
        )
    pr = res["paired"]
    out += [
        "",
        "## 3. Two classifiers on the same documents",
        "",
        f"{pr['documents']} documents, {pr['classes']} classes, the classifiers disagree on "
        f"{pr['disagreements']}; macro-F1 of B minus A, prior alpha = beta = 1, "
        f"{pr['draws']:,} draws. prob_conf_mat's draws of A and B have correlation "
        f"{pr['prob_conf_mat']['corr_of_A_and_B_draws']:+.3f} (independent experiments).",
        "",
        "| method | model | mean diff | 95% HDI | width | P(B better) |",
        "|---|---|---:|---|---:|---:|",
    ]
    for k in ("prob_conf_mat", "f1posterior_compare", "f1posterior_compare_predictions"):
        r = pr[k]
        out.append(
            f"| {k} | {r['model']} | {r['diff_mean']:+.4f} | "
            f"[{r['diff_hdi'][0]:+.4f}, {r['diff_hdi'][1]:+.4f}] | "
            f"{pr['hdi_widths'][k]:.4f} | {r['p_B_better']:.3f} |"
        )
    ex = res["exact"]
    acc = ex["accuracy_aligned_prior"]
    out += [
        "",
        "## 4. Closed forms against prob_conf_mat's draws (Figure 3 matrix)",
        "",
        f"Aligned prior (alpha = 1, beta_j = M; prob_conf_mat prevalence_prior = M, "
        f"confusion_prior = 1): accuracy = micro-F1 ~ {acc['exact']['distribution']}.",
        "",
        "| | mean | 95% HDI | P(< 0.8) |",
        "|---|---:|---|---:|",
        f"| exact (f1posterior.exact_posterior) | {acc['exact']['mean']:.5f} | "
        f"[{acc['exact']['hdi'][0]:.5f}, {acc['exact']['hdi'][1]:.5f}] | "
        f"{acc['exact']['p_below_0.8']:.4f} |",
        f"| prob_conf_mat, {ex['draws']:,} draws | {acc['prob_conf_mat']['mean']:.5f} "
        f"± {acc['prob_conf_mat']['mean_se']:.5f} | [{acc['prob_conf_mat']['hdi'][0]:.5f}, "
        f"{acc['prob_conf_mat']['hdi'][1]:.5f}] ± {max(acc['prob_conf_mat']['hdi_se']):.5f} | "
        f"{acc['prob_conf_mat']['p_below_0.8']:.4f} "
        f"± {acc['prob_conf_mat']['p_below_0.8_se']:.4f} |",
        "",
        f"KS test of prob_conf_mat's accuracy draws against the exact Beta: p = "
        f"{acc['ks_pvalue']:.3f}. Per-class recall under alpha = beta = 1 against "
        "Beta(A_jj, r_j - A_jj): KS p = "
        + ", ".join(f"{r['ks_pvalue']:.2f}" for r in ex["recall_prior_1_1"])
        + ".",
        "",
        "## 5. Speed: CPU time per matrix, 10,000 draws, accuracy + macro-F1",
        "",
        "f1posterior with workers=1; prob_conf_mat one Study per matrix; numpy = one "
        "`standard_gamma` call per matrix for its M(M+1) concentrations x draws, into a "
        "preallocated float64 buffer. Process CPU time (all three run on one thread; wall "
        "times in the JSON), min of "
        f"{res['repeats']} interleaved repeats.",
        "",
        "| M | matrices | numpy Gamma | f1posterior | prob_conf_mat | f1posterior / Gamma | "
        "prob_conf_mat / Gamma | prob_conf_mat / f1posterior |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["speed"]:
        out.append(
            f"| {r['classes']} | {r['matrices']} | {r['gamma_s_per_matrix'] * 1e3:.2f} ms | "
            f"{r['f1posterior_s_per_matrix'] * 1e3:.2f} ms | "
            f"{r['prob_conf_mat_s_per_matrix'] * 1e3:.2f} ms | "
            f"{r['f1posterior_over_gamma']:.2f} | {r['prob_conf_mat_over_gamma']:.2f} | "
            f"{r['prob_conf_mat_over_f1posterior']:.2f} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer draws and sizes (smoke test)")
    ap.add_argument("--out", help="directory for peers.json/.md (default benchmarks/results)")
    args = ap.parse_args(argv)
    try:
        import prob_conf_mat
    except ImportError:
        print("prob_conf_mat is not installed: pip install prob_conf_mat", file=sys.stderr)
        return 2
    q = args.quick
    info = machine()
    repeats = 1 if q else 3
    sizes = [(2, 10), (5, 10)] if q else [(2, 100), (5, 100), (10, 100), (20, 20)]
    res: dict[str, Any] = {
        "machine": info,
        "prob_conf_mat_version": getattr(prob_conf_mat, "__version__", "unknown"),
        "repeats": repeats,
        "micro": micro(20_000 if q else 100_000),
        "model": model(20_000 if q else 100_000),
        "paired": paired(20_000 if q else 50_000),
        "exact": exact(10_000),
        "speed": speed(sizes, 10_000, repeats),
    }
    res["machine"]["load_average_after"] = os.getloadavg()
    out_dir = Path(args.out) if args.out else RESULTS
    out_dir.mkdir(exist_ok=True)
    (out_dir / "peers.json").write_text(json.dumps(res, indent=2) + "\n")
    (out_dir / "peers.md").write_text(markdown(res))
    print(f"wrote {out_dir / 'peers.json'} and peers.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
