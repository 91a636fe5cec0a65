"""``evaluate``: posterior summaries of metrics for one matrix or a batch.

Data flow: validated counts -> posterior concentrations -> cell draws in
memory-bounded chunks -> metric draws (the only per-draw arrays kept) ->
summaries. The batch engine (:mod:`f1posterior.posterior._batch`) processes matrices
in groups on ``workers`` threads so that the working arrays stay within
``max_memory``, whatever the batch size.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe
from .._core.limits import MIN_PRIOR_CHECK_DRAWS
from .._core.priors import DEFAULT_PRIOR, PriorArg, describe_prior, resolve
from .._core.results import value_equality
from .._core.sampling import concentrations
from .._core.streams import DEFAULT_DRAWS, RunSeed, run_seed
from .._core.validation import (
    SeedLike,
    as_counts,
    check_batch_names,
    check_class_names,
    check_flag,
    check_index_offset,
    check_max_memory,
    check_sampling_args,
    check_workers,
)
from ..metrics import PER_CLASS_METRICS, resolve_metric, shared_class_sums
from ._assemble import TableMetrics, check_prior_dominance, exact_summaries
from ._batch import Engine, RunSettings, check_fits, check_progress
from ._chance import chance_table
from ._summary import MetricSummary

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike

    from ._prevalence import TargetPrevalence

__all__ = [
    "evaluate",
    "Evaluation",
    "PRIOR_DOMINATED_WHY",
    "dominated_names",
    "dominated_name",
    "prior_warning_line",
]

MetricSpec = str | Callable[[np.ndarray], Any]


@value_equality
@dataclass(frozen=True, eq=False)
class Evaluation(Mapping[str, MetricSummary]):
    """Result of :func:`evaluate`: a mapping from metric name to :class:`MetricSummary`.

    Attributes
    ----------
    summaries : dict of str to MetricSummary
        One summary per requested metric, in request order.
    prior : str
        Statement of the prior used.
    draws : int
        Posterior draws per matrix.
    ci_prob : float
        Probability of the HDI and equal-tailed intervals.
    ref : float or None
        Reference value of ``p_below``/``p_above``.
    seed : RunSeed or None
        The run's root seed (a :class:`numpy.random.SeedSequence`, equal to the
        int seed when one was given): ``evaluate(..., rng=result.seed)`` repeats
        the run, whatever ``rng`` started it (an int, a SeedSequence, a child
        SeedSequence or a Generator).
    batch_shape : tuple of int
        Leading shape of the input counts.
    labels : list of str or None
        Class labels, when known (per-class metrics are shown with them).
    names : list of str or None
        Names of the matrices of a 1-D batch (``evaluate(..., names=)``), used by
        the text and Markdown tables and by :meth:`to_dataframe`.
    metric_draws : dict of str to ndarray or None
        The posterior draws of each metric, ``(*batch, draws)`` (or
        ``(*batch, K, draws)`` per class), when ``keep_draws=True``.
    prevalence : TargetPrevalence or None
        The target class prevalence the metrics were evaluated at, if any.
    chance : bool
        Whether the summaries carry the chance baseline (``chance=True``).

    See Also
    --------
    evaluate : Makes it from confusion matrices.
    evaluate_multilabel : Makes it from per-label 2 x 2 tables.
    MetricSummary : One metric's summary.

    Examples
    --------
    >>> res = evaluate([[40, 10], [5, 45]], draws=2_000, rng=0)
    >>> list(res), res.batch_shape, round(res["micro_f1"].score, 2)
    (['micro_f1', 'macro_f1'], (), 0.85)
    """

    summaries: dict[str, MetricSummary]
    prior: str
    draws: int
    ci_prob: float
    ref: float | None
    seed: Any = None
    batch_shape: tuple[int, ...] = ()
    labels: list[str] | None = field(default=None)
    metric_draws: dict[str, np.ndarray] | None = field(default=None, repr=False)
    names: list[str] | None = field(default=None)
    prevalence: TargetPrevalence | None = None
    chance: bool = False

    def prior_warning(self) -> str | None:
        """One line naming the metrics (and classes) whose posterior the prior dominates, or None.

        See :attr:`MetricSummary.prior_dominated` and :func:`prior_warning_line`.
        """
        flags = {name: s.prior_dominated for name, s in self.summaries.items()}
        return prior_warning_line(dominated_names(flags, self.labels, len(self.batch_shape)))

    def __getitem__(self, key: str) -> MetricSummary:
        return self.summaries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.summaries)

    def __len__(self) -> int:
        return len(self.summaries)

    def __str__(self) -> str:
        from ._table import format_table

        return format_table(self)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary: ``{"metrics": {...}, "draws", "prior", ...}``."""
        return {
            "metrics": {k: v.to_dict() for k, v in self.summaries.items()},
            "draws": self.draws,
            "prior": self.prior,
            "ci_prob": self.ci_prob,
            "ref": self.ref,
            "seed": self.seed.to_json() if isinstance(self.seed, RunSeed) else self.seed,
            "batch_shape": list(self.batch_shape),
            "labels": self.labels,
            **({"names": self.names} if self.names is not None else {}),
            **({"prevalence": self.prevalence.to_json()} if self.prevalence is not None else {}),
            **({"chance": True} if self.chance else {}),
        }

    def to_dataframe(self, *, names: Sequence[Any] | None = None, form: str = "long") -> Any:
        """pandas DataFrame, one row per metric/matrix/class (``form="long"``) or per matrix (``form="wide"``): see :func:`f1posterior.posterior._frames.to_dataframe`."""  # noqa: E501
        from ._frames import to_dataframe

        return to_dataframe(self, names=names, form=form)

    def to_inference_data(self, *, names: Sequence[Any] | None = None) -> Any:
        """ArviZ InferenceData of the metric draws: see :func:`f1posterior.posterior._frames.to_inference_data`."""  # noqa: E501
        from ._frames import to_inference_data

        return to_inference_data(self, names=names)


