"""Tests of f1posterior.analysis._sensitivity and ``summarize --prior-sensitivity``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import f1_score

from f1posterior import evaluate
from f1posterior._core.priors import adaptive_alpha
from f1posterior.analysis._sensitivity import (
    DEFAULT_PRIORS,
    DEFAULT_THRESHOLD,
    PriorSensitivity,
    prior_sensitivity,
)
from f1posterior.cli import main

K = 5.0
#: The documented 20-document example (docs/compare.md).
SMALL = np.array([[6, 1, 0], [0, 8, 1], [1, 0, 3]])


def exact_accuracy_mean(counts, alpha, beta):
    """DESIGN.md: exact posterior mean of micro-F1 under the core model."""
    c = np.asarray(counts, float)
    n = c.sum(axis=1)
    m = c.shape[-1]
    a = np.broadcast_to(alpha, (m, m))  # a number or an (M, M) array
    b = np.broadcast_to(beta, (m,))
    return float(np.sum((b + n) / (b.sum() + n.sum()) * (np.diag(a) + np.diag(c)) / (a.sum(1) + n)))


def test_documented_small_table_is_flagged():
    res = prior_sensitivity(SMALL, draws=50_000, rng=0)
    y_true = np.repeat(np.arange(3).repeat(3), SMALL.ravel())
    y_pred = np.repeat(np.tile(np.arange(3), 3), SMALL.ravel())
    assert SMALL.sum() == 20
    uni = res.summaries["paper"]  # alpha = beta = 1, the old "uniform" reference
    assert uni.score == pytest.approx(f1_score(y_true, y_pred, average="macro"))
    assert round(uni.score, 2) == 0.83
    assert abs(uni.mean - 0.66) < 0.01
    assert res.sensitive is True and res.max_shift > DEFAULT_THRESHOLD
    assert res.shift["hierarchical"] == 0.0  # the default prior is the reference
    assert res.shift["adaptive"] == 0.0  # M = 3: both are Jeffreys rows (the same draws)
    # the warning names the prior that moves the HDI most: the paper's, here
    assert max(res.shift, key=lambda k: res.shift[k]) == "paper"
    assert res.warning is not None and "hierarchical to paper" in res.warning
    assert "warning" in str(res)
    assert res.priors == DEFAULT_PRIORS
    assert DEFAULT_PRIORS == ("hierarchical", "adaptive", "paper", "jeffreys", "perks", "aligned")


def test_summaries_are_evaluate_under_each_prior():
    res = prior_sensitivity(SMALL, metric="micro_f1", draws=4_000, rng=5)
    for name, (alpha, beta) in {
        "adaptive": (adaptive_alpha(SMALL), 1.0 / 3),  # the resolved arrays, beta = 1/M
        "paper": (1.0, 1.0),
        "jeffreys": (0.5, 0.5),
        "perks": (1.0 / 3, 1.0 / 3),
        "aligned": (1.0, "aligned"),
    }.items():
        ev = evaluate(SMALL, metrics="micro_f1", draws=4_000, alpha=alpha, beta=beta, rng=5)
        s = ev["micro_f1"]
        assert res.summaries[name].mean == s.mean
        assert np.array_equal(res.summaries[name].hdi, s.hdi)
    lo0, hi0 = res.summaries["adaptive"].hdi
    lo, hi = res.summaries["jeffreys"].hdi
    assert res.shift["jeffreys"] == pytest.approx(max(abs(lo - lo0), abs(hi - hi0)) / (hi0 - lo0))


@pytest.mark.parametrize(
    ("prior", "alpha", "beta"),
    [
        ("paper", 1.0, 1.0),
        ("jeffreys", 0.5, 0.5),
        ("perks", 1.0 / 3, 1.0 / 3),
        ("adaptive", adaptive_alpha(SMALL), 1.0 / 3),
    ],
)
def test_means_match_the_exact_posterior_mean(prior, alpha, beta):
    res = prior_sensitivity(SMALL, metric="micro_f1", draws=40_000, rng=2)
    s = res.summaries[prior]
    assert abs(s.mean - exact_accuracy_mean(SMALL, alpha, beta)) < K * max(s.mc_error, 1e-4)


#: A large table: 40,000 documents. (At 1,000 documents, SMALL * 50, the paper's prior still
#: moves the default's HDI by about 0.11 of its width, 400,000 draws: above the threshold.)
BIG = SMALL * 2000


def test_large_table_is_not_flagged_and_threshold_controls_the_flag():
    big = prior_sensitivity(BIG, draws=20_000, rng=0)
    assert big.sensitive is False and big.warning is None
    assert big.max_shift < DEFAULT_THRESHOLD
    assert "at most" in str(big)
    loose = prior_sensitivity(SMALL, draws=20_000, threshold=0.9, rng=0)
    assert loose.sensitive is False and loose.max_shift < 0.9


def test_batches_and_custom_priors():
    batch = np.stack([SMALL, SMALL * 50])
    res = prior_sensitivity(
        batch, priors={"flat": (1.0, 1.0), "half": (0.5, 0.5)}, draws=10_000, rng=1
    )
    assert res.reference == "flat" and res.shift["half"].shape == (2,)
    assert res.sensitive.tolist() == [True, False]
    assert res.summaries["half"].hdi.shape == (2, 2)
    d = res.to_dict()
    json.dumps(d)
    assert d["sensitive"] == [True, False]
    assert isinstance(res, PriorSensitivity)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (dict(priors=("uniform", "flat")), ValueError, r"priors must name presets .*got 'flat'"),
        (dict(priors=("uniform",)), ValueError, r"at least two priors to compare; got \['uniform'\]"),
        (dict(priors=("uniform", "uniform")), ValueError, r"priors must not repeat a name"),
        (dict(priors={"a": 1.0, "b": (1, 1)}), ValueError, r"an \(alpha, beta\) pair; got 1.0 for 'a'"),
        (dict(priors=3), TypeError, r"priors must be a sequence of preset names"),
        (dict(threshold=0), ValueError, r"threshold must be a finite number > 0; got 0"),
        (dict(threshold="x"), TypeError, r"threshold must be a number > 0; got 'x'"),
        (dict(metric="f3"), ValueError, r"metric must name known metrics .*got 'f3'"),
        (dict(draws=0), ValueError, r"draws must be an integer >= 1; got 0"),
    ],
)  # fmt: skip
def test_bad_inputs(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        prior_sensitivity(SMALL, **kwargs)


def test_cli_summarize_prior_sensitivity(tmp_path, capsys):
    small = tmp_path / "small.json"
    small.write_text(json.dumps(SMALL.tolist()))
    big = tmp_path / "big.json"
    big.write_text(json.dumps(BIG.tolist()))
    assert main(["summarize", str(small), "--prior-sensitivity", "--draws", "20000"]) == 0
    out = capsys.readouterr().out
    assert "Prior sensitivity of macro_f1" in out and "warning: the prior matters" in out
    assert main(["summarize", str(big), "--prior-sensitivity", "--draws", "20000"]) == 0
    out = capsys.readouterr().out
    assert "Prior sensitivity of micro_f1" in out and "warning" not in out
    argv = ["summarize", str(small), "--prior-sensitivity", "--draws", "5000", "--format", "json"]
    assert main(argv) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d["prior_sensitivity"]) == {"micro_f1", "macro_f1"}
    assert d["prior_sensitivity"]["macro_f1"]["sensitive"] is True
    assert main(["summarize", str(small), "--draws", "2000"]) == 0
    assert "Prior sensitivity" not in capsys.readouterr().out
