"""Lazy attributes of a package (Scientific Python SPEC 1): a name's module is imported at
its first use, so a command imports only what it runs.

Design notes: docs/design.md#core-lazy
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["attach"]


def attach(
    package: str, names: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` whose names live in submodules.

    ``names`` maps a submodule, relative to ``package`` (``"._gate"``, ``".analysis"``), to
    the names it provides (a name may be a submodule of it). The first access of a name
    imports its submodule and binds the name in the package: later accesses are ordinary.
    """
    where = {name: module for module, listed in names.items() for name in listed}
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        owner = importlib.import_module(module, package)
        try:
            value = getattr(owner, name)
        except AttributeError:  # a subpackage of ``owner`` (``analysis.thresholds``)
            value = importlib.import_module(f"{owner.__name__}.{name}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
