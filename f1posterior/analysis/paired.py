"""Paired comparison of classifiers on the same documents: the joint (true, A, B, ...) model
and `compare_predictions` (the model is described in :mod:`f1posterior.analysis.comparison`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.priors import describe_prior, resolve_prior
from .._core.sampling import LOG_SPACE_BELOW, STREAM_BLOCK_VARIATES, fill_block, prevalence_floor
from .._core.streams import block_stream
from .._core.validation import check_draws, check_nonnegative, check_prob, check_rng
from ..metrics.confusion import label_array as _predictions_label_array
from ..metrics.confusion import label_codes
from ..metrics.confusion import label_kind as _label_kind
from .comparison import Comparison, MetricSpec, _check_decision_prob, _check_metric, _comparison

__all__ = ["compare_predictions", "paired_metric_draws", "MAX_PAIRED_CELLS"]

#: Gamma variates held at once when sampling the paired model.
_CHUNK_VARIATES = 1 << 21


#: Largest number of joint cells M^(k+1) the paired model accepts.
MAX_PAIRED_CELLS = 1 << 18


def label_array(y: Any, name: str) -> np.ndarray:
    arr = _predictions_label_array(y, name)
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one label; got an empty sequence")
    return arr


def _encode(
    y_true: Any, preds: Sequence[tuple[str, Any]], labels: Any
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Integer codes of ``y_true`` (N,) and of the predictions (k, N), and the classes.

    Label arrays are validated as by :func:`f1posterior.metrics.confusion.confusion_matrix`
    (any hashable labels of one kind). Stricter than it: with ``labels=None`` a
    prediction outside the labels of ``y_true`` is an error, and with ``labels``
    given, a document whose label is not among them is an error (not dropped).
    """
    t = label_array(y_true, "y_true")
    arrays = [(name, label_array(p, name)) for name, p in preds]
    for name, arr in arrays:
        if arr.shape[0] != t.shape[0]:
            raise ValueError(
                f"{name} must hold one prediction per document of y_true ({t.shape[0]}); "
                f"got {arr.shape[0]}"
            )
    kinds = {"y_true": _label_kind(t), **{name: _label_kind(arr) for name, arr in arrays}}
    if len(set(kinds.values())) != 1:
        shown = ", ".join(f"{v} labels in {k}" for k, v in kinds.items())
        raise TypeError(
            f"y_true and the predictions must hold labels of the same type; got {shown}"
        )
    if labels is None:
        classes = _sorted_labels(t)
    else:
        if isinstance(labels, (str, bytes)):
            raise TypeError(f"labels must be a sequence of labels or None; got {labels!r}")
        classes = [v.item() if isinstance(v, np.generic) else v for v in labels]
        if not classes or len(set(classes)) != len(classes):
            raise ValueError(
                f"labels must be distinct labels, at least one; got {describe(labels)}"
            )
    index = {c: i for i, c in enumerate(classes)}
    coded = []
    for name, arr in [("y_true", t), *arrays]:
        c = label_codes(arr, index, name)
        if (c < 0).any():
            extra = list(dict.fromkeys(arr[c < 0].tolist()))[:5]
            if labels is None:
                raise ValueError(
                    f"{name} predicts labels that never occur in y_true: {extra} (do the "
                    f"classifiers use different label sets?); pass labels=[...] listing every "
                    f"class if a model may predict classes absent from the test set"
                )
            raise ValueError(f"{name} holds labels not in labels={classes}: {extra}")
        coded.append(c)
    return coded[0], np.stack(coded[1:]), classes


def _sorted_labels(arr: np.ndarray) -> list[Any]:
    values = list(dict.fromkeys(arr.tolist()))
    try:
        return sorted(values)
    except TypeError:
        raise TypeError(
            "y_true's labels cannot be sorted (they do not support <); pass labels= to give "
            f"their order; found {describe(values)}"
        ) from None


