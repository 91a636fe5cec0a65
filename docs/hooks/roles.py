"""MkDocs hook: show the docstrings' Sphinx roles (``:func:`name```) as plain code.

The docstrings are numpydoc, written for Sphinx roles; mkdocstrings renders Markdown, in
which a role would print as ``:func:`` before the code span. This drops the role.
"""

import re

_ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|exc|obj):(?=<code>)")


def on_page_content(html: str, **kwargs: object) -> str:
    return _ROLE.sub("", html)
