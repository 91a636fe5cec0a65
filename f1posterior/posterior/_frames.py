"""Results in the tools people already use: pandas and ArviZ.

Every optional package is imported inside the function that needs it.

Design notes: docs/design.md#posterior-frames
"""

from __future__ import annotations

import dataclasses
import io
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe
from .._core.validation import check_choice
from ..metrics import PER_CLASS_METRICS

if TYPE_CHECKING:  # pragma: no cover
    from ._evaluation import Evaluation

__all__ = ["to_dataframe", "to_inference_data"]

_FIELDS = ("score", "mean", "median", "std", "mc_error")
_CHANCE = ("chance", "chance_score", "p_above_chance")


def _check_result(result: Any) -> Evaluation:
    from ._evaluation import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    return result


def _check_names(names: Any, batch: tuple[int, ...]) -> list[Any] | None:
    if names is None:
        return None
    if len(batch) != 1 or isinstance(names, str) or len(names) != batch[0]:
        raise ValueError(
            f"names must give one name per matrix of a 1-D batch (batch shape {batch}); got "
            f"{describe(names)}"
        )
    return list(names)


def _batch_columns(batch: tuple[int, ...]) -> list[str]:
    return ["matrix"] if len(batch) == 1 else [f"matrix_{i}" for i in range(len(batch))]


def _flat(res: Evaluation, n: int) -> Evaluation:
    """``res`` with its batch flattened to ``(n,)`` (a single matrix becomes ``(1,)``)."""
    k = len(res.batch_shape)
    summaries = {}
    for metric, s in res.items():
        fields: dict[str, Any] = {}
        for f in (*_FIELDS, "hdi", "eti", "p_below", "p_above", *_CHANCE, "prior_dominated"):
            v = getattr(s, f)
            if v is not None:
                a = np.asarray(v)
                fields[f] = a.reshape((n, *a.shape[k:]))
        summaries[metric] = dataclasses.replace(s, **fields)
    return dataclasses.replace(res, summaries=summaries, batch_shape=(n,), metric_draws=None)


def _wide(res: Evaluation, nm: list[Any] | None, pd: Any) -> Any:
    """One row per matrix; metric columns named and filled by the CSV writer."""
    from ..io import FLAG, RowWriter

    batch = res.batch_shape
    n = int(np.prod(batch)) if batch else 1
    # the command line's column logic, reused: {metric}_{stat} and {metric}_{label}_{stat}
    columns, values = RowWriter(io.StringIO(), "csv")._wide(_flat(res, n), n)
    lead: dict[str, Any] = {}
    if nm is not None:
        lead["name"] = np.asarray(nm, dtype=object)
    elif batch:
        grid = np.indices(batch).reshape(len(batch), n)
        lead.update(zip(_batch_columns(batch), grid, strict=True))
    frame = pd.DataFrame(np.asarray(values, dtype=float), columns=columns)
    for col in columns:
        if col.endswith("_" + FLAG):
            frame[col] = _flags(frame[col].to_numpy(), pd)
    for i, (col, v) in enumerate(lead.items()):
        frame.insert(i, col, v)
    return frame


def _flags(values: np.ndarray, pd: Any) -> Any:
    """A flag column: bool, or pandas' nullable boolean where some were not checked (NaN)."""
    missing = np.isnan(values)
    if not missing.any():
        return values == 1
    return pd.array(np.where(missing, None, values == 1), dtype="boolean")


def _metadata(res: Evaluation) -> dict[str, Any]:
    """``DataFrame.attrs``: what :func:`f1posterior.io.run_metadata` records."""
    from ..io import run_metadata

    return run_metadata(res)


