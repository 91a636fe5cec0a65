"""Input validation: one place where every public argument is checked.

Each ``check_*`` function takes what a user passed and returns a normalised
value, or raises ``TypeError``/``ValueError`` whose message names the argument,
says what is allowed and echoes what was received. Nothing is silently
coerced: a float table of non-integers is an error, not a rounding.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from .describe import as_numeric_array, describe
from .labelled import labelled_counts
from .limits import (
    MAX_EXACT_TOTAL,
    MIN_SUMMARY_DRAWS,
    check_exact_totals,
)

__all__ = [
    "as_counts",
    "labelled_counts",
    "check_counts",
    "check_batch_names",
    "check_draws",
    "check_min_support",
    "check_summary_draws",
    "check_prob",
    "check_ref",
    "check_dtype",
    "check_rng",
    "SeedLike",
    "check_sampling_args",
    "SamplingArgs",
    "check_choice",
    "check_labels",
    "check_zero_division",
    "check_table",
    "check_scores",
    "check_metric_names",
    "did_you_mean",
    "check_positive",
    "check_indicator",
    "check_nonnegative",
    "check_flag",
    "check_workers",
    "check_max_memory",
    "check_index_offset",
    "MIN_SUMMARY_DRAWS",
    "describe",
]


def as_counts(
    counts: Any, labels: Sequence[Any] | None = None, name: str = "counts"
) -> tuple[np.ndarray, Sequence[Any] | None]:
    """Validated counts and their class labels: :func:`labelled_counts`, then :func:`check_counts`.

    Every public function that takes counts reads them through this (or
    through :func:`check_counts`, which aligns a labelled table the same way
    but drops its labels).

    Examples
    --------
    >>> from f1posterior import confusion_matrix
    >>> c, lab = as_counts(confusion_matrix(["b", "a", "a"], ["b", "a", "b"]), labels=["b", "a"])
    >>> c.tolist(), lab
    ([[1.0, 0.0], [1.0, 1.0]], ['b', 'a'])
    """
    table, lab = labelled_counts(counts, labels, name)
    return _checked_counts(table, name), lab


def check_batch_names(names: Any, batch: tuple[int, ...], name: str = "names") -> list[str] | None:
    """Optional distinct string names, one per matrix of a 1-D batch of shape ``batch``."""
    if names is None:
        return None
    if len(batch) != 1:
        raise ValueError(
            f"{name} must name the matrices of a 1-D batch (counts of shape (B, M, M)); got "
            f"counts of batch shape {batch}"
        )
    if isinstance(names, (str, bytes)) or not hasattr(names, "__len__"):
        raise TypeError(f"{name} must be a sequence of strings; got {describe(names)}")
    out = list(names)
    if len(out) != batch[0]:
        raise ValueError(f"{name} must give one name per matrix ({batch[0]}); got {len(out)} names")
    bad = [v for v in out if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must be strings; got {describe(bad[0])}")
    seen: set[str] = set()
    for v in out:
        if v in seen:
            raise ValueError(f"{name} must be unique; got {v!r} twice")
        seen.add(v)
    return out


def check_counts(counts: Any, name: str = "counts") -> np.ndarray:
    """Validate confusion-matrix counts of shape ``(*batch, M, M)``.

    Returns a float64 copy. Rejects non-square, non-numeric, negative,
    non-finite and non-integer entries, and any matrix whose total is zero.
    Labelled tables (a pandas DataFrame, a
    :class:`~f1posterior._core.confusion.ConfusionMatrix`, or a list of them) are
    aligned first by :func:`labelled_counts`; use :func:`as_counts` to keep
    their labels.
    """
    counts, _ = labelled_counts(counts, None, name)
    return _checked_counts(counts, name)


def _checked_counts(counts: Any, name: str) -> np.ndarray:
    """:func:`check_counts` of an unlabelled table (already through :func:`labelled_counts`)."""
    arr = as_numeric_array(counts, name)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] < 2:
        raise ValueError(
            f"{name} must be square confusion matrices of shape (*batch, M, M) with M >= 2 "
            f"classes (rows = true class, columns = predicted class); got shape {arr.shape}"
        )
    if 0 in arr.shape:
        raise ValueError(f"{name} must not be empty; got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=True)
    if not np.isfinite(arr).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite; got {arr[bad]} at index {bad}")
    if (arr < 0).any():
        bad = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} must be non-negative counts; got {arr[bad]:g} at index {bad}")
    if (arr != np.round(arr)).any():
        bad = tuple(int(i) for i in np.argwhere(arr != np.round(arr))[0])
        rows = arr.sum(axis=-1)
        hint = ""
        if np.allclose(rows, 1.0) or np.isclose(arr.sum(axis=(-2, -1)), 1.0).all():
            hint = (
                " (the table looks normalised: its rows or total sum to 1; pass the "
                "raw document counts, not proportions)"
            )
        raise ValueError(
            f"{name} must be whole-number document counts; got {arr[bad]:g} at index {bad}{hint}"
        )
    with np.errstate(over="ignore"):  # an infinite total is refused just below
        totals = arr.sum(axis=(-2, -1))
    if not (totals <= MAX_EXACT_TOTAL // 2).all():  # rare: summed again exactly
        check_exact_totals(arr, totals, name)
    if (totals == 0).any():
        first = tuple(int(i) for i in np.argwhere(totals == 0)[0])
        where = f" at batch index {first}" if first else ""
        raise ValueError(
            f"{name} must count at least one document per matrix; got an all-zero table{where}"
        )
    return arr


def _integer(value: Any, name: str, low: int, allowed: str = "") -> int:
    """An integer (not a bool) >= ``low``; ``allowed`` words the messages' "must be ..."."""
    allowed = allowed or f"an integer >= {low}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}; got {describe(value)}")
    if value < low:
        raise ValueError(f"{name} must be {allowed}; got {value}")
    return int(value)


