"""How often is a relative margin wrong? False-PASS and false-FAIL rates by simulation.

A baseline with a known confusion-probability matrix ``P`` and a new model ``Q``
whose recalls are lower (:func:`gate_error_rates.worse`) are tested on two
independent test sets of ``n`` documents each, ``C ~ Multinomial(n, P)``, and
gated with ``NonInferiority(metric, R, relative=True)`` (``--max-relative-drop
R``), the default prior and ``prob = 0.95``. The truth is the ratio of the
population metrics, ``metric(Q) / metric(P)`` (:func:`gate_error_rates.true_metric`):
above ``1 - R`` a FAIL is wrong (false FAIL), below it a PASS is wrong (false
PASS); at ``1 - R`` a calibrated gate passes about 5% of the time. The staged
draws are those of benchmarks/gate_error_rates.py (4,000, then 64,000 draws for
a check within Monte Carlo noise, then the gate's defaults alone).

Run: python benchmarks/relative_margin_error_rates.py [--quick] [--sims R]
 ->  benchmarks/results/relative_margin_error_rates{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import machine
from gate_error_rates import MODELS, STAGES, machine_line, pct, true_metric, worse

from f1posterior import NonInferiority
from f1posterior.gating._gate import gate

RESULTS = Path(__file__).parent / "results"
PROB = 0.95
#: (model, metric, documents per test set, R); the new model's true ratio is set to
#: 1 + k R for each k of RATIOS (micro-F1 exactly; macro-F1 as it comes out, reported).
SCENARIOS = (
    ("binary", "micro_f1", 300, 0.05),
    ("5-class", "micro_f1", 1000, 0.03),
    ("5-class", "macro_f1", 1000, 0.05),
)
RATIOS = (0.0, -0.5, -1.0, -1.5, -2.0)


def verdicts(new: np.ndarray, base: np.ndarray, check: NonInferiority, seed: int) -> list[str]:
    """The verdict of each pair of test sets, with the staged draws (module docstring)."""
    out: list[str | None] = [None] * len(new)
    todo = np.arange(len(new))
    for stage, draws in enumerate(STAGES):
        if todo.size == 0:
            break
        res = gate(new[todo], [check], baseline=base[todo], prob=PROB, draws=draws,
                   max_draws=draws, rng=np.random.SeedSequence([seed, stage]))  # fmt: skip
        noisy = []
        for i, c in zip(todo, res.checks, strict=True):
            if c.within_noise:
                noisy.append(i)
            else:
                out[i] = c.verdict
        todo = np.array(noisy, dtype=int)
    for i in todo:
        rng = np.random.SeedSequence([seed, 99, int(i)])
        out[i] = gate(new[i], [check], baseline=base[i], prob=PROB, rng=rng).checks[0].verdict
    return [v for v in out if v is not None]


def rates(v: list[str]) -> dict[str, float]:
    r = len(v)
    out: dict[str, float] = {"sims": r}
    for word in ("pass", "fail", "inconclusive"):
        rate = sum(x == word for x in v) / r
        out[word], out[f"{word}_se"] = rate, math.sqrt(rate * (1 - rate) / r)
    return out


def run(sims: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for s, (model, metric, n, r) in enumerate(SCENARIOS):
        p = MODELS[model]
        base_truth = true_metric(p, metric)
        rng = np.random.default_rng([seed, s])
        base = rng.multinomial(n, p.ravel(), size=sims).reshape(sims, *p.shape)
        for k, step in enumerate(RATIOS):
            # the accuracy drop that puts micro-F1 (= accuracy) at ratio 1 + step * r
            drop = float(np.trace(p)) * (-step * r)
            q = worse(p, drop)
            ratio = true_metric(q, metric) / base_truth
            new = rng.multinomial(n, q.ravel(), size=sims).reshape(sims, *p.shape)
            check = NonInferiority(metric, r, relative=True)
            gap = ratio - (1 - r)
            expected = "boundary" if abs(gap) < 1e-9 else "pass" if gap > 0 else "fail"
            rows.append({
                "model": model, "metric": metric, "n": n, "R": r, "true_ratio": ratio,
                "expected": expected, **rates(verdicts(new, base, check, seed * 100 + 10 * s + k)),
            })  # fmt: skip
    return rows


def markdown(rows: list[dict[str, Any]], info: dict[str, Any]) -> str:
    lines = [
        f"Relative-margin error rates: {info['sims']} simulated pairs of test sets per row, "
        f"prob = {PROB}, default prior; rates in % ± one binomial standard error.",
        "",
        "| model | metric | n | R | true new/base | should | PASS % | FAIL % | wrong % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        exp = row["expected"]
        wrong = {"pass": ("fail", "fail_se"), "fail": ("pass", "pass_se")}.get(exp)
        lines.append(
            f"| {row['model']} | {row['metric']} | {row['n']} | {row['R']:g} | "
            f"{row['true_ratio']:.4f} | {exp} | {pct(row['pass'], row['pass_se'])} | "
            f"{pct(row['fail'], row['fail_se'])} | "
            f"{pct(row[wrong[0]], row[wrong[1]]) if wrong else '—'} |"
        )
    return "\n".join([*lines, "", machine_line(info), ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="100 simulated pairs per row")
    ap.add_argument("--sims", type=int, default=None, help="simulated pairs per row (400)")
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    sims = a.sims or (100 if a.quick else 400)
    t0 = time.perf_counter()
    rows = run(sims, a.seed)
    info = {"sims": sims, "prob": PROB, "seed": a.seed, "stages": STAGES,
            "seconds": time.perf_counter() - t0, "machine": machine()}  # fmt: skip
    stem = "relative_margin_error_rates" + ("_quick" if a.quick else "")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps({**info, "rows": rows}, indent=2) + "\n")
    md = markdown(rows, info)
    (RESULTS / f"{stem}.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
