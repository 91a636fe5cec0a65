"""Reading confusion matrices from files for the command line.

Every reader returns validated counts and labels, or raises ``ValueError``
naming the file and what was expected. Readers never execute or unpickle
anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .validation import check_counts

__all__ = ["MatrixInput", "read_matrix"]


@dataclass(frozen=True)
class MatrixInput:
    """Counts read from a file.

    Attributes
    ----------
    counts : ndarray, shape (*batch, M, M)
        Validated whole-number counts (float64).
    labels : list of str or None
        Class labels, when the file names them.
    names : list of str or None
        Names of the matrices of a batch, when the file names them.
    source : str
        Where the counts came from (a path, or a description).
    """

    counts: np.ndarray
    labels: list[str] | None
    names: list[str] | None
    source: str


def _load_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror})") from None
    if not text.strip():
        raise ValueError(f"{path}: the file is empty; expected a JSON confusion matrix")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path}: broken JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})"
        ) from None


def _matrix_from_json(obj: Any, where: str) -> tuple[np.ndarray, list[str] | None]:
    labels = None
    if isinstance(obj, dict):
        if "matrix" not in obj:
            raise ValueError(
                f'{where}: a JSON object must have a "matrix" key (and optionally "labels"); '
                f"got keys {sorted(obj)}"
            )
        raw_labels = obj.get("labels")
        obj = obj["matrix"]
        if raw_labels is not None:
            if not isinstance(raw_labels, list):
                raise ValueError(
                    f'{where}: "labels" must be a list; got {type(raw_labels).__name__}'
                )
            labels = [str(x) for x in raw_labels]
    if not isinstance(obj, list) or not obj or not all(isinstance(r, list) for r in obj):
        raise ValueError(f"{where}: expected a confusion matrix as a nested list of rows")
    widths = {len(r) for r in obj}
    if len(widths) != 1:
        bad = next(i for i, r in enumerate(obj) if len(r) != len(obj[0]))
        raise ValueError(
            f"{where}: ragged rows: row 0 has {len(obj[0])} entries but row {bad} "
            f"has {len(obj[bad])}"
        )
    for i, row in enumerate(obj):
        for j, x in enumerate(row):
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise ValueError(f"{where}: cell [{i}][{j}] must be a number; got {x!r}")
    try:
        counts = check_counts(obj)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    if labels is not None and len(labels) != counts.shape[-1]:
        raise ValueError(
            f"{where}: {len(labels)} labels for a {counts.shape[-1]} x {counts.shape[-1]} matrix"
        )
    return counts, labels


def read_matrix(path: str | Path) -> MatrixInput:
    """Read one confusion matrix from a JSON file.

    The file holds a nested list of rows, or ``{"matrix": [[...]], "labels": [...]}``.
    Rows are true classes, columns predicted classes.
    """
    p = Path(path)
    counts, labels = _matrix_from_json(_load_json(p), str(p))
    return MatrixInput(counts=counts, labels=labels, names=None, source=str(p))
