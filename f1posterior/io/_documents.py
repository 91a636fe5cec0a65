"""Reading per-document relevance and score files (`read_documents`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._core.results import value_equality
from .._core.validation import check_indicator, check_scores
from ._sources import known_suffix, load_json, regular_file

DOCUMENT_SUFFIXES = (".json", ".npz")


#: Keys of a documents file (``labels`` is accepted in JSON and ignored).
DOCUMENT_KEYS = ("y_true", "y_pred", "scores")


@value_equality
@dataclass(frozen=True, eq=False)
class DocumentInput:
    """Per-document multi-label data read from a file.

    Attributes
    ----------
    y_true : ndarray of bool, shape (D, L)
        True label indicators.
    y_pred : ndarray of bool, shape (D, L), or None
        Predicted label indicators.
    scores : ndarray of float, shape (D, L), or None
        Finite label scores (higher = more likely).
    source : str
        The path read.
    """

    y_true: np.ndarray
    y_pred: np.ndarray | None
    scores: np.ndarray | None
    source: str


def _load_npz(p: Path) -> dict[str, Any]:
    """The arrays of an ``.npz`` archive, never unpickling anything."""
    try:
        with p.open("rb") as fh:
            archive = np.load(fh, allow_pickle=False)
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise ValueError(f"{p}: expected a .npz archive of arrays; got a single .npy array")
            with archive:
                return {k: archive[k] for k in archive.files}
    except FileNotFoundError:
        raise ValueError(f"{p}: no such file") from None
    except ValueError as exc:
        if str(exc).startswith(f"{p}: "):
            raise
        raise ValueError(f"{p}: not a .npz archive of numeric arrays ({exc})") from None
    except Exception as exc:  # zipfile.BadZipFile, EOFError, OSError from a damaged file
        raise ValueError(
            f"{p}: not a readable .npz archive ({type(exc).__name__}: {exc})"
        ) from None


def read_documents(path: str | Path) -> DocumentInput:
    """Read per-document multi-label data for document-level metrics.

    ``.json``
        An object ``{"y_true": [[0, 1, ...], ...], "y_pred": [[...], ...],
        "scores": [[...], ...]}``: ``(D, L)`` 0/1 indicator matrices and a
        ``(D, L)`` matrix of finite scores; ``y_true`` and at least one of
        ``y_pred`` and ``scores`` are required, a ``"labels"`` entry is
        ignored, any other key is an error (a misspelt key is never skipped).
    ``.npz``
        Arrays with the same names (``numpy.savez``), loaded with
        ``allow_pickle=False``; other arrays are an error.

    Returns
    -------
    DocumentInput
        Validated ``y_true``, ``y_pred`` and ``scores`` of one shape ``(D, L)``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "docs.json").write_text('{"y_true": [[1, 0], [1, 1]], "y_pred": [[1, 1], [0, 1]]}')
    >>> doc = read_documents(d / "docs.json")
    >>> doc.y_true.shape, doc.y_pred.sum(), doc.scores is None
    ((2, 2), np.int64(3), True)
    """
    p = Path(path)
    suffix = known_suffix(
        p, DOCUMENT_SUFFIXES, "documents file type", " or ".join(DOCUMENT_SUFFIXES)
    )
    regular_file(p)
    quoted = ", ".join(f'"{k}"' for k in DOCUMENT_KEYS)
    if suffix == ".npz":
        obj: Any = _load_npz(p)
        extra = sorted(set(obj) - set(DOCUMENT_KEYS))
    else:
        obj = load_json(p, f"a JSON object with {quoted}")
        if not isinstance(obj, dict):
            raise ValueError(
                f"{p}: expected a JSON object with {quoted}; got a JSON {type(obj).__name__}"
            )
        extra = sorted(set(obj) - {*DOCUMENT_KEYS, "labels"})
    if extra:
        raise ValueError(f"{p}: unknown entries {extra}; expected {quoted}")
    if "y_true" not in obj:
        raise ValueError(f'{p}: "y_true" (the true label indicators) is missing')
    if obj.get("y_pred") is None and obj.get("scores") is None:
        raise ValueError(
            f'{p}: give "y_pred" (predicted labels), "scores" (a score matrix), or both'
        )
    try:
        t = check_indicator(obj["y_true"], '"y_true"')
        pred = None
        if obj.get("y_pred") is not None:
            pred = check_indicator(obj["y_pred"], '"y_pred"')
            if pred.shape != t.shape:
                raise ValueError(
                    f'"y_pred" must have the shape of "y_true", {t.shape} (D documents, L labels); '
                    f"got shape {pred.shape}"
                )
        scores = None
        if obj.get("scores") is not None:
            scores = check_scores(obj["scores"], '"scores"', shape=t.shape, like='"y_true"')
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{p}: {exc}") from None
    return DocumentInput(y_true=t, y_pred=pred, scores=scores, source=str(p))
