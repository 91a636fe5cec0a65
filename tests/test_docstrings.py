"""The public docstrings are complete numpydoc, and the API reference shows every public name.

Each public function and class (``f1posterior.__all__``, the ``__all__`` of every public
subpackage, and every name the API reference pages render) is validated by
``numpydoc.validate`` for the checks in ``CHECKS``:

- GL08: there is a docstring at all;
- SS01, SS03, SS05: a one-line summary, ending in a period, in the infinitive ("Return",
  not "Returns"): the line the reference's tables and search results show;
- PR01, PR02, PR03: the Parameters section lists exactly the signature's parameters, in
  its order (the drift a renamed or added argument causes);
- RT01: a function that returns something says what;
- SA01: a See Also section links the related public names;
- EX01: an Examples section (run as doctests by the test suite).

Left out, as matters of style rather than of truth: the capitalisation and full stops of
parameter descriptions (PR08, PR09) and of See Also entries (SA02-SA04), blank-line
placement (GL01-GL03), an extended summary (ES01), named returns (RT02) and parameter
type spelling (PR06). A class documents its constructor arguments as Parameters or,
for result classes, as Attributes: both count for PR01. Methods of the public classes
(``to_dict``, ``cdf``, ...) are not validated: their one-line docstrings are rendered under
their class, whose See Also and Examples cover them.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import f1posterior

validate = pytest.importorskip(
    "numpydoc.validate", reason="numpydoc is in the docs extra: pip install -e '.[docs]'"
)
docscrape = pytest.importorskip("numpydoc.docscrape")

CHECKS = ("GL08", "SS01", "SS03", "SS05", "PR01", "PR02", "PR03", "RT01", "SA01", "EX01")
API = Path(__file__).resolve().parents[1] / "docs" / "api"


def _public_packages() -> list[str]:
    """f1posterior and its subpackages without a leading underscore in any part."""
    names = ["f1posterior"]
    for info in pkgutil.walk_packages(f1posterior.__path__, "f1posterior."):
        parts = info.name.split(".")
        if info.ispkg and not any(p.startswith("_") for p in parts):
            names.append(info.name)
    return names


def _rendered() -> set[str]:
    """The import paths the API reference pages render (``::: path``)."""
    paths = set()
    for page in sorted(API.glob("*.md")):
        paths.update(re.findall(r"^::: ([\w.]+)\s*$", page.read_text(), re.M))
    return paths


def _public_objects() -> list[str]:
    """One path per object: the rendered one, else the shortest (an object exported twice
    is checked once)."""
    paths = set(_rendered())
    for package in _public_packages():
        module = importlib.import_module(package)
        paths.update(f"{package}.{name}" for name in getattr(module, "__all__", ()))
    rendered, best = _rendered(), {}
    for path in sorted(paths, key=lambda p: (p not in rendered, len(p), p)):
        best.setdefault(id(_resolve(path)), path)
    return sorted(best.values())


def _resolve(path: str) -> object:
    """The object at a dotted path: the longest importable prefix, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def _documentable(path: str) -> bool:
    """Functions and classes: data (a dict, a version string, a type alias) has no docstring."""
    obj = _resolve(path)
    return (
        inspect.isroutine(obj) or inspect.isclass(obj) or callable(obj) and hasattr(obj, "__doc__")
    )


def _errors(path: str) -> list[str]:
    obj = _resolve(path)
    found = [(code, msg) for code, msg in validate.validate(path)["errors"] if code in CHECKS]
    if inspect.isclass(obj):
        documented = [  # a subclass's fields are documented where they are defined
            p
            for cls in obj.__mro__
            if cls.__module__.startswith("f1posterior")
            for p in docscrape.ClassDoc(cls)["Attributes"]
        ]
        attributes = {n.strip() for p in documented for n in p.name.split(",")}
        found = [(c, m) for c, m in found if c != "PR01" or not _only_attributes(m, attributes)]
    return [f"{code} {msg}" for code, msg in found]


def _only_attributes(message: str, attributes: set[str]) -> bool:
    """True if every parameter a PR01 message names is documented under Attributes."""
    missing = set(re.findall(r"(\w+)", message.partition("{")[2].partition("}")[0]))
    return missing <= attributes


OBJECTS = [p for p in _public_objects() if _documentable(p)]


def test_the_check_covers_the_public_names():
    """Every public function and class of the package root is checked (a negative control)."""
    roots = {f"f1posterior.{n}" for n in f1posterior.__all__}
    checked = set(OBJECTS)
    assert {"f1posterior.evaluate", "f1posterior.f1", "f1posterior.gate"} <= checked
    assert {p for p in roots if _documentable(p)} <= checked


def test_every_public_name_is_in_the_api_reference():
    """A name exported from the package root has a place in docs/api (or is a module)."""
    rendered = _rendered()
    missing = [
        name
        for name in f1posterior.__all__
        if f"f1posterior.{name}" not in rendered
        and not inspect.ismodule(getattr(f1posterior, name))
        and name != "__version__"
    ]
    assert not missing, f"add to a page of docs/api: {missing}"


def test_the_rendered_paths_are_public_paths():
    """The reference names objects where users import them, never by implementation module."""
    for path in _rendered():
        owner, _, name = path.rpartition(".")
        assert not any(part.startswith("_") for part in path.split(".")), path
        assert name in getattr(_resolve(owner), "__all__", ()), f"{owner}.__all__ lacks {name}"


def test_evaluate_lists_every_named_metric():
    """evaluate's docstring names every metric of the registry (none drifts out of it)."""
    from f1posterior.metrics._registry import METRICS

    missing = [
        name for name in METRICS if f"``{name}``" not in (f1posterior.evaluate.__doc__ or "")
    ]
    assert not missing, f"add to evaluate's ``metrics`` parameter: {missing}"


@pytest.mark.parametrize("path", OBJECTS)
def test_numpydoc(path):
    errors = _errors(path)
    assert not errors, f"{path}:\n  " + "\n  ".join(errors)
