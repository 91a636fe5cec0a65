"""Calibration of the gate's joint floor (``JointFloor``) by simulation from known truths.

Each test set is one confusion matrix of ``M`` classes with ``n`` true documents per
class; class ``j`` is predicted right with probability ``r_j`` and its errors spread
evenly over the other classes, so its true recall is ``r_j`` (the gate's per-class
recall posteriors are then independent Beta posteriors, one per row). Test sets are
gated with ``JointFloor("recall", T)`` under the default prior, ``prob = 0.95``, with the
gate's own judge (adaptive draws included). Per scenario:

- ``joint_pass``: the PASS rate, ``P(every class >= T) >= prob``;
- ``joint_fail``: the gate's FAIL rate (the rule of the code that ran it: ``rule``);
- the FAIL rules recomputed from the same test sets (without the Monte Carlo noise
  band): ``fail_min``, ``P(some class < T) >= prob`` (the rule before the shared FAIL
  bar); ``fail_bonf``, some class has ``P(class < T) >= 1 - (1 - prob) / M`` (the shared
  FAIL bar, from the exact per-class floors of the same matrix);
- ``each_pass``: every class's own floor PASSes (``Floor``, one row per class).

A false FAIL is a FAIL when no class is truly below ``T``; its rate must stay at or
below ``1 - prob``. A false PASS is a PASS when the smallest true recall is at or
below ``T``; its rate must stay at or below ``1 - prob`` too. Power is the FAIL rate
when a class is below ``T``.

Run: python benchmarks/jointfloor_calibration.py [--quick] [--tag before]
 ->  benchmarks/results/jointfloor_calibration{_tag,}{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from _common import machine

from f1posterior import Floor, JointFloor, gate

RESULTS = Path(__file__).resolve().parent / "results"
FLOOR = 0.80
#: Scenarios: name -> (true recall of the first class, of the others).
SCENARIOS = {
    "every class at the floor": (0.80, 0.80),
    "every class 0.01 above": (0.81, 0.81),
    "every class 0.03 above": (0.83, 0.83),
    "every class 0.05 above": (0.85, 0.85),
    "one class at the floor": (0.80, 0.88),
    "one class 0.03 below": (0.77, 0.88),
}
CLASSES = (3, 5, 10)


def population(first: float, rest: float, m: int) -> np.ndarray:
    """Row probabilities ``(m, m)``: class j right with ``r_j``, errors spread evenly."""
    r = np.array([first] + [rest] * (m - 1))
    rows = np.repeat(((1.0 - r) / (m - 1))[:, None], m, axis=1)
    np.fill_diagonal(rows, r)
    return rows


@dataclass(frozen=True)
class Rates:
    """Verdict rates of one scenario over ``reps`` simulated test sets."""

    scenario: str
    classes: int
    n: int
    reps: int
    min_truth: float
    joint_pass: float
    joint_fail: float
    fail_min: float
    fail_bonf: float
    each_pass: float
    seconds: float

    def se(self, rate: float) -> float:
        """Binomial standard error of a rate of this scenario."""
        return math.sqrt(max(rate * (1 - rate), 1e-12) / self.reps)


def simulate(
    scenario: str, m: int, n: int, reps: int, seed: int, prob: float = 0.95, **kw: int
) -> Rates:
    """Rates of the joint floor's verdicts and of the recomputed rules in one scenario."""
    first, rest = SCENARIOS[scenario]
    rows = population(first, rest, m)
    rng = np.random.default_rng(seed)
    seeds = np.random.SeedSequence(seed).spawn(reps)
    joint, fail_min, fail_bonf, each = [], [], [], []
    t0 = time.perf_counter()
    for r in range(reps):
        table = np.stack([rng.multinomial(n, p) for p in rows])
        res = gate(table, [JointFloor("recall", FLOOR)], prob=prob, rng=seeds[r], **kw)
        joint.append(res.checks[0].verdict)
        fail_min.append(1.0 - res.checks[0].prob >= prob)
        per = gate(table, [Floor("recall", FLOOR)], prob=prob, rng=seeds[r], **kw).checks
        fail_bonf.append(any(1.0 - c.prob >= 1.0 - (1.0 - prob) / m for c in per))
        each.append(all(c.verdict == "pass" for c in per))
    return Rates(
        scenario=scenario,
        classes=m,
        n=n,
        reps=reps,
        min_truth=min(first, rest),
        joint_pass=float(np.mean([v == "pass" for v in joint])),
        joint_fail=float(np.mean([v == "fail" for v in joint])),
        fail_min=float(np.mean(fail_min)),
        fail_bonf=float(np.mean(fail_bonf)),
        each_pass=float(np.mean(each)),
        seconds=time.perf_counter() - t0,
    )


def table(rows: list[Rates], rule: str) -> str:
    """The Markdown table of the docs."""
    out = [
        f"| scenario | classes | smallest true recall | PASS | FAIL ({rule}) | "
        "FAIL, min of posteriors | FAIL, shared bar | every class passes on its own |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r.scenario} | {r.classes} | {r.min_truth:.2f} | "
            f"{r.joint_pass:.3f} ± {r.se(r.joint_pass):.3f} | "
            f"{r.joint_fail:.3f} ± {r.se(r.joint_fail):.3f} | {r.fail_min:.3f} | "
            f"{r.fail_bonf:.3f} | {r.each_pass:.3f} |"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer replicates")
    ap.add_argument("--tag", default="", help="results name suffix (e.g. before)")
    ap.add_argument("--rule", default="shared bar", help="the FAIL rule of the code run")
    args = ap.parse_args()
    reps = 60 if args.quick else 200
    stem = "jointfloor_calibration" + (f"_{args.tag}" if args.tag else "")
    stem += "_quick" if args.quick else ""
    RESULTS.mkdir(exist_ok=True)
    rows: list[Rates] = []
    for k, scenario in enumerate(SCENARIOS):
        for m in CLASSES:
            rows.append(
                simulate(scenario, m, 300, reps, seed=1000 * k + m, draws=4_000, max_draws=32_000)
            )
            print(table(rows[-1:], args.rule).splitlines()[-1], flush=True)
            out = {"machine": machine(), "rule": args.rule, "rows": [asdict(r) for r in rows]}
            (RESULTS / f"{stem}.json").write_text(json.dumps(out, indent=2))
    (RESULTS / f"{stem}.md").write_text(table(rows, args.rule) + "\n")
    print(table(rows, args.rule))


if __name__ == "__main__":
    main()