def _paired_prior(
    alpha: Any, beta: Any, joint: np.ndarray, m: int, k: int
) -> tuple[np.ndarray, np.ndarray, str]:
    """Concentrations (M, M^k) and (M,) of the paired model, and their description.

    A preset (or a marginal array of shape (M, M)) is resolved by
    :func:`f1posterior._core.priors.resolve_prior` on the average of the k models'
    marginal tables (they share their row sums, so the ``"adaptive"`` prior
    is centred on the models' mean accuracy), giving one marginal prior
    ``A`` (M, M) with row totals ``T``. The joint prior is the product form
    ``T_u * prod_i A[u, v_i] / T_u``: summed over the other models' cells it
    gives every model exactly the marginal prior ``A``. Numbers and (M, M)
    arrays are marginal priors too; only an (M, M^k) array is taken per joint
    cell, as given.
    """
    cells = (m,) * (k + 1)
    if alpha is None:
        alpha = "adaptive"
    margins = _marginal_tables(joint.reshape(m, m**k, 1), m, k)
    mean_table = np.mean([t[0] for t in margins], axis=0)
    joint_numeric = not isinstance(alpha, str) and np.shape(alpha) == (m, m**k)
    if joint_numeric:
        a, _ = resolve_prior(alpha, 1.0, np.empty(cells).reshape(m, m**k))
        marg = a.sum(axis=-1)
    else:
        am, _ = resolve_prior(alpha, 1.0, mean_table)
        totals = am.sum(axis=-1, keepdims=True)  # (M, 1)
        shape = am / totals
        a = totals.copy()
        for _ in range(k):  # one more model's prediction axis, the last varying fastest
            a = (a[:, :, None] * shape[:, None, :]).reshape(m, -1)
        marg = totals[:, 0]
    if isinstance(beta, str) and beta == "aligned":
        b = marg
    else:
        _, b = resolve_prior(1.0, beta, mean_table)
    if joint_numeric:
        beta_text = beta if isinstance(beta, str) else "as given"
        text = f"paired model; alpha given per joint cell, beta {beta_text}"
    else:
        text = f"paired model; each model's marginal prior: {describe_prior(alpha, beta)}"
    return a.reshape(m, m**k), b, text


def _joint_counts(codes_t: np.ndarray, codes: np.ndarray, m: int) -> np.ndarray:
    """Counts of the joint cells, shape (M, M^k) (true class, prediction tuple)."""
    k = codes.shape[0]
    flat = codes_t.copy()
    for j in range(k):
        flat = flat * m + codes[j]
    return np.bincount(flat, minlength=m ** (k + 1)).reshape(m, m**k).astype(np.float64)


def _marginal_tables(p: np.ndarray, m: int, k: int) -> list[np.ndarray]:
    """Each classifier's confusion tables, (n, M, M) views, from joint draws (M, M^k, n)."""
    full = p.reshape((m,) * (k + 1) + (p.shape[-1],))
    out = []
    for j in range(k):
        axes = tuple(1 + i for i in range(k) if i != j)
        out.append(np.moveaxis(full.sum(axis=axes) if axes else full, -1, 0))
    return out


