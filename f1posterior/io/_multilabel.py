"""Reading multi-label tables or indicator matrices (`read_multilabel`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._core.validation import check_counts
from ._sources import (  # the same private readers as .readers imports, hence alike
    MatrixInput,
    is_stdin,
    known_suffix,
    label_list,
    load_json,
    parse_npy,
    read_bytes,
    regular_file,
    source_name,
    stdin_bytes,
)

#: File suffixes :func:`read_multilabel` reads.
MULTILABEL_SUFFIXES = (".json", ".npy")


def read_multilabel(path: str | Path, *, labels: Sequence[Any] | None = None) -> MatrixInput:
    """Read multi-label input: per-label 2 x 2 tables, or indicator-matrix predictions.

    ``.npy``
        A stack ``(L, 2, 2)`` or a batch ``(B, L, 2, 2)`` of per-label tables
        ``[[tn, fp], [fn, tp]]`` (``allow_pickle=False``, always).
    ``.json``
        A list of ``L`` tables; or ``{"tables": [...], "labels": [...]}``; or
        predictions ``{"y_true": [[0, 1, ...], ...], "y_pred": [[...], ...],
        "labels": [...]}`` (``(D, L)`` 0/1 indicator matrices), counted with
        :func:`f1posterior.metrics.multilabel_confusion_matrix`.

    A ``(L, 2, 2)`` stack looks like a batch of binary tables, so multi-label
    input is only read when asked for (``--multilabel`` on the command line).

    Returns
    -------
    MatrixInput
        ``counts`` of shape ``(L, 2, 2)`` or ``(B, L, 2, 2)``; ``labels``
        names the L labels when the file or ``labels`` does.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.json").write_text('{"y_true": [[1, 0], [1, 1]], "y_pred": [[1, 1], [0, 1]]}')
    >>> read_multilabel(d / "p.json", labels=["a", "b"]).counts.tolist()
    [[[0.0, 0.0], [1.0, 1.0]], [[0.0, 1.0], [0.0, 1.0]]]
    """
    from ..metrics import multilabel_confusion_matrix

    p = Path(path)
    suffix = p.suffix.lower()
    if is_stdin(p):  # standard input: .npy by its magic bytes, else JSON
        suffix = ".npy" if stdin_bytes().startswith(b"\x93NUMPY") else ".json"
    else:
        expected = " or ".join(MULTILABEL_SUFFIXES)
        suffix = known_suffix(p, MULTILABEL_SUFFIXES, "multi-label file type", expected)
        regular_file(p)
    file_labels: list[str] | None = None
    where = source_name(p)
    if suffix == ".npy":
        raw: Any = parse_npy(read_bytes(p), where)
    else:
        obj = load_json(p)
        if isinstance(obj, dict) and ("y_true" in obj or "y_pred" in obj):
            if "y_true" not in obj or "y_pred" not in obj:
                raise ValueError(f'{where}: predictions need both "y_true" and "y_pred"')
            try:
                raw = multilabel_confusion_matrix(obj["y_true"], obj["y_pred"])
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{where}: {exc}") from None
        elif isinstance(obj, dict):
            if "tables" not in obj:
                raise ValueError(
                    f'{where}: a JSON object must have "tables" or "y_true" and "y_pred"; got keys '
                    f"{sorted(obj)}"
                )
            raw = obj["tables"]
        else:
            raw = obj
        if isinstance(obj, dict) and obj.get("labels") is not None:
            file_labels = label_list(obj["labels"])
    arr = np.asarray(raw) if not isinstance(raw, np.ndarray) else raw
    if arr.dtype == object or arr.ndim not in (3, 4) or arr.shape[-2:] != (2, 2):
        raise ValueError(
            f"{where}: expected per-label 2 x 2 tables of shape (L, 2, 2) or (B, L, 2, 2); got "
            f"{'shape ' + str(arr.shape) if arr.dtype != object else 'ragged input'}"
        )
    try:
        counts = check_counts(arr, "tables")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    wanted = label_list(labels) if labels is not None else file_labels
    n_labels = counts.shape[-3]
    if wanted is not None and len(wanted) != n_labels:
        raise ValueError(f"{where}: {len(wanted)} labels given for {n_labels} per-label tables")
    names = [str(i) for i in range(counts.shape[0])] if counts.ndim == 4 else None
    return MatrixInput(counts=counts, labels=wanted, names=names, source=where)
