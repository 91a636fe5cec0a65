"""Text renderings of an :class:`~f1posterior.posterior.Evaluation`.

``rows`` flattens a result into one record per (metric, matrix, class);
``format_table`` prints them like Table 1 of Zhang et al. (2015).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.text import escape_markdown, escape_text

if TYPE_CHECKING:  # pragma: no cover
    from ._evaluation import Evaluation
    from ._summary import MetricSummary

__all__ = ["rows", "format_table", "format_markdown", "Row"]

Row = dict[str, Any]


def _at(summary: MetricSummary, idx: tuple[int, ...]) -> Row:
    def pick(v: Any) -> Any:
        if v is None:
            return None
        a = np.asarray(v)
        out = a[idx] if idx else a
        return out.tolist() if isinstance(out, np.ndarray) else float(out)

    return {
        k: pick(getattr(summary, k))
        for k in (
            *("score", "mean", "median", "std", "mc_error", "hdi", "eti", "p_below", "p_above"),
            *("chance", "chance_score", "p_above_chance"),
        )
    }


def rows(result: Evaluation, names: list[str] | None = None) -> Iterator[Row]:
    """One flat record per metric, matrix and class.

    Each record has ``metric``, ``item`` (matrix index and/or class label,
    "" for a single scalar) and the summary fields as plain floats/lists.
    ``names`` optionally labels the matrices of a 1-D batch (default
    ``result.names``, from ``evaluate(..., names=)``).
    """
    batch = result.batch_shape
    names = result.names if names is None else names
    for metric, s in result.items():
        shape = np.shape(s.score)
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
            yield {"metric": metric, "item": " ".join(parts), "exact": s.exact, **_at(s, idx)}


def _pct(p: float | None) -> str:
    return "" if p is None else f"{100 * p:.1f}%"


def format_table(result: Evaluation, names: list[str] | None = None) -> str:
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
    pct = round(100 * result.ci_prob, 4)
    hdi_head = f"{pct:g}% HDI"
    ref_head = "" if result.ref is None else f"below < {result.ref:g} < above"
    records = list(rows(result, names))
    # class labels and matrix names come from files: one escaped line each
    label = [escape_text(r["metric"] + (f" [{r['item']}]" if r["item"] else "")) for r in records]
    w = max([len("metric"), *map(len, label)])
    head = f"{'metric':<{w}}  {'score':<7} {'mean':<7} {'std':<7} {'MC error':<9} "
    if ref_head:
        head += f"{ref_head:<20} "
    head += hdi_head
    if result.chance:
        head += f"{'':<8}{'chance':<7} P(> chance)"
    draws = _draws_note(result)
    at = "" if result.prevalence is None else f"; at prevalence {result.prevalence}"
    lines = [
        f"Posterior of metrics{at}; prior {result.prior}; {draws}; seed {result.seed}",
        head.rstrip(),
    ]
    for lab, r in zip(label, records, strict=True):
        line = (
            f"{lab:<{w}}  {r['score']:<7.3f} {r['mean']:<7.3f} {r['std']:<7.3f} "
            f"{'exact' if r['exact'] else format(r['mc_error'], '.3f'):<9} "
        )
        if ref_head:
            line += f"{_pct(r['p_below']) + ' | ' + _pct(r['p_above']):<20} "
        line += f"[{r['hdi'][0]:.3f}, {r['hdi'][1]:.3f}]"
        if result.chance:
            line += f"  {r['chance']:<7.3f} {_pct(r['p_above_chance'])}"
        lines.append(line)
    return "\n".join(lines)


def _draws_note(result: Evaluation) -> str:
    """ "N draws", "exact (closed form)", or both when some metrics are exact."""
    flags = [s.exact for s in result.values()]
    if all(flags):
        return "exact (closed form, no sampling)"
    if any(flags):
        return f"exact where marked, {result.draws:,} draws otherwise"
    return f"{result.draws:,} draws"


def format_markdown(result: Evaluation, names: list[str] | None = None) -> str:
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
    pct = round(100 * result.ci_prob, 4)
    head = ["metric", "score", "mean", "std", "MC error"]
    if result.ref is not None:
        head += [f"P(< {result.ref:g})", f"P(> {result.ref:g})"]
    head.append(f"{pct:g}% HDI")
    if result.chance:
        head += ["chance", "P(> chance)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows(result, names):
        # the item (matrix name, class label) comes from files: literal Markdown
        label = r["metric"] + (f" [{escape_markdown(r['item'])}]" if r["item"] else "")
        cells = [
            label,
            f"{r['score']:.3f}",
            f"{r['mean']:.3f}",
            f"{r['std']:.3f}",
            "exact" if r["exact"] else f"{r['mc_error']:.3f}",
        ]
        if result.ref is not None:
            cells += [_pct(r["p_below"]), _pct(r["p_above"])]
        cells.append(f"[{r['hdi'][0]:.3f}, {r['hdi'][1]:.3f}]")
        if result.chance:
            cells += [f"{r['chance']:.3f}", _pct(r["p_above_chance"])]
        lines.append("| " + " | ".join(cells) + " |")
    seed = "" if all(s.exact for s in result.values()) else f"; seed {result.seed}"
    note = _draws_note(result)
    if result.prevalence is not None:
        lines += ["", f"At target prevalence {result.prevalence}."]
    lines += ["", f"Prior: {result.prior}.", f"{note[0].upper()}{note[1:]}{seed}."]
    return "\n".join(lines)
