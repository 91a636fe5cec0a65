"""pandas and ArviZ adapters, and scikit-learn outputs as input."""

from __future__ import annotations

import sys
import warnings

import matplotlib

matplotlib.use("Agg")  # tests only

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.datasets import load_iris  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import (  # noqa: E402
    ConfusionMatrixDisplay,
    confusion_matrix,
    multilabel_confusion_matrix,
)
from sklearn.metrics import f1_score as sk_f1  # noqa: E402

from f1posterior import evaluate  # noqa: E402
from f1posterior.integrations.sklearn import evaluate_estimator
from f1posterior.io._data import figure3  # noqa: E402
from f1posterior.posterior._frames import to_dataframe, to_inference_data

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    import arviz as az  # noqa: E402

LABELS = list("ABCDE")


@pytest.fixture(scope="module")
def res():
    return evaluate(
        figure3(),
        metrics=["micro_f1", "macro_f1", "f1"],
        draws=4000,
        ref=0.8,
        rng=2,
        keep_draws=True,
        labels=LABELS,
    )


# ------------------------------------------------------------------ pandas


def test_dataframe_one_row_per_metric_and_class(res):
    df = res.to_dataframe()
    assert list(df.columns) == [
        "metric", "class", "score", "mean", "median", "std", "mc_error",
        "hdi_low", "hdi_high", "eti_low", "eti_high",
        "p_below", "p_above", "ref", "prior_dominated", "ci_prob", "draws", "exact", "prior",
    ]  # fmt: skip
    assert list(df["metric"]) == ["micro_f1", "macro_f1"] + ["f1"] * 5
    assert df["class"].iloc[:2].isna().all() and list(df["class"].iloc[2:]) == LABELS
    for i, name in enumerate(["micro_f1", "macro_f1"]):
        s = res[name]
        row = df.iloc[i]
        for f in ("score", "mean", "median", "std", "mc_error", "p_below", "p_above"):
            assert row[f] == getattr(s, f)
        assert (row["hdi_low"], row["hdi_high"]) == tuple(s.hdi)
        assert (row["eti_low"], row["eti_high"]) == tuple(s.eti)
        assert row["prior_dominated"] == s.prior_dominated and row["ci_prob"] == 0.95
        assert row["ref"] == 0.8 and row["draws"] == 4000 and not row["exact"]
    f1 = df[df["metric"] == "f1"]
    np.testing.assert_array_equal(f1["mean"], res["f1"].mean)
    np.testing.assert_array_equal(f1[["hdi_low", "hdi_high"]], res["f1"].hdi)
    np.testing.assert_array_equal(f1["prior_dominated"], res["f1"].prior_dominated)


def test_dataframe_of_a_2d_batch_records_the_interval_probability():
    c = np.stack([figure3(), figure3() + 5 * np.eye(5, dtype=int)] * 3).reshape(3, 2, 5, 5)
    r = evaluate(c, metrics=["macro_f1"], draws=500, ci_prob=0.9, rng=0)
    df = to_dataframe(r)
    assert len(df) == 6
    assert {"matrix_0", "matrix_1", "hdi_low", "eti_high"} <= set(df.columns)
    assert (df["ci_prob"] == 0.9).all() and df.attrs["ci_prob"] == 0.9
    assert "class" not in df.columns and "p_below" not in df.columns
    assert list(zip(df["matrix_0"], df["matrix_1"], strict=True)) == [
        (i, j) for i in range(3) for j in range(2)
    ]
    np.testing.assert_array_equal(df["mean"], r["macro_f1"].mean.ravel())
    np.testing.assert_array_equal(df["hdi_low"], r["macro_f1"].hdi[..., 0].ravel())


def test_dataframe_names_a_1d_batch():
    c = np.stack([figure3(), figure3().T])
    r = evaluate(c, metrics=["micro_f1", "recall"], draws=500, rng=0)
    df = r.to_dataframe(names=["model a", "model b"])
    assert len(df) == 2 + 2 * 5
    assert list(df["matrix"][:2]) == ["model a", "model b"]
    assert list(df["class"][2:7]) == [0, 1, 2, 3, 4]  # no labels: class indices
    np.testing.assert_array_equal(df["score"][7:], r["recall"].score[1])


