"""The JSON Schema of every JSON output of the command line (``f1posterior schema``).

Each document has a ``receipt`` whose ``command`` selects the document's shape.

Design notes: docs/design.md#io-receipts
"""

from __future__ import annotations

from typing import Any

from ._receipt import INTERVAL_KEYS, SCHEMA_VERSION

__all__ = ["json_schema"]

_NUMBER = {"type": ["number", "null"]}
_TEXT = {"type": ["string", "null"]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _object(required: list[str], props: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object with ``required`` keys (typed by ``props``; the others by ``value``)."""
    props = dict(props or {})
    for k in required:
        props.setdefault(k, _ref("value"))
    return {"type": "object", "required": required, "properties": props}


def _receipt() -> dict[str, Any]:
    digest = {
        "type": "object",
        "additionalProperties": False,
        "required": ["role", "name", "kind", "sha256", "size"],
        "properties": {
            "role": {"type": "string"},
            "name": {"type": "string"},
            "kind": {"enum": ["file", "stdin", "array"]},
            "sha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$"},
            "size": {"type": ["integer", "null"], "minimum": 0},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [
            "tool",
            "version",
            "schema_version",
            "command",
            "inputs",
            "prior",
            "draws",
            "seed",
            "ci_prob",
            "prob",
        ],  # fmt: skip
        "properties": {
            "tool": {"const": "f1posterior"},
            "version": {"type": "string", "minLength": 1},
            "schema_version": {"type": "string", "pattern": r"^\d+\.\d+\.\d+$"},
            "command": {"type": "string"},
            "inputs": {"type": "array", "items": digest},
            "prior": _TEXT,
            "draws": {"type": ["integer", "null"], "minimum": 1},
            "seed": _ref("seed"),
            "ci_prob": {"type": ["number", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "prob": {"type": ["number", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        },
    }


def _seed() -> dict[str, Any]:
    word = {"type": "integer", "minimum": 0}
    return {
        "anyOf": [
            word,
            {
                "type": "object",
                "required": ["entropy", "spawn_key"],
                "properties": {
                    "entropy": {"anyOf": [word, {"type": "array", "items": word}]},
                    "spawn_key": {"type": "array", "items": word},
                },
            },
        ]
    }


def _summary() -> dict[str, Any]:
    """A posterior summary (one metric): scalars, or lists for a batch or per class."""
    out = _object(["score", "mean", "std", "mc_error", "hdi_low", "hdi_high", "ci_prob", "draws"])
    out["propertyNames"] = {"not": {"enum": list(INTERVAL_KEYS)}}
    return out


def _check() -> dict[str, Any]:
    verdicts = {"enum": ["pass", "fail", "inconclusive", "skipped"]}
    keys = [
        "kind", "metric", "item", "threshold", "prob", "required", "verdict", "score",
        "hdi_low", "hdi_high", "ci_prob", "exact", "draws", "passed", "condition", "text",
    ]  # fmt: skip
    strings = {k: {"type": "string"} for k in ("kind", "metric", "item", "condition", "text")}
    return _object(keys, {**strings, "verdict": verdicts, "passed": {"type": "boolean"}})


def _documents() -> dict[str, dict[str, Any]]:
    """The shape of each command's document."""
    summaries = {"type": "object", "additionalProperties": _ref("summary")}
    rows = {
        "type": "array",
        "items": {"type": "object", "additionalProperties": {"type": ["string", "number",
                                                                       "boolean", "null"]}},
    }  # fmt: skip
    common = {"prior": {"type": "string"}, "seed": _ref("seed"), "source": _TEXT}
    return {
        "evaluation": _object(
            ["metrics", "draws", "prior", "ci_prob", "seed"], {**common, "metrics": summaries}
        ),
        "rows": _object(
            ["version", "prior", "draws", "seed", "ci_prob", "rows"], {**common, "rows": rows}
        ),
        "slices": _object(
            ["slices", "prior", "draws", "seed", "ci_prob"],
            {
                **common,
                "slices": {
                    "type": "array",
                    "items": _object(
                        ["slice", "support", "metric", "score", "mean", "hdi_low", "hdi_high"]
                    ),
                },
            },
        ),  # fmt: skip
        "gate": _object(
            ["verdict", "passed", "checks", "prior", "draws", "seed"],
            {
                **common,
                "verdict": {"enum": ["pass", "fail", "inconclusive"]},
                "passed": {"type": "boolean"},
                "checks": {"type": "array", "items": _ref("check")},
            },
        ),  # fmt: skip
        "comparison": _object(
            [
                "metric",
                "p_a_better",
                "p_b_better",
                "p_equivalent",
                "decision",
                "difference",
                "a",
                "b",
                "rope",
                "prob",
                "prior",
                "seed",
            ],
            {**common, "difference": _ref("summary"), "a": _ref("summary"), "b": _ref("summary")},
        ),  # fmt: skip
        "folds": _object(
            [
                "metric",
                "names",
                "folds",
                "difference",
                "population",
                "p_a_better",
                "p_b_better",
                "p_equivalent",
                "decision",
                "rope",
                "prob",
                "prior",
                "seed",
            ],
            {
                **common,
                "folds": _ref("summary"),
                "difference": _ref("summary"),
                "population": _ref("summary"),
            },
        ),  # fmt: skip
        "ranking": _object(
            [
                "names",
                "metric",
                "p_best",
                "expected_rank",
                "rank_probabilities",
                "summary",
                "prior",
                "seed",
            ],
            {**common, "summary": _ref("summary")},
        ),  # fmt: skip
        "plan": _object(
            [
                "additional_documents",
                "reached",
                "current_verdict",
                "documents",
                "curve",
                "summary",
                "settings",
                "seed",
            ],
            {
                "seed": _ref("seed"),
                "reached": {"type": "boolean"},
                "summary": {"type": "string"},
                "curve": {
                    "type": "array",
                    "items": _object(["documents", "assurance", "mc_error"]),
                },
            },
        ),  # fmt: skip
        "aggregate": _object(
            ["metric", "method", "summary", "tables", "prior", "draws", "ci_prob", "seed"],
            {
                **common,
                "summary": _ref("summary"),
                "tables": {
                    "type": "array",
                    "items": _object(["name", "score", "mean", "std", "hdi_low", "hdi_high"]),
                },
            },
        ),  # fmt: skip
    }


#: The documents each command writes (``summarize``: one evaluation or a batch's rows).
COMMAND_DOCUMENTS = {
    "summarize": ("evaluation", "rows", "slices"),
    "gate": ("gate",),
    "compare": ("comparison", "folds", "ranking"),
    "plan": ("plan",),
    "aggregate": ("aggregate",),
}


def json_schema() -> dict[str, Any]:
    """Return the JSON Schema of the command line's JSON outputs (a new dict each call).

    Returns
    -------
    dict
        A JSON Schema (draft 2020-12): an object with a ``receipt`` whose
        ``command`` selects the document's shape.

    See Also
    --------
    f1posterior.io.Receipt : The receipt every output carries.
    f1posterior.io.read_metadata : The metadata (and receipt) of a row output.

    Examples
    --------
    >>> s = json_schema()
    >>> s["$schema"], s["required"], s["$defs"]["receipt"]["properties"]["tool"]
    ('https://json-schema.org/draft/2020-12/schema', ['receipt'], {'const': 'f1posterior'})
    """
    value: dict[str, Any] = {
        "type": ["number", "string", "boolean", "null", "array", "object"],
        "items": {"$ref": "#/$defs/value"},
    }
    defs: dict[str, Any] = {
        "receipt": _receipt(), "seed": _seed(), "value": value, "summary": _summary(),
        "check": _check(), **_documents(),
    }  # fmt: skip
    cases = [
        {
            "if": {"properties": {"receipt": {"properties": {"command": {"const": cmd}}}}},
            "then": {"anyOf": [_ref(d) for d in docs]},
        }
        for cmd, docs in COMMAND_DOCUMENTS.items()
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"f1posterior JSON outputs, schema {SCHEMA_VERSION}",
        "description": "Every JSON document the f1posterior command line writes. Interval ends "
        "are scalar *_low/*_high keys; the receipt records the version, the SHA-256 of each "
        "input, the prior, draws, seed and probabilities that reproduce the run.",
        "type": "object",
        "required": ["receipt"],
        "properties": {"receipt": _ref("receipt")},
        "allOf": cases,
        "$defs": defs,
    }
