"""Saved baselines: a model's confusion counts kept from one gate run for the next.

``f1posterior gate FILE --save-baseline SAVED`` writes FILE's counts (labels, batch
names, tool and format versions); ``--baseline SAVED`` reads them back, refusing
hostile or foreign files in one line naming the file.

Design notes: docs/design.md#io-baseline
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._core.describe import describe
from .._core.limits import MAX_BASELINE_BYTES
from .._core.validation import check_counts
from ._sources import MatrixInput, file_errors, is_stdin, regular_file

__all__ = [
    "BASELINE_FORMAT",
    "BASELINE_FORMAT_VERSION",
    "MAX_BASELINE_BYTES",
    "baseline_json",
    "is_saved_baseline",
    "read_saved_baseline",
    "save_baseline",
]

#: The ``format`` of a saved baseline file.
BASELINE_FORMAT = "f1posterior-baseline"
#: The version of the layout this f1posterior writes and reads.
BASELINE_FORMAT_VERSION = 1
#: The kinds of counts: a single-label confusion matrix (or batch), per-label tables.
_KINDS = {"confusion": (2, 3), "multilabel": (3, 4)}
_KEYS = ("format", "format_version", "tool", "tool_version", "kind", "counts", "labels")
_OPTIONAL = ("names", "source", "prior")


def baseline_json(data: MatrixInput, *, multilabel: bool = False, prior: str | None = None) -> str:
    """The saved-baseline JSON text of ``data`` (counts of a single-label or multi-label gate).

    Parameters
    ----------
    data : MatrixInput
        The counts read from the model's file: ``(*batch, M, M)``, or per-label
        tables ``(*batch, L, 2, 2)`` with ``multilabel``.
    multilabel : bool, default False
    prior : str, optional
        The prior of the run that saved it (a record: a later gate uses its own).

    Returns
    -------
    str
        One JSON object: ``format``, ``format_version``, ``tool``,
        ``tool_version``, ``kind``, ``counts`` (whole numbers), ``labels``,
        ``names``, ``source``, ``prior``.
    """
    from .._core.version import __version__

    counts = np.asarray(data.counts)
    doc = {
        "format": BASELINE_FORMAT,
        "format_version": BASELINE_FORMAT_VERSION,
        "tool": "f1posterior",
        "tool_version": __version__,
        "kind": "multilabel" if multilabel else "confusion",
        "counts": counts.astype(np.int64).tolist(),
        "labels": None if data.labels is None else [str(x) for x in data.labels],
        "names": None if data.names is None else [str(x) for x in data.names],
        "source": data.source,
        "prior": prior,
    }
    return json.dumps(doc, ensure_ascii=False, allow_nan=False) + "\n"


def save_baseline(
    path: str | Path,
    data: MatrixInput,
    *,
    multilabel: bool = False,
    prior: str | None = None,
    flag: str = "--save-baseline",
) -> Path:
    """Write :func:`baseline_json` of ``data`` to ``path`` (atomically); the path written."""
    from ._writers import write_output  # here: a gate that reads a saved file writes none

    return write_output(path, baseline_json(data, multilabel=multilabel, prior=prior), flag)


def _load(path: Path, where: str) -> Any:
    """The JSON value of a file of at most MAX_BASELINE_BYTES: standard JSON, no repeated key."""
    with file_errors(path), path.open("rb") as fh:
        raw = fh.read(MAX_BASELINE_BYTES + 1)
    if len(raw) > MAX_BASELINE_BYTES:
        raise ValueError(f"{where}: larger than {MAX_BASELINE_BYTES:,} bytes; not a saved baseline")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text; expected a saved baseline (JSON)") from None

    def constant(name: str) -> Any:
        raise ValueError(f"{where}: {name} is not a number in standard JSON")

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in pairs:
            if k in out:
                raise ValueError(f"{where}: the key {k!r} appears twice in one object")
            out[k] = v
        return out

    try:
        return json.loads(text, parse_constant=constant, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{where}: broken JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})"
        ) from None
    except RecursionError:
        raise ValueError(f"{where}: nested too deeply; not a saved baseline") from None


def is_saved_baseline(path: str | Path) -> bool:
    """True when ``path`` is a ``.json`` file holding an object whose first key is ``format``.

    As :func:`save_baseline` writes it; such a file is read (and checked) by
    :func:`read_saved_baseline`, any other file (standard input included) by the
    matrix readers. Only the file's first bytes are read here.
    """
    p = Path(path)
    if is_stdin(path) or p.suffix.lower() != ".json" or not p.is_file():
        return False
    try:
        with p.open("rb") as fh:
            head = fh.read(256)
    except OSError:
        return False  # the matrix reader says why
    return re.match(rb'(\xef\xbb\xbf)?\s*\{\s*"format"\s*:', head) is not None


def _numbers(obj: Any, depth: int, where: str, at: str = "counts") -> None:
    """``obj`` is a nested list ``depth`` deep of JSON numbers (never strings or booleans)."""
    if depth == 0:
        if isinstance(obj, bool) or not isinstance(obj, (int, float)):
            raise ValueError(f"{where}: {at} must be a number; got {describe(obj)}")
        return
    if not isinstance(obj, list) or not obj:
        raise ValueError(f"{where}: {at} must be a non-empty list; got {describe(obj)}")
    for i, x in enumerate(obj):
        _numbers(x, depth - 1, where, f"{at}[{i}]")


def _texts(obj: Any, n: int, key: str, what: str, where: str) -> list[str] | None:
    if obj is None:
        return None
    if not isinstance(obj, list) or not all(isinstance(x, str) for x in obj):
        raise ValueError(f"{where}: {key} must be a list of strings or null; got {describe(obj)}")
    if len(obj) != n or len(set(obj)) != n:
        raise ValueError(
            f"{where}: {key} must name each of the {n} {what} once; got {len(obj)} names"
            + (" with repeats" if len(set(obj)) != len(obj) else "")
        )
    return list(obj)


def _check_header(obj: Any, where: str, multilabel: bool) -> str:
    """The ``kind`` of a saved baseline, after its format, version and keys are checked."""
    if not isinstance(obj, dict) or obj.get("format") != BASELINE_FORMAT:
        got = obj.get("format") if isinstance(obj, dict) else obj
        raise ValueError(
            f"{where}: not a saved baseline (expected format {BASELINE_FORMAT!r}, as written by "
            f"f1posterior gate --save-baseline); got {describe(got)}"
        )
    version = obj.get("format_version")
    if version != BASELINE_FORMAT_VERSION or isinstance(version, bool):
        newer = isinstance(version, int) and not isinstance(version, bool) and version > 1
        why = (
            f"written by a newer f1posterior ({describe(obj.get('tool_version'))}); upgrade "
            "f1posterior or save the baseline again with this one"
            if newer
            else "save the baseline again with this f1posterior"
        )
        raise ValueError(
            f"{where}: saved-baseline format_version must be {BASELINE_FORMAT_VERSION}; got "
            f"{describe(version)}: {why}"
        )
    missing = [k for k in _KEYS if k not in obj]
    unknown = [k for k in obj if k not in _KEYS + _OPTIONAL]
    if missing or unknown:
        what = f"missing key {missing[0]!r}" if missing else f"unknown key {unknown[0]!r}"
        raise ValueError(
            f"{where}: {what} in a format-{BASELINE_FORMAT_VERSION} saved baseline (keys: "
            f"{', '.join(_KEYS + _OPTIONAL)})"
        )
    kind = obj["kind"]
    if kind not in _KINDS:
        raise ValueError(f"{where}: kind must be one of {', '.join(_KINDS)}; got {describe(kind)}")
    if (kind == "multilabel") != multilabel:
        fix = "add --multilabel" if kind == "multilabel" else "leave out --multilabel"
        raise ValueError(
            f"{where}: saved from a {'multi-label' if kind == 'multilabel' else 'single-label'} "
            f"gate; {fix}, or save a baseline of the other kind"
        )
    return str(kind)


def read_saved_baseline(
    path: str | Path, *, multilabel: bool = False, labels: Sequence[Any] | None = None
) -> MatrixInput:
    """Read a baseline saved by ``f1posterior gate --save-baseline``.

    Parameters
    ----------
    path : str or Path
    multilabel : bool, default False
        The gate reading it is multi-label: the file must hold per-label tables.
    labels : sequence, optional
        The class (label) order the gate asked for (``--labels``): the saved
        labels must be exactly these (the saved file is not re-ordered).

    Returns
    -------
    MatrixInput
        The saved counts, labels and batch names; ``source`` is ``path``.

    Raises
    ------
    ValueError
        One line naming the file: not a saved baseline, another format
        version, a wrong kind for the gate, malformed or hostile content.
    """
    p = Path(path)
    where = str(path)
    regular_file(p)
    obj = _load(p, where)
    kind = _check_header(obj, where, multilabel)
    low, high = _KINDS[kind]
    depth = _depth(obj["counts"])
    if not low <= depth <= high:
        raise ValueError(
            f"{where}: counts must be nested {low} or {high} deep ({kind}); got {depth}"
        )
    _numbers(obj["counts"], depth, where)
    try:
        counts = check_counts(obj["counts"], "counts")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    if kind == "multilabel" and counts.shape[-2:] != (2, 2):
        raise ValueError(f"{where}: counts must be per-label 2 x 2 tables; got {counts.shape}")
    n = counts.shape[-3] if kind == "multilabel" else counts.shape[-1]
    unit = "labels" if kind == "multilabel" else "classes"
    saved = _texts(obj["labels"], n, "labels", unit, where)
    batch = counts.shape[0] if depth == high else 0
    names = _texts(obj.get("names"), batch, "names", "matrices", where) if batch else None
    if labels is not None:
        wanted = [str(x) for x in labels]
        if saved is not None and saved != wanted:
            raise ValueError(
                f"{where}: saved labels {saved} differ from --labels {wanted}; the saved "
                "baseline keeps its order"
            )
        saved = _texts(wanted, n, "--labels", unit, where)
    return MatrixInput(counts=counts, labels=saved, names=names, source=where)


def _depth(obj: Any) -> int:
    """How deep the first elements of a nested list go (at most 5: deeper is refused)."""
    depth = 0
    while isinstance(obj, list) and obj and depth <= 5:
        obj, depth = obj[0], depth + 1
    return depth
