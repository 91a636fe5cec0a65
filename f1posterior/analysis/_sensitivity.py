"""Prior sensitivity: the same metric's posterior under several named priors.

A prior is flagged where it moves an HDI endpoint by more than ``threshold`` (a tenth by
default) of the reference HDI's width.

Design notes: docs/design.md#analysis-sensitivity
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.priors import PRIOR_PRESETS, describe_prior, prior_preset
from .._core.results import plain, plain_fields, value_equality
from .._core.streams import DEFAULT_DRAWS
from .._core.validation import SeedLike, check_counts, check_draws, check_prob, check_rng
from ..metrics import resolve_metric
from ..posterior import MetricSummary, evaluate

__all__ = ["prior_sensitivity", "PriorSensitivity", "DEFAULT_THRESHOLD", "DEFAULT_PRIORS"]

#: The default prior first (the reference), then every other preset.
DEFAULT_PRIORS: tuple[str, ...] = (
    "hierarchical", "adaptive", "paper", "jeffreys", "perks", "aligned",
)  # fmt: skip

#: Default fraction of the reference HDI width beyond which a result is flagged.
DEFAULT_THRESHOLD = 0.1

PriorSpec = str | tuple[Any, Any]


@value_equality
@dataclass(frozen=True, eq=False)
class PriorSensitivity:
    """Result of :func:`prior_sensitivity`.

    Attributes
    ----------
    metric : str
        Name of the metric.
    priors : tuple of str
        Names of the priors, the reference first.
    descriptions : dict of str to str
        Statement of each prior (alpha and beta).
    summaries : dict of str to MetricSummary
        The metric's posterior summary under each prior.
    shift : dict of str to float or ndarray
        For each prior, the larger movement of an HDI endpoint from the
        reference prior's, as a fraction of the reference HDI's width (0 for
        the reference itself).
    reference : str
        The reference prior (the first).
    threshold : float
        The flagging fraction.
    max_shift : float or ndarray
        Largest shift over the priors (batch-shaped for a batch).
    sensitive : bool or ndarray of bool
        ``max_shift > threshold``.

    See Also
    --------
    f1posterior.prior_sensitivity : The function that returns it.

    Examples
    --------
    >>> from f1posterior import prior_sensitivity
    >>> res = prior_sensitivity([[40, 10], [5, 45]], priors=["jeffreys", "aligned"], draws=2000,
    ...                         rng=0)
    >>> res.metric, res.priors
    ('macro_f1', ('jeffreys', 'aligned'))
    """

    metric: str
    priors: tuple[str, ...]
    descriptions: dict[str, str]
    summaries: dict[str, MetricSummary]
    shift: dict[str, Any]
    reference: str
    threshold: float
    max_shift: Any
    sensitive: Any

    @property
    def warning(self) -> str | None:
        """A one-line warning when the result is sensitive, else None."""
        if not np.any(self.sensitive):
            return None
        worst = max(self.shift, key=lambda k: float(np.max(self.shift[k])))
        return (
            f"warning: the prior matters for {self.metric}: switching from {self.reference} "
            f"to {worst} moves the {100 * self.summaries[worst].ci_prob:g}% HDI by "
            f"{float(np.max(self.shift[worst])):.2f} of its width (threshold "
            f"{self.threshold:g}); the test set is too small for the prior to be ignored"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary."""
        return {**plain_fields(self), "warning": self.warning}

    def __str__(self) -> str:
        s0 = self.summaries[self.reference]
        pct = f"{100 * s0.ci_prob:g}% HDI"
        lines = [f"Prior sensitivity of {self.metric} (score {_fmt(s0.score)})"]
        width = max(9, *(len(p) for p in self.priors))
        lines.append(f"  {'prior':<{width}} {'mean':>8} {pct:<20} {'shift':>6}")
        for p in self.priors:
            s = self.summaries[p]
            lines.append(
                f"  {p:<{width}} {_fmt(s.mean):>8} {_fmt_interval(s.hdi):<20} "
                f"{_fmt(self.shift[p], 2):>6}"
            )
        if self.warning:
            lines.append(self.warning)
        else:
            lines.append(
                f"  the prior moves the HDI by at most {_fmt(self.max_shift, 2)} of its width "
                f"(threshold {self.threshold:g})"
            )
        return "\n".join(lines)


def _fmt(v: Any, digits: int = 4) -> str:
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        return f"{float(a):.{digits}f}"
    return np.array2string(a, precision=digits, separator=", ")


def _fmt_interval(v: Any) -> str:
    a = np.asarray(v, dtype=float)
    if a.ndim == 1:
        return f"[{a[0]:.4f}, {a[1]:.4f}]"
    return np.array2string(a, precision=4, separator=", ")


