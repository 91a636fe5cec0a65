"""Calibration of the slice check from known truths (fast version of
benchmarks/slice_calibration.py, at a fixed seed).

Four slices of a 3-class population, one of them exactly at the floor (true macro-F1
0.80 = T), the others at 0.88: every PASS of the joint row is a false PASS, and its rate
must stay at or below 1 - prob = 0.05 (with a binomial allowance of 2.5 standard errors
of the replicates). Negative control: one floor on the pooled documents, blind to the
slices, passes this model most of the time.

False FAIL: ten slices each 0.01 above the floor (true macro-F1 0.81): a FAIL claims that
some slice is below the floor, which none is, so its rate must stay at or below 1 - prob
(same allowance). Negative control: the rule the gate no longer uses, a joint FAIL when
P(some slice < T) >= prob (the minimum of the slices' posteriors), FAILs this model
almost always.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np

PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "slice_calibration.py"


def _study():
    spec = importlib.util.spec_from_file_location("slice_calibration", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("slice_calibration", module)
    spec.loader.exec_module(module)
    return module


def test_population_truths_are_the_metric_of_the_population_table() -> None:
    study = _study()
    for a in (0.78, 0.8, 0.88):
        assert math.isclose(study.truth(a), a, abs_tol=1e-12)
        assert math.isclose(study.population(a).sum(), 1.0)


def test_joint_false_pass_rate_at_most_one_minus_prob() -> None:
    study = _study()
    reps, prob = 150, 0.95
    r = study.simulate("one slice at the floor", 4, 300, reps, seed=2024, draws=4_000,
                       max_draws=32_000, prob=prob)  # fmt: skip
    allowance = 2.5 * math.sqrt(prob * (1 - prob) / reps)
    assert r.joint_pass <= (1 - prob) + allowance, r
    # the joint row is never more lenient than the slices' own rows (same draws)
    assert r.joint_pass <= r.each_pass + 1e-12, r
    # negative control: a floor on the pooled documents passes the model most of the time
    assert r.pooled_pass >= 0.5, r
    assert r.pooled_pass - r.joint_pass > 10 * math.sqrt(0.25 / reps), r


def test_joint_check_passes_when_every_slice_is_well_above() -> None:
    """Not a check that never passes: with every slice at 0.88 it passes most of the time."""
    study = _study()
    r = study.simulate("every slice above the floor", 4, 300, 60, seed=7, draws=4_000,
                       max_draws=32_000)  # fmt: skip
    assert r.joint_pass >= 0.5 and r.joint_fail == 0.0, r
    assert np.isclose(r.min_truth, 0.88)


def test_false_fail_rate_at_most_one_minus_prob() -> None:
    study = _study()
    reps, prob = 80, 0.95
    r = study.simulate("every slice 0.01 above the floor", 10, 300, reps, seed=11, draws=4_000,
                       max_draws=32_000, prob=prob)  # fmt: skip
    allowance = 2.5 * math.sqrt(prob * (1 - prob) / reps)
    assert r.min_truth > study.FLOOR
    assert r.joint_fail <= (1 - prob) + allowance, r
    # negative control: the minimum of the posteriors FAILs a model with no slice below
    assert r.fail_min > (1 - prob) + allowance + 10 * math.sqrt(0.25 / reps), r
    # and a slice FAIL at prob without the shared bar FAILs more often than the gate
    assert r.fail_any > r.joint_fail, r
