"""Forked worker processes of the batch engine (:mod:`f1posterior.posterior._batch`).

Design notes: docs/design.md#posterior-batch
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.signals import die_with_parent, raise_if_stopped

if TYPE_CHECKING:
    from ._batch import Chunk, Engine, Group, GroupResult

__all__ = ["ForkedWorker", "await_result", "shared_array", "shared_kept"]


def await_result(fut: Any) -> Any:
    """The result of a worker's future, checking for a stop while waiting."""
    from concurrent.futures import wait

    while not wait([fut], timeout=0.1).done:
        raise_if_stopped()  # a stop whose KeyboardInterrupt Python dropped
    return fut.result()


def shared_array(shape: tuple[int, ...]) -> np.ndarray:
    """A float64 array of ``shape`` in anonymous shared memory: what a worker forked after
    it writes there, its parent sees (the kept draws, never sent through a pipe)."""
    import mmap

    size = math.prod(shape)
    return np.frombuffer(mmap.mmap(-1, max(1, 8 * size)), count=size).reshape(shape)


def shared_kept(measure: Any, n: int) -> dict[str, np.ndarray]:
    """Shared arrays for the kept draws of ``n`` tables of every name of ``measure``
    (whose ``kept_shape(name)`` is one table's)."""
    return {name: shared_array((n, *measure.kept_shape(name))) for name in measure.names}


class ForkedWorker:
    """A forked worker process's engine: set by the worker's initializer (in the worker
    only), from the engine its parent passed explicitly."""

    engine: Engine | None = None

    @staticmethod
    def start(parent: int, engine: Engine) -> None:
        die_with_parent(parent)
        ForkedWorker.engine = engine

    @staticmethod
    def run(g: Group) -> GroupResult:
        """One group: its summaries, and its kept draws written to the shared arrays."""
        engine = ForkedWorker.engine
        assert engine is not None
        summaries, kept = engine.group(g)
        if engine.shared is None:
            return summaries, kept
        for x, out in zip(kept, engine.shared.values(), strict=True):
            out[g[0] : g[1]] = x
        return summaries, [None] * len(kept)

    @staticmethod
    def run_range(g: Group, chunks: list[Chunk]) -> dict[str, np.ndarray]:
        assert ForkedWorker.engine is not None
        return ForkedWorker.engine.range_of(g, chunks)
