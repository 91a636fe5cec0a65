"""The receipt of a command-line run (:class:`f1posterior.io.Receipt`), built once per run."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..io import InputDigest, Receipt, digest_array, digest_path

__all__ = ["command_receipt", "digests", "embedded_example"]


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

    def pick(name: str) -> Any:
        if name in given:
            return given[name]
        value = getattr(result, name, None)
        if value is None or (name == "draws" and not isinstance(value, int | np.integer)):
            value = getattr(args, name, None)  # (a comparison's ``draws`` are its draws)
        return value

    return Receipt(
        command=args.command,
        inputs=tuple(inputs),
        prior=pick("prior"),
        draws=pick("draws"),
        seed=pick("seed"),
        ci_prob=pick("ci_prob"),
        prob=pick("prob"),
    )


def embedded_example(counts: Any) -> InputDigest:
    """The digest of the embedded example matrix (``summarize`` without FILE)."""
    return digest_array(counts, "example", "embedded example: Zhang et al. (2015), Figure 3")
