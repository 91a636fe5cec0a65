"""Planning the test set: how many more documents make the gate's verdict conclusive.

Bayesian assurance: posterior-predictive simulation of future tables, with common
random numbers across sizes (nested future documents) and a monotone (isotonic) curve.

Design notes: docs/design.md#gating-planning
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.priors import DEFAULT_PRIOR, PriorArg, resolve
from .._core.sampling import sample_posterior
from .._core.streams import DEFAULT_SEED, child_seed, run_seed
from .._core.validation import (
    SeedLike,
    check_choice,
    check_counts,
    check_draws,
    check_prob,
    check_rng,
)
from ..metrics import PER_CLASS_METRICS
from ..posterior import evaluate
from ._checks import Floor, GateCheck, NonInferiority, check_metric_name
from ._draws import Settings
from ._gate import gate
from ._noise import noisy as is_noisy
from ._plan_clusters import check_clustering, effective_counts, in_clusters
from ._plan_result import CurvePoint, PlanResult

__all__ = ["DEFAULT_MAX_DOCUMENTS", "CurvePoint", "PlanResult", "plan"]

#: Default cap on the additional documents searched (``max_documents``).
DEFAULT_MAX_DOCUMENTS = 10_000_000
#: First-round posterior draws per simulated table (``draws``).
DEFAULT_PLAN_DRAWS = 200
#: Ceiling of the draws per simulated table (``max_draws``).
DEFAULT_PLAN_MAX_DRAWS = 8_000
#: The largest cap accepted.
MAX_DOCUMENTS_LIMIT = 1_000_000_000
#: Spawn-key word of the planner's streams (``root.spawn_key + (PLAN_KEY, ...)``).
PLAN_KEY = 0x706C616E
#: Factor between the sizes tried before the target is reached.
GROWTH = 4
#: Bisection stops when the bracket's ends are within this ratio.
REFINE_RATIO = 1.1
#: Metric values held at once when differences of draws are taken (memory bound).
_CHUNK_VALUES = 4_000_000


def _child(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The stream ``root.spawn_key + (PLAN_KEY, *key)``; ``root`` is never consumed."""
    return child_seed(root, PLAN_KEY, *key)


def _check_count(value: Any, name: str, low: int, high: int) -> int:
    n = check_draws(value, name)
    if not low <= n <= high:
        raise ValueError(f"{name} must be an integer in [{low:,}, {high:,}]; got {n:,}")
    return n


def _nice(x: float) -> int:
    """``x`` rounded to two significant digits."""
    if x < 100:
        return round(x)
    step = 10 ** (int(math.floor(math.log10(x))) - 1)
    return int(round(x / step) * step)


def _rule(pr: np.ndarray, prob: float) -> np.ndarray:
    """The gate's rule on probabilities ``pr``: +1 pass, -1 fail, 0 inconclusive."""
    return np.where(pr >= prob, 1, np.where(1.0 - pr >= prob, -1, 0))


