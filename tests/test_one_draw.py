"""One draw per call: for one seed, a metric's draws, summary and gate probability do not
depend on which other metrics, checks or options are requested.

Every sampled metric of a call comes from the one whole-table draw of the seed's
streams (``sample_posterior``'s draws), and the gate draws a check again only while that
check is itself within Monte Carlo noise. Each test compares a metric requested alone
with the same metric requested beside others, bit for bit, and has a negative control
(another seed differs), so that a comparison of two equal-by-accident results cannot pass.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import FIELDS

from f1posterior import Floor, JointFloor, NonInferiority, evaluate, gate, sample_posterior
from f1posterior.cli import main
from f1posterior.gating._gate import DEFAULT_SEED
from f1posterior.metrics._registry import METRICS

#: 10 classes, 551 documents, about 92% accuracy: micro- and macro-F1 near 0.92.
TEN = np.array(
    [
        [57, 0, 1, 0, 0, 0, 1, 1, 0, 0],
        [0, 46, 1, 1, 0, 0, 1, 1, 0, 1],
        [1, 1, 48, 0, 0, 1, 1, 1, 1, 0],
        [1, 0, 0, 49, 1, 0, 0, 0, 0, 1],
        [1, 1, 0, 0, 47, 1, 0, 0, 0, 1],
        [1, 0, 0, 0, 1, 58, 1, 1, 1, 0],
        [1, 1, 0, 0, 0, 1, 58, 1, 1, 0],
        [0, 1, 1, 1, 0, 1, 0, 54, 1, 0],
        [1, 1, 0, 1, 0, 0, 1, 1, 46, 0],
        [1, 0, 0, 0, 0, 1, 1, 0, 1, 47],
    ]
)
#: Sampled metrics (recall is drawn too when keep_draws asks for its draws).
ALONE = ("micro_f1", "accuracy", "macro_f1", "f1", "mcc", "recall")
OTHERS = [("macro_f1",), ("f1",), ("mcc",), ("macro_f1", "f1", "mcc", "precision")]


def _same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in FIELDS)


def _ev(counts, metrics, seed=0, **kw):
    kw.setdefault("draws", 4_000)
    return evaluate(counts, metrics=metrics, rng=seed, ref=0.92, keep_draws=True, **kw)


@pytest.mark.parametrize("name", ALONE)
def test_evaluate_metric_alone_equals_beside_others(name):
    alone = _ev(TEN, (name,))
    for others in OTHERS:
        together = _ev(TEN, (name, *(o for o in others if o != name)))
        assert _same(alone[name], together[name]), (name, others)
        np.testing.assert_array_equal(alone.metric_draws[name], together.metric_draws[name])
    # chance=True adds the chance level; the metric's own draws and summary are unchanged
    ch = _ev(TEN, tuple(dict.fromkeys((name, "macro_f1"))), chance=True)
    assert _same(alone[name], ch[name])
    np.testing.assert_array_equal(alone.metric_draws[name], ch.metric_draws[name])
    # negative control: another seed draws other numbers
    other = _ev(TEN, (name,), seed=1)
    assert not np.array_equal(other.metric_draws[name], alone.metric_draws[name])
    if not np.all(alone[name].exact):  # recall's summary is its closed form (scipy)
        assert not np.array_equal(other[name].mean, alone[name].mean)


def test_evaluate_summaries_without_keep_draws_and_the_independent_truth():
    kw = dict(draws=6_000, rng=3)
    alone = evaluate(TEN, metrics="micro_f1", **kw)["micro_f1"]
    for others in OTHERS:
        assert _same(alone, evaluate(TEN, metrics=("micro_f1", *others), **kw)["micro_f1"])
    # the draws are sample_posterior's through the metric (the same streams); the engine
    # shares class sums between metrics, so equal to rounding
    draws = evaluate(TEN, metrics="micro_f1", keep_draws=True, **kw).metric_draws["micro_f1"]
    table = sample_posterior(TEN, draws=6_000, rng=3)
    np.testing.assert_allclose(draws, METRICS["micro_f1"](table), rtol=1e-13)
    other = sample_posterior(TEN, draws=6_000, rng=4)  # negative control
    assert np.abs(draws - METRICS["micro_f1"](other)).max() > 1e-3


def test_chunking_that_depends_on_the_metrics_does_not_change_the_draws():
    # 40 classes: per-class metrics widen the chunk plan (fewer draws a chunk), a small
    # budget splits one matrix's draws; the streams are keyed by block, not by chunk
    rng = np.random.default_rng(40)
    c = rng.integers(0, 3, size=(40, 40)) + np.diag(rng.integers(10, 40, size=40))
    kw = dict(draws=3_001, max_memory=24 << 20, workers=2)
    alone = _ev(c, ("micro_f1",), **kw)
    wide = _ev(c, ("micro_f1", "f1", "precision", "recall", "fdr"), chance=True, **kw)
    assert _same(alone["micro_f1"], wide["micro_f1"])
    np.testing.assert_array_equal(alone.metric_draws["micro_f1"], wide.metric_draws["micro_f1"])


def test_batch_prevalence_and_prior_presets_alone_equal_beside_others():
    rng = np.random.default_rng(6)
    c = rng.integers(0, 6, size=(3, 4, 4)) + 25 * np.eye(4, dtype=int)
    for kw in (
        dict(prevalence=("dirichlet", [40.0, 30.0, 20.0, 10.0])),
        dict(prevalence=[0.1, 0.2, 0.3, 0.4], chance=True),
        dict(alpha="paper", beta="paper"),
        dict(alpha="jeffreys", beta="aligned"),
    ):
        alone = _ev(c, ("micro_f1",), draws=2_000, **kw)
        both = _ev(c, ("micro_f1", "macro_f1", "mcc"), draws=2_000, **kw)
        assert _same(alone["micro_f1"], both["micro_f1"]), kw
        np.testing.assert_array_equal(alone.metric_draws["micro_f1"], both.metric_draws["micro_f1"])


# --- gate ---------------------------------------------------------------------------
def _probs(res, metric):
    return [(c.item, c.prob, c.draws, c.verdict) for c in res.checks if c.metric == metric]


def _at(metric: str, prob: float, joint: bool = False) -> float:
    """A floor whose first-round P (2,000 draws, the gate's seed) is ``prob``.

    The gate's first round draws the metric as ``evaluate`` does alone for its seed
    (one draw per call), so the floor is the ``1 - prob`` quantile of those draws; near
    0.95 or 0.05 the check is within Monte Carlo noise, whatever the prior's details.
    """
    x = evaluate(TEN, metrics=metric, rng=DEFAULT_SEED, draws=2_000, keep_draws=True)
    d = x.metric_draws[metric]
    return float(np.quantile(d.min(axis=0) if joint else d, 1.0 - prob))


CLEAR, NOISY = 0.5, 0.05  # P far from 0.95 and 0.05; P right at 0.05


@pytest.mark.parametrize(
    ("micro", "macro"),
    [
        (CLEAR, 0.99),  # both clear at the first round
        (CLEAR, NOISY),  # macro-F1 within noise: drawn again; micro-F1 is not
        (NOISY, NOISY),  # both within noise
    ],
)
def test_gate_floor_probability_alone_equals_beside_another_floor(micro, macro):
    kw = dict(draws=2_000, max_draws=16_000)
    micro, macro = _at("micro_f1", micro), _at("macro_f1", macro)
    alone = gate(TEN, [Floor("micro_f1", micro)], **kw)
    both = gate(TEN, [Floor("micro_f1", micro), Floor("macro_f1", macro)], **kw)
    assert _probs(alone, "micro_f1") == _probs(both, "micro_f1")
    macro_alone = gate(TEN, [Floor("macro_f1", macro)], **kw)
    assert _probs(macro_alone, "macro_f1") == _probs(both, "macro_f1")
    # negative control: another seed gives another probability
    moved = gate(TEN, [Floor("micro_f1", micro)], rng=7, **kw)
    assert _probs(moved, "micro_f1")[0][1] != _probs(alone, "micro_f1")[0][1]


def test_gate_adaptive_draws_redraw_only_the_noisy_check():
    kw = dict(draws=2_000, max_draws=16_000)
    floors = [Floor("micro_f1", _at("micro_f1", CLEAR)), Floor("macro_f1", _at("macro_f1", NOISY))]
    both = gate(TEN, floors, **kw)
    micro, macro = both.checks
    # the case the test is about: one check drawn again, the other clear at once
    assert macro.draws > 2_000 and micro.draws == 2_000


def test_gate_per_class_and_baseline_checks_alone_equal_beside_others():
    base = TEN.copy()
    np.fill_diagonal(base, np.diag(TEN) - 2)
    base[:, 0] += 2
    kw = dict(draws=2_000, max_draws=16_000)
    f1_alone = gate(TEN, [Floor("f1", 0.9)], **kw)
    f1_with = gate(TEN, [Floor("f1", 0.9), Floor("micro_f1", 0.9), Floor("mcc", 0.9)], **kw)
    assert _probs(f1_alone, "f1") == _probs(f1_with, "f1")
    cmp_alone = gate(TEN, [NonInferiority("micro_f1")], baseline=base, **kw)
    cmp_with = gate(
        TEN,
        [
            Floor("macro_f1", _at("macro_f1", NOISY)),
            NonInferiority("micro_f1"),
            NonInferiority("macro_f1"),
        ],
        baseline=base,
        **kw,
    )
    a = [c for c in cmp_alone.checks if c.kind == "baseline" and c.metric == "micro_f1"]
    b = [c for c in cmp_with.checks if c.kind == "baseline" and c.metric == "micro_f1"]
    assert [(c.prob, c.draws) for c in a] == [(c.prob, c.draws) for c in b]
    moved = gate(TEN, [NonInferiority("micro_f1")], baseline=base, rng=8, **kw)  # negative control
    assert moved.checks[0].prob != a[0].prob


# --- summarize ------------------------------------------------------------------------
def _summarize(tmp_path, capsys, *args: str) -> dict:
    f = tmp_path / "ten.json"
    f.write_text(json.dumps(TEN.tolist()))
    code = main(["summarize", str(f), "--format", "json", "--draws", "3000", *args])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)["metrics"]


def test_summarize_prints_the_same_summary_alone_and_beside_others(tmp_path, capsys):
    keys = ("mean", "std", "mc_error", "hdi_low", "hdi_high", "eti_low", "eti_high")
    alone = _summarize(tmp_path, capsys, "--metric", "micro_f1")["micro_f1"]
    for extra in (["--metric", "macro_f1"], ["--metric", "f1", "--metric", "mcc"], ["--chance"]):
        other = _summarize(tmp_path, capsys, "--metric", "micro_f1", *extra)["micro_f1"]
        assert {k: other[k] for k in keys} == {k: alone[k] for k in keys}, extra
    moved = _summarize(tmp_path, capsys, "--metric", "micro_f1", "--seed", "5")["micro_f1"]
    assert moved["hdi_low"] != alone["hdi_low"]  # negative control


def test_gate_joint_check_drawn_again_alone_equals_beside_another_floor():
    kw = dict(draws=2_000, max_draws=16_000)
    joint = JointFloor("recall", _at("recall", 0.95, joint=True), min_support=50)
    alone = gate(TEN, [joint], **kw)
    both = gate(TEN, [joint, Floor("micro_f1", _at("micro_f1", CLEAR))], **kw)
    assert alone.checks[0].draws > 2_000  # the joint check is within noise at first
    assert _probs(alone, "recall") == _probs(both, "recall")
    assert _probs(both, "micro_f1")[0][2] == 2_000  # the other check is not drawn again
    moved = gate(TEN, [joint], rng=9, **kw)  # negative control
    assert moved.checks[0].prob != alone.checks[0].prob