def check_draws(draws: Any, name: str = "draws") -> int:
    """A positive whole number of posterior draws."""
    return _integer(draws, name, 1)


def check_min_support(value: Any, name: str = "min_support") -> int | None:
    """``None`` or a whole number of documents >= 1 (a floor's or a slice's support)."""
    return (
        None if value is None else _integer(value, name, 1, "None or an integer >= 1 (documents)")
    )


def check_summary_draws(draws: Any, name: str = "draws") -> int:
    """Posterior draws to summarise: at least :data:`MIN_SUMMARY_DRAWS`."""
    n = check_draws(draws, name)
    if n < MIN_SUMMARY_DRAWS:
        raise ValueError(
            f"{name} must be at least {MIN_SUMMARY_DRAWS} (a summary's standard deviation and "
            f"Monte Carlo error are estimated from the draws); got {n}"
        )
    return n


def check_prob(prob: Any, name: str) -> float:
    """A probability strictly between 0 and 1."""
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real):
        raise TypeError(
            f"{name} must be a number in the open interval (0, 1); got {describe(prob)}"
        )
    if not 0.0 < float(prob) < 1.0:
        raise ValueError(f"{name} must be in the open interval (0, 1); got {prob!r}")
    return float(prob)


def check_ref(ref: Any, name: str = "ref") -> float | None:
    """An optional finite reference value (None means no reference)."""
    if ref is None:
        return None
    if isinstance(ref, bool) or not isinstance(ref, numbers.Real):
        raise TypeError(f"{name} must be a finite number or None; got {describe(ref)}")
    if not np.isfinite(float(ref)):
        raise ValueError(f"{name} must be a finite number or None; got {ref!r}")
    return float(ref)


