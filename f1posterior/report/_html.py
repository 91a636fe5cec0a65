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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core.describe import describe
from .._core.text import escape_markdown
from .._core.validation import check_choice
from ..io import write_output

if TYPE_CHECKING:  # pragma: no cover
    from ..posterior import Evaluation

__all__ = ["render_report", "write_report", "REPORT_FORMATS", "render_comparison_report"]

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


def _table(
    result: Evaluation, names: Sequence[Any] | None, item: Callable[[str], str] = str
) -> tuple[list[str], list[list[str]]]:
    """Head and body of the summary table; ``item`` escapes the matrix names and labels."""
    from ..posterior import rows

    pct = f"{round(100 * result.ci_prob, 4):g}% HDI"
    head = ["metric", "score", "mean", "std", "MC error"]
    if result.ref is not None:
        head.append(f"below < {result.ref:g} < above")
    head.append(pct)
    body = []
    flags = _dominated(result)
    named = None if names is None else [str(n) for n in names]
    for r, flag in zip(rows(result, named), flags, strict=True):
        label = r["metric"] + (f" [{item(r['item'])}]" if r["item"] else "")
        label += " (prior-dominated)" if flag else ""
        line = [label] + [f"{r[k]:.3f}" for k in ("score", "mean", "std", "mc_error")]
        if result.ref is not None:
            line.append(f"{100 * r['p_below']:.1f}% / {100 * r['p_above']:.1f}%")
        line.append(f"[{r['hdi'][0]:.3f}, {r['hdi'][1]:.3f}]")
        body.append(line)
    return head, body


def _dominated(result: Evaluation) -> list[bool]:
    """``prior_dominated`` of every row of the table, in the order of its rows."""
    import numpy as np

    out: list[bool] = []
    for s in result.values():
        flag = np.asarray(False if s.prior_dominated is None else s.prior_dominated, dtype=bool)
        out += np.broadcast_to(flag, np.shape(s.score)).ravel().tolist()
    return out


