"""``--plot`` and ``--report`` options: pictures and shareable reports from a subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core.text import escape_text
from ..io import write_output
from ._common import plot_path, save_figure

if TYPE_CHECKING:  # pragma: no cover
    from ..io import Receipt
    from ..posterior import Evaluation

__all__ = ["add_output_arguments", "save_report", "wants_draws", "write_outputs"]


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
        type=plot_path,
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
    receipt: Receipt | None = None,
) -> int:
    """Write the files of ``--plot``/``--report``; return 0, or 2 with one line on stderr."""
    if not wants_draws(args):
        return 0
    try:
        if args.plot:
            from ..report.plots import plot_summary

            save_figure(plot_summary(result, names=names), args.plot, "--plot")
        if args.report:
            from ..report import render_report

            save_report(
                args.report,
                lambda f: render_report(result, fmt=f, source=source, names=names),
                receipt,
            )
    except ImportError as exc:
        print(f"f1posterior {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return 0


def save_report(path: str, render: Callable[[str], str], receipt: Receipt | None = None) -> None:
    """Write ``render(fmt)`` to ``--report`` file ``path``, ``fmt`` named by its suffix,
    with the ``receipt`` as its last paragraph."""
    from ..report import REPORT_FORMATS

    fmt = REPORT_FORMATS[Path(path).suffix.lower()]
    text = render(fmt)
    if receipt is not None and fmt == "markdown":
        text = f"{text.rstrip()}\n\n{receipt.markdown()}\n"
    elif receipt is not None:  # HTML: a paragraph before the end of the body
        import html

        body, end, rest = text.rpartition("</body>")
        line = f'<p class="meta">{html.escape(receipt.text())}</p>\n'
        text = f"{body}{line}{end}{rest}" if end else text + line
    write_output(path, text, "--report")
    print(f"report written to {escape_text(path)}", file=sys.stderr)