#: Why a metric is flagged: the one wording of every prior-dominance warning and marker.
PRIOR_DOMINATED_WHY = (
    "the prior moves the posterior mean by more than half a posterior standard deviation "
    "from a vanishing prior's (or no document informs the metric)"
)


def dominated_names(
    flags: Mapping[str, Any], labels: Sequence[str] | None, batch_ndim: int
) -> list[str]:
    """The metrics flagged ``prior_dominated``, each with its flagged classes and matrices.

    ``flags`` maps a metric to its :attr:`MetricSummary.prior_dominated` (None, a bool or
    an array of the batch shape, with a trailing class axis for a per-class metric).
    A per-class metric names its classes (by label, else ``class i``); a batch says in
    how many matrices.

    Examples
    --------
    >>> import numpy as np
    >>> dominated_names({"micro_f1": True, "recall": np.array([False, True, True])}, None, 0)
    ['micro_f1', 'recall [class 1, class 2]']
    >>> dominated_names({"f1": np.array([[True, False], [False, False]])}, ["a", "b"], 1)
    ['f1 [a] (1 of 2 matrices)']
    """
    hits = []
    for name, value in flags.items():
        f = np.asarray(False if value is None else value, dtype=bool)
        if not f.any():
            continue
        classes = None
        if f.ndim > batch_ndim:  # a per-class metric: name the classes
            classes = np.nonzero(f.reshape(-1, f.shape[-1]).any(axis=0))[0].tolist()
            f = np.asarray(f.any(axis=-1))
        matrices = (int(f.sum()), f.size) if f.ndim else None
        hits.append(dominated_name(name, classes, labels, matrices))
    return hits


