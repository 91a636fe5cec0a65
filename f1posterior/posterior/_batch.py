"""The batch engine behind :func:`f1posterior.evaluate` and :func:`f1posterior.evaluate_multilabel`.

Groups of tables, chunks of draws, threads or forked workers; results are bit-identical
whatever ``workers`` and ``max_memory`` are.

Design notes: docs/design.md#posterior-batch
"""

from __future__ import annotations

import math
import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .._core.describe import describe
from .._core.sampling import (
    LOG_SPACE_BELOW,
    block_draws,
    cells_inplace,
    floor_checks,
    gamma_chunk,
    short_blocks,
)
from .._core.signals import raise_if_stopped, signals_deferred, stop_processes
from .._core.streams import block_keys, block_streams
from .._core.validation import SamplingArgs
from ._summary import MetricSummary, summarize_rows

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from .._core.hierarchical import GridWeights, RecallMixture
    from ._prevalence import PrevalenceDraws

__all__ = ["RunSettings", "Measure", "Engine", "Scratch", "plan", "check_fits", "check_progress"]

#: Streams of a group are made in one bulk call when there are at most this many.
_BULK_STREAMS = 4096
#: Working bytes of one cell chunk, at most (whatever the budget): small chunks stay in
#: the processor's caches through sampling, normalising and every metric.
CHUNK_BYTES = 8 << 20
#: ... unless that leaves fewer draws in a chunk (large M); a larger random block: a chunk.
_MIN_CHUNK_DRAWS = 512
#: Bytes of one group's metric draws and summary temporaries, at most.
_GROUP_BYTES = 16 << 20
#: With several workers, a batch is cut into at least this many groups per worker.
_GROUPS_PER_WORKER = 4

#: With several workers, batches of at least this many Gamma variates run on forked
#: worker processes instead of threads, where forking is safe (:func:`can_fork`).
PROCESS_MIN_VARIATES = 1 << 22
#: One table's draws are split over threads only from this many Gamma variates (a 3 x 3
#: table at 50,000 draws, 600,000, runs on the calling thread: threads would cost more).
THREAD_MIN_VARIATES = 1 << 21

MetricFn = Callable[[np.ndarray], Any]
Progress = Callable[[int, int], None]
Group = tuple[int, int]  # tables [g0, g1) of the flat stack
Chunk = tuple[int, int, int, int]  # tables [i0, i1) of a group, draws [d0, d1)
#: Per name of the measure, a group's summary and kept draws (None: nothing this group).
GroupResult = tuple[list[Any], list[Any]]


def can_fork() -> bool:
    """Whether workers may be forked: ``fork`` exists, one thread runs (no other thread's
    lock can be copied held) and this process is not daemonic (it may have children)."""
    import multiprocessing  # here: a run with one worker never loads it

    return (
        "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and not multiprocessing.current_process().daemon
    )


def _work_bytes_per_draw(m: int, itemsize: int, metric_width: float) -> int:
    """Working bytes per table-draw of a cell chunk, at most: the Gamma buffer, row sums
    and scales, the metrics' temporaries (a few float64 ``(..., M)`` arrays) and outputs."""
    return int(itemsize * (m + 1) * (m + 3) + 8 * (12 * m + 2 * metric_width))


def _mixture_bytes_per_draw(m: int, itemsize: int) -> int:
    """Working bytes per table-draw of the hierarchical prior's mixture in a cell chunk
    (:func:`f1posterior._core.blocks.fill_mixture_chunk`'s uniforms, shapes, components,
    indices, extra Gammas, row sums and log-space maxima)."""
    return 8 * (m + 1) * 2 + 8 * m * 5 + m + itemsize * m * 3


@dataclass(frozen=True)
class Plan:
    """Sizes of a run: ``group`` tables per group, ``chunk_draws`` table-draws per cell
    chunk, ``span`` tables per unit, and whether a group's draws run in parallel."""

    n: int
    span: int
    group: int
    chunk_draws: int
    parallel_draws: bool

    def groups(self) -> list[Group]:
        """The groups in order: whole units, or the consecutive parts of each unit."""
        if self.group >= self.span:
            return [(g0, min(self.n, g0 + self.group)) for g0 in range(0, self.n, self.group)]
        parts = range(0, self.span, self.group)
        return [(u + p, u + min(self.span, p + self.group)) for u in range(0, self.n, self.span)
                for p in parts]  # fmt: skip


