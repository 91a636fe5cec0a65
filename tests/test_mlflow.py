"""MLflow (f1posterior.integrations.mlflow) against the installed MLflow, on a local file store in
tmp_path: log an evaluation, read it back with MlflowClient, gate it with MLflow's own
MetricThreshold on the lower HDI bound; the posterior metric inside mlflow.models.evaluate; and
docs/integrations.md, run block by block."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import mlflow
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mlflow.models import EvaluationResult, MetricThreshold
from mlflow.models.evaluation.validation import ModelValidationFailedException
from mlflow.utils.validation import path_not_unique, validate_param_and_metric_name

import f1posterior
from f1posterior import evaluate
from f1posterior.integrations.mlflow import log_evaluation, metric_key, posterior_metric
from f1posterior.posterior import format_markdown

PAGE = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
TABLE = [[50, 6, 2], [4, 41, 5], [1, 3, 38]]
LABELS = ["ham", "spam/junk", "eggs: fried"]  # characters MLflow refuses or that vary by OS


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A local file store in tmp_path (MLflow 3 keeps the file store in maintenance mode:
    it must be allowed explicitly)."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", (tmp_path / "mlruns").as_uri())
    assert mlflow.get_tracking_uri().startswith("file://")
    yield tmp_path
    while mlflow.active_run() is not None:  # a failed test leaves no run open for the next
        mlflow.end_run()


def _gate(metrics: dict, key: str, floor: float) -> None:
    """MLflow's own gate: validate_evaluation_results with a MetricThreshold on ``key``."""
    candidate = EvaluationResult(metrics=metrics, artifacts={})
    mlflow.validate_evaluation_results(
        {key: MetricThreshold(threshold=float(floor), greater_is_better=True)}, candidate
    )


def test_round_trip_log_read_back_and_gate_on_the_lower_hdi_bound(store):
    ev = evaluate(TABLE, metrics=["macro_f1", "f1"], ref=0.8, draws=4000, rng=0, labels=LABELS)
    with mlflow.start_run() as run:
        logged = log_evaluation(ev)
    back = mlflow.MlflowClient().get_run(run.info.run_id)
    assert back.data.metrics == logged
    s = ev["macro_f1"]
    assert logged["macro_f1_hdi_low"] == s.hdi[0] and logged["macro_f1_hdi_high"] == s.hdi[1]
    assert logged["macro_f1_mean"] == s.mean and logged["macro_f1_score"] == s.score
    assert logged["macro_f1_p_above_0.8"] == s.p_above
    assert logged["f1_spam_junk_mean"] == ev["f1"].mean[1]
    assert logged["f1_eggs__fried_eti_low"] == ev["f1"].eti[2, 0]
    assert len(logged) == 4 * 10  # macro_f1 and three classes, ten statistics each
    assert all(re.fullmatch(r"[A-Za-z0-9_.\-]+", k) for k in logged)

    tags = back.data.tags
    assert tags["f1posterior.version"] == f1posterior.__version__
    assert (tags["f1posterior.draws"], tags["f1posterior.seed"]) == ("4000", "0")
    assert (tags["f1posterior.ci_prob"], tags["f1posterior.ref"]) == ("0.95", "0.8")
    assert tags["f1posterior.prior"] == ev.prior
    assert json.loads(tags["f1posterior.labels"]) == LABELS

    folder = Path(mlflow.artifacts.download_artifacts(run_id=run.info.run_id,
                                                      artifact_path="f1posterior"))  # fmt: skip
    assert (folder / "report.md").read_text() == format_markdown(ev)
    assert (folder / "report.txt").read_text() == str(ev)
    saved = json.loads((folder / "evaluation.json").read_text())
    assert saved["metrics"]["macro_f1"]["hdi"] == list(s.hdi) and saved["seed"] == 0

    # MLflow's MetricThreshold on the lower HDI bound: a floor between the lower bound and
    # the mean passes a gate on the mean and fails the gate on the lower bound
    floor = (s.hdi[0] + s.mean) / 2
    _gate(back.data.metrics, "macro_f1_mean", floor)
    with pytest.raises(ModelValidationFailedException, match="macro_f1_hdi_low"):
        _gate(back.data.metrics, "macro_f1_hdi_low", floor)
    _gate(back.data.metrics, "macro_f1_hdi_low", s.hdi[0] - 0.01)


