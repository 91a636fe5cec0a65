"""Priors of the Zhang et al. model: the one resolver, and the named presets.

Every entry point resolves its prior here: :func:`resolve` (Dirichlet concentrations, plus
the hierarchical prior's mixture) and :func:`resolve_prior` (concentrations alone).

Design notes: docs/design.md#core-priors
"""

from __future__ import annotations

import functools
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .describe import describe

if TYPE_CHECKING:
    from .hierarchical import RecallMixture

__all__ = [
    "ResolvedPrior",
    "resolve",
    "POOLED_FROM",
    "PRIOR_PRESETS",
    "PRIOR_HELP",
    "DEFAULT_PRIOR",
    "prior_preset",
    "resolve_prior",
    "describe_prior",
    "jeffreys_rows",
    "adaptive_alpha",
]

#: The preset every entry point uses when no prior is given.
DEFAULT_PRIOR = "hierarchical"

#: The hierarchical prior pools the recalls from this many classes on (Jeffreys rows below).
POOLED_FROM = 4

#: The adaptive prior centres recalls on the pooled accuracy from this many classes on.
CENTRED_FROM = 4

#: Named (alpha, beta) pairs accepted by ``prior_preset`` and ``--prior``.
PRIOR_PRESETS: dict[str, tuple[float | str, float | str]] = {
    "hierarchical": ("hierarchical", "hierarchical"),
    "adaptive": ("adaptive", "adaptive"),
    "paper": ("paper", "paper"),
    "uniform": (1.0, 1.0),
    "jeffreys": (0.5, 0.5),
    "perks": ("perks", "perks"),
    "aligned": (1.0, "aligned"),
}

#: One line per preset, for ``--help`` and reports.
PRIOR_HELP: dict[str, str] = {
    "hierarchical": "default: Jeffreys-tailed recall prior whose centre is integrated over a "
    "grid (hierarchical, exact mixture); beta = 1/M (docs/calibration.md)",
    "adaptive": "the previous default: Jeffreys-tailed recall prior centred on the pooled "
    "accuracy from M = 4 on (empirical Bayes); beta = 1/M",
    "paper": "alpha = beta = 1, the paper's prior: reproduces Table 1, under-covers for M >= 5",
    "uniform": "alpha = beta = 1 (the same numbers as paper)",
    "jeffreys": "alpha = beta = 0.5",
    "perks": "alpha = beta = 1/M: one pseudo-document per row",
    "aligned": "alpha = 1, beta_j = sum_k alpha_jk: one Dirichlet over the cells, exact "
    "closed forms",
}

_FIXED = {"paper": 1.0, "uniform": 1.0, "jeffreys": 0.5}
_ALPHA_NAMES = ("hierarchical", "adaptive", "paper", "uniform", "jeffreys", "perks")
_BETA_NAMES = (*_ALPHA_NAMES, "aligned")

PriorArg = float | str | np.ndarray


def prior_preset(name: str) -> tuple[float | str, float | str]:
    """Return the ``(alpha, beta)`` pair of a named prior preset.

    Parameters
    ----------
    name : str
        A key of :data:`f1posterior.PRIOR_PRESETS`.

    Returns
    -------
    tuple
        ``(alpha, beta)``, to pass as ``alpha=`` and ``beta=``.

    See Also
    --------
    f1posterior.PRIOR_PRESETS : The preset names.
    f1posterior.prior_sensitivity : How much the answer depends on the prior.

    Examples
    --------
    >>> prior_preset("jeffreys")
    (0.5, 0.5)
    >>> prior_preset("hierarchical")
    ('hierarchical', 'hierarchical')
    """
    if not isinstance(name, str) or name not in PRIOR_PRESETS:
        raise ValueError(
            f"prior must be one of {', '.join(map(repr, PRIOR_PRESETS))}; got {describe(name)}"
        )
    return PRIOR_PRESETS[name]


