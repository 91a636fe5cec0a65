"""The metadata of row outputs: what a result records about its run.

:func:`row_metadata` gathers the tool version, prior, draws, seed, interval
probability, reference value and labels of a run (for an
:class:`~f1posterior.Evaluation`, :func:`f1posterior.posterior.run_metadata`);
:class:`~f1posterior.io.RowWriter` and
:class:`~f1posterior.io.ParquetRowWriter` write it (a ``# f1posterior:
{JSON}`` comment line in CSV/TSV, a ``{"meta": ...}`` first line in NDJSON, keys
beside ``rows`` in JSON, the schema metadata key ``f1posterior`` in Parquet) and
:func:`read_metadata` reads it back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from .._core.streams import seed_json
from ._receipt import Receipt

__all__ = ["META_PREFIX", "HashQuoting", "row_metadata", "read_metadata"]

#: Start of the metadata comment line of CSV and TSV outputs.
META_PREFIX = "# f1posterior: "


def row_metadata(
    *,
    prior: str,
    draws: int,
    seed: Any,
    ci_prob: float,
    ref: float | None = None,
    labels: Sequence[Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return what a row output records about its run: version, prior, draws, seed, ...

    Parameters
    ----------
    prior : str
        Statement of the prior.
    draws : int
        Posterior draws.
    seed : Any
        The run's seed, written in its JSON form.
    ci_prob : float
        Probability of the intervals.
    ref : float, optional
        The reference value.
    labels : sequence, optional
        Class labels (written as strings).
    extra : dict, optional
        Added last (the source, ...), and wins on a clash; the command line gives
        its ``receipt`` here (with the SHA-256 of its inputs).

    Returns
    -------
    dict
        ``version``, ``prior``, ``draws``, ``seed``, ``ci_prob``, ``ref``,
        ``labels``, ``receipt`` (:class:`~f1posterior.io.Receipt`, of a Python
        run without inputs unless ``extra`` holds one), then ``extra``.

    See Also
    --------
    read_metadata : Read it back from an output.
    f1posterior.posterior.run_metadata : The metadata of an evaluation.

    Examples
    --------
    >>> meta = row_metadata(prior="uniform", draws=1000, seed=7, ci_prob=0.95)
    >>> meta["draws"], meta["seed"], meta["ci_prob"], sorted(meta)[:3]
    (1000, 7, 0.95, ['ci_prob', 'draws', 'labels'])
    """
    from .._core.version import __version__

    meta: dict[str, Any] = {
        "version": __version__,
        "prior": prior,
        "draws": int(draws),
        "seed": seed_json(seed),
        "ci_prob": float(ci_prob),
        "ref": ref,
        "labels": None if labels is None else [str(x) for x in labels],
    }
    receipt = Receipt("python", prior=prior, draws=int(draws), seed=seed, ci_prob=ci_prob)
    meta["receipt"] = receipt.to_dict()
    meta.update(extra or {})
    return meta


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The metadata a row output recorded, or None.

    Reads the leading comment of a CSV/TSV file, the first line of an NDJSON
    file, the header of a JSON file or the schema metadata of a Parquet file.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by ``f1posterior summarize`` or a
        :class:`~f1posterior.io.RowWriter`.

    Returns
    -------
    dict or None
        The tool version, prior, draws, seed, interval probability, reference
        value, labels and source of the run; None when the file has none.

    See Also
    --------
    f1posterior.io.RowWriter : Writes the metadata before the rows.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> from f1posterior.io._writers import RowWriter
    >>> with open(path, "w", newline="") as fh:
    ...     w = RowWriter(fh, "csv", meta={"draws": 1000})
    ...     w.write(["name", "score"], [["a", 0.5]])
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
        import csv  # here: reading and gating never load it

        self.plain = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
        self.quoted = csv.writer(
            fh, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_ALL
        )

    def writerow(self, row: list[str]) -> None:
        self.writerows([row])

    def writerows(self, rows: list[list[str]]) -> None:
        for r in rows:
            (self.quoted if any("#" in c for c in r) else self.plain).writerow(r)