def test_log_to_a_run_by_id_and_at_a_step(store):
    ev = evaluate(TABLE, metrics="micro_f1", draws=2000, rng=1)
    run = mlflow.MlflowClient().create_run(mlflow.get_experiment_by_name("Default").experiment_id)
    log_evaluation(ev, run_id=run.info.run_id, step=3, artifact_path="test_set")
    client = mlflow.MlflowClient()
    history = client.get_metric_history(run.info.run_id, "micro_f1_hdi_low")
    assert [(m.step, m.value) for m in history] == [(3, ev["micro_f1"].hdi[0])]
    assert {a.path for a in client.list_artifacts(run.info.run_id, "test_set")} == {
        "test_set/report.txt", "test_set/report.md", "test_set/evaluation.json"}  # fmt: skip
    assert "micro_f1_p_above_0.8" not in client.get_run(run.info.run_id).data.metrics  # no ref


def test_posterior_metric_in_mlflow_evaluate_and_its_gate(store):
    rng = np.random.default_rng(4)
    y = rng.choice(["a", "b", "c"], 300, p=[0.5, 0.3, 0.2])
    pred = np.where(rng.random(300) < 0.8, y, rng.choice(["a", "b", "c"], 300))
    data = pd.DataFrame({"label": y, "pred": pred})
    low = posterior_metric("macro_f1", "hdi_low", draws=4000, rng=0)
    above = posterior_metric("macro_f1", "p_above", ref=0.7, draws=4000, rng=0)
    with mlflow.start_run() as run:
        result = mlflow.models.evaluate(data=data, predictions="pred", targets="label",
                                        model_type="classifier", extra_metrics=[low, above])  # fmt: skip
    counts = pd.crosstab(data["label"], data["pred"]).to_numpy()
    want = evaluate(counts, metrics="macro_f1", ref=0.7, draws=4000, rng=0, prior_check=False)
    assert result.metrics["macro_f1_hdi_low"] == want["macro_f1"].hdi[0]
    assert result.metrics["macro_f1_p_above_0.7"] == want["macro_f1"].p_above
    logged = mlflow.MlflowClient().get_run(run.info.run_id).data.metrics
    assert logged["macro_f1_hdi_low"] == result.metrics["macro_f1_hdi_low"]
    floor = float(want["macro_f1"].hdi[0] + want["macro_f1"].mean) / 2
    thresholds = {"macro_f1_hdi_low": MetricThreshold(threshold=floor, greater_is_better=True)}
    with pytest.raises(ModelValidationFailedException, match="macro_f1_hdi_low"):
        mlflow.validate_evaluation_results(thresholds, result)
    passing = {"macro_f1_hdi_low": MetricThreshold(threshold=floor - 0.05, greater_is_better=True)}
    mlflow.validate_evaluation_results(passing, result)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=12), st.sampled_from(["mean", "hdi_low", "p_above"]))
