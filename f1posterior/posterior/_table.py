"""Text renderings and rows of an :class:`~f1posterior.posterior.Evaluation`.

``rows`` flattens a result into one record per (metric, matrix, class);
``format_table`` prints them like Table 1 of Zhang et al. (2015), and
``table_cells`` is the one Markdown/HTML table. ``evaluation_rows`` and
``run_metadata`` are the rows and metadata of the batch outputs, written by
:mod:`f1posterior.io._writers`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, ItemsView, Iterator, Sequence, ValuesView
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from .._core.describe import describe
from .._core.results import plain
from .._core.text import escape_markdown, escape_text
from ..io import row_metadata

if TYPE_CHECKING:  # pragma: no cover
    from ._prevalence import TargetPrevalence
    from ._summary import MetricSummary

__all__ = [
    "EvaluationLike",
    "check_evaluation",
    "rows",
    "format_table",
    "format_markdown",
    "table_cells",
    "Row",
    "STATS",
    "FLAG",
    "evaluation_rows",
    "wide_values",
    "run_metadata",
]

Row = dict[str, Any]


@runtime_checkable
class EvaluationLike(Protocol):
    """What the renderers read of a result; :class:`~f1posterior.Evaluation` is one.

    The renderers (this module and :mod:`~f1posterior.posterior._frames`) name
    this protocol, not the class, which imports them: no import circle.
    """

    @property
    def prior(self) -> str: ...
    @property
    def draws(self) -> int: ...
    @property
    def ci_prob(self) -> float: ...
    @property
    def ref(self) -> float | None: ...
    @property
    def seed(self) -> Any: ...
    @property
    def batch_shape(self) -> tuple[int, ...]: ...
    @property
    def labels(self) -> list[str] | None: ...
    @property
    def names(self) -> list[str] | None: ...
    @property
    def metric_draws(self) -> dict[str, np.ndarray] | None: ...
    @property
    def prevalence(self) -> TargetPrevalence | None: ...
    @property
    def chance(self) -> bool: ...
    def __getitem__(self, key: str) -> MetricSummary: ...
    def items(self) -> ItemsView[str, MetricSummary]: ...
    def values(self) -> ValuesView[MetricSummary]: ...


_FIELDS = ("score", "mean", "median", "std", "mc_error")
_CHANCE = ("chance", "chance_score", "p_above_chance")


def _at(summary: MetricSummary, idx: tuple[int, ...]) -> Row:
    return {
        k: None if v is None else plain(np.asarray(v)[idx], lists=True)
        for k in (*_FIELDS, "hdi", "eti", "p_below", "p_above", *_CHANCE)
        for v in [getattr(summary, k)]
    }


def check_evaluation(result: Any) -> EvaluationLike:
    """Return ``result`` when it is an :class:`~f1posterior.Evaluation`; else raise a TypeError."""
    if not isinstance(result, EvaluationLike):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    return result


def rows(result: EvaluationLike, names: list[str] | None = None) -> Iterator[Row]:
    """Return one flat record per metric, matrix and class.

    Parameters
    ----------
    result : Evaluation
        A result of :func:`~f1posterior.evaluate`.
    names : list of str, optional
        Labels of the matrices of a 1-D batch (default ``result.names``, from
        ``evaluate(..., names=)``).

    Returns
    -------
    iterator of dict
        ``metric``, ``item`` (matrix name or index and/or class label, "" for
        a single scalar), ``exact``, ``prior_dominated`` (False when not
        checked) and the summary fields as plain floats and lists.

    See Also
    --------
    table_cells : The table of these records.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> r = next(rows(evaluate([[8, 2], [1, 9]], metrics="f1", draws=100, rng=0)))
    >>> r["metric"], r["item"], len(r["hdi"])
    ('f1', 'class 0', 2)
    """
    batch = result.batch_shape
    names = result.names if names is None else names
    for metric, s in result.items():
        shape = np.shape(s.score)
        flag = False if s.prior_dominated is None else s.prior_dominated
        flags = np.broadcast_to(np.asarray(flag, dtype=bool), shape)
        for idx in np.ndindex(*shape):
            parts = []
            bidx, cidx = idx[: len(batch)], idx[len(batch) :]
            if bidx:
                if names is not None and len(bidx) == 1:
                    parts.append(str(names[bidx[0]]))
                else:
                    parts.append(",".join(map(str, bidx)))
            if cidx:
                c = cidx[0]
                label = result.labels[c] if result.labels and c < len(result.labels) else str(c)
                parts.append(f"class {label}")
            yield {
                "metric": metric,
                "item": " ".join(parts),
                "exact": s.exact,
                "prior_dominated": bool(flags[idx]),
                **_at(s, idx),
            }


def _pct(p: float | None) -> str:
    return "" if p is None else f"{100 * p:.1f}%"


def format_table(result: EvaluationLike, names: list[str] | None = None) -> str:
    """Table 1 of the paper: score, mean, std, MC error, % below/above ref, HDI.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> print(evaluate([[40, 10], [5, 45]], draws=2000, ref=0.8, rng=0))  # doctest: +ELLIPSIS
    Posterior of metrics; prior hierarchical (...); 2,000 draws; seed 0
    metric    score   mean    std     MC error  below < 0.8 < above  95% HDI
    micro_f1  0.850   0.843   0.035   0.001     11.7% | 88.3%        [0.772, 0.909]
    macro_f1  0.850   0.841   0.036   0.001     12.2% | 87.8%        [0.771, 0.909]
    """
    head, body = table_cells(result, names, escape_text)  # names and labels come from files
    ref = result.ref is not None
    if ref:  # one column: "below < ref < above", cells "11.7% | 88.3%"
        for cells in (head, *body):
            cells[5:7] = [f"{cells[5]} | {cells[6]}"]
        head[5] = f"below < {result.ref:g} < above"
    w = max(len(cells[0]) for cells in (head, *body))
    lines = []
    for cells in (head, *body):
        nums = "".join(f"{c:<{n}} " for c, n in zip(cells[1:5], (7, 7, 7, 9), strict=True))
        line = f"{cells[0]:<{w}}  {nums}" + (f"{cells[5]:<20} " if ref else "") + cells[5 + ref]
        if result.chance:
            chance, p = cells[6 + ref :]
            line += f"{'':<8}{chance:<7} {p}" if cells is head else f"  {chance:<7} {p}"
        lines.append(line.rstrip() if cells is head else line)
    draws = _draws_note(result)
    at = "" if result.prevalence is None else f"; at prevalence {result.prevalence}"
    lines.insert(0, f"Posterior of metrics{at}; prior {result.prior}; {draws}; seed {result.seed}")
    return "\n".join(lines)


def _draws_note(result: EvaluationLike) -> str:
    """ "N draws", "exact (closed form)", or both when some metrics are exact."""
    flags = [s.exact for s in result.values()]
    if all(flags):
        return "exact (closed form, no sampling)"
    if any(flags):
        return f"exact where marked, {result.draws:,} draws otherwise"
    return f"{result.draws:,} draws"


def table_cells(
    result: EvaluationLike,
    names: Sequence[Any] | None = None,
    item: Callable[[str], str] = escape_markdown,
    mark: bool = False,
) -> tuple[list[str], list[list[str]]]:
    """Return the head and rows of the summary table: the Markdown table's and the HTML report's.

    Parameters
    ----------
    result : Evaluation
        A result of :func:`~f1posterior.evaluate`.
    names : sequence, optional
        Names of the matrices of a 1-D batch (default ``result.names``).
    item : callable, default escape_markdown
        Escapes the matrix names and class labels (they come from files).
    mark : bool, default False
        Add " (prior-dominated)" to the label of each row the prior dominates.

    Returns
    -------
    head : list of str
    body : list of list of str
        One row per metric, matrix and class; the MC error of a closed-form
        summary is "exact".

    See Also
    --------
    format_markdown : The Markdown table.
    f1posterior.report.render_report : The HTML and Markdown reports.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> head, body = table_cells(evaluate([[40, 10], [5, 45]], metrics="micro_f1",
    ...                                   beta="aligned"))
    >>> head[4], body[0][4]
    ('MC error', 'exact')
    """
    pct = round(100 * result.ci_prob, 4)
    head = ["metric", "score", "mean", "std", "MC error"]
    if result.ref is not None:
        head += [f"P(< {result.ref:g})", f"P(> {result.ref:g})"]
    head.append(f"{pct:g}% HDI")
    if result.chance:
        head += ["chance", "P(> chance)"]
    body = []
    for r in rows(result, None if names is None else [str(n) for n in names]):
        label = r["metric"] + (f" [{item(r['item'])}]" if r["item"] else "")
        cells = [label + (" (prior-dominated)" if mark and r["prior_dominated"] else "")]
        cells += [f"{r[k]:.3f}" for k in ("score", "mean", "std")]
        cells.append("exact" if r["exact"] else f"{r['mc_error']:.3f}")
        if result.ref is not None:
            cells += [_pct(r["p_below"]), _pct(r["p_above"])]
        cells.append(f"[{r['hdi'][0]:.3f}, {r['hdi'][1]:.3f}]")
        if result.chance:
            cells += [f"{r['chance']:.3f}", _pct(r["p_above_chance"])]
        body.append(cells)
    return head, body


def format_markdown(result: EvaluationLike, names: list[str] | None = None) -> str:
    """A GitHub-flavoured Markdown table of the summaries (one row per metric/matrix/class).

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> print(format_markdown(evaluate([[40, 10], [5, 45]], metrics="micro_f1",
    ...                                beta="aligned", ref=0.8)))  # doctest: +ELLIPSIS
    | metric | score | mean | std | MC error | P(< 0.8) | P(> 0.8) | 95% HDI |
    |---|---|---|---|---|---|---|---|
    | micro_f1 | 0.850 | 0.843 | 0.036 | exact | 11.9% | 88.1% | [0.772, 0.911] |
    <BLANKLINE>
    Prior: alpha=adaptive (...), beta=aligned (row sums of alpha: ...).
    Exact (closed form, no sampling).
    """
    head, body = table_cells(result, names)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    seed = "" if all(s.exact for s in result.values()) else f"; seed {result.seed}"
    note = _draws_note(result)
    if result.prevalence is not None:
        lines += ["", f"At target prevalence {result.prevalence}."]
    lines += ["", f"Prior: {result.prior}.", f"{note[0].upper()}{note[1:]}{seed}."]
    return "\n".join(lines)


#: Statistics written for every metric, in column order.
STATS = ("score", "mean", "std", "mc_error", "hdi_low", "hdi_high")
#: The per-row flag written after each metric's statistics.
FLAG = "prior_dominated"


def run_metadata(ev: EvaluationLike, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return what a batch output records about its run: version, prior, draws, seed, ...

    Parameters
    ----------
    ev : Evaluation
        The run's first chunk; its ``prevalence`` and ``chance`` are added when set.
    extra : dict, optional
        Added last (the source, ...), and wins on a clash.

    Returns
    -------
    dict
        :func:`~f1posterior.io.row_metadata` of the run.

    See Also
    --------
    f1posterior.io.read_metadata : Read it back from an output.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> meta = run_metadata(evaluate([[8, 2], [1, 9]], draws=1000, rng=7))
    >>> meta["draws"], meta["seed"], meta["ci_prob"], sorted(meta)[:3]
    (1000, 7, 0.95, ['ci_prob', 'draws', 'labels'])
    """
    more: dict[str, Any] = {}
    if ev.prevalence is not None:
        more["prevalence"] = ev.prevalence.to_json()
    if ev.chance:
        more["chance"] = True
    return row_metadata(
        prior=ev.prior, draws=ev.draws, seed=ev.seed, ci_prob=ev.ci_prob, ref=ev.ref,
        labels=ev.labels, extra={**more, **(extra or {})},
    )  # fmt: skip