def dominated_name(
    name: str,
    classes: Sequence[int] | None,
    labels: Sequence[str] | None,
    matrices: tuple[int, int] | None = None,
) -> str:
    """``name``, its flagged ``classes`` (by label, else ``class i``) and ``(k, n)`` matrices.

    Examples
    --------
    >>> dominated_name("recall", [0, 2], ["a", "b", "c"], (3, 10))
    'recall [a, c] (3 of 10 matrices)'
    """
    text = name
    if classes is not None:
        known = list(labels) if labels is not None else []
        if len(known) <= max(classes, default=-1):
            known = [f"class {i}" for i in range(max(classes) + 1)]
        text += " [" + ", ".join(known[i] for i in classes) + "]"
    if matrices is not None:
        text += f" ({matrices[0]:,} of {matrices[1]:,} matrices)"
    return text


def prior_warning_line(hits: Sequence[str], prior: str | None = None) -> str | None:
    """The warning for the names of :func:`dominated_names` (None when there are none)."""
    if not hits:
        return None
    what = "; ".join(hits) + (f" (prior {prior})" if prior else "")
    why = PRIOR_DOMINATED_WHY.removeprefix("the prior ")
    return (
        f"warning: the prior dominates {what}: it {why}; "
        "report the prior with these numbers, compare priors with --prior-sensitivity, or "
        "evaluate on more documents"
    )


def check_metric_fns(metrics: Any) -> list[tuple[str, Callable[[np.ndarray], Any]]]:
    """``(name, fn)`` of each metric: a name, a callable or a sequence of them, no repeats."""
    if isinstance(metrics, str) or callable(metrics):
        metrics = (metrics,)
    try:
        items = list(metrics)
    except TypeError:
        raise TypeError(
            f"metrics must be a metric name, a callable, or a sequence of them; got "
            f"{describe(metrics)}"
        ) from None
    if not items:
        raise ValueError("metrics must name at least one metric; got an empty sequence")
    resolved = [resolve_metric(m) for m in items]
    names = [n for n, _ in resolved]
    if len(set(names)) != len(names):
        raise ValueError(f"metrics must not repeat a name; got {names}")
    return resolved


def metric_values(fn: Callable[[np.ndarray], Any], table: np.ndarray, name: str) -> np.ndarray:
    """float64 values of metric ``name`` (``fn``) on ``(..., M, M)`` tables: ``(...)`` or
    ``(..., K)``; any other shape is a ValueError naming the metric."""
    out = np.asarray(fn(table), dtype=np.float64)
    lead = table.shape[:-2]
    if out.shape[: len(lead)] != lead or out.ndim > len(lead) + 1:
        raise ValueError(
            f"metric {name!r} must map a (..., M, M) table to (...) or (..., K); got "
            f"shape {out.shape} for a table of shape {table.shape}"
        )
    return out


