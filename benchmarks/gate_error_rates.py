"""How often is the gate wrong? False-FAIL and false-PASS rates by simulation.

Each scenario is a classifier with a known confusion-probability matrix ``P``
(``P[j, k]`` = probability that a document of true class ``j`` is predicted
``k``; the cells sum to 1). Test sets of ``n`` documents are drawn from it,
``C ~ Multinomial(n, P)``, and gated with the default prior
(``alpha = beta = "adaptive"``) and ``prob = 0.95``.

The truth is the population metric, a function of ``P`` alone:

- micro-F1 of a single-label classifier = accuracy = sum_j P[j, j];
- macro-F1 = the mean over classes of 2 P[j, j] / (P[j, :].sum() + P[:, j].sum()),
  the F1 of the expected table ``n P`` (the quantity whose posterior the gate
  computes; not the expected macro-F1 of a test set, which differs at small n).

A floor ``T`` below the truth should PASS (a FAIL is a false FAIL); above the
truth it should FAIL (a PASS is a false PASS); at the truth a calibrated gate is
mostly INCONCLUSIVE and PASSES or FAILS about 5% of the time each. The baseline
scenarios are non-inferiority tests with margin D on two independent test sets
(the model of a gate on two confusion matrices).

Monte Carlo draws: every check is first gated in a batch with 4,000 draws; a
check within the gate's Monte Carlo noise (3 standard errors of 0.95 or 0.05)
is gated again with 64,000 draws and, if still within it, alone with the gate's
defaults (50,000 draws, adaptive up to 1,000,000). This is the gate's own rule
(no verdict inside Monte Carlo noise) with cheaper first rounds.

Run: python benchmarks/gate_error_rates.py [--quick] [--sims R]
 ->  benchmarks/results/gate_error_rates{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from _common import machine

from f1posterior import Floor, NonInferiority
from f1posterior.gating._gate import gate

RESULTS = Path(__file__).parent / "results"
PROB = 0.95
STAGES = (4_000, 64_000)  # fixed-draw batch rounds before a check is gated alone


def confusion_probabilities(prevalence: Any, recall: Any) -> np.ndarray:
    """P[j, k]: class j with probability prevalence[j], right with probability recall[j],
    its errors spread evenly over the other classes."""
    mu = np.asarray(prevalence, float)
    r = np.asarray(recall, float)
    m = mu.size
    theta = np.where(np.eye(m, dtype=bool), r[:, None], ((1.0 - r) / (m - 1))[:, None])
    return mu[:, None] * theta


def true_metric(p: np.ndarray, metric: str) -> float:
    """The population metric of the probability matrix ``p`` (see the module docstring)."""
    if metric == "micro_f1":
        return float(np.trace(p))
    if metric == "macro_f1":
        d = np.diag(p)
        return float(np.mean(2.0 * d / (p.sum(axis=1) + p.sum(axis=0))))
    raise ValueError(metric)


MODELS = {
    "binary": confusion_probabilities([0.6, 0.4], [0.9, 0.78]),
    "5-class": confusion_probabilities([0.35, 0.25, 0.2, 0.12, 0.08], [0.9, 0.85, 0.8, 0.7, 0.6]),
}


@dataclass
class Scenario:
    name: str
    model: str
    metric: str
    n: int
    kind: str  # "floor" or "baseline"
    offsets: tuple[float, ...] = ()  # floors: T = truth + offset
    margin: float = 0.0  # baseline: D
    drops: tuple[float, ...] = ()  # baseline: true drop of the new model's accuracy
    rows: list[dict[str, Any]] = field(default_factory=list)


def scenarios() -> list[Scenario]:
    out = []
    deltas = {100: (0.10, 0.03), 1000: (0.03, 0.01)}
    for model, metric in (("binary", "micro_f1"), ("5-class", "micro_f1"), ("5-class", "macro_f1")):
        for n, (big, small) in deltas.items():
            out.append(
                Scenario(
                    f"{model} {metric} n={n}",
                    model,
                    metric,
                    n,
                    "floor",
                    offsets=(-big, -small, 0.0, small, big),
                )
            )
    for n, d in ((100, 0.05), (1000, 0.02)):
        out.append(
            Scenario(
                f"5-class micro_f1 vs baseline n={n}",
                "5-class",
                "micro_f1",
                n,
                "baseline",
                margin=d,
                drops=(0.0, d, 2 * d, 3 * d),
            )
        )
    return out


def worse(p: np.ndarray, drop: float) -> np.ndarray:
    """A model whose recalls are all ``drop`` lower: its accuracy is exactly ``drop`` lower."""
    mu = p.sum(axis=1)
    return confusion_probabilities(mu, np.diag(p) / mu - drop)


def _verdicts(
    counts: np.ndarray, base: np.ndarray | None, metric: str, t: float, seed: int
) -> list[str]:
    """The gate's verdict on each matrix of ``counts``, with the staged draws (module doc)."""
    kw: dict[str, Any] = {"prob": PROB}
    if base is None:
        kw["checks"] = [Floor(metric, t)]
    else:
        kw["checks"] = [NonInferiority(metric, -t)]
    verdicts: list[str | None] = [None] * len(counts)
    todo = np.arange(len(counts))
    for stage, draws in enumerate(STAGES):
        if todo.size == 0:
            break
        res = gate(
            counts[todo],
            baseline=None if base is None else base[todo],
            draws=draws,
            max_draws=draws,
            rng=np.random.SeedSequence([seed, stage]),
            **kw,
        )
        assert len(res.checks) == todo.size
        noisy = []
        for i, c in zip(todo, res.checks, strict=True):
            if c.within_noise:
                noisy.append(i)
            else:
                verdicts[i] = c.verdict
        todo = np.array(noisy, dtype=int)
    for i in todo:  # alone, with the gate's defaults
        c = gate(
            counts[i],
            baseline=None if base is None else base[i],
            rng=np.random.SeedSequence([seed, 99, int(i)]),
            **kw,
        ).checks[0]
        verdicts[i] = c.verdict
    return [v for v in verdicts if v is not None]