def test_every_key_is_one_mlflow_accepts_on_every_platform(label, statistic):
    key = metric_key("f1", statistic, ref=0.75 if statistic == "p_above" else None, label=label)
    assert re.fullmatch(r"[A-Za-z0-9_.\-]+", key) and key.startswith("f1_")
    assert validate_param_and_metric_name(key) and not path_not_unique(key)
    assert key.endswith(statistic + ("_0.75" if statistic == "p_above" else ""))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: log_evaluation({"macro_f1": 0.8}),
            r"evaluation must be an Evaluation; got \{'macro_f1': 0.8\}",
        ),
        (
            lambda: log_evaluation(evaluate([TABLE, TABLE], draws=200, rng=0)),
            r"one confusion matrix; got a batch of shape \(2,\)",
        ),
        (
            lambda: log_evaluation(evaluate(TABLE, draws=200, rng=0)),
            r"run_id must be given when no run is active",
        ),
        (
            lambda: log_evaluation(evaluate(TABLE, draws=200, rng=0), step=1.5),
            r"step must be an int; got 1.5",
        ),
        (
            lambda: posterior_metric("macro_fnr"),
            r"larger is better; got 'macro_fnr'.*'macro_recall'",
        ),
        (
            lambda: posterior_metric(statistic="median"),
            r"statistic must be one of 'mean', 'hdi_low', 'hdi_high', 'p_above'",
        ),
        (
            lambda: posterior_metric(statistic="p_above"),
            r'ref must be given with statistic="p_above", and only there',
        ),
        (lambda: posterior_metric(prior="flat"), r"prior must be one of"),
        (lambda: metric_key("f1", "p_below"), r"ref must be given for statistic 'p_below'"),
        (lambda: metric_key("f1", "max"), r"statistic must be one of"),
    ],
)
def test_bad_arguments_are_refused_by_name(store, call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_one_class_of_data_is_refused_without_labels():
    fn = posterior_metric(draws=200, rng=0).eval_fn
    with pytest.raises(ValueError, match=r"labels must be given when .* fewer than two classes"):
        fn(pd.Series(["a", "a"]), pd.Series(["a", "a"]))
    assert fn(pd.Series(["a"]), pd.Series(["a"])) is None  # MLflow's trial call on one row
    labelled = posterior_metric(labels=["a", "b"], draws=200, rng=0).eval_fn
    assert 0 < labelled(pd.Series(["a", "a"]), pd.Series(["a", "a"])) < 1
    with pytest.raises(
        ValueError, match=r"labels must name every class of predictions; .*holding \['c'\]"
    ):
        labelled(pd.Series(["a", "c"]), pd.Series(["a", "b"]))


def test_the_adapters_do_not_import_their_libraries():
    code = (
        "import sys\n"
        "import f1posterior.integrations.mlflow as m, f1posterior.integrations.sklearn as s\n"
        "import f1posterior.integrations.sklearn_metrics as k\n"
        "m.metric_key('macro_f1', 'hdi_low'); k.f1_score([0, 1, 1], [0, 1, 0], draws=100, rng=0)\n"
        "print(sorted(n for n in ('mlflow', 'sklearn', 'pandas') if n in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.filterwarnings("ignore::UserWarning")  # MLflow's notes on inferred schemas
def test_integrations_page_runs(store, monkeypatch):
    monkeypatch.chdir(store)
    blocks = BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert [k for k, _ in blocks].count("python") >= 4 and {k for k, _ in blocks} == {"python"}
    namespace: dict = {"__name__": "integrations_page"}
    for _, code in blocks:
        exec(compile(code, str(PAGE), "exec"), namespace)


def test_log_evaluation_refuses_labels_with_one_key(store) -> None:
    # "a b", "a/b" and "a_b" all give f1_a_b_*: two classes' values were silently lost
    res = evaluate(TABLE, labels=["a b", "a/b", "a_b"], metrics=["f1"], draws=500, rng=0)
    with mlflow.start_run() as run:
        with pytest.raises(ValueError, match=r"labels 'a b' and 'a/b' give the same MLflow key"):
            log_evaluation(res)
    logged = mlflow.MlflowClient().get_run(run.info.run_id).data.metrics
    assert logged == {}  # nothing half-logged


@pytest.mark.parametrize("path", ["/etc", "../../x", "a/../b", "", "a//b", 3])
def test_log_evaluation_artifact_path_stays_in_the_run(store, path) -> None:
    # an absolute or escaping path reached MLflow and came back as its own exception
    res = evaluate(TABLE, labels=LABELS, metrics=["macro_f1"], draws=500, rng=0)
    with mlflow.start_run():
        with pytest.raises(ValueError, match=r"artifact_path must be a relative folder"):
            log_evaluation(res, artifact_path=path)
        assert log_evaluation(res, artifact_path="eval/run-1")