def evaluate(
    counts: ArrayLike,
    *,
    metrics: MetricSpec | Sequence[MetricSpec] = ("micro_f1", "macro_f1"),
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    ref: float | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
    dtype: DTypeLike = np.float64,
    labels: Sequence[Any] | None = None,
    names: Sequence[str] | None = None,
    keep_draws: bool = False,
    workers: int | None = None,
    max_memory: int | None = None,
    index_offset: int = 0,
    progress: Callable[[int, int], None] | None = None,
    prior_check: bool = True,
    prevalence: Any = None,
    chance: bool = False,
) -> Evaluation:
    """Posterior summaries of F-scores and other metrics of confusion matrices.

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M), DataFrame or ConfusionMatrix
        Confusion matrices of whole-number counts; rows are true classes. A
        pandas DataFrame (``pd.crosstab(y_true, y_pred)``), a
        :class:`~f1posterior.ConfusionMatrix` or a list of them gives its
        labels, and columns are matched to rows by label
        (:func:`f1posterior._core.labelled.labelled_counts`).
    metrics : str, callable or sequence of them, default ("micro_f1", "macro_f1")
        Names from :data:`f1posterior.metrics.METRICS`: ``micro_f1``,
        ``macro_f1``, ``weighted_f1``, ``macro_f1_star``, ``accuracy``,
        ``balanced_accuracy``, ``mcc``, ``cohen_kappa``, ``informedness``,
        ``markedness``, ``p4``; class averages ``macro_precision``,
        ``macro_recall``, ``weighted_precision``, ``weighted_recall``,
        ``macro_specificity``, ``macro_npv``, ``macro_fpr``, ``macro_fnr``,
        ``macro_fdr``, ``micro_jaccard``, ``macro_jaccard``,
        ``weighted_jaccard``; and per class ``f1``, ``precision``, ``recall``,
        ``specificity``, ``npv``, ``fpr``, ``fnr``, ``fdr``, ``jaccard``,
        ``positive_likelihood_ratio``, ``negative_likelihood_ratio``,
        ``diagnostic_odds_ratio``, ``log_diagnostic_odds_ratio``. Or callables
        mapping a ``(..., M, M)`` table to ``(...)`` or ``(..., K)``.
    draws : int, default 50_000
        Posterior draws per matrix.
    alpha, beta : prior, default "hierarchical"
        Priors of the rows and of the prevalences, as in
        :func:`f1posterior.sample_posterior` (the default is the hierarchical
        prior, :func:`f1posterior.prior_preset`).
    ref : float, optional
        Reference value; adds ``p_below`` and ``p_above`` to every summary.
    ci_prob : float, default 0.95
        Probability of the HDI and the equal-tailed interval.
    rng : None, int, SeedSequence or Generator
        Source of randomness. For the same seed, the draws equal those of
        :func:`f1posterior.sample_posterior` passed through the metric, so a
        metric's draws and summary do not depend on which other metrics,
        ``chance`` or ``keep_draws`` are requested (closed forms aside: with
        ``keep_draws`` an exact metric is also sampled, its summary stays exact).
    dtype : numpy.float64 or numpy.float32
        Floating type of the cell draws. float32 halves the working memory and
        is faster; metric draws and summaries are float64 either way.
    labels : sequence, optional
        Class names, used when printing per-class metrics. With a labelled
        ``counts`` (a DataFrame or a ``ConfusionMatrix``) it must list the
        same classes, in any order, and the table is reordered to it.
    names : sequence of str, optional
        Unique names of the matrices of a 1-D batch, one per matrix (stored as
        ``result.names``; shown in tables and :meth:`Evaluation.to_dataframe`).
    keep_draws : bool, default False
        Keep every metric's posterior draws in ``result.metric_draws`` (memory
        grows with the batch; by default only summaries are kept).
    workers : int, optional
        Threads to run on; default every core (``os.cpu_count()``). Results
        are bit-identical whatever the number (see docs/batch.md).
    max_memory : int, optional
        Byte budget of the working arrays (Gamma buffers, metric draws,
        summary temporaries), default 256 MiB. Matrices and draws are chunked
        to respect it; results are bit-identical whatever the budget. One
        matrix's metric draws are always held, and kept draws
        (``keep_draws``) are not counted.
    index_offset : int, default 0
        Flat batch index of the first matrix of ``counts`` within a larger
        batch: ``evaluate(C[i:j], rng=s, index_offset=i)`` equals rows
        ``i:j`` of ``evaluate(C, rng=s)`` (used by :mod:`f1posterior.integrations.dask`).
    progress : callable, optional
        Called as ``progress(done, total)`` (matrices) from the calling thread
        as groups of matrices finish.
    prior_check : bool, default True
        Fill every summary's ``prior_shift`` and ``prior_dominated``: how far
        the prior moves the posterior mean from a vanishing prior's (measured
        from the observed score; see :class:`MetricSummary`). It costs next to
        nothing; False leaves both fields None, as do fewer than 100 draws
        (the check divides by the standard deviation of the draws). With ``prevalence``, it is
        measured from the score at the target prevalence (still exact for
        recall and accuracy: the posterior mean of ``theta`` under a vanishing
        prior is the row-normalised table).
    prevalence : array_like (M,) or (*batch, M), or ("dirichlet", a), optional
        Evaluate every metric at this target class prevalence instead of the
        test set's: cell probabilities ``pi_u theta_uv``, with ``theta`` from
        the posterior (Zhang, Wang & Zhao 2015) and the test set's prevalence
        ``mu`` unused. A probability vector (positive, summing to 1 within
        1e-9) in class order, one per matrix if it has the batch's shape; or
        ``("dirichlet", a)`` with positive concentrations ``a`` (for example
        counts from the deployment population): each draw then takes its own
        ``pi ~ Dirichlet(a)``, from random streams of its own (the cell draws
        are those without a target). The ``score`` is then the metric of the
        re-weighted observed table (rows normalised, then scaled by ``pi``, or
        by the Dirichlet's mean), NaN when a class has no document. Recall is
        unchanged; precision is ``pi TPR / (pi TPR + (1 - pi) FPR)`` for a
        binary table. Closed forms other than recall's assume the test set's
        prevalence and are not used.
    chance : bool, default False
        Add the chance baseline to every summary: ``chance``, the posterior
        mean of the metric of a classifier predicting at the same rates but
        independently of the truth (per draw, the table ``r_u k_v`` of the
        drawn table's row and column sums), ``chance_score`` (the same for
        the observed table) and ``p_above_chance``, P(metric > chance level)
        draw by draw. Every metric is then sampled too; a metric with a closed
        form keeps its exact summary (the draws give only the chance fields).

    Returns
    -------
    Evaluation
        Mapping from metric name to :class:`MetricSummary`; fields are floats
        for one matrix and arrays of the batch shape for a batch (with a
        trailing class axis for per-class metrics).

    See Also
    --------
    evaluate_multilabel : The same for multi-label (per-label 2 x 2) tables.
    sample_posterior : The posterior cell draws behind every sampled metric.
    summarize_draws : The summary of any draws.

    Examples
    --------
    >>> res = evaluate([[40, 10], [5, 45]], draws=20_000, ref=0.8, rng=1)
    >>> s = res["micro_f1"]
    >>> round(s.score, 3)
    0.85
    >>> round(s.mean, 2), s.hdi.shape
    (0.84, (2,))
    """
    resolved = resolved_all = check_metric_fns(metrics)
    sa = check_sampling_args(draws, ci_prob, ref, rng, dtype)
    budget = check_max_memory(max_memory)
    _refuse_what_cannot_fit(counts, resolved, sa.draws, sa.dtype, budget, chance is True)
    c, labels = as_counts(counts, labels)
    labels = check_class_names(labels, c.shape[-1])
    keep_draws = check_flag(keep_draws, "keep_draws")
    matrix_names = check_batch_names(names, c.shape[:-2])
    settings = RunSettings(
        sa, keep_draws, check_workers(workers), budget, check_index_offset(index_offset),
        check_progress(progress),
    )  # fmt: skip
    prior_check = check_flag(prior_check, "prior_check")
    target = None
    if prevalence is not None:  # here: an evaluation at the test set's prevalence never loads it
        from ._prevalence import check_prevalence

        target = check_prevalence(prevalence, c.shape[-1], c.shape[:-2], labels=labels)
    chance = check_flag(chance, "chance")
    prior = resolve(alpha, beta, c)
    conc = concentrations(c, prior.alpha, prior.beta)
    batch, m = conc.shape[:-2], conc.shape[-1]
    mixture = None if prior.mixture is None else prior.mixture.flat()
    flat_conc = conc.reshape((-1, m + 1, m))
    flat_counts = c.reshape((-1, m, m)) if c.shape[:-2] == batch else (
        np.broadcast_to(c, (*batch, m, m)).reshape((-1, m, m))
    )  # fmt: skip

    observed = flat_counts
    if target is not None:  # the observed table at the target (mean) prevalence
        from ._prevalence import reweight

        observed = reweight(flat_counts, np.broadcast_to(target.mean(), (*batch, m)).reshape(-1, m))
    with np.errstate(invalid="ignore", divide="ignore"), shared_class_sums(observed):
        scores = {name: metric_values(fn, observed, name) for name, fn in resolved}
    chance_scores = {}  # each metric's chance_score: on the observed chance tables
    if chance:
        table = chance_table(observed)
        with np.errstate(invalid="ignore", divide="ignore"), shared_class_sums(table):
            chance_scores = {n: metric_values(fn, table, n) for n, fn in resolved}
    # Closed forms (f1posterior.posterior._exact; scipy): under an aligned prior, and recall under
    # any prior. Exact summaries; sampled too only when keep_draws or chance needs the draws,
    # so a metric's summary is the same whatever else is requested.
    requested = list(scores)
    exact = exact_summaries(resolved, c, prior, scores, tuple(batch), sa.ci_prob, sa.ref, target)
    if exact and not keep_draws and not chance:
        resolved = [(n, fn) for n, fn in resolved if n not in exact]
        scores = {n: scores[n] for n, _ in resolved}
    sampled: dict[str, MetricSummary] = {}
    kept = None
    if scores:  # the batch engine: groups, chunks and threads (f1posterior.posterior._batch)
        # every sampled metric comes from the one whole-table draw, so a metric's draws
        # never depend on which other metrics (or chance=True) are requested
        prev = None if target is None else target.sampler(tuple(batch), sa.root, sa.dtype)
        measure = TableMetrics(resolved, scores, metric_values, sa, tuple(batch), chance_scores)
        engine = Engine(flat_conc, measure, settings, prevalence=prev, mixture=mixture,
                        whole=measure.one)  # fmt: skip
        sampled, kept = engine.run()
    summaries = {n: _exact_first(exact.get(n), sampled.get(n)) for n in requested}
    if prior_check and sa.draws >= MIN_PRIOR_CHECK_DRAWS:
        summaries = check_prior_dominance(summaries, dict(resolved_all), c)
    return Evaluation(
        summaries=summaries,
        prior=describe_prior(alpha, beta),
        draws=sa.draws,
        ci_prob=sa.ci_prob,
        ref=sa.ref,
        seed=run_seed(sa.root),
        batch_shape=tuple(batch),
        labels=None if labels is None else [str(x) for x in labels],
        names=matrix_names,
        metric_draws=kept,
        prevalence=target,
        chance=chance,
    )


