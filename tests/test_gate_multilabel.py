"""gate_multilabel: per-label floors, baselines, noise, assert_gate, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import integrate, stats

import f1posterior.posterior._multilabel as ml
from f1posterior import Floor, NonInferiority, gate_multilabel
from f1posterior._core.priors import adaptive_alpha
from f1posterior.gating._checks import GATE_MULTILABEL_METRICS
from f1posterior.gating._gate import assert_gate, gate
from f1posterior.posterior._multilabel import evaluate_multilabel, multilabel_scores

# three labels, [[tn, fp], [fn, tp]] each
TABLES = np.array([[[50, 3], [7, 40]], [[80, 2], [4, 14]], [[60, 20], [10, 10]]], dtype=float)
BASE = TABLES + np.array([[0, 0], [2, -2]])  # the baseline finds two fewer positives per label
LABELS = ["a", "b", "c"]
# The closed forms hold for any alpha: each test runs under the paper's prior (alpha = 1) and
# under the default "adaptive" one, whose alpha (one per label table) is computed here with
# adaptive_alpha, independently of the resolver.
PRIORS = ["paper", "adaptive"]


def _alpha(tables: np.ndarray, prior: str) -> np.ndarray:
    """The alpha array of each label's 2 x 2 table under ``prior``."""
    t = np.asarray(tables, dtype=float)
    return adaptive_alpha(t) if prior == "adaptive" else np.ones_like(t)


def _kw(prior: str) -> dict:
    """Keyword arguments that select ``prior`` (the default one by passing nothing)."""
    return {} if prior == "adaptive" else {"alpha": prior, "beta": prior}


@pytest.mark.parametrize("prior", PRIORS)
def test_exact_per_label_floors_equal_scipy(prior: str) -> None:
    """Aligned prior: P(f1 >= t) = P(B >= t / (2 - t)), B ~ Beta(A11, A01 + A10); precision Beta."""
    alpha = 1.0 if prior == "paper" else prior
    res = gate_multilabel(TABLES, [Floor("f1", 0.6), Floor("precision", 0.8)], alpha=alpha, beta="aligned", labels=LABELS)  # fmt: skip
    a = TABLES + _alpha(TABLES, prior)
    tp, fp, fn = a[:, 1, 1], a[:, 0, 1], a[:, 1, 0]
    want = [*stats.beta.sf(0.6 / 1.4, tp, fp + fn), *stats.beta.sf(0.8, tp, fp)]
    c = res.checks
    assert [x.item for x in c] == ["label a", "label b", "label c"] * 2
    assert [x.metric for x in c] == ["f1"] * 3 + ["precision"] * 3
    np.testing.assert_allclose([x.prob for x in c], want, rtol=1e-10)
    assert all(x.exact and x.mc_error == 0 and x.draws == 0 for x in c)
    assert [x.passed for x in c] == [p >= 0.95 for p in want]
    assert [x.passed for x in c[:3]] == [True, True, False]
    scores = multilabel_scores(TABLES, metrics=["f1", "precision"])
    np.testing.assert_allclose([x.score for x in c], [*scores["f1"], *scores["precision"]])
    assert c[0].text.startswith("PASS  f1 [label a] >= 0.6: P = 1.0000 >= 0.95 required")
    assert c[0].text.endswith("; exact")