def _meta(result: Evaluation, source: str | None) -> list[str]:
    out = []
    if source:
        out.append(f"Input: {source}")
    out.append(f"Prior: {result.prior}")
    out.append(f"Posterior draws: {result.draws:,}; seed {result.seed}")
    warning = result.prior_warning()
    if warning:  # the rows it names are marked "(prior-dominated)"
        out.append("Warning: " + warning.removeprefix("warning: "))
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
    - Prior: hierarchical (Jeffreys-tailed recall prior, its centre integrated over a grid; ...)
    - Posterior draws: 2,000; seed 0
    <BLANKLINE>
    | metric | score | mean | std | MC error | below < 0.8 < above | 95% HDI |
    |:--|--:|--:|--:|--:|--:|--:|
    | micro_f1 | 0.850 | 0.843 | 0.035 | 0.001 | ...% / ...% | [0.77..., 0.90...] |
    | macro_f1 | 0.850 | 0.84... | 0.03... | 0.001 | ...% / ...% | [0.77..., 0.90...] |
    <BLANKLINE>
    """
    from ..posterior import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    kind = check_choice(fmt, "fmt", ("html", "markdown"))
    heading = "Posterior of classifier metrics" if title is None else str(title)
    meta = _meta(result, source)
    if kind == "markdown":
        # names, labels, the title and the input's name are user text: literal Markdown
        # (no HTML, no heading, one line each); the other cells are numbers written here
        head, body = _table(result, names, escape_markdown)
        lines = [f"# {escape_markdown(heading)}", ""]
        lines += [f"- {escape_markdown(m)}" for m in meta]
        lines.append("")
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|:--|" + "--:|" * (len(head) - 1))
        lines += ["| " + " | ".join(row) + " |" for row in body]
        if plot:
            png = base64.b64encode(_figure_bytes(result, names, "png")).decode("ascii")
            lines += ["", f"![Posterior plots](data:image/png;base64,{png})"]
        return "\n".join(lines) + "\n"
    head, body = _table(result, names)
    esc = html.escape
    parts = [
        *_html_head(heading, meta),
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


# Same keywords as render_report (which it calls): spelled out for users, not **kwargs.
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
    write_output(p, text, "path")  # a regular file or a new path, replaced atomically
    return p


def _comparison_tables(
    result: Any, names: Sequence[str]
) -> tuple[list[str], list[tuple[list[str], list[list[str]]]]]:
    """Lines of facts and (head, body) tables of a Comparison or a Ranking (raw text)."""
    summary = result.summary if hasattr(result, "pairwise") else result.difference
    pct = f"{round(100 * summary.ci_prob, 4):g}% HDI"
    if hasattr(result, "pairwise"):  # a Ranking
        k = len(names)
        s = result.summary
        order = sorted(range(k), key=lambda i: float(result.expected_rank[i]))
        head = ["model", "score", "mean", pct, "P(best)", "E[rank]"]
        head += [f"P(rank {r + 1})" for r in range(k)]
        body = []
        for i in order:
            lo, hi = s.hdi[i]
            row = [names[i], f"{s.score[i]:.4f}", f"{s.mean[i]:.4f}", f"[{lo:.4f}, {hi:.4f}]"]
            row += [f"{result.p_best[i]:.4f}", f"{result.expected_rank[i]:.3f}"]
            row += [f"{p:.3f}" for p in result.rank_probabilities[i]]
            body.append(row)
        pair_head = ["P(row better than column)", *(names[j] for j in order)]
        pair_body = [
            [names[i]] + [("" if i == j else f"{result.pairwise[i, j]:.4f}") for j in order]
            for i in order
        ]
        return [], [(head, body), (pair_head, pair_body)]
    head = ["", "model", "score", "mean", "std", pct]
    body = []
    for label, name, s in (
        ("A", names[0], result.a),
        ("B", names[1], result.b),
        ("A - B", "", result.difference),
    ):
        lo, hi = s.hdi
        body.append(
            [
                label,
                name,
                f"{s.score:.4f}",
                f"{s.mean:.4f}",
                f"{s.std:.4f}",
                f"[{lo:.4f}, {hi:.4f}]",
            ]
        )
    facts = [
        f"P(A better) = {result.p_a_better:.4f}",
        f"P(B better) = {result.p_b_better:.4f}",
        f"P(|A - B| <= {result.rope:g}) = {result.p_equivalent:.4f}",
        f"Decision at probability {result.prob:g}: {result.decision}",
    ]
    return facts, [(head, body)]


def render_comparison_report(
    result: Any,
    *,
    fmt: str = "html",
    names: Sequence[Any] | None = None,
    source: str | None = None,
    title: str | None = None,
    plot: bool = True,
) -> str:
    """Render a Comparison or a Ranking: a header, the tables and the figure.

    Parameters
    ----------
    result : Comparison or Ranking
        One comparison (:func:`f1posterior.compare`,
        :func:`f1posterior.compare_predictions`) or one ranking
        (:func:`f1posterior.rank_classifiers`, :func:`f1posterior.rank_predictions`);
        not a batch.
    fmt : {"html", "markdown"}, default "html"
    names : sequence, optional
        Names of the classifiers (default ``("A", "B")``, or the ranking's names).
        Every name is escaped (HTML entities, or Markdown punctuation).
    source : str, optional
        Where the inputs came from.
    title : str, optional
    plot : bool, default True
        Embed :func:`~f1posterior.report.plots.plot_comparison` or
        :func:`~f1posterior.report.plots.plot_ranking` (needs matplotlib).

    Returns
    -------
    str

    Examples
    --------
    >>> from f1posterior import compare
    >>> res = compare([[45, 5], [5, 45]], [[40, 10], [10, 40]], metric="accuracy",
    ...               draws=2_000, rng=0)
    >>> text = render_comparison_report(res, fmt="markdown", names=["a|b", "c"], plot=False)
    >>> print(text.splitlines()[7])  # doctest: +ELLIPSIS
    | A | a\\|b | 0.9000 | 0.89... | 0.03... | [0.83..., 0.95...] |
    """
    from ..analysis import Comparison, Ranking

    if not isinstance(result, Comparison | Ranking):
        raise TypeError(f"result must be a Comparison or a Ranking; got {describe(result)}")
    if result.batch_shape:
        raise ValueError(
            f"result must be one comparison or ranking, not a batch; got batch shape "
            f"{result.batch_shape}"
        )
    kind = check_choice(fmt, "fmt", ("html", "markdown"))
    is_rank = isinstance(result, Ranking)
    default = list(result.names) if isinstance(result, Ranking) else ["A", "B"]
    shown = [str(n) for n in (default if names is None else names)]
    if len(shown) != len(default):
        raise ValueError(f"names must hold {len(default)} names; got {describe(names)}")
    what = "Ranking" if is_rank else "Comparison"
    design = "paired: same documents" if result.paired else "independent test sets"
    heading = f"{what} by {result.metric} ({design})" if title is None else str(title)
    draws = (result.summary if isinstance(result, Ranking) else result.difference).draws
    meta = ([f"Input: {source}"] if source else []) + [
        f"Prior: {result.prior}",
        f"Posterior draws: {draws:,}; seed {result.seed}",
    ]
    if kind == "markdown":
        md = escape_markdown
        # names and input text are escaped; the other cells are numbers written here
        facts, tables = _comparison_tables(result, [md(n) for n in shown])
        lines = [f"# {md(heading)}", "", *(f"- {md(m)}" for m in meta), ""]
        for head, body in tables:
            lines.append("| " + " | ".join(head) + " |")
            lines.append("|:--|" + "--:|" * (len(head) - 1))
            lines += ["| " + " | ".join(row) + " |" for row in body]
            lines.append("")
        lines += [f"- {md(f)}" for f in facts]
        if plot:
            png = base64.b64encode(_result_figure(result, shown, "png")).decode("ascii")
            lines += ["", f"![{what}](data:image/png;base64,{png})"]
        return "\n".join(lines).rstrip("\n") + "\n"
    esc = html.escape
    facts, tables = _comparison_tables(result, shown)
    parts = _html_head(heading, meta)
    for head, body in tables:
        parts.append(
            "<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead>"
        )
        parts += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in body]
        parts.append("</table>")
    if facts:
        parts.append("<ul>" + "".join(f"<li>{esc(f)}</li>" for f in facts) + "</ul>")
    if plot:
        svg = _result_figure(result, shown, "svg").decode("utf-8")
        parts.append("<figure>" + svg[svg.index("<svg") :] + "</figure>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _result_figure(result: Any, names: list[str], fmt: str) -> bytes:
    from .plots import plot_comparison, plot_ranking

    if hasattr(result, "pairwise"):
        fig = plot_ranking(result)
    else:
        fig = plot_comparison(result, names=(names[0], names[1]))
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=110, metadata={"Date": None} if fmt == "svg" else None)
    return buf.getvalue()


def _html_head(heading: str, meta: Sequence[str]) -> list[str]:
    """The opening of a report page: doctype, title, style, heading and the meta lines."""
    esc = html.escape
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(heading)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{esc(heading)}</h1>",
        '<p class="meta">' + "<br>".join(esc(m) for m in meta) + "</p>",
    ]