def check_dtype(dtype: Any, name: str = "dtype") -> np.dtype:
    """float64 or float32."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(
            f"{name} must be numpy.float64 or numpy.float32; got {describe(dtype)}"
        ) from None
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"{name} must be numpy.float64 or numpy.float32; got {dt}")
    return dt


#: What ``rng`` accepts (:func:`check_rng`): None, a non-negative int seed, a SeedSequence
#: (never consumed) or a Generator (advanced: four words drawn from it seed the run).
SeedLike: TypeAlias = int | np.integer[Any] | np.random.SeedSequence | np.random.Generator | None


def check_rng(rng: Any, name: str = "rng") -> np.random.SeedSequence:
    """Turn ``rng`` into the root :class:`numpy.random.SeedSequence` of a computation.

    ``None``, an int or a SeedSequence goes through :func:`numpy.random.default_rng`
    and its seed sequence is used. A Generator is advanced: four 63-bit words
    drawn from it seed the root, so repeated calls with one Generator differ,
    as with any consumer of a Generator.
    """
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, size=4).tolist())
    if isinstance(rng, bool) or not (
        rng is None or isinstance(rng, (numbers.Integral, np.random.SeedSequence))
    ):
        raise TypeError(
            f"{name} must be None, an int, a numpy.random.SeedSequence or a "
            f"numpy.random.Generator; got {describe(rng)}"
        )
    if isinstance(rng, numbers.Integral) and rng < 0:
        raise ValueError(f"{name} must be a non-negative integer seed; got {rng}")
    # what default_rng(rng).bit_generator.seed_seq is, without making the generator
    if isinstance(rng, np.random.SeedSequence):
        return rng
    return np.random.SeedSequence(None if rng is None else int(rng))


@dataclass(frozen=True)
class SamplingArgs:
    """Checked ``draws``, ``ci_prob``, ``ref``, root seed (``root``) and ``dtype``."""

    draws: int
    ci_prob: float
    ref: float | None
    root: np.random.SeedSequence
    dtype: np.dtype

    def as_keywords(self) -> dict[str, Any]:
        """``draws``, ``ci_prob``, ``ref``, ``rng`` (the root) and ``dtype``, to pass on."""
        return {"draws": self.draws, "ci_prob": self.ci_prob, "ref": self.ref,
                "rng": self.root, "dtype": self.dtype}  # fmt: skip


def check_sampling_args(
    draws: Any, ci_prob: Any, ref: Any, rng: Any, dtype: Any = np.float64
) -> SamplingArgs:
    """Check ``draws``, ``ci_prob``, ``ref``, ``dtype`` then ``rng`` (last: a Generator
    is not advanced when another of them is refused).

    Examples
    --------
    >>> a = check_sampling_args(1000, 0.9, None, 7)
    >>> a.draws, a.ci_prob, a.ref, a.dtype
    (1000, 0.9, None, dtype('float64'))
    """
    n = check_summary_draws(draws)
    prob = check_prob(ci_prob, "ci_prob")
    r = check_ref(ref)
    dt = check_dtype(dtype)
    return SamplingArgs(draws=n, ci_prob=prob, ref=r, root=check_rng(rng), dtype=dt)


def check_choice(value: Any, name: str, allowed: Sequence[Any]) -> Any:
    """One of a fixed set of options."""
    if value not in allowed or isinstance(value, bool) and True not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name} must be one of {shown}; got {describe(value)}")
    return value


def check_labels(labels: Any, m: int, name: str = "labels") -> np.ndarray | None:
    """Optional sequence of distinct class indices in ``[0, m)``."""
    if labels is None:
        return None
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(
            f"{name} must be a non-empty 1-D sequence of class indices (integers in "
            f"[0, {m})); got {describe(labels)}"
        )
    if arr.min() < 0 or arr.max() >= m:
        raise ValueError(f"{name} must be class indices in [0, {m}); got {arr.tolist()}")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must not repeat a class; got {arr.tolist()}")
    return arr.astype(np.intp)


def check_zero_division(value: Any, name: str = "zero_division") -> float | str:
    """scikit-learn's ``zero_division``: "warn", 0, 1 or nan."""
    if isinstance(value, str):
        if value != "warn":
            raise ValueError(f'{name} must be "warn", 0, 1 or numpy.nan; got {value!r}')
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if np.isnan(float(value)) or value in (0, 1):
            return float(value)
    raise ValueError(f'{name} must be "warn", 0, 1 or numpy.nan; got {describe(value)}')