@pytest.mark.parametrize("prior", PRIORS)
def test_sampled_floors_agree_with_closed_forms(prior: str) -> None:
    """recall ~ Beta(alpha_11 + tp, alpha_10 + fn) exactly, whatever beta (uniform prior:
    Beta(1 + tp, 1 + fn)), though the gate samples it."""
    n = 20_000  # max_draws=n: no adaptive rounds, so the draws are exactly those of evaluate
    res = gate_multilabel(TABLES, [Floor("recall", 0.75), Floor("micro_f1", 0.7)], draws=n, max_draws=n, **_kw(prior))  # fmt: skip
    rec = res.checks[:3]
    a = TABLES + _alpha(TABLES, prior)
    want = stats.beta.sf(0.75, a[:, 1, 1], a[:, 1, 0])
    for c, w in zip(rec, want, strict=True):
        assert not c.exact and c.draws == n
        assert abs(c.prob - w) <= 5 * np.sqrt(w * (1 - w) / n) + 1e-12, (c.item, c.prob, w)
    # micro_f1 has no closed form: the probability is the fraction of the same draws >= 0.7
    micro = res.checks[3]
    draws = evaluate_multilabel(TABLES, metrics=["micro_f1"], draws=n, rng=20150927,
                                keep_draws=True, **_kw(prior)).metric_draws["micro_f1"]  # fmt: skip
    assert micro.prob == np.mean(draws >= 0.7)
    assert micro.item == "" and micro.mc_error == pytest.approx(
        np.sqrt(micro.prob * (1 - micro.prob) / n)
    )


