"""One confusion matrix's cells, shared by the whole-file readers (:mod:`._readers`) and the
batch streams (:mod:`._streaming`): the JSON form of a matrix, cell checks with a location,
and the classes' labels."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.validation import check_counts
from ._sources import label_list

__all__ = ["matrix_from_json", "check_cells", "apply_labels"]


def matrix_from_json(
    obj: Any, where: str, validate: bool = True
) -> tuple[np.ndarray, list[str] | None]:
    """Counts and labels of one JSON matrix; ``validate=False`` leaves the count checks
    (finite, non-negative, whole, a document) to the caller, who checks a whole batch at
    once (:mod:`f1posterior.io._streaming`)."""
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
        counts = check_counts(obj) if validate else np.array(obj, dtype=np.float64)
        if not validate and counts.shape[-1] < 2:
            check_counts(counts)  # the one-class message
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    if labels is not None and len(labels) != counts.shape[-1]:
        raise ValueError(
            f"{where}: {len(labels)} labels for a {counts.shape[-1]} x {counts.shape[-1]} matrix"
        )
    return counts, labels


def check_cells(values: np.ndarray, where: str, locate: Any) -> np.ndarray:
    """Cell-level checks with a location ``locate(index) -> str``; then :func:`check_counts`."""
    checks = (
        (~np.isfinite(values), "must be a finite count"),
        (values < 0, "must be a non-negative count"),
    )
    for bad, what in checks:
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"{where}, {locate(idx)}: {what}; got {values[idx]:g}")
    frac = values != np.round(values)
    if frac.any():
        idx = tuple(int(i) for i in np.argwhere(frac)[0])
        hint = ""
        total = values.sum(axis=(-2, -1))
        if np.allclose(values.sum(axis=-1), 1.0) or np.allclose(total, 1.0):
            hint = (
                " (the matrix looks normalised: its rows or total sum to 1; pass the raw "
                "document counts, not proportions)"
            )
        raise ValueError(
            f"{where}, {locate(idx)}: must be a whole-number count; got {values[idx]:g}{hint}"
        )
    try:
        return check_counts(values)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def apply_labels(
    counts: np.ndarray, file_labels: list[str] | None, labels: Any, where: str
) -> tuple[np.ndarray, list[str] | None]:
    """Name the classes of an unlabelled matrix, or reorder/extend a labelled one."""
    if file_labels is not None:
        seen: set[str] = set()
        for x in file_labels:
            if x in seen:
                raise ValueError(
                    f"{where}: the file's labels repeat {x!r} ({file_labels}); each class "
                    "must have one row and one column"
                )
            seen.add(x)
    wanted = label_list(labels)
    if wanted is None:
        return counts, file_labels
    m = counts.shape[-1]
    if file_labels is None:
        if len(wanted) != m:
            raise ValueError(
                f"{where}: {len(wanted)} labels given for a {m} x {m} matrix without labels; "
                f"got {wanted}"
            )
        return counts, wanted
    unknown = [x for x in file_labels if x not in wanted]
    if unknown:
        raise ValueError(
            f"{where}: the file's label(s) {unknown} are not among the given labels {wanted}"
        )
    pos = np.array([wanted.index(x) for x in file_labels])
    out = np.zeros((*counts.shape[:-2], len(wanted), len(wanted)))
    out[..., pos[:, None], pos[None, :]] = counts
    return out, wanted
