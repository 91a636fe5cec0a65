"""GitHub Actions annotations of a gate: ``::error`` per FAIL, ``::warning`` per INCONCLUSIVE.

A workflow command is one line, ``::error title=T::MESSAGE``; the runner reads
it from standard output and standard error alike, and ends a line at a line
feed or a carriage return. So every value is escaped by GitHub's rules before
it is written: ``%``, CR and LF in the message (``%25``, ``%0D``, ``%0A``), and
also ``:`` and ``,`` in a property such as the title (``%3A``, ``%2C``). A
label or a file name can then never end the line or the property list, so it
cannot start a workflow command of its own (``::add-mask::``,
``::stop-commands::``) or add a property.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ANNOTATION_LEVELS", "annotation", "gate_annotations", "escape_data", "escape_property"]

#: The annotation of each verdict (PASS and SKIPPED have none).
ANNOTATION_LEVELS = {"fail": "error", "inconclusive": "warning"}


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped (``%25``, ``%0D``, ``%0A``).

    Examples
    --------
    >>> escape_data("50% done\\n::add-mask::x")
    '50%25 done%0A::add-mask::x'
    """
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as :func:`escape_data`, and ``:``, ``,`` too.

    Examples
    --------
    >>> escape_property("f1posterior: f1 [class a,b] >= 0.8")
    'f1posterior%3A f1 [class a%2Cb] >= 0.8'
    """
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, title: str, message: str) -> str:
    """One workflow command line, ``::LEVEL title=TITLE::MESSAGE``, every value escaped."""
    return f"::{level} title={escape_property(title)}::{escape_data(message)}"


def gate_annotations(result: Any) -> list[str]:
    """The annotations of a :class:`f1posterior.GateResult`, one per FAIL or INCONCLUSIVE check.

    The title names the check (``f1posterior: macro_f1 >= 0.8``); the message
    is the check's one-line verdict (probability, observed score, HDI, and
    why an inconclusive check is inconclusive).
    """
    return [
        annotation(ANNOTATION_LEVELS[c.verdict], f"f1posterior: {c.condition}", c.text)
        for c in result.checks
        if c.verdict in ANNOTATION_LEVELS
    ]
