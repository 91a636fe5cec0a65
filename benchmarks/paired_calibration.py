"""Calibration of the paired model (two classifiers on the same documents) by simulation.

Each scenario is a known joint distribution ``p[t, a, b]`` of (true class, A's prediction,
B's prediction): class prevalences ``pi``, A's confusion rows ``P_A[t]``, and B that
copies A's prediction with probability ``rho`` and otherwise predicts independently
from its own rows ``P_B[t]``::

    p[t, a, b] = pi_t (rho P_A[t, a] [a == b] + (1 - rho) P_A[t, a] P_B[t, b])

The truth is the metric of the population tables: ``metric(sum_b p) - metric(sum_a p)``
(the quantity whose posterior the paired model gives). Test sets of ``n`` documents are
drawn from ``p`` and compared with :func:`f1posterior.compare_predictions` under its
default prior. Per scenario and metric:

- coverage of the 95% HDI of the difference;
- shrinkage: 1 - (mean posterior mean) / (mean observed difference), when the truth is
  not 0;
- the non-inferiority gate's verdicts (``new = A``, ``baseline = B``, ``P = P(diff >=
  -max_drop)``, PASS at ``P >= 0.95``, FAIL at ``P <= 0.05``, the gate's rule without its
  re-run inside Monte Carlo noise): false FAIL when the truth is ``>= -max_drop``, false
  PASS when it is ``< -max_drop``.

And the real-data check: scikit-learn's digits, a 360-document test split, logistic
regression against a random forest (observed macro-F1 difference against the posterior
mean).

Run: python benchmarks/paired_calibration.py [--quick]
 ->  benchmarks/results/paired_calibration{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _common import machine

from f1posterior import compare_predictions
from f1posterior.analysis._tuples import DEFAULT_AGREE, paired_alpha, shared_error_tuples
from f1posterior.metrics._registry import METRICS

RESULTS = Path(__file__).resolve().parent / "results"
#: Non-inferiority margins of the gate rates.
MAX_DROPS = (0.0, 0.01)


def rows(m: int, acc: Any) -> np.ndarray:
    """Confusion rows (M, M): recall ``acc[t]`` on the diagonal, errors spread evenly."""
    acc = np.broadcast_to(np.asarray(acc, dtype=float), (m,))
    out = np.repeat(((1 - acc) / (m - 1))[:, None], m, axis=1)
    np.fill_diagonal(out, acc)
    return out


def joint(pi: np.ndarray, pa: np.ndarray, pb: np.ndarray, rho: float) -> np.ndarray:
    """``p[t, a, b]`` of the module docstring."""
    copy = np.einsum("ta,ab->tab", pa, np.eye(len(pi)))
    indep = np.einsum("ta,tb->tab", pa, pb)
    return pi[:, None, None] * (rho * copy + (1 - rho) * indep)


@dataclass(frozen=True)
class Scenario:
    name: str
    p: np.ndarray
    n: int

    def truth(self, metric: str) -> float:
        fn = METRICS[metric]
        return float(fn(self.p.sum(axis=2)) - fn(self.p.sum(axis=1)))


def scenarios() -> list[Scenario]:
    u3, eq3 = np.ones(3) / 3, rows(3, 0.85)
    m10 = np.random.default_rng(5).uniform(0.9, 0.99, 10)
    u10, good10, weak10 = np.ones(10) / 10, rows(10, m10), rows(10, m10 - 0.12)
    pi5 = np.array([0.5, 0.25, 0.12, 0.08, 0.05])
    r5 = rows(5, np.array([0.95, 0.85, 0.8, 0.7, 0.6]))
    return [
        Scenario("3 classes, equal, 300 docs, rho 0.8", joint(u3, eq3, eq3, 0.8), 300),
        Scenario(
            "3 classes, equal, 1,200 docs, rho 0.99 (~3 disagreements)",
            joint(u3, eq3, eq3, 0.99),
            1200,
        ),
        Scenario(
            "10 classes, A better, 360 docs (digits-like)", joint(u10, good10, weak10, 0.75), 360
        ),
        Scenario("10 classes, A worse, 500 docs", joint(u10, weak10, good10, 0.75), 500),
        Scenario("5 classes imbalanced, equal, 500 docs, rho 0.7", joint(pi5, r5, r5, 0.7), 500),
    ]


def variant_alpha(name: str, m: int) -> np.ndarray | None:
    """A joint (M, M^2) prior of one of the alternatives the default was chosen against.

    ``"independent"``: the default marginal with each classifier right with probability
    1/2 independently (agreement at full weight: half the pseudo-documents on
    disagreements); ``"disagreement only"``: all of them on disagreements; ``"one per
    class"``: the default's shares with one pseudo-document per true class (M in all, not
    3); ``"concordant"``: the former prior, the default marginal on the tuples (t, u, u)
    only. Cells the alternative leaves empty get 1e-12 (a joint array must be > 0).
    """
    if name == "default":
        return None
    a = paired_alpha(m)
    if name == "one per class":
        a = a * m / a.sum()
        name = "default shares"
    out = np.full((m, m, m), 1e-12)
    if name == "concordant":
        for u in range(m):
            out[:, u, u] = a[:, u]
        return out.reshape(m, m * m)
    agree = {"independent": 1.0, "disagreement only": 0.0, "default shares": DEFAULT_AGREE}
    cells, conc = shared_error_tuples(a, 2, agree[name])
    out[cells[:, 0], cells[:, 1], cells[:, 2]] = np.maximum(conc, 1e-12)
    return out.reshape(m, m * m)


def run(
    sc: Scenario, metric: str, sims: int, draws: int, seed: int = 0, prior: str = "default"
) -> dict[str, Any]:
    m = sc.p.shape[0]
    alpha = variant_alpha(prior, m)
    kw = {} if alpha is None else {"alpha": alpha}
    truth = sc.truth(metric)
    rng = np.random.default_rng(seed)
    cells = np.array(list(np.ndindex(m, m, m)))
    flat = sc.p.ravel() / sc.p.sum()
    cover = 0
    fails = dict.fromkeys(MAX_DROPS, 0)
    passes = dict.fromkeys(MAX_DROPS, 0)
    post, obs = [], []
    for i in range(sims):
        t, a, b = cells[rng.choice(len(cells), size=sc.n, p=flat)].T
        r = compare_predictions(t, a, b, metric=metric, labels=list(range(m)), draws=draws,
                                rng=np.random.SeedSequence([seed, i]), **kw)  # fmt: skip
        lo, hi = r.difference.hdi
        cover += bool(lo <= truth <= hi)
        for d in MAX_DROPS:
            pr = float(np.mean(r.draws >= -d))
            fails[d] += pr <= 0.05
            passes[d] += pr >= 0.95
        post.append(float(r.difference.mean))
        obs.append(float(r.difference.score))
    out: dict[str, Any] = {
        "scenario": sc.name,
        "prior": prior,
        "metric": metric,
        "n": sc.n,
        "sims": sims,
        "draws": draws,
        "truth": truth,
        "coverage": cover / sims,
        "coverage_se": math.sqrt(0.95 * 0.05 / sims),
        "mean_observed": float(np.mean(obs)),
        "mean_posterior": float(np.mean(post)),
        # a FAIL is false when the truth is >= -max_drop, a PASS when it is below
        "false_fail": {str(d): fails[d] / sims for d in MAX_DROPS if truth >= -d},
        "false_pass": {str(d): passes[d] / sims for d in MAX_DROPS if truth < -d},
    }
    if abs(truth) > 1e-9:
        out["shrinkage"] = 1 - out["mean_posterior"] / out["mean_observed"]
    return out


def digits(draws: int) -> dict[str, Any]:
    """Logistic regression against a random forest on scikit-learn's digits (360 documents)."""
    from sklearn.datasets import load_digits
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=360, random_state=0, stratify=y)
    lr = LogisticRegression(max_iter=5000).fit(xtr, ytr).predict(xte)
    rf = RandomForestClassifier(n_estimators=200, random_state=0).fit(xtr, ytr).predict(xte)
    r = compare_predictions(yte, lr, rf, metric="macro_f1", rope=0.01, draws=draws, rng=0)
    return {
        "observed": float(r.difference.score),
        "posterior_mean": float(r.difference.mean),
        "hdi": [float(v) for v in r.difference.hdi],
        "p_a_better": float(r.p_a_better),
        "p_b_better": float(r.p_b_better),
        "decision_rope_0.01": r.decision,
        "disagreements": int(np.sum(lr != rf)),
    }


