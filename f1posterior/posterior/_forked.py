"""Forked worker processes of the batch engine (:mod:`f1posterior.posterior._batch`).

Design notes: docs/design.md#posterior-batch
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.signals import die_with_parent, raise_if_stopped

if TYPE_CHECKING:
    from ._batch import Chunk, Engine, Group, GroupResult

__all__ = ["ForkedWorker", "await_result"]


def await_result(fut: Any) -> Any:
    """The result of a worker's future, checking for a stop while waiting."""
    from concurrent.futures import wait

    while not wait([fut], timeout=0.1).done:
        raise_if_stopped()  # a stop whose KeyboardInterrupt Python dropped
    return fut.result()


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
        assert ForkedWorker.engine is not None
        return ForkedWorker.engine.group(g)

    @staticmethod
    def run_range(g: Group, chunks: list[Chunk]) -> dict[str, np.ndarray]:
        assert ForkedWorker.engine is not None
        return ForkedWorker.engine.range_of(g, chunks)