def plan(
    n_mat: int,
    m: int,
    draws: int,
    widths: Sequence[float],
    itemsize: int,
    workers: int,
    budget: int,
    mixture: bool = False,
    span: int = 1,
) -> Plan:
    """Group and chunk sizes for ``n_mat`` tables within ``budget`` bytes.

    ``widths``: float64 values a group holds per table and draw, per metric;
    ``mixture``: under the hierarchical prior's mixture, whose chunks hold more per
    draw; ``span``: tables per unit (groups hold whole units when one fits).
    """
    half = max(1, budget // workers) // 2  # of a worker's share
    # metric draws held for a group, plus the summary's partition copy, tails and masks
    per_table = 8 * draws * (sum(widths) + 3 * max(widths))
    per_draw = _work_bytes_per_draw(m, itemsize, sum(widths))
    if mixture:
        per_draw += _mixture_bytes_per_draw(m, itemsize)
    # cache-sized, but with enough draws that numpy's loops over the draws axis stay long
    chunk = max(1, min(half // per_draw, max(CHUNK_BYTES // per_draw, _MIN_CHUNK_DRAWS)))
    one = short_blocks(m) or block_draws(m) * per_draw > CHUNK_BYTES  # in place; in cache
    chunk = min(chunk, block_draws(m)) if one else chunk
    cap = min(half, _GROUP_BYTES)
    if span > 1 and per_table * span > cap:  # one unit's tables in several groups, in order
        return Plan(n_mat, span, max(1, int(cap // per_table)), chunk, True)
    n_units = n_mat // span
    group = max(1, min(int(cap // (per_table * span)), math.ceil(n_units / workers)))
    if workers > 1 and n_units > workers:
        # a whole number of groups per worker, and a few each, so that no worker idles
        # at the end (5 groups on 2 threads took as long as 6) and a worker slowed by
        # other load is made up for by the other
        n_groups = max(math.ceil(n_units / group), min(n_units, _GROUPS_PER_WORKER * workers))
        n_groups = min(n_units, math.ceil(n_groups / workers) * workers)
        group = math.ceil(n_units / n_groups)
    return Plan(n_mat, span, group * span, chunk, n_units < workers)


def _size(n: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{int(n)} bytes"


def check_fits(m: int, draws: int, widths: Sequence[int], itemsize: int, budget: int) -> None:
    """Refuse, before anything is allocated, a request whose one matrix cannot fit ``budget``:
    its parameters (about six ``(M + 1) x M`` float64 arrays), one random block of its cell
    draws and its metric draws with the summary's temporaries are always held."""
    params = 6 * 8 * (m + 1) * m
    block = min(draws, block_draws(m)) * _work_bytes_per_draw(m, itemsize, sum(widths))
    metric = 8 * draws * (sum(widths) + 3 * max(widths, default=1))
    if (need := params + block + metric) > budget:
        raise ValueError(
            f"one matrix of M = {m:,} classes at {draws:,} draws needs about {_size(need)} of "
            f"working memory (parameters {_size(params)}, metric draws {_size(metric)}), more "
            f"than max_memory = {_size(budget)}; raise max_memory (--max-memory on the command "
            "line) or lower draws"
        )


def check_progress(progress: Any) -> Progress | None:
    """``progress``: None or a callable ``progress(done, total)``."""
    if progress is not None and not callable(progress):
        raise TypeError(
            f"progress must be a callable(done, total) or None; got {describe(progress)}"
        )
    return progress


def _tasks(n: int, draws: int, bd: int, chunk_draws: int, split: int) -> list[list[Chunk]]:
    """Cell chunks ``(i0, i1, d0, d1)`` covering ``n`` tables x ``draws``, as tasks.

    A task is one range of draws (whole random blocks, two draws or more) over every
    table, in table order; with ``split > 1`` the draws are cut into at least ``split``
    ranges where there are enough random blocks (``bd`` draws each), and the tasks may
    run in parallel.
    """
    if split <= 1 and draws <= chunk_draws:
        edges = [0, draws]
    else:
        max_blocks = max(1, chunk_draws // bd)
        if split > 1:
            max_blocks = min(max_blocks, math.ceil(math.ceil(draws / bd) / split))
        # as sampling.draw_chunks, for any block size
        edges = [*range(0, draws, max(2, max_blocks * bd)), draws]
        if len(edges) > 2 and edges[-1] - edges[-2] == 1:
            del edges[-2]
    out = []
    for d0, d1 in zip(edges[:-1], edges[1:], strict=True):
        per = max(1, chunk_draws // (d1 - d0))
        out.append([(i, min(n, i + per), d0, d1) for i in range(0, n, per)])
    return out


@dataclass(frozen=True)
class RunSettings:
    """The checked settings of a run, as in :func:`f1posterior.evaluate`
    (``index_offset``: flat index of ``conc[0]``, its random-stream key; ``progress``
    is called as ``progress(tables_done, tables)`` from the calling thread)."""

    sampling: SamplingArgs
    keep_draws: bool
    workers: int
    max_memory: int
    index_offset: int = 0
    progress: Progress | None = None


class Scratch(threading.local):
    """Working arrays that each thread reuses for every chunk and group: fresh large
    arrays would cost page faults each time (the allocator hands freed memory back)."""

    def __init__(self) -> None:  # run again in each thread that uses it
        self.arrays: dict[str, np.ndarray] = {}

    def get(self, key: str, size: int, dtype: Any) -> np.ndarray:
        arr = self.arrays.get(key)
        if arr is None or arr.size < size:
            arr = self.arrays[key] = np.empty(size, dtype=dtype)
        return arr

    def array(self, key: str, shape: tuple[int, ...], fresh: bool) -> np.ndarray:
        """float64 metric draws of ``shape``: fresh (to hand back) or reused."""
        size = math.prod(shape)
        return np.empty(shape) if fresh else self.get(key, size, np.float64)[:size].reshape(shape)

    def summarize(
        self, name: str, x: np.ndarray, score: Any, a: SamplingArgs, size: int = 0
    ) -> MetricSummary:
        """:func:`summarize_rows` of a group's draws ``x`` (a ValueError unless finite).

        Finiteness is read from the means first: a row's sum is finite only if every
        draw of it is (a NaN or an infinity stays in the sum), so the draws are
        scanned only when a mean is not finite (an infinity, or a sum past the
        float range)."""
        work = self.get("summary", max(x.size, size), np.float64)
        with np.errstate(all="ignore"):  # non-finite draws are refused below
            s = summarize_rows(x, score=score, ci_prob=a.ci_prob, ref=a.ref, work=work)
        if not np.isfinite(s.mean).all() and not np.isfinite(x).all():
            raise ValueError(f"metric {name!r} returned non-finite values on posterior draws")
        return s


class Measure(Protocol):
    """The metric side of a run: what a group holds, what a chunk adds, and its summaries.

    ``names`` are the summarised metrics; ``shapes`` the shapes their groups' flat
    leading axis is joined into (the batch, with the label axis for per-label
    metrics); ``widths`` the float64 values a group holds per table and draw (for
    the plan); ``span`` the tables of one unit.
    ``add`` may run on several threads at once for disjoint ranges of draws; for one
    range of draws it sees the tables in order. A measure whose ``draw_ranges`` is
    true (its held arrays a dict of arrays, the draws on axis 1) may have the ranges
    measured on forked workers, each into its own held arrays.
    """

    names: list[str]
    shapes: dict[str, tuple[int, ...]]
    widths: list[float]
    span: int

    def open(self, g0: int, g1: int, fresh: bool, scratch: Scratch) -> Any: ...

    def add(self, held: Any, cells: np.ndarray, g0: int, c: Chunk) -> None: ...

    def close(self, held: Any, g0: int, g1: int, scratch: Scratch) -> GroupResult: ...


def _prime_allocator(nbytes: int) -> None:
    """Allocate and free one untouched block of ``nbytes``: glibc's malloc then raises its
    mmap and trim thresholds (mallopt(3)), so numpy's per-chunk temporaries are reused
    from the heap instead of fresh pages (without it, 5,000 3x3 matrices in a fresh
    process made 80,000 page faults and ran 1.6 times slower)."""
    block = np.empty(nbytes, dtype=np.uint8)
    del block


class Engine:
    """One batch run of a :class:`Measure` over a flat stack of tables.

    ``Engine(conc, measure, settings).run()`` gives, per name of the measure, the
    joined :class:`MetricSummary` and, with ``keep_draws``, the draws (shape
    ``measure.shapes[name]``, any class axis, then the draws); otherwise None.

    Parameters
    ----------
    conc : ndarray, shape (B, M + 1, M)
        Posterior concentrations (:func:`f1posterior._core.sampling.concentrations`).
    measure : Measure
        The metric side (evaluate's :class:`~f1posterior.posterior._assemble.TableMetrics`,
        or the multi-label one).
    settings : RunSettings
        Draws, seed, dtype, intervals, workers, memory budget, offset and progress.
    prevalence : PrevalenceDraws, optional
        A target prevalence that every chunk of cells is re-weighted to (its
        Dirichlet's Gamma variates from their own streams, keyed as the cells').
    mixture : RecallMixture, optional
        The hierarchical prior's data of the same flat tables (None: a Dirichlet prior).
    whole : bool, default False
        One table, whose summaries the measure gives with that table's own fields
        (scalars): nothing to join.
    """

    def __init__(
        self,
        conc: np.ndarray,
        measure: Measure,
        settings: RunSettings,
        *,
        prevalence: PrevalenceDraws | None = None,
        mixture: RecallMixture | None = None,
        whole: bool = False,
    ) -> None:
        self.conc, self.measure, self.settings = conc, measure, settings
        self.prevalence, self.mixture, self.whole = prevalence, mixture, whole
        n, _, m = conc.shape
        a = settings.sampling
        self.plan = plan(n, m, a.draws, measure.widths, a.dtype.itemsize, settings.workers,
                         settings.max_memory, mixture is not None, measure.span)  # fmt: skip
        self.small_any = np.asarray((conc < LOG_SPACE_BELOW).any(axis=(-2, -1)))
        self.checks = floor_checks(conc, self.small_any, a.dtype)
        self.bd = block_draws(m)
        self.n_blocks = math.ceil(a.draws / self.bd)
        self.gamma_size = min(self.plan.chunk_draws, max(a.draws, 2) * n) * (m + 1) * m
        self.scratch, self.done = Scratch(), 0
        #: Kept draws of every table in memory shared with forked workers (None: sent back).
        self.shared: dict[str, np.ndarray] | None = None

    def run(self) -> tuple[dict[str, MetricSummary], dict[str, np.ndarray] | None]:
        """Summaries (joined) and, with ``keep_draws``, the draws of every name."""
        m, itemsize = self.conc.shape[-1], self.settings.sampling.dtype.itemsize
        per_draw = _work_bytes_per_draw(m, itemsize, sum(self.measure.widths))
        _prime_allocator(min(self.plan.chunk_draws * per_draw, CHUNK_BYTES))
        self.parts: dict[str, list[Any]] = {name: [] for name in self.measure.names}
        self.kept: dict[str, list[Any]] = {name: [] for name in self.measure.names}
        self.done, groups = 0, self.plan.groups()
        (self.processes if self.use_processes(groups) else self.threads)(groups)
        return self.join()

    def use_processes(self, groups: Sequence[Group]) -> bool:
        """Past the GIL: forked workers run whole groups and hand back their summaries
        (kept draws would be too large to send), or, when the tables are fewer than the
        workers (``parallel_draws``) and the measure allows it (``draw_ranges``), ranges
        of a group's draws and hand back their metric draws (a few values per draw), so
        that draws may be kept. Streams are keyed by table index and block, so the
        numbers are the same bit for bit."""
        s, (n, m1, m) = self.settings, self.conc.shape
        if s.workers <= 1 or n * s.sampling.draws * m1 * m < PROCESS_MIN_VARIATES:
            return False
        ranges = bool(getattr(self.measure, "draw_ranges", False))
        if self.plan.parallel_draws:
            return ranges and can_fork()
        return (ranges or not s.keep_draws) and len(groups) > 1 and can_fork()

    def collect(self, g: Group, result: GroupResult) -> None:
        """Collect one group's results (groups in order) and report progress."""
        raise_if_stopped()  # the command line was interrupted: stop between groups
        for name, summary, x in zip(self.measure.names, *result, strict=True):
            if summary is not None:
                self.parts[name].append(summary)
                if self.settings.keep_draws:
                    self.kept[name].append(x)
        self.done += g[1] - g[0]
        if self.settings.progress is not None:
            self.settings.progress(self.done, len(self.conc))

    def join(self) -> tuple[dict[str, MetricSummary], dict[str, np.ndarray] | None]:
        """The summaries of the groups joined into the measure's shapes (and the draws)."""
        shapes = self.measure.shapes
        summaries = {
            n: p[0] if self.whole else MetricSummary.concat(p, shapes[n])
            for n, p in self.parts.items()
        }
        if not self.settings.keep_draws:
            return summaries, None
        if self.shared is not None:  # written by the forked workers
            kept = self.shared
            return summaries, {n: x.reshape(shapes[n] + x.shape[1:]) for n, x in kept.items()}
        return summaries, {
            n: np.concatenate(k).reshape(shapes[n] + k[0].shape[1:]) for n, k in self.kept.items()
        }

    def streams(self, g0: int, g1: int) -> list[np.random.Generator] | None:
        """The random streams of a group's tables and blocks, made in one bulk call (None
        when there are more than a few thousand: each chunk then makes its own)."""
        if (g1 - g0) * self.n_blocks > _BULK_STREAMS:
            return None
        offset = self.settings.index_offset
        return block_streams(
            self.settings.sampling.root, *block_keys(offset + g0, offset + g1, 0, self.n_blocks)
        )

    def draw(
        self, g0: int, c: Chunk, gens: list[np.random.Generator] | None, w: GridWeights | None
    ) -> np.ndarray:
        """Cell draws ``(i1 - i0, d1 - d0, M, M)`` of one chunk of a group (a reused buffer)."""
        i0, i1, d0, d1 = c
        a, offset, m = self.settings.sampling, self.settings.index_offset, self.conc.shape[-1]
        mine = None
        if gens is not None:
            k0, k1 = d0 // self.bd, math.ceil(d1 / self.bd)
            mine = [gens[i * self.n_blocks + k] for i in range(i0, i1) for k in range(k0, k1)]
        size = (i1 - i0) * (d1 - d0) * (m + 1) * m
        work = self.scratch.get("gamma", max(size, self.gamma_size), a.dtype)
        buf = gamma_chunk(
            self.conc, self.small_any, g0 + i0, g0 + i1, d0, d1, a.root, offset, a.dtype, work,
            mine, None if w is None else w.take(i0, i1),
        )  # fmt: skip
        work = self.scratch.get("cells", (2 * m + 1) * size // ((m + 1) * m), a.dtype)
        check = None if self.checks is None else self.checks[g0 + i0 : g0 + i1]
        cells = cells_inplace(buf, work, check)
        p = self.prevalence
        if p is not None:
            b0, b1 = g0 + i0, g0 + i1
            gammas = None
            if p.conc is not None:
                assert p.small is not None and p.root is not None
                gammas = gamma_chunk(p.conc, p.small, b0, b1, d0, d1, p.root, offset, a.dtype)
            p.apply(cells, b0, b1, gammas)
        return cells

    def group(self, g: Group, pool: Executor | None = None) -> GroupResult:
        """Draw, measure and summarise one group (its ranges of draws on ``pool``, if given)."""
        g0, g1 = g
        held = self.measure.open(g0, g1, self.settings.keep_draws, self.scratch)
        gens = self.streams(g0, g1)
        w = None if self.mixture is None else self.mixture.weights(g0, g1)
        split = 1 if pool is None else self.settings.workers
        tasks = _tasks(g1 - g0, self.settings.sampling.draws, self.bd, self.plan.chunk_draws, split)
        args = [(held, g0, t, gens, w) for t in tasks]
        list(map(self.task, args) if pool is None else pool.map(self.task, args))
        summaries, kept = self.measure.close(held, g0, g1, self.scratch)
        return summaries, kept if self.settings.keep_draws else [None] * len(kept)

    def task(self, args: tuple[Any, int, list[Chunk], Any, GridWeights | None]) -> None:
        """Draw and measure a task's chunks of a group, in order."""
        held, g0, chunks, gens, w = args
        for c in chunks:
            self.measure.add(held, self.draw(g0, c, gens, w), g0, c)

    def threads(self, groups: Sequence[Group]) -> None:
        """Run the groups in order on ``workers`` threads: whole groups in parallel, or one
        group at a time with its ranges of draws in parallel (``parallel_draws``)."""
        s, (n, m1, m) = self.settings, self.conc.shape
        workers, pool = s.workers, None
        small = self.plan.parallel_draws and n * s.sampling.draws * m1 * m < THREAD_MIN_VARIATES
        if workers > 1 and not small:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(max_workers=workers)
        try:
            if pool is None:
                for g in groups:
                    self.collect(g, self.group(g))
            elif not self.plan.parallel_draws:
                for g, result in zip(groups, pool.map(self.group, groups), strict=True):
                    self.collect(g, result)
            else:
                for g in groups:
                    self.collect(g, self.group(g, pool))
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)

    def processes(self, groups: Sequence[Group]) -> None:
        """Run the groups in order on ``workers`` forked processes.

        Each worker inherits this engine in the fork (it is handed to the worker's
        initializer, never pickled) and runs whole groups with it. The workers die
        with this process (:func:`~f1posterior._core.signals.die_with_parent`: even
        when it is killed) and ignore SIGINT; on any exception here, an interrupt
        included, they are killed at once rather than left to finish their groups.
        """
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from ._forked import ForkedWorker, await_result, shared_kept

        if self.settings.keep_draws and not self.plan.parallel_draws:
            self.shared = shared_kept(self.measure, len(self.conc))
        ctx = multiprocessing.get_context("fork")
        before = set(multiprocessing.active_children())
        procs = ProcessPoolExecutor(
            max_workers=self.settings.workers, mp_context=ctx, initializer=ForkedWorker.start,
            initargs=(os.getpid(), self),
        )  # fmt: skip
        try:
            if self.plan.parallel_draws:
                for g in groups:
                    self.collect(g, self.ranges_on(procs, g))
            else:
                # submitted futures, never cancelled: a cancelled one makes the pool's
                # manager thread fail (InvalidStateError) when the killed workers break it
                with signals_deferred():  # the forks (and their at-fork callbacks) run here
                    futures = deque(procs.submit(ForkedWorker.run, g) for g in groups)
                for g in groups:
                    self.collect(g, await_result(futures.popleft()))
        except BaseException:
            stop_processes([p for p in multiprocessing.active_children() if p not in before])
            procs.shutdown(wait=False)
            raise
        procs.shutdown(wait=True)

    def ranges_on(self, procs: Executor, g: Group) -> GroupResult:
        """One group whose ranges of draws run on the forked workers ``procs``: each hands
        back the metric draws of its range (:meth:`range_of`); summarised here."""
        from ._forked import ForkedWorker, await_result

        g0, g1 = g
        s = self.settings
        held = self.measure.open(g0, g1, s.keep_draws, self.scratch)
        tasks = _tasks(g1 - g0, s.sampling.draws, self.bd, self.plan.chunk_draws, s.workers)
        with signals_deferred():  # the first submission forks the workers
            futures = [procs.submit(ForkedWorker.run_range, g, t) for t in tasks]
        for t, fut in zip(tasks, futures, strict=True):
            d0, d1 = t[0][2], t[0][3]
            for key, part in await_result(fut).items():
                held[key][:, d0:d1] = part
        summaries, kept = self.measure.close(held, g0, g1, self.scratch)
        return summaries, kept if s.keep_draws else [None] * len(kept)

    def range_of(self, g: Group, chunks: list[Chunk]) -> dict[str, np.ndarray]:
        """Draw and measure one range of draws of group ``g`` (the ``chunks`` of one task
        of :func:`_tasks`): the metric draws of that range, per key of the measure's
        held arrays (a dict of arrays, the draws on axis 1: ``draw_ranges``)."""
        g0, g1 = g
        held = self.measure.open(g0, g1, False, self.scratch)
        w = None if self.mixture is None else self.mixture.weights(g0, g1)
        self.task((held, g0, chunks, self.streams(g0, g1), w))
        d0, d1 = chunks[0][2], chunks[0][3]
        return {key: x[:, d0:d1].copy() for key, x in held.items()}
