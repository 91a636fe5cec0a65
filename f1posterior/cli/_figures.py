"""``--plot`` and ``--report`` options: pictures and shareable reports from a subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core.text import escape_text
from ..io import write_output
from ._common import save_figure

if TYPE_CHECKING:  # pragma: no cover
    from ..posterior import Evaluation

__all__ = ["PLOT_SUFFIXES", "add_output_arguments", "wants_draws", "write_outputs"]

#: Image formats of ``--plot``.
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _plot_path(text: str) -> str:
    if Path(text).suffix.lower() not in PLOT_SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"expected a file name ending in {', '.join(PLOT_SUFFIXES)}; got {text!r}"
        )
    return text


def _report_path(text: str) -> str:
    from ..report import REPORT_FORMATS

    if Path(text).suffix.lower() not in REPORT_FORMATS:
        raise argparse.ArgumentTypeError(
            f"expected a file name ending in {', '.join(REPORT_FORMATS)}; got {text!r}"
        )
    return text


def add_output_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--plot FILE`` and ``--report FILE``."""
    p.add_argument(
        "--plot",
        type=_plot_path,
        metavar="FILE",
        help="also draw the posteriors to FILE (.png, .svg or .pdf; needs matplotlib)",
    )
    p.add_argument(
        "--report",
        type=_report_path,
        metavar="FILE",
        help="also write a shareable report, table plus plot, to FILE (.html or .md)",
    )


def wants_draws(args: argparse.Namespace) -> bool:
    """True when a plot or report was asked for (the posterior draws must be kept)."""
    return bool(getattr(args, "plot", None) or getattr(args, "report", None))


def write_outputs(
    args: argparse.Namespace,
    result: Evaluation,
    *,
    source: str | None = None,
    names: Sequence[Any] | None = None,
) -> int:
    """Write the files of ``--plot``/``--report``; return 0, or 2 with one line on stderr."""
    if not wants_draws(args):
        return 0
    try:
        if args.plot:
            from ..report.plots import plot_summary

            save_figure(plot_summary(result, names=names), args.plot, "--plot")
        if args.report:
            from ..report import REPORT_FORMATS, render_report

            fmt = REPORT_FORMATS[Path(args.report).suffix.lower()]
            text = render_report(result, fmt=fmt, source=source, names=names)
            write_output(args.report, text, "--report")
            print(f"report written to {escape_text(args.report)}", file=sys.stderr)
    except ImportError as exc:
        print(f"f1posterior {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return 0