def _stats(ev: EvaluationLike) -> tuple[str, ...]:
    chance = ("chance", "p_above_chance") if ev.chance else ()
    return STATS + (("p_below", "p_above") if ev.ref is not None else ()) + chance + (FLAG,)


def _stat_values(s: MetricSummary, stats: tuple[str, ...]) -> list[np.ndarray]:
    hdi = np.asarray(s.hdi, dtype=float)
    flag = s.prior_dominated
    pick = {
        "score": s.score, "mean": s.mean, "std": s.std, "mc_error": s.mc_error,
        "hdi_low": hdi[..., 0], "hdi_high": hdi[..., 1], "p_below": s.p_below,
        "p_above": s.p_above, "chance": s.chance, "p_above_chance": s.p_above_chance,
        FLAG: np.full(np.shape(s.score), np.nan) if flag is None else flag,
    }  # fmt: skip
    return [np.asarray(pick[k], dtype=float) for k in stats]


def _labels(ev: EvaluationLike, k: int) -> list[str]:
    return ev.labels if ev.labels and len(ev.labels) == k else [str(i) for i in range(k)]


def wide_values(ev: EvaluationLike) -> tuple[list[str], np.ndarray]:
    """Return the wide columns of :func:`evaluation_rows` and their values ``(matrices, columns)``.

    The batch is flattened (one row for a single matrix); flags are 1, 0 or NaN (not checked).
    """
    stats = _stats(ev)
    k, n = len(ev.batch_shape), math.prod(ev.batch_shape)
    cols: list[str] = []
    blocks: list[np.ndarray] = []
    for metric, s in ev.items():
        values = [v.reshape(n, -1) for v in _stat_values(s, stats)]
        if np.ndim(s.score) == k:
            cols += [f"{metric}_{st}" for st in stats]
            blocks += values
        else:  # one value a class: columns metric_label_stat
            for c, label in enumerate(_labels(ev, values[0].shape[-1])):
                cols += [f"{metric}_{label}_{st}" for st in stats]
                blocks += [v[:, c : c + 1] for v in values]
    return cols, np.hstack(blocks) if blocks else np.empty((n, 0))


