"""The receipt of a command-line run (:class:`f1posterior.io.Receipt`), built once per run."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..io import InputDigest, Receipt, digest_array, digest_path, json_document

__all__ = ["command_receipt", "digests", "embedded_example", "print_with_receipt"]


def digests(inputs: Iterable[tuple[str, str | None]]) -> tuple[InputDigest, ...]:
    """The digest of each ``(role, path)`` given (paths that are None are left out)."""
    return tuple(digest_path(path, role) for role, path in inputs if path is not None)


def command_receipt(
    args: argparse.Namespace,
    result: Any,
    inputs: Iterable[InputDigest],
    **given: Any,
) -> Receipt:
    """The receipt of ``args.command``: prior, draws, seed, ``ci_prob`` and ``prob`` from
    ``result`` when it records them, else from ``args``; ``given`` wins over both."""
    keys = ("prior", "draws", "seed", "ci_prob", "prob")
    defaults = {k: getattr(args, k, None) for k in keys}
    receipt = Receipt.of(result, tuple(inputs), args.command, defaults)
    return replace(receipt, **given) if given else receipt


def embedded_example(counts: Any) -> InputDigest:
    """The digest of the embedded example matrix (``summarize`` without FILE)."""
    return digest_array(counts, "example", "embedded example: Zhang et al. (2015), Figure 3")


def print_with_receipt(
    fmt: str, receipt: Receipt, document: dict[str, Any], markdown: str, text: str
) -> None:
    """Print a result in ``--format`` ``fmt``: the JSON ``document`` with its receipt, or the
    ``markdown`` or ``text`` of it (any other format) followed by the receipt."""
    if fmt == "json":
        print(json_document(document, receipt))
    elif fmt == "markdown":
        print(f"{markdown}\n\n{receipt.markdown()}")
    else:
        print(f"{text}\n{receipt.text()}")
