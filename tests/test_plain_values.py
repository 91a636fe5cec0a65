"""The one value converter (``_core.results.plain``) and the JSON-ready ``to_dict`` of results."""

from __future__ import annotations

import json

import numpy as np

from f1posterior import compare, evaluate
from f1posterior._core.results import plain, plain_fields
from f1posterior._core.streams import run_seed
from f1posterior.analysis.thresholds import evaluate_threshold


def test_fields_keep_arrays_and_unwrap_scalars():
    assert type(plain(np.float64(0.25))) is float and plain(np.float64(0.25)) == 0.25
    assert plain(np.array(3)) == 3 and type(plain(np.array(3))) is int  # no float forced
    assert plain(np.bool_(True)) is True and plain(np.array("undecided")) == "undecided"
    a = np.arange(3.0)
    assert plain(a) is a  # a batch field stays an array
    assert plain([1, a]) == [1, a] and plain(None) is None  # only numpy values change


def test_lists_make_everything_json_ready():
    seed = run_seed(np.random.SeedSequence(5))
    s = evaluate([[8, 2], [1, 9]], metrics="micro_f1", draws=500, rng=0)["micro_f1"]
    got = plain({"a": (np.arange(2), np.float32(0.5)), "s": s, "seed": seed}, lists=True)
    assert got == {"a": [[0, 1], 0.5], "s": s.to_dict(), "seed": 5}
    json.dumps(got, allow_nan=False)
    skip = ("hdi", "chance", "chance_score", "p_above_chance")
    assert plain_fields(s, skip) == {k: v for k, v in s.to_dict().items() if k != "hdi"}


def test_every_to_dict_is_json():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    flipped = np.where(rng.random(60) < 0.8, y, 1 - y)  # 0/1 scores: either argument order
    results = [
        evaluate([[8, 2], [1, 9]], draws=500, rng=0, chance=True),
        compare([[45, 5], [5, 45]], [[40, 10], [10, 40]], draws=500, rng=0),
        evaluate_threshold(flipped, y, folds=3, draws=500, rng=1),  # its seed was an object
    ]
    for r in results:
        json.dumps(r.to_dict(), allow_nan=False)


def test_other_values_pass_through():
    other = object()
    assert plain(other) is other and plain(other, lists=True) is other
