"""The gate's false-PASS and false-FAIL rates on one small scenario (regression test).

A binary classifier with known cell probabilities P (true micro-F1 = accuracy =
trace(P) = 0.852); 300 test sets of 100 documents each, gated in one batch under
the default prior. The full study is benchmarks/gate_error_rates.py (results in
docs/ci-gate.md, "How often is the gate wrong?").
"""

from __future__ import annotations

import functools
import math

import numpy as np

from f1posterior import Floor
from f1posterior.gating._gate import gate

SIMS = 300
N = 100
P = np.array([[0.6 * 0.9, 0.6 * 0.1], [0.4 * 0.22, 0.4 * 0.78]])  # accuracy 0.852
TRUTH = float(np.trace(P))
SE_05 = math.sqrt(0.05 * 0.95 / SIMS)  # binomial standard error of a 5% rate over SIMS sets
LIMIT = 0.05 + 3 * SE_05  # 0.088


def _tables(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.multinomial(N, P.ravel(), size=SIMS).reshape(SIMS, 2, 2)


OFFSETS = (-0.1, -0.005, 0.005, 0.1)  # floors T = TRUTH + offset


@functools.cache
def _all_rates(prob: float, seed: int = 11) -> dict[float, dict[str, float]]:
    """Verdict rates per floor; all floors in one batched gate call (shared draws)."""
    floors = [Floor("micro_f1", TRUTH + off) for off in OFFSETS]
    res = gate(_tables(seed), floors, prob=prob, draws=4_000, max_draws=16_000, rng=seed)
    assert len(res.checks) == SIMS * len(OFFSETS)
    out = {}
    for off in OFFSETS:
        checks = [c for c in res.checks if abs(c.threshold - (TRUTH + off)) < 1e-12]
        assert len(checks) == SIMS
        out[off] = {
            v: sum(c.verdict == v for c in checks) / SIMS for v in ("pass", "fail", "inconclusive")
        }
    return out


def _rates(offset: float, *, prob: float = 0.95) -> dict[str, float]:
    return _all_rates(prob)[offset]


def test_simulated_tables_have_the_true_accuracy():
    acc = np.trace(_tables(11), axis1=1, axis2=2) / N
    se = math.sqrt(TRUTH * (1 - TRUTH) / (N * SIMS))
    assert abs(acc.mean() - TRUTH) < 4 * se


def test_false_pass_rate_above_the_truth_is_at_most_5_percent():
    """A floor just above the true accuracy: every PASS is a false PASS."""
    r = _rates(0.005)
    assert r["pass"] <= LIMIT, r
    assert r["inconclusive"] > 0.5, r  # near the truth the data cannot tell: mostly INCONCLUSIVE


def test_false_fail_rate_below_the_truth_is_at_most_5_percent():
    """A floor just below the true accuracy: every FAIL is a false FAIL."""
    r = _rates(-0.005)
    assert r["fail"] <= LIMIT, r
    assert r["inconclusive"] > 0.5, r


def test_far_floors_are_decided_correctly():
    """The gate is not merely always INCONCLUSIVE: 0.1 from the truth it decides."""
    below, above = _rates(-0.1), _rates(0.1)
    assert below["pass"] > 0.7 and below["fail"] == 0.0, below
    assert above["fail"] > 0.9 and above["pass"] == 0.0, above


def test_negative_control_overconfident_gate_has_many_false_passes():
    """prob = 0.55 is overconfident: the same floor then passes far more often than 5%,
    so the test above would catch a gate that claims more than its data support."""
    r = _rates(0.005, prob=0.55)
    assert r["pass"] > 0.25, r
    assert r["pass"] - 3 * math.sqrt(r["pass"] * (1 - r["pass"]) / SIMS) > LIMIT
