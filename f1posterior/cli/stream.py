"""Batches from files: read, evaluate and write chunk by chunk (``summarize``'s batch path).

Memory stays bounded whatever the batch: a chunk of matrices is read
(:mod:`f1posterior.io.streaming`), evaluated with the batch engine
(``index_offset`` = the chunk's first index, so the numbers equal one
in-memory call on the whole stack) and written as rows
(:mod:`f1posterior.io.writers`) before the next chunk is read. The output file is
written to a temporary file and renamed when everything succeeded.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._core.validation import check_rng
from ..io.sources import npy_ndim
from ..io.streaming import DEFAULT_CHUNK, BatchChunk, BatchReader, open_batch
from ..io.writers import ParquetRowWriter, RowWriter, atomic_output

if TYPE_CHECKING:  # only for annotations: the engine is imported when a batch runs
    from ..posterior.evaluation import Evaluation
from .common import check_interrupt
from .progress import progress_reporter

__all__ = ["add_stream_arguments", "is_batch_run", "run_stream", "memory_size"]

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def memory_size(text: str) -> int:
    """Bytes of a size such as ``512M``, ``2GiB`` or ``1048576``."""
    m = _SIZE.match(text)
    if not m:
        raise argparse.ArgumentTypeError(
            f"expected a size in bytes such as 268435456, 512M or 2GiB; got {text!r}"
        )
    unit = (m.group(2) or "").lower().rstrip("b").rstrip("i")
    value = float(m.group(1)) * _UNITS[unit]
    if value < (1 << 20):
        raise argparse.ArgumentTypeError(f"expected at least 1M (1 MiB); got {text!r}")
    return int(value)


def _workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of workers; got {text!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 worker; got {text!r}")
    return value


def add_stream_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--output``, ``--long``, ``--workers``, ``--max-memory``, ``--chunk-size``,
    ``--progress``."""
    g = p.add_argument_group("batches and output")
    g.add_argument(
        "--output",
        metavar="OUTFILE",
        help="write the result to OUTFILE instead of standard output (written to a temporary "
        "file and renamed on success, so an interrupted run leaves nothing behind)",
    )
    g.add_argument(
        "--long",
        action="store_true",
        help="one row per matrix, metric and class (columns name, metric, class, stats) "
        "instead of one row per matrix",
    )
    g.add_argument(
        "--workers", type=_workers, default=None, metavar="N", help="threads (default: every core)"
    )
    g.add_argument(
        "--max-memory",
        type=memory_size,
        default=None,
        metavar="SIZE",
        help="byte budget of the working arrays, e.g. 512M or 2G (default 256M)",
    )
    g.add_argument(
        "--chunk-size",
        type=_workers,
        default=DEFAULT_CHUNK,
        metavar="K",
        help=f"matrices read, evaluated and written at a time (default {DEFAULT_CHUNK:,}); "
        "the numbers do not depend on it",
    )
    g.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress with rate and ETA on stderr (default: only on a terminal; --progress "
        "prints a plain line every few seconds, e.g. in CI logs)",
    )


_STREAM_SUFFIXES = (".jsonl", ".ndjson", ".npz")
#: Output formats implied by ``--output``'s suffix when ``--format`` is not given.
_SUFFIX_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".ndjson": "ndjson",
    ".jsonl": "ndjson",
    ".json": "json",
    ".md": "markdown",
    ".parquet": "parquet",
}


def is_batch_run(args: argparse.Namespace) -> bool:
    """True when ``summarize`` should take the streaming path."""
    if args.file is None:
        return False
    if args.format in ("csv", "tsv", "ndjson", "parquet") or args.output or args.long:
        return True
    fmt = getattr(args, "input_format", None)
    if args.file == "-":
        return fmt in (None, "jsonl")
    suffix = Path(args.file).suffix.lower()
    return (
        fmt in ("jsonl", "npz")
        or suffix in _STREAM_SUFFIXES
        or (suffix == ".npy" and npy_ndim(args.file) == 3)
    )


def _one_matrix(args: argparse.Namespace) -> BatchReader:
    """A non-batch input (JSON, CSV, predictions, a 2-D .npy) as a one-chunk reader."""
    from .input_args import load_input

    data = load_input(args, args.file)
    counts = np.asarray(data.counts, dtype=np.float64)
    stack = counts if counts.ndim == 3 else counts[None]
    names = data.names or ([Path(args.file).stem] if stack.shape[0] == 1 else None)
    names = names or [str(i) for i in range(stack.shape[0])]
    chunk = BatchChunk(stack, list(names), 0)
    return BatchReader(data.source, stack.shape[-1], data.labels, stack.shape[0], iter([chunk]))


