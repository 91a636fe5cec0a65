"""The public ``*_score`` functions built by one factory behave as hand-written functions.

f1, precision, recall, the six one-vs-rest rates, P4, informedness and markedness share
one signature and one validate-then-compute body (``metrics._multiclass.make_score``).
These tests check what a factory could silently get wrong: the signature users see, the
module they are published in (pickle, doctest collection), the caller's line in the
``zero_division="warn"`` warning, and the narrower ``average`` choices of the composites.
"""

from __future__ import annotations

import doctest
import inspect
import pickle
import warnings

import numpy as np
import pytest

from f1posterior.metrics import _multiclass as multiclass
from f1posterior.metrics import _rates as rates
from f1posterior.metrics._divide import UndefinedMetricWarning

BUILT = {
    multiclass: ("f1", "precision", "recall"),
    rates: (
        "specificity",
        "npv",
        "fpr",
        "fnr",
        "fdr",
        "jaccard",
        "p4",
        "informedness",
        "markedness",
    ),
}
CASES = [(module, name) for module, names in BUILT.items() for name in names]


@pytest.mark.parametrize(("module", "name"), CASES)
def test_signature_name_and_module_are_the_functions_own(module, name):
    fn = getattr(module, name)
    # fbeta is written out by hand: the built ones are it without ``beta``
    expected = inspect.signature(multiclass.fbeta)
    expected = expected.replace(
        parameters=[p for n, p in expected.parameters.items() if n != "beta"]
    )
    assert inspect.signature(fn) == expected
    assert (fn.__name__, fn.__qualname__, fn.__module__) == (name, name, module.__name__)
    assert pickle.loads(pickle.dumps(fn)) is fn
    assert f">>> {name}(" in fn.__doc__


@pytest.mark.parametrize("module", list(BUILT))
def test_doctest_finds_the_examples_of_the_built_functions(module):
    found = {t.name.rsplit(".", 1)[-1] for t in doctest.DocTestFinder().find(module) if t.examples}
    assert set(BUILT[module]) <= found


@pytest.mark.parametrize(("module", "name"), CASES)
def test_the_zero_division_warning_points_at_the_callers_line(module, name):
    empty = np.zeros((2, 2))  # every rate of an empty table is 0/0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(module, name)(empty, average=None)
    ours = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert ours, "an empty table must warn"
    assert {w.filename for w in ours} == {__file__}


@pytest.mark.parametrize("name", ["p4", "informedness", "markedness"])
def test_the_composites_refuse_micro_and_the_rates_take_it(name):
    table = [[8, 2], [1, 9]]
    with pytest.raises(ValueError, match=r"average must be one of 'macro', .*; got 'micro'"):
        getattr(rates, name)(table, average="micro")
    # negative control: the same factory with the full choice accepts "micro"
    assert rates.specificity(table, average="micro") == pytest.approx(17 / 20)


def test_a_scikit_learn_name_takes_scikit_learns_arguments():
    """A public name shared with sklearn.metrics takes (y_true, y_pred); table functions do not share one."""
    import sklearn.metrics

    import f1posterior
    from f1posterior import metrics

    shared = []
    for module in (f1posterior, metrics):
        for name in set(module.__all__) & set(dir(sklearn.metrics)):
            first = list(inspect.signature(getattr(module, name)).parameters)[:2]
            assert first == ["y_true", "y_pred"], f"{module.__name__}.{name}{first}"
            shared.append(name)
    assert sorted(set(shared)) == ["confusion_matrix", "multilabel_confusion_matrix"]
