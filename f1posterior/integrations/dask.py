"""Posterior summaries of Dask arrays of confusion matrices, block by block.

The summaries equal ``f1posterior.evaluate(x.compute(), ...)`` bit for bit, whatever the
chunking. Dask is optional (``pip install 'f1posterior[dask]'``), imported only when used.

Design notes: docs/design.md#integrations-dask
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from .._core.describe import describe
from .._core.priors import DEFAULT_PRIOR, PriorArg
from .._core.streams import DEFAULT_DRAWS
from .._core.validation import SeedLike, check_sampling_args
from ..posterior import Evaluation, MetricSpec, MetricSummary
from ..posterior import evaluate as evaluate_in_memory

__all__ = ["evaluate"]


def _check_dask_counts(counts: Any) -> Any:
    try:
        import dask.array as da
    except ImportError:  # pragma: no cover - dask is in the test extra
        raise ImportError(
            "f1posterior.integrations.dask needs dask: pip install 'f1posterior[dask]'"
        ) from None
    if not isinstance(counts, da.Array):
        raise TypeError(
            f"counts must be a dask.array.Array of shape (B, M, M); got {describe(counts)} "
            "(use f1posterior.evaluate for in-memory arrays)"
        )
    if counts.ndim != 3 or counts.shape[1] != counts.shape[2]:
        raise ValueError(
            f"counts must be a dask array of shape (B, M, M) (one batch axis); got shape "
            f"{counts.shape}"
        )
    if any(_unknown(s) for s in counts.shape):
        raise ValueError("counts must have a known shape; call compute_chunk_sizes() first")
    return counts.rechunk({1: -1, 2: -1})


def _unknown(v: Any) -> bool:
    """True for an unknown (NaN) Dask dimension."""
    return isinstance(v, float) and v != v


def evaluate(
    counts: Any,
    *,
    # the keywords of f1posterior.evaluate, spelled out (not **kw) for users, docs and mypy
    metrics: MetricSpec | Sequence[MetricSpec] = ("micro_f1", "macro_f1"),
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    ref: float | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
    dtype: DTypeLike = np.float64,
    labels: Sequence[Any] | None = None,
    workers: int | None = 1,
    max_memory: int | None = None,
    prevalence: Any = None,
    chance: bool = False,
) -> Evaluation:
    """:func:`f1posterior.evaluate` of a ``(B, M, M)`` Dask array, block by block.

    Parameters
    ----------
    counts : dask.array.Array, shape (B, M, M)
        Confusion matrices, chunked along ``B`` (the class axes are made
        single chunks).
    metrics, draws, alpha, beta, ref, ci_prob
        As in :func:`f1posterior.evaluate`. ``alpha`` and ``beta`` must be the
        same for every matrix (presets, scalars, ``(M, M)`` and ``(M,)``
        arrays).
    rng : None, int, SeedSequence or Generator
        Resolved once to a root seed; every block derives its matrices'
        streams from it and its global offset.
    dtype, labels
        As in :func:`f1posterior.evaluate`.
    workers : int or None, default 1
        Threads inside each block's computation (Dask already runs blocks in
        parallel; ``None`` uses every core per block).
    max_memory
        As in :func:`f1posterior.evaluate`.
    prevalence, chance
        As in :func:`f1posterior.evaluate`; ``prevalence`` must be the same for
        every matrix (one vector, or ``("dirichlet", a)`` with one vector ``a``).

    Returns
    -------
    Evaluation
        Summaries with batch shape ``(B,)``, equal bit for bit to those of
        ``f1posterior.evaluate(counts.compute(), ...)`` with the same seed.
        Draws are never kept (``metric_draws`` is None).

    See Also
    --------
    f1posterior.evaluate : The in-memory form.
    f1posterior.integrations.dask_files.evaluate_files : Matrices in files.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> x = da.from_array(np.array([[[8, 2], [1, 9]]] * 4), chunks=(2, 2, 2))
    >>> res = evaluate(x, draws=2_000, rng=0)
    >>> res["micro_f1"].mean.shape
    (4,)
    """
    x = _check_dask_counts(counts)
    import dask

    sa = check_sampling_args(draws, ci_prob, ref, rng, dtype)  # rng resolved once: the root
    m = int(x.shape[-1])
    for name, prior in (("alpha", alpha), ("beta", beta)):
        arr = None if isinstance(prior, str) else np.asarray(prior)
        limit = 2 if name == "alpha" else 1
        if arr is not None and arr.ndim > limit:
            raise ValueError(
                f"{name} must be the same for every matrix with "
                f"f1posterior.integrations.dask (at most "
                f"{limit} dimensions); got shape {arr.shape}"
            )
    target = prevalence[1] if isinstance(prevalence, tuple) and prevalence else prevalence
    if target is not None and not isinstance(target, str) and np.ndim(target) > 1:
        raise ValueError(
            "prevalence must be the same for every matrix with f1posterior.integrations.dask "
            f"(one vector); got shape {np.shape(target)}"
        )
    kw: dict[str, Any] = dict(
        metrics=metrics,
        alpha=alpha,
        beta=beta,
        labels=labels,
        workers=workers,
        max_memory=max_memory,
        prevalence=prevalence,
        chance=chance,
        **sa.as_keywords(),
    )
    # A template run on one all-ones matrix validates every argument up front.
    evaluate_in_memory(np.ones((1, m, m)), **{**kw, "draws": 2})
    starts = np.cumsum((0, *x.chunks[0][:-1])).tolist()
    run = dask.delayed(evaluate_in_memory)
    blocks = zip(x.to_delayed().ravel(), starts, strict=True)
    parts = dask.compute(*[run(blk, index_offset=s, **kw) for blk, s in blocks])
    b = int(x.shape[0])
    summaries = {n: MetricSummary.concat([p[n] for p in parts], (b,)) for n in parts[0]}
    return dataclasses.replace(parts[0], summaries=summaries, batch_shape=(b,))