def markdown(res: dict[str, Any]) -> str:
    lines = [
        f"# Paired-model calibration ({res['sims']} test sets a cell, {res['draws']:,} draws)",
        "",
        "| scenario | metric | truth | HDI coverage | observed | posterior mean | shrinkage "
        "| false FAIL (max_drop 0 / 0.01) | false PASS (max_drop 0 / 0.01) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def f(v: Any, fmt: str = ".3f") -> str:
        return "-" if v is None else format(v, fmt)

    def rates(v: dict[str, float]) -> str:
        return " / ".join(f(v.get(str(d))) for d in MAX_DROPS)

    for r in res["rows"] + res.get("variants", []):
        if r["prior"] != "default" and r is res["variants"][0]:
            lines += ["", "Alternative priors (k = 2, micro-F1):", "", *lines[2:4]]
        lines.append(
            f"| {r['scenario']}{'' if r['prior'] == 'default' else ', ' + r['prior']} | "
            f"{r['metric']} | {r['truth']:+.4f} | {r['coverage']:.3f} | "
            f"{r['mean_observed']:+.4f} | {r['mean_posterior']:+.4f} | "
            f"{f(r.get('shrinkage'), '.1%')} | {rates(r['false_fail'])} | "
            f"{rates(r['false_pass'])} |"
        )
    d = res.get("digits")
    if d:
        lines += [
            "",
            f"digits, logistic regression vs random forest, 360 documents ({d['disagreements']} "
            f"disagreements): observed macro-F1 difference {d['observed']:+.4f}, posterior "
            f"mean {d['posterior_mean']:+.4f}, 95% HDI [{d['hdi'][0]:+.4f}, {d['hdi'][1]:+.4f}], "
            f"P(B better) {d['p_b_better']:.3f}, decision at rope 0.01: {d['decision_rope_0.01']}",
        ]
    lines += ["", f"Wall time {res['seconds']:.0f} s; machine: {json.dumps(res['machine'])}", ""]
    return "\n".join(lines)


def only_variant(prior: str, sims: int) -> None:
    t0 = time.perf_counter()
    out = []
    for sc in scenarios()[1:3]:
        for metric in ("micro_f1", "macro_f1"):
            out.append(run(sc, metric, sims, 4000, prior=prior))
            print(json.dumps(out[-1]), flush=True)
    res = {"benchmark": "paired_calibration variant", "prior": prior, "rows": out,
           "seconds": time.perf_counter() - t0, "machine": machine()}  # fmt: skip
    (RESULTS / "paired_calibration_variant.json").write_text(json.dumps(res, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="50 test sets a cell")
    ap.add_argument("--sims", type=int, default=None)
    ap.add_argument("--variants", action="store_true", help="also the alternative priors (slower)")
    ap.add_argument(
        "--only-variant",
        default=None,
        help="just this alternative prior on the variant scenarios -> paired_calibration_variant",
    )
    args = ap.parse_args()
    if args.only_variant:
        only_variant(args.only_variant, args.sims or 400)
        return
    sims = args.sims or (50 if args.quick else 200)
    draws = 4000
    t0 = time.perf_counter()
    out_rows = []
    for sc in scenarios():
        for metric in ("micro_f1", "macro_f1"):
            out_rows.append(run(sc, metric, sims, draws))
            print(json.dumps(out_rows[-1]), flush=True)
    variants = []
    if args.variants:
        picks = [scenarios()[1], scenarios()[2]]
        for prior in ("independent", "disagreement only", "concordant"):
            for sc in picks:
                variants.append(run(sc, "micro_f1", min(sims, 400), draws, prior=prior))
                print(json.dumps(variants[-1]), flush=True)
    res = {
        "benchmark": "paired_calibration",
        "variants": variants,
        "sims": sims,
        "draws": draws,
        "rows": out_rows,
        "digits": digits(50_000),
        "seconds": time.perf_counter() - t0,
        "machine": machine(),
        "note": "2 cores shared with other jobs",
    }
    stem = "paired_calibration_quick" if args.quick else "paired_calibration"
    (RESULTS / f"{stem}.json").write_text(json.dumps(res, indent=1) + "\n")
    (RESULTS / f"{stem}.md").write_text(markdown(res))
    print(markdown(res))


if __name__ == "__main__":
    main()