def _reader(args: argparse.Namespace) -> BatchReader:
    fmt = getattr(args, "input_format", None)
    suffix = "" if args.file == "-" else Path(args.file).suffix.lower()
    batch_fmt = fmt == "jsonl" or (fmt is None and suffix in _STREAM_SUFFIXES)
    if batch_fmt or (suffix == ".npy" and fmt in (None, "npy") and npy_ndim(args.file) == 3):
        if args.predictions:
            raise ValueError(f"--predictions reads a predictions CSV; {args.file} is a batch file")
        return open_batch(
            args.file,
            chunk=args.chunk_size,
            labels=args.labels,
            transpose=args.transpose,
            input_format=fmt if fmt == "jsonl" else None,
        )
    return _one_matrix(args)


def _count_lines(path: str) -> int | None:
    """Non-blank lines of a JSON-lines file (for the progress ETA), or None for stdin."""
    if path == "-" or Path(path).suffix.lower() not in (".jsonl", ".ndjson"):
        return None
    n = 0
    with Path(path).open("rb") as fh:
        prev = b"\n"
        while block := fh.read(1 << 20):
            n += block.count(b"\n")
            prev = block[-1:]
    return n + (prev != b"\n")


def run_stream(args: argparse.Namespace, metrics: list[str], ref: float | None, prior: dict) -> int:
    """Evaluate a batch file chunk by chunk and write one row per matrix."""
    from ..posterior.evaluation import evaluate

    if args.plot or args.report or args.prior_sensitivity:
        flag = "--plot" if args.plot else "--report" if args.report else "--prior-sensitivity"
        raise ValueError(
            f"{flag} needs the posterior of one matrix; a batch is written as rows "
            "(evaluate the matrix of interest on its own)"
        )
    reader = _reader(args)
    root = check_rng(args.seed)
    fmt = args.format
    if args.format == "table" and args.output:  # the default format: follow the suffix
        fmt = _SUFFIX_FORMATS.get(Path(args.output).suffix.lower(), "table")
    if fmt == "parquet":
        if not args.output:
            raise ValueError("--format parquet writes a binary file: give --output FILE")
        if args.long:
            raise ValueError("--long is for the text formats; Parquet is written wide")
    total = reader.total if reader.total is not None else _count_lines(args.file)
    progress = progress_reporter(args.progress)
    dominated: dict[str, int] = {}
    first_prior = None
    meta = {
        "source": reader.source,
        "draws": args.draws,
        "ci_prob": args.ci_prob,
        "ref": ref,
        "seed": args.seed,
        "labels": reader.labels,
    }
    done = 0
    with atomic_output(args.output, binary=fmt == "parquet", flag="--output") as out:
        writer: RowWriter | ParquetRowWriter | None = None
        for chunk in reader:
            check_interrupt()
            ev = evaluate(
                chunk.counts,
                metrics=metrics,
                draws=args.draws,
                ref=ref,
                ci_prob=args.ci_prob,
                rng=root,
                labels=reader.labels,
                workers=args.workers,
                max_memory=args.max_memory,
                index_offset=chunk.start,
                **prior,
            )
            if writer is None:
                first_prior = ev.prior
                writer = (
                    ParquetRowWriter(out)
                    if fmt == "parquet"
                    else RowWriter(out, fmt, long=args.long, meta={**meta, **_run_meta(ev)})
                )
            writer.write(ev, chunk.names)
            for name, s in ev.items():
                if s.prior_dominated is not None:
                    dominated[name] = dominated.get(name, 0) + int(
                        np.asarray(s.prior_dominated)
                        .reshape(len(chunk.names), -1)
                        .any(axis=1)
                        .sum()
                    )
            done += len(chunk.names)
            if progress is not None:
                progress(done, total or 0)
        if writer is None:  # pragma: no cover - readers refuse empty inputs
            raise ValueError(f"{reader.source}: no matrices")
        writer.close()
    if progress is not None and total != done:
        progress(done, done)
    hits = [f"{m} ({n:,} of {done:,} matrices)" for m, n in dominated.items() if n]
    if hits:
        print(
            f"f1posterior: warning: the prior dominates {'; '.join(hits)} (prior {first_prior}): "
            "it moves the posterior mean by more than half a posterior standard deviation; "
            "evaluate on more documents or compare priors with --prior-sensitivity",
            file=sys.stderr,
        )
    if args.output:
        print(f"{done:,} matrices written to {args.output}", file=sys.stderr)
    return 0


def _run_meta(ev: Evaluation) -> dict[str, object]:
    """What the first chunk's evaluation adds to the header: the prior, and any target."""
    out: dict[str, object] = {"prior": ev.prior}
    if ev.prevalence is not None:
        out["prevalence"] = ev.prevalence.to_json()
    if ev.chance:
        out["chance"] = True
    return out
