"""The batch engine behind :func:`f1posterior.evaluate`: chunks, memory budget, threads.

Work is planned in three levels:

* **groups** of matrices whose metric draws (``draws`` float64 values per
  matrix and scalar metric) are held at once and summarised together;
* **chunks** of cell draws inside a group (whole matrices, or whole random
  blocks of draws of one matrix), each sampled into one working buffer,
  turned into cell probabilities and passed through every metric;
* **threads**: independent groups run on ``workers`` threads (numpy releases
  the GIL while drawing Gamma variates and in its ufuncs, sorts and
  partitions). When there are fewer matrices than workers, the chunks of one
  matrix's draws run in parallel instead. Large batches run their groups on
  forked worker **processes** instead, where forking is safe (no other Python
  thread running): two of them measured 1.87-1.93x one worker, two threads
  1.74-1.84x (the GIL's hand-offs).

Every piece of work reads only its own random streams (one per matrix and
block of draws, :mod:`f1posterior._core.sampling`), so results are bit-identical
whatever ``workers`` and ``max_memory`` are. The working memory (Gamma
buffers, metric temporaries, metric draws and the summary's partition) is kept
within ``max_memory`` bytes in total, except that one matrix's metric draws and
one random block of its cell draws are always held: a single matrix with an
enormous number of draws can exceed a small budget.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.hierarchical import GridWeights, RecallMixture
from .._core.sampling import LOG_SPACE_BELOW, block_draws, cells_inplace, gamma_chunk
from .._core.signals import (
    die_with_parent,
    raise_if_stopped,
    signals_deferred,
    stop_processes,
)
from .._core.streams import block_keys, block_streams
from .._core.validation import SamplingArgs
from ..metrics.sums import shared_class_sums
from .chance import chance_floor_inplace, chance_table, with_chance
from .prevalence import PrevalenceDraws
from .summary import MetricSummary, summarize_rows

__all__ = ["RunSettings", "summarize_rows", "plan", "run", "check_fits"]

#: Streams of a group are made in one bulk call when there are at most this many.
_BULK_STREAMS = 4096
#: Working bytes of one cell chunk, at most (whatever the budget): small chunks stay in
#: the processor's caches through sampling, normalising and every metric.
_CHUNK_BYTES = 8 << 20
#: ... unless that leaves fewer draws than this in a chunk (large M).
_MIN_CHUNK_DRAWS = 512
#: Bytes of one group's metric draws and summary temporaries, at most.
_GROUP_BYTES = 16 << 20
#: With several workers, a batch is cut into at least this many groups per worker.
_GROUPS_PER_WORKER = 4

#: With several workers, batches of at least this many Gamma variates run on forked
#: worker processes instead of threads, where forking is safe (:func:`_can_fork`).
_PROCESS_MIN_VARIATES = 1 << 25

MetricFn = Callable[[np.ndarray], Any]
Progress = Callable[[int, int], None]

#: Key prefix of the chance-level draws of a metric (``chance=True``).
_CH = "\0chance "

#: The group function that forked workers run (set only while their pool is open).
_FORKED: Callable[[tuple[int, int]], Any] | None = None


def _forked_group(g: tuple[int, int]) -> Any:
    """Run one group in a forked worker (it inherited ``_FORKED`` from its parent)."""
    assert _FORKED is not None
    return _FORKED(g)


def _can_fork() -> bool:
    """Whether worker processes may be forked from here.

    Only where ``fork`` exists, from a process running a single thread (forking
    copies no other thread, so no lock can be left held), and not from a daemonic
    process (which may not have children).
    """
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and not multiprocessing.current_process().daemon
    )


def _work_bytes_per_draw(m: int, itemsize: int, metric_width: int) -> int:
    """Upper estimate of working bytes per matrix-draw of a cell chunk.

    The Gamma buffer ``(M+1) M`` values, row sums and scales, and the metric
    functions' temporaries (a handful of ``(..., M)`` arrays, cast to float64)
    plus their outputs.
    """
    return itemsize * (m + 1) * m + itemsize * 3 * (m + 1) + 8 * (12 * m + 2 * metric_width)


@dataclass(frozen=True)
class _Plan:
    group: int  # matrices per group
    chunk_draws: int  # matrix-draws per cell chunk
    parallel_draws: bool  # split one matrix's draws across workers


def _mixture_bytes_per_draw(m: int, itemsize: int) -> int:
    """Working bytes per matrix-draw of the hierarchical prior's mixture in a cell chunk:
    uniforms, diagonal shapes, extra shapes (and every row's, before the choice),
    components (float64, bool), their flat indices, extra Gammas, the rows'
    off-diagonal sums (and their diagonals, kept meanwhile) and the log-space maxima
    (:func:`f1posterior._core.blocks.fill_mixture_chunk`)."""
    return 8 * (m + 1) * 2 + 8 * m * 5 + m + itemsize * m * 3


def plan(
    n_mat: int,
    m: int,
    draws: int,
    widths: Sequence[int],
    itemsize: int,
    workers: int,
    budget: int,
    mixture: bool = False,
) -> _Plan:
    """Group and chunk sizes for ``n_mat`` matrices within ``budget`` bytes (``mixture``:
    under the hierarchical prior's mixture, whose chunks hold more per draw)."""
    per_worker = max(1, budget // workers)
    half = per_worker // 2
    # metric draws held for a group, plus the summary's partition copy, tails and masks
    per_matrix = 8 * draws * (sum(widths) + 3 * max(widths))
    group = max(1, min(min(half, _GROUP_BYTES) // per_matrix, math.ceil(n_mat / workers)))
    if workers > 1 and n_mat > workers:
        # a whole number of groups per worker, and a few each, so that no worker idles
        # at the end (5 groups on 2 threads took as long as 6) and a worker slowed by
        # other load is made up for by the other
        n_groups = max(math.ceil(n_mat / group), min(n_mat, _GROUPS_PER_WORKER * workers))
        n_groups = min(n_mat, math.ceil(n_groups / workers) * workers)
        group = math.ceil(n_mat / n_groups)
    per_draw = _work_bytes_per_draw(m, itemsize, sum(widths))
    if mixture:
        per_draw += _mixture_bytes_per_draw(m, itemsize)
    # cache-sized, but with enough draws that numpy's loops over the draws axis stay long
    chunk = max(1, min(half // per_draw, max(_CHUNK_BYTES // per_draw, _MIN_CHUNK_DRAWS)))
    return _Plan(group=group, chunk_draws=chunk, parallel_draws=n_mat < workers)


def _size(n: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{int(n)} bytes"


def check_fits(m: int, draws: int, widths: Sequence[int], itemsize: int, budget: int) -> None:
    """Refuse, before anything is allocated, a request whose one matrix cannot fit ``budget``.

    The engine always holds, for one matrix, its parameter arrays (counts,
    prior, concentrations and their temporaries: about six ``(M + 1) x M``
    float64 arrays), one random block of its cell draws, and its metric draws
    with the summary's temporaries (``draws`` float64 values per metric value,
    about four times over). Everything else is chunked to the budget.
    """
    params = 6 * 8 * (m + 1) * m
    block = min(draws, block_draws(m)) * _work_bytes_per_draw(m, itemsize, sum(widths))
    metric = 8 * draws * (sum(widths) + 3 * max(widths, default=1))
    need = params + block + metric
    if need > budget:
        raise ValueError(
            f"one matrix of M = {m:,} classes at {draws:,} draws needs about {_size(need)} of "
            f"working memory (parameters {_size(params)}, metric draws {_size(metric)}), more "
            f"than max_memory = {_size(budget)}; raise max_memory (--max-memory on the command "
            "line) or lower draws"
        )


def _chunks(
    n: int, draws: int, bd: int, chunk_draws: int, split: int
) -> list[tuple[int, int, int, int]]:
    """Cell chunks ``(i0, i1, d0, d1)`` covering ``n`` matrices x ``draws``.

    ``bd`` is the number of draws of a random block. With ``split > 1``, one matrix's
    draws are cut into at least ``split`` chunks where there are enough random blocks.
    """
    if split <= 1 and draws <= chunk_draws:
        per = max(1, chunk_draws // draws)
        return [(i, min(n, i + per), 0, draws) for i in range(0, n, per)]
    max_blocks = max(1, chunk_draws // bd)
    if split > 1:
        max_blocks = min(max_blocks, math.ceil(math.ceil(draws / bd) / split))
    # whole blocks, two draws or more a chunk (as sampling.draw_chunks, for any block size)
    step = max(2, max_blocks * bd)
    edges = [*range(0, draws, step), draws]
    if len(edges) > 2 and edges[-1] - edges[-2] == 1:
        del edges[-2]
    pieces = list(zip(edges[:-1], edges[1:], strict=True))
    return [(i, i + 1, d0, d1) for i in range(n) for d0, d1 in pieces]


@dataclass(frozen=True)
class RunSettings:
    """The checked settings of a :func:`run`, as in :func:`f1posterior.evaluate`
    (``index_offset``: flat index of ``conc[0]``, its random-stream key; ``progress``
    is called as ``progress(matrices_done, B)`` from the calling thread)."""

    sampling: SamplingArgs
    keep_draws: bool
    workers: int
    max_memory: int
    index_offset: int = 0
    progress: Progress | None = None


def _prime_allocator(nbytes: int) -> None:
    """Allocate and free one block of ``nbytes`` (its pages are never touched).

    glibc's malloc raises its mmap threshold to the size of a freed mmap-ed block, and
    its trim threshold to twice that (up to 32 MiB; mallopt(3), "dynamic mmap
    threshold"). Afterwards, the temporaries that numpy allocates for every chunk (the
    metrics' arrays, up to a chunk's size) come from the heap and are reused, instead
    of fresh pages each time: a first call in a fresh process made 80,000 minor page
    faults for 5,000 3x3 matrices, and ran 1.6 times slower, without this. With other
    allocators it is one allocation that is never used.
    """
    block = np.empty(nbytes, dtype=np.uint8)
    del block


def run(
    conc: np.ndarray,
    metrics: Sequence[tuple[str, MetricFn]],
    scores: dict[str, np.ndarray],
    values: Callable[[MetricFn, np.ndarray, str], np.ndarray],
    settings: RunSettings,
    *,
    prevalence: PrevalenceDraws | None = None,
    chance: bool = False,
    mixture: RecallMixture | None = None,
) -> tuple[dict[str, list[MetricSummary]], dict[str, list[np.ndarray]]]:
    """Summaries (and optionally draws) of every metric for a flat batch ``conc``.

    Parameters
    ----------
    conc : ndarray, shape (B, M + 1, M)
        Posterior concentrations (:func:`f1posterior._core.sampling.concentrations`).
    metrics : sequence of (name, callable)
        Metric functions of ``(..., M, M)`` tables.
    scores : dict of str to ndarray, shape (B,) or (B, K)
        Observed scores; their trailing shape gives each metric's width.
    values : callable
        ``values(fn, table, name)`` -> float64 metric values, with shape checks.
    settings : RunSettings
        Draws, seed, dtype, intervals, threads, memory budget and offset.
    prevalence : PrevalenceDraws, optional
        A target prevalence (:mod:`f1posterior.posterior.prevalence`): every cell
        chunk is re-weighted to it before the metrics (its Dirichlet's Gamma
        variates come from their own streams, keyed as the cells').
    chance : bool, default False
        Also the metrics of each draw's chance table
        (:mod:`f1posterior.posterior.chance`): ``chance`` and ``p_above_chance``.
    mixture : RecallMixture, optional
        The hierarchical prior's data of the same flat tables (None: a Dirichlet
        prior); each group's grid weights are computed once, before its draws.

    Returns
    -------
    parts : dict of str to list of MetricSummary
        Per metric, the summaries of consecutive groups of matrices (flat).
    kept : dict of str to list of ndarray
        Per metric, the draws ``(group, [K,] draws)`` of each group when
        ``keep_draws``; empty lists otherwise.
    """
    n_mat, _, m = conc.shape
    a, workers, keep_draws = settings.sampling, settings.workers, settings.keep_draws
    draws, root, dtype, index_offset = a.draws, a.root, a.dtype, settings.index_offset
    extra = {name: scores[name].shape[1:] for name, _ in metrics}
    widths = [int(np.prod(extra[name])) for name, _ in metrics]
    p = plan(
        n_mat, m, draws, widths * (1 + chance), dtype.itemsize, workers, settings.max_memory,
        mixture is not None,
    )  # fmt: skip
    keys = [name for name, _ in metrics] + [_CH + n for n, _ in metrics if chance]
    small_any = np.asarray((conc < LOG_SPACE_BELOW).any(axis=(-2, -1)))
    groups = [(g0, min(n_mat, g0 + p.group)) for g0 in range(0, n_mat, p.group)]

    # Each thread reuses its Gamma buffer, metric draws and summary scratch for every
    # chunk and group: fresh large arrays would cost page faults each time (the
    # allocator hands freed memory back to the system).
    local = threading.local()
    bd, chunk_draws = block_draws(m), p.chunk_draws
    _prime_allocator(
        min(chunk_draws * _work_bytes_per_draw(m, dtype.itemsize, sum(widths)), _CHUNK_BYTES)
    )

    def reused(key: str, size: int, dt: Any) -> np.ndarray:
        arr = getattr(local, key, None)
        if arr is None or arr.size < size:
            arr = np.empty(size, dtype=dt)
            setattr(local, key, arr)
        return arr

    gamma_size = min(chunk_draws, max(draws, 2) * n_mat) * (m + 1) * m
    group_size = min(p.group, n_mat) * draws

    n_blocks = math.ceil(draws / bd)

    def group_streams(g0: int, g1: int) -> list[np.random.Generator] | None:
        """The random streams of a group's matrices and blocks, made in one bulk call.

        None (each chunk makes its own) when there are very many: a few thousand
        generators at once are enough to make their cost negligible.
        """
        if (g1 - g0) * n_blocks > _BULK_STREAMS:
            return None
        return block_streams(root, *block_keys(index_offset + g0, index_offset + g1, 0, n_blocks))

    def group_weights(g0: int, g1: int) -> GridWeights | None:
        return None if mixture is None else mixture.weights(g0, g1)

    def sample_into(
        md: dict[str, np.ndarray],
        g0: int,
        c: tuple[int, int, int, int],
        gens: list[np.random.Generator] | None,
        w: GridWeights | None = None,
    ) -> None:
        i0, i1, d0, d1 = c
        mine = None
        if gens is not None:
            k0, k1 = d0 // bd, math.ceil(d1 / bd)
            mine = [gens[i * n_blocks + k] for i in range(i0, i1) for k in range(k0, k1)]
        size = (i1 - i0) * (d1 - d0) * (m + 1) * m
        work = reused("gamma", max(size, gamma_size), dtype)
        buf = gamma_chunk(
            conc, small_any, g0 + i0, g0 + i1, d0, d1, root, index_offset, dtype, work, mine,
            None if w is None else w.take(i0, i1),
        )  # fmt: skip
        cells = cells_inplace(buf, reused("cells", (2 * m + 1) * size // ((m + 1) * m), dtype))
        if prevalence is not None:
            b0, b1 = g0 + i0, g0 + i1
            gammas = None
            if prevalence.conc is not None:
                assert prevalence.small is not None and prevalence.root is not None
                gammas = gamma_chunk(
                    prevalence.conc, prevalence.small, b0, b1, d0, d1, prevalence.root,
                    index_offset, dtype,
                )  # fmt: skip
            prevalence.apply(cells, b0, b1, gammas)
        with shared_class_sums(cells):  # the metrics share one diagonal, row and column sums
            for name, fn in metrics:
                md[name][i0:i1, d0:d1] = values(fn, cells, name)
        if chance:
            table = chance_floor_inplace(chance_table(cells))
            with shared_class_sums(table):
                for name, fn in metrics:
                    md[_CH + name][i0:i1, d0:d1] = values(fn, table, name)

    def layout(n: int, key: str) -> tuple[int, ...]:
        return (n, draws, *extra[key.removeprefix(_CH)])

    def new_draws(n: int) -> dict[str, np.ndarray]:
        if keep_draws:  # handed back to the caller: fresh arrays
            return {k: np.empty(layout(n, k)) for k in keys}
        out = {}
        for name in keys:
            shape = layout(n, name)
            size = math.prod(shape)
            out[name] = reused("md_" + name, max(size, size // n * p.group), np.float64)
            out[name] = out[name][:size].reshape(shape)
        return out

    def finish(md: dict[str, np.ndarray], g0: int, g1: int) -> tuple[list[Any], list[Any]]:
        summaries, kept = [], []
        for name, _ in metrics:
            x = np.moveaxis(md[name], 1, -1)
            if not np.isfinite(x).all():
                raise ValueError(f"metric {name!r} returned non-finite values on posterior draws")
            x = np.ascontiguousarray(x)
            work = reused("summary", max(x.size, group_size * max(widths)), np.float64)
            score = scores[name][g0:g1]
            s = summarize_rows(x, score=score, ci_prob=a.ci_prob, ref=a.ref, work=work)
            if chance:
                xc = np.moveaxis(md[_CH + name], 1, -1)
                s = with_chance(s, x, xc, name)
            summaries.append(s)
            kept.append(x if keep_draws else None)
        return summaries, kept

    def whole_group(g: tuple[int, int]) -> tuple[list[Any], list[Any]]:
        g0, g1 = g
        md = new_draws(g1 - g0)
        gens = group_streams(g0, g1)
        w = group_weights(g0, g1)
        for c in _chunks(g1 - g0, draws, bd, chunk_draws, 1):
            sample_into(md, g0, c, gens, w)
        return finish(md, g0, g1)

    parts, kept, collect = collector(
        [name for name, _ in metrics], keep_draws, n_mat, settings.progress
    )

    if (
        workers > 1
        and not keep_draws
        and not p.parallel_draws
        and len(groups) > 1
        and n_mat * draws * (m + 1) * m >= _PROCESS_MIN_VARIATES
        and _can_fork()
    ):
        # Past the GIL: each worker process runs whole groups, as a thread would, and
        # hands back their summaries (kept draws would be too large to send). Streams
        # are keyed by matrix index, so the numbers are the same bit for bit.
        global _FORKED
        _FORKED = whole_group
        try:
            run_forked(groups, workers, collect)
        finally:
            _FORKED = None
        return parts, kept

    def split_group(g: tuple[int, int], pool: Executor) -> tuple[list[Any], list[Any]]:
        g0, g1 = g
        md = new_draws(g1 - g0)
        pieces = _chunks(g1 - g0, draws, bd, chunk_draws, workers)
        gens = group_streams(g0, g1)
        w = group_weights(g0, g1)
        list(pool.map(lambda c: sample_into(md, g0, c, gens, w), pieces))
        return finish(md, g0, g1)

    run_groups(groups, whole_group, split_group, workers, p.parallel_draws, collect)
    return parts, kept


Group = tuple[int, int]
GroupResult = tuple[list[Any], list[Any]]


def run_forked(
    groups: Sequence[Group], workers: int, collect: Callable[[Group, GroupResult], None]
) -> None:
    """Run the groups in order on ``workers`` forked processes (``_FORKED`` set).

    The workers die with this process (:func:`~f1posterior._core.signals.die_with_parent`:
    even when it is killed) and ignore SIGINT; on any exception here, an interrupt
    included, they are killed at once rather than left to finish their groups.
    """
    ctx = multiprocessing.get_context("fork")
    before = set(multiprocessing.active_children())
    procs = ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=die_with_parent, initargs=(os.getpid(),)
    )
    try:
        # submitted futures, never cancelled: a cancelled one makes the pool's manager
        # thread fail (InvalidStateError) when the killed workers break the pool
        with signals_deferred():  # the forks (and their at-fork callbacks) run here
            futures = deque(procs.submit(_forked_group, g) for g in groups)
        for g in groups:
            fut = futures.popleft()
            while not wait([fut], timeout=0.1).done:
                raise_if_stopped()  # a stop whose KeyboardInterrupt Python dropped
            collect(g, fut.result())
    except BaseException:
        stop_processes([p for p in multiprocessing.active_children() if p not in before])
        procs.shutdown(wait=False)
        raise
    procs.shutdown(wait=True)


def collector(
    names: Sequence[str], keep_draws: bool, n_mat: int, progress: Progress | None
) -> tuple[dict[str, list[Any]], dict[str, list[Any]], Callable[[Group, GroupResult], None]]:
    """Per-metric lists of group summaries (and kept draws), and the ``collect`` that fills them.

    ``collect(group, (summaries, draws))`` appends one group's results in metric order
    and reports progress; groups must be collected in order.
    """
    parts: dict[str, list[Any]] = {name: [] for name in names}
    kept: dict[str, list[Any]] = {name: [] for name in names}
    done = 0

    def collect(g: Group, result: GroupResult) -> None:
        nonlocal done
        raise_if_stopped()  # the command line was interrupted: stop between groups
        for name, s, x in zip(names, *result, strict=True):
            parts[name].append(s)
            if keep_draws:
                kept[name].append(x)
        done += g[1] - g[0]
        if progress is not None:
            progress(done, n_mat)

    return parts, kept, collect


def run_groups(
    groups: Sequence[Group],
    whole_group: Callable[[Group], GroupResult],
    split_group: Callable[[Group, Executor], GroupResult],
    workers: int,
    parallel_draws: bool,
    collect: Callable[[Group, GroupResult], None],
) -> None:
    """Run the groups in order on ``workers`` threads: whole groups in parallel, or, when
    there are fewer matrices than workers, one group at a time with its draws split
    across the threads (``split_group``)."""
    pool: Executor | None = ThreadPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        if pool is None:
            for g in groups:
                collect(g, whole_group(g))
        elif not parallel_draws:
            for g, result in zip(groups, pool.map(whole_group, groups), strict=True):
                collect(g, result)
        else:
            for g in groups:
                collect(g, split_group(g, pool))
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