def check_table(table: Any, name: str = "table") -> np.ndarray:
    """A table of non-negative finite numbers of shape ``(..., M, M)``.

    Counts or probabilities: unlike :func:`check_counts`, whole numbers are
    not required, and all-zero tables are allowed (their scores follow
    ``zero_division``).
    """
    arr = as_numeric_array(table, name)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] < 1:
        raise ValueError(
            f"{name} must have shape (..., M, M) with M >= 1 (rows = true class, "
            f"columns = predicted class); got shape {arr.shape}"
        )
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got a NaN or infinite entry")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative; got minimum {arr.min():g}")
    return arr


def check_positive(value: Any, name: str) -> float:
    """A finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number > 0; got {describe(value)}")
    if not (np.isfinite(float(value)) and float(value) > 0):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return float(value)


def _array(value: Any, name: str, what: str | tuple[str, str], held: str, kinds: str) -> np.ndarray:
    """``value`` as an array of a dtype kind in ``kinds``; refuses a string, ragged input
    and other dtypes. ``what`` is what an array of it holds (or a pair: for a string, and
    for ragged input); ``held`` says which dtypes it may hold them as."""
    whole, rows = (what, what) if isinstance(what, str) else what
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be an array of {whole}; got {describe(value)}")
    try:
        arr = np.asarray(value)
    except ValueError:
        raise ValueError(
            f"{name} must be a rectangular array of {rows}; got ragged input"
        ) from None
    if arr.dtype.kind not in kinds:
        raise TypeError(f"{name} must hold {held}; got dtype {arr.dtype} ({describe(value)})")
    return arr


def check_indicator(
    y: Any, name: str, shape: tuple[int, ...] | None = None, like: str = ""
) -> np.ndarray:
    """0/1 indicators as bool: a ``(D, L)`` matrix (documents x labels), or exactly ``shape``.

    Accepts booleans, integers, and floats equal to 0 or 1; rejects any other
    value (including NaN), other shapes and empty matrices. ``like`` names the
    argument whose shape ``shape`` is (for the message).
    """
    arr = _array(y, name, "0/1 indicators", "0/1 indicators as bools, integers or floats", "biuf")
    if shape is not None:
        if arr.shape != shape:
            raise ValueError(
                f"{name} must have the same shape as {like}, {shape}; got shape {arr.shape}"
            )
    elif arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(
            f"{name} must be a non-empty 0/1 indicator matrix of shape (D documents, L labels); "
            f"got shape {arr.shape}"
        )
    if arr.dtype.kind == "b":
        return arr
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} must hold only 0 and 1; got {arr[idx].item()!r} at index {idx}")
    return arr == 1


def check_nonnegative(value: Any, name: str) -> float:
    """A finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number >= 0; got {describe(value)}")
    if not (np.isfinite(float(value)) and float(value) >= 0):
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    return float(value)


def check_flag(value: Any, name: str) -> bool:
    """A true/false switch (Python or numpy bool, not 0/1 or a string)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {describe(value)}")
    return bool(value)


def check_class_names(labels: Any, m: int, name: str = "labels") -> list[Any] | None:
    """Optional display labels of the ``m`` classes: a sequence (not a string) of length ``m``."""
    if labels is None:
        return None
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        raise TypeError(
            f"{name} must be a sequence of {m} class labels (a list, not a string); got "
            f"{describe(labels)}"
        )
    out = list(labels)
    if len(out) != m:
        raise ValueError(
            f"{name} must give one label per class ({m}, one per row of counts); got "
            f"{len(out)}: {describe(out)}"
        )
    return out


@functools.cache
def _cpu_count() -> int:
    """``os.cpu_count()`` (at least 1), asked once: it reads the system's files each time."""
    import os

    return os.cpu_count() or 1


