"""Clustered documents: the Bayesian bootstrap over clusters of per-cluster confusion counts.

Each claim against an independent truth: per-cluster counts against ``confusion_matrix``
of each cluster; one document per cluster against the document-level bootstrap (the
Dirichlet of the counts, an identity); the posterior standard deviation of micro-F1
(accuracy) against the delta-method variance of a ratio of cluster totals; the paired
comparison's draws against the one-model draws of the same weights. Coverage from known
truths is in tests/test_cluster_calibration.py.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

from f1posterior import (
    Floor,
    NonInferiority,
    compare_predictions,
    confusion_matrix,
    evaluate,
    evaluate_clusters,
    gate,
)
from f1posterior.posterior import MIN_CLUSTERS, cluster_tables, format_markdown
from f1posterior.posterior._clusters import (
    effective_clusters,
    small_sample_concentration,
    t_quantile,
)


def clustered(n_clusters: int = 60, size: int = 20, spread: float = 0.3, seed: int = 0):
    """Binary predictions of ``n_clusters`` users whose accuracies differ (spread)."""
    rng = np.random.default_rng(seed)
    user = np.repeat(np.arange(n_clusters), size)
    skill = np.clip(rng.normal(0.8, spread / 2, n_clusters), 0.05, 0.99)[user]
    y = rng.integers(0, 2, user.size)
    a = np.where(rng.random(user.size) < skill, y, 1 - y)
    b = np.where(rng.random(user.size) < skill - 0.05, y, 1 - y)
    return y, a, b, user


def test_cluster_tables_are_each_clusters_confusion_matrix():
    y, a, _, user = clustered(5, 7)
    user = np.array([f"u{u}" for u in user])
    ct = cluster_tables(y, a, user)
    assert ct.clusters == [f"u{i}" for i in range(5)]
    for i, u in enumerate(ct.clusters):
        mine = user == u
        assert ct.tables[i].tolist() == confusion_matrix(y[mine], a[mine], [0, 1]).counts.tolist()
    assert ct.tables.sum(axis=0).tolist() == confusion_matrix(y, a).counts.tolist()
    assert ct.sizes.tolist() == [7] * 5


@pytest.mark.parametrize(
    ("cluster", "error", "match"),
    [
        ([1, 2, 3], ValueError, r"cluster must give one cluster id per document \(4\); got 3"),
        (["a"] * 4, ValueError, r"at least two clusters.*'a'.*all 4 documents"),
        ([1.0, float("nan"), 2.0, 2.0], ValueError, "cluster must not contain NaN"),
        ([1, "a", 1, "a"], TypeError, "cluster must hold labels of one type"),
        ("abcd", TypeError, "cluster must be a 1-D sequence"),
    ],
)
def test_bad_cluster_ids_are_refused_by_name(cluster, error, match):
    with pytest.raises(error, match=match):
        evaluate_clusters([0, 1, 0, 1], [0, 1, 1, 1], cluster)


def test_score_is_the_metric_of_the_pooled_counts():
    y, a, _, user = clustered()
    res = evaluate_clusters(y, a, user, metrics=["micro_f1", "macro_f1", "f1"], draws=2_000)
    plain = evaluate(confusion_matrix(y, a).counts, metrics=["micro_f1", "macro_f1", "f1"])
    for name in ("micro_f1", "macro_f1", "f1"):
        np.testing.assert_allclose(res[name].score, plain[name].score, rtol=1e-12)


def test_one_document_per_cluster_is_the_document_bootstrap():
    """Clusters of one document: the design effect is 1 (weights of documents, summed by
    cell, are the Dirichlet of the counts), within its Monte Carlo error."""
    y, a, _, _ = clustered(1, 3_000)
    res = evaluate_clusters(y, a, np.arange(y.size), draws=20_000, rng=1)
    for name in ("micro_f1", "macro_f1"):
        # variance ratio of two independent 20,000-draw samples: relative sd sqrt(4 / 20,000)
        assert abs(res.design_effect[name] - 1.0) < 5 * math.sqrt(4 / 20_000)
        assert res.effective_documents[name] == pytest.approx(3_000 / res.design_effect[name])


def test_micro_f1_spread_matches_the_ratio_estimators_delta_method():
    """sd of micro-F1 (accuracy: correct / documents) under Dir(a 1_C) cluster weights is
    sqrt(sum_c z_c^2 / (C (C a + 1))) / mean size, z_c = correct_c - acc n_c."""
    y, a, _, user = clustered(300, 12, spread=0.4, seed=3)
    res = evaluate_clusters(y, a, user, metrics="micro_f1", draws=40_000, rng=2)
    ct = cluster_tables(y, a, user)
    n_c = ct.sizes.astype(float)
    correct = np.trace(ct.tables, axis1=1, axis2=2).astype(float)
    acc = correct.sum() / n_c.sum()
    c = n_c.size
    conc = small_sample_concentration(ct.sizes, 0.95)
    z = correct - acc * n_c
    sd = math.sqrt((z**2).sum() / (c * (c * conc + 1))) / n_c.mean()
    assert res["micro_f1"].std == pytest.approx(sd, rel=0.03)  # delta method at C = 300
    assert res.design_effect["micro_f1"] > 2  # users differ: the clustering matters


def test_small_sample_concentration_and_its_t_quantile():
    # t quantiles against tables (Abramowitz and Stegun, table 26.10)
    for nu, q in ((1, 12.706), (4, 2.776), (9, 2.262), (29, 2.045)):
        assert t_quantile(0.975, nu) == pytest.approx(q, abs=2e-3)
    assert effective_clusters(np.array([10, 10, 10, 10])) == 4
    assert effective_clusters(np.array([1, 1, 1, 100])) == pytest.approx(103**2 / 10_003)
    # many equal clusters: the Bayesian bootstrap itself (a -> 1); few: wider (a < 1)
    assert small_sample_concentration(np.full(10_000, 5), 0.95) == pytest.approx(1, abs=2e-3)
    assert small_sample_concentration(np.full(10, 5), 0.95) < 0.6


def test_reproducible_and_independent_of_the_other_metrics():
    y, a, _, user = clustered()
    one = evaluate_clusters(y, a, user, metrics="macro_f1", draws=3_000, rng=7, keep_draws=True)
    two = evaluate_clusters(
        y, a, user, metrics=["micro_f1", "macro_f1"], draws=3_000, rng=7, keep_draws=True
    )
    assert one.metric_draws is not None and two.metric_draws is not None
    np.testing.assert_array_equal(one.metric_draws["macro_f1"], two.metric_draws["macro_f1"])
    assert two == evaluate_clusters(
        y, a, user, metrics=["micro_f1", "macro_f1"], draws=3_000, rng=7, keep_draws=True
    )


def test_the_unit_is_named_in_text_markdown_and_json():
    y, a, _, user = clustered()
    res = evaluate_clusters(y, a, user, draws=2_000, rng=0)
    unit = "60 clusters of documents (1,200 documents)"
    assert unit in str(res) and "design effect micro_f1" in str(res)
    assert unit in format_markdown(res)
    d = json.loads(json.dumps(res.to_dict()))
    assert unit in d["prior"]
    assert d["clusters"]["unit"] == "clusters of documents"
    assert d["clusters"]["n_clusters"] == 60 and d["clusters"]["n_documents"] == 1_200
    assert d["clusters"]["design_effect"]["micro_f1"] == res.design_effect["micro_f1"]


def test_few_clusters_warn():
    y, a, _, user = clustered(MIN_CLUSTERS - 1, 5)
    with pytest.warns(UserWarning, match=f"only {MIN_CLUSTERS - 1} clusters of documents"):
        evaluate_clusters(y, a, user, draws=1_000)
    y, a, _, user = clustered(MIN_CLUSTERS, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate_clusters(y, a, user, draws=1_000)


def test_compare_predictions_pairs_the_models_by_cluster_weights():
    y, a, b, user = clustered()
    res = compare_predictions(y, a, b, cluster=user, draws=4_000, rng=5)
    one = evaluate_clusters(y, a, user, metrics="macro_f1", draws=4_000, rng=5)["macro_f1"]
    # model A's draws are exactly its own cluster-bootstrap draws (same weights, same streams)
    for field in ("mean", "std", "hdi"):
        np.testing.assert_allclose(getattr(res.a, field), getattr(one, field), rtol=1e-12)
    assert "60 clusters of documents (1,200 documents)" in res.prior
    assert "design effect of the difference" in res.prior
    # B differs from A on a third of the users only: the difference is clustered
    b = np.where(user % 3 == 0, 1 - a, a)
    res = compare_predictions(y, a, b, cluster=user, draws=4_000, rng=5)
    naive = compare_predictions(y, a, b, draws=4_000, rng=5)
    assert np.diff(res.difference.hdi)[0] > 1.5 * np.diff(naive.difference.hdi)[0]


def test_gate_on_clustered_predictions_names_the_unit():
    y, a, b, user = clustered()
    checks = [Floor("micro_f1", 0.5), NonInferiority("macro_f1", 0.2)]
    res = gate(y_true=y, y_pred=a, baseline_pred=b, cluster=user, checks=checks, draws=2_000)
    assert res.passed
    assert "60 clusters of documents" in res.prior
    for c in res.checks:
        assert "60 clusters of documents (1,200 documents)" in c.text
    assert "clusters of documents" in res.to_markdown()
    assert "clusters of documents" in json.dumps(res.to_dict())


def test_gate_cluster_needs_predictions():
    with pytest.raises(TypeError, match="cluster= goes with predictions"):
        gate([[5, 1], [1, 5]], [Floor("micro_f1", 0.5)], cluster=[0, 1])
    with pytest.raises(ValueError, match="cluster must give one cluster id per document"):
        gate(y_true=[0, 1, 1], y_pred=[0, 1, 0], cluster=[0, 1], checks=[Floor("micro_f1", 0.5)])
