"""Batch files as Dask partitions: :func:`evaluate_files`.

Dask (and pyarrow for Parquet) are optional dependencies, imported only when it runs.

Design notes: docs/design.md#integrations-dask-files
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from .._core.describe import describe
from .._core.priors import DEFAULT_PRIOR, PriorArg
from .._core.streams import DEFAULT_DRAWS
from .._core.validation import SeedLike, check_choice, check_sampling_args
from ..posterior import Evaluation, MetricSpec
from ..posterior import evaluate as evaluate_in_memory

__all__ = ["evaluate_files", "FILE_SUFFIXES"]

#: Suffixes of the files :func:`evaluate_files` reads.
FILE_SUFFIXES = (".jsonl", ".ndjson", ".parquet")


def _count_matrices(path: str) -> int:
    """Matrices in a batch file, counted the way its reader will read them."""
    if path.lower().endswith(".parquet"):
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    from ..io import open_lines

    _, fh, _owned = open_lines(path)
    with fh:
        try:
            return sum(1 for line in fh if line.strip())
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from None


def _parquet_chunks(
    path: str, chunk: int, labels: Sequence[Any] | None
) -> tuple[list[str] | None, Iterator[Any]]:
    """Chunks of a Parquet file: a ``matrix`` column (lists of M lists of M counts), an
    optional ``name`` column."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from ..io import BatchChunk, check_cells

    pf = pq.ParquetFile(path)
    fields = pf.schema_arrow.names
    if "matrix" not in fields:
        raise ValueError(
            f"{path}: a Parquet batch needs a 'matrix' column (a list of M lists of M counts "
            f"per row) and optionally 'name'; got columns {fields}"
        )
    cols = ["matrix"] + (["name"] if "name" in fields else [])
    out_labels = None if labels is None else [str(x) for x in labels]

    def chunks() -> Iterator[Any]:
        start, m = 0, None
        for batch in pf.iter_batches(batch_size=chunk, columns=cols):
            mat = batch.column("matrix")
            b = len(mat)
            try:
                rows = mat.flatten()
                cells = rows.flatten()
                row_len = pc.list_value_length(mat).to_numpy(zero_copy_only=False)
                cell_len = pc.list_value_length(rows).to_numpy(zero_copy_only=False)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, AttributeError):
                raise ValueError(
                    f"{path}: the 'matrix' column must hold lists of lists of counts; got type "
                    f"{mat.type}"
                ) from None
            m = int(row_len[0]) if m is None else m
            bad = np.nonzero(row_len != m)[0]
            if bad.size == 0 and cell_len.size and (cell_len != m).any():
                bad = np.array([int(np.nonzero(cell_len != m)[0][0]) // m])
            if bad.size:
                raise ValueError(
                    f"{path}, row {start + int(bad[0])}: not a {m} x {m} matrix like row 0; a "
                    "batch needs one size"
                )
            values = np.asarray(cells.to_numpy(zero_copy_only=False), dtype=np.float64)

            def locate(idx: tuple[int, ...], s: int = start) -> str:
                return f"row {s + idx[0]}, cell {list(idx[1:])}"

            counts = check_cells(values.reshape(b, m, m), path, locate)
            if "name" in cols:
                names = [str(x) for x in batch.column("name").to_pylist()]
            else:
                names = [f"row {i}" for i in range(start, start + b)]
            yield BatchChunk(np.ascontiguousarray(counts), names, start)
            start += b

    return out_labels, chunks()


def _evaluate_file(
    path: str,
    target: str,
    offset: int,
    expected: int,
    fmt: str,
    chunk: int,
    labels: Sequence[Any] | None,
    kw: dict[str, Any],
) -> int:
    """Evaluate one file chunk by chunk into ``target``; the number of matrices."""
    from ..io import ParquetRowWriter, RowWriter, atomic_output, open_batch

    if path.lower().endswith(".parquet"):
        file_labels, chunks = _parquet_chunks(path, chunk, labels)
    else:
        reader = open_batch(path, chunk=chunk, labels=labels)
        file_labels, chunks = reader.labels, iter(reader)
    seen = set()
    done = 0

    def evaluated() -> Iterator[tuple[Evaluation, list[str]]]:
        nonlocal done
        for c in chunks:
            for n in c.names:
                if n in seen:
                    raise ValueError(f"{path}: the name {n!r} is used twice; names must be unique")
                seen.add(n)
            ev = evaluate_in_memory(
                c.counts, index_offset=offset + c.start, labels=file_labels, **kw
            )
            done += len(c.names)
            yield ev, c.names

    parquet = fmt == "parquet"
    with atomic_output(target, binary=parquet) as fh:  # renamed into place on success
        writer = ParquetRowWriter(fh) if parquet else RowWriter(fh, "csv")
        for ev, names in evaluated():
            writer.write(ev, names)
        writer.close()
        _check_count(path, done, expected)
    return done


def _check_count(path: str, done: int, expected: int) -> None:
    if done != expected:
        raise ValueError(
            f"{path}: {done} matrices read, but {expected} were counted before the run (was the "
            "file changed?)"
        )


def _check_paths(paths: Any, out_dir: Any, fmt: str) -> tuple[list[str], list[str]]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    try:
        items = [os.fspath(p) for p in paths]
    except TypeError:
        raise TypeError(f"paths must be a sequence of file paths; got {describe(paths)}") from None
    if not items:
        raise ValueError("paths must name at least one file; got an empty sequence")
    for p in items:
        if not isinstance(p, str) or not p.lower().endswith(FILE_SUFFIXES):
            raise ValueError(f"paths must be files ending in {', '.join(FILE_SUFFIXES)}; got {p!r}")
    if any(p.lower().endswith(".parquet") for p in items) or fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ImportError(
                "Parquet needs pyarrow, an optional extra: pip install 'f1posterior[parquet]'"
            ) from None
    out = Path(os.fspath(out_dir))
    if not out.is_dir():
        raise ValueError(f"out_dir must be an existing folder; got {str(out)!r}")
    targets = [str(out / (Path(p).stem + "." + fmt)) for p in items]
    seen: dict[str, str] = {}
    for p, t in zip(items, targets, strict=True):
        if t in seen:
            raise ValueError(
                f"paths {seen[t]!r} and {p!r} would both be written to {t!r}; give files "
                "different names"
            )
        seen[t] = p
    return items, targets


def evaluate_files(
    paths: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    # the keywords of f1posterior.evaluate, spelled out (not **kw) for users, docs and mypy
    metrics: MetricSpec | Sequence[MetricSpec] = ("micro_f1", "macro_f1"),
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    ref: float | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
    dtype: DTypeLike = np.float64,
    labels: Sequence[Any] | None = None,
    fmt: str = "csv",
    chunk: int = 4096,
    workers: int | None = 1,
    max_memory: int | None = None,
) -> list[Path]:
    """Evaluate many batch files as partitions, one Dask task and one output file per file.

    Parameters
    ----------
    paths : sequence of path
        Batch files, in order: JSON lines (``.jsonl``/``.ndjson``, read by
        :func:`f1posterior.io.open_batch`) or Parquet (``.parquet``, a
        ``matrix`` column holding a list of M lists of M counts per row and an
        optional ``name`` column; needs the ``parquet`` extra).
    out_dir : path
        Existing folder; file ``x.jsonl`` gives ``out_dir/x.csv`` (or
        ``x.parquet``). Each file is written to a temporary name and renamed
        when complete.
    metrics, draws, alpha, beta, ref, ci_prob
        As in :func:`f1posterior.evaluate` (priors the same for every matrix).
    rng : None, int, SeedSequence or Generator
        Resolved once to a root seed. Matrix ``j`` of file ``i`` uses the
        streams of flat index (matrices in files ``0..i-1``) + ``j``, so the
        rows equal one :func:`f1posterior.evaluate` of all the matrices
        stacked in file order, whatever the partitioning.
    dtype
        As in :func:`f1posterior.evaluate`.
    labels : sequence of str, optional
        Class labels (as ``open_batch``'s ``labels``; names the per-class
        columns).
    fmt : {"csv", "parquet"}, default "csv"
        Output format; the columns are those of the command line's CSV
        (:class:`f1posterior.io.RowWriter`): ``name``, then
        ``{metric}_{stat}`` and ``{metric}_{label}_{stat}``, with the
        ``prior_dominated`` flags; a CSV starts with the metadata line
        ``# f1posterior: {...}`` (``pandas.read_csv(path, comment="#")``).
    chunk : int, default 4096
        Matrices read and evaluated at a time within a file (bounds memory).
    workers : int or None, default 1
        Threads inside each task (Dask runs the files in parallel).
    max_memory
        As in :func:`f1posterior.evaluate`.

    Returns
    -------
    list of Path
        The output files, in the order of ``paths``.

    See Also
    --------
    f1posterior.integrations.dask.evaluate : A Dask array of matrices.
    f1posterior.evaluate : The in-memory form.

    Notes
    -----
    Two passes: the files' matrices are counted first (one cheap task per
    file: lines with text, or Parquet row counts) to give every file its
    global offset, then evaluated. A file whose count changes between the two
    passes is an error, and its output is not written.

    Examples
    --------
    >>> import json, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for k in range(2):
    ...     with open(os.path.join(d, f"part{k}.jsonl"), "w") as fh:
    ...         for i in range(3):
    ...             print(json.dumps({"name": f"m{k}{i}", "matrix": [[5 + i, 1], [2, 7]]}), file=fh)
    >>> outs = evaluate_files([os.path.join(d, f"part{k}.jsonl") for k in range(2)], d,
    ...                       metrics="accuracy", draws=1000, rng=0)
    >>> [os.path.basename(p) for p in outs]
    ['part0.csv', 'part1.csv']
    >>> open(outs[1]).read().splitlines()[2].split(",")[:2]
    ['m10', '0.8']
    """
    try:
        import dask
    except ImportError:  # pragma: no cover - dask is in the test extra
        raise ImportError(
            "f1posterior.integrations.dask needs dask: pip install 'f1posterior[dask]'"
        ) from None
    check_choice(fmt, "fmt", ("csv", "parquet"))
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a positive int; got {describe(chunk)}")
    items, targets = _check_paths(paths, out_dir, fmt)
    sa = check_sampling_args(draws, ci_prob, ref, rng, dtype)  # rng resolved once: the root
    kw: dict[str, Any] = dict(
        metrics=metrics, alpha=alpha, beta=beta, workers=workers, max_memory=max_memory
    )
    kw.update(sa.as_keywords())
    if all(isinstance(x, (str, int, float)) for x in (alpha, beta)):
        # one tiny run validates every argument before any task is sent (array priors,
        # whose shape needs M, are checked by the tasks)
        evaluate_in_memory(np.ones((1, 2, 2)), **{**kw, "draws": 2})
    counts = dask.compute(*[dask.delayed(_count_matrices)(p) for p in items])
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int).tolist()
    tasks = [
        dask.delayed(_evaluate_file)(p, t, off, n, fmt, chunk, labels, kw)
        for p, t, off, n in zip(items, targets, offsets, counts, strict=True)
    ]
    dask.compute(*tasks)
    return [Path(t) for t in targets]
