"""``f1posterior schema``: print the JSON Schema of the command line's JSON outputs."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of every JSON output (summarize, gate, compare, ...)",
        description="Print the JSON Schema (draft 2020-12) that every --format json output "
        "of f1posterior validates against: each document carries a receipt (tool version, "
        "schema version, SHA-256 of each input, prior, draws, seed, probabilities) whose "
        "command selects the document's shape; interval ends are scalar *_low/*_high keys.",
    )
    p.add_argument(
        "--output",
        metavar="OUTFILE",
        help="write the schema to OUTFILE instead of standard output (written to a "
        "temporary file and renamed on success)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .._core.text import escape_text
    from ..io import SCHEMA_VERSION, json_schema, write_output

    text = json.dumps(json_schema(), indent=2) + "\n"
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
        return 0
    write_output(args.output, text, "--output")
    print(f"schema {SCHEMA_VERSION} written to {escape_text(args.output)}", file=sys.stderr)
    return 0
