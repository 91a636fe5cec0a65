"""The vocabulary renames of issue 14 (CHANGELOG.md): old names still work, with a warning.

Each old keyword gives the same result as its new name under a FutureWarning naming both;
passing both is a TypeError; old attribute names read the new field.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import f1posterior as fp
from f1posterior.analysis.thresholds import evaluate_threshold
from f1posterior.cli import main
from f1posterior.gating.config import GateConfigError, parse_config

COUNTS = np.array([[40, 6, 4], [5, 30, 5], [2, 3, 25]])


def _same(old, new):
    """Call ``old()`` under a FutureWarning and compare it with ``new()``."""
    with pytest.warns(FutureWarning, match="is renamed"):
        a = old()
    b = new()
    if hasattr(a, "to_dict"):
        np.testing.assert_equal(a.to_dict(), b.to_dict())
    else:
        assert a == b
    return a


def test_delta_interval_level():
    _same(
        lambda: fp.delta_interval(COUNTS, "macro_f1", level=0.9),
        lambda: fp.delta_interval(COUNTS, "macro_f1", confidence_level=0.9),
    )


def test_bootstrap_interval_level_and_attribute():
    res = _same(
        lambda: fp.bootstrap_interval(COUNTS, "accuracy", level=0.8, resamples=200, rng=1),
        lambda: fp.bootstrap_interval(
            COUNTS, "accuracy", confidence_level=0.8, resamples=200, rng=1
        ),
    )
    with pytest.warns(FutureWarning, match="FrequentistInterval.level is renamed confidence_level"):
        assert res.level == 0.8


def test_both_names_is_a_type_error():
    with pytest.raises(TypeError, match="got both 'level' and 'confidence_level'"):
        fp.delta_interval(COUNTS, "accuracy", level=0.9, confidence_level=0.9)


def test_gate_hdi_prob_and_check_attribute():
    res = _same(
        lambda: fp.gate(COUNTS, minimums={"accuracy": 0.5}, draws=2000, hdi_prob=0.8),
        lambda: fp.gate(COUNTS, minimums={"accuracy": 0.5}, draws=2000, ci_prob=0.8),
    )
    with pytest.warns(FutureWarning, match=r"Check.hdi_prob is renamed ci_prob"):
        assert res.checks[0].hdi_prob == 0.8


def test_exact_summary_and_beta_posterior_intervals():
    _same(
        lambda: fp.exact_summary(COUNTS, "recall", hdi_prob=0.9),
        lambda: fp.exact_summary(COUNTS, "recall", ci_prob=0.9),
    )
    post = fp.exact_posterior(COUNTS, "recall")
    with pytest.warns(FutureWarning, match=r"hdi\(\): the keyword 'prob' is renamed 'ci_prob'"):
        old = post.hdi(prob=0.9)
    np.testing.assert_array_equal(old, post.hdi(ci_prob=0.9))
    with pytest.warns(FutureWarning, match=r"eti\(\): the keyword 'prob'"):
        old = post.eti(prob=0.9)
    np.testing.assert_array_equal(old, post.eti(ci_prob=0.9))


def test_prior_sensitivity_hdi_prob():
    _same(
        lambda: fp.prior_sensitivity(
            COUNTS, priors=("adaptive", "paper"), draws=500, hdi_prob=0.9, rng=2
        ),
        lambda: fp.prior_sensitivity(
            COUNTS, priors=("adaptive", "paper"), draws=500, ci_prob=0.9, rng=2
        ),
    )


def test_evaluate_threshold_beta_is_f_beta():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    s = np.clip(y * 0.3 + rng.random(200) * 0.7, 0, 1)
    res = _same(
        lambda: evaluate_threshold(s, y, f_beta=2.0, hdi_prob=0.9, draws=500, rng=3) and None,
        lambda: None,
    )
    assert res is None
    new = evaluate_threshold(s, y, f_beta=2.0, ci_prob=0.9, draws=500, rng=3)
    with pytest.warns(FutureWarning):
        old = evaluate_threshold(s, y, beta=2.0, ci_prob=0.9, draws=500, rng=3)
    assert old.f_beta == new.f_beta == 2.0
    np.testing.assert_equal(old.held_out.to_dict(), new.held_out.to_dict())
    with pytest.warns(FutureWarning, match="ThresholdEvaluation.beta is renamed f_beta"):
        assert new.beta == 2.0


def test_gate_config_old_key(tmp_path: Path):
    with pytest.warns(FutureWarning, match="'hdi_prob' is renamed 'ci_prob'"):
        cfg = parse_config({"hdi_prob": 0.9}, "gate.toml", tmp_path)
    assert cfg.settings == {"ci_prob": 0.9}
    with pytest.raises(GateConfigError, match="hdi_prob: is the old name of 'ci_prob'"):
        parse_config({"hdi_prob": 0.9, "ci_prob": 0.9}, "gate.toml", tmp_path)


def test_cli_old_flag(tmp_path: Path, capsys):
    path = tmp_path / "m.json"
    path.write_text("[[40, 6], [5, 30]]")
    args = ["summarize", str(path), "--draws", "2000", "--format", "json"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main([*args, "--hdi-prob", "0.8"]) == 0
    old = capsys.readouterr().out
    assert main([*args, "--ci-prob", "0.8"]) == 0
    assert capsys.readouterr().out == old
    assert '"ci_prob": 0.8' in old


def test_evaluate_and_summaries_hdi_prob():
    res = _same(
        lambda: fp.evaluate(COUNTS, draws=1000, hdi_prob=0.8, rng=4),
        lambda: fp.evaluate(COUNTS, draws=1000, ci_prob=0.8, rng=4),
    )
    with pytest.warns(FutureWarning, match="Evaluation.hdi_prob is renamed ci_prob"):
        assert res.hdi_prob == 0.8
    with pytest.warns(FutureWarning, match="MetricSummary.hdi_prob is renamed ci_prob"):
        assert res["micro_f1"].hdi_prob == 0.8
    x = np.random.default_rng(5).random((2, 500))
    _same(
        lambda: fp.summarize_draws(x, hdi_prob=0.7),
        lambda: fp.summarize_draws(x, ci_prob=0.7),
    )
    for fn in (fp.hdi, fp.eti):
        with pytest.warns(FutureWarning, match=r"the keyword 'prob' is renamed 'ci_prob'"):
            old = fn(x, prob=0.7)
        np.testing.assert_array_equal(old, fn(x, ci_prob=0.7))


def test_dask_evaluate_hdi_prob():
    da = pytest.importorskip("dask.array")
    from f1posterior.integrations import dask as fdask

    stack = da.from_array(np.stack([COUNTS, COUNTS.T]), chunks=(1, 3, 3))
    new = fdask.evaluate(stack, draws=500, rng=6, ci_prob=0.8)
    with pytest.warns(FutureWarning, match="'hdi_prob' is renamed 'ci_prob'"):
        old = fdask.evaluate(stack, draws=500, rng=6, hdi_prob=0.8)
    np.testing.assert_equal(old.to_dict(), new.to_dict())