def adaptive_alpha(counts: np.ndarray) -> np.ndarray:
    """The ``"adaptive"`` row prior of each table, shape ``(..., M, M)``.

    Parameters
    ----------
    counts : ndarray, shape (..., M, M)
        Validated confusion matrices (rows = true class).

    Returns
    -------
    ndarray, shape (..., M, M)
        ``alpha``: ``alpha_jj = a_j``, ``alpha_jk = b_j / (M - 1)`` for
        ``k != j`` (``a_j`` and ``b_j``: docs/design.md#core-priors).

    Examples
    --------
    >>> adaptive_alpha(np.array([[90.0, 10.0], [20.0, 80.0]]))  # M = 2: Jeffreys rows
    array([[0.5, 0.5],
           [0.5, 0.5]])
    >>> c = np.diag([40.0, 30.0, 20.0, 10.0]) + 1.0  # pooled accuracy 104.5 / 117 (M = 4)
    >>> adaptive_alpha(c)[0].round(3)                # Beta(4.18, 0.5), errors spread
    array([4.18 , 0.167, 0.167, 0.167])
    """
    c = np.asarray(counts, dtype=np.float64)
    m = c.shape[-1]
    if m < CENTRED_FROM:
        return np.broadcast_to(jeffreys_rows(m), c.shape).copy()
    n = c.sum(axis=-1)
    r = (np.trace(c, axis1=-2, axis2=-1) + 0.5) / (n.sum(axis=-1) + 1.0)
    high = r >= 0.5
    a = np.where(high, 0.5 * r / np.where(high, 1.0 - r, 1.0), 0.5)[..., None]
    b = np.where(high, 0.5, 0.5 * (1.0 - r) / np.where(high, 1.0, r))[..., None]
    cap = np.maximum(0.5, n / 2.0)
    a, b = np.minimum(a, cap), np.minimum(b, cap)
    out = np.repeat((b / (m - 1))[..., None], m, axis=-1)
    idx = np.arange(m)
    out[..., idx, idx] = a
    return out


