"""The front door: warning and error classes exported, and a ConfusionMatrix is array-like."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import f1posterior
from f1posterior import ConfusionMatrix, confusion_matrix


def test_the_warning_and_error_classes_are_the_ones_raised(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f1posterior.precision([[0, 0], [5, 0]], average=None)
    assert any(issubclass(w.category, f1posterior.UndefinedMetricWarning) for w in caught)
    bad = tmp_path / "gate.toml"
    bad.write_text("zzzz = 1\n")
    from f1posterior.gating._config import load_config

    with pytest.raises(f1posterior.GateConfigError):
        load_config(bad)
    assert issubclass(f1posterior.DegenerateIntervalWarning, RuntimeWarning)
    for name in ("UndefinedMetricWarning", "DegenerateIntervalWarning", "GateConfigError"):
        assert name in f1posterior.__all__


def test_a_confusion_matrix_is_array_like_and_stays_frozen():
    cm = confusion_matrix([0, 1, 1, 2, 2, 2], [0, 1, 2, 2, 2, 1])
    assert isinstance(cm, ConfusionMatrix)
    arr = np.asarray(cm)
    np.testing.assert_array_equal(arr, cm.counts)
    assert np.trace(cm) == 4 and np.asarray(cm, dtype=float).dtype == np.float64
    with pytest.raises(ValueError, match="read-only"):
        arr[0, 0] = 99  # a write through the array would change the frozen matrix
    copied = np.array(cm, copy=True)
    copied[0, 0] = 99  # a copy is the caller's own
    assert cm.counts[0, 0] == 1
    ev = f1posterior.evaluate(np.asarray(cm), metrics=("micro_f1",), draws=200, rng=0)
    assert ev["micro_f1"].score == pytest.approx(4 / 6)