def test_dataframe_bad_input(res):
    with pytest.raises(TypeError, match=r"result must be an Evaluation from evaluate\(\); got 3"):
        to_dataframe(3)
    with pytest.raises(
        ValueError, match=r"names must give one name per matrix .*\(\)\); got \['x'\]"
    ):
        to_dataframe(res, names=["x"])


def test_missing_pandas_names_the_extra(res, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install f1posterior\[pandas\]"):
        res.to_dataframe()


# ------------------------------------------------------------------ ArviZ


def test_inference_data_holds_the_draws(res):
    idata = res.to_inference_data()
    post = idata.posterior
    assert dict(post["micro_f1"].sizes) == {"chain": 1, "draw": 4000}
    assert dict(post["f1"].sizes) == {"chain": 1, "draw": 4000, "class": 5}
    assert list(post["f1"].coords["class"].values) == LABELS
    np.testing.assert_array_equal(post["micro_f1"].values[0], res.metric_draws["micro_f1"])
    np.testing.assert_array_equal(post["f1"].values[0], res.metric_draws["f1"].T)
    assert float(idata.constant_data["macro_f1"]) == res["macro_f1"].score
    assert idata.posterior.attrs["prior"] == res.prior


def test_arviz_summary_agrees_and_ess_is_the_draw_count(res):
    idata = to_inference_data(res)
    s = az.summary(idata, hdi_prob=0.95, round_to="none")
    assert s.loc["micro_f1", "mean"] == pytest.approx(res["micro_f1"].mean, rel=1e-12)
    assert s.loc["f1[C]", "sd"] == pytest.approx(res["f1"].std[2], rel=1e-12)
    # ArviZ's HDI uses the same sorted-window estimator; windows differ by at most one draw
    lo, hi = s.loc["macro_f1", ["hdi_2.5%", "hdi_97.5%"]]
    x = np.sort(res.metric_draws["macro_f1"])
    step = np.max(np.diff(x[np.searchsorted(x, res["macro_f1"].hdi[0]) - 3 :][:8]))
    assert abs(lo - res["macro_f1"].hdi[0]) <= 2 * step + 1e-12
    assert hi == pytest.approx(res["macro_f1"].hdi[1], abs=0.002)
    # independent draws: ESS estimates are near the number of draws; r-hat is undefined
    assert s["ess_bulk"].between(0.85 * 4000, 1.15 * 4000).all()
    assert s["r_hat"].isna().all()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # ArviZ vs matplotlib 3.11, not ours
def test_arviz_plot_posterior_works(res):
    idata = res.to_inference_data()
    axes = az.plot_posterior(idata, var_names=["micro_f1"], ref_val=0.8, hdi_prob=0.95)
    ax = np.ravel(axes)[0]
    assert "micro_f1" in ax.get_title()
    import matplotlib.pyplot as plt

    plt.close("all")


def test_inference_data_of_a_batch():
    c = np.stack([figure3(), figure3().T, figure3()])
    r = evaluate(c, metrics=["macro_f1", "f1"], draws=300, rng=0, keep_draws=True)
    idata = to_inference_data(r, names=["x", "y", "z"])
    assert dict(idata.posterior["f1"].sizes) == {"chain": 1, "draw": 300, "matrix": 3, "class": 5}
    assert list(idata.posterior.coords["matrix"].values) == ["x", "y", "z"]
    np.testing.assert_array_equal(
        idata.posterior["macro_f1"].values[0], r.metric_draws["macro_f1"].T
    )


def test_inference_data_needs_draws():
    r = evaluate(figure3(), draws=100, rng=0)
    with pytest.raises(ValueError, match=r"keep_draws=True"):
        r.to_inference_data()


def test_missing_arviz_names_the_extra(res, monkeypatch):
    monkeypatch.setitem(sys.modules, "arviz", None)
    with pytest.raises(ImportError, match=r"pip install f1posterior\[arviz\]"):
        to_inference_data(res)


# ------------------------------------------------------------------ scikit-learn outputs


@pytest.fixture(scope="module")
def iris_split():
    X, y = load_iris(return_X_y=True)
    clf = LogisticRegression(max_iter=1000).fit(X[::2], y[::2])
    return clf, X[1::2], y[1::2]


def test_sklearn_confusion_matrix_is_accepted(iris_split):
    clf, X, y = iris_split
    pred = clf.predict(X)
    cm = confusion_matrix(y, pred)
    assert cm.dtype == np.int64
    r = evaluate(cm, metrics=["micro_f1", "macro_f1", "f1"], draws=500, rng=0)
    assert r["micro_f1"].score == pytest.approx(sk_f1(y, pred, average="micro"), abs=1e-15)
    assert r["macro_f1"].score == pytest.approx(sk_f1(y, pred, average="macro"), abs=1e-15)
    np.testing.assert_allclose(r["f1"].score, sk_f1(y, pred, average=None), atol=1e-15)


def test_sklearn_display_matrix_is_accepted(iris_split):
    clf, X, y = iris_split
    disp = ConfusionMatrixDisplay.from_estimator(clf, X, y)
    r = evaluate(disp.confusion_matrix, draws=500, rng=0, labels=disp.display_labels)
    assert r.labels == ["0", "1", "2"]
    np.testing.assert_array_equal(disp.confusion_matrix, confusion_matrix(y, clf.predict(X)))
    normalised = ConfusionMatrixDisplay.from_estimator(clf, X, y, normalize="true")
    with pytest.raises(ValueError, match=r"looks normalised.*raw document counts"):
        evaluate(normalised.confusion_matrix, draws=100)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_sklearn_multilabel_confusion_matrix_is_a_batch_of_binary_tables():
    rng = np.random.default_rng(4)
    Y = rng.random((300, 4)) < [0.2, 0.4, 0.5, 0.7]
    P = np.where(rng.random(Y.shape) < 0.8, Y, ~Y)
    mcm = multilabel_confusion_matrix(Y, P)
    assert mcm.shape == (4, 2, 2)
    r = evaluate(mcm, metrics="f1", draws=500, rng=0)
    assert r.batch_shape == (4,)
    np.testing.assert_allclose(r["f1"].score[:, 1], sk_f1(Y, P, average=None), atol=1e-15)


def test_evaluate_estimator_equals_evaluate_on_the_matrix(iris_split):
    clf, X, y = iris_split
    r = evaluate_estimator(clf, X, y, metrics=["macro_f1", "f1"], draws=1000, rng=7)
    ref = evaluate(
        confusion_matrix(y, clf.predict(X), labels=clf.classes_),
        metrics=["macro_f1", "f1"],
        draws=1000,
        rng=7,
    )
    assert r.labels == ["0", "1", "2"]
    assert r["macro_f1"].mean == ref["macro_f1"].mean
    np.testing.assert_array_equal(r["f1"].hdi, ref["f1"].hdi)


def test_evaluate_estimator_with_string_classes(iris_split):
    _, X, y = iris_split
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = LogisticRegression(max_iter=1000).fit(X, names)
    r = evaluate_estimator(clf, X, names, metrics="f1", draws=300, rng=0)
    assert r.labels == ["setosa", "versicolor", "virginica"]
    np.testing.assert_allclose(r["f1"].score, sk_f1(names, clf.predict(X), average=None))


def test_evaluate_estimator_bad_input(iris_split):
    clf, X, y = iris_split
    with pytest.raises(TypeError, match=r"estimator must be a fitted classifier .*'predict'"):
        evaluate_estimator(object(), X, y)
    with pytest.raises(ValueError, match=r"y_true must only hold classes .*\[0, 1, 2\]\); got 7"):
        evaluate_estimator(clf, X, np.where(np.arange(len(y)) == 3, 7, y))
    with pytest.raises(ValueError, match=r"y_true must have one label per row of X; got 74"):
        evaluate_estimator(clf, X, y[:-1])
    with pytest.raises(ValueError, match=r"y_true must be a 1-D array .*got shape \(75, 1\)"):
        evaluate_estimator(clf, X, y[:, None])