def evaluation_rows(
    ev: EvaluationLike, names: Sequence[str], long: bool = False
) -> tuple[list[str], Iterator[list[Any]]]:
    """Return the header and records of the batch outputs of a result.

    Parameters
    ----------
    ev : Evaluation
        A result of a 1-D batch.
    names : sequence of str
        One name per matrix.
    long : bool, default False
        One record per matrix, metric and class instead of one per matrix.

    Returns
    -------
    header : list of str
    records : iterator of list
        The text cells, then the numbers (NaN when undefined) and flags.

    See Also
    --------
    f1posterior.io.RowWriter : Write them.
    run_metadata : What the outputs record about the run.

    Notes
    -----
    Wide form (the default): ``name``, then for each metric ``{metric}_{stat}``
    with ``stat`` in :data:`STATS` (plus ``p_below`` and ``p_above`` when a
    reference value is given, ``chance`` and ``p_above_chance`` with
    ``evaluate(..., chance=True)``), then the flag ``{metric}_prior_dominated``
    (True where the prior dominates that matrix's posterior, see
    :attr:`~f1posterior.MetricSummary.prior_dominated`; None when not checked); a
    per-class metric gives ``{metric}_{label}_{stat}``. The interval bounds are
    ``hdi_low``/``hdi_high`` whatever their probability (it is in the metadata).
    The long form has one record per matrix, metric and class: ``name, metric,
    class``, the stats and the flag. Write them with
    :class:`~f1posterior.io.RowWriter` (``text_columns`` 1, or 3 for
    the long form).

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> ev = evaluate([[[8, 2], [1, 9]], [[5, 5], [4, 6]]], metrics="micro_f1", draws=1000, rng=0)
    >>> header, records = evaluation_rows(ev, ["a", "b"])
    >>> header  # doctest: +NORMALIZE_WHITESPACE
    ['name', 'micro_f1_score', 'micro_f1_mean', 'micro_f1_std', 'micro_f1_mc_error',
     'micro_f1_hdi_low', 'micro_f1_hdi_high', 'micro_f1_prior_dominated']
    >>> [r[0] for r in records]
    ['a', 'b']
    """
    b = len(names)
    if tuple(ev.batch_shape) != (b,):
        raise ValueError(
            f"names must give one name per matrix of the batch {tuple(ev.batch_shape)}; "
            f"got {b} names"
        )
    if long:
        stats = _stats(ev)
        header = ["name", "metric", "class", *stats]
        records: Iterator[list[Any]] = (
            [n, m, c, *v] for n, m, c, v in _long(ev, list(names), stats)
        )
    else:
        cols, values = wide_values(ev)
        header = ["name", *cols]
        records = ([n, *row] for n, row in zip(names, values, strict=True))
    flags = [i for i, h in enumerate(header) if h == FLAG or h.endswith("_" + FLAG)]
    return header, (_with_flags(r, flags) for r in records)


def _long(
    ev: EvaluationLike, names: list[str], stats: tuple[str, ...]
) -> Iterator[tuple[str, str, str, np.ndarray]]:
    per_metric = [(m, np.stack(_stat_values(s, stats), axis=-1)) for m, s in ev.items()]
    for i, name in enumerate(names):
        for metric, values in per_metric:  # (b, S) or (b, K, S)
            if values.ndim == 2:
                yield name, metric, "", values[i]
            else:
                for c, label in enumerate(_labels(ev, values.shape[1])):
                    yield name, metric, label, values[i, c]


def _with_flags(record: list[Any], flags: list[int]) -> list[Any]:
    """``record`` with its flag cells (1.0, 0.0, NaN) as True, False or None (not checked)."""
    for i in flags:
        record[i] = None if np.isnan(record[i]) else bool(record[i])
    return record