def paired_metric_draws(
    joint: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    k: int,
    fn: Callable[[np.ndarray], Any],
    draws: int,
    root: np.random.SeedSequence,
) -> np.ndarray:
    """Posterior draws (k, draws) of each classifier's metric under the paired model.

    Parameters
    ----------
    joint : ndarray, shape (M, M^k)
        Counts of (true class, prediction tuple) cells.
    alpha : ndarray, shape (M, M^k)
        Prior concentrations of each true class's prediction tuples.
    beta : ndarray, shape (M,)
        Prior concentrations of the prevalences.
    k : int
        Number of classifiers.
    fn : callable
        Metric of a (..., M, M) table returning (...).
    draws : int
        Number of draws.
    root : SeedSequence
        Root of the random streams: block ``i`` of draws uses the stream keyed
        ``(0, i)`` below ``root``, so results do not depend on chunking.
    """
    m = joint.shape[0]
    rows = alpha + joint  # (M, L)
    prev = (beta + joint.sum(axis=-1))[None, :]  # (1, M)
    per_draw = rows.size + m
    bd = max(1, STREAM_BLOCK_VARIATES // per_draw)
    step = bd * max(1, _CHUNK_VARIATES // (bd * per_draw))
    out = np.empty((k, draws))
    tiny = np.finfo(np.float64).tiny
    floor = prevalence_floor(np.float64)
    parts = []
    for conc in (rows, prev):
        small = conc < LOG_SPACE_BELOW
        parts.append((conc.tolist(), conc, small if small.any() else None))
    for d0 in range(0, draws, step):
        d1 = min(draws, d0 + step)
        g_rows = np.empty((*rows.shape, d1 - d0))  # draws last, as the batch engine
        g_prev = np.empty((1, m, d1 - d0))
        for s0 in range(d0, d1, bd):
            s1 = min(d1, s0 + bd)
            gen = block_stream(root, 0, s0 // bd)
            for (lists, conc, small), g in zip(parts, (g_rows, g_prev), strict=True):
                fill_block(gen, lists, conc, small, g[..., s0 - d0 : s1 - d0])
        mu = g_prev[0] / g_prev[0].sum(axis=0)  # (M, n)
        # the core's prevalence floor: an empty class's rows keep their ratios exactly
        # (f1posterior._core.sampling, "Small concentrations")
        np.fmax(mu, floor, out=mu)
        p = g_rows * (mu / g_rows.sum(axis=1))[:, None, :]  # (M, L, n)
        np.maximum(p, tiny, out=p)
        for j, table in enumerate(_marginal_tables(p, m, k)):
            out[j, d0:d1] = _metric_values(fn, table)
    return out


def _metric_values(fn: Callable[[np.ndarray], Any], table: np.ndarray) -> np.ndarray:
    out = np.asarray(fn(table), dtype=np.float64)
    if out.shape != table.shape[:-2]:
        raise ValueError(
            f"metric must map a (..., M, M) table to one number per table (...); got shape "
            f"{out.shape} for a table of shape {table.shape}"
        )
    return out


def compare_predictions(
    y_true: ArrayLike,
    pred_a: ArrayLike,
    pred_b: ArrayLike,
    *,
    metric: MetricSpec = "macro_f1",
    rope: float = 0.0,
    prob: float = 0.95,
    draws: int = 50_000,
    alpha: Any = "adaptive",
    beta: Any = "adaptive",
    labels: Sequence[Any] | None = None,
    ci_prob: float = 0.95,
    rng: Any = None,
) -> Comparison:
    """Compare two classifiers on the same documents (the paired model).

    Parameters
    ----------
    y_true, pred_a, pred_b : array_like, shape (N,)
        True classes and the two classifiers' predictions, one per document;
        labels of any hashable type (all numbers or all strings).
    metric : str or callable, default "macro_f1"
        As in :func:`compare`.
    rope, prob, draws, ci_prob :
        As in :func:`compare`.
    alpha : None, "uniform", "jeffreys", float or array_like broadcasting to (M, M, M)
        Dirichlet prior on each true class's M x M prediction pairs. None or
        "uniform" (default): ``1/M`` per pair cell, so each classifier's
        marginal confusion matrix has the core model's uniform prior
        (alpha = 1); "jeffreys": ``0.5/M`` (marginal alpha = 0.5). A number
        or array is the per-pair-cell concentration itself.
    beta : float, array_like of shape (M,), "uniform", "jeffreys" or "aligned", default 1.0
        Dirichlet prior on class prevalences; "aligned" sets ``beta_t`` to
        the sum of class ``t``'s pair-cell alphas (one Dirichlet over all
        M^3 cells).
    labels : sequence, optional
        Every class, in order. By default the sorted labels of ``y_true``;
        a prediction outside them is an error (it usually means the
        classifiers use different label sets).
    rng : None, int, SeedSequence or Generator
        Source of randomness.

    Returns
    -------
    Comparison
        With ``paired=True`` and ``labels`` the classes used.

    Examples
    --------
    >>> y = [0] * 50 + [1] * 50
    >>> a = [0] * 45 + [1] * 5 + [1] * 45 + [0] * 5
    >>> b = [0] * 40 + [1] * 10 + [1] * 40 + [0] * 10
    >>> res = compare_predictions(y, a, b, metric="accuracy", draws=20_000, rng=0)
    >>> round(res.difference.score, 3), res.decision
    (0.1, 'A better')
    """
    return _compare_predictions(
        y_true, pred_a, pred_b, metric, rope, prob, draws, alpha, beta, labels, ci_prob, rng
    )


def _compare_predictions(
    y_true: Any,
    pred_a: Any,
    pred_b: Any,
    metric: Any,
    rope: Any,
    prob: Any,
    draws: Any,
    alpha: Any,
    beta: Any,
    labels: Any,
    ci_prob: Any,
    rng: Any,
) -> Comparison:
    name, fn = _check_metric(metric)
    rp = check_nonnegative(rope, "rope")
    pr = _check_decision_prob(prob)
    n = check_draws(draws)
    hp = check_prob(ci_prob, "ci_prob")
    codes_t, codes, classes = _encode(y_true, [("pred_a", pred_a), ("pred_b", pred_b)], labels)
    m = len(classes)
    root = check_rng(rng)
    joint = _joint_counts(codes_t, codes, m)
    a, b, prior = _paired_prior(alpha, beta, joint, m, 2)
    v = paired_metric_draws(joint, a, b, 2, fn, n, root)
    tables = _marginal_tables(joint.reshape(m, m * m, 1), m, 2)
    return _comparison(
        v[0],
        v[1],
        _metric_values(fn, tables[0][0]),
        _metric_values(fn, tables[1][0]),
        metric=name,
        rope=rp,
        prob=pr,
        ci_prob=hp,
        paired=True,
        prior=prior,
        seed=root.entropy,
        labels=classes,
    )
