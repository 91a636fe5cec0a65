"""Numbers that make no sense are refused with one clear error, not turned into a result.

Counts too large to add up exactly, priors and prevalence concentrations outside the
normal float range, a working scale that does not fit the metric, a tau scale that
overflows, too few draws for a summary, and a labelled prevalence read by position.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from f1posterior import Floor, aggregate, evaluate, gate
from f1posterior._core.limits import MAX_EXACT_TOTAL, MIN_CONCENTRATION, MIN_PRIOR_CHECK_DRAWS
from f1posterior._core.validation import MIN_SUMMARY_DRAWS, check_counts
from f1posterior.analysis._aggregate import MAX_TAU_SCALE
from f1posterior.cli import main

TINY = float(np.finfo(np.float64).tiny)
TABLE = [[40, 10], [5, 45]]
FOLDS = [[[40, 10], [5, 45]], [[38, 12], [6, 44]], [[42, 8], [4, 46]]]


def _one_line_error(capsys, argv: list[str], *expected: str) -> str:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses an argument by exiting
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------------------- counts


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_counts_of_1e308_are_refused_on_the_command_line(tmp_path, capsys, suffix):
    path = tmp_path / f"huge{suffix}"
    if suffix == ".json":
        path.write_text("[[1e308, 1e308], [1e308, 1e308]]")
    else:
        path.write_text("1e308,1e308\n1e308,1e308\n")
    _one_line_error(
        capsys, ["summarize", str(path), "--draws", "1000"], "total <= 2**53", "got a total of"
    )


def test_a_total_of_2_to_the_53_is_accepted_and_one_more_is_refused():
    half = float(2**52)
    ok = check_counts([[half, half - 1], [1, 0]])  # exactly 2**53
    assert ok.sum() == MAX_EXACT_TOTAL
    # 2**53 + 1: the float sum rounds to 2**53 (ties to even), so only an exact sum sees it
    bad = np.array([[half, half], [1.0, 0.0]])
    assert bad.sum() == MAX_EXACT_TOTAL  # the negative control: float64 cannot tell
    with pytest.raises(ValueError, match=r"total <= 2\*\*53 = 9,007,199,254,740,992\); got a "
                       r"total of 9,007,199,254,740,993$"):  # fmt: skip
        check_counts(bad)


def test_the_table_of_a_batch_whose_total_is_too_large_is_named():
    batch = np.ones((3, 2, 2))
    batch[2, 0, 0] = 2.0**60
    with pytest.raises(ValueError, match=r"at batch index \(2,\)"):
        check_counts(batch)
    with pytest.raises(ValueError, match=r"counts must be whole-number counts small enough"):
        evaluate(batch, draws=1000)


# ---------------------------------------------------------------- priors, prevalence


@pytest.mark.parametrize("key", ["alpha", "beta"])
@pytest.mark.parametrize("value", [5e-324, TINY / 2, 1e301])
def test_priors_outside_the_normal_float_range_are_refused(key, value):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning first
        with pytest.raises(ValueError, match=rf"{key} must be finite, > 0 and at most 1e300 "
                           r"everywhere; got minimum .*normal floats from 2\.2250738585072014e-308"):  # fmt: skip
            evaluate(TABLE, draws=1000, rng=0, **{key: value})


def test_the_smallest_normal_float_is_a_valid_prior():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = evaluate(TABLE, metrics=["accuracy"], alpha=TINY, beta=TINY, draws=1000, rng=0)
    assert MIN_CONCENTRATION == TINY
    assert 0.8 < res["accuracy"].mean < 0.9


def test_a_dirichlet_prevalence_of_1e308_is_refused(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(TABLE))
    argv = ["summarize", str(path), "--draws", "1000", "--prevalence", "dirichlet:1e308,1e308"]
    _one_line_error(capsys, argv, "prevalence", "1e+308", "to 1e+300")


def test_a_large_dirichlet_prevalence_keeps_the_observed_score_at_its_mean():
    # 1e300 is accepted, and the observed score is that of the mean prevalence (1/2, 1/2):
    # the score printed as 0.000 came from a sum that overflowed
    big = evaluate(TABLE, metrics=["accuracy"], prevalence=("dirichlet", [1e300, 1e300]),
                   draws=1000, rng=0)  # fmt: skip
    half = evaluate(TABLE, metrics=["accuracy"], prevalence=[0.5, 0.5], draws=1000, rng=0)
    assert big["accuracy"].score == pytest.approx(half["accuracy"].score, rel=1e-12)
    assert big["accuracy"].score == pytest.approx(0.5 * 40 / 50 + 0.5 * 45 / 50)


@pytest.mark.parametrize(
    "prevalence",
    [[5e-324, 1.0], ("dirichlet", [5e-324, 1.0]), ("dirichlet", [1.0, 1e301])],
)
def test_prevalences_outside_the_normal_float_range_are_refused(prevalence):
    with pytest.raises(ValueError, match=r"normal floats from 2\.2250738585072014e-308"):
        evaluate(TABLE, prevalence=prevalence, draws=1000, rng=0)


# ------------------------------------------------------------------------- aggregate


def test_a_tau_scale_that_overflows_is_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match=r"tau_scale must be at most 1e\+06 .*got 1e\+300"):
        aggregate(FOLDS, metric="accuracy", tau_scale=1e300, draws=1000, rng=0)
    files = []
    for i, t in enumerate(FOLDS):
        files.append(tmp_path / f"f{i}.json")
        files[-1].write_text(json.dumps(t))
    argv = ["aggregate", *map(str, files), "--draws", "1000", "--tau-scale", "1e300"]
    _one_line_error(capsys, argv, "--tau-scale", "at most 1e+06", "'1e300'")


@pytest.mark.parametrize("scale", ["logit", "fisher_z", "identity"])
def test_the_largest_tau_scale_gives_a_finite_heterogeneity(scale):
    metric = "mcc" if scale == "fisher_z" else "accuracy"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = aggregate(FOLDS, metric=metric, scale=scale, tau_scale=MAX_TAU_SCALE, draws=1000,
                        rng=0)  # fmt: skip
    het = res.heterogeneity
    assert het is not None
    values = [het.tau_median, het.tau_mean, *het.tau_interval, het.i2_median, *het.i2_interval]
    assert np.isfinite(values).all()
    assert np.isfinite(res.summary.hdi).all()


def test_a_log_scale_aggregate_that_overflows_is_refused():
    def odds_ratio(t):
        t = np.asarray(t, dtype=float)
        return t[..., 0, 0] * t[..., 1, 1] / (t[..., 0, 1] * t[..., 1, 0])

    ok = aggregate(FOLDS, metric=odds_ratio, scale="log", draws=1000, rng=0)
    assert np.isfinite(ok.summary.hdi).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"tau_scale=100 lets the between-table spread "
                           r"overflow on the log scale"):  # fmt: skip
            aggregate(FOLDS, metric=odds_ratio, scale="log", tau_scale=100, draws=1000, rng=0)


@pytest.mark.parametrize(
    ("metric", "scale", "fits"),
    [("mcc", "log", "'fisher_z' or 'identity'"), ("mcc", "logit", "'fisher_z' or 'identity'"),
     ("accuracy", "fisher_z", "'logit' or 'identity'"), ("macro_f1", "log", "'logit'")],
)  # fmt: skip
def test_a_scale_that_does_not_fit_the_metric_is_refused(metric, scale, fits):
    with pytest.raises(ValueError, match=rf"scale must fit the metric's range: {metric} lies in "
                       rf".*use {fits}.*got scale='{scale}'"):  # fmt: skip
        aggregate(FOLDS, metric=metric, scale=scale, draws=1000, rng=0)


def test_mcc_on_the_log_scale_is_refused_on_the_command_line(tmp_path, capsys):
    files = []
    for i, t in enumerate(FOLDS):
        files.append(tmp_path / f"f{i}.json")
        files[-1].write_text(json.dumps(t))
    argv = ["aggregate", *map(str, files), "--draws", "1000", "--scale", "log", "--metric", "mcc"]
    _one_line_error(capsys, argv, "mcc lies in [-1, 1]", "got scale='log'")


@pytest.mark.parametrize(("metric", "scale"), [("mcc", "fisher_z"), ("mcc", "identity"),
                                               ("accuracy", "logit"), ("accuracy", "identity")])  # fmt: skip
def test_scales_that_fit_stay_inside_the_metric_range(metric, scale):
    res = aggregate(FOLDS, metric=metric, scale=scale, draws=2000, rng=1)
    lo, hi = (-1.0, 1.0) if metric == "mcc" else (0.0, 1.0)
    if scale != "identity":  # the transforms map back into the range
        assert lo <= res.summary.hdi[0] <= res.summary.hdi[1] <= hi
        assert lo <= res.predictive.hdi[0] <= res.predictive.hdi[1] <= hi


# ----------------------------------------------------------------------------- draws


def test_summarize_refuses_a_single_draw(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(TABLE))
    _one_line_error(
        capsys,
        ["summarize", str(path), "--draws", "1"],
        "argument --draws: expected an integer >= 2; got '1'",
    )


def test_evaluate_needs_two_draws_for_a_summary():
    assert MIN_SUMMARY_DRAWS == 2
    with pytest.raises(ValueError, match=r"draws must be at least 2 \(a summary's standard "
                       r"deviation and Monte Carlo error are estimated from the draws\); got 1$"):  # fmt: skip
        evaluate(TABLE, draws=1, rng=0)
    s = evaluate(TABLE, metrics=["accuracy"], draws=2, rng=0)["accuracy"]
    assert s.std > 0 and s.mc_error > 0


@pytest.mark.parametrize("entry", ["compare_predictions", "rank_predictions", "thresholds",
                                   "compare", "rank_classifiers", "prior_sensitivity"])  # fmt: skip
def test_every_summarising_entry_point_refuses_one_draw(entry):
    import f1posterior as fp
    from f1posterior.analysis.thresholds import evaluate_threshold

    y, a, b = [0, 1, 1, 0, 1, 0], [0, 1, 0, 0, 1, 0], [1, 1, 1, 0, 1, 1]
    calls = {
        "compare_predictions": lambda: fp.compare_predictions(y, a, b, draws=1, rng=0),
        "rank_predictions": lambda: fp.rank_predictions(y, [a, b], draws=1, rng=0),
        "thresholds": lambda: evaluate_threshold(y, [0.1, 0.8, 0.7, 0.2, 0.9, 0.3], draws=1, rng=0),
        "compare": lambda: fp.compare(TABLE, FOLDS[1], draws=1, rng=0),
        "rank_classifiers": lambda: fp.rank_classifiers(FOLDS, draws=1, rng=0),
        "prior_sensitivity": lambda: fp.prior_sensitivity(TABLE, draws=1, rng=0),
    }
    with pytest.raises(ValueError, match=r"^draws must be at least 2 .*; got 1$"):
        calls[entry]()


def test_the_prior_check_needs_100_draws():
    assert MIN_PRIOR_CHECK_DRAWS == 100
    # from a handful of draws the standard deviation is far off, and the check flags at
    # random: it is not made (None), rather than a verdict from noise
    few = [evaluate(TABLE, metrics=["macro_f1"], draws=d, rng=0)["macro_f1"] for d in (2, 99)]
    assert all(s.prior_shift is None and s.prior_dominated is None for s in few)
    s = evaluate(TABLE, metrics=["macro_f1"], draws=100, rng=0)["macro_f1"]
    assert s.prior_shift is not None and 0 <= s.prior_shift < 10
    assert s.prior_dominated is False


def test_the_gate_still_raises_few_draws_to_its_minimum():
    res = gate(TABLE, [Floor("accuracy", 0.5)], draws=1, rng=0)
    assert res.passed


# ---------------------------------------------------------------- labelled prevalence


def test_a_series_prevalence_is_aligned_by_label():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(TABLE, index=["neg", "pos"], columns=["neg", "pos"])
    in_order = evaluate(df, metrics=["accuracy"], prevalence=[0.1, 0.9], draws=1000, rng=3)
    series = pd.Series([0.9, 0.1], index=["pos", "neg"])
    aligned = evaluate(df, metrics=["accuracy"], prevalence=series, draws=1000, rng=3)
    assert aligned["accuracy"] == in_order["accuracy"]
    # negative control: read by position, the series means the other prevalence
    positional = evaluate(df, metrics=["accuracy"], prevalence=[0.9, 0.1], draws=1000, rng=3)
    assert positional["accuracy"].score != pytest.approx(aligned["accuracy"].score)
    as_dict = evaluate(df, metrics=["accuracy"], prevalence={"pos": 0.9, "neg": 0.1},
                       draws=1000, rng=3)  # fmt: skip
    assert as_dict["accuracy"] == in_order["accuracy"]


def test_a_labelled_dirichlet_prevalence_is_aligned_by_label():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(TABLE, index=["neg", "pos"], columns=["neg", "pos"])
    conc = pd.Series([90.0, 10.0], index=["pos", "neg"])
    a = evaluate(df, metrics=["accuracy"], prevalence=("dirichlet", conc), draws=1000, rng=4)
    b = evaluate(df, metrics=["accuracy"], prevalence=("dirichlet", [10, 90]), draws=1000, rng=4)
    assert a["accuracy"] == b["accuracy"]


def test_labels_given_to_evaluate_align_a_dict_prevalence():
    a = evaluate(TABLE, labels=["neg", "pos"], metrics=["accuracy"],
                 prevalence={"pos": 0.2, "neg": 0.8}, draws=1000, rng=5)  # fmt: skip
    b = evaluate(TABLE, metrics=["accuracy"], prevalence=[0.8, 0.2], draws=1000, rng=5)
    assert a["accuracy"] == b["accuracy"]


def test_a_labelled_prevalence_with_other_labels_is_refused():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(TABLE, index=["neg", "pos"], columns=["neg", "pos"])
    with pytest.raises(ValueError, match=r"prevalence must be labelled with the classes of the "
                       r"counts.*\['maybe'\] not among.*\['pos'\] missing"):  # fmt: skip
        evaluate(df, prevalence=pd.Series([0.5, 0.5], index=["neg", "maybe"]), draws=1000)
    with pytest.raises(ValueError, match=r"prevalence is labelled \(\['neg', 'pos'\]\) but the "
                       r"counts have no class labels"):  # fmt: skip
        evaluate(TABLE, prevalence={"neg": 0.5, "pos": 0.5}, draws=1000)


def test_a_dataframe_prevalence_of_a_batch_is_aligned_by_its_columns():
    pd = pytest.importorskip("pandas")
    tables = [pd.DataFrame(t, index=["neg", "pos"], columns=["neg", "pos"]) for t in FOLDS]
    per_matrix = pd.DataFrame({"pos": [0.9, 0.5, 0.2], "neg": [0.1, 0.5, 0.8]})
    a = evaluate(tables, metrics=["accuracy"], prevalence=per_matrix, draws=1000, rng=6)
    plain = [[0.1, 0.9], [0.5, 0.5], [0.8, 0.2]]
    b = evaluate(tables, metrics=["accuracy"], prevalence=plain, draws=1000, rng=6)
    assert a["accuracy"] == b["accuracy"]
