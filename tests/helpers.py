"""Helpers shared by the test modules, one of each (``from helpers import FIELDS, stack``)."""

from __future__ import annotations

import numpy as np

#: The fields of a MetricSummary that two runs of one computation must agree on, bit for bit.
FIELDS = ("score", "mean", "median", "std", "mc_error", "hdi", "eti", "p_below", "p_above")
#: ... and its prior and chance diagnostics (None where a computation has none).
DIAGNOSTICS = ("prior_shift", "prior_dominated", "chance", "chance_score", "p_above_chance")


def stack(b: int, m: int, seed: int = 0) -> np.ndarray:
    """``b`` random ``m`` x ``m`` confusion matrices, counts 0 to 29 and 20 more on the diagonal."""
    c = np.random.default_rng(seed).integers(0, 30, size=(b, m, m))
    c[..., np.arange(m), np.arange(m)] += 20
    return c


def forged_npy(shape: str | tuple[int, ...], data: bytes = b"") -> bytes:
    """The bytes of a .npy file whose header claims ``shape`` of float64 but holds only ``data``."""
    header = f"{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}"
    header = header + " " * (118 - len(header)) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data