def _adaptive(
    hits_fn: Callable[[np.ndarray, int, int], np.ndarray],
    s: int,
    draws: int,
    most: int,
    prob: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Verdicts ``(S, K)`` and undecided flags ``(S,)`` of sampled probabilities.

    ``hits_fn(idx, draws, round)`` gives the draws meeting the condition,
    ``(len(idx), K)``, from fresh streams each round. Tables within noise are
    drawn again, doubling their total, until clear or at ``most`` draws; a table
    still within noise then takes the rule on its pooled estimate (flagged).
    """
    hits = hits_fn(np.arange(s), draws, 0).astype(np.float64)
    v, noisy = _rule(hits / draws, prob), is_noisy(hits, draws, prob)  # noise as in the gate
    active = np.flatnonzero(noisy.any(axis=-1))
    total, r = draws, 0
    while active.size and total < most:
        r += 1
        more = min(total, most - total)
        hits[active] += hits_fn(active, more, r)
        total += more
        v[active], nz = _rule(hits[active] / total, prob), is_noisy(hits[active], total, prob)
        noisy[active] = nz
        active = active[nz.any(axis=-1)]
    return v, np.asarray(noisy.any(axis=-1))


def plan(
    counts: ArrayLike,
    *,
    metric: str,
    threshold: float | None = None,
    baseline: ArrayLike | None = None,
    max_drop: float = 0.0,
    prob: float = 0.95,
    assurance: float = 0.8,
    require: str = "every",
    simulations: int = 500,
    draws: int = DEFAULT_PLAN_DRAWS,
    max_draws: int = DEFAULT_PLAN_MAX_DRAWS,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    rng: SeedLike = DEFAULT_SEED,
    source: str | None = None,
    design_effect: float | None = None,
    icc: float | None = None,
    cluster_size: float | None = None,
) -> PlanResult:
    """How many more test documents make the gate's verdict conclusive, with probability A.

    Bayesian assurance by posterior-predictive simulation (see the module
    docstring for the method, the Monte Carlo accounting and the assumptions).

    Parameters
    ----------
    counts : array_like, shape (M, M)
        One confusion matrix (rows = true class) of the model under test.
    metric : str
        A metric of :data:`f1posterior.metrics.METRICS`, as in the gate.
    threshold : float, optional
        Floor ``T``: the gate's check ``P(metric >= T) >= prob`` (``--min``).
    baseline : array_like, shape (M, M), optional
        Baseline's confusion matrix: the non-inferiority check
        ``P(new - baseline >= -max_drop) >= prob``. At least one of ``threshold``
        and ``baseline`` is needed.
    max_drop : float, default 0
        Non-inferiority margin ``D`` in [0, 1].
    prob : float, default 0.95
        Probability required for PASS or FAIL, in (0.5, 1).
    assurance : float, default 0.8
        Target probability of a conclusive verdict, in (0, 1).
    require : {"every", "overall"}, default "every"
        "every": every check (every class of a per-class metric, and the
        baseline check) must be conclusive; "overall": the gate's overall
        verdict must be (any FAIL, or every check PASS).
    simulations : int, default 500
        Simulated future test sets per size (``S``, at least 50).
    draws, max_draws : int, default 200 and 8,000
        First-round and maximum posterior draws per simulated table (a table
        still within Monte Carlo noise at ``max_draws`` takes the rule on its
        pooled estimate).
    max_documents : int, default 10,000,000
        Cap on the additional documents searched.
    alpha, beta : prior
        As in :func:`f1posterior.gate` (default ``"hierarchical"``).
    rng : None, int, SeedSequence or Generator, default the gate's seed
        Root of every random stream; a SeedSequence is never consumed.
    source : str, optional
        Where the counts came from (shown in the text).
    design_effect : float, optional
        Clustered documents (users, conversations, ...): their design effect
        ``D >= 1``, e.g. ``evaluate_clusters(...).design_effect[metric]``. The
        plan runs on ``counts / D`` effective documents and reports actual
        documents (``D`` times the effective ones).
    icc : float, optional
        Instead of ``design_effect``: the intra-cluster correlation in [0, 1],
        with ``cluster_size``; ``D = 1 + (cluster_size - 1) icc``.
    cluster_size : float, optional
        Documents per future cluster: the answer is also given in clusters of
        documents (``additional_clusters``). With ``design_effect`` or ``icc``
        (``icc=0`` for documents independent within their clusters).

    Returns
    -------
    PlanResult
        ``additional_documents``, ``curve``, text (``str``) and ``to_dict``.

    See Also
    --------
    f1posterior.gate : The gate whose verdict is planned for.

    Examples
    --------
    >>> res = plan([[45, 5], [8, 42]], metric="recall", threshold=0.8, simulations=200, rng=1)
    >>> res.current_verdict, res.additional_documents
    ('inconclusive', 5400)
    >>> [(p.documents, p.assurance) for p in res.curve[1:5]]
    [(10, 0.0), (40, 0.045), (160, 0.315), (640, 0.575)]
    >>> plan([[90, 10], [5, 95]], metric="micro_f1", threshold=0.5).additional_documents
    0
    >>> res = plan([[45, 5], [8, 42]], metric="recall", threshold=0.8, simulations=200, rng=1,
    ...            icc=0.1, cluster_size=11)  # design effect 2
    >>> res.design_effect, res.additional_documents, res.additional_clusters
    (2.0, 9000, 819)
    """
    if threshold is None and baseline is None:
        raise ValueError(
            "plan needs a check: give threshold (a floor T for the metric) and/or a baseline"
        )
    check_metric_name(metric, "metric")
    deff, size = check_clustering(design_effect, icc, cluster_size)
    if deff is not None:  # effective documents (docs/design.md#gating-plan-clusters)
        c0 = check_counts(counts)
        return in_clusters(plan(
            effective_counts(c0, deff, "counts"), metric=metric, threshold=threshold,
            baseline=None if baseline is None else effective_counts(
                check_counts(baseline, "baseline"), deff, "baseline"),
            max_drop=max_drop, prob=prob, assurance=assurance, require=require,
            simulations=simulations, draws=draws, max_draws=max_draws,
            max_documents=max(1, math.ceil(max_documents / deff)), alpha=alpha, beta=beta,
            rng=rng, source=source,
        ), deff, size, int(c0.sum()))  # fmt: skip
    floor = None if threshold is None else Floor(metric, threshold)
    margin = NonInferiority(metric, max_drop)
    checks: list[GateCheck] = [x for x in (floor, margin if baseline is not None else None) if x]
    g = Settings(counts, baseline, None, False, prob, 0.95, alpha, beta, None, None)
    c, base, p = g.counts, g.baseline, g.prob
    for name, arr in (("counts", c), ("baseline", base)):
        if arr is not None and (arr.ndim != 2 or arr.shape[0] < 2):
            raise ValueError(
                f"{name} must be one confusion matrix (M, M) with M >= 2; got shape {arr.shape}"
            )
    target = check_prob(assurance, "assurance")
    req = check_choice(require, "require", ("every", "overall"))
    s = _check_count(simulations, "simulations", 50, 1_000_000)
    d = _check_count(draws, "draws", 100, 10_000_000)
    most = _check_count(max_draws, "max_draws", d, 100_000_000)
    cap = _check_count(max_documents, "max_documents", 1, MAX_DOCUMENTS_LIMIT)
    root = check_rng(rng)  # never consumed: streams are child_seed(root, ...)
    # 0 more documents: the gate itself, on the same seed as `f1posterior gate --seed`
    now = gate(c, checks, baseline=base, prob=p, alpha=alpha, beta=beta, rng=root)
    flags = np.array([[{"pass": 1, "fail": -1}.get(ch.verdict, 0) for ch in now.checks]])
    common: dict[str, Any] = dict(
        current_verdict=now.verdict, documents=int(c.sum()), metric=metric,
        threshold=None if floor is None else floor.threshold, max_drop=margin.max_drop,
        baseline=base is not None, prob=p,
        assurance=target, require=req, prior=now.prior, simulations=s, draws=d, max_draws=most,
        max_documents=cap, seed=run_seed(root), assumptions=_assumptions(base, metric, req),
        source=source,
    )  # fmt: skip
    if _conclusive(flags, req)[0]:
        now_point = (CurvePoint(0, 1.0, 0.0),)
        res = PlanResult(additional_documents=0, reached=True, curve=now_point, **common)
        return in_clusters(res, None, size, int(c.sum()))

    sim = _Simulator(c, base, metric, common["threshold"], common["max_drop"], p, req, s, d,
                     most, alpha, beta, root)  # fmt: skip
    raw = {0: CurvePoint(0, 0.0, 0.0)}

    def at(n: int) -> float:
        raw[n] = sim.assurance(n)
        return raw[n].assurance

    n = min(cap, max(10, _nice(common["documents"] / 10)))
    while at(n) < target and n < cap:  # growing ...
        n = min(GROWTH * n, cap)
    while True:  # ... then bisection of the monotone fit's bracket
        curve = _monotone(raw, s)
        k = next((i for i, pt in enumerate(curve) if pt.assurance >= target), None)
        if k is None:
            break
        lo, hi = curve[k - 1].documents, curve[k].documents
        if hi <= lo * REFINE_RATIO or hi - lo <= 1:
            break
        mid = _nice((lo + hi) / 2)
        at(mid if lo < mid < hi else (lo + hi) // 2)
    best = next((pt.documents for pt in curve if pt.assurance >= target), None)
    res = PlanResult(additional_documents=best, reached=best is not None, curve=curve, **common)
    return in_clusters(res, None, size, int(c.sum()))


def _assumptions(base: np.ndarray | None, metric: str, require: str) -> tuple[str, ...]:
    out = [
        "future documents come from the observed population: class mix mu and error rates "
        "theta drawn from their current posterior, n documents ~ Mult(n, mu_u theta_uv)",
        "a table still within Monte Carlo noise at max_draws draws takes the gate's rule "
        "on its pooled estimate",
    ]
    if base is not None:
        out.append(
            "both models are scored on the n new documents; their future tables are "
            "independent samples (as the gate treats two confusion matrices; paired "
            "predictions would usually need fewer documents)"
        )
    if metric in PER_CLASS_METRICS:
        what = "every class's check" if require == "every" else "the overall verdict"
        out.append(f"per-class metric: {what} must be conclusive")
    return tuple(out)


def _monotone(raw: dict[int, CurvePoint], s: int) -> tuple[CurvePoint, ...]:
    """The curve by size, its assurance the isotonic (pool-adjacent-violators) fit of ``raw``."""
    pts = [raw[k] for k in sorted(raw)]
    blocks: list[list[float]] = []  # [sum, count]
    for pt in pts:
        blocks.append([pt.assurance, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    fit = [b[0] / b[1] for b in blocks for _ in range(int(b[1]))]
    out = [pts[0]]
    for pt, a in zip(pts[1:], fit[1:], strict=True):
        pc = (a * s + 0.5) / (s + 1)
        out.append(CurvePoint(pt.documents, a, math.sqrt(pc * (1.0 - pc) / s), pt.undecided))
    return tuple(out)


def _conclusive(v: np.ndarray, require: str) -> np.ndarray:
    """Per simulation ``(S,)``: are the verdicts ``v`` ``(S, K)`` conclusive?"""
    if require == "every":
        return np.all(v != 0, axis=-1)
    return np.any(v == -1, axis=-1) | np.all(v == 1, axis=-1)


class _Simulator:
    """Future tables and their gate verdicts, for any number of extra documents.

    Streams under ``root.spawn_key + (PLAN_KEY, ...)``: ``(0, k)`` the parameters of
    table ``k`` (0 new, 1 baseline), ``(1, n)`` the future documents added at size
    ``n``, ``(2, r)`` round ``r`` of a floor's draws, ``(3 + k, r)`` of a comparison's
    (round 0 reads simulation ``i``'s stream ``i`` at every size).
    """

    def __init__(
        self, c: np.ndarray, base: np.ndarray | None, metric: str, threshold: float | None,
        drop: float, prob: float, require: str, s: int, draws: int, most: int, alpha: Any,
        beta: Any, root: np.random.SeedSequence,
    ) -> None:  # fmt: skip
        self.tables = [c] if base is None else [c, base]
        self.metric, self.threshold, self.drop, self.prob = metric, threshold, drop, prob
        self.require, self.s, self.draws, self.most = require, s, draws, most
        self.alpha, self.beta, self.root = alpha, beta, root
        self.m = m = c.shape[-1]
        self.futures: dict[int, list[np.ndarray]] = {}
        self.params = []  # the parameters (mu, theta) as cells mu_u theta_uv, (S, M * M)
        for k, t in enumerate(self.tables):
            pk = sample_posterior(t, draws=s, alpha=alpha, beta=beta, rng=_child(root, 0, k))
            flat = np.ascontiguousarray(pk).reshape(s, -1)
            self.params.append(flat / flat.sum(axis=-1, keepdims=True))
        prior = resolve(alpha, beta, np.broadcast_to(c, (s, m, m)))
        a, b = prior.alpha, prior.beta
        # recall = theta_jj ~ Beta under any Dirichlet prior
        from ..posterior import has_exact, is_aligned, scipy_available

        self.exact = (
            scipy_available()
            and prior.mixture is None
            and has_exact(metric, m)
            and (metric == "recall" or is_aligned(a, b))
        )

    def assurance(self, n: int) -> CurvePoint:
        """Assurance of ``n`` more documents: the fraction of conclusive simulations."""
        future = [
            t + f.reshape(self.s, self.m, self.m)
            for t, f in zip(self.tables, self._future(n), strict=True)
        ]
        columns, undecided = [], np.zeros(self.s, dtype=bool)
        if self.threshold is not None:
            v, u = self._floor(future[0])
            columns.append(v)
            undecided |= u
        if len(future) > 1:
            v, u = _adaptive(
                lambda i, d, r: self._diff_hits(future, i, d, r),
                self.s, self.draws, self.most, self.prob,
            )  # fmt: skip
            columns.append(v)
            undecided |= u
        ok = _conclusive(np.concatenate(columns, axis=-1), self.require)
        return CurvePoint(n, float(ok.mean()), 0.0, float(undecided.mean()))  # error: _monotone

    def _future(self, n: int) -> list[np.ndarray]:
        """The ``n`` new documents' counts per table, ``(S, M * M)``, nested across sizes.

        Above every size drawn: ``+ Mult(n - lo, p)``; between ``lo`` and ``hi``: ``n - lo``
        of the ``hi - lo`` documents between them (multivariate hypergeometric).
        """
        if n in self.futures:
            return self.futures[n]
        gen = np.random.default_rng(_child(self.root, 1, n))
        lo = max((k for k in self.futures if k < n), default=0)
        hi = min((k for k in self.futures if k > n), default=None)
        base = self.futures.get(lo, [np.zeros_like(p, dtype=np.int64) for p in self.params])
        out = []
        for k, p in enumerate(self.params):
            if hi is None or hi - lo >= 10**9:  # numpy's hypergeometric takes < 10**9
                out.append(base[k] + gen.multinomial(n - lo, p))
                continue
            left = self.futures[hi][k] - base[k]  # the hi - lo documents between
            take, rest = np.full(self.s, n - lo), left.sum(axis=-1)
            part = np.zeros_like(left)
            for j in range(left.shape[-1]):  # cell by cell, vectorised over simulations
                rest -= left[:, j]
                part[:, j] = gen.hypergeometric(left[:, j], rest, take)
                take -= part[:, j]
            out.append(base[k] + part)
        self.futures[n] = out
        return out

    def _floor(self, future: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = self.threshold
        assert t is not None
        if self.exact:
            from ..posterior import posterior_from_concentration

            a = resolve(self.alpha, self.beta, future).alpha
            pr = np.asarray(posterior_from_concentration(a + future, self.metric).sf(t))
            return _rule(pr.reshape(self.s, -1), self.prob), np.zeros(self.s, dtype=bool)

        def hits(idx: np.ndarray, d: int, r: int) -> np.ndarray:
            ev = evaluate(future[idx], metrics=[self.metric], draws=d, alpha=self.alpha,
                          beta=self.beta, ref=t, rng=_child(self.root, 2, r),
                          prior_check=False)  # fmt: skip
            below = np.rint(np.asarray(ev[self.metric].p_below) * d)
            return (d - below).reshape(len(idx), -1)

        return _adaptive(hits, self.s, self.draws, self.most, self.prob)

    def _diff_hits(self, future: list[np.ndarray], idx: np.ndarray, d: int, r: int) -> np.ndarray:
        """Draws with ``new - base >= -drop``, ``(len(idx), K)``, chunked over the tables."""
        width = self.m if self.metric in PER_CLASS_METRICS else 1
        step = max(1, _CHUNK_VALUES // (d * width))
        out = []
        for i0 in range(0, len(idx), step):
            sub = idx[i0 : i0 + step]
            md = []
            for k, table in enumerate(future):
                ev = evaluate(table[sub], metrics=[self.metric], draws=d, alpha=self.alpha,
                              beta=self.beta, rng=_child(self.root, 3 + k, r),
                              keep_draws=True, prior_check=False, index_offset=i0)  # fmt: skip
                assert ev.metric_draws is not None
                md.append(ev.metric_draws[self.metric])
            out.append(np.sum(md[0] - md[1] >= -self.drop, axis=-1).reshape(len(sub), -1))
        return np.concatenate(out)
