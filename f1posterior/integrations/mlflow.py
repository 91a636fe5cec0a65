"""MLflow: log an evaluation to a run (flat metric keys, its provenance as tags, the report as
artifacts), a posterior metric for ``mlflow.models.evaluate(..., extra_metrics=[...])``, and the
keys MLflow's ``MetricThreshold`` gates on. mlflow is imported only inside the functions.

Design notes: docs/design.md#integrations-mlflow
"""

from __future__ import annotations

import importlib
import json
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe
from .._core.streams import DEFAULT_DRAWS
from .._core.validation import SeedLike, check_choice, check_ref, check_rng, check_sampling_args
from ._common import (
    STATISTICS,
    check_ranking_metric,
    check_statistic_ref,
    counts_of,
    prior_pair,
    statistic_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..posterior import Evaluation

__all__ = ["metric_key", "log_evaluation", "posterior_metric"]

#: The statistics :func:`log_evaluation` logs for every metric (and class), in order;
#: ``p_below`` and ``p_above`` too when the evaluation has a ``ref``.
LOGGED = ("score", "mean", "std", "mc_error", "hdi_low", "hdi_high", "eti_low", "eti_high")
#: Characters of a key that are kept; any other becomes "_" (see :func:`metric_key`).
_OTHER = re.compile(r"[^A-Za-z0-9_.\-]")


def metric_key(metric: str, statistic: str, *, ref: float | None = None, label: Any = None) -> str:
    """Return the MLflow metric key of a statistic of a metric's posterior.

    ``{metric}[_{label}]_{statistic}[_{ref}]``: ``macro_f1_hdi_low``,
    ``macro_f1_p_above_0.8``, ``f1_cat_mean``. The reference is written in ``%g``
    form. Every character other than ASCII letters, digits, ``_``, ``.`` and ``-``
    becomes ``_``: MLflow also allows spaces, ``/`` and (except on Windows) ``:``, but
    keys of this portable subset are the same on every platform and store (a label
    ``"a/b"`` gives ``f1_a_b_mean``).

    Parameters
    ----------
    metric : str
        The metric's name (``"macro_f1"``).
    statistic : str
        ``"score"``, ``"mean"``, ``"std"``, ``"mc_error"``, ``"hdi_low"``,
        ``"hdi_high"``, ``"eti_low"``, ``"eti_high"``, ``"p_below"`` or ``"p_above"``.
    ref : float, optional
        The reference of ``p_below``/``p_above`` (required for them).
    label : optional
        The class of a per-class metric.

    Returns
    -------
    str
        The key.

    See Also
    --------
    log_evaluation : Logs every key of an evaluation.
    posterior_metric : An ``mlflow.models.evaluate`` metric of the same key.

    Examples
    --------
    >>> metric_key("macro_f1", "p_above", ref=0.8)
    'macro_f1_p_above_0.8'
    >>> metric_key("f1", "hdi_low", label="spam/ham")
    'f1_spam_ham_hdi_low'
    """
    allowed = (*LOGGED, "median", "p_below", "p_above")
    check_choice(statistic, "statistic", allowed)
    if not isinstance(metric, str) or not metric:
        raise TypeError(f"metric must be a metric's name; got {describe(metric)}")
    parts = [metric] + ([] if label is None else [str(label)]) + [statistic]
    if statistic in ("p_below", "p_above"):
        r = check_ref(ref)
        if r is None:
            raise ValueError(f"ref must be given for statistic {statistic!r}")
        parts.append(f"{r:g}")
    return _OTHER.sub("_", "_".join(parts))


def _provenance(evaluation: Evaluation) -> dict[str, str]:
    """The run's provenance, as MLflow tags: version, prior, draws, seed, interval, ...

    The one place the adapter decides what a logged run records about how it was made.
    """
    from ..posterior import run_metadata

    meta = run_metadata(evaluation)
    return {
        f"f1posterior.{k}": v if isinstance(v, str) else json.dumps(v)
        for k, v in meta.items()
        if v is not None
    }


def _metrics(evaluation: Evaluation) -> dict[str, float]:
    """Every logged key of ``evaluation`` (one matrix) and its value."""
    stats = LOGGED + (("p_below", "p_above") if evaluation.ref is not None else ())
    out: dict[str, float] = {}
    owner: dict[str, Any] = {}
    for name, summary in evaluation.items():
        k = np.size(summary.mean)
        labels = evaluation.labels or [str(i) for i in range(k)]
        classes = [None] if np.ndim(summary.mean) == 0 else labels[:k]
        for i, label in enumerate(classes):
            for stat in stats:
                value = np.asarray(statistic_of(summary, stat), dtype=float)
                key = metric_key(name, stat, ref=evaluation.ref, label=label)
                if key in out:  # one class's values would silently replace another's
                    raise ValueError(
                        f"labels {owner[key]!r} and {label!r} give the same MLflow key "
                        f"{key!r} (characters other than letters, digits, _ . - become _); "
                        "rename the classes (labels=) so that their keys differ"
                    )
                owner[key] = label
                out[key] = float(value if label is None else value[i])
    return out


def log_evaluation(
    evaluation: Evaluation,
    *,
    run_id: str | None = None,
    step: int = 0,
    artifact_path: str = "f1posterior",
) -> dict[str, float]:
    """Log an evaluation of one confusion matrix to an MLflow run.

    - metrics: for every metric (and class of a per-class metric), ``score``,
      ``mean``, ``std``, ``mc_error``, ``hdi_low``, ``hdi_high``, ``eti_low``,
      ``eti_high``, and with a ``ref`` ``p_below_{ref}`` and ``p_above_{ref}``, under
      the keys of :func:`metric_key` (``macro_f1_hdi_low``, ``macro_f1_p_above_0.8``);
    - tags: how the numbers were made, ``f1posterior.version``, ``.prior``,
      ``.draws``, ``.seed``, ``.ci_prob``, ``.ref``, ``.labels`` (tags, not params:
      a run may log several evaluations, and params cannot change);
    - artifacts: the report as text (``report.txt``) and Markdown (``report.md``) and
      the evaluation as JSON (``evaluation.json``), under ``artifact_path``.

    Parameters
    ----------
    evaluation : Evaluation
        The result of :func:`f1posterior.evaluate` for one matrix.
    run_id : str, optional
        The run to log to; default the active run (``mlflow.start_run()``).
    step : int, default 0
        The metrics' step.
    artifact_path : str, default "f1posterior"
        The run's artifact directory of the reports: a relative folder (names
        joined by ``/``, no ``.`` or ``..``).

    Returns
    -------
    dict of str to float
        The metrics logged, by key.

    See Also
    --------
    metric_key : The key of each statistic.
    posterior_metric : The same statistics inside ``mlflow.models.evaluate``.

    Examples
    --------
    >>> import mlflow  # doctest: +SKIP
    >>> from f1posterior import evaluate
    >>> res = evaluate([[40, 10], [5, 45]], metrics="macro_f1", ref=0.8, draws=4000, rng=0)
    >>> with mlflow.start_run():  # doctest: +SKIP
    ...     logged = log_evaluation(res)
    >>> sorted(logged)[:3]  # doctest: +SKIP
    ['macro_f1_eti_high', 'macro_f1_eti_low', 'macro_f1_hdi_high']
    """
    from ..posterior import Evaluation, format_markdown

    if not isinstance(evaluation, Evaluation):
        raise TypeError(f"evaluation must be an Evaluation; got {describe(evaluation)}")
    if evaluation.batch_shape:
        raise ValueError(
            "evaluation must be of one confusion matrix; got a batch of shape "
            f"{evaluation.batch_shape} (log each matrix's evaluation to its own run)"
        )
    if isinstance(step, bool) or not isinstance(step, int):
        raise TypeError(f"step must be an int; got {describe(step)}")
    parts = artifact_path.replace("\\", "/").split("/") if isinstance(artifact_path, str) else []
    if not parts or artifact_path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(
            "artifact_path must be a relative folder of the run's artifacts (names joined "
            f"by /, no . or ..); got {describe(artifact_path)}"
        )
    import mlflow
    from mlflow.entities import Metric, RunTag

    run_id = _run_id(mlflow, run_id)
    metrics = _metrics(evaluation)
    stamp = int(time.time() * 1000)
    client = mlflow.MlflowClient()
    client.log_batch(
        run_id,
        metrics=[Metric(k, v, stamp, step) for k, v in metrics.items()],
        tags=[RunTag(k, v) for k, v in _provenance(evaluation).items()],
    )
    client.log_text(run_id, str(evaluation), f"{artifact_path}/report.txt")
    client.log_text(run_id, format_markdown(evaluation), f"{artifact_path}/report.md")
    client.log_dict(run_id, evaluation.to_dict(), f"{artifact_path}/evaluation.json")
    return metrics


def _run_id(mlflow: Any, run_id: Any) -> str:
    if run_id is not None:
        if not isinstance(run_id, str):
            raise TypeError(f"run_id must be a run's id (str); got {describe(run_id)}")
        return run_id
    active = mlflow.active_run()
    if active is None:
        raise ValueError("run_id must be given when no run is active (mlflow.start_run())")
    return str(active.info.run_id)


def posterior_metric(
    metric: str = "macro_f1",
    statistic: str = "hdi_low",
    *,
    ref: float | None = None,
    labels: Sequence[Any] | None = None,
    draws: int = DEFAULT_DRAWS,
    ci_prob: float = 0.95,
    prior: Any = "hierarchical",
    rng: SeedLike = None,
) -> Any:
    """Make a metric of the posterior for ``mlflow.models.evaluate(..., extra_metrics=[...])``.

    It counts the confusion matrix of the evaluation data's targets and predictions
    and returns a statistic of the metric's posterior, under the key
    :func:`log_evaluation` uses (``macro_f1_hdi_low``), so one ``MetricThreshold``
    gates either. A fixed ``rng`` gives the same value for the same predictions.
    MLflow first calls a metric on the first row alone, to test it: without
    ``labels`` that row holds one class and no table, and the metric returns None
    there (its value on the whole data replaces it).

    Parameters
    ----------
    metric : str, default "macro_f1"
        A named metric of :func:`f1posterior.evaluate` with one value per table where
        larger is better.
    statistic : {"hdi_low", "mean", "hdi_high", "p_above"}, default "hdi_low"
        The statistic of the posterior: each is larger for a better model.
    ref : float, optional
        The reference of ``"p_above"`` (required there, refused otherwise).
    labels : sequence, optional
        The classes of the confusion matrix, in order (default: the sorted labels of
        the targets and predictions); a target or prediction not listed is refused.
    draws : int, default 50_000
        Posterior draws.
    ci_prob : float, default 0.95
        Probability of the HDI.
    prior : str or (alpha, beta), default "hierarchical"
        A preset of :data:`f1posterior.PRIOR_PRESETS` or an ``(alpha, beta)`` pair.
    rng : None, int, SeedSequence or Generator
        The root seed, fixed when the metric is made.

    Returns
    -------
    mlflow.models.EvaluationMetric
        Made by ``mlflow.models.make_metric`` (``greater_is_better=True``).

    See Also
    --------
    log_evaluation : Log a whole evaluation to a run.
    metric_key : The metric's name.

    Examples
    --------
    >>> m = posterior_metric("macro_f1", "p_above", ref=0.8, draws=4000, rng=0)
    >>> m.name, m.greater_is_better
    ('macro_f1_p_above_0.8', True)
    """
    name = check_ranking_metric(metric)
    stat = check_statistic_ref(statistic, "statistic", STATISTICS, ref)
    alpha, beta = prior_pair(prior)
    sa = check_sampling_args(draws, ci_prob, ref, None)
    root = check_rng(rng)
    classes = None if labels is None else list(labels)
    key = metric_key(name, stat, ref=sa.ref)

    def eval_fn(predictions: Any, targets: Any) -> float | None:
        from ..posterior import evaluate

        counts, found = counts_of(np.asarray(targets), np.asarray(predictions), classes)
        if len(found) < 2:
            if np.size(targets) == 1:  # MLflow's trial call on the first row: no table yet
                return None
            raise ValueError(
                f"labels must be given when the targets and predictions hold fewer than two "
                f"classes; got {found}"
            )
        res = evaluate(counts, metrics=name, draws=sa.draws, ci_prob=sa.ci_prob,
                       ref=sa.ref, alpha=alpha, beta=beta, rng=root,
                       prior_check=False)  # fmt: skip
        return float(statistic_of(res[name], stat))

    eval_fn.__name__ = key
    # Any: mlflow's functions are untyped (or missing where mlflow is not installed)
    models: Any = importlib.import_module("mlflow.models")
    return models.make_metric(
        eval_fn=eval_fn,
        greater_is_better=True,
        name=key,
        long_name=f"{stat} of the posterior of {name} (f1posterior)",
    )