def check_workers(workers: Any, name: str = "workers") -> int:
    """Number of threads: None (every core, ``os.cpu_count()``) or an integer >= 1."""
    if workers is None:
        return _cpu_count()
    return _integer(workers, name, 1, "None or an integer >= 1")


#: Default byte budget of the batch engine's working arrays (256 MiB).
DEFAULT_MAX_MEMORY = 256 << 20
#: Smallest accepted budget (1 MiB): below it chunks would be a few draws each.
MIN_MAX_MEMORY = 1 << 20


def check_max_memory(max_memory: Any, name: str = "max_memory") -> int:
    """Byte budget of working arrays: None (``DEFAULT_MAX_MEMORY``) or an integer >= 1 MiB."""
    if max_memory is None:
        return DEFAULT_MAX_MEMORY
    if isinstance(max_memory, bool) or not isinstance(max_memory, numbers.Integral):
        raise TypeError(
            f"{name} must be None or a number of bytes (an integer >= {MIN_MAX_MEMORY}); "
            f"got {describe(max_memory)}"
        )
    if max_memory < MIN_MAX_MEMORY:
        raise ValueError(
            f"{name} must be None or a number of bytes >= {MIN_MAX_MEMORY} (1 MiB); "
            f"got {max_memory}"
        )
    return int(max_memory)


def check_index_offset(index_offset: Any, name: str = "index_offset") -> int:
    """Flat batch index of a first matrix: an integer >= 0."""
    return _integer(index_offset, name, 0)


def did_you_mean(given: Any, allowed: Sequence[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest names of ``allowed``, or ``""``.

    Examples
    --------
    >>> did_you_mean("macro-f1", ["micro_f1", "macro_f1", "accuracy"])
    " (did you mean 'macro_f1' or 'micro_f1'?)"
    >>> did_you_mean("zzz", ["micro_f1"]), did_you_mean(3, ["micro_f1"])
    ('', '')
    """
    import difflib

    if not isinstance(given, str):
        return ""
    close = difflib.get_close_matches(given, list(allowed), n=2)
    if not close:
        close = [a for a in allowed if a.lower() == given.lower().replace("-", "_")][:1]
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def check_metric_names(metrics: Any, allowed: Sequence[str], name: str = "metrics") -> list[str]:
    """A metric name or a non-empty sequence of distinct names from ``allowed``."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    try:
        names = list(metrics)
    except TypeError:
        raise TypeError(
            f"{name} must be a metric name or a sequence of names; got {describe(metrics)}"
        ) from None
    if not names:
        raise ValueError(f"{name} must name at least one metric; got an empty sequence")
    for n in names:
        if not isinstance(n, str) or n not in allowed:
            raise ValueError(
                f"{name} must be names from {', '.join(allowed)}; got {describe(n)}"
                + did_you_mean(n, allowed)
            )
    if len(set(names)) != len(names):
        raise ValueError(f"{name} must not repeat a name; got {names}")
    return names


def check_scores(
    scores: Any, name: str = "scores", shape: tuple[int, ...] | None = None, like: str = ""
) -> np.ndarray:
    """Finite real scores as float64: shape ``(n,)`` or ``(D, L)``, or exactly ``shape``.

    ``like`` names the argument whose shape ``shape`` is (for the message).
    """
    arr = _array(scores, name, ("real numbers", "numbers"), "integers or floats", "iuf")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have the shape of {like}, {shape}; got shape {arr.shape}")
    if arr.ndim not in (1, 2) or 0 in arr.shape:
        raise ValueError(
            f"{name} must be a non-empty array of shape (n,) or (D documents, L labels); "
            f"got shape {arr.shape}"
        )
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite (no NaN or inf); got {arr[idx]} at index {idx}")
    return arr