def _exact_first(exact: MetricSummary | None, sampled: MetricSummary | None) -> MetricSummary:
    """The closed-form summary where there is one (with the sampled chance level, if any)."""
    if exact is None:
        assert sampled is not None
        return sampled
    if sampled is None or sampled.chance is None:
        return exact
    return dataclasses.replace(
        exact, chance=sampled.chance, chance_score=sampled.chance_score,
        p_above_chance=sampled.p_above_chance,
    )  # fmt: skip


def _refuse_what_cannot_fit(
    counts: Any,
    metrics: list[tuple[str, Any]],
    draws: int,
    dtype: np.dtype,
    budget: int,
    chance: bool = False,
) -> None:
    """:func:`f1posterior.posterior._batch.check_fits` from the shape alone, before ``counts``
    is copied."""
    try:
        shape = np.shape(counts)
    except ValueError:  # ragged: check_counts says so
        return
    if len(shape) < 2 or shape[-1] != shape[-2] or shape[-1] < 1:
        return
    m = int(shape[-1])
    widths = [m if name in PER_CLASS_METRICS else 1 for name, _ in metrics] * (1 + chance)
    try:
        check_fits(m, draws, widths, dtype.itemsize, budget)
    except ValueError as exc:
        raise ValueError(f"evaluate: {exc}") from None
