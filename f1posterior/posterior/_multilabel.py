"""Multi-label (and binary) evaluation: one M = 2 core model per label.

Design notes: docs/design.md#posterior-multilabel
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .._core.describe import describe
from .._core.priors import DEFAULT_PRIOR, PriorArg, describe_prior, resolve
from .._core.sampling import concentrations
from .._core.streams import DEFAULT_DRAWS, run_seed
from .._core.validation import (
    SamplingArgs,
    SeedLike,
    check_counts,
    check_flag,
    check_max_memory,
    check_metric_names,
    check_positive,
    check_sampling_args,
    check_workers,
)
from ..metrics import (
    AGGREGATE_METRICS,
    MULTILABEL_METRICS,
    PER_LABEL_METRICS,
    LabelTerms,
    aggregate,
    term_names,
)
from ._assemble import scipy_or_warn
from ._batch import Engine, RunSettings, Scratch, check_progress
from ._evaluation import Evaluation
from ._exact import BetaPosterior, is_aligned, posterior_from_concentration
from ._summary import MetricSummary

__all__ = [
    "evaluate_multilabel",
    "multilabel_scores",
    "MULTILABEL_METRICS",
    "PER_LABEL_METRICS",
    "AGGREGATE_METRICS",
]

#: Per-label metrics with a closed-form posterior under the aligned prior (``fbeta`` too
#: when ``f_beta`` is 1).
EXACT_LABEL_METRICS = ("f1", "precision", "recall", "jaccard")


def label_posterior(conc: np.ndarray, name: str) -> BetaPosterior:
    """Exact posterior of a per-label metric given ``A = alpha + C``, shape ``(..., L, 2, 2)``.

    The M = 2 per-class closed forms of :mod:`f1posterior.posterior._exact` for the
    positive class (index 1), valid under the aligned prior: ``precision``,
    ``recall``, ``f1`` (and ``fbeta`` with ``f_beta = 1``), and ``jaccard``,
    whose posterior is the ``B ~ Beta(A_11, A_01 + A_10)`` behind F1. No
    validation (internal use by :func:`evaluate_multilabel` and the gate).
    """
    key = {"jaccard": "f1", "fbeta": "f1"}.get(name, name)
    post = posterior_from_concentration(conc, key)
    transform = "identity" if name == "jaccard" else post.transform
    return BetaPosterior(post.a[..., 1], post.b[..., 1], transform)


def _exact_summaries(
    counts: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    names: list[str],
    f_beta: float,
    scores: dict[str, np.ndarray],
    prob: float,
    ref: float | None,
) -> dict[str, MetricSummary]:
    """Exact summaries of the per-label metrics with a closed form, when the prior is aligned."""
    todo = [n for n in names if n in EXACT_LABEL_METRICS or (n == "fbeta" and f_beta == 1.0)]
    if not todo or not is_aligned(alpha, beta) or not scipy_or_warn(f"per-label metrics {todo}"):
        return {}
    conc = alpha + counts
    return {
        n: label_posterior(conc, n).summary(score=scores[n], ci_prob=prob, ref=ref) for n in todo
    }


def check_tables(tables: Any, name: str = "tables") -> np.ndarray:
    """Per-label 2 x 2 count tables ``(*batch, L, 2, 2)`` as float (validation)."""
    arr = np.asarray(tables) if not isinstance(tables, (str, bytes)) else tables
    shape = getattr(arr, "shape", None)
    if shape is None or len(shape) < 3 or tuple(shape[-2:]) != (2, 2):
        raise ValueError(
            f"{name} must be per-label 2 x 2 tables of shape (*batch, L, 2, 2) in scikit-learn's "
            f"multilabel_confusion_matrix layout [[tn, fp], [fn, tp]]; got "
            f"{'shape ' + str(shape) if shape is not None else describe(tables)}"
        )
    return check_counts(tables, name)


def _check_label_names(labels: Any, n_labels: int) -> list[str] | None:
    if labels is None:
        return None
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"labels must be a sequence of {n_labels} names; got {describe(labels)}")
    out = [str(x) for x in labels]
    if len(out) != n_labels:
        raise ValueError(f"labels must name the {n_labels} labels; got {len(out)} names")
    return out


def multilabel_scores(
    tables: ArrayLike,
    *,
    metrics: str | Sequence[str] = ("micro_f1", "macro_f1"),
    f_beta: float = 1.0,
) -> dict[str, np.ndarray]:
    """Observed (plug-in) multi-label metrics of per-label 2 x 2 count tables.

    Equal to scikit-learn's multi-label scores on the predictions the tables
    summarise (``f1_score(average="micro"|"macro"|"weighted"|None)``,
    ``fbeta_score``, ``precision_score``, ``recall_score``,
    ``jaccard_score``, ``hamming_loss``), with ``zero_division=0``.

    Parameters
    ----------
    tables : array_like, shape (*batch, L, 2, 2)
        Whole-number counts ``[[tn, fp], [fn, tp]]`` per label.
    metrics : str or sequence of str
        Names from :data:`MULTILABEL_METRICS`.
    f_beta : float, default 1.0
        The ``beta`` of the F-beta metrics (``*_fbeta``, ``fbeta``).

    Returns
    -------
    dict of str to ndarray
        Shape ``(*batch)``, or ``(*batch, L)`` for per-label metrics.

    See Also
    --------
    evaluate_multilabel : Their posteriors.
    f1posterior.multilabel_confusion_matrix : The tables from predictions.

    Examples
    --------
    >>> t = [[[5, 1], [2, 2]], [[3, 0], [1, 6]]]
    >>> s = multilabel_scores(t, metrics=["micro_f1", "f1", "hamming_loss"])
    >>> round(float(s["micro_f1"]), 4), s["f1"].round(4).tolist(), float(s["hamming_loss"])
    (0.8, [0.5714, 0.9231], 0.2)
    """
    c = check_tables(tables)
    names = check_metric_names(metrics, MULTILABEL_METRICS)
    b = check_positive(f_beta, "f_beta")
    return _scores(c, names, b * b)


def _scores(c: np.ndarray, names: list[str], b2: float) -> dict[str, np.ndarray]:
    terms = LabelTerms(c, b2)
    sums = {k: terms[k].sum(axis=-1) for k in term_names(names)}
    n_labels = c.shape[-3]
    return {
        n: terms[n] if n in PER_LABEL_METRICS else aggregate(n, sums, n_labels, b2) for n in names
    }


def evaluate_multilabel(
    tables: ArrayLike,
    *,
    # the keywords of f1posterior.evaluate, spelled out (not **kw) for users, docs and mypy
    metrics: str | Sequence[str] = ("micro_f1", "macro_f1"),
    f_beta: float = 1.0,
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    ref: float | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
    dtype: DTypeLike = np.float64,
    labels: Sequence[Any] | None = None,
    keep_draws: bool = False,
    workers: int | None = None,
    max_memory: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Evaluation:
    """Posterior summaries of multi-label metrics from per-label 2 x 2 tables.

    Each label gets the core model with ``M = 2`` (independent Beta
    posteriors of prevalence, recall and false-positive rate; see the module
    docstring), and metrics across labels are computed draw by draw from the
    labels' expected counts. Memory stays within ``max_memory`` whatever ``L``:
    the labels' cell draws are produced in chunks, only metric draws are kept,
    and per-label summaries are made a group of labels at a time.

    Parameters
    ----------
    tables : array_like, shape (*batch, L, 2, 2)
        Whole-number counts per label, ``[[tn, fp], [fn, tp]]`` (the output
        of :func:`f1posterior.multilabel_confusion_matrix`). A binary problem
        is ``L = 1``.
    metrics : str or sequence of str, default ("micro_f1", "macro_f1")
        Names from :data:`MULTILABEL_METRICS`: ``micro_f1``, ``macro_f1``,
        ``weighted_f1``, ``micro_fbeta``, ``macro_fbeta``,
        ``weighted_fbeta``, ``micro_precision``, ``micro_recall``,
        ``macro_precision``, ``macro_recall``, ``hamming_loss``,
        ``micro_jaccard``, ``macro_jaccard``, and per label ``f1``,
        ``fbeta``, ``precision``, ``recall``, ``jaccard``.
    f_beta : float, default 1.0
        The ``beta`` of the F-beta metrics (not the prior ``beta``).
    draws : int, default 50_000
        Posterior draws per label. Time grows as ``L * draws``.
    alpha, beta : prior, default "hierarchical"
        Priors of each label's 2 x 2 model, as in :func:`f1posterior.evaluate`
        (the hierarchical default centres each label's two rates on a common,
        integrated centre); Dirichlet concentrations: ``alpha`` broadcasts against
        ``(*batch, L, 2, 2)`` and ``beta`` against ``(*batch, L, 2)``;
        ``beta="aligned"`` makes each label one Dirichlet over its four cells,
        and then the per-label ``f1``, ``precision``, ``recall`` and
        ``jaccard`` (and ``fbeta`` when ``f_beta`` is 1) are summarised exactly
        (closed forms, ``exact`` True, ``mc_error`` 0, ``draws`` 0; needs
        scipy, else they are sampled with a warning).
    ref : float, optional
        Reference value; adds ``p_below``/``p_above`` to every summary.
    ci_prob : float, default 0.95
        Probability of the HDI and equal-tailed interval.
    rng : None, int, SeedSequence or Generator
        Source of randomness. For one seed the cell draws equal those of
        :func:`f1posterior.sample_posterior` on ``tables`` reshaped to
        ``(-1, 2, 2)``, whatever the chunking.
    dtype : numpy.float64 or numpy.float32
        Floating type of the cell draws.
    labels : sequence of L names, optional
        Label names, used when printing per-label metrics.
    keep_draws : bool, default False
        Keep the metric draws in ``result.metric_draws``: ``(*batch, draws)``
        or ``(*batch, L, draws)`` per label (large for large ``L``).
    workers : int, optional
        Threads to run on, as in :func:`f1posterior.evaluate`; default every
        core. Results are bit-identical whatever the number.
    max_memory : int, optional
        Byte budget of the working arrays, as in :func:`f1posterior.evaluate`
        (default 256 MiB); results are bit-identical whatever the budget.
    progress : callable, optional
        Called as ``progress(done, total)`` (labels' tables, over the whole
        batch) from the calling thread as groups of tables finish.

    Returns
    -------
    Evaluation
        Mapping from metric name to :class:`~f1posterior.MetricSummary`;
        fields have shape ``(*batch)`` (floats for one set of tables), with a
        trailing label axis for per-label metrics.

    See Also
    --------
    f1posterior.evaluate : The same for single-label confusion matrices.
    multilabel_scores : The observed (plug-in) scores alone.
    f1posterior.multilabel_confusion_matrix : Per-label tables from predictions.

    Examples
    --------
    >>> t = [[[5, 1], [2, 2]], [[3, 0], [1, 6]]]
    >>> res = evaluate_multilabel(t, metrics=["micro_f1", "f1"], draws=4000, rng=0)
    >>> round(res["micro_f1"].score, 4), res["f1"].mean.shape
    (0.8, (2,))
    >>> res = evaluate_multilabel(t, metrics=["f1"], beta="aligned")
    >>> res["f1"].exact, res["f1"].mean.round(4).tolist()
    (True, [0.5318, 0.8592])
    """
    c = check_tables(tables)
    names = check_metric_names(metrics, MULTILABEL_METRICS)
    fb = check_positive(f_beta, "f_beta")
    b2 = fb * fb
    sa = check_sampling_args(draws, ci_prob, ref, rng, dtype)
    prob, r = sa.ci_prob, sa.ref
    keep_draws = check_flag(keep_draws, "keep_draws")
    settings = RunSettings(
        sa, keep_draws, check_workers(workers), check_max_memory(max_memory), 0,
        check_progress(progress),
    )  # fmt: skip
    batch, n_labels = c.shape[:-3], c.shape[-3]
    label_names = _check_label_names(labels, n_labels)
    prior = resolve(alpha, beta, c)
    a, b = prior.alpha, prior.beta
    conc = concentrations(c, a, b).reshape((-1, 3, 2))  # flat (batch * L, M + 1, M)
    mixture = None if prior.mixture is None else prior.mixture.flat()
    sizes = np.broadcast_to(c.sum(axis=(-2, -1)), (*batch, n_labels)).reshape(-1)
    scores = _scores(c, names, b2)
    # Closed forms under the aligned prior: exact per-label summaries, and these metrics are
    # not sampled unless keep_draws asks for their draws.
    exact = _exact_summaries(c, a, b, names, fb, scores, prob, r)
    sampled = [n for n in names if keep_draws or n not in exact]

    summaries: dict[str, MetricSummary] = {}
    kept = None
    if sampled:  # the batch engine, on the flat stack of labels' tables
        measure = _LabelMetrics(sampled, sizes, b2, n_labels, tuple(batch), scores, sa)
        summaries, kept = Engine(conc, measure, settings, mixture=mixture).run()
    summaries = {n: exact[n] if n in exact else summaries[n] for n in names}
    return Evaluation(
        summaries=summaries,
        prior=describe_prior(alpha, beta) + " per label (M = 2 model)",
        draws=sa.draws,
        ci_prob=prob,
        ref=r,
        seed=run_seed(sa.root),
        batch_shape=tuple(batch),
        labels=label_names,
        metric_draws=kept,
    )


class _LabelMetrics:
    """:func:`evaluate_multilabel`'s measure (:class:`~f1posterior.posterior._batch.Measure`).

    A unit is one set of ``L`` labels' tables. Each chunk's cells are scaled to
    expected counts (by each label's documents); per-label metrics are held per
    table, and the terms of the metrics across labels are added into running sums
    per set, one label at a time in label order (so the sums are the same bit for
    bit however the tables are chunked). A set whose tables run in several groups
    carries its sums from one group to the next (the engine runs them in order).
    """

    def __init__(
        self,
        names: list[str],
        sizes: np.ndarray,
        b2: float,
        n_labels: int,
        batch: tuple[int, ...],
        scores: dict[str, np.ndarray],
        sampling: SamplingArgs,
    ) -> None:
        self.per_label = [n for n in names if n in PER_LABEL_METRICS]
        self.across = [n for n in names if n not in PER_LABEL_METRICS]
        self.names = self.per_label + self.across
        self.terms = term_names(self.across) if self.across else []
        self.span, self.sizes, self.b2, self.a = n_labels, sizes, b2, sampling
        self.scores = {n: v.reshape(-1) for n, v in scores.items()}
        self.shapes = {n: (*batch, n_labels) if n in self.per_label else batch for n in names}
        self.widths = [1.0] * len(self.per_label)
        if self.across:  # the sums and metric draws of a set, shared by its labels
            self.widths.append((len(self.terms) + len(self.across)) / n_labels)
        self.carry: dict[str, np.ndarray] | None = None

    def open(self, g0: int, g1: int, fresh: bool, scratch: Scratch) -> Any:
        per = {n: scratch.array("ml_" + n, (g1 - g0, self.a.draws), fresh) for n in self.per_label}
        sets = -(-g1 // self.span) - g0 // self.span
        if g0 % self.span and self.carry is not None:  # the rest of a set begun before
            return per, self.carry
        return per, {k: np.zeros((sets, self.a.draws)) for k in self.terms}

    def add(self, held: Any, cells: np.ndarray, g0: int, c: tuple[int, int, int, int]) -> None:
        per, sums = held
        i0, i1, d0, d1 = c
        t0, first = g0 + i0, g0 // self.span
        terms = LabelTerms(cells * self.sizes[t0 : g0 + i1, None, None, None], self.b2)
        for n in self.per_label:
            per[n][i0:i1, d0:d1] = terms[n]
        for k in self.terms:
            for t, row in enumerate(terms[k], start=t0):  # label by label, in order
                sums[k][t // self.span - first, d0:d1] += row

    def close(self, held: Any, g0: int, g1: int, scratch: Scratch) -> tuple[list[Any], list[Any]]:
        per, sums = held
        xs: list[Any] = list(per.values())
        out = [scratch.summarize(n, per[n], self.scores[n][g0:g1], self.a) for n in self.per_label]
        if g1 % self.span:  # the set goes on in the next group
            self.carry = sums
            return out + [None] * len(self.across), xs + [None] * len(self.across)
        self.carry = None
        s0, s1 = g0 // self.span, g1 // self.span
        for n in self.across:
            xs.append(aggregate(n, sums, self.span, self.b2))
            out.append(scratch.summarize(n, xs[-1], self.scores[n][s0:s1], self.a))
        return out, xs
