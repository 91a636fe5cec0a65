"""Escaping of user text (labels, names) for terminals and Markdown, used by every output."""

from __future__ import annotations

__all__ = ["escape_text", "escape_markdown"]


def escape_text(text: str) -> str:
    """``text`` with control and format characters escaped as in ``repr``.

    Newlines, tabs, ANSI escape sequences (``\\x1b``), other C0/C1 controls,
    bidirectional overrides, zero-width characters and line or paragraph
    separators are shown as ``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``...; other
    characters, the backslash included, are kept. Safe to print on a
    terminal and always a single line.
    """
    import unicodedata

    out = []
    for ch in str(text):
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
