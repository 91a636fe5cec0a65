"""Random streams: the defaults, the one derivation and the seed a result records.

Every stream of a run is derived from its root :class:`numpy.random.SeedSequence`
(:func:`f1posterior._core.validation.check_rng`) by :func:`child_seed`: the
sampler's one Generator per (matrix, block of draws), one by one
(:func:`block_stream`) or, for many keys at once, by the same SeedSequence
algorithm vectorised over uint32 words (:func:`block_streams`); and every
keyed sub-stream of the analyses. :class:`RunSeed` is the root a result records.
"""

from __future__ import annotations

import functools
from typing import Any, cast

import numpy as np
from numpy.random.bit_generator import ISeedSequence

__all__ = [
    "DEFAULT_DRAWS",
    "DEFAULT_SEED",
    "RunSeed",
    "block_keys",
    "block_stream",
    "block_streams",
    "child_seed",
    "run_seed",
    "seed_json",
]

#: Default seed of every command and of the gate: a verdict never changes run to run.
DEFAULT_SEED = 20150927
#: Default number of posterior draws per matrix.
DEFAULT_DRAWS = 50_000


def child_seed(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The stream ``SeedSequence(root.entropy, spawn_key=root.spawn_key + key)``.

    Derived from the root's entropy and spawn key only, so ``root`` is never
    consumed (``root.spawn`` would advance it, and a second call with the same
    root would get other children); the same root and key give the same stream.
    """
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, *key), pool_size=root.pool_size
    )


def block_stream(root: np.random.SeedSequence, b: int, k: int) -> np.random.Generator:
    """The sampler's stream of matrix ``b`` and block of draws ``k``."""
    return np.random.Generator(np.random.PCG64(child_seed(root, b, k)))


# --- the same streams in bulk ---------------------------------------------------------
# Creating one SeedSequence per (matrix, block) costs about 10 us, as much as drawing
# ~500 Gamma variates. Every child differs from the root only in its last two spawn-key
# words, so the streams' seeds are computed here for many keys at once: the hash of
# the shared prefix (entropy and root spawn key) in Python, the last two words and the
# state generation vectorised over uint32 arrays. This is numpy's SeedSequence
# algorithm, repeated exactly (checked against SeedSequence itself for every root
# before use; tests/test_fast_paths.py compares many roots and keys); PCG64 is then
# seeded by numpy from these words, as it would be from the SeedSequence.
_M32 = 0xFFFFFFFF


#: Up to this many streams are seeded one by one by numpy (a single matrix's one block).
_DIRECT_STREAMS = 2


_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875


_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED


_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def _uint32_words(x: Any) -> list[int]:
    """numpy's coercion of SeedSequence entropy/spawn keys to 32-bit words."""
    if isinstance(x, int | np.integer):
        n = int(x)
        out = [n & _M32]
        n >>= 32
        while n > 0:
            out.append(n & _M32)
            n >>= 32
        return out
    return [w for v in x for w in _uint32_words(v)]


def seed_prefix(root: np.random.SeedSequence) -> tuple[list[int], int]:
    """SeedSequence pool and hash constant after mixing everything but the last two keys."""
    pool_size = root.pool_size
    run = _uint32_words(root.entropy)
    run += [0] * (pool_size - len(run))  # children have a spawn key: entropy is padded
    words = run + _uint32_words(tuple(root.spawn_key))
    h = _INIT_A

    def hashmix(v: int) -> int:
        nonlocal h
        v ^= h
        h = (h * _MULT_A) & _M32
        v = (v * h) & _M32
        return v ^ (v >> 16)

    def mix(x: int, y: int) -> int:
        r = (_MIX_L * x - _MIX_R * y) & _M32
        return r ^ (r >> 16)

    pool = [hashmix(words[i]) for i in range(pool_size)]
    for s in range(pool_size):
        for d in range(pool_size):
            if s != d:
                pool[d] = mix(pool[d], hashmix(pool[s]))
    for s in range(pool_size, len(words)):
        for d in range(pool_size):
            pool[d] = mix(pool[d], hashmix(words[s]))
    return pool, h


@functools.lru_cache(maxsize=256)
def _hash_consts(h: int, n: int, mult: int) -> tuple[np.ndarray, int]:
    """The next ``n`` values of a SeedSequence hash constant (a uint32 column), and the last.

    Cached: the constant depends only on how many words were hashed before, so every
    root of one layout (pool size, words of entropy and spawn key) asks for the same
    ones. The column is shared and must not be written to.
    """
    out = []
    for _ in range(n):
        h = (h * mult) & _M32
        out.append(h)
    return np.array(out, dtype=np.uint32)[:, None], h


def seed_words(prefix: tuple[list[int], int], bs: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """``SeedSequence(..., spawn_key=root_key + (b, k)).generate_state(4, uint64)``, (n, 4).

    ``bs`` and ``ks`` must be below 2**32 (one spawn-key word each). Vectorised over
    the keys and the pool words (uint32 arithmetic wraps as SeedSequence's does).
    """
    u = np.uint32
    pool0, h = prefix
    n_pool = len(pool0)
    pool = np.repeat(np.array(pool0, dtype=u)[:, None], bs.size, axis=1)  # (pool, n)
    for key in (bs.astype(u), ks.astype(u)):
        before = np.array([h, *_hash_consts(h, n_pool - 1, _MULT_A)[0][:, 0]], dtype=u)[:, None]
        after, h = _hash_consts(h, n_pool, _MULT_A)
        v = key ^ before  # hashmix of the key word with each pool word's hash constant
        v *= after
        v ^= v >> u(16)
        pool *= u(_MIX_L)  # mix(pool, v)
        v *= u(_MIX_R)
        pool -= v
        pool ^= pool >> u(16)
    before = np.array([_INIT_B, *_hash_consts(_INIT_B, 7, _MULT_B)[0][:, 0]], dtype=u)[:, None]
    after, _ = _hash_consts(_INIT_B, 8, _MULT_B)
    v = pool[[i % n_pool for i in range(8)]] ^ before  # generate_state(8 uint32 words)
    v *= after
    v ^= v >> u(16)
    return np.ascontiguousarray(v.T).astype("<u4").view("<u8").astype(np.uint64)


class _SeedWords(ISeedSequence):
    """A seed sequence whose PCG64 seed words were generated in advance (:func:`block_streams`)."""

    def __init__(self, words: np.ndarray) -> None:
        self.words = words

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        if n_words != 4 or np.dtype(dtype) != np.uint64:  # all that PCG64 asks for
            raise ValueError(f"_SeedWords holds 4 uint64 words; asked for {n_words} {dtype}")
        return self.words


_PREFIXES: dict[int, tuple[np.random.SeedSequence, tuple[list[int], int] | None]] = {}


def checked_prefix(root: np.random.SeedSequence) -> tuple[list[int], int] | None:
    """:func:`seed_prefix` of ``root`` if it reproduces numpy's SeedSequence, else None."""
    hit = _PREFIXES.get(id(root))
    if hit is not None and hit[0] is root:
        return hit[1]
    computed = seed_prefix(root)
    prefix: tuple[list[int], int] | None = computed
    bs, ks = np.array([0, 1, 2**32 - 1]), np.array([2**32 - 1, 1, 0])
    for b, k, words in zip(bs.tolist(), ks.tolist(), seed_words(computed, bs, ks), strict=True):
        if not np.array_equal(child_seed(root, b, k).generate_state(4, np.uint64), words):
            prefix = None  # numpy's algorithm differs from ours: seed each stream by numpy
            break
    if len(_PREFIXES) > 64:
        _PREFIXES.clear()
    _PREFIXES[id(root)] = (root, prefix)
    return prefix


def block_streams(
    root: np.random.SeedSequence, bs: np.ndarray, ks: np.ndarray
) -> list[np.random.Generator]:
    """The generators ``block_stream(root, b, k)`` for every pair of ``bs`` and ``ks``, in bulk."""
    bs = np.asarray(bs, dtype=np.int64)
    ks = np.asarray(ks, dtype=np.int64)
    if bs.size <= _DIRECT_STREAMS:  # cheaper than checking the bulk hash for a new root
        return [block_stream(root, b, k) for b, k in zip(bs.tolist(), ks.tolist(), strict=True)]
    prefix = checked_prefix(root)
    if prefix is None or max(bs.max(), ks.max()) >= 2**32:
        return [block_stream(root, b, k) for b, k in zip(bs.tolist(), ks.tolist(), strict=True)]
    # numpy's bit generators accept any ISeedSequence (its stubs only name SeedSequence)
    pcg, gen = cast(Any, np.random.PCG64), np.random.Generator
    return [gen(pcg(_SeedWords(w))) for w in seed_words(prefix, bs, ks)]


def block_keys(b0: int, b1: int, k0: int, k1: int) -> tuple[np.ndarray, np.ndarray]:
    """Stream keys ``(b, k)`` of matrices ``b0:b1`` and blocks ``k0:k1``, matrix-major."""
    return (
        np.repeat(np.arange(b0, b1, dtype=np.int64), k1 - k0),
        np.tile(np.arange(k0, k1, dtype=np.int64), b1 - b0),
    )


# --- the seed a result records -------------------------------------------------------
# The entropy alone does not reproduce a run started from a child SeedSequence (one
# with a spawn key) or from a Generator (whose four drawn words are the entropy), as
# every stream is derived by entropy *and* spawn key. RunSeed is that root itself, as a
# SeedSequence subclass, so it is accepted back as ``rng=``, and it compares and hashes
# by value, so equal results stay equal.
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
