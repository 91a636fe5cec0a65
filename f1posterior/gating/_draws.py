"""The evidence behind each check, one round of draws at a time, and the one verdict rule.

Design notes: docs/design.md#gating-draws
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.priors import resolve
from .._core.streams import child_seed
from .._core.validation import check_counts, check_positive, check_prob
from ..metrics import METRICS, PER_CLASS_METRICS, PER_LABEL_METRICS
from ..posterior import Evaluation, MetricSummary, evaluate
from ..posterior import hdi as sample_hdi
from ._checks import Floor, GateCheck, JointFloor, NonInferiority, SliceFloor
from ._noise import noise, noisy
from ._verdicts import Check


@dataclass(frozen=True, eq=False)  # arrays: no == by fields
class Settings:
    """Everything a round of the gate needs, validated: inputs, prior, probabilities, names."""

    counts: Any  # validated: a float array (*batch, M, M) or (*batch, L, 2, 2)
    baseline: Any  # None or like counts
    paired: tuple[list[Any], list[Any], list[Any]] | None
    multilabel: bool
    prob: float
    ci_prob: float
    alpha: Any
    beta: Any
    labels: Sequence[Any] | None
    names: Sequence[str] | None
    f_beta: float = 1.0
    clusters: Any = None  # ClusterTables of clustered predictions, or None

    def __post_init__(self) -> None:
        """Validate the inputs and settings (arrays as float, labels as text)."""
        ml = self.multilabel
        read: Any = check_counts
        if ml:  # here: a single-label gate never loads the multi-label posterior
            from ..posterior import check_tables as read
        c = read(self.counts, "tables" if ml else "counts")
        base = None if self.baseline is None else read(self.baseline, "baseline")
        core = 3 if ml else 2  # trailing axes of one input: (L, 2, 2) or (M, M)
        if base is not None and base.shape[-core:] != c.shape[-core:]:
            what = f"the {c.shape[-3]} labels of tables" if ml else "the classes of counts"
            raise ValueError(
                f"baseline must have {what}: shape (..., {', '.join(map(str, c.shape[-core:]))})"
                f"; got shape {base.shape}"
            )
        other = c.shape if base is None else base.shape
        try:
            batch = np.broadcast_shapes(c.shape, other)[:-core]
        except ValueError:
            raise ValueError(
                f"baseline must be one table or a batch like {c.shape}; got shape {other}"
            ) from None
        if self.names is not None and (len(batch) != 1 or len(self.names) != batch[0]):
            raise ValueError(
                f"names must name each matrix of a 1-D batch; got {len(self.names)} names for "
                f"batch shape {batch}"
            )
        p = check_prob(self.prob, "prob")
        if not p > 0.5:
            raise ValueError(
                f"prob must be in (0.5, 1): a check passes when P(condition) >= prob and fails "
                f"when P(opposite) >= prob, which only exclude each other above 0.5; got "
                f"{self.prob!r}"
            )
        labels = None if self.labels is None else [str(x) for x in self.labels]
        fields = dict(
            counts=c, baseline=base, prob=p, ci_prob=check_prob(self.ci_prob, "ci_prob"),
            labels=labels, f_beta=check_positive(self.f_beta, "f_beta"),
        )  # fmt: skip
        for k, v in fields.items():
            object.__setattr__(self, k, v)


@dataclass(frozen=True, eq=False)  # arrays: no == by fields
class Evidence:
    """One check's evidence from one round, flat over its items (C order).

    ``hits`` are the draws meeting the condition out of ``draws``, or the exact
    probabilities when ``draws`` is 0. ``fail_at``: per item, the P(opposite) to
    FAIL (None: ``prob``); NaN: a joint item, FAILing only with an item before it.
    A joint floor's ``hits`` are ``(items, 1 + K)``: all, then each of ``parts``.
    """

    items: list[str]
    hits: np.ndarray
    draws: int
    score: np.ndarray
    hdi: np.ndarray
    flags: np.ndarray
    support: np.ndarray | None = None
    skip: list[str] | None = None
    model: str = ""
    fail_at: np.ndarray | None = None
    parts: list[str] | None = None


def _items(shape: tuple[int, ...], per: bool, s: Settings) -> list[str]:
    """The item names of a result of ``shape``: matrix (names or index) and class or label."""
    unit = "label" if s.multilabel else "class"
    return [
        " ".join(
            _prefix(idx[: len(shape) - per], s)
            + ([f"{unit} {s.labels[idx[-1]] if s.labels is not None else idx[-1]}"] if per else [])
        )
        for idx in np.ndindex(*shape)
    ]


def _docs(s: Settings) -> str:
    return "positive documents" if s.multilabel else "true documents"


def _flags(name: str, summary: MetricSummary, table: np.ndarray, s: Settings) -> np.ndarray:
    """Prior-dominance flags of a summary; multi-label summaries get theirs computed here."""
    if summary.prior_dominated is None and s.multilabel:
        from ..posterior import check_prior_dominance

        def own(table: np.ndarray) -> Any:  # not a single-label metric: no margin checks
            raise NotImplementedError

        summary = check_prior_dominance({name: summary}, {name: own}, table)[name]
    return np.broadcast_to(np.asarray(summary.prior_dominated, dtype=bool), np.shape(summary.score))


def _support(s: Settings) -> np.ndarray:
    """True documents per class ``(*batch, M)``, or positive documents per label."""
    if s.multilabel:
        return np.asarray(s.counts[..., 1, :].sum(axis=-1))
    return np.asarray(s.counts.sum(axis=-1))


def cluster_prior_text(ct: Any) -> str:
    """The model of a gate on clustered documents, naming the unit with its counts."""
    from ..posterior import CLUSTER_UNIT

    c, n = len(ct.clusters), int(ct.tables.sum())
    return f"Bayesian bootstrap over {c:,} {CLUSTER_UNIT} ({n:,} documents)"


def _evaluate(table: np.ndarray, metrics: list[str], s: Settings, **kw: Any) -> Evaluation:
    if s.clusters is not None and table is s.counts:
        from ..posterior import evaluate_cluster_tables

        return evaluate_cluster_tables(s.clusters, metrics=metrics, ci_prob=s.ci_prob, **kw)
    common = dict(alpha=s.alpha, beta=s.beta, ci_prob=s.ci_prob, labels=s.labels)
    if s.multilabel:
        from ..posterior import evaluate_multilabel  # looked up at call time

        return evaluate_multilabel(table, metrics=metrics, f_beta=s.f_beta, **common, **kw)
    return evaluate(table, metrics=metrics, **common, **kw)


def evidence(
    checks: Sequence[GateCheck], s: Settings, draws: int, root: np.random.SeedSequence
) -> list[Evidence]:
    """The evidence of each check from ``draws`` draws of the streams of ``root``.

    One evaluation per table serves every check (a metric's draws are the same
    whatever else is evaluated with it): floors with a closed form are exact
    (no draws); the others keep their metric draws. Multi-label floors are
    evaluated at their threshold (``ref``), so only the counts of draws below
    it are held, whatever the number of labels.
    """
    kw: dict[str, Any] = dict(draws=draws, rng=root)
    if any(isinstance(c, SliceFloor) for c in checks):
        from ._slices import check_slice_batch

        check_slice_batch(s.counts)
    floors = [c for c in checks if isinstance(c, Floor)]
    compared = list(dict.fromkeys(c.metric for c in checks if isinstance(c, NonInferiority)))
    drawn = [c.metric for c in checks if isinstance(c, (JointFloor, SliceFloor))] + compared
    ev: dict[Any, Evaluation] = {}
    if s.multilabel:
        for t in dict.fromkeys(c.threshold for c in floors):
            names = list(dict.fromkeys(c.metric for c in floors if c.threshold == t))
            ev.update(
                dict.fromkeys(((n, t) for n in names), _evaluate(s.counts, names, s, ref=t, **kw))
            )
    else:
        from .. import posterior  # (its closed forms are loaded only under an aligned prior)

        prior = resolve(s.alpha, s.beta, s.counts)
        closed = prior.mixture is None and posterior.is_aligned(prior.alpha, prior.beta)
        closed = closed and posterior.scipy_available() and s.clusters is None
        m = s.counts.shape[-1]
        names = list(dict.fromkeys(c.metric for c in floors))
        free = [n for n in names if closed and posterior.has_exact(n, m) and n not in drawn]
        drawn += [n for n in names if n not in free]
        if free:
            ev.update(dict.fromkeys(free, _evaluate(s.counts, free, s, **kw)))
    drawn = list(dict.fromkeys(drawn))
    if drawn:
        ev.update(dict.fromkeys(drawn, _evaluate(s.counts, drawn, s, keep_draws=True, **kw)))
    base = None
    if compared and s.baseline is not None:
        base = _evaluate(
            s.baseline, compared, s, keep_draws=True, draws=draws, rng=child_seed(root, 0)
        )
    out = []
    for c in checks:
        if isinstance(c, Floor):
            e = ev[(c.metric, c.threshold) if s.multilabel else c.metric]
            out.append(_floor(c, e, s, draws))
        elif isinstance(c, JointFloor):
            out.append(_joint(c, ev[c.metric], s, draws))
        elif isinstance(c, SliceFloor):
            out.append(_slices(c, ev[c.metric], s, draws))
        else:
            assert base is not None
            out.append(_non_inferiority(c, ev[c.metric], base, s, draws, root))
    return out


def _floor(c: Floor, e: Evaluation, s: Settings, draws: int) -> Evidence:
    sm = e[c.metric]
    if sm.exact:  # the closed forms (scipy's route): loaded here, never by a sampled gate
        from ..posterior import label_posterior, posterior_from_concentration

        a = resolve(s.alpha, s.beta, s.counts).alpha
        closed_form = label_posterior if s.multilabel else posterior_from_concentration
        post: Any = closed_form(a + s.counts, c.metric)
        hits, n = np.asarray(post.sf(c.threshold), dtype=float), 0
    elif s.multilabel:  # the draws >= T, recovered exactly from p_below = count(< T) / draws
        hits, n = draws - np.rint(np.asarray(sm.p_below) * draws), draws
    else:
        assert e.metric_draws is not None
        hits, n = np.sum(e.metric_draws[c.metric] >= c.threshold, axis=-1).astype(float), draws
    per = c.metric in (PER_LABEL_METRICS if s.multilabel else PER_CLASS_METRICS)
    shape = np.shape(hits)
    support, skip = None, None
    if per:
        support = np.broadcast_to(_support(s), shape).reshape(-1).astype(np.int64)
        if c.min_support is not None:
            skip = [
                f"{k} {_docs(s)} < min_support {c.min_support}" if k < c.min_support else ""
                for k in support.tolist()
            ]
    return Evidence(
        items=_items(shape, per, s),
        hits=np.reshape(hits, -1),
        draws=n,
        score=np.broadcast_to(np.asarray(sm.score, dtype=float), shape).reshape(-1),
        hdi=np.broadcast_to(np.asarray(sm.hdi, dtype=float), (*shape, 2)).reshape(-1, 2),
        flags=np.broadcast_to(_flags(c.metric, sm, s.counts, s), shape).reshape(-1),
        support=support,
        skip=skip,
        model=e.model_text(c.metric) if hasattr(e, "model_text") else "",
    )


def _joint(c: JointFloor, e: Evaluation, s: Settings, draws: int) -> Evidence:
    """One item per matrix, P(every judged class >= T): gating/_joint.py."""
    from ._joint import joint_rows

    assert e.metric_draws is not None
    md, flags = e.metric_draws[c.metric], _flags(c.metric, e[c.metric], s.counts, s)
    parts = _items(md.shape[-2:-1], True, s)  # the class (label) names
    rows = joint_rows(
        c, md, e[c.metric].score, flags, _support(s), _items(md.shape[:-2], False, s), s
    )
    model = e.model_text(c.metric) if hasattr(e, "model_text") else ""
    return Evidence(draws=draws, model=model, parts=parts, **rows)


def _slices(c: SliceFloor, e: Evaluation, s: Settings, draws: int) -> Evidence:
    """One row per slice (matrix of the batch) and the joint row: gating/_slices.py."""
    from ._slices import slice_rows

    assert e.metric_draws is not None
    sm = e[c.metric]
    flags = _flags(c.metric, sm, s.counts, s)
    md = e.metric_draws[c.metric]
    rows = slice_rows(c, md, sm.score, flags, s.counts, s.names, s.ci_prob, s.prob)
    return Evidence(draws=draws, **rows)


def _prefix(bidx: tuple[int, ...], s: Settings) -> list[str]:
    if not bidx:
        return []
    return [str(s.names[bidx[0]]) if s.names is not None else ",".join(map(str, bidx))]


def _non_inferiority(
    c: NonInferiority,
    e: Evaluation,
    base: Evaluation,
    s: Settings,
    draws: int,
    root: np.random.SeedSequence,
) -> Evidence:
    """P(new - baseline >= -D): independent posteriors, or the paired model."""
    if c.relative:
        return _relative(c, e, base, s, draws)
    if s.paired is not None:
        diff, score, model = _paired_difference(c.metric, s, draws, root)
    else:
        assert e.metric_draws is not None and base.metric_draws is not None
        diff = e.metric_draws[c.metric] - base.metric_draws[c.metric]
        score = np.asarray(e[c.metric].score) - np.asarray(base[c.metric].score)
        model = "independent posteriors"
    shape = diff.shape[:-1]
    per = c.metric in (PER_LABEL_METRICS if s.multilabel else PER_CLASS_METRICS)
    flags = _flags(c.metric, e[c.metric], s.counts, s)
    assert s.baseline is not None
    flags = np.broadcast_to(flags, shape) | np.broadcast_to(
        _flags(c.metric, base[c.metric], s.baseline, s), shape
    )
    return Evidence(
        items=_items(shape, per, s),
        hits=np.sum(diff >= -c.max_drop, axis=-1).astype(float).reshape(-1),
        draws=draws,
        score=np.broadcast_to(np.asarray(score, dtype=float), shape).reshape(-1),
        hdi=np.asarray(sample_hdi(diff, s.ci_prob), dtype=float).reshape(-1, 2),
        flags=flags.reshape(-1),
        model=model,
    )


def _ratio(new: Any, old: Any) -> np.ndarray:
    """new / old, with x / 0 read as +inf (x > 0) or 1 (x = 0): both meet any floor <= 1."""
    new, old = np.asarray(new, dtype=float), np.asarray(old, dtype=float)
    zero = np.where(new > 0, np.inf, 1.0)
    return np.divide(
        new,
        old,
        out=np.broadcast_to(zero, np.broadcast_shapes(new.shape, old.shape)).copy(),
        where=old > 0,
    )


def _relative(
    c: NonInferiority, e: Evaluation, base: Evaluation, s: Settings, draws: int
) -> Evidence:
    """P(new >= (1 - r) * baseline) from the independent posteriors; reported as a ratio."""
    if s.paired is not None:
        raise ValueError(
            f"NonInferiority({c.metric!r}, relative=True): a relative margin compares "
            "independent posteriors; paired predictions take an absolute max_drop"
        )
    assert e.metric_draws is not None and base.metric_draws is not None
    new, old = e.metric_draws[c.metric], base.metric_draws[c.metric]
    hits = np.sum(new >= (1.0 - c.max_drop) * old, axis=-1).astype(float)
    ratio = _ratio(new, old)
    shape = hits.shape
    per = c.metric in (PER_LABEL_METRICS if s.multilabel else PER_CLASS_METRICS)
    assert s.baseline is not None
    flags = np.broadcast_to(_flags(c.metric, e[c.metric], s.counts, s), shape) | np.broadcast_to(
        _flags(c.metric, base[c.metric], s.baseline, s), shape
    )
    return Evidence(
        items=_items(shape, per, s),
        hits=hits.reshape(-1),
        draws=draws,
        score=np.broadcast_to(_ratio(e[c.metric].score, base[c.metric].score), shape).reshape(-1),
        hdi=np.asarray(sample_hdi(ratio, s.ci_prob), dtype=float).reshape(-1, 2),
        flags=flags.reshape(-1),
        model="independent posteriors",
    )


def _paired_difference(
    metric: str, s: Settings, draws: int, root: np.random.SeedSequence
) -> tuple[np.ndarray, np.ndarray, str]:
    """Paired-model draws of metric(new) - metric(baseline) on the same documents."""
    from ..analysis import compare_predictions

    assert s.paired is not None and s.baseline is not None
    if metric in PER_CLASS_METRICS:
        raise ValueError(
            f"paired baseline comparisons take single-number metrics; got per-class {metric!r}"
        )
    y, new, old = s.paired
    cluster = None if s.clusters is None else s.clusters.codes
    res = compare_predictions(
        y, new, old, metric=metric, alpha=s.alpha, beta=s.beta, draws=draws,
        rng=child_seed(root, 2), cluster=cluster,
    )  # fmt: skip
    for sm, table, what in ((res.a, s.counts, "counts"), (res.b, s.baseline, "baseline")):
        if not np.isclose(sm.score, float(METRICS[metric](table)), equal_nan=True):
            raise ValueError(
                f"paired predictions do not match {what}: {metric} is {sm.score:.4f} from the "
                f"predictions but {float(METRICS[metric](table)):.4f} from the matrix"
            )
    model = "paired model (same documents)" if cluster is None else res.prior
    return res.draws, np.asarray(res.difference.score), model


# --- the verdict ------------------------------------------------------------------------


def _rule(prob: float, required: float, fail_at: float) -> str:
    """PASS when P(condition) >= required, FAIL when P(opposite) = 1 - P >= fail_at."""
    if prob >= required:
        return "pass"
    if 1.0 - prob >= fail_at:  # False for a NaN fail_at: no FAIL of its own
        return "fail"
    return "inconclusive"


def _fail_reason(
    verdict: str, pr: float, p: float, f: float, failed: Sequence[str], none: str = ""
) -> str:
    """Why a row with its own FAIL bar ``f`` (not ``prob``) is what it is; "" when plain."""
    if math.isnan(f):
        if failed:
            return "failed: " + ", ".join(failed)
        if verdict == "inconclusive" and 1.0 - pr >= p:
            return none or "FAIL needs a failing slice row; none failed"
        return ""
    if f != p and (verdict == "fail" or (verdict == "inconclusive" and 1.0 - pr >= p)):
        return f"FAIL needs P(opposite) >= {f:.4g}"
    return ""


def _kind(c: GateCheck) -> str:
    if isinstance(c, NonInferiority):
        return "relative" if c.relative else "baseline"
    return "min"


def _threshold(c: GateCheck) -> float:
    """T of a floor, -D of an absolute margin, the ratio floor 1 - r of a relative one."""
    if isinstance(c, NonInferiority):
        return 1.0 - c.max_drop if c.relative else 0.0 - c.max_drop
    return c.threshold


def judge(
    c: GateCheck,
    e: Evidence,
    i: int,
    hits: float | np.ndarray,
    n: int,
    s: Settings,
    failed: Sequence[str] = (),
) -> Check:
    """The verdict of item ``i`` of check ``c``: ``hits`` of ``n`` pooled draws (exact: n = 0).

    The one place a verdict is decided: skipped (``min_support``), FAIL of a
    joint item (``e.fail_at`` NaN) when items before it ``failed``, or of a
    joint floor's item (``hits`` a row, then ``e.parts``) when a part reaches
    ``e.fail_at``, within Monte Carlo noise (inconclusive, with the draws that
    would settle it), or the rule: PASS at ``P >= prob``, FAIL at
    ``1 - P >= e.fail_at`` (or ``prob``).
    """
    p = s.prob
    f = p if e.fail_at is None else float(e.fail_at[i])
    h = np.asarray(hits, dtype=np.float64)
    exact = e.draws == 0
    pr = float(h.flat[0]) if exact else float(h.flat[0]) / n
    se, settle, reason = 0.0, None, e.skip[i] if e.skip else ""
    within, near, none = False, [(pr, p), (pr, 1.0 - f)], ""
    if not exact:
        se = noise(pr, p, n)[0]
        bar = np.asarray([f])
        joint = e.parts is not None
        within = not reason and bool(noisy(h[None] if joint else h, n, p, bar, joint=joint).any())
    if e.parts is not None:  # a joint floor: FAILs only when a part does (its own P is biased)
        from ._joint import failed_parts

        clear = ~noisy(h[1:], n, 1.0 - f, np.full(h.size - 1, np.nan))  # no FAIL within noise
        failed, none = failed_parts(e.parts or [], h[1:] / n, clear, f, _threshold(c))
        near = [(pr, p)] + [(x / n, 1.0 - f) for x in h[1:] if not math.isnan(x)]
        f = math.nan
    if reason:
        verdict = "skipped"
    elif math.isnan(f) and failed:
        verdict, within = "fail", False
        reason = _fail_reason(verdict, pr, p, f, failed)
    elif within:
        v, b = min(near, key=lambda x: abs(x[0] - x[1]))  # the bound it is nearest to
        verdict, settle = "inconclusive", noise(v, b, n)[2]
        reason = f"within Monte Carlo noise at {n:,} draws"
    else:
        verdict = _rule(pr, p, f)
        reason = _fail_reason(verdict, pr, p, f, failed, none)
    return Check(
        kind=_kind(c),
        metric=c.metric,
        item=e.items[i],
        threshold=_threshold(c),
        prob=pr,
        required=p,
        verdict=verdict,
        score=float(e.score[i]),
        hdi=(float(e.hdi[i, 0]), float(e.hdi[i, 1])),
        ci_prob=s.ci_prob,
        exact=exact,
        mc_error=se,
        draws=0 if exact else n,
        within_noise=within,
        draws_to_settle=settle,
        model=e.model,
        reason=reason,
        support=None if e.support is None else int(e.support[i]),
        prior_dominated=bool(e.flags[i]),
    )