def _rates(verdicts: list[str]) -> dict[str, Any]:
    r = len(verdicts)
    out: dict[str, Any] = {"sims": r}
    for v in ("pass", "fail", "inconclusive"):
        k = sum(x == v for x in verdicts)
        rate = k / r
        out[v] = rate
        out[f"{v}_se"] = math.sqrt(rate * (1.0 - rate) / r)
    return out


def run(s: Scenario, sims: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = MODELS[s.model]
    truth = true_metric(p, s.metric)
    counts = rng.multinomial(s.n, p.ravel(), size=sims).reshape(sims, *p.shape)
    if s.kind == "floor":
        for k, off in enumerate(s.offsets):
            t = truth + off
            expected = "pass" if off < 0 else "fail" if off > 0 else "either (boundary)"
            v = _verdicts(counts, None, s.metric, t, seed * 100 + k)
            s.rows.append(
                {"truth": truth, "offset": off, "threshold": t, "expected": expected, **_rates(v)}
            )
        return
    for k, drop in enumerate(s.drops):
        q = worse(p, drop)
        new = rng.multinomial(s.n, q.ravel(), size=sims).reshape(sims, *p.shape)
        diff = true_metric(q, s.metric) - truth
        expected = (
            "pass" if diff > -s.margin + 1e-12 else "fail" if diff < -s.margin - 1e-12 else "either"
        )
        if abs(diff + s.margin) < 1e-12:
            expected = "either (boundary)"
        v = _verdicts(new, counts, s.metric, -s.margin, seed * 100 + k)
        s.rows.append(
            {
                "truth": diff,
                "baseline_truth": truth,
                "margin": s.margin,
                "threshold": -s.margin,
                "expected": expected,
                **_rates(v),
            }
        )


def pct(rate: float, se: float) -> str:
    """A rate and its standard error, in percent."""
    return f"{100 * rate:.1f} ± {100 * se:.1f}"


def machine_line(info: dict[str, Any]) -> str:
    """The table's footer: the machine of ``info["machine"]`` and ``info["seconds"]``."""
    m = info["machine"]
    return (
        f"Machine: {m['cpu_model'] or m['cpu']}, {m['cores']} cores, Python {m['python']}, "
        f"NumPy {m['numpy']}; {info['seconds']:.0f} s wall time."
    )


def markdown(scen: list[Scenario], sims: int, info: dict[str, Any]) -> str:
    lines = [
        f"Gate error rates: {sims} simulated test sets per row, prob = {PROB}, default prior "
        "(adaptive); rates in % ± one binomial standard error. "
        "Wrong = FAIL where PASS is right (false FAIL) or PASS where FAIL is right (false PASS).",
        "",
        "| scenario | truth | check | should | PASS % | FAIL % | INCONCLUSIVE % | wrong % |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in scen:
        for row in s.rows:
            if s.kind == "floor":
                check = f"min T = {row['threshold']:.3f} (truth {row['offset']:+.2f})"
                truth = f"{row['truth']:.3f}"
            else:
                check = f"new − base ≥ −{s.margin:g} (true diff {row['truth']:+.3f})"
                truth = f"base {row['baseline_truth']:.3f}"
            exp = row["expected"]
            if exp == "pass":
                wrong = pct(row["fail"], row["fail_se"])
            elif exp == "fail":
                wrong = pct(row["pass"], row["pass_se"])
            else:
                wrong = "—"
            lines.append(
                f"| {s.name} | {truth} | {check} | {exp.split()[0]} | "
                f"{pct(row['pass'], row['pass_se'])} | {pct(row['fail'], row['fail_se'])} | "
                f"{pct(row['inconclusive'], row['inconclusive_se'])} | {wrong} |"
            )
    return "\n".join([*lines, "", machine_line(info), ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="100 simulated test sets per row")
    ap.add_argument("--sims", type=int, default=None, help="simulated test sets per row (400)")
    ap.add_argument("--seed", type=int, default=2024)
    a = ap.parse_args()
    sims = a.sims or (100 if a.quick else 400)
    t0 = time.perf_counter()
    scen = scenarios()
    for i, s in enumerate(scen):
        t1 = time.perf_counter()
        run(s, sims, a.seed + i)
        print(f"{s.name}: {time.perf_counter() - t1:.1f} s", flush=True)
    info = {
        "sims": sims,
        "prob": PROB,
        "prior": "adaptive (gate default)",
        "stages": STAGES,
        "seed": a.seed,
        "seconds": time.perf_counter() - t0,
        "machine": machine(),
    }
    doc = {
        **info,
        "scenarios": [
            {
                "name": s.name,
                "model": s.model,
                "P": MODELS[s.model].tolist(),
                "metric": s.metric,
                "n": s.n,
                "kind": s.kind,
                "rows": s.rows,
            }
            for s in scen
        ],
    }
    stem = "gate_error_rates_quick" if a.quick else "gate_error_rates"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(doc, indent=2) + "\n")
    md = markdown(scen, sims, info)
    (RESULTS / f"{stem}.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
