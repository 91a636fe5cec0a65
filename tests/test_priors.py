"""The one prior resolver: presets everywhere, the adaptive default, bad input, dominance flag."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import f1posterior as fp
from f1posterior import PRIOR_PRESETS, Floor, evaluate, prior_preset, sample_posterior
from f1posterior._core.priors import DEFAULT_PRIOR, PRIOR_HELP, adaptive_alpha, resolve_prior

PRESETS = list(PRIOR_PRESETS)
TABLE = np.array([[30, 3, 1], [4, 20, 2], [1, 2, 12]])
TABLE4 = np.array([[30, 3, 1, 0], [4, 20, 2, 1], [1, 2, 12, 0], [0, 1, 1, 9]])


# --------------------------------------------------------------- the adaptive prior itself


def test_adaptive_alpha_by_hand():
    # pooled accuracy r = (71 + 0.5) / (87 + 1); r >= 1/2: Beta(r / (2 (1 - r)), 1/2)
    r = 71.5 / 88
    a = adaptive_alpha(TABLE4)
    assert a[0, 0] == pytest.approx(0.5 * r / (1 - r))  # 2.17, under every row's cap
    assert a[0, 1] == pytest.approx(0.5 / 3) and a[2, 0] == pytest.approx(0.5 / 3)
    np.testing.assert_allclose(a.sum(axis=-1), 0.5 * r / (1 - r) + 0.5)


def test_adaptive_alpha_is_jeffreys_rows_below_four_classes():
    for table in (TABLE, np.array([[95, 0], [5, 0]]), np.zeros((2, 3, 3))):
        a = adaptive_alpha(table)
        m = a.shape[-1]
        np.testing.assert_array_equal(np.diagonal(a, axis1=-2, axis2=-1), 0.5)
        np.testing.assert_allclose(a.sum(axis=-1), 1.0)
        assert a[..., 0, m - 1] == pytest.approx(0.5 / (m - 1))


def test_adaptive_alpha_low_accuracy_and_caps():
    weak = np.array([[2, 8, 1, 1], [7, 3, 1, 0], [1, 1, 2, 5], [2, 1, 6, 1]])
    r = (8 + 0.5) / (42 + 1)  # < 1/2: Beta(1/2, (1 - r) / (2 r))
    a = adaptive_alpha(weak)
    assert a[0, 0] == 0.5 and a[0, 1] * 3 == pytest.approx(0.5 * (1 - r) / r)
    # caps: each parameter at most max(1/2, n_j / 2); an empty row gets Beta(1/2, 1/2)
    strong = np.array([[500, 0, 0, 0], [0, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 300]])
    a = adaptive_alpha(strong)
    assert 0.5 * (804.5 / 805) / (0.5 / 805) > 250  # the centred value, 804.5 ...
    assert a[0, 0] == 250.0  # ... capped at n_0 / 2
    assert a[1, 1] == 2.0 and a[2, 2] == 0.5  # capped at n_1 / 2 and at 1/2
    assert a[2, 0] + a[2, 1] + a[2, 3] == pytest.approx(0.5)


def test_adaptive_alpha_is_permutation_equivariant_and_batched():
    perm = [2, 0, 3, 1]
    a = adaptive_alpha(TABLE4)
    np.testing.assert_allclose(adaptive_alpha(TABLE4[np.ix_(perm, perm)]), a[np.ix_(perm, perm)])
    stack = np.stack([TABLE4, TABLE4.T, 3 * TABLE4])
    np.testing.assert_allclose(adaptive_alpha(stack)[1], adaptive_alpha(TABLE4.T))


def test_adaptive_preset_equals_its_arrays():
    """The preset goes through the resolver: same draws as passing the arrays themselves.

    (The default is now the hierarchical prior, tests/test_hierarchical.py.)"""
    assert DEFAULT_PRIOR == "hierarchical"
    a, b = adaptive_alpha(TABLE4), np.full(4, 1 / 4)
    kw = dict(alpha="adaptive", beta="adaptive")
    r1 = evaluate(
        TABLE4, metrics=("macro_f1", "recall"), draws=2000, rng=5, prior_check=False, **kw
    )
    r2 = evaluate(
        TABLE4,
        metrics=("macro_f1", "recall"),
        draws=2000,
        rng=5,
        alpha=a,
        beta=b,
        prior_check=False,
    )
    for name in r1:
        np.testing.assert_array_equal(r1[name].hdi, r2[name].hdi)
    np.testing.assert_array_equal(
        sample_posterior(TABLE4, draws=50, rng=3, **kw),
        sample_posterior(TABLE4, draws=50, rng=3, alpha=a, beta=b),
    )


def test_recall_posterior_is_the_exact_beta_under_the_adaptive_prior():
    """recall_j ~ Beta(alpha_jj + c_jj, sum_{k != j} (alpha_jk + c_jk)) under any prior."""
    stats = pytest.importorskip("scipy.stats")
    a = adaptive_alpha(TABLE4) + TABLE4
    res = evaluate(
        TABLE4, metrics="recall", draws=20_000, rng=11, keep_draws=True, prior_check=False,
        alpha="adaptive", beta="adaptive",
    )  # fmt: skip
    draws = res.metric_draws["recall"]
    for j in range(4):
        dist = stats.beta(a[j, j], a[j].sum() - a[j, j])
        assert stats.kstest(draws[j], dist.cdf).pvalue > 1e-3
    # negative control: the paper's prior gives another law, and the test sees it
    paper = evaluate(
        TABLE4,
        metrics="recall",
        draws=20_000,
        rng=11,
        keep_draws=True,
        alpha="paper",
        beta="paper",
        prior_check=False,
    )
    dist = stats.beta(a[2, 2], a[2].sum() - a[2, 2])
    assert stats.kstest(paper.metric_draws["recall"][2], dist.cdf).pvalue < 1e-6


# ------------------------------------------------------ every entry point, every preset


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_in_evaluate_sample_and_multilabel(name):
    alpha, beta = prior_preset(name)
    res = evaluate(TABLE, metrics=("micro_f1",), draws=500, rng=0, alpha=alpha, beta=beta)
    assert 0 < res["micro_f1"].mean < 1
    assert sample_posterior(TABLE, draws=5, rng=0, alpha=alpha, beta=beta).shape == (5, 3, 3)
    tables = np.array([[[50, 5], [4, 41]], [[80, 2], [9, 9]]])  # (L, 2, 2) [[tn, fp], [fn, tp]]
    ml = fp.evaluate_multilabel(
        tables, metrics=("macro_f1",), draws=500, rng=0, alpha=alpha, beta=beta
    )
    assert 0 < ml["macro_f1"].mean < 1


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_in_gate_compare_rank_sensitivity_thresholds(name):
    alpha, beta = prior_preset(name)
    g = fp.gate(TABLE, [Floor("micro_f1", 0.5)], draws=2000, alpha=alpha, beta=beta)
    assert g.passed
    other = TABLE + np.eye(3, dtype=int) * 5
    c = fp.compare(TABLE, other, metric="accuracy", draws=2000, rng=1, alpha=alpha, beta=beta)
    assert 0 <= c.p_a_better <= 1
    r = fp.rank_classifiers(np.stack([TABLE, other]), draws=1000, rng=1, alpha=alpha, beta=beta)
    assert len(r.names) == 2
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 120)
    pa = np.where(rng.random(120) < 0.8, y, rng.integers(0, 3, 120))
    pb = np.where(rng.random(120) < 0.6, y, rng.integers(0, 3, 120))
    cp = fp.compare_predictions(
        y, pa, pb, metric="accuracy", draws=2000, rng=1, alpha=alpha, beta=beta
    )
    assert cp.p_a_better > 0.5
    rp = fp.rank_predictions(y, [pa, pb, y], draws=1000, rng=1, alpha=alpha, beta=beta)
    assert len(rp.names) == 3
    s = fp.prior_sensitivity(
        TABLE,
        metric="micro_f1",
        priors=[name, "jeffreys" if name != "jeffreys" else "paper"],
        draws=1000,
        rng=0,
    )
    assert s.reference == name
    scores = rng.random(200)
    yt = (rng.random(200) < scores).astype(int)
    th = fp.thresholds.evaluate_threshold(yt, scores, folds=3, draws=1000, prior=name, rng=0)
    assert 0 < th.held_out.mean < 1 and tuple(th.prior) == prior_preset(name)


def test_sensitivity_default_includes_every_preset_and_the_prior_used_first():
    res = fp.prior_sensitivity(TABLE, metric="micro_f1", draws=1000, rng=0)
    assert res.priors[0] == DEFAULT_PRIOR
    assert set(res.priors) | {"uniform"} == set(PRESETS)


# ------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"alpha": -1.0},
            ValueError,
            r"alpha must be finite, > 0 and at most 1e300 everywhere; got minimum -1.0",
        ),
        ({"alpha": float("nan")}, ValueError, r"alpha must be finite, > 0 and at most 1e300"),
        (
            {"beta": 1e308},
            ValueError,
            r"beta must be finite, > 0 and at most 1e300 everywhere; got minimum 1e\+308",
        ),
        (
            {"alpha": 1 + 2j},
            TypeError,
            r"alpha must be a positive real number, an array of them or a preset name; got",
        ),
        ({"alpha": np.array([1 + 0j])}, TypeError, r"alpha must be a positive real number"),
        ({"alpha": True}, TypeError, r"alpha must be a positive real number.*True"),
        ({"beta": np.True_}, TypeError, r"beta must be a positive real number.*True"),
        (
            {"alpha": "flat"},
            ValueError,
            r"alpha must be a positive number, an array or one of 'hierarchical', 'adaptive', 'paper', 'uniform', 'jeffreys', 'perks'; got 'flat'",
        ),
        (
            {"beta": "Paper"},
            ValueError,
            r"beta must be a positive number, an array or one of .*'aligned'; got 'Paper'",
        ),
        ({"alpha": "aligned"}, ValueError, r"alpha must be .* got 'aligned'"),
        (
            {"beta": np.ones((3, 3))},
            ValueError,
            r"beta must broadcast to shape \(3,\) \(it may not add batch axes\); got shape \(3, 3\)",
        ),
        ({"alpha": np.ones((2, 3, 3))}, ValueError, r"alpha must broadcast to shape \(3, 3\)"),
        ({"alpha": "1.0"}, ValueError, r"alpha must be .* got '1.0'"),
        ({"alpha": [1, "a", 2]}, TypeError, r"alpha must be a positive real number"),
    ],
)
def test_bad_priors_are_named_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        evaluate(TABLE, draws=10, rng=0, **kwargs)


def test_bad_preset_name_and_prior_check():
    with pytest.raises(
        ValueError, match=r"prior must be one of 'hierarchical', 'adaptive', .*; got 'default'"
    ):
        prior_preset("default")
    with pytest.raises(TypeError, match=r"prior_check must be True or False; got 'no'"):
        evaluate(TABLE, draws=10, prior_check="no")
    with pytest.raises(ValueError, match=r"alpha='adaptive' needs the counts"):
        resolve_prior("adaptive", 1.0, (3, 3))


# ------------------------------------------------------------------ prior dominance


def test_prior_shift_is_measured_from_a_vanishing_priors_mean():
    """The observed score is the vanishing prior's posterior mean (exactly for recall and
    micro-F1, to first order for F1): checked against an independent run under a tiny prior."""
    counts = np.array([[26, 3, 1, 0], [4, 20, 2, 1], [1, 2, 12, 0], [0, 1, 1, 9]])
    names = ("micro_f1", "recall", "f1", "macro_f1")
    tiny = evaluate(counts, metrics=names, draws=200_000, rng=9, alpha=1e-4, beta=1e-4,
                    prior_check=False)  # fmt: skip
    for name in ("micro_f1", "recall"):  # exact: within 4 MC errors (+ the 1e-4 prior's pull)
        s = tiny[name]
        gap = np.abs(np.asarray(s.mean) - np.asarray(s.score))
        assert np.all(gap < 4 * np.asarray(s.mc_error) + 1e-4)
    for name in ("f1", "macro_f1"):  # first order: a small fraction of a posterior SD
        s = tiny[name]
        assert np.all(np.abs(np.asarray(s.mean) - np.asarray(s.score)) < 0.15 * np.asarray(s.std))
    res = evaluate(counts, metrics=names, draws=20_000, rng=2, alpha="paper", beta="paper")
    for name in names:
        s = res[name]
        want = np.abs(np.asarray(s.mean) - np.asarray(s.score)) / np.asarray(s.std)
        np.testing.assert_allclose(s.prior_shift, want)
    # the paper's prior (4 pseudo-documents a row) moves micro-F1 by well over half an SD here
    assert res["micro_f1"].prior_shift > 1 and res["micro_f1"].prior_dominated
    assert "micro_f1" in res.prior_warning()


def test_prior_dominance_negative_control_and_empty_class():
    big = np.array([[900, 60, 40], [50, 800, 150], [30, 70, 1900]])
    res = evaluate(big, metrics=("micro_f1", "macro_f1", "f1"), draws=20_000, rng=1)
    assert not res["micro_f1"].prior_dominated and not np.any(res["f1"].prior_dominated)
    assert res.prior_warning() is None
    empty = np.array([[10, 2, 0], [1, 8, 0], [0, 0, 0]])
    res = evaluate(
        empty, metrics=("recall", "precision", "f1"), draws=5000, rng=1, labels=list("abc")
    )
    for name in ("recall", "precision", "f1"):
        np.testing.assert_array_equal(res[name].prior_dominated, [False, False, True])
    assert "recall [c]" in res.prior_warning()


def test_cli_prints_one_warning_line_and_the_paper_table(tmp_path):
    path = tmp_path / "small.json"
    path.write_text("[[6, 1, 0, 0], [1, 5, 1, 0], [0, 1, 4, 1], [0, 0, 1, 7]]")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "f1posterior",
            "summarize",
            str(path),
            "--prior",
            "paper",
            "--draws",
            "5000",
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "f1posterior: warning: the prior dominates micro_f1"
    )
    example = subprocess.run(
        [sys.executable, "-m", "f1posterior", "summarize", "--draws", "20000"],
        capture_output=True,
        text=True,
    )
    assert example.returncode == 0
    assert "Table 1, reproduced under the paper's prior" in example.stdout
    assert "default prior" in example.stdout
    helptext = subprocess.run(
        [sys.executable, "-m", "f1posterior", "summarize", "--help"], capture_output=True, text=True
    ).stdout
    flat = " ".join(helptext.split())
    for name, text in PRIOR_HELP.items():
        assert f"{name}: {' '.join(text.split())}" in flat


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_on_the_command_line(name, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("[[30, 3, 1], [4, 20, 2], [1, 2, 12]]")
    b.write_text("[[25, 6, 3], [6, 17, 3], [2, 3, 10]]")
    preds = tmp_path / "preds.csv"
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 80)
    pa = np.where(rng.random(80) < 0.8, y, (y + 1) % 3)
    pb = np.where(rng.random(80) < 0.6, y, (y + 1) % 3)
    preds.write_text(
        "y_true,a,b\n" + "".join(f"{t},{u},{v}\n" for t, u, v in zip(y, pa, pb, strict=True))
    )
    base = [sys.executable, "-m", "f1posterior"]
    common = ["--prior", name, "--draws", "2000"]
    for args in (
        ["summarize", str(a), "--format", "json"],
        ["gate", str(a), "--metric", "micro_f1", "--min", "0.5"],
        ["compare", str(a), str(b)],
        ["compare", "--predictions", str(preds)],
    ):
        run = subprocess.run([*base, *args, *common], capture_output=True, text=True)
        assert run.returncode == 0, (args, run.stderr)
        assert "Traceback" not in run.stderr
