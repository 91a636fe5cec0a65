"""Shareable reports of an evaluation: a table plus the plot, in one HTML or Markdown file.

HTML reports embed the figure as inline SVG (no external files, text stays
searchable); Markdown reports embed it as a base64 PNG data URI. The figure is
:func:`f1posterior.report.plots.plot_summary` and needs matplotlib (the ``[plot]``
extra); ``plot=False`` writes the table alone with numpy only.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core.describe import describe
from .._core.validation import check_choice

if TYPE_CHECKING:  # pragma: no cover
    from ..posterior.evaluation import Evaluation

__all__ = ["render_report", "write_report", "REPORT_FORMATS"]

#: File suffixes understood by :func:`write_report`, and their format.
REPORT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 60em;
       margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 0.25em 0.8em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.meta { color: #555; }
figure { margin: 1.5em 0; }
figure svg { max-width: 100%; height: auto; }
"""


def _table(result: Evaluation, names: Sequence[Any] | None) -> tuple[list[str], list[list[str]]]:
    from ..posterior.table import rows

    pct = f"{round(100 * result.ci_prob, 4):g}% HDI"
    head = ["metric", "score", "mean", "std", "MC error"]
    if result.ref is not None:
        head.append(f"below < {result.ref:g} < above")
    head.append(pct)
    body = []
    for r in rows(result, None if names is None else [str(n) for n in names]):
        label = r["metric"] + (f" [{r['item']}]" if r["item"] else "")
        line = [label] + [f"{r[k]:.3f}" for k in ("score", "mean", "std", "mc_error")]
        if result.ref is not None:
            line.append(f"{100 * r['p_below']:.1f}% / {100 * r['p_above']:.1f}%")
        line.append(f"[{r['hdi'][0]:.3f}, {r['hdi'][1]:.3f}]")
        body.append(line)
    return head, body


def _meta(result: Evaluation, source: str | None) -> list[str]:
    out = []
    if source:
        out.append(f"Input: {source}")
    out.append(f"Prior: {result.prior}")
    out.append(f"Posterior draws: {result.draws:,}; seed {result.seed}")
    return out


def _figure_bytes(result: Evaluation, names: Sequence[Any] | None, fmt: str) -> bytes:
    from .plots import plot_summary

    fig = plot_summary(result, names=names)
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=110, metadata={"Date": None} if fmt == "svg" else None)
    return buf.getvalue()


def render_report(
    result: Evaluation,
    *,
    fmt: str = "html",
    title: str | None = None,
    source: str | None = None,
    names: Sequence[Any] | None = None,
    plot: bool = True,
) -> str:
    """Render a report of an evaluation: a header, the summary table and the plot.

    Parameters
    ----------
    result : Evaluation
        A result of :func:`~f1posterior.evaluate`; with ``keep_draws=True``
        scalar metrics are drawn as posterior densities, otherwise as a forest.
    fmt : {"html", "markdown"}, default "html"
    title : str, optional
        Heading (default "Posterior of classifier metrics").
    source : str, optional
        Where the counts came from, printed under the heading.
    names : sequence, optional
        Names of the matrices of a 1-D batch.
    plot : bool, default True
        Embed the figure (needs matplotlib).

    Returns
    -------
    str
        A complete HTML document, or Markdown text.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> res = evaluate([[40, 10], [5, 45]], draws=2000, ref=0.8, rng=0)
    >>> print(render_report(res, fmt="markdown", plot=False))  # doctest: +ELLIPSIS
    # Posterior of classifier metrics
    <BLANKLINE>
    - Prior: adaptive (Jeffreys-tailed recall prior centred on the pooled accuracy; beta = 1/M)
    - Posterior draws: 2,000; seed 0
    <BLANKLINE>
    | metric | score | mean | std | MC error | below < 0.8 < above | 95% HDI |
    |:--|--:|--:|--:|--:|--:|--:|
    | micro_f1 | 0.850 | 0.843 | 0.035 | 0.001 | ...% / ...% | [0.77..., 0.90...] |
    | macro_f1 | 0.850 | 0.84... | 0.03... | 0.001 | ...% / ...% | [0.77..., 0.90...] |
    <BLANKLINE>
    """
    from ..posterior.evaluation import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    kind = check_choice(fmt, "fmt", ("html", "markdown"))
    heading = "Posterior of classifier metrics" if title is None else str(title)
    head, body = _table(result, names)
    meta = _meta(result, source)
    if kind == "markdown":
        lines = [f"# {heading}", ""]
        lines += [f"- {m}" for m in meta]
        lines.append("")
        cells = [[c.replace("|", "\\|") for c in row] for row in [head, *body]]
        lines.append("| " + " | ".join(cells[0]) + " |")
        lines.append("|:--|" + "--:|" * (len(head) - 1))
        lines += ["| " + " | ".join(row) + " |" for row in cells[1:]]
        if plot:
            png = base64.b64encode(_figure_bytes(result, names, "png")).decode("ascii")
            lines += ["", f"![Posterior plots](data:image/png;base64,{png})"]
        return "\n".join(lines) + "\n"
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(heading)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{esc(heading)}</h1>",
        '<p class="meta">' + "<br>".join(esc(m) for m in meta) + "</p>",
        "<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead>",
        "<tbody>",
    ]
    parts += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in body]
    parts.append("</tbody></table>")
    if plot:
        svg = _figure_bytes(result, names, "svg").decode("utf-8")
        parts.append("<figure>" + svg[svg.index("<svg") :] + "</figure>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(
    result: Evaluation,
    path: str | Path,
    *,
    title: str | None = None,
    source: str | None = None,
    names: Sequence[Any] | None = None,
    plot: bool = True,
) -> Path:
    """Write :func:`render_report` to ``path``; the suffix (.html, .htm, .md, .markdown) picks the format.

    Returns
    -------
    pathlib.Path
        The path written.
    """  # noqa: E501
    p = Path(path)
    fmt = REPORT_FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise ValueError(
            f"path must end in one of {', '.join(REPORT_FORMATS)} (report format); got {str(p)!r}"
        )
    text = render_report(result, fmt=fmt, title=title, source=source, names=names, plot=plot)
    p.write_text(text, encoding="utf-8")
    return p
