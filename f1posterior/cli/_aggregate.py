"""``f1posterior aggregate``: one metric over folds, seeds or test sets.

``f1posterior aggregate fold1.json fold2.json ... [--method random_effects|pooled]``:
every FILE is read as ``summarize`` reads it (a matrix, a predictions CSV, or a
batch of matrices, whose matrices are all tables); one batch file ``(K, M, M)``
alone is K tables. Labelled tables are put in the class order of the first.
Output: a text table (default), JSON, CSV or Markdown, one row per table plus
the aggregate (and the predictive of a new table); ``--plot`` draws the forest
plot.
"""

from __future__ import annotations

import argparse
import io
from typing import Any

import numpy as np

from .._core.text import escape_markdown
from ..analysis import (
    MAX_TAU_SCALE,
    METHODS,
    SCALES,
    TAU_PRIORS,
    Aggregate,
    aggregate,
)
from ..io import (
    INPUT_FORMATS,
    Receipt,
    RowWriter,
    is_stdin,
    json_document,
    read_input,
    row_metadata,
)
from ..metrics import METRICS, PER_CLASS_METRICS
from ._common import add_sampling_arguments, number_type, plot_path, prior_from_args, save_figure
from ._input_args import INPUT_FORMAT_HELP, check_stdin_inputs
from ._receipts import command_receipt, digests

__all__ = ["register", "run"]

SCALAR_METRICS = [m for m in METRICS if m not in PER_CLASS_METRICS]

_tau_scale = number_type(
    lambda text: text if text == "auto" else float(text),
    lambda v: v == "auto" or 0 < v <= MAX_TAU_SCALE,
    f"'auto' or a number > 0 and at most {MAX_TAU_SCALE:g}",
    "tau_scale",
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "aggregate",
        help="one metric over folds, seeds or test sets (pooled or random effects)",
        description="Posterior of one metric aggregated over K confusion matrices (folds, "
        "seeds, test sets) of one model. --method random_effects (default): the tables' "
        "true metrics differ around a mean; reports the mean over the population of "
        "tables, the predictive of a new table, and the heterogeneity (tau, I^2). --method "
        "pooled: the exact posterior of the summed table (disjoint test sets, no "
        "difference between them).",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="confusion-matrix files or predictions CSVs, one per table, or one batch file "
        "(K, M, M); one may be - (standard input)",
    )
    p.add_argument("--metric", default="macro_f1", choices=SCALAR_METRICS, metavar="NAME",
                   help="metric to aggregate (default macro_f1); one of "
                   + ", ".join(SCALAR_METRICS))  # fmt: skip
    p.add_argument("--method", default="random_effects", choices=METHODS,
                   help="aggregation method (default random_effects)")  # fmt: skip
    p.add_argument("--scale", default="auto", choices=["auto", *SCALES],
                   help="working scale of the random-effects model (default auto: logit for "
                   "rates, Fisher z for MCC-like metrics, log for ratios; a transform must fit "
                   "the metric's range, identity always does)")  # fmt: skip
    p.add_argument("--tau-scale", type=_tau_scale, default="auto", metavar="A",
                   help="scale of the prior of the between-table sd tau on the working scale: "
                   "auto (default: 3 x the tables' own typical posterior sd on that scale; 0.5 on "
                   "the log scale) or a "
                   f"number > 0, at most {MAX_TAU_SCALE:g}")  # fmt: skip
    p.add_argument("--tau-prior", default="auto", choices=["auto", *TAU_PRIORS],
                   help="family of the prior of tau (default auto: half_cauchy, half_normal on "
                   "the log scale)")  # fmt: skip
    p.add_argument("--ref", type=float, default=None,
                   help="reference value: adds P(below) and P(above) to every row")  # fmt: skip
    p.add_argument("--true-col", default="y_true", help="true-label column of predictions CSVs")
    p.add_argument("--pred-col", default="y_pred", help="predicted-label column (y_pred)")
    p.add_argument(
        "--input-format", choices=INPUT_FORMATS, default=None, metavar="FMT", help=INPUT_FORMAT_HELP
    )
    p.add_argument("--format", choices=["text", "json", "csv", "markdown"], default="text")
    p.add_argument("--plot", type=plot_path, metavar="FILE",
                   help="also draw the forest plot to FILE (.png, .svg or .pdf; needs "
                   "matplotlib)")  # fmt: skip
    add_sampling_arguments(p)
    p.set_defaults(run=run)


