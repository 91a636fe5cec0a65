"""Calibration of the gate's slice check (``SliceFloor``) by simulation from known truths.

Each slice is a 3-class population: uniform prevalences, the true class predicted with
probability ``a`` and each wrong class with ``(1 - a) / 2``, so every slice's true
macro-F1 is ``a`` (computed from the population table, not assumed). Test sets of ``n``
documents per slice are drawn from it and gated with ``SliceFloor("macro_f1", T)`` under
the default prior, with the gate's own judge (adaptive draws included). Per scenario:

- ``joint``: the joint row, ``P(every slice >= T)``: its PASS rate, and the gate's FAIL
  rate under the shipped rule (``fail``: a slice row FAILs at ``P(slice < T) >= 1 -
  (1 - prob) / S``, Bonferroni over the slices, and the joint row only when a slice row
  does);
- the FAIL rules it replaced, recomputed from the same rows' probabilities (without the
  Monte Carlo noise band): ``fail_min``, the joint row FAILs when ``P(some slice < T) >=
  prob`` (the minimum of the slices' posteriors); ``fail_any``, when some slice has
  ``P(slice < T) >= prob`` (no multiplicity correction);
- ``each``: the rule "PASS when every slice passes on its own" (the per-slice rows);
- ``pooled`` (negative control): one floor on the pooled documents of all slices, what
  a gate without slices checks.

A false PASS is a PASS when the smallest true slice metric is at or below ``T``; its
rate must stay at or below ``1 - prob``. A false FAIL is a FAIL when no slice is truly
below ``T`` (every slice at or above it); its rate must stay at or below ``1 - prob``
too. Power is the FAIL rate when a slice is below ``T``.

Run: python benchmarks/slice_calibration.py [--quick]
 ->  benchmarks/results/slice_calibration{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from f1posterior import Floor, SliceFloor, gate
from f1posterior.metrics import METRICS

RESULTS = Path(__file__).resolve().parent / "results"
FLOOR = 0.80
#: Scenarios: name -> (accuracy a of the first slice, a of the others).
SCENARIOS = {
    "one slice at the floor": (0.80, 0.88),
    "every slice at the floor": (0.80, 0.80),
    "one slice below the floor": (0.78, 0.88),
    "one slice far below the floor": (0.74, 0.88),
    "every slice 0.01 above the floor": (0.81, 0.81),
    "every slice just above the floor": (0.83, 0.83),
    "every slice 0.05 above the floor": (0.85, 0.85),
    "every slice above the floor": (0.88, 0.88),
}
#: Slices per test set in the full study.
SLICES = (2, 5, 10, 20)
#: The boundary of the FAIL side (every slice exactly at the floor) gets more test sets,
#: and a row with one slice: the plain floor's own rates at its boundary, for reference.
BOUNDARY = "every slice at the floor"


def population(a: float, m: int = 3) -> np.ndarray:
    """Cell probabilities ``(m, m)``: uniform prevalences, ``a`` on the diagonal of each row."""
    rows = np.full((m, m), (1.0 - a) / (m - 1))
    np.fill_diagonal(rows, a)
    return rows / m


def truth(a: float, metric: str = "macro_f1") -> float:
    """The metric of the population table (scale-free: probabilities as counts)."""
    return float(METRICS[metric](population(a)))


@dataclass(frozen=True)
class Rates:
    """Verdict rates of one scenario over ``reps`` simulated test sets."""

    scenario: str
    slices: int
    n: int
    reps: int
    min_truth: float
    joint_pass: float
    joint_fail: float
    fail_min: float
    fail_any: float
    each_pass: float
    pooled_pass: float
    seconds: float

    def se(self, rate: float) -> float:
        """Binomial standard error of a rate of this scenario."""
        return math.sqrt(max(rate * (1 - rate), 1e-12) / self.reps)


def simulate(
    scenario: str,
    slices: int,
    n: int,
    reps: int,
    seed: int,
    draws: int = 10_000,
    max_draws: int = 80_000,
    prob: float = 0.95,
) -> Rates:
    """Rates of the joint, per-slice and pooled verdicts in one scenario."""
    first, rest = SCENARIOS[scenario]
    probs = np.stack([population(first)] + [population(rest)] * (slices - 1)).reshape(slices, -1)
    rng = np.random.default_rng(seed)
    seeds = np.random.SeedSequence(seed).spawn(reps)
    names = [f"s{i}" for i in range(slices)]
    joint, each, pooled, fail_min, fail_any = [], [], [], [], []
    t0 = time.perf_counter()
    for r in range(reps):
        tables = np.stack([rng.multinomial(n, p) for p in probs]).reshape(slices, 3, 3)
        kw: dict[str, Any] = dict(prob=prob, draws=draws, max_draws=max_draws, rng=seeds[r])
        res = gate(tables, [SliceFloor("macro_f1", FLOOR)], names=names, **kw)
        verdicts = [c.verdict for c in res.checks]
        joint.append(verdicts[-1])
        fail_min.append(1.0 - res.checks[-1].prob >= prob)
        fail_any.append(any(1.0 - c.prob >= prob for c in res.checks[:-1]))
        each.append(all(v == "pass" for v in verdicts[:-1]))
        pooled.append(gate(tables.sum(axis=0), [Floor("macro_f1", FLOOR)], **kw).verdict)
    return Rates(
        scenario=scenario,
        slices=slices,
        n=n,
        reps=reps,
        min_truth=min(truth(first), truth(rest)),
        joint_pass=float(np.mean([v == "pass" for v in joint])),
        joint_fail=float(np.mean([v == "fail" for v in joint])),
        fail_min=float(np.mean(fail_min)),
        fail_any=float(np.mean(fail_any)),
        each_pass=float(np.mean(each)),
        pooled_pass=float(np.mean([v == "pass" for v in pooled])),
        seconds=time.perf_counter() - t0,
    )


def table(rows: list[Rates]) -> str:
    """The Markdown table of the docs."""
    out = [
        "| scenario | slices | smallest true macro-F1 | joint PASS | FAIL (shipped) | "
        "FAIL, min of posteriors | FAIL, any slice at prob | every slice passes on its own | "
        "pooled floor PASS |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r.scenario} | {r.slices} | {r.min_truth:.2f} | "
            f"{r.joint_pass:.3f} ± {r.se(r.joint_pass):.3f} | "
            f"{r.joint_fail:.3f} ± {r.se(r.joint_fail):.3f} | {r.fail_min:.3f} | "
            f"{r.fail_any:.3f} | {r.each_pass:.3f} | {r.pooled_pass:.3f} |"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer replicates")
    args = ap.parse_args()
    reps = 50 if args.quick else 200
    stem = "slice_calibration" + ("_quick" if args.quick else "")
    RESULTS.mkdir(exist_ok=True)
    rows = []
    for k, scenario in enumerate(SCENARIOS):
        for slices in (1, *SLICES) if scenario == BOUNDARY else SLICES:  # 1: a plain floor
            rows.append(
                simulate(scenario, slices, 300, reps * (5 if scenario == BOUNDARY else 1),
                         seed=1000 * k + slices, draws=4_000, max_draws=32_000)
            )  # fmt: skip
            print(table(rows[-1:]).splitlines()[-1], flush=True)
            (RESULTS / f"{stem}.json").write_text(json.dumps([asdict(r) for r in rows], indent=2))
    (RESULTS / f"{stem}.md").write_text(table(rows) + "\n")
    print(table(rows))


if __name__ == "__main__":
    main()
