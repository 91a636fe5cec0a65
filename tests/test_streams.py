"""The random-stream module: one default seed, one default number of draws, one rng type."""

from __future__ import annotations

import inspect
import typing

import numpy as np
import pytest

import f1posterior
from f1posterior import thresholds
from f1posterior._core.validation import SeedLike, check_rng


def _public_functions_with_rng() -> list[tuple[str, inspect.Signature]]:
    out = []
    for module in (f1posterior, thresholds):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and "rng" in inspect.signature(obj).parameters:
                out.append((name, inspect.signature(obj)))
    return out


def test_every_public_rng_argument_is_typed_seedlike() -> None:
    found = _public_functions_with_rng()
    names = {name for name, _ in found}
    assert {"evaluate", "gate", "plan", "compare", "aggregate", "sample_posterior"} <= names
    wrong = [name for name, sig in found if sig.parameters["rng"].annotation != "SeedLike"]
    assert wrong == []


def test_seedlike_is_exported_and_names_what_check_rng_accepts() -> None:
    assert f1posterior.SeedLike is SeedLike and "SeedLike" in f1posterior.__all__
    samples = {
        int: 7,
        np.integer: np.int64(7),
        np.random.SeedSequence: np.random.SeedSequence(7),
        np.random.Generator: np.random.default_rng(7),
        type(None): None,
    }
    members = [typing.get_origin(t) or t for t in typing.get_args(SeedLike)]
    assert sorted(map(str, members)) == sorted(map(str, samples))
    for value in samples.values():
        assert isinstance(check_rng(value), np.random.SeedSequence)
    for bad in (1.5, True, "7", np.random.RandomState(7)):  # negative control
        with pytest.raises(TypeError, match="rng must be None, an int"):
            check_rng(bad)
