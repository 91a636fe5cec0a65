"""Shared fixtures: the paper's reference data, from the package (nothing outside the repository)."""

from __future__ import annotations

import numpy as np
import pytest

from f1posterior.io._data import figure3


@pytest.fixture(scope="session")
def fig3() -> np.ndarray:
    return figure3()
