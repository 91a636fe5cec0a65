"""Calibration of :func:`f1posterior.compare_folds` (two classifiers across K folds) by simulation.

Known truth: binary classes, each fold's documents drawn independently; per document, A
and B are right or wrong with joint probabilities

    P(both right) = pB - c,  P(A right only) = c + d_k,  P(B right only) = c,
    P(both wrong) = 1 - pB - c - d_k,

so fold k's true accuracy difference is ``d_k = mu + tau z_k`` (``z_k`` a standard normal,
clipped to +-3, symmetric, so the mean over folds of the population is still ``mu``).
Each rep draws K folds of ``n`` documents and runs ``compare_folds``. Coverage of three
95% intervals, each of its own truth:

- ``these folds``: the mean difference over these folds against ``mean_k d_k`` (the
  decision's interval);
- ``population``: the random-effects mean against ``mu``;
- ``new fold``: the predictive interval against ``mu + tau z_new``.

Negative controls: the mean over these folds read as the population mean (what pooling the
folds claims) when the folds differ; the five separate verdicts of today's per-fold
``compare`` (the rate at which at least one fold's interval misses its own truth); and
the rate of a wrong decision by any single fold when A and B are equal on average.

Run: python benchmarks/folds_calibration.py [--quick]
 ->  benchmarks/results/folds_calibration{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import best_of, machine

from f1posterior import compare_folds

RESULTS = Path(__file__).resolve().parent / "results"
P_B, C = 0.75, 0.10  # B's accuracy and the rate at which only B is right


def simulate_folds(
    k: int, n: int, mu: float, tau: float, gen: np.random.Generator
) -> tuple[np.ndarray, ...]:
    """y, A, B, fold labels and the folds' true differences ``d`` (K,)."""
    d = mu + tau * np.clip(gen.standard_normal(k), -3.0, 3.0)
    if np.any(C + d < 0) or np.any(1 - P_B - C - d < 0):
        raise ValueError(f"difference out of the simulation's range: {d}")
    y = gen.integers(0, 2, k * n)
    fold = np.repeat(np.arange(k), n)
    probs = np.stack([P_B - C + 0 * d, C + d, C + 0 * d, 1 - P_B - C - d], axis=1)  # (K, 4)
    u = gen.random(k * n)
    cell = (u[:, None] > np.cumsum(probs[fold], axis=1)).sum(axis=1)
    a_right = (cell == 0) | (cell == 1)
    b_right = (cell == 0) | (cell == 2)
    a = np.where(a_right, y, 1 - y)
    b = np.where(b_right, y, 1 - y)
    return y, a, b, fold, d


