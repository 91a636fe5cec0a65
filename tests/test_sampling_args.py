"""One validator for the sampling arguments of every evaluate function.

``check_sampling_args`` checks ``draws``, ``ci_prob``, ``ref``, ``dtype`` and then ``rng``;
every entry point gives the same message for the same bad value, and none advances a
caller's Generator when it refuses one of the other arguments.
"""

from __future__ import annotations

import numpy as np
import pytest

from f1posterior import evaluate, evaluate_documents, evaluate_multilabel
from f1posterior._core.validation import SamplingArgs, check_sampling_args
from f1posterior.integrations import dask_files

C = np.array([[30, 4], [6, 25]])
TABLES = [[[5, 1], [2, 2]], [[3, 0], [1, 6]]]
Y = [[1, 0, 1], [0, 1, 0], [1, 1, 0]]


def _dask_evaluate(**kw):
    da = pytest.importorskip("dask.array")
    from f1posterior.integrations import dask as f1dask

    return f1dask.evaluate(da.from_array(np.array([C, C]), chunks=(1, 2, 2)), **kw)


def _dask_files(tmp_path, **kw):
    pytest.importorskip("dask")
    src = tmp_path / "a.jsonl"
    src.write_text('{"name": "m0", "matrix": [[5, 1], [2, 7]]}\n')
    return dask_files.evaluate_files([src], tmp_path, **kw)


ENTRY_POINTS = {
    "evaluate": lambda tmp_path, **kw: evaluate(C, **kw),
    "evaluate_multilabel": lambda tmp_path, **kw: evaluate_multilabel(TABLES, **kw),
    "evaluate_documents": lambda tmp_path, **kw: evaluate_documents(Y, Y, **kw),
    "dask.evaluate": lambda tmp_path, **kw: _dask_evaluate(**kw),
    "dask_files.evaluate_files": _dask_files,
}
NO_DTYPE = {"evaluate_documents"}  # the Bayesian bootstrap draws weights: no dtype argument

BAD = [
    ({"draws": 0}, ValueError, r"^draws must be an integer >= 1; got 0$"),
    ({"ci_prob": 1.0}, ValueError, r"^ci_prob must be in the open interval \(0, 1\); got 1.0$"),
    ({"ref": np.inf}, ValueError, r"^ref must be a finite number or None; got inf$"),
    ({"dtype": np.int32}, ValueError, r"^dtype must be numpy.float64 or numpy.float32; got int32$"),
    ({"rng": -1}, ValueError, r"^rng must be a non-negative integer seed; got -1$"),
]


CASES = [
    (entry, kwargs, err, match)
    for entry in sorted(ENTRY_POINTS)
    for kwargs, err, match in BAD
    if not ("dtype" in kwargs and entry in NO_DTYPE)
]


@pytest.mark.parametrize(("entry", "kwargs", "err", "match"), CASES)
def test_every_entry_point_gives_the_same_message(entry, kwargs, err, match, tmp_path):
    call = {"draws": 50, **kwargs}
    with pytest.raises(err, match=match):
        ENTRY_POINTS[entry](tmp_path, **call)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_refused_argument_does_not_advance_the_generator(entry, tmp_path):
    gen = np.random.default_rng(3)
    with pytest.raises(ValueError, match=r"^ci_prob must be in the open interval"):
        ENTRY_POINTS[entry](tmp_path, draws=50, ci_prob=0.0, rng=gen)
    # negative control: a fresh Generator of the same seed gives the same next number
    assert gen.integers(0, 2**63) == np.random.default_rng(3).integers(0, 2**63)


def test_check_sampling_args_values_and_order():
    a = check_sampling_args(1000, 0.9, 0.5, 7, np.float32)
    assert isinstance(a, SamplingArgs)
    assert (a.draws, a.ci_prob, a.ref, a.dtype) == (1000, 0.9, 0.5, np.dtype(np.float32))
    assert a.root.entropy == 7
    # draws is checked before ci_prob, ci_prob before ref, ref before dtype, dtype before rng
    with pytest.raises(ValueError, match=r"^draws must"):
        check_sampling_args(0, 2.0, np.nan, 1.5, np.int32)
    with pytest.raises(ValueError, match=r"^ci_prob must"):
        check_sampling_args(10, 2.0, np.nan, 1.5, np.int32)
    with pytest.raises(ValueError, match=r"^ref must"):
        check_sampling_args(10, 0.5, np.nan, 1.5, np.int32)
    with pytest.raises(ValueError, match=r"^dtype must"):
        check_sampling_args(10, 0.5, None, 1.5, np.int32)
    with pytest.raises(TypeError, match=r"^rng must"):
        check_sampling_args(10, 0.5, None, 1.5)


def test_as_keywords_repeats_the_run():
    # truth: the same call with the user's own arguments
    direct = evaluate(C, draws=2000, ci_prob=0.9, ref=0.8, rng=11, dtype=np.float32)
    a = check_sampling_args(2000, 0.9, 0.8, 11, np.float32)
    assert evaluate(C, **a.as_keywords()) == direct
    # negative control: another seed gives another result
    b = check_sampling_args(2000, 0.9, 0.8, 12, np.float32)
    assert evaluate(C, **b.as_keywords()) != direct