def to_dataframe(
    result: Evaluation, *, names: Sequence[Any] | None = None, form: str = "long"
) -> Any:
    """A pandas DataFrame with one row per metric, matrix and class, or one row per matrix.

    Parameters
    ----------
    result : Evaluation
        A result of :func:`~f1posterior.evaluate`.
    names : sequence, optional
        Names of the matrices of a 1-D batch (the ``matrix`` column of the
        long form, the ``name`` column of the wide form), instead of their
        indices. Default: ``result.names`` (``evaluate(..., names=)``).
    form : {"long", "wide"}, default "long"
        ``"wide"``: one row per matrix, with the columns of the command line's
        CSV output (:class:`f1posterior.io.RowWriter`): ``name`` (when
        the matrices are named; otherwise ``matrix``, or ``matrix_0``,
        ``matrix_1``, ... for more batch axes, and nothing for a single
        matrix), then ``{metric}_{stat}`` for ``stat`` in ``score``,
        ``mean``, ``std``, ``mc_error``, ``hdi_low``, ``hdi_high`` (and
        ``p_below``, ``p_above`` with a reference value; ``chance``,
        ``p_above_chance`` with ``chance=True``), then the bool
        ``{metric}_prior_dominated``, and ``{metric}_{label}_{stat}`` for a
        per-class metric.

    Returns
    -------
    pandas.DataFrame
        Long form columns: ``metric``; ``matrix`` (a 1-D batch; ``matrix_0``,
        ``matrix_1``, ... for more batch axes); ``class`` (when a metric has
        one value per class: the class label, or its index; missing for scalar
        metrics); ``score``, ``mean``, ``median``, ``std``, ``mc_error``; the
        intervals as ``hdi_low``, ``hdi_high``, ``eti_low``, ``eti_high`` (the
        command line's names, whatever the probability: it is the ``ci_prob``
        column); ``p_below``, ``p_above`` and ``ref`` when a reference was
        given; ``chance``, ``chance_score`` and ``p_above_chance`` with
        ``chance=True``; ``prior_dominated`` (bool; pandas' nullable boolean
        when not checked); ``ci_prob``, ``draws``, ``exact``, ``prior``.
        Both forms carry the run's metadata in ``DataFrame.attrs`` (version,
        prior, draws, seed, ``ci_prob``, ``ref``, labels), as the command
        line's outputs do.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> df = to_dataframe(evaluate([[40, 10], [5, 45]], draws=2000, ref=0.8, rng=0))
    >>> list(df.columns[:7])
    ['metric', 'score', 'mean', 'median', 'std', 'mc_error', 'hdi_low']
    >>> df.attrs["ci_prob"], df.attrs["draws"]
    (0.95, 2000)
    >>> df.loc[0, "metric"], float(df.loc[0, "score"])
    ('micro_f1', 0.85)
    >>> res = evaluate([[[8, 2], [1, 9]], [[5, 5], [4, 6]]], metrics=["accuracy", "recall"],
    ...                draws=1000, rng=0, names=["a", "b"], labels=["neg", "pos"])
    >>> wide = to_dataframe(res, form="wide")
    >>> list(wide.columns[:3]), wide.shape
    (['name', 'accuracy_score', 'accuracy_mean'], (2, 22))
    >>> list(wide.columns[7:10])
    ['accuracy_prior_dominated', 'recall_neg_score', 'recall_neg_mean']
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            "to_dataframe needs pandas, an optional extra: pip install f1posterior[pandas]"
        ) from None
    res = _check_result(result)
    check_choice(form, "form", ("long", "wide"))
    batch = res.batch_shape
    nm = _check_names(res.names if names is None else names, batch)
    if form == "wide":
        frame = _wide(res, nm, pd)
        frame.attrs = _metadata(res)
        return frame
    bcols = _batch_columns(batch) if batch else []
    has_class = any(np.ndim(s.score) > len(batch) for s in res.values())
    frames = []
    for metric, s in res.items():
        shape = np.shape(s.score)
        n = int(np.prod(shape))
        cols: dict[str, Any] = {"metric": np.full(n, metric, dtype=object)}
        grid = np.indices(shape).reshape(len(shape), n) if shape else np.zeros((0, 1), int)
        for i, col in enumerate(bcols):
            cols[col] = grid[i] if nm is None else np.asarray(nm, dtype=object)[grid[i]]
        if has_class:
            if len(shape) > len(batch):
                k = grid[len(batch)]
                labels = res.labels
                if labels is not None and len(labels) == shape[-1]:
                    cols["class"] = np.asarray(labels, dtype=object)[k]
                else:
                    cols["class"] = k.astype(object)
            else:
                cols["class"] = np.full(n, None, dtype=object)
        for f in _FIELDS:
            cols[f] = np.asarray(getattr(s, f), dtype=float).reshape(n)
        h, e = np.asarray(s.hdi).reshape(n, 2), np.asarray(s.eti).reshape(n, 2)
        cols["hdi_low"], cols["hdi_high"] = h[:, 0], h[:, 1]
        cols["eti_low"], cols["eti_high"] = e[:, 0], e[:, 1]
        if res.ref is not None:
            cols["p_below"] = np.asarray(s.p_below, dtype=float).reshape(n)
            cols["p_above"] = np.asarray(s.p_above, dtype=float).reshape(n)
            cols["ref"] = np.full(n, res.ref)
        if res.chance:
            for f in _CHANCE:
                cols[f] = np.asarray(getattr(s, f), dtype=float).reshape(n)
        flag = s.prior_dominated
        flags = np.full(n, np.nan) if flag is None else np.asarray(flag, float).reshape(n)
        cols["prior_dominated"] = _flags(flags, pd)
        cols["ci_prob"] = np.full(n, res.ci_prob)
        cols["draws"] = np.full(n, s.draws)
        cols["exact"] = np.full(n, bool(s.exact))
        cols["prior"] = np.full(n, res.prior, dtype=object)
        frames.append(pd.DataFrame(cols))
    out = pd.concat(frames, ignore_index=True)
    out.attrs = _metadata(res)
    return out


def to_inference_data(result: Evaluation, *, names: Sequence[Any] | None = None) -> Any:
    """The metric draws as an ArviZ ``InferenceData`` (one chain).

    The draws are independent samples of the exact posterior, not a Markov
    chain: the effective sample size equals the number of draws (ArviZ's ESS
    estimate is close to it), and r-hat, which compares chains, is
    meaningless here (ArviZ reports it as NaN, and logs a warning that one
    chain is fewer than it expects: both are expected and harmless).

    Parameters
    ----------
    result : Evaluation
        A result of :func:`~f1posterior.evaluate` with ``keep_draws=True``.
    names : sequence, optional
        Coordinates of the ``matrix`` dimension of a 1-D batch.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: one variable per metric with dims ``(chain, draw)``
        (chain of length 1), then ``matrix`` (or ``matrix_0``, ... for more
        batch axes) and ``class`` for per-class metrics (coordinates: the
        labels when known); ``constant_data``: the observed scores under the
        same names. Attributes: ``prior``, ``seed``, ``ci_prob``, ``ref``.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> res = evaluate([[40, 10], [5, 45]], draws=1000, rng=0, keep_draws=True)
    >>> idata = to_inference_data(res)
    >>> dict(idata.posterior["micro_f1"].sizes)
    {'chain': 1, 'draw': 1000}
    """
    try:
        with warnings.catch_warnings():
            # ArviZ 0.2x announces its coming refactor on import; not our user's concern.
            warnings.filterwarnings("ignore", category=FutureWarning, module="arviz")
            import arviz as az
    except ImportError:
        raise ImportError(
            "to_inference_data needs arviz, an optional extra: pip install f1posterior[arviz]"
        ) from None
    res = _check_result(result)
    if res.metric_draws is None:
        raise ValueError(
            "result must hold posterior draws; got an Evaluation without them: call "
            "evaluate(..., keep_draws=True)"
        )
    batch = res.batch_shape
    nm = _check_names(res.names if names is None else names, batch)
    bdims = _batch_columns(batch) if batch else []
    coords: dict[str, Any] = {}
    if nm is not None:
        coords["matrix"] = [str(n) for n in nm]
    posterior: dict[str, np.ndarray] = {}
    constant: dict[str, np.ndarray] = {}
    dims: dict[str, list[str]] = {}
    for metric, x in res.metric_draws.items():
        arr = np.asarray(x)
        extra = arr.ndim - 1 - len(batch)
        d = list(bdims)
        if extra:
            cdim = "class" if metric in PER_CLASS_METRICS else f"{metric}_dim_0"
            d.append(cdim)
            k = arr.shape[-2]
            if cdim == "class" and res.labels is not None and len(res.labels) == k:
                coords["class"] = list(res.labels)
        posterior[metric] = np.moveaxis(arr, -1, 0)[None]
        constant[metric] = np.asarray(res[metric].score, dtype=float)
        dims[metric] = d
    attrs = {
        "prior": res.prior,
        "seed": str(res.seed),
        "ci_prob": res.ci_prob,
        "ref": "none" if res.ref is None else res.ref,
        "sampler": "f1posterior: independent draws from the exact conjugate posterior",
    }
    idata = az.from_dict(posterior=posterior, coords=coords, dims=dims)
    idata.posterior.attrs.update(attrs)
    import xarray as xr  # a dependency of arviz

    idata.add_groups(
        constant_data=xr.Dataset(
            {m: (dims[m], v) for m, v in constant.items()},
            coords={k: v for k, v in idata.posterior.coords.items() if k not in ("chain", "draw")},
            attrs=attrs,
        )
    )
    return idata
