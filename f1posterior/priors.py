"""Dirichlet priors of the Zhang et al. model, and their named presets.

The model has two priors: ``beta`` over the class prevalences ``mu`` (M
entries) and ``alpha`` over each true class's row of prediction rates
``theta_j`` (M x M entries). Presets:

``"uniform"``
    alpha = 1, beta = 1. The paper's default: flat on every simplex.
``"jeffreys"``
    alpha = 0.5, beta = 0.5. Jeffreys' prior for each multinomial; pulls
    small tables less towards the centre than the uniform prior.
``"perks"``
    alpha = 1/M, beta = 1/M (Perks' prior): a total prior mass of one
    pseudo-document per row and one on the prevalences, whatever M. The
    uniform prior adds M pseudo-documents to every row, which pulls every
    recall towards 1/M; with many classes that bias can exceed the posterior
    spread (see docs/frequentist.md for its measured effect on coverage).
``"aligned"`` (``beta`` only; as a full prior: alpha = 1, beta = "aligned")
    beta_j = sum_k alpha_jk. The model then collapses to one Dirichlet over
    the M^2 cells, p ~ Dir(alpha + C), and micro-F1, per-class F1, precision
    and recall have closed-form Beta posteriors (DESIGN.md, "Exact oracles").
    With alpha = 1 it puts prior mass M on each class's prevalence instead of
    1, so on small tables it pulls prevalences towards balance more strongly
    than the paper's default.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .validation import describe

__all__ = ["PRIOR_PRESETS", "prior_preset", "resolve_prior", "describe_prior"]

_ALPHA_PRESETS = {"uniform": 1.0, "jeffreys": 0.5}
_BETA_PRESETS = {"uniform": 1.0, "jeffreys": 0.5}

#: Named (alpha, beta) pairs accepted by ``prior_preset`` and the command line.
PRIOR_PRESETS: dict[str, tuple[float | str, float | str]] = {
    "uniform": (1.0, 1.0),
    "jeffreys": (0.5, 0.5),
    "perks": ("perks", "perks"),
    "aligned": (1.0, "aligned"),
}

PriorArg = float | str | np.ndarray


def prior_preset(name: str) -> tuple[float | str, float | str]:
    """Return the ``(alpha, beta)`` pair of a named prior preset.

    Examples
    --------
    >>> prior_preset("jeffreys")
    (0.5, 0.5)
    """
    if name not in PRIOR_PRESETS:
        raise ValueError(
            f"prior must be one of {', '.join(map(repr, PRIOR_PRESETS))}; got {describe(name)}"
        )
    return PRIOR_PRESETS[name]


def _numeric_prior(value: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a positive number, array or preset name; got {value!r}")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a positive number, array or preset name; got {describe(value)}"
        ) from None
    try:
        arr = np.broadcast_to(arr, np.broadcast_shapes(arr.shape, shape))
    except ValueError:
        raise ValueError(
            f"{name} must broadcast against shape {shape}; got shape {arr.shape}"
        ) from None
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(
            f"{name} must be finite and > 0 everywhere; got minimum {float(np.min(arr))!r}"
        )
    return arr


def resolve_prior(
    alpha: PriorArg, beta: PriorArg, counts_shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast ``alpha`` to ``counts_shape`` and ``beta`` to ``counts_shape[:-1]``.

    ``alpha`` accepts a positive scalar, an array broadcasting against
    ``(M, M)`` or the full counts shape, or ``"uniform"``/``"jeffreys"``/``"perks"``.
    ``beta`` accepts a positive scalar, an array broadcasting against ``(M,)``
    (or ``(*batch, M)``), ``"uniform"``/``"jeffreys"``/``"perks"``, or
    ``"aligned"`` (``beta_j = sum_k alpha_jk``).
    """
    m = counts_shape[-1]
    if isinstance(alpha, str):
        if alpha not in _ALPHA_PRESETS and alpha != "perks":
            raise ValueError(
                f"alpha must be a positive number, an array or one of "
                f"{', '.join(map(repr, [*_ALPHA_PRESETS, 'perks']))}; got {alpha!r}"
            )
        alpha = 1.0 / m if alpha == "perks" else _ALPHA_PRESETS[alpha]
    a = _numeric_prior(alpha, "alpha", counts_shape)
    if isinstance(beta, str):
        if beta == "aligned":
            return a, a.sum(axis=-1)
        if beta not in _BETA_PRESETS and beta != "perks":
            raise ValueError(
                f"beta must be a positive number, an array or one of "
                f"{', '.join(map(repr, [*_BETA_PRESETS, 'perks', 'aligned']))}; got {beta!r}"
            )
        beta = 1.0 / m if beta == "perks" else _BETA_PRESETS[beta]
    b = _numeric_prior(beta, "beta", counts_shape[:-1])
    return a, b


def describe_prior(alpha: Any, beta: Any) -> str:
    """Human-readable statement of the prior used, for reports.

    Examples
    --------
    >>> describe_prior(1.0, 1.0)
    'alpha=1 (uniform), beta=1 (uniform)'
    >>> describe_prior("perks", "perks")
    'alpha=1/M (perks), beta=1/M (perks)'
    >>> describe_prior(1.0, "aligned")
    'alpha=1 (uniform), beta=aligned (row sums of alpha: one Dirichlet over the cells)'
    """

    def one(v: Any, presets: dict[str, float]) -> str:
        if isinstance(v, str):
            if v == "aligned":
                return "aligned (row sums of alpha: one Dirichlet over the cells)"
            if v == "perks":
                return "1/M (perks)"
            return f"{presets[v]:g} ({v})"
        if isinstance(v, numbers.Real):
            names = [k for k, x in presets.items() if x == v]
            return f"{float(v):g}" + (f" ({names[0]})" if names else "")
        return "array"

    return f"alpha={one(alpha, _ALPHA_PRESETS)}, beta={one(beta, _BETA_PRESETS)}"
