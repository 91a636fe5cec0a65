"""The metadata of row outputs: what a batch result records about its run.

:func:`run_metadata` gathers the tool version, prior, draws, seed, interval
probability, reference value and labels of an :class:`~f1posterior.Evaluation`;
:class:`~f1posterior.io.RowWriter` and
:class:`~f1posterior.io.ParquetRowWriter` write it (a ``# f1posterior:
{JSON}`` comment line in CSV/TSV, a ``{"meta": ...}`` first line in NDJSON, keys
beside ``rows`` in JSON, the schema metadata key ``f1posterior`` in Parquet) and
:func:`read_metadata` reads it back.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # pragma: no cover
    from ..posterior import Evaluation

__all__ = ["META_PREFIX", "HashQuoting", "run_metadata", "read_metadata"]

#: Start of the metadata comment line of CSV and TSV outputs.
META_PREFIX = "# f1posterior: "


def run_metadata(ev: Evaluation, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a batch output records about its run: version, prior, draws, seed, ``ci_prob``.

    Read from ``ev`` (an :class:`~f1posterior.Evaluation` of the run's first
    chunk); ``extra`` (the source, ...) is added, and wins on a clash.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> meta = run_metadata(evaluate([[8, 2], [1, 9]], draws=1000, rng=7))
    >>> meta["draws"], meta["seed"], meta["ci_prob"], sorted(meta)[:3]
    (1000, 7, 0.95, ['ci_prob', 'draws', 'labels'])
    """
    from .._core.version import __version__

    seed = ev.seed.to_json() if hasattr(ev.seed, "to_json") else ev.seed
    meta: dict[str, Any] = {
        "version": __version__,
        "prior": ev.prior,
        "draws": int(ev.draws),
        "seed": seed,
        "ci_prob": float(ev.ci_prob),
        "ref": ev.ref,
        "labels": None if ev.labels is None else [str(x) for x in ev.labels],
    }
    if getattr(ev, "prevalence", None) is not None:
        meta["prevalence"] = ev.prevalence.to_json()  # type: ignore[union-attr]
    if getattr(ev, "chance", False):
        meta["chance"] = True
    meta.update(extra or {})
    return meta


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The metadata a row output recorded (see the module's docstring), or None.

    Reads the leading comment of a CSV/TSV file, the first line of an NDJSON
    file, the header of a JSON file or the schema metadata of a Parquet file.

    Examples
    --------
    >>> import os, tempfile
    >>> from f1posterior import evaluate
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> from f1posterior.io._writers import RowWriter
    >>> with open(path, "w", newline="") as fh:
    ...     w = RowWriter(fh, "csv")
    ...     w.write(evaluate([[[8, 2], [1, 9]]], draws=1000, rng=0), ["a"])
    ...     w.close()
    >>> read_metadata(path)["draws"]
    1000
    """
    p = Path(path)
    if p.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        raw = (pq.read_schema(p).metadata or {}).get(b"f1posterior")
        return None if raw is None else dict(json.loads(raw))
    with p.open(encoding="utf-8") as fh:
        first = fh.readline()
        if first.startswith(META_PREFIX):
            return dict(json.loads(first[len(META_PREFIX) :]))
        if first.startswith('{"meta": '):
            return dict(json.loads(first)["meta"])
        if first.startswith("{"):
            head = json.loads(first + fh.read())
            return {k: v for k, v in head.items() if k != "rows"}
    return None


class HashQuoting:
    """A CSV writer that quotes every cell of a row holding a ``#``.

    ``pandas.read_csv(comment="#")`` (the way to skip the metadata line) cuts an
    unquoted cell at ``#``; a quoted one is read whole.
    """

    def __init__(self, fh: TextIO, delimiter: str) -> None:
        self.plain = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
        self.quoted = csv.writer(
            fh, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_ALL
        )

    def writerow(self, row: list[str]) -> None:
        self.writerows([row])

    def writerows(self, rows: list[list[str]]) -> None:
        for r in rows:
            (self.quoted if any("#" in c for c in r) else self.plain).writerow(r)
