"""Batches from files: read, evaluate and write chunk by chunk (``summarize``'s batch path).

Memory stays bounded whatever the batch: a chunk of matrices is read
(:mod:`f1posterior.io._streaming`), evaluated with the batch engine
(``index_offset`` = the chunk's first index, so the numbers equal one
in-memory call on the whole stack) and written as rows
(:mod:`f1posterior.io._writers`) before the next chunk is read. The output file is
written to a temporary file and renamed when everything succeeded.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .._core.streams import DEFAULT_DRAWS
from .._core.validation import check_rng
from ..io import (
    DEFAULT_CHUNK,
    BatchChunk,
    BatchReader,
    ParquetRowWriter,
    RowWriter,
    atomic_output,
    npy_ndim,
    open_batch,
)
from ..posterior import evaluation_rows, run_metadata
from ._common import check_interrupt
from ._progress import progress_reporter

__all__ = ["add_stream_arguments", "is_batch_run", "run_stream", "memory_size", "batch_draws"]

#: The batch default's floor: the Monte Carlo error of a mean stays within 2.2% of the
#: posterior standard deviation (``1 / sqrt(2000)``).
BATCH_MIN_DRAWS = 2_000
#: The batch default's budget: Gamma variates of the whole run (``B * M * (M + 1) * draws``).
BATCH_VARIATES = 2_000_000_000

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
    from ._input_args import load_input

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


def batch_draws(total: int | None, m: int) -> int:
    """Draws per matrix of a batch run without ``--draws``.

    ``BATCH_VARIATES / (total * m * (m + 1))`` rounded down to a multiple of
    1,000, between :data:`BATCH_MIN_DRAWS` and :data:`DEFAULT_DRAWS`: a batch
    whose size is unknown (a JSON-lines stream longer than one chunk) gets the
    floor.

    Examples
    --------
    >>> batch_draws(1, 4), batch_draws(10_000, 4), batch_draws(100_000, 4), batch_draws(None, 4)
    (50000, 10000, 2000, 2000)
    """
    if total is None:
        return BATCH_MIN_DRAWS
    per_draw = max(total, 1) * m * (m + 1)
    fit = BATCH_VARIATES // per_draw // 1000 * 1000
    return int(min(DEFAULT_DRAWS, max(BATCH_MIN_DRAWS, fit)))


def _first_chunk(
    reader: BatchReader, total: int | None, size: int
) -> tuple[Iterator[BatchChunk], int | None]:
    """The reader's chunks (the first read ahead) and its size, known if it is one short chunk."""
    chunks = iter(reader)
    first = next(chunks, None)
    if first is None:
        return chunks, total
    if total is None and len(first.names) < size:
        total = len(first.names)
    return itertools.chain([first], chunks), total


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


def run_stream(
    args: argparse.Namespace, metrics: list[str], ref: float | None, prior: dict[str, Any]
) -> int:
    """Evaluate a batch file chunk by chunk and write one row per matrix."""
    from ..posterior import evaluate

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
    chunks, total = _first_chunk(reader, total, args.chunk_size)
    draws = args.draws if args.draws is not None else batch_draws(total, reader.m)
    if args.draws is None and draws < DEFAULT_DRAWS:
        size = f"{total:,} matrices" if total is not None else "a batch of unknown size"
        print(
            f"f1posterior: {size} of {reader.m} x {reader.m}: {draws:,} draws each (the batch "
            "default, see docs/batch.md; --draws N to choose)",
            file=sys.stderr,
        )
    progress = progress_reporter(args.progress)
    if progress is not None:
        progress(0, total or 0)  # at once: the first chunk may take a while
    dominated: dict[str, tuple[int, np.ndarray | None]] = {}  # matrices, classes
    first_prior = None
    meta = {"source": reader.source}
    done = 0
    with atomic_output(args.output, binary=fmt == "parquet", flag="--output") as out:
        writer: RowWriter | ParquetRowWriter | None = None
        for chunk in chunks:
            check_interrupt()
            ev = evaluate(
                chunk.counts,
                metrics=metrics,
                draws=draws,
                ref=ref,
                ci_prob=args.ci_prob,
                rng=root,
                labels=reader.labels,
                workers=args.workers,
                max_memory=args.max_memory,
                index_offset=chunk.start,
                progress=_within(progress, done, total),
                **prior,
            )
            if writer is None:
                first_prior = ev.prior
                meta = run_metadata(ev, meta)
                meta["receipt"] = _receipt(args, ev).to_dict()
                writer = (
                    ParquetRowWriter(out, meta=meta)
                    if fmt == "parquet"
                    else RowWriter(out, fmt, meta=meta, text_columns=3 if args.long else 1)
                )
            writer.write(*evaluation_rows(ev, chunk.names, long=args.long))
            for name, s in ev.items():
                if s.prior_dominated is not None:
                    flags = np.asarray(s.prior_dominated, dtype=bool).reshape(len(chunk.names), -1)
                    n, cls = dominated.get(name, (0, None))
                    if flags.shape[1] > 1 or np.ndim(s.prior_dominated) > 1:  # per class
                        cls = np.asarray(flags.any(axis=0) | (False if cls is None else cls))
                    dominated[name] = (n + int(flags.any(axis=1).sum()), cls)
            done += len(chunk.names)
            if progress is not None:
                progress(done, total or 0)
        if writer is None:  # pragma: no cover - readers refuse empty inputs
            raise ValueError(f"{reader.source}: no matrices")
        writer.close()
    if progress is not None and total != done:
        progress(done, done)
    from ..posterior import dominated_name, prior_warning_line

    hits = [
        dominated_name(
            m, None if cls is None else np.nonzero(cls)[0].tolist(), reader.labels, (n, done)
        )  # fmt: skip
        for m, (n, cls) in dominated.items()
        if n
    ]
    line = prior_warning_line(hits, first_prior)
    if line:
        print(f"f1posterior: {line}", file=sys.stderr)
    if args.output:
        print(f"{done:,} matrices written to {args.output}", file=sys.stderr)
    return 0


def _receipt(args: argparse.Namespace, ev: Any) -> Any:
    """The receipt of a batch run; standard input streamed as JSON lines is not hashed."""
    from ..io import streamed_stdin
    from ._receipts import command_receipt, digests

    if args.file == "-" and getattr(args, "input_format", None) == "jsonl":
        inputs: Any = (streamed_stdin(),)
    else:
        inputs = digests([("file", args.file)])
    return command_receipt(args, ev, inputs)


def _within(
    progress: Callable[[int, int], None] | None, before: int, total: int | None
) -> Callable[[int, int], None] | None:
    """The progress callback of one chunk's :func:`evaluate`, counting the chunks before it."""
    if progress is None:
        return None
    return lambda done, _n: progress(before + done, total or 0)