def run_scenario(
    k: int,
    n: int,
    mu: float,
    tau: float,
    reps: int,
    draws: int,
    scale: str,
    seed: int,
    tau_scale: float | str = "auto",
) -> dict[str, Any]:
    gen = np.random.default_rng(seed)
    hits = dict(these=0, population=0, new=0, pooled_as_population=0, any_fold_misses=0)
    any_wrong_fold = wrong_decision = 0
    width = dict(these=0.0, population=0.0, new=0.0)
    for r in range(reps):
        y, a, b, fold, d = simulate_folds(k, n, mu, tau, gen)
        res = compare_folds(
            y, a, b, folds=fold, metric="accuracy", draws=draws, scale=scale, rng=seed + r,
            tau_scale=tau_scale,
        )  # fmt: skip
        new = mu + tau * float(np.clip(gen.standard_normal(), -3.0, 3.0))
        for key, s, truth in (
            ("these", res.difference, float(d.mean())),
            ("population", res.population, mu),
            ("new", res.predictive, new),
        ):
            lo, hi = s.hdi
            hits[key] += lo <= truth <= hi
            width[key] += hi - lo
        lo, hi = res.difference.hdi
        hits["pooled_as_population"] += lo <= mu <= hi
        fh = np.asarray(res.folds.hdi)
        hits["any_fold_misses"] += bool(np.any((d < fh[:, 0]) | (d > fh[:, 1])))
        if mu == 0.0:
            any_wrong_fold += bool(np.any((fh[:, 0] > 0) | (fh[:, 1] < 0)))
            wrong_decision += res.decision in ("A better", "B better")
    out: dict[str, Any] = dict(k=k, n=n, mu=mu, tau=tau, reps=reps, draws=draws, scale=scale,
                               tau_scale=tau_scale)  # fmt: skip
    for key, h in hits.items():
        out[key] = float(h) / reps
    for key, w in width.items():
        out[f"width_{key}"] = float(w) / reps
    if mu == 0.0:
        out["any_fold_says_better"] = any_wrong_fold / reps
        out["decision_says_better"] = wrong_decision / reps
    out["se"] = math.sqrt(0.95 * 0.05 / reps)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of the docs: coverage of each interval of its own truth."""
    head = (
        "| scale | tau prior | K | mu | tau | these folds | population | new fold | "
        "these folds read as population (neg.) | any fold's HDI misses (neg.) | "
        "width: these folds | width: population |"
    )
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        a = r["tau_scale"]  # "auto": the default rule; a number: the earlier half-normal
        prior = "half-Cauchy(3 s)" if a == "auto" else f"half-normal({a:g})"
        cells = [r["scale"], prior, str(r["k"]), f"{r['mu']:g}", f"{r['tau']:g}"]
        keys = ("these", "population", "new", "pooled_as_population", "any_fold_misses",
                "width_these", "width_population")  # fmt: skip
        cells += [f"{r[c]:.3f}" for c in keys]
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def timing(draws: int = 50_000, repeat: int = 3) -> dict[str, float]:
    """Seconds (best of ``repeat``) of compare_folds on 5 folds of 1,800 documents of 10
    classes, against evaluate and compare_predictions on the same documents."""
    from f1posterior import compare_predictions, confusion_matrix, evaluate

    gen = np.random.default_rng(0)
    n, m = 1800, 10
    y = gen.integers(0, m, n)
    a = np.where(gen.random(n) < 0.95, y, gen.integers(0, m, n))
    b = np.where(gen.random(n) < 0.93, y, gen.integers(0, m, n))
    fold = np.repeat(np.arange(5), n // 5)
    cm = confusion_matrix(y, a).counts
    calls = {
        "evaluate (one table, macro_f1)": lambda: evaluate(cm, metrics=["macro_f1"], draws=draws),
        "compare_predictions (all documents)": lambda: compare_predictions(y, a, b, draws=draws),
        "compare_folds (5 folds)": lambda: compare_folds(y, a, b, folds=fold, draws=draws),
    }
    out = {}
    for name, call in calls.items():
        best = out[name] = best_of(call, repeat)
        print(f"{name}: {best:.3f} s", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer reps")
    ap.add_argument("--table", action="store_true", help="rewrite the .md from the saved .json")
    ap.add_argument("--timing", action="store_true", help="time the call against evaluate")
    args = ap.parse_args()
    if args.timing:
        out = timing()
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "folds_timing.json").write_text(json.dumps(dict(machine=machine(), seconds=out),
                                                              indent=2))  # fmt: skip
        return
    name = "folds_calibration" + ("_quick" if args.quick else "")
    if args.table:
        rows = json.loads((RESULTS / f"{name}.json").read_text())["rows"]
        (RESULTS / f"{name}.md").write_text(table(rows))
        return
    reps = 200 if args.quick else 1000
    draws = 2000
    truths = ((0.03, 0.0), (0.03, 0.02), (0.03, 0.04), (0.0, 0.02))
    # the default prior of tau (aggregate's rule: half-Cauchy, 3 x the folds' typical sd)
    scenarios: list[tuple[int, int, float, float, str, float | str]] = [
        (k, 300, mu, tau, "identity", "auto") for k in (5, 10) for mu, tau in truths
    ]
    scenarios += [(5, 300, mu, tau, "fisher_z", "auto") for mu, tau in truths]
    rows = []
    t0 = time.perf_counter()
    for i, (k, n, mu, tau, scale, a) in enumerate(scenarios):
        row = run_scenario(k, n, mu, tau, reps, draws, scale, seed=1000 * i + 7, tau_scale=a)
        rows.append(row)
        print(
            f"{scale:>8} A={a} K={k:>2} mu={mu:.2f} tau={tau:.2f}: these {row['these']:.3f}  "
            f"population {row['population']:.3f}  new {row['new']:.3f}  "
            f"[neg] these-as-population {row['pooled_as_population']:.3f}  "
            f"any fold misses {row['any_fold_misses']:.3f}"
            + (
                f"  any fold says better {row['any_fold_says_better']:.3f}  decision "
                f"{row['decision_says_better']:.3f}"
                if mu == 0.0
                else ""
            ),
            flush=True,
        )
    elapsed = time.perf_counter() - t0
    RESULTS.mkdir(exist_ok=True)
    meta = dict(machine=machine(), seconds=round(elapsed, 1), reps=reps, draws=draws)
    (RESULTS / f"{name}.json").write_text(json.dumps(dict(meta=meta, rows=rows), indent=2))
    (RESULTS / f"{name}.md").write_text(table(rows))
    print(f"{elapsed:.0f} s; {RESULTS / name}.json")


if __name__ == "__main__":
    main()