def _numeric_prior(value: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    allowed = "a positive real number, an array of them or a preset name"
    if isinstance(value, bool | np.bool_) or (
        isinstance(value, np.ndarray) and value.dtype.kind in "bc"
    ):
        raise TypeError(f"{name} must be {allowed}; got {describe(value)}")
    if isinstance(value, complex | np.complexfloating):
        raise TypeError(f"{name} must be {allowed}; got {describe(value)}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {allowed}; got {describe(value)}") from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be {allowed}; got {describe(value)}")
    arr = arr.astype(np.float64)
    try:
        arr = np.broadcast_to(arr, shape)
    except ValueError:
        raise ValueError(
            f"{name} must broadcast to shape {shape} (it may not add batch axes); got shape "
            f"{arr.shape}"
        ) from None
    from .limits import check_concentrations  # normal floats, at most 1e300

    return check_concentrations(arr, name, "be finite, > 0 and at most 1e300 everywhere")


def resolve_prior(
    alpha: PriorArg, beta: PriorArg, counts: np.ndarray | tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Resolve ``alpha`` to ``counts.shape`` and ``beta`` to ``counts.shape[:-1]``.

    Parameters
    ----------
    alpha : float, array_like or str
        A positive number, an array broadcasting against ``(M, M)`` or the
        full counts shape, or a preset name (``"hierarchical"``, ``"adaptive"``,
        ``"paper"``, ``"uniform"``, ``"jeffreys"``, ``"perks"``). The
        hierarchical prior is a mixture, not one Dirichlet: this function
        gives its plug-in form, the ``"adaptive"`` rows (the centre fixed at
        the pooled accuracy), for the models that need Dirichlet
        concentrations (the paired model); :func:`resolve` gives the mixture.
    beta : float, array_like or str
        A positive number, an array broadcasting against ``(M,)`` or
        ``(*batch, M)``, a preset name, or ``"aligned"`` (``beta_j = sum_k
        alpha_jk``).
    counts : ndarray, shape (*batch, M, M), or a shape tuple
        Validated counts. A bare shape is enough for every prior but
        ``"adaptive"`` and ``"hierarchical"``, which depend on the counts.

    Returns
    -------
    alpha : ndarray, shape (*batch, M, M)
    beta : ndarray, shape (*batch, M)

    Examples
    --------
    >>> a, b = resolve_prior("perks", "perks", np.zeros((4, 4)))
    >>> float(a[0, 0]), b.shape
    (0.25, (4,))
    """
    if isinstance(alpha, str) and alpha == "hierarchical":
        alpha = "adaptive"  # its one-Dirichlet (plug-in) form, see the docstring
    res = resolve(alpha, beta, counts)
    return res.alpha, res.beta


@dataclass(frozen=True)
class ResolvedPrior:
    """A resolved prior: Dirichlet concentrations, and the hierarchical mixture if any.

    Attributes
    ----------
    alpha : ndarray, shape (*batch, M, M)
        Row concentrations. Under the hierarchical prior, those of its "own"
        component (``alpha_jj = 1/2``, ``alpha_jk = 1 / (2 (M - 1))``): a draw of the
        pooled component adds to the diagonal cell (:mod:`f1posterior._core.hierarchical`).
    beta : ndarray, shape (*batch, M)
        Prevalence concentrations.
    mixture : RecallMixture or None
        What the hierarchical prior's posterior mixture needs of each table; None
        for a Dirichlet prior (and for the hierarchical prior below ``POOLED_FROM``
        classes, where it is Jeffreys rows).
    """

    alpha: np.ndarray
    beta: np.ndarray
    mixture: RecallMixture | None = None


def resolve(alpha: PriorArg, beta: PriorArg, counts: np.ndarray | tuple[int, ...]) -> ResolvedPrior:
    """Resolve any prior, the hierarchical one included (see :func:`resolve_prior`).

    Examples
    --------
    >>> r = resolve("hierarchical", "hierarchical", np.diag([40.0, 30.0, 20.0, 10.0]))
    >>> r.alpha[0].round(3).tolist(), r.beta.tolist(), r.mixture is not None
    ([0.5, 0.167, 0.167, 0.167], [0.25, 0.25, 0.25, 0.25], True)
    >>> resolve("hierarchical", "hierarchical", np.eye(3)).mixture is None  # M < POOLED_FROM
    True
    >>> resolve("perks", "perks", (2, 2)).mixture is None
    True
    """
    shape = tuple(counts) if isinstance(counts, tuple) else np.shape(counts)
    m = shape[-1]
    if (
        isinstance(alpha, str | float | int)  # a bool is refused, uncached, by _resolve
        and isinstance(beta, str | float | int)
        and not (
            alpha == "adaptive"
            or alpha == "hierarchical"
            and (m >= POOLED_FROM or beta == "aligned")
        )
    ):  # a prior that the counts do not change: resolved once per shape
        return _resolve_shape(alpha, beta, shape)
    return _resolve(alpha, beta, counts, shape)


@functools.lru_cache(maxsize=64, typed=True)
def _resolve_shape(alpha: PriorArg, beta: PriorArg, shape: tuple[int, ...]) -> ResolvedPrior:
    """:func:`resolve` of a prior that does not depend on the counts (read-only arrays)."""
    out = _resolve(alpha, beta, shape, shape)
    out.beta.flags.writeable = False
    return out


def _resolve(
    alpha: PriorArg, beta: PriorArg, counts: np.ndarray | tuple[int, ...], shape: tuple[int, ...]
) -> ResolvedPrior:
    m = shape[-1]
    mixture = None
    if isinstance(alpha, str):
        _check_preset_name(alpha, "alpha", _ALPHA_NAMES)
        if alpha == "hierarchical" and isinstance(beta, str) and beta == "aligned":
            alpha = "adaptive"  # its one-Dirichlet form: the centre plugged in (module doc)
        if alpha == "hierarchical":
            if m >= POOLED_FROM:
                if isinstance(counts, tuple):
                    raise ValueError("alpha='hierarchical' needs the counts, not only their shape")
                from .hierarchical import RecallMixture  # here: not loaded below POOLED_FROM

                mixture = RecallMixture.of(counts)
            alpha = jeffreys_rows(m)
        elif alpha == "adaptive":
            if isinstance(counts, tuple):
                raise ValueError("alpha='adaptive' needs the counts, not only their shape")
            alpha = adaptive_alpha(counts)
        else:
            alpha = 1.0 / m if alpha == "perks" else _FIXED[alpha]
    a = _numeric_prior(alpha, "alpha", shape)
    if isinstance(beta, str):
        _check_preset_name(beta, "beta", _BETA_NAMES)
        if beta == "aligned":
            return ResolvedPrior(a, a.sum(axis=-1))
        beta = 1.0 / m if beta in ("perks", "adaptive", "hierarchical") else _FIXED[beta]
    b = _numeric_prior(beta, "beta", shape[:-1])
    return ResolvedPrior(a, b, mixture)


def jeffreys_rows(m: int) -> np.ndarray:
    """Rows with ``Beta(1/2, 1/2)`` recalls and an even error split, ``(M, M)``.

    Examples
    --------
    >>> jeffreys_rows(3)[0].tolist()
    [0.5, 0.25, 0.25]
    """
    out = np.full((m, m), 0.5 / max(1, m - 1))
    np.fill_diagonal(out, 0.5)
    return out


def _check_preset_name(value: str, name: str, names: tuple[str, ...]) -> None:
    if value not in names:
        raise ValueError(
            f"{name} must be a positive number, an array or one of "
            f"{', '.join(map(repr, names))}; got {value!r}"
        )


def describe_prior(alpha: Any, beta: Any) -> str:
    """Human-readable statement of the prior used, for reports.

    Examples
    --------
    >>> describe_prior(1.0, 1.0)
    'alpha=1 (uniform), beta=1 (uniform)'
    >>> describe_prior("perks", "perks")
    'alpha=1/M (perks), beta=1/M (perks)'
    >>> describe_prior("paper", "paper")
    'alpha=1 (paper), beta=1 (paper)'
    >>> describe_prior("hierarchical", "hierarchical")[:12]
    'hierarchical'
    >>> describe_prior("hierarchical", "aligned")[:43]
    'alpha=adaptive (the hierarchical prior with'
    >>> describe_prior(1.0, "aligned")
    'alpha=1 (uniform), beta=aligned (row sums of alpha: one Dirichlet over the cells)'
    """
    numbers_named = {"uniform": 1.0, "jeffreys": 0.5}

    def one(v: Any) -> str:
        if isinstance(v, str):
            if v == "aligned":
                return "aligned (row sums of alpha: one Dirichlet over the cells)"
            if v == "perks":
                return "1/M (perks)"
            if v == "adaptive":
                return "adaptive (see f1posterior.prior_preset)"
            if v == "hierarchical":
                if beta == "aligned":
                    return "adaptive (the hierarchical prior with its centre plugged in)"
                return "hierarchical (see f1posterior.prior_preset)"
            return f"{_FIXED[v]:g} ({v})" if v in _FIXED else repr(v)
        if isinstance(v, numbers.Real) and not isinstance(v, bool):
            names = [k for k, x in numbers_named.items() if x == v]
            return f"{float(v):g}" + (f" ({names[0]})" if names else "")
        return "array"

    if isinstance(alpha, str) and alpha == beta == "adaptive":
        return "adaptive (Jeffreys-tailed recall prior centred on the pooled accuracy; beta = 1/M)"
    if isinstance(alpha, str) and alpha == beta == "hierarchical":
        return (
            "hierarchical (Jeffreys-tailed recall prior, its centre integrated over a grid; "
            "beta = 1/M)"
        )
    return f"alpha={one(alpha)}, beta={one(beta)}"
