"""The seed a result records: a SeedSequence that reproduces the run and compares by value.

A run's random streams are all derived from its root
:class:`numpy.random.SeedSequence` by its entropy *and* spawn key
(:func:`f1posterior._core.validation.child_seed`). The entropy alone does not
reproduce a run started from a child SeedSequence (one with a spawn key) or
from a Generator (whose four drawn words are the entropy). :class:`RunSeed` is
that root itself, as a SeedSequence subclass, so it is accepted back as
``rng=``, and it compares and hashes by value, so equal results stay equal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["RunSeed", "run_seed", "seed_json"]


class RunSeed(np.random.SeedSequence):
    """The root SeedSequence of a run: pass it back as ``rng=`` to repeat the run.

    Equal, by value, to a SeedSequence with the same entropy, spawn key and pool
    size, and to the int ``entropy`` when it has no spawn key (the seed of
    ``rng=int``). Printed as that int, or as ``entropy/spawn_key``.

    Examples
    --------
    >>> s = run_seed(np.random.SeedSequence(7))
    >>> s == 7, str(s), s.to_json()
    (True, '7', 7)
    >>> c = run_seed(np.random.SeedSequence(7, spawn_key=(3,)))
    >>> str(c), c.to_json()
    ('7/3', {'entropy': 7, 'spawn_key': [3]})
    """

    def _key(self) -> tuple[Any, ...]:
        ent = self.entropy
        ent = tuple(ent) if isinstance(ent, list | tuple) else ent
        return (ent, self.spawn_key, self.pool_size)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, np.random.SeedSequence):
            return self._key() == RunSeed._key(other)  # type: ignore[arg-type]
        if isinstance(other, int) and not isinstance(other, bool):
            return not self.spawn_key and self.entropy == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.entropy if self._plain() else self._key())

    def _plain(self) -> bool:
        return not self.spawn_key and isinstance(self.entropy, int)

    def __str__(self) -> str:
        if self._plain():
            return str(self.entropy)
        ent = self.entropy
        text = "-".join(map(str, ent)) if isinstance(ent, list | tuple) else str(ent)
        return "/".join([text, *map(str, self.spawn_key)])

    def __repr__(self) -> str:
        return f"RunSeed(entropy={self.entropy!r}, spawn_key={self.spawn_key!r})"

    def to_json(self) -> Any:
        """The int entropy when there is no spawn key, else ``{"entropy", "spawn_key"}``.

        ``numpy.random.SeedSequence(**d)`` of the dictionary form rebuilds the seed.
        """
        if self._plain():
            return self.entropy
        ent = self.entropy
        return {
            "entropy": list(ent) if isinstance(ent, list | tuple) else ent,
            "spawn_key": list(self.spawn_key),
        }


def run_seed(root: np.random.SeedSequence) -> RunSeed:
    """The :class:`RunSeed` of a root SeedSequence (same entropy, spawn key, pool size)."""
    if isinstance(root, RunSeed):
        return root
    return RunSeed(root.entropy, spawn_key=root.spawn_key, pool_size=root.pool_size)


def seed_json(seed: Any) -> Any:
    """The JSON form of a result's ``seed``: :meth:`RunSeed.to_json`, else ``seed`` itself."""
    return seed.to_json() if isinstance(seed, RunSeed) else seed
