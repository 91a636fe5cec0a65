"""Two (or k) classifiers across folds: compare_folds, rank_folds, gate_folds, compare --fold-col.

Each part against an independent truth: the per-fold posteriors are compare_predictions'
(draw for draw) and compare's; the mean over these folds is the average of the folds' draws;
the random-effects part is checked against a two-dimensional quadrature of the normal-normal
posterior; the ranking against rank_statistics of the averaged draws; the gate against the
fraction of draws of the difference.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from f1posterior import (
    Floor,
    NonInferiority,
    compare,
    compare_folds,
    compare_predictions,
    gate_folds,
    rank_folds,
)
from f1posterior.analysis._ranking import rank_statistics
from f1posterior.cli import main


def folds_data(k=4, n=150, qa=0.9, qb=0.8, seed=0, m=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, k * n)
    a = np.where(rng.random(k * n) < qa, y, (y + 1) % m)
    b = np.where(rng.random(k * n) < qb, y, (y + 1) % m)
    return y, a, b, np.repeat(np.arange(k), n)


def mc_tol(p, n, sigmas=5.0):
    return sigmas * np.sqrt(max(p * (1 - p), 1.0 / n) / n) + 1e-12


# ---------------------------------------------------------------- the per-fold posteriors


def test_each_fold_is_compare_predictions_draw_for_draw():
    y, a, b, fold = folds_data()
    res = compare_folds(y, a, b, folds=fold, metric="macro_f1", draws=3000, rng=5)
    root = np.random.SeedSequence(5)
    for k in range(4):
        sel = fold == k
        one = compare_predictions(
            y[sel], a[sel], b[sel], metric="macro_f1", draws=3000, labels=[0, 1],
            rng=np.random.SeedSequence(root.entropy, spawn_key=(0, k)),
        )  # fmt: skip
        assert res.folds[k].mean == one.difference.mean
        assert res.folds[k].score == pytest.approx(one.difference.score)
        assert np.array_equal(res.folds[k].hdi, one.difference.hdi)
    assert res.paired and res.names == ["0", "1", "2", "3"] and res.labels == [0, 1]


def test_lists_of_folds_equal_a_fold_column():
    y, a, b, fold = folds_data(k=3)
    flat = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=2000, rng=1)
    split = [[v[fold == k] for k in range(3)] for v in (y, a, b)]
    lists = compare_folds(*split, metric="accuracy", draws=2000, rng=1)
    assert np.array_equal(flat.draws, lists.draws)
    assert lists.names == ["fold 0", "fold 1", "fold 2"]


def test_folds_read_as_text_are_sorted_by_value():
    y, a, b, fold = folds_data(k=12, n=20)
    res = compare_folds(y, a, b, folds=[str(f) for f in fold], metric="accuracy", draws=1000)
    assert res.names == [str(k) for k in range(12)]


def test_mean_over_these_folds_is_the_average_of_the_folds_draws():
    y, a, b, fold = folds_data()
    res = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=4000, rng=2)
    assert res.difference.mean == pytest.approx(float(np.mean(res.folds.mean)), abs=1e-12)
    # independent folds: the variance of the mean is the mean variance / K
    assert res.difference.std**2 == pytest.approx(np.mean(np.asarray(res.folds.std) ** 2) / 4,
                                                  rel=0.1)  # fmt: skip
    assert res.difference.score == pytest.approx(float(np.mean(res.folds.score)))
    # accuracy: the observed score is the fraction right
    obs = [np.mean(a[fold == k] == y[fold == k]) - np.mean(b[fold == k] == y[fold == k])
           for k in range(4)]  # fmt: skip
    assert np.allclose(res.folds.score, obs)


def test_unpaired_tables_are_compare_of_the_batch():
    ca = np.array([[[45, 5], [5, 45]], [[44, 6], [4, 46]], [[46, 4], [6, 44]]])
    cb = np.array([[[40, 10], [10, 40]], [[41, 9], [9, 41]], [[39, 11], [10, 40]]])
    res = compare_folds(counts_a=ca, counts_b=cb, metric="accuracy", draws=3000, rng=3)
    ref = compare(ca, cb, metric="accuracy", draws=3000,
                  rng=np.random.SeedSequence(3, spawn_key=(0,)))  # fmt: skip
    assert np.array_equal(res.folds.mean, ref.difference.mean)
    assert not res.paired and "not paired" in str(res)


# ----------------------------------------------------------- the random-effects model


def _quadrature(y, s2, a_scale, prob=0.95):
    """Posterior mean of mu and tau, by brute force on a (mu, tau) grid (half-Cauchy tau)."""
    tau = np.linspace(1e-6, 40 * a_scale + 20 * np.sqrt(s2.max()), 6001)
    mu = np.linspace(y.min() - 10 * np.sqrt(s2.max()) - 3 * np.ptp(y),
                     y.max() + 10 * np.sqrt(s2.max()) + 3 * np.ptp(y), 1601)  # fmt: skip
    ll = np.zeros((mu.size, tau.size))
    for yk, s2k in zip(y, s2, strict=True):  # one fold at a time: (mu, tau) arrays only
        var = s2k + tau[None, :] ** 2
        ll -= 0.5 * (np.log(var) + (yk - mu[:, None]) ** 2 / var)
    ll += -np.log1p((tau / a_scale) ** 2)
    p = np.exp(ll - ll.max())
    p /= p.sum()
    return float((p.sum(1) * mu).sum()), float((p.sum(0) * tau).sum())


def test_random_effects_against_a_quadrature():
    y, a, b, fold = folds_data(k=5, seed=4)
    n = 40_000
    res = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=n, rng=4,
                        tau_scale=0.05)  # fmt: skip
    s = np.asarray(res.folds.std) ** 2 * n / (n - 1)
    mu, tau = _quadrature(np.asarray(res.folds.mean), s, 0.05)
    assert abs(res.population.mean - mu) < 5 * res.population.mc_error
    assert res.tau_mean == pytest.approx(tau, rel=0.01)
    # a new fold is wider than the population mean, which is wider than these folds
    w = {k: np.diff(getattr(res, k).hdi)[0] for k in ("difference", "population", "predictive")}
    assert w["difference"] < w["population"] < w["predictive"]


def test_fisher_z_scale_and_its_range():
    y, a, b, fold = folds_data()
    res = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=2000, rng=0,
                        scale="fisher_z")  # fmt: skip
    assert res.scale == "fisher_z" and -1 < res.population.hdi[0] < res.population.hdi[1] < 1


# ----------------------------------------------------------------------- decisions


def test_decisions_and_rope():
    y, a, b, fold = folds_data(qa=0.95, qb=0.75)
    assert compare_folds(y, a, b, folds=fold, draws=2000, rng=0).decision == "A better"
    assert compare_folds(y, b, a, folds=fold, draws=2000, rng=0).decision == "B better"
    same = compare_folds(y, a, a, folds=fold, metric="accuracy", rope=0.05, draws=2000, rng=0)
    assert same.decision == "equivalent" and same.p_equivalent == 1.0
    close = compare_folds(*folds_data(qa=0.85, qb=0.84)[:3], folds=fold, draws=2000, rng=0)
    assert close.decision == "undecided"
    res = compare_folds(y, a, b, folds=fold, draws=2000, rng=0, rope=0.02)
    assert res.p_a_better == pytest.approx(float(np.mean(res.draws > 0.02)))
    assert res.p_a_better + res.p_b_better + res.p_equivalent == pytest.approx(1.0)


def test_population_target_decides_on_the_random_effects_mean():
    y, a, b, fold = folds_data(qa=0.9, qb=0.86, k=3)
    folds = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=4000, rng=0)
    pop = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=4000, rng=0,
                        target="population")  # fmt: skip
    assert pop.target == "population" and "population mean)" in str(pop)
    assert pop.p_a_better == pytest.approx(float(np.mean(pop.draws > 0)))
    assert pop.p_a_better < folds.p_a_better  # three folds: a population is far less certain


def test_outputs():
    y, a, b, fold = folds_data(k=3)
    res = compare_folds(y, a, b, folds=fold, draws=2000, rng=0)
    d = res.to_dict()
    json.dumps(d)
    assert "draws" not in d and d["decision"] == res.decision and len(d["folds"]["mean"]) == 3
    text = str(res)
    assert "mean of these folds" in text and "new fold" in text and "tau" in text
    md = res.to_markdown()
    assert "| population mean |" in md and "decision at probability 0.95" in md


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(y_true=[0, 1, 0], pred_a=[0, 1, 1], pred_b=[0, 0, 0]), r"y_true must be a list of K"),
        (dict(y_true=[0, 1], pred_a=[0, 1], pred_b=[0, 0], folds=[0, 0]), r"at least 2 folds"),
        (dict(y_true=[0, 1], pred_a=[0, 1], pred_b=[0, 0], folds=[0, 1, 1]), r"one label per"),
        (dict(y_true=[[0, 1], [1, 0]], pred_a=[[0, 1]], pred_b=[[0, 1], [1, 0]]), r"pred_a must"),
        (dict(y_true=[0, 1]), r"got no pred_a and no pred_b"),
        (dict(counts_a=[[[1, 0], [0, 1]]] * 2), r"got no counts_b"),
        (dict(counts_a=[[1, 0], [0, 1]], counts_b=[[1, 0], [0, 1]]), r"shape \(K, M, M\)"),
        (dict(counts_a=[[[1, 0], [0, 1]]] * 2, counts_b=[[[1, 0], [0, 1]]] * 2, y_true=[1]),
         r"not both"),
        (dict(counts_a=[[[1, 0], [0, 1]]] * 2, counts_b=[[[1, 0], [0, 1]]] * 2, labels=[0, 1]),
         r"labels names the classes of predictions"),
    ],
)  # fmt: skip
def test_input_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        compare_folds(**kwargs, draws=1000)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(scale="logit"), r"scale must be one of"),
        (dict(tau_scale=0), r"tau_scale must be a finite number > 0"),
        (dict(tau_scale=50), r"tau_scale must be at most 10"),
        (dict(target="these"), r"target must be one of"),
        (dict(names=["a"]), r"names must be 2 distinct names"),
        (dict(prob=0.5), r"prob must be in \(0.5, 1\)"),
    ],
)
def test_setting_errors(kwargs, match):
    y, a, b, fold = folds_data(k=2, n=20)
    with pytest.raises(ValueError, match=match):
        compare_folds(y, a, b, folds=fold, draws=1000, **kwargs)


def test_a_prediction_outside_the_classes_names_the_fold():
    y, a, b, fold = folds_data(k=2, n=20)
    a = a.copy()
    a[25] = 7
    with pytest.raises(ValueError, match=r"fold 1: pred_a holds labels not in"):
        compare_folds(y, a, b, folds=fold, draws=1000)


# ------------------------------------------------------------------------ k models


def test_rank_folds_is_the_ranking_of_the_averaged_paired_draws():
    y, a, b, fold = folds_data(k=3, qa=0.93, qb=0.85, seed=9)
    c = np.where(np.random.default_rng(1).random(y.size) < 0.7, y, 1 - y)
    preds = {"a": a, "b": b, "c": c}
    r = rank_folds(y, preds, folds=fold, metric="accuracy", draws=3000, rng=0)
    assert r.names == ["a", "b", "c"] and r.paired
    assert [r.names[i] for i in np.argsort(r.expected_rank)] == ["a", "b", "c"]
    probs, expected, *_ = rank_statistics(r.draws)
    assert np.array_equal(probs, r.rank_probabilities) and np.array_equal(expected, r.expected_rank)
    # two models: the same draws as compare_folds
    two = rank_folds(y, {"a": a, "b": b}, folds=fold, metric="accuracy", draws=3000, rng=0)
    cf = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=3000, rng=0)
    assert np.allclose(two.draws[0] - two.draws[1], cf.draws)
    with pytest.raises(ValueError, match=r"k >= 2"):
        rank_folds(y, {"a": a}, folds=fold)


# ---------------------------------------------------------------------------- gate


def test_gate_folds_pass_fail_inconclusive():
    y, a, b, fold = folds_data(qa=0.92, qb=0.85)
    ok = gate_folds(y, a, b, [NonInferiority("accuracy", 0.01)], folds=fold, draws=4000)
    (check,) = ok.checks
    assert ok.verdict == "pass" and check.item == "mean of 4 folds" and check.kind == "baseline"
    ref = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=4000,
                        rng=np.random.SeedSequence(20150927))  # fmt: skip
    assert check.prob == pytest.approx(float(np.mean(ref.draws >= -0.01)))
    bad = gate_folds(y, b, a, [NonInferiority("accuracy", 0.01)], folds=fold, draws=4000)
    assert bad.verdict == "fail"
    same = gate_folds(y, a, a, [NonInferiority("accuracy")], folds=fold, draws=2000,
                      max_draws=4000)  # fmt: skip
    assert same.verdict == "inconclusive"
    pop = gate_folds(y, a, b, [NonInferiority("accuracy", 0.01)], folds=fold, draws=4000,
                     target="population")  # fmt: skip
    assert pop.checks[0].item == "population mean of 4 folds"


def test_gate_folds_tables_and_errors():
    ca = np.array([[[45, 5], [5, 45]], [[44, 6], [4, 46]], [[46, 4], [6, 44]]])
    cb = np.array([[[40, 10], [10, 40]], [[41, 9], [9, 41]], [[39, 11], [10, 40]]])
    res = gate_folds(checks=[NonInferiority("accuracy")], counts=ca, baseline=cb, draws=4000)
    assert res.verdict == "pass" and "not paired" in res.checks[0].model
    with pytest.raises(TypeError, match=r"checks\[0\] must be a NonInferiority"):
        gate_folds(checks=[Floor("accuracy", 0.5)], counts=ca, baseline=cb)
    with pytest.raises(ValueError, match=r"relative=True\) is not available across folds"):
        gate_folds(checks=[NonInferiority("accuracy", 0.05, relative=True)], counts=ca,
                   baseline=cb)  # fmt: skip
    with pytest.raises(TypeError, match=r"non-empty list of NonInferiority"):
        gate_folds(checks=[], counts=ca, baseline=cb)


# --------------------------------------------------------------------- command line


@pytest.fixture
def fold_csv(tmp_path):
    y, a, b, fold = folds_data(k=3, n=100, m=3)
    c = np.where(np.random.default_rng(2).random(y.size) < 0.6, y, (y + 2) % 3)
    path = tmp_path / "preds.csv"
    rows = ["y_true,pred_a,pred_b,pred_c,fold"]
    rows += [f"{v},{p},{q},{r},f{k}" for v, p, q, r, k in zip(y, a, b, c, fold, strict=True)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_cli_fold_col(fold_csv, capsys):
    base = ["compare", "--predictions", str(fold_csv), "--fold-col", "fold", "--draws", "2000"]
    assert main([*base, "--models", "pred_a", "pred_b"]) == 0
    out = capsys.readouterr().out
    assert "across 3 folds (paired" in out and "A = pred_a, B = pred_b" in out
    assert main([*base, "--models", "pred_a", "pred_b", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["names"] == ["f0", "f1", "f2"] and d["models"] == {"A": "pred_a", "B": "pred_b"}
    assert main([*base, "--models", "pred_a", "pred_b", "--format", "markdown"]) == 0
    assert "| mean of these folds |" in capsys.readouterr().out
    assert main(base) == 0  # three models: ranked
    assert "Ranking by macro_f1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--fold-col", "nope"], r"no column 'nope'"),
        (["--fold-col", "fold", "--models", "pred_a"], r"two or more model columns"),
        (["--fold-col", "fold", "--models", "pred_a", "fold"], r"must not list the --fold-col"),
        (["--fold-col", "y_true"], r"--fold-col must be its own column"),
        (["--tau-scale", "1"], r"apply across folds; give --fold-col"),
        (["--fold-col", "fold", "--models", "pred_a", "pred_b", "--tau-scale", "0"],
         r"tau_scale must be"),
        (["--fold-col", "fold", "--target", "population"], r"apply to two models"),
        (["--fold-col", "fold", "--models", "pred_a", "pred_b", "--plot", "x.png"],
         r"--plot and --report are not available"),
    ],
)  # fmt: skip
def test_cli_fold_errors_exit_2_one_line(fold_csv, capsys, extra, match):
    status = main(["compare", "--predictions", str(fold_csv), "--draws", "1000", *extra])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert __import__("re").search(match, err), err


def test_cli_fold_col_needs_predictions(capsys):
    assert main(["compare", "a.json", "b.json", "--fold-col", "fold"]) == 2
    assert "--fold-col fold names a column of --predictions" in capsys.readouterr().err


@pytest.fixture
def gate_csvs(tmp_path):
    y, a, b, fold = folds_data(k=4, n=150, qa=0.93, qb=0.85, m=3)
    paths = {}
    for name, pred in (("new", a), ("old", b)):
        path = tmp_path / f"{name}.csv"
        rows = ["id,y_true,y_pred,fold"]
        rows += [f"d{i},{v},{p},{k}" for i, (v, p, k) in enumerate(zip(y, pred, fold, strict=True))]
        path.write_text("\n".join(rows) + "\n")
        paths[name] = str(path)
    return paths, (y, a, b, fold)


def test_cli_gate_fold_col(gate_csvs, capsys):
    paths, (y, a, b, fold) = gate_csvs
    base = ["gate", "--fold-col", "fold", "--metric", "macro_f1", "--draws", "4000"]
    assert main([*base, paths["new"], "--baseline", paths["old"], "--max-drop", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "PASS  macro_f1 [mean of 4 folds]" in out and "paired model per fold" in out
    ref = gate_folds(y, a, b, [NonInferiority("macro_f1", 0.01)], folds=fold, draws=4000)
    assert f"P = {ref.checks[0].prob:.4f}" in out
    assert main([*base, paths["old"], "--baseline", paths["new"]]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_cli_gate_fold_col_joins_on_ids(gate_csvs, tmp_path, capsys):
    paths, _ = gate_csvs
    lines = open(paths["old"]).read().splitlines()
    shuffled = tmp_path / "old_shuffled.csv"
    shuffled.write_text("\n".join([lines[0], *lines[:0:-1]]) + "\n")
    base = ["gate", paths["new"], "--fold-col", "fold", "--metric", "macro_f1", "--draws", "4000"]
    assert main([*base, "--baseline", paths["old"], "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)["checks"][0]["prob"]
    assert main([*base, "--baseline", str(shuffled), "--id-col", "id", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["checks"][0]["prob"] == first
    assert main([*base, "--baseline", str(shuffled)]) == 2
    assert "give --id-col NAME" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--min", "0.5"], r"across folds; give --baseline BASEFILE"),
        (["--baseline", "{old}", "--metric", "accuracy", "--min", "0.5"], r"floors \(--min"),
        (["--baseline", "{moved}"], r"in another fold than in"),
    ],
)
def test_cli_gate_fold_col_errors_exit_2_one_line(gate_csvs, tmp_path, capsys, extra, match):
    paths, _ = gate_csvs
    lines = open(paths["old"]).read().splitlines()
    moved = tmp_path / "moved.csv"
    moved.write_text("\n".join([lines[0], lines[1][: lines[1].rindex(",")] + ",3", *lines[2:]]))
    argv = [x.format(old=paths["old"], moved=moved) for x in extra]
    status = main(["gate", paths["new"], "--fold-col", "fold", "--metric", "macro_f1", *argv])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert __import__("re").search(match, err), err
