"""evaluate_documents / document_scores: scikit-learn, brute-force definitions, bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import f1posterior.posterior._documents as docs
from f1posterior.posterior._documents import (
    BINARY_METRICS,
    RANKING_METRICS,
    document_scores,
    evaluate_documents,
)


def _data(seed: int, d: int, n_labels: int, ties: bool):
    rng = np.random.default_rng(seed)
    yt = (rng.random((d, n_labels)) < 0.4).astype(int)
    yp = np.where(rng.random((d, n_labels)) < 0.75, yt, 1 - yt)
    s = rng.integers(0, 4, (d, n_labels)).astype(float) if ties else rng.random((d, n_labels))
    s = s + 0.5 * yt * rng.random((d, n_labels))  # informative scores
    return yt, yp, s


# --- per-document values against scikit-learn ---------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 25),
    n_labels=st.integers(2, 7),
    ties=st.booleans(),
    zd=st.sampled_from([0, 1]),
)
def test_means_equal_sklearn(seed, d, n_labels, ties, zd):
    yt, yp, s = _data(seed, d, n_labels, ties)
    v = document_scores(yt, yp, s, metrics=BINARY_METRICS + RANKING_METRICS[:-1], f_beta=2.0,
                        zero_division=zd)  # fmt: skip
    kw = {"average": "samples", "zero_division": zd}
    close = np.testing.assert_allclose
    close(v["samples_f1"].mean(), skm.f1_score(yt, yp, **kw), atol=1e-12)
    close(v["samples_fbeta"].mean(), skm.fbeta_score(yt, yp, beta=2.0, **kw), atol=1e-12)
    close(v["samples_precision"].mean(), skm.precision_score(yt, yp, **kw), atol=1e-12)
    close(v["samples_recall"].mean(), skm.recall_score(yt, yp, **kw), atol=1e-12)
    close(v["samples_jaccard"].mean(), skm.jaccard_score(yt, yp, **kw), atol=1e-12)
    close(v["hamming_loss"].mean(), skm.hamming_loss(yt, yp), atol=1e-12)
    close(v["subset_accuracy"].mean(), skm.accuracy_score(yt, yp), atol=1e-12)
    close(v["average_precision"].mean(), skm.label_ranking_average_precision_score(yt, s))
    close(v["ranking_loss"].mean(), skm.label_ranking_loss(yt, s), atol=1e-12)
    close(v["coverage"].mean(), skm.coverage_error(yt, s), atol=1e-12)


def test_per_document_values_equal_sklearn_on_each_document():
    yt, yp, s = _data(7, 40, 5, ties=True)
    yt[0] = 0  # a document with no true labels
    yt[1] = 1  # a document with every label true
    v = document_scores(yt, yp, s, metrics=["average_precision", "ranking_loss", "coverage"])
    for i in range(40):
        r = slice(i, i + 1)
        assert v["average_precision"][i] == pytest.approx(
            skm.label_ranking_average_precision_score(yt[r], s[r])
        )
        assert v["ranking_loss"][i] == pytest.approx(skm.label_ranking_loss(yt[r], s[r]))
        assert v["coverage"][i] == pytest.approx(skm.coverage_error(yt[r], s[r]))
    assert v["average_precision"][0] == 1.0 and v["ranking_loss"][0] == 0.0
    assert v["coverage"][0] == 0.0 and v["ranking_loss"][1] == 0.0


# --- the seed's definitions, written out one document at a time ---------------------


def _brute(y: np.ndarray, s: np.ndarray) -> dict[str, float]:
    labels = range(len(y))
    true = [lab for lab in labels if y[lab]]
    false = [lab for lab in labels if not y[lab]]

    def rank(lab):  # pessimistic about ties: every label scoring >= counts as above
        return sum(1 for m in labels if s[m] >= s[lab])

    top = [lab for lab in labels if s[lab] == max(s)]
    bad_pairs = sum(1 for a in true for b in false if s[a] <= s[b])
    out = {
        "one_error": float(any(lab not in true for lab in top)),
        "is_error": float(bad_pairs > 0),
    }
    if true and false:
        out["margin"] = float(min(rank(b) for b in false) - max(rank(a) for a in true))
        out["ranking_loss"] = bad_pairs / (len(true) * len(false))
        out["average_precision"] = float(
            np.mean([sum(1 for b in true if s[b] >= s[a]) / rank(a) for a in true])
        )
    return out


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_labels=st.integers(2, 8), ties=st.booleans())
def test_ranking_values_follow_the_seed_definitions(seed, n_labels, ties):
    yt, _, s = _data(seed, 12, n_labels, ties)
    keep = (yt.sum(axis=1) > 0) & (yt.sum(axis=1) < n_labels)
    if not keep.any():
        return
    yt, s = yt[keep], s[keep]
    v = document_scores(yt, scores=s, metrics=list(RANKING_METRICS))
    for i in range(len(yt)):
        for name, want in _brute(yt[i], s[i]).items():
            assert v[name][i] == pytest.approx(want), (name, i)
    # a perfect ranking has margin >= 1 and no error; otherwise margin <= 0
    assert np.array_equal(v["margin"] >= 1, v["is_error"] == 0)


def test_one_error_and_is_error_rules_for_documents_without_true_labels():
    v = document_scores([[0, 0, 0]], scores=[[0.1, 0.5, 0.2]], metrics=["one_error", "is_error"])
    assert v["one_error"][0] == 1.0 and v["is_error"][0] == 0.0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ties=st.booleans(), data=st.data())
def test_label_permutation_invariance(seed, ties, data):
    yt, yp, s = _data(seed, 15, 6, ties)
    keep = (yt.sum(axis=1) > 0) & (yt.sum(axis=1) < 6)
    yt, yp, s = yt[keep], yp[keep], s[keep]
    if not len(yt):
        return
    perm = np.array(data.draw(st.permutations(range(6))))
    names = list(BINARY_METRICS + RANKING_METRICS)
    a = document_scores(yt, yp, s, metrics=names)
    b = document_scores(yt[:, perm], yp[:, perm], s[:, perm], metrics=names)
    for n in names:
        np.testing.assert_allclose(a[n], b[n], rtol=1e-12, err_msg=n)


# --- the Bayesian bootstrap ------------------------------------------------------------


def test_bootstrap_mean_and_variance_are_exact():
    """Dir(1,...,1) weights: E = mean(v) exactly, Var = var_pop(v) / (D + 1)."""
    yt, yp, s = _data(3, 200, 6, ties=False)
    n = 40_000
    res = evaluate_documents(yt, yp, s, metrics=["samples_f1", "coverage"], draws=n, rng=1,
                             keep_draws=True)  # fmt: skip
    values = document_scores(yt, yp, s, metrics=["samples_f1", "coverage"])
    for name in ("samples_f1", "coverage"):
        v, x, summ = values[name], res.metric_draws[name], res[name]
        assert summ.score == pytest.approx(v.mean(), rel=1e-12)
        assert abs(summ.mean - v.mean()) < 5 * summ.mc_error
        var_exact = v.var() / (len(v) + 1)
        var_hat = x.var(ddof=1)
        se_var = np.sqrt(np.mean((x - x.mean()) ** 4) - var_hat**2) / np.sqrt(n)
        assert abs(var_hat - var_exact) < 5 * se_var
        # negative control: Dirichlet(2, ..., 2) weights would give var_pop / (2D + 1)
        assert abs(var_hat - v.var() / (2 * len(v) + 1)) > 5 * se_var


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 30))
def test_bootstrap_mean_equals_observed_average_in_expectation(seed, d):
    yt, yp, _ = _data(seed, d, 4, ties=False)
    res = evaluate_documents(yt, yp, metrics=["samples_f1", "hamming_loss"], draws=4000, rng=seed)
    for name in ("samples_f1", "hamming_loss"):
        s = res[name]
        tol = max(5 * s.mc_error, 1e-12)
        assert abs(s.mean - s.score) <= tol
        assert min(s.hdi) >= 0.0 - 1e-12 and max(s.hdi) <= 1.0 + 1e-12


def test_reproducible_whatever_the_chunking(monkeypatch):
    yt, yp, s = _data(5, 300, 4, ties=True)
    a = evaluate_documents(yt, yp, s, draws=3001, rng=11, keep_draws=True)
    monkeypatch.setattr(docs, "WEIGHT_BUDGET", 1)
    b = evaluate_documents(yt, yp, s, draws=3001, rng=11, keep_draws=True)
    for n in a:
        np.testing.assert_allclose(a.metric_draws[n], b.metric_draws[n], rtol=1e-12)
    c = evaluate_documents(yt, yp, s, draws=3001, rng=12)
    assert c["samples_f1"].mean != a["samples_f1"].mean
    assert list(a) == ["samples_f1", "hamming_loss", "subset_accuracy", "average_precision",
                       "one_error", "ranking_loss", "coverage"]  # fmt: skip
    assert "Bayesian bootstrap over 300 documents" in str(a)


# --- bad input -----------------------------------------------------------------------

Y = np.array([[1, 0, 1], [0, 1, 0]])
S = np.array([[0.9, 0.1, 0.5], [0.2, 0.7, 0.1]])


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        (([[1, 2, 0]], [[1, 0, 0]]), {}, ValueError, r"y_true must hold only 0 and 1; got 2"),
        ((Y, [[1, 0, 0.5], [0, 1, 0]]), {}, ValueError, r"y_pred must hold only 0 and 1; got 0\.5"),
        ((Y, Y[:, :2]), {}, ValueError, r"same shape.*got \(2, 3\) and \(2, 2\)"),
        ((Y, None, S[:1]), {}, ValueError, r"scores must have the shape of y_true, \(2, 3\)"),
        (
            (Y, None, [[np.nan, 0, 1], [0, 1, 0]]),
            {},
            ValueError,
            r"scores must be finite \(no NaN or inf\); got nan",
        ),
        (
            (Y, None, [["a", "b", "c"]] * 2),
            {},
            TypeError,
            r"scores must hold integers or floats; got dtype <U1",
        ),
        ((Y,), {}, ValueError, r"pass y_pred \(predicted labels\), scores"),
        ((Y, Y), {"metrics": ["coverage"]}, ValueError, r"'coverage' needs a score matrix"),
        ((Y, None, S), {"metrics": ["samples_f1"]}, ValueError, r"'samples_f1' needs predicted"),
        ((Y, Y), {"metrics": ["f1"]}, ValueError, r"metrics must be names from samples_f1.*'f1'"),
        ((Y, Y), {"metrics": []}, ValueError, r"metrics must name at least one metric"),
        ((Y, Y), {"metrics": 5}, TypeError, r"metrics must be a metric name.*got 5"),
        ((Y, Y), {"zero_division": 0.5}, ValueError, r"zero_division must be 0 or 1; got 0\.5"),
        ((Y, Y), {"f_beta": -1}, ValueError, r"f_beta must be a finite number > 0; got -1"),
        ((Y, Y), {"draws": 0}, ValueError, r"draws must be an integer >= 1"),
        (
            ([[0, 0, 0], [0, 1, 0]], None, S),
            {"metrics": ["margin"]},
            ValueError,
            r"margin is undefined for documents with no true labels.*1 such documents \(first "
            r"at index 0\)",
        ),
        (
            ([[1, 1, 1], [0, 1, 0]], None, S),
            {"metrics": ["margin"]},
            ValueError,
            r"margin is undefined.*with every label true",
        ),
    ],
)
def test_bad_input(args, kwargs, exc, match):
    kw = {"draws": 10, **kwargs}
    with pytest.raises(exc, match=match):
        evaluate_documents(*args, **kw)
    if "draws" not in kwargs:
        with pytest.raises(exc, match=match):
            document_scores(*args, **kwargs)
