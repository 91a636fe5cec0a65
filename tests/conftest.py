"""Shared fixtures: the paper's reference data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from f1posterior.data import figure3

REFERENCE = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "reference" / "zhang2015.json"
)


@pytest.fixture(scope="session")
def fig3() -> np.ndarray:
    return figure3()


@pytest.fixture(scope="session")
def zhang_reference() -> dict:
    """The paper's reference file when shared/ is beside the checkout, else the embedded copy."""
    if REFERENCE.exists():
        return json.loads(REFERENCE.read_text())
    from f1posterior.data import FIGURE3_MATRIX, TABLE1

    return {
        "matrix": [list(r) for r in FIGURE3_MATRIX],
        "table1": {k: dict(v, hdi=list(v["hdi"])) for k, v in TABLE1.items()},
        "reference_value": 0.8,
    }
