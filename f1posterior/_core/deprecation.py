"""Renamed keyword arguments: the old name still works for a while, with a warning.

The vocabulary of the public API was made consistent in version 0.2 (see
``CHANGELOG.md``): ``ci_prob`` for posterior interval probabilities,
``confidence_level`` for frequentist ones, ``f_beta`` for the F-beta weight
wherever a prior is in scope and ``y_true``/``y_pred`` for label arrays.
:func:`renamed_keywords` keeps the old keyword names working, with a
``FutureWarning`` (shown to end users by default, unlike ``DeprecationWarning``),
so that code written for 0.1 runs unchanged until the old names are removed.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

__all__ = ["renamed_keywords", "renamed_attribute", "warn_renamed"]

P = ParamSpec("P")
R = TypeVar("R")


def warn_renamed(where: str, old: str, new: str, stacklevel: int = 2) -> None:
    """Warn (``FutureWarning``) that ``old`` is renamed ``new``, the one wording of every rename.

    The message is ``f"{where}{old} is renamed {new}; the old name will be removed in a
    future version"``; ``stacklevel`` counts from the caller of this function, as in
    :func:`warnings.warn`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_renamed("config.toml: ", "'hdi_prob'", "'ci_prob'")
    >>> str(caught[0].message)
    "config.toml: 'hdi_prob' is renamed 'ci_prob'; the old name will be removed in a future version"
    """
    warnings.warn(
        f"{where}{old} is renamed {new}; the old name will be removed in a future version",
        FutureWarning,
        stacklevel=stacklevel + 1,
    )


def renamed_keywords(**renames: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Accept each old keyword (key) as its new name (value), with a ``FutureWarning``.

    Passing both names is a ``TypeError``, like any repeated argument.

    Examples
    --------
    >>> @renamed_keywords(hdi_prob="ci_prob")
    ... def f(*, ci_prob=0.95):
    ...     return ci_prob
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f(hdi_prob=0.9), caught[0].category.__name__
    (0.9, 'FutureWarning')
    """

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise TypeError(
                        f"{fn.__name__}() got both {old!r} and {new!r}; {old!r} is the old "
                        f"name of {new!r}: pass only {new!r}"
                    )
                warn_renamed(f"{fn.__name__}(): the keyword ", repr(old), repr(new))
                kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` that returns ``self.new`` with a ``FutureWarning``.

    Examples
    --------
    >>> class R:
    ...     ci_prob = 0.9
    ...     hdi_prob = renamed_attribute("hdi_prob", "ci_prob")
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     R().hdi_prob
    0.9
    """

    def get(self: Any) -> Any:
        warn_renamed(f"{type(self).__name__}.", old, new)
        return getattr(self, new)

    return property(get, doc=f"Old name of :attr:`{new}` (deprecated).")