def _check_priors(priors: Any) -> dict[str, tuple[Any, Any]]:
    if isinstance(priors, Mapping):
        items = list(priors.items())
        for name, value in items:
            if not (isinstance(value, tuple) and len(value) == 2):
                raise ValueError(
                    f"priors must map each name to an (alpha, beta) pair; got {describe(value)} "
                    f"for {name!r}"
                )
        out = {str(k): v for k, v in items}
    elif isinstance(priors, str):
        out = {priors: prior_preset(priors)}
    else:
        try:
            names = list(priors)
        except TypeError:
            raise TypeError(
                f"priors must be a sequence of preset names ({', '.join(PRIOR_PRESETS)}) or a "
                f"mapping of name to (alpha, beta); got {describe(priors)}"
            ) from None
        out = {}
        for n in names:
            if not isinstance(n, str) or n not in PRIOR_PRESETS:
                raise ValueError(
                    f"priors must name presets ({', '.join(map(repr, PRIOR_PRESETS))}); got "
                    f"{describe(n)}"
                )
            out[n] = prior_preset(n)
        if len(out) != len(names):
            raise ValueError(f"priors must not repeat a name; got {names}")
    if len(out) < 2:
        raise ValueError(f"priors must hold at least two priors to compare; got {list(out)}")
    return out


def _check_threshold(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"threshold must be a number > 0; got {describe(value)}")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"threshold must be a finite number > 0; got {value!r}")
    return float(value)


def prior_sensitivity(
    counts: ArrayLike,
    *,
    metric: str = "macro_f1",
    priors: Sequence[str] | Mapping[str, tuple[Any, Any]] = DEFAULT_PRIORS,
    draws: int = DEFAULT_DRAWS,
    ci_prob: float = 0.95,
    threshold: float = DEFAULT_THRESHOLD,
    rng: SeedLike = None,
) -> PriorSensitivity:
    """Posterior mean and HDI of a metric under several priors, and a sensitivity flag.

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M)
        Confusion matrices (rows = true class).
    metric : str or callable, default "macro_f1"
        Any metric :func:`f1posterior.evaluate` accepts (one).
    priors : sequence of preset names or mapping of name to (alpha, beta)
        The priors to compare, the reference first (put the prior you report
        first); default :data:`DEFAULT_PRIORS`, the default prior followed by
        every other preset (``"uniform"`` is left out: it is ``"paper"``).
    draws : int, default 50_000
        Posterior draws per prior.
    ci_prob : float, default 0.95
        Probability of the HDIs.
    threshold : float, default 0.1
        Flag when a prior moves an HDI endpoint by more than this fraction
        of the reference HDI's width.
    rng : None, int, SeedSequence or Generator
        Root of randomness; every prior uses the same root (the runs are
        separate analyses of the same data).

    Returns
    -------
    PriorSensitivity
        Summaries per prior; ``shift`` and ``sensitive`` have the batch shape.

    See Also
    --------
    f1posterior.prior_preset : The named priors.
    f1posterior.evaluate : The posterior under one prior.

    Examples
    --------
    >>> res = prior_sensitivity([[6, 1, 0], [0, 8, 1], [1, 0, 3]], draws=20_000, rng=0)
    >>> round(float(res.summaries["paper"].score), 2), bool(res.sensitive)
    (0.83, True)
    >>> round(res.summaries["paper"].mean, 2), round(res.summaries["adaptive"].mean, 2)
    (0.66, 0.77)
    """
    c = check_counts(counts)
    name, _ = resolve_metric(metric, "metric")
    spec = _check_priors(priors)
    n = check_draws(draws)
    hp = check_prob(ci_prob, "ci_prob")
    th = _check_threshold(threshold)
    root = check_rng(rng)
    summaries: dict[str, MetricSummary] = {}
    for label, (alpha, beta) in spec.items():
        ev = evaluate(c, metrics=[metric], draws=n, alpha=alpha, beta=beta, ci_prob=hp, rng=root)
        summaries[label] = next(iter(ev.values()))
    ref = next(iter(spec))
    lo0, hi0 = np.moveaxis(np.asarray(summaries[ref].hdi), -1, 0)
    width = np.maximum(hi0 - lo0, np.finfo(float).tiny)
    shift: dict[str, Any] = {}
    for label, s in summaries.items():
        lo, hi = np.moveaxis(np.asarray(s.hdi), -1, 0)
        sh = np.maximum(np.abs(lo - lo0), np.abs(hi - hi0)) / width
        shift[label] = plain(sh)
    max_shift = np.max(np.stack([np.asarray(v) for v in shift.values()]), axis=0)
    sensitive = max_shift > th
    return PriorSensitivity(
        metric=name,
        priors=tuple(spec),
        descriptions={k: describe_prior(*v) for k, v in spec.items()},
        summaries=summaries,
        shift=shift,
        reference=ref,
        threshold=th,
        max_shift=plain(max_shift),
        sensitive=plain(sensitive),
    )
