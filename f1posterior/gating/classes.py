"""Per-class and per-label checks of a gate: ``min_support`` and ``joint`` floors.

A per-class floor (single-label ``f1``, ``precision``, ``recall``; per-label
metrics of a multi-label gate) is one check per class. Two refinements live
here, used by :func:`f1posterior.gating.gate.gate`:

``min_support=K``
    A class with fewer than ``K`` true documents (a label with fewer than
    ``K`` positive documents) is not judged: its check is **skipped**
    (verdict ``"skipped"``, with the reason), and the overall verdict ignores
    it. Without ``min_support`` every class is judged, and a class with no
    true documents gets a floor it usually cannot pass (its recall is
    unconstrained by the data).
``joint=True``
    The per-class floors of a metric become one check, P(every class >= T |
    data), estimated from the joint posterior draws: the fraction of draws
    in which the smallest per-class value clears the floor. It is the floor of
    the minimum over the (judged) classes, so the observed score and the HDI
    are those of that minimum. Always sampled (Monte Carlo error, adaptive
    draws like any other sampled check).
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any

import numpy as np

from .._core.describe import describe
from ..posterior.summary import hdi as sample_hdi

__all__ = ["check_min_support", "check_joint", "support_of", "with_support", "joint_checks"]


def check_min_support(min_support: Any) -> int | None:
    """``min_support``: None or an integer >= 1 (a bool is refused)."""
    if min_support is None:
        return None
    if isinstance(min_support, bool) or not isinstance(min_support, numbers.Integral):
        raise TypeError(
            f"min_support must be None or an integer >= 1 (documents); got {describe(min_support)}"
        )
    if min_support < 1:
        raise ValueError(
            f"min_support must be None or an integer >= 1 (documents); got {min_support}"
        )
    return int(min_support)


def check_joint(joint: Any) -> bool:
    """``joint``: True or False (nothing else is read as a truth value)."""
    if not isinstance(joint, (bool, np.bool_)):
        raise TypeError(f"joint must be True or False; got {describe(joint)}")
    return bool(joint)


def check_per_class_option(
    option: str, mins: list[tuple[str, float]], per_class: Any, unit: str
) -> None:
    """Refuse ``min_support``/``joint`` when no floor is per-class (it would do nothing)."""
    if not any(name in per_class for name, _ in mins):
        floors = [name for name, _ in mins]
        raise ValueError(
            f"{option} applies to per-{unit} floors ({', '.join(sorted(per_class))}); the "
            f"floors given are {floors or 'none'}"
        )


def support_of(counts: np.ndarray, multilabel: bool) -> np.ndarray:
    """True documents per class ``(*batch, M)``, or positive documents per label ``(*batch, L)``."""
    if multilabel:
        return np.asarray(counts[..., 1, :].sum(axis=-1))
    return np.asarray(counts.sum(axis=-1))


def _docs(unit: str) -> str:
    return "positive documents" if unit == "label" else "true documents"


def with_support(check: Any, support: int, min_support: int | None, unit: str) -> Any:
    """``check`` carrying its class's support; skipped when below ``min_support``."""
    check = dataclasses.replace(check, support=support)
    if min_support is None or support >= min_support:
        return check
    return skip(check, f"{support} {_docs(unit)} < min_support {min_support}")


def skip(check: Any, reason: str) -> Any:
    """``check`` with verdict "skipped": not judged, ignored by the overall verdict."""
    return dataclasses.replace(
        check, verdict="skipped", within_noise=False, draws_to_settle=None, reason=reason
    )


def joint_checks(
    make: Any,
    name: str,
    t: float,
    draws_arr: np.ndarray,
    scores: np.ndarray,
    support: np.ndarray,
    min_support: int | None,
    names: Any,
    unit: str,
    required: float,
    ci_prob: float,
    draws: int,
) -> list[Any]:
    """One joint check per matrix: P(every judged class >= t) from draws ``(*batch, K, n)``.

    ``make`` is :func:`f1posterior.gating.checks._make_check`. Classes below
    ``min_support`` are left out of the condition; when every class is below
    it, the check is computed on all classes and skipped.
    """
    batch = draws_arr.shape[:-2]
    scores = np.broadcast_to(np.asarray(scores, dtype=float), draws_arr.shape[:-1])
    support = np.broadcast_to(support, draws_arr.shape[:-1])
    out = []
    for bidx in np.ndindex(*batch):
        k = draws_arr.shape[-2]
        keep = np.ones(k, bool) if min_support is None else support[bidx] >= min_support
        judged = int(keep.sum())
        use = keep if judged else np.ones(k, bool)
        low = draws_arr[bidx][use].min(axis=0)
        pr = float(np.mean(low >= t))
        what = f"every {unit}"
        if judged and judged < k:
            what += f" with >= {min_support} {_docs(unit)} ({judged} of {k})"
        prefix = ""
        if bidx:
            prefix = (str(names[bidx[0]]) if names is not None else ",".join(map(str, bidx))) + " "
        check = make(
            "min",
            name,
            prefix + what,
            t,
            pr,
            required,
            float(scores[bidx][use].min()),
            sample_hdi(low, ci_prob),
            ci_prob,
            False,
            draws,
            "",
        )
        if not judged:
            check = skip(check, f"every {unit} has fewer than {min_support} {_docs(unit)}")
        out.append(check)
    return out


def plan_hint(check: Any, source: str | None, baseline_source: str | None = None) -> str:
    """The ``f1posterior plan`` command that says how many more documents would settle ``check``.

    File names are only spelled out when they are plain (letters, digits,
    ``._-/``), so the hint is safe to paste into a shell and to show in
    Markdown; otherwise they are ``FILE`` and ``BASEFILE``.
    """
    import re

    def plain(path: str | None, default: str) -> str:
        return path if path and re.fullmatch(r"[\w./-]+", path) else default

    cmd = f"f1posterior plan {plain(source, 'FILE')} --metric {check.metric}"
    if check.kind == "baseline":
        cmd += (
            f" --baseline {plain(baseline_source, 'BASEFILE')} --max-drop {abs(check.threshold):g}"
        )
    else:
        cmd += f" --min {check.threshold:g}"
    return f"run `{cmd}` to see how many more documents would settle it"
