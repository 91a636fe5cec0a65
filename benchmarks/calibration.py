"""Coverage study: how often does each 95% interval contain the TRUE micro- and macro-F1?

Simulated classifiers with known class prevalences ``mu`` and confusion rows
``theta`` (so the true cell probabilities ``p = mu * theta`` and the true
metrics, computed with :data:`f1posterior.metrics.METRICS`, are known):

* ``M`` in {2, 5, 20} classes;
* prevalences balanced (``1 / M``) or imbalanced (geometric, rarest class 1%);
* a weak (``theta_jj = 0.6``) or strong (``theta_jj = 0.95``) classifier, errors
  spread evenly over the other classes;
* test sets of ``N`` in {20, 50, 200, 1000, 10000} documents.

For every scenario, ``reps`` test sets ``C ~ Mult(N, p)`` are drawn and each
method's interval is computed for every table at once (batched):

* Bayesian 95% HDI and equal-tailed interval (ETI) of the posterior under the
  uniform (alpha = beta = 1), Jeffreys (0.5) and Perks (1/M) priors, via
  :func:`f1posterior.evaluate` (the three priors share the posterior random
  stream of a scenario: common random numbers);
* delta method (:func:`f1posterior.delta_interval`);
* multinomial bootstrap, percentile and BCa, on the same resamples.

Recorded: coverage (fraction of intervals containing the true value; NaN
intervals count as misses and are reported as ``undefined``), its Monte Carlo
standard error, and the mean width. Output: ``benchmarks/results/calibration
[_quick].json`` and ``.md``, and the figure ``calibration[_quick].png``.

Usage::

    python benchmarks/calibration.py --quick     # a couple of minutes on 2 cores
    python benchmarks/calibration.py             # the full study
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np

from f1posterior import delta_interval, evaluate
from f1posterior.frequentist import DegenerateIntervalWarning, _bootstrap_many
from f1posterior.metrics import METRICS

RESULTS = Path(__file__).resolve().parent / "results"
MS = (2, 5, 20)
PREVALENCES = ("balanced", "imbalanced")
CLASSIFIERS = {"weak": 0.6, "strong": 0.95}
NS = (20, 50, 200, 1000, 10000)
METRIC_NAMES = ("micro_f1", "macro_f1")
METHODS = (
    "HDI uniform",
    "ETI uniform",
    "HDI Jeffreys",
    "ETI Jeffreys",
    "HDI Perks",
    "ETI Perks",
    "delta",
    "bootstrap percentile",
    "bootstrap BCa",
)
LEVEL = 0.95
PRIORS: dict[str, float | str] = {"uniform": 1.0, "Jeffreys": 0.5, "Perks": "perks"}
SETTINGS = {
    "quick": {"reps": 100, "draws": 500, "resamples": 300},
    "full": {"reps": 500, "draws": 1000, "resamples": 1000},
}


def prevalences(m: int, kind: str) -> np.ndarray:
    """Balanced ``1/M``, or geometric ``mu_j ~ r^j`` with the rarest class exactly 1%."""
    if kind == "balanced":
        return np.full(m, 1.0 / m)
    lo, hi = 1e-9, 1.0  # bisection on the ratio r so that min(mu) = 0.01
    for _ in range(200):
        r = (lo + hi) / 2
        w = r ** np.arange(m)
        if w[-1] / w.sum() < 0.01:
            lo = r
        else:
            hi = r
    w = lo ** np.arange(m)
    return w / w.sum()


def truth(m: int, kind: str, diag: float) -> np.ndarray:
    """True cell probabilities ``p = mu_j * theta_jk``."""
    theta = np.full((m, m), (1.0 - diag) / (m - 1))
    np.fill_diagonal(theta, diag)
    return prevalences(m, kind)[:, None] * theta


def scenarios():
    for m in MS:
        for kind in PREVALENCES:
            for strength, diag in CLASSIFIERS.items():
                for n in NS:
                    yield {"M": m, "prevalence": kind, "classifier": strength, "N": n, "diag": diag}


def run_scenario(sc: dict, index: int, seed: int, cfg: dict) -> list[dict]:
    p = truth(sc["M"], sc["prevalence"], sc["diag"])
    true = {name: float(METRICS[name](p)) for name in METRIC_NAMES}
    m, reps = sc["M"], cfg["reps"]
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index, 0)))
    tables = gen.multinomial(sc["N"], p.ravel(), size=reps).reshape(reps, m, m)

    intervals: dict[tuple[str, str], np.ndarray] = {}
    timing: dict[str, float] = {}
    for prior, a in PRIORS.items():
        t0 = time.perf_counter()
        res = evaluate(
            tables,
            metrics=METRIC_NAMES,
            draws=cfg["draws"],
            alpha=a,
            beta=a,
            hdi_prob=LEVEL,
            rng=np.random.SeedSequence(seed, spawn_key=(index, 1)),
        )
        timing[f"Bayes {prior}"] = time.perf_counter() - t0
        for name in METRIC_NAMES:
            intervals[name, f"HDI {prior}"] = res[name].hdi
            intervals[name, f"ETI {prior}"] = res[name].eti
    t0 = time.perf_counter()
    for name in METRIC_NAMES:
        intervals[name, "delta"] = delta_interval(tables, name, level=LEVEL).interval
    timing["delta"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)  # counted as undefined below
        boot = _bootstrap_many(
            tables.astype(float),
            [(name, METRICS[name]) for name in METRIC_NAMES],
            LEVEL,
            cfg["resamples"],
            ("percentile", "bca"),
            np.random.SeedSequence(seed, spawn_key=(index, 2)),
        )
    timing["bootstrap"] = time.perf_counter() - t0
    for name in METRIC_NAMES:
        intervals[name, "bootstrap percentile"] = boot[name, "percentile"].interval
        intervals[name, "bootstrap BCa"] = boot[name, "bca"].interval

    rows = []
    for name in METRIC_NAMES:
        for method in METHODS:
            iv = intervals[name, method]
            defined = np.isfinite(iv).all(axis=-1)
            hit = defined & (iv[:, 0] <= true[name]) & (true[name] <= iv[:, 1])
            cov = float(hit.mean())
            rows.append(
                {
                    **{k: sc[k] for k in ("M", "prevalence", "classifier", "N")},
                    "metric": name,
                    "method": method,
                    "true_value": true[name],
                    "coverage": cov,
                    "coverage_se": float(np.sqrt(max(cov * (1 - cov), 1e-12) / reps)),
                    "mean_width": float(np.mean(iv[defined, 1] - iv[defined, 0]))
                    if defined.any()
                    else float("nan"),
                    "undefined": float(1 - defined.mean()),
                    "zero_width": float(np.mean(defined & (iv[:, 1] == iv[:, 0]))),
                }
            )
    return rows, timing


def summarise(rows: list[dict]) -> dict:
    """Coverage averaged over the 4 prevalence x classifier settings, and its minimum."""
    out: dict = {}
    for name in METRIC_NAMES:
        for method in METHODS:
            for m in MS:
                for n in NS:
                    sel = [
                        r
                        for r in rows
                        if r["metric"] == name and r["method"] == method and r["M"] == m
                        and r["N"] == n
                    ]  # fmt: skip
                    out.setdefault(name, {}).setdefault(method, {}).setdefault(str(m), {})[
                        str(n)
                    ] = {
                        "mean_coverage": float(np.mean([r["coverage"] for r in sel])),
                        "min_coverage": float(np.min([r["coverage"] for r in sel])),
                        "mean_width": float(np.nanmean([r["mean_width"] for r in sel])),
                    }
    return out


def exact_micro_mean(tables: np.ndarray, a: float, b: float) -> np.ndarray:
    """Closed-form posterior mean of micro-F1 (DESIGN.md) under alpha = a, beta = b (scalars).

    ``E = sum_j (b + n_j) / (M b + N) * (a + c_jj) / (M a + n_j)``; no sampling.
    """
    m = tables.shape[-1]
    n_j = tables.sum(axis=-1)
    diag = np.diagonal(tables, axis1=-2, axis2=-1)
    big_n = n_j.sum(axis=-1, keepdims=True)
    return ((b + n_j) / (m * b + big_n) * (a + diag) / (m * a + n_j)).sum(axis=-1)


def mechanism(seed: int, tables_per_case: int = 50, draws: int = 4000) -> dict:
    """Direct check of the prior pseudo-count mechanism, M = 20, strong classifier.

    For the first ``tables_per_case`` test sets of the study's own scenarios
    (same seeds, so the same tables as the full run) at N = 20, 200, 10000 and
    both prevalences: the bias of the posterior mean of macro-F1 and micro-F1
    (posterior mean minus the TRUE value, averaged over the test sets) under
    each prior, next to the posterior standard deviation. Micro-F1's posterior
    mean is also computed in closed form (no Monte Carlo error) as a check.
    """
    out: dict = {"tables_per_case": tables_per_case, "draws": draws, "cases": []}
    for index, sc in enumerate(scenarios()):
        if sc["M"] != 20 or sc["classifier"] != "strong" or sc["N"] not in (20, 200, 10000):
            continue
        p = truth(sc["M"], sc["prevalence"], sc["diag"])
        m = sc["M"]
        gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index, 0)))
        tables = gen.multinomial(sc["N"], p.ravel(), size=SETTINGS["full"]["reps"])
        tables = tables.reshape(-1, m, m)[:tables_per_case]
        case: dict = {k: sc[k] for k in ("M", "prevalence", "classifier", "N")}
        for name in METRIC_NAMES:
            true = float(METRICS[name](p))
            plug = METRICS[name](tables.astype(float))
            case[name] = {
                "true": true,
                "plug_in_bias": float(np.nanmean(plug) - true),
                "plug_in_sd_over_tests": float(np.nanstd(plug, ddof=1)),
            }
        for prior, a in PRIORS.items():
            res = evaluate(
                tables,
                metrics=METRIC_NAMES,
                draws=draws,
                alpha=a,
                beta=a,
                rng=np.random.SeedSequence(seed, spawn_key=(index, 3)),
            )
            av = 1.0 / m if a == "perks" else float(a)
            for name in METRIC_NAMES:
                s = res[name]
                true = case[name]["true"]
                hit = (s.hdi[:, 0] <= true) & (true <= s.hdi[:, 1])
                entry = {
                    "pseudo_docs_per_row": m * av,
                    "posterior_mean_bias": float(np.mean(s.mean) - true),
                    "posterior_sd": float(np.mean(s.std)),
                    "bias_over_sd": float(np.mean((s.mean - true) / s.std)),
                    "hdi_coverage_of_these_tables": float(hit.mean()),
                }
                if name == "micro_f1":
                    exact = exact_micro_mean(tables.astype(float), av, av)
                    entry["exact_mean_bias"] = float(np.mean(exact) - true)
                    entry["max_abs_mc_vs_exact_mean"] = float(np.max(np.abs(s.mean - exact)))
                    # in Monte Carlo standard errors of each table's posterior mean
                    entry["max_abs_z_mc_vs_exact_mean"] = float(
                        np.max(np.abs(s.mean - exact) / s.mc_error)
                    )
                case[name][prior] = entry
        out["cases"].append(case)
    return out


def mechanism_markdown(mech: dict) -> str:
    lines = [
        "# Mechanism check: prior pseudo-counts vs posterior spread (M = 20, strong classifier)",
        "",
        f"First {mech['tables_per_case']} test sets of each scenario of the study (same seeds), "
        f"{mech['draws']} posterior draws. bias = mean over test sets of (posterior mean - TRUE "
        "value); sd = mean posterior standard deviation; bias/sd averaged per table.",
        "",
        "| metric | prevalence | N | true | plug-in bias | "
        + " | ".join(f"{p}: bias / sd / bias÷sd" for p in PRIORS)
        + " |",
        "|" + "---|" * (5 + len(PRIORS)),
    ]
    for name in METRIC_NAMES:
        for case in mech["cases"]:
            c = case[name]
            cells = [
                f"{c[p]['posterior_mean_bias']:+.4f} / {c[p]['posterior_sd']:.4f} / "
                f"{c[p]['bias_over_sd']:+.1f}"
                for p in PRIORS
            ]
            lines.append(
                f"| {name} | {case['prevalence']} | {case['N']} | {c['true']:.4f} | "
                f"{c['plug_in_bias']:+.4f} | " + " | ".join(cells) + " |"
            )
    return "\n".join(lines) + "\n"


def markdown(rows: list[dict], summary: dict, meta: dict) -> str:
    lines = [
        "# Coverage of 95% intervals for the true micro- and macro-F1",
        "",
        f"Mode `{meta['mode']}`: {meta['reps']} test sets per scenario, {meta['draws']} "
        f"posterior draws, {meta['resamples']} bootstrap resamples, seed {meta['seed']}; "
        f"{meta['seconds']:.0f} s on {meta['machine']}.",
        "",
        "## Coverage averaged over prevalence (balanced, 1%-rare) and classifier "
        "(weak, strong); in brackets the worst of those four",
        "",
    ]
    for name in METRIC_NAMES:
        lines += [f"### {name}", ""]
        header = "| method | M | " + " | ".join(f"N={n}" for n in NS) + " |"
        lines += [header, "|" + "---|" * (len(NS) + 2)]
        for method in METHODS:
            for m in MS:
                cells = []
                for n in NS:
                    s = summary[name][method][str(m)][str(n)]
                    cells.append(f"{s['mean_coverage']:.3f} ({s['min_coverage']:.2f})")
                lines.append(f"| {method} | {m} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Mean width of the defined intervals, averaged over the same four settings", ""]
    for name in METRIC_NAMES:
        lines += [f"### {name}", ""]
        lines += ["| method | M | " + " | ".join(f"N={n}" for n in NS) + " |"]
        lines += ["|" + "---|" * (len(NS) + 2)]
        for method in METHODS:
            for m in MS:
                cells = [f"{summary[name][method][str(m)][str(n)]['mean_width']:.3f}" for n in NS]
                lines.append(f"| {method} | {m} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "## Every scenario: coverage / mean width (undefined = NaN intervals, counted as misses)",
        "",
        "| metric | M | prevalence | classifier | N | true | " + " | ".join(METHODS) + " |",
        "|" + "---|" * (6 + len(METHODS)),
    ]
    keyed: dict = {}
    for r in rows:
        keyed.setdefault(
            (r["metric"], r["M"], r["prevalence"], r["classifier"], r["N"], r["true_value"]), {}
        )[r["method"]] = r
    for (name, m, kind, strength, n, tv), by in keyed.items():
        cells = []
        for method in METHODS:
            r = by[method]
            text = f"{r['coverage']:.3f} / {r['mean_width']:.3f}"
            if r["undefined"] > 0:
                text += f" (undef {r['undefined']:.2f})"
            cells.append(text)
        lines.append(
            f"| {name} | {m} | {kind} | {strength} | {n} | {tv:.3f} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def figure(summary: dict, path: Path, meta: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    styles = {
        "HDI uniform": ("#1f77b4", "o", "-"),
        "ETI uniform": ("#1f77b4", "s", "--"),
        "HDI Jeffreys": ("#2ca02c", "o", "-"),
        "ETI Jeffreys": ("#2ca02c", "s", "--"),
        "HDI Perks": ("#8c564b", "P", "-"),
        "ETI Perks": ("#8c564b", "X", "--"),
        "delta": ("#d62728", "^", "-"),
        "bootstrap percentile": ("#ff7f0e", "v", "-"),
        "bootstrap BCa": ("#9467bd", "D", "--"),
    }
    fig, axes = plt.subplots(2, 3, figsize=(15, 9), sharex=True, sharey=True)
    for i, name in enumerate(METRIC_NAMES):
        for j, m in enumerate(MS):
            ax = axes[i, j]
            ax.axhline(LEVEL, color="black", lw=1, ls=":")
            for method in METHODS:
                color, marker, ls = styles[method]
                cov = [summary[name][method][str(m)][str(n)]["mean_coverage"] for n in NS]
                ax.plot(NS, cov, color=color, marker=marker, ls=ls, lw=1.8, ms=6, label=method)
            ax.set_xscale("log")
            ax.set_xticks(NS)
            ax.set_xticklabels([str(n) for n in NS])
            ax.set_ylim(0.0, 1.02)
            ax.set_yticks(np.arange(0.0, 1.01, 0.1))
            ax.grid(alpha=0.3)
            ax.set_title(f"{name.replace('_', '-')}, M = {m}", fontsize=13)
            if i == 1:
                ax.set_xlabel("test-set size N", fontsize=12)
            if j == 0:
                ax.set_ylabel("coverage of the true value", fontsize=12)
            ax.tick_params(labelsize=11)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=11, frameon=False)

    fig.suptitle(
        "Coverage of nominal 95% intervals (dotted line), mean over prevalence "
        f"(balanced / 1%-rare) and classifier (weak / strong); {meta['reps']} test sets each\n"
        "(for M = 2 the Perks prior, 1/M, is the Jeffreys prior, 0.5: its brown lines hide the "
        "green ones)",
        fontsize=13,
    )
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer test sets, draws, resamples")
    parser.add_argument("--seed", type=int, default=20150917)
    parser.add_argument("--reps", type=int, help="override test sets per scenario")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="reuse the scenarios already saved in calibration[_quick].partial.jsonl "
        "(written after every scenario; same seed and settings required)",
    )
    parser.add_argument(
        "--replot", action="store_true", help="redraw the figure and table from the saved JSON"
    )
    parser.add_argument(
        "--mechanism",
        action="store_true",
        help="only the direct bias-vs-spread check (M = 20): calibration_mechanism.json/.md",
    )
    args = parser.parse_args(argv)
    mode = "quick" if args.quick else "full"
    suffix = "_quick" if args.quick else ""
    if args.mechanism:
        t0 = time.perf_counter()
        mech = mechanism(args.seed)
        mech["seconds"] = time.perf_counter() - t0
        mech["seed"] = args.seed
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "calibration_mechanism.json").write_text(json.dumps(mech, indent=1))
        (RESULTS / "calibration_mechanism.md").write_text(mechanism_markdown(mech))
        print(mechanism_markdown(mech))
        return 0
    if args.replot:
        saved = json.loads((RESULTS / f"calibration{suffix}.json").read_text())
        (RESULTS / f"calibration{suffix}.md").write_text(
            markdown(saved["rows"], saved["summary"], saved["meta"])
        )
        figure(saved["summary"], RESULTS / f"calibration{suffix}.png", saved["meta"])
        return 0
    cfg = dict(SETTINGS[mode])
    if args.reps:
        cfg["reps"] = args.reps
    t_start = time.perf_counter()
    rows: list[dict] = []
    timing_total: dict[str, float] = {}
    RESULTS.mkdir(parents=True, exist_ok=True)
    partial = RESULTS / f"calibration{suffix}.partial.jsonl"
    run_key = {"seed": args.seed, **cfg, "methods": list(METHODS)}
    done: dict[int, dict] = {}
    if args.resume and partial.exists():
        for line in partial.read_text().splitlines():
            rec = json.loads(line)
            if rec["key"] == run_key:
                done[rec["index"]] = rec
    elif partial.exists():
        partial.unlink()
    seconds_before = sum(rec["seconds"] for rec in done.values())
    for i, sc in enumerate(scenarios()):
        if i in done:
            r, timing = done[i]["rows"], done[i]["timing"]
            rows += r
            for k, v in timing.items():
                timing_total[k] = timing_total.get(k, 0.0) + v
            continue
        t0 = time.perf_counter()
        r, timing = run_scenario(sc, i, args.seed, cfg)
        rows += r
        with partial.open("a") as fh:
            rec = {"key": run_key, "index": i, "rows": r, "timing": timing}
            fh.write(json.dumps({**rec, "seconds": time.perf_counter() - t0}) + "\n")
        for k, v in timing.items():
            timing_total[k] = timing_total.get(k, 0.0) + v
        print(
            f"[{i + 1:2d}/60] M={sc['M']:2d} {sc['prevalence']:10s} {sc['classifier']:6s} "
            f"N={sc['N']:5d}  {time.perf_counter() - t0:6.1f} s",
            flush=True,
        )
    seconds = time.perf_counter() - t_start + seconds_before
    meta = {
        "mode": mode,
        **cfg,
        "seed": args.seed,
        "level": LEVEL,
        "seconds": seconds,
        "seconds_by_method": timing_total,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared), "
        f"Python {platform.python_version()}, numpy {np.__version__}",
        "priors": {
            "uniform": "alpha = beta = 1",
            "Jeffreys": "alpha = beta = 0.5",
            "Perks": "alpha = beta = 1/M",
        },
        "classifiers": CLASSIFIERS,
        "prevalences": {f"M={m}": prevalences(m, "imbalanced").round(4).tolist() for m in MS},
    }
    summary = summarise(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"calibration{suffix}.json").write_text(
        json.dumps({"meta": meta, "summary": summary, "rows": rows}, indent=1)
    )
    (RESULTS / f"calibration{suffix}.md").write_text(markdown(rows, summary, meta))
    figure(summary, RESULTS / f"calibration{suffix}.png", meta)
    partial.unlink()  # complete: the per-scenario checkpoint is no longer needed
    print(f"done in {seconds:.0f} s; results in {RESULTS}/calibration{suffix}.*")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