def test_floors_keep_no_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Per-label floors come from the summaries (ref = threshold): memory bounded in L."""
    seen = []
    real = ml.evaluate_multilabel

    def spy(*args, **kwargs):
        seen.append((kwargs.get("keep_draws", False), kwargs["ref"], kwargs["metrics"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(ml, "evaluate_multilabel", spy)
    monkeypatch.setattr("f1posterior.posterior.evaluate_multilabel", spy)
    res = gate_multilabel(TABLES, [Floor("f1", 0.5), Floor("micro_f1", 0.5), Floor("recall", 0.6)], draws=1000, max_draws=1000)  # fmt: skip
    assert seen == [(False, 0.5, ["f1", "micro_f1"]), (False, 0.6, ["recall"])]
    assert [c.metric for c in res.checks] == ["f1"] * 3 + ["micro_f1"] + ["recall"] * 3


@pytest.mark.parametrize("prior", PRIORS)
def test_baseline_per_label_against_quadrature(prior: str) -> None:
    """Recall: P(R_new - R_base >= -d) = int pdf_base(y) sf_new(y - d) dy (each recall a Beta)."""
    n, d = 20_000, 0.05
    res = gate_multilabel(TABLES, [NonInferiority("recall", d), NonInferiority("macro_f1", d)], baseline=BASE, draws=n, labels=LABELS, **_kw(prior))  # fmt: skip
    checks = res.checks
    assert [(c.kind, c.metric, c.item) for c in checks] == [
        ("baseline", "recall", "label a"),
        ("baseline", "recall", "label b"),
        ("baseline", "recall", "label c"),
        ("baseline", "macro_f1", ""),
    ]
    a_new, a_old = _alpha(TABLES, prior), _alpha(BASE, prior)  # each table its own prior
    for c, t, b, an, ao in zip(checks[:3], TABLES, BASE, a_new, a_old, strict=True):
        new = stats.beta(t[1, 1] + an[1, 1], t[1, 0] + an[1, 0])
        old = stats.beta(b[1, 1] + ao[1, 1], b[1, 0] + ao[1, 0])
        truth = integrate.quad(lambda y, o=old, w=new: o.pdf(y) * w.sf(y - d), 0, 1)[0]
        assert abs(c.prob - truth) < 5 * np.sqrt(truth * (1 - truth) / n), (c.item, truth)
        assert c.model == "independent posteriors" and c.threshold == -d
        assert c.score == pytest.approx(t[1, 1] / t[1].sum() - b[1, 1] / b[1].sum())
    # comparing with itself: P(diff >= 0) about 1/2 (independent draws, not shared ones)
    (same,) = gate_multilabel(
        TABLES, [NonInferiority("micro_f1")], baseline=TABLES, draws=n, **_kw(prior)
    ).checks
    assert same.metric == "micro_f1" and abs(same.prob - 0.5) < 5 * np.sqrt(0.25 / n)


@pytest.mark.parametrize("prior", PRIORS)
def test_batch_names_and_label_items(prior: str) -> None:
    batch = np.stack([TABLES, TABLES * 3])
    alpha = 1.0 if prior == "paper" else prior
    res = gate_multilabel(batch, [Floor("jaccard", 0.5), Floor("macro_f1", 0.6)], alpha=alpha, beta="aligned", draws=1000, names=["small", "large"], labels=LABELS)  # fmt: skip
    items = [c.item for c in res.checks]
    assert items[:6] == [f"{m} label {x}" for m in ("small", "large") for x in LABELS]
    assert items[6:] == ["small", "large"]
    jac = [c for c in res.checks if c.metric == "jaccard"]
    a = batch + _alpha(batch, prior)  # adaptive: one alpha per label table of each matrix
    want = stats.beta.sf(0.5, a[..., 1, 1], a[..., 0, 1] + a[..., 1, 0]).ravel()
    np.testing.assert_allclose([c.prob for c in jac], want, rtol=1e-10)
    assert "exact where marked, 1,000 draws otherwise" in str(res)


def test_within_noise_notice() -> None:
    """A threshold at the 5% quantile of the draws puts P(micro_f1 >= T) at about 0.95."""
    n = 4000
    x = evaluate_multilabel(TABLES, metrics=["micro_f1"], draws=n, rng=20150927,
                            keep_draws=True).metric_draws["micro_f1"]  # fmt: skip
    t = float(np.round(np.quantile(x, 0.055), 4))
    # without room for more draws (max_draws=n) the check is INCONCLUSIVE, with the reason
    (c,) = gate_multilabel(TABLES, [Floor("micro_f1", t)], draws=n, max_draws=n).checks
    assert 0 < abs(c.prob - 0.95) < 0.01
    assert c.within_noise and c.draws_to_settle is not None and c.draws_to_settle > n
    assert c.verdict == "inconclusive" and c.draws == n
    assert c.text.endswith("; within Monte Carlo noise at 4,000 draws")
    # adaptive draws (default max_draws): more draws, and a verdict clear of the noise or
    # inconclusive with the reason
    (a,) = gate_multilabel(TABLES, [Floor("micro_f1", t)], draws=n).checks
    assert a.draws > n
    assert not a.within_noise or a.reason == f"within Monte Carlo noise at {a.draws:,} draws"


def test_f_beta_and_scores() -> None:
    res = gate_multilabel(TABLES, [Floor("micro_fbeta", 0.5), Floor("fbeta", 0.3)], f_beta=2.0, beta="aligned", draws=500)  # fmt: skip
    want = multilabel_scores(TABLES, metrics=["micro_fbeta", "fbeta"], f_beta=2.0)
    assert res.checks[0].score == pytest.approx(float(want["micro_fbeta"]))
    np.testing.assert_allclose([c.score for c in res.checks[1:]], want["fbeta"])
    assert not any(c.exact for c in res.checks)  # F2 has no closed form
    one = gate_multilabel(TABLES, [Floor("fbeta", 0.3)], beta="aligned")
    two = gate_multilabel(TABLES, [Floor("f1", 0.3)], beta="aligned")
    assert all(c.exact for c in one.checks)
    assert [c.prob for c in one.checks] == [c.prob for c in two.checks]


def test_deterministic_renderings_and_assert_gate() -> None:
    kw = dict(checks=[Floor("macro_f1", 0.6), Floor("f1", 0.5)], draws=1000)
    a, b = gate_multilabel(TABLES, **kw), gate_multilabel(TABLES, **kw)
    assert a.to_dict() == b.to_dict() and a.seed == 20150927
    json.dumps(a.to_dict())
    # label 2's P = 0.117 is neither >= 0.95 nor <= 0.05: INCONCLUSIVE (three-state rule)
    assert "| ❔ INCONCLUSIVE | f1 [label 2] >= 0.5 |" in a.to_markdown()
    assert str(a).splitlines()[-1] == "GATE INCONCLUSIVE: 3 of 4 checks passed (1 inconclusive)"
    assert a.verdict == "inconclusive" and [c.verdict for c in a.checks][-1] == "inconclusive"
    ok = assert_gate(gate_multilabel(TABLES, [Floor("f1", 0.2)], beta="aligned"))
    assert ok.passed
    with pytest.raises(TypeError, match="a GateResult is judged as it is"):
        assert_gate(ok, [Floor("f1", 0.2)])
    # 0.1245 = P(Beta(11, 32) >= 1/3), label c's closed form under alpha = 1 (pinned)
    # (P = 0.1245 is INCONCLUSIVE under the three-state rule; assert_gate raises on it too)
    with pytest.raises(AssertionError, match=r"INCONCLUSIVE  f1 \[label c\] >= 0.5: P = 0.1245;"):
        assert_gate(gate_multilabel(TABLES, [Floor("f1", 0.5)], alpha=1.0, beta="aligned", labels=LABELS))  # fmt: skip
    # the default alpha ("adaptive", label c's own table) with the aligned beta: its closed form
    ac = TABLES[2] + adaptive_alpha(TABLES[2])
    p = stats.beta(ac[1, 1], ac[0, 1] + ac[1, 0]).sf(0.5 / 1.5)
    with pytest.raises(AssertionError, match=rf"INCONCLUSIVE  f1 \[label c\] >= 0.5: P = {p:.4f};"):
        assert_gate(gate_multilabel(TABLES, [Floor("f1", 0.5)], beta="aligned", labels=LABELS))


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"checks": [Floor("hamming_loss", 0.1)]}, ValueError, r"checks\[0\].metric: hamming_loss is a loss"),
        ({"checks": [Floor("accuracy", 0.5)]}, ValueError,
         r"checks\[0\].metric must name a known metric \(micro_f1, .*jaccard\); got 'accuracy'"),
        ({"tables": [[1, 2], [3, 4]]}, ValueError,
         r"tables must be per-label 2 x 2 tables of shape \(\*batch, L, 2, 2\).*got shape \(2, 2\)"),
        ({"baseline": TABLES[:2], "checks": [NonInferiority("f1")]}, ValueError,
         r"baseline must have the 3 labels of tables: shape \(..., 3, 2, 2\); got "
         r"shape \(2, 2, 2\)"),
        ({"baseline": [[1, 2], [3, 4]], "checks": [NonInferiority("f1")]}, ValueError,
         r"baseline must be per-label 2 x 2 tables"),
        ({"checks": [NonInferiority("hamming_loss")], "baseline": BASE}, ValueError,
         r"checks\[0\].metric: hamming_loss is a"),
        ({"y_true": [[0, 1]]}, TypeError, r"unexpected keyword argument 'y_true'"),
        ({"f_beta": 0}, ValueError, r"f_beta must be a finite number > 0; got 0"),
        ({"labels": ["a"]}, ValueError, r"labels must name the 3 labels; got 1 names"),
        ({"names": ["x"]}, ValueError, r"names must name each matrix of a 1-D batch"),
    ],
)  # fmt: skip
def test_errors(kwargs: dict, exc: type, match: str) -> None:
    args = {"tables": TABLES, "checks": [Floor("f1", 0.5)], "draws": 10, **kwargs}
    with pytest.raises(exc, match=match):
        gate_multilabel(**args)


def test_gate_has_no_multilabel_flag() -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'f_beta'"):
        gate([[40, 10], [5, 45]], [Floor("micro_f1", 0.5)], f_beta=2)  # type: ignore[call-arg]
    assert set(GATE_MULTILABEL_METRICS) == set(ml.MULTILABEL_METRICS) - {"hamming_loss"}


def test_docs_ci_gate_python_blocks_run() -> None:
    """The ```python blocks of docs/ci-gate.md run (the multi-label one holds asserts)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "ci-gate.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 3 and "gate_multilabel(" in blocks[2]
    for block in blocks:
        exec(compile(block, "docs/ci-gate.md", "exec"), {})
