"""plan() for clustered documents: the design effect turns documents into clusters.

The plan of clustered documents with design effect D is the plan of the effective
documents (counts / D) scaled back by D (Kish); checked against that identity, against
the plain plan at D = 1, and for its errors.
"""

from __future__ import annotations

import json
import math

import pytest

from f1posterior import plan

COUNTS = [[45, 5], [8, 42]]
KW = dict(metric="recall", threshold=0.8, simulations=100, rng=1)


def test_design_effect_one_is_the_plain_plan_and_counts_clusters():
    plain = plan(COUNTS, **KW)
    same = plan(COUNTS, design_effect=1.0, cluster_size=5, **KW)
    assert same.additional_documents == plain.additional_documents
    assert same.additional_clusters == math.ceil(plain.additional_documents / 5)
    assert "clusters of documents" in str(same)
    d = json.loads(json.dumps(same.to_dict()))
    assert d["clusters"]["unit"] == "clusters of documents"
    assert d["clusters"]["additional_clusters"] == same.additional_clusters


def test_the_plan_of_the_effective_documents_scaled_back():
    res = plan(COUNTS, icc=0.1, cluster_size=11, **KW)  # D = 1 + 10 * 0.1 = 2
    eff = plan([[22, 2], [4, 21]], **KW)  # the counts / 2, rounded to whole documents
    assert res.design_effect == pytest.approx(2.0)
    assert res.documents == 100
    assert res.additional_documents == 2 * eff.additional_documents
    assert [p.documents for p in res.curve] == [2 * p.documents for p in eff.curve]
    assert [p.assurance for p in res.curve] == [p.assurance for p in eff.curve]
    assert res.additional_clusters == math.ceil(res.additional_documents / 11)
    assert any("design effect 2" in a for a in res.assumptions)


def test_without_clusters_nothing_changes():
    res = plan(COUNTS, **KW)
    assert res.design_effect is None and res.additional_clusters is None
    assert "clusters" not in res.to_dict() and "clusters of documents" not in str(res)


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        (dict(design_effect=0.5), ValueError, r"design_effect must be a finite number >= 1"),
        (dict(icc=0.1), ValueError, "icc needs cluster_size"),
        (dict(icc=1.5, cluster_size=3), ValueError, r"icc must be in \[0, 1\]; got 1.5"),
        (dict(icc=0.1, cluster_size=3, design_effect=2), ValueError, "not both"),
        (dict(cluster_size=0), ValueError, "cluster_size must be a finite number >= 1"),
        (dict(design_effect="2"), TypeError, "design_effect must be a number"),
        (dict(design_effect=1e6), ValueError, "worth less than one independent document"),
    ],
)
def test_bad_clustering_arguments(kw, error, match):
    with pytest.raises(error, match=match):
        plan(COUNTS, **KW, **kw)