def _read_tables(args: argparse.Namespace) -> tuple[np.ndarray, list[str], list[str] | None]:
    """Every FILE's matrices as one ``(K, M, M)`` stack, their names and class labels."""
    check_stdin_inputs(args, args.files)
    counts: list[np.ndarray] = []
    names: list[str] = []
    ref: Any = None
    for f in args.files:
        d = read_input(
            f,
            true_col=args.true_col,
            pred_col=args.pred_col,
            input_format=args.input_format if is_stdin(f) else None,
        )
        c = d.counts
        if ref is not None and d.labels is not None and ref.labels is not None:
            if set(d.labels) != set(ref.labels):
                raise ValueError(
                    f"{d.source}: different class labels from {ref.source}: {d.labels} vs "
                    f"{ref.labels}; the tables must count the same classes"
                )
            order = [d.labels.index(x) for x in ref.labels]
            c = c[..., order, :][..., :, order]
        if ref is None:
            ref = d
        if counts and c.shape[-1] != counts[0].shape[-1]:
            raise ValueError(
                f"{d.source}: {c.shape[-1]} classes, but {ref.source} has "
                f"{counts[0].shape[-1]}; the tables must count the same classes"
            )
        if c.ndim == 2:
            counts.append(c)
            names.append(d.source)
        elif c.ndim == 3:
            counts.extend(c)
            own = d.names or [f"{i}" for i in range(c.shape[0])]
            names.extend(own if len(args.files) == 1 else [f"{d.source}[{n}]" for n in own])
        else:
            raise ValueError(
                f"{d.source}: expected a matrix (M, M) or a batch (K, M, M); got shape {c.shape}"
            )
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"table {dup!r} is given twice; give each table once")
    labels = None if ref is None or ref.labels is None else list(ref.labels)
    return np.stack(counts), names, labels


def run(args: argparse.Namespace) -> int:
    tables, names, labels = _read_tables(args)
    result = aggregate(
        tables, metric=args.metric, method=args.method, draws=args.draws, ci_prob=args.ci_prob,
        rng=args.seed, names=names, scale=args.scale, tau_scale=args.tau_scale,
        tau_prior=args.tau_prior, ref=args.ref,
        **prior_from_args(args),
    )  # fmt: skip
    receipt = command_receipt(args, result, digests(("file", f) for f in args.files))
    print(render(result, args.format, labels, receipt), end="")
    if args.plot:
        from ..report.plots import plot_aggregate

        save_figure(plot_aggregate(result), args.plot, "--plot")
    return 0


def _num(v: float) -> str:
    return f"{v:.4f}" if np.isfinite(v) else ""


def render(
    result: Aggregate, fmt: str, labels: list[str] | None = None, receipt: Receipt | None = None
) -> str:
    """The result as ``text``, ``json``, ``csv`` or ``markdown`` (names escaped in each),
    with ``receipt`` (default: the result's settings, no inputs)."""
    if receipt is None:
        receipt = command_receipt(argparse.Namespace(command="aggregate"), result, ())
    if fmt == "json":
        out = result.to_dict()
        if labels is not None:
            out["labels"] = labels
        return json_document(out, receipt) + "\n"
    if fmt == "text":
        return f"{result}\n{receipt.text()}\n"
    rows = result.rows()
    if fmt == "csv":  # the batch outputs' writer: escaping, metadata line, numbers
        buf = io.StringIO()
        meta = row_metadata(
            prior=result.prior, draws=result.draws, seed=result.seed, ci_prob=result.ci_prob,
            ref=result.summary.ref, labels=labels,
            extra={"metric": result.metric, "method": result.method, "scale": result.scale,
                   "receipt": receipt.to_dict()},
        )  # fmt: skip
        w = RowWriter(buf, "csv", meta=meta, text_columns=2)
        w.write(list(rows[0]), (list(r.values()) for r in rows))
        return buf.getvalue()
    pct = f"{100 * result.ci_prob:g}%"
    how = "pooled" if result.method == "pooled" else f"random effects, {result.scale} scale"
    lines = [
        f"**{escape_markdown(result.metric)}** over {len(result.names)} tables ({how}); "
        f"{result.draws:,} draws; prior {escape_markdown(result.prior)}",
        "",
        f"| table | score | mean | std | {pct} HDI |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {escape_markdown(r['name'])} | {_num(r['score'])} | {_num(r['mean'])} "
            f"| {_num(r['std'])} | [{r['hdi_low']:.4f}, {r['hdi_high']:.4f}] |"
        )
    if result.heterogeneity is not None:
        lines += ["", escape_markdown(str(result.heterogeneity))]
    lines += ["", receipt.markdown()]
    return "\n".join(lines) + "\n"
