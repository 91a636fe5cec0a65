"""Escaping of user text (labels, names) for terminals and Markdown, used by every output."""

from __future__ import annotations

import re

__all__ = ["escape_text", "escape_markdown", "escape_csv"]


def escape_text(text: str) -> str:
    """``text`` with control and format characters escaped as in ``repr``.

    Newlines, tabs, ANSI escape sequences (``\\x1b``), other C0/C1 controls,
    bidirectional overrides, zero-width characters and line or paragraph
    separators are shown as ``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``...; other
    characters, the backslash included, are kept. Safe to print on a
    terminal and always a single line.
    """
    text = str(text)
    if text.isascii() and text.isprintable():  # nothing to escape: the common case
        return text
    import unicodedata

    out = []
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            out.append(repr(ch)[1:-1] if ch not in "'\"" else ch)
        else:
            out.append(ch)
    return "".join(out)


_MD_ESCAPES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "|": "\\|",
    "\\": "\\\\",
    "`": "\\`",
    "*": "\\*",
    "_": "\\_",
    "[": "\\[",
    "]": "\\]",
    "#": "\\#",
    "!": "\\!",
    "~": "\\~",
}


def escape_markdown(text: str) -> str:
    """``text`` as literal Markdown (GitHub-flavoured), safe in a table cell or a line.

    Control characters are escaped first (:func:`escape_text`: never a real
    newline, so no line can start a heading); HTML-special characters become
    entities; pipes and Markdown punctuation are backslash-escaped.
    """
    return "".join(_MD_ESCAPES.get(ch, ch) for ch in escape_text(text))


#: First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: A plain number (a spreadsheet reads it as a number, never as a formula).
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def escape_csv(text: str) -> str:
    """``text`` as a CSV or TSV cell that a spreadsheet shows as text, never runs.

    A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
    is prefixed with a single quote (the OWASP rule against formula injection),
    unless it is a plain number such as ``-1`` or ``+2.5e-3`` (kept, so a class
    label ``-1`` stays ``-1``); then control characters are escaped
    (:func:`escape_text`). Numeric values are written by the caller, never
    through this.

    Examples
    --------
    >>> escape_csv("=HYPERLINK(1)"), escape_csv("-1"), escape_csv("cat")
    ("'=HYPERLINK(1)", '-1', 'cat')
    """
    text = str(text)
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        text = "'" + text
    return escape_text(text)
