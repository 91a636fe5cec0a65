"""The gate in pull requests: ``--max-relative-drop``, ``--annotations``, ``--json``,
``--save-baseline`` (and a saved baseline given as ``--baseline``).

Annotations are written only when asked for (``--annotations github``), not
whenever ``GITHUB_ACTIONS`` is set: the same command prints the same thing on
a laptop and on a runner, and a job that runs the gate twice (or the Action,
which asks for them) never gets each annotation twice. They go to standard
error, so ``--format json`` keeps standard output pure JSON (the runner reads
workflow commands from both streams).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..gating import GateResult, NonInferiority
from ..io import is_stdin
from ._common import number_type

if TYPE_CHECKING:
    from ..gating import GateConfig

__all__ = [
    "add_pr_arguments",
    "check_pr_arguments",
    "compared_check",
    "pr_outputs",
    "read_baseline_input",
    "runner_safe_output",
]

#: A relative drop: a fraction of the baseline in [0, 1).
relative_drop = number_type(float, lambda v: 0.0 <= v < 1.0, "a number in [0, 1)", "relative_drop")


def add_pr_arguments(p: argparse.ArgumentParser) -> None:
    """``--max-relative-drop``, ``--annotations``, ``--json``, ``--save-baseline``."""
    p.add_argument(
        "--max-relative-drop",
        type=relative_drop,
        default=None,
        metavar="R",
        help="a relative non-inferiority margin instead of --max-drop: PASS when "
        "P(new >= (1 - R) x base) >= P, FAIL when P(new < (1 - R) x base) >= P, else "
        "INCONCLUSIVE; reported as the ratio new / base against 1 - R",
    )
    p.add_argument(
        "--annotations",
        choices=["github"],
        default=None,
        help="also write a GitHub Actions annotation to stderr for each check: ::error for a "
        "FAIL, ::warning for an INCONCLUSIVE, the check in the title (values escaped)",
    )
    p.add_argument(
        "--json",
        metavar="PATH",
        dest="json_path",
        help="also write the JSON result (as --format json prints it) to PATH",
    )
    p.add_argument(
        "--save-baseline",
        metavar="SAVED",
        help="also save FILE's counts (labels, tool and format versions) to SAVED, a JSON file "
        "that a later gate takes as --baseline SAVED: the baseline without its model",
    )


def compared_check(metric: str, cfg: GateConfig | None, args: argparse.Namespace) -> NonInferiority:
    """The comparison of ``metric`` with the baseline, its margin from the command line first.

    ``--max-relative-drop`` or ``--max-drop`` when given, else the configuration's
    first baseline check of ``metric`` (``max_drop`` or ``max_relative_drop``),
    else ``--max-drop``'s default.
    """
    if args.max_relative_drop is not None:
        return NonInferiority(metric, args.max_relative_drop, relative=True)
    if "max_drop" not in args.cli_given:
        for c in cfg.checks if cfg is not None else ():
            if c.metric == metric and c.baseline is not None:
                if c.max_relative_drop is not None:
                    return NonInferiority(metric, c.max_relative_drop, relative=True)
                if c.max_drop is not None:
                    return NonInferiority(metric, c.max_drop)
    return NonInferiority(metric, args.max_drop)


def check_pr_arguments(args: argparse.Namespace) -> None:
    """Refuse flags that contradict each other (one line, exit status 2)."""
    if args.max_relative_drop is not None and "max_drop" in args.cli_given:
        raise ValueError(
            f"give --max-drop {args.max_drop:g} (absolute) or --max-relative-drop "
            f"{args.max_relative_drop:g}, not both"
        )
    if args.max_relative_drop is not None and getattr(args, "id_col", None):
        raise ValueError(
            f"--max-relative-drop compares independent posteriors, but --id-col {args.id_col} "
            "pairs the predictions by document; with --id-col give --max-drop D"
        )
    if args.save_baseline and is_stdin(args.file):
        raise ValueError(
            "--save-baseline reads FILE again after the gate; give a file path, not - "
            "(standard input)"
        )
    for flag, out in (("--json", args.json_path), ("--save-baseline", args.save_baseline)):
        if out and not is_stdin(out):
            from ..io import output_target  # here: a gate without these outputs never loads it

            output_target(out, flag)  # a device, FIFO or folder: refused before the gate runs
    inputs = [("FILE", args.file), ("--baseline", getattr(args, "baseline", None))]
    for flag, out, against in (("--json", args.json_path, inputs),
                               ("--save-baseline", args.save_baseline, inputs[:1])):  # fmt: skip
        for role, path in against:
            if out and _same_file(out, path):  # (a saved baseline may replace --baseline)
                raise ValueError(
                    f"{flag} {out} is {role} {path}: an output must not replace the gate's "
                    "input; give another path"
                )


def _same_file(out: str, path: Any) -> bool:
    """Whether ``out`` names the existing file ``path`` (through links)."""
    if not isinstance(path, str) or is_stdin(out) or is_stdin(path):
        return False
    try:
        return os.path.samefile(out, path)
    except OSError:  # either missing: nothing to replace
        return False


def read_baseline_input(args: argparse.Namespace, path: str, multilabel: bool) -> Any:
    """The counts at ``path`` if it is a saved baseline (``--save-baseline``), else None."""
    from ..io import is_saved_baseline, read_saved_baseline

    if not is_saved_baseline(path):
        return None
    return read_saved_baseline(path, multilabel=multilabel, labels=getattr(args, "labels", None))


class _Defused:
    """A text stream that writes every ``##[`` as ``#\\u0023[`` (the same string in JSON)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return int(self._stream.write(text.replace("##[", "#\\u0023[")))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def runner_safe_output(args: argparse.Namespace) -> Iterator[None]:
    """With ``--annotations github``, the report printed inside is safe for the runner.

    The runner reads a legacy workflow command ``##[name]`` anywhere in a line
    (the ``::`` form only at its start, which the report's escapes already
    exclude), so a label holding ``##[stop-commands]`` could pause the
    annotations, or ``##[error]`` forge one. Every ``##[`` on standard output
    and standard error is written ``#\\u0023[``: JSON's escape of the same string,
    and in text and Markdown an escape like those of control characters.
    """
    if getattr(args, "annotations", None) != "github":
        yield
        return
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Defused(out), _Defused(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def pr_outputs(
    args: argparse.Namespace,
    result: GateResult,
    read_file: Callable[[], Any],
    document: str | None = None,
) -> None:
    """Write ``--json`` (``document``, the JSON that ``--format json`` prints), ``--save-baseline``
    (FILE's counts from ``read_file()``) and ``--annotations`` (stderr)."""
    if args.json_path:
        from ..io import write_output

        text = document if document is not None else json.dumps(result.to_dict(), indent=2)
        write_output(args.json_path, text + "\n", "--json")
    if args.save_baseline:
        from ..io import save_baseline

        prior = str(args.prior)
        save_baseline(args.save_baseline, read_file(), multilabel=args.multilabel, prior=prior)
    if args.annotations == "github":
        from ._annotations import gate_annotations

        for line in gate_annotations(result):
            print(line, file=sys.stderr)
