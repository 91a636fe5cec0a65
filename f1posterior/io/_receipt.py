"""Receipts: what every output records so that its run can be repeated and checked.

A :class:`Receipt` (version, schema version, SHA-256 of each input, prior,
draws, seed, probabilities) is carried by every output of the command line;
:func:`json_document` writes the JSON outputs.

Design notes: docs/design.md#io-receipts
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._core.streams import seed_json
from .._core.text import escape_markdown, escape_text
from ._sources import STDIN_NAME, is_stdin, stdin_bytes

__all__ = [
    "SCHEMA_VERSION",
    "InputDigest",
    "Receipt",
    "digest_array",
    "digest_path",
    "json_document",
    "split_intervals",
    "streamed_stdin",
]

#: Version of the JSON outputs' schema (``f1posterior schema``); bumped on a change of shape.
SCHEMA_VERSION = "1.0.0"

#: What a receipt's ``command`` may be: a subcommand with JSON output, or a Python run.
COMMANDS = ("summarize", "gate", "compare", "plan", "aggregate", "python")

#: Keys whose 2-element ``[low, high]`` values become ``{key}_low`` and ``{key}_high``.
INTERVAL_KEYS = ("hdi", "eti", "tau_interval", "i2_interval")
_BLOCK = 1 << 20


@dataclass(frozen=True)
class InputDigest:
    """The SHA-256 of one input.

    Attributes
    ----------
    role : str
        What the input is to the command (``"file"``, ``"baseline"``, ``"config"``,
        ``"documents"``, ``"table"``, ``"array"``, ...).
    name : str
        The path as given, ``<stdin>`` or a description of an array.
    sha256 : str or None
        Hex digest of the bytes read; None for standard input streamed in
        bounded memory (its bytes are never held at once).
    size : int or None
        Bytes hashed.
    kind : {"file", "stdin", "array"}
        What was hashed: a file's bytes, standard input's, or an array's
        ``dtype`` string, shape and C-order bytes.
    """

    role: str
    name: str
    sha256: str | None
    size: int | None
    kind: str = "file"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of the fields."""
        return {
            "role": self.role,
            "name": self.name,
            "kind": self.kind,
            "sha256": self.sha256,
            "size": self.size,
        }


def digest_path(path: str | os.PathLike[str], role: str = "file") -> InputDigest:
    """The SHA-256 of a file (or of standard input's bytes for ``-``), read in blocks.

    Standard input is hashed from the bytes the readers kept
    (:func:`~f1posterior.io._sources.stdin_bytes`); call it after the input was read.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> _ = open(p, "w").write("[[1, 2], [3, 4]]")
    >>> d = digest_path(p)
    >>> d.sha256[:12], d.size
    ('1e258794ed04', 16)
    """
    if is_stdin(path):
        data = stdin_bytes()
        return InputDigest(role, STDIN_NAME, hashlib.sha256(data).hexdigest(), len(data), "stdin")
    h = hashlib.sha256()
    size = 0
    try:
        with Path(path).open("rb") as fh:
            while block := fh.read(_BLOCK):
                h.update(block)
                size += len(block)
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read to hash it ({exc.strerror or exc})") from None
    return InputDigest(role, str(path), h.hexdigest(), size)


def streamed_stdin(role: str = "file") -> InputDigest:
    """The digest of standard input read as a stream: its bytes are not kept, no SHA-256."""
    return InputDigest(role, STDIN_NAME, None, None, "stdin")


def digest_array(values: Any, role: str = "array", name: str | None = None) -> InputDigest:
    """The SHA-256 of an array: its dtype string, its shape, then its C-order bytes.

    Two arrays have one digest only when they hold the same numbers in the same
    dtype and shape (``[[1, 2], [3, 4]]`` as int64 and as float64 differ).

    Examples
    --------
    >>> a = digest_array([[8, 2], [1, 9]])
    >>> b = digest_array(np.array([[8, 2], [1, 9]], dtype=np.int64))
    >>> a == b, a.kind, a.name
    (True, 'array', 'int64 array (2, 2)')
    """
    arr = np.ascontiguousarray(values)
    if arr.dtype.hasobject:
        raise TypeError(f"{role}: an array of numbers is hashed; got dtype {arr.dtype}")
    h = hashlib.sha256(f"{arr.dtype.str}{list(arr.shape)}".encode())
    h.update(arr.tobytes())
    label = name if name is not None else f"{arr.dtype} array {tuple(arr.shape)}"
    return InputDigest(role, label, h.hexdigest(), int(arr.nbytes), "array")


@dataclass(frozen=True)
class Receipt:
    """What an output records about its run: repeat it with the same version, inputs and seed.

    Attributes
    ----------
    command : str
        The subcommand (``"summarize"``, ``"gate"``, ...) or ``"python"``.
    inputs : tuple of InputDigest
        One per input, in the order read.
    prior : str or None
        Statement of the prior.
    draws : int or None
        Posterior draws per matrix (of the first round for an adaptive gate).
    seed : int, dict or None
        The root seed in its JSON form: the int given, or ``{"entropy",
        "spawn_key"}``; the entropy drawn when no seed was given.
    ci_prob : float or None
        Probability of the posterior intervals.
    prob : float or None
        The probability a decision requires (gate, compare, plan).
    version : str
        The f1posterior version that wrote the output.
    schema_version : str
        Version of the JSON outputs' schema.

    See Also
    --------
    f1posterior.io.json_schema : The schema of the JSON outputs that carry it.
    f1posterior.io.read_metadata : Read a row output's metadata (its ``receipt`` key).

    Examples
    --------
    >>> r = Receipt("python", (digest_array([[8, 2], [1, 9]]),), prior="uniform",
    ...             draws=1000, seed=7, ci_prob=0.95)
    >>> d = r.to_dict()
    >>> d["tool"], d["schema_version"], d["seed"], d["inputs"][0]["kind"]
    ('f1posterior', '1.0.0', 7, 'array')
    """

    command: str
    inputs: tuple[InputDigest, ...] = ()
    prior: str | None = None
    draws: int | None = None
    seed: Any = None
    ci_prob: float | None = None
    prob: float | None = None
    version: str = field(default="")
    schema_version: str = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if not self.version:
            from .._core.version import __version__

            object.__setattr__(self, "version", __version__)
        object.__setattr__(self, "seed", seed_json(self.seed))
        object.__setattr__(self, "inputs", tuple(self.inputs))
        _check(self)

    @classmethod
    def of(
        cls,
        result: Any,
        inputs: Any = (),
        command: str = "python",
        defaults: dict[str, Any] | None = None,
    ) -> Receipt:
        """The receipt of ``result`` (an evaluation, gate, comparison, ...) and its inputs.

        ``prior``, ``draws``, ``seed``, ``ci_prob`` and ``prob`` are read from
        ``result`` when it records them (the seed it records is the entropy
        actually used when none was given), else taken from ``defaults``.
        ``inputs`` holds :class:`InputDigest` values, or arrays and paths (digested
        here: an array by dtype, shape and bytes, a path by its file's bytes).

        Examples
        --------
        >>> from f1posterior import evaluate
        >>> counts = [[8, 2], [1, 9]]
        >>> ev = evaluate(counts, draws=1000)  # no seed given: fresh entropy, recorded
        >>> r = Receipt.of(ev, [np.asarray(counts)])
        >>> again = evaluate(counts, draws=1000, rng=r.seed_sequence())
        >>> bool(again["micro_f1"].mean == ev["micro_f1"].mean), r.draws
        (True, 1000)
        """
        given = dict(defaults or {})

        def pick(name: str) -> Any:
            value = getattr(result, name, None)
            if name == "draws" and not isinstance(value, int | np.integer):
                value = None  # (a comparison's ``draws`` are its draws)
            return given.get(name) if value is None else value

        digests = tuple(
            x if isinstance(x, InputDigest) else
            digest_path(x) if isinstance(x, str | os.PathLike) else digest_array(x)
            for x in inputs
        )  # fmt: skip
        return cls(
            command, digests, prior=pick("prior"), draws=pick("draws"), seed=pick("seed"),
            ci_prob=pick("ci_prob"), prob=pick("prob"),
        )  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Receipt:
        """The receipt of :meth:`to_dict`'s dictionary (read back from an output)."""
        keys = ("command", "prior", "draws", "seed", "ci_prob", "prob", "version")
        from .._core.describe import describe

        needed = (*keys, "schema_version")
        missing = [k for k in needed if not isinstance(d, dict) or k not in d]
        if missing:
            raise ValueError(
                f"a receipt dictionary (to_dict's) must hold {', '.join(keys)} and "
                f"schema_version; got {describe(d)} (without {missing[0]!r})"
            )
        fields = ("role", "name", "kind", "sha256", "size")
        raw = d.get("inputs", ())
        if not isinstance(raw, list | tuple) or not all(
            isinstance(x, dict) and set(x) <= set(fields) for x in raw
        ):
            raise ValueError(
                f"a receipt's inputs must be a list of objects with keys {', '.join(fields)}; "
                f"got {describe(raw)}"
            )
        inputs = tuple(InputDigest(**x) for x in raw)
        return cls(inputs=inputs, schema_version=d["schema_version"], **{k: d[k] for k in keys})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary: ``tool``, ``version``, ``schema_version``, ``command``,
        ``inputs``, ``prior``, ``draws``, ``seed``, ``ci_prob``, ``prob``."""
        return {
            "tool": "f1posterior",
            "version": self.version,
            "schema_version": self.schema_version,
            "command": self.command,
            "inputs": [d.to_dict() for d in self.inputs],
            "prior": self.prior,
            "draws": None if self.draws is None else int(self.draws),
            "seed": self.seed,
            "ci_prob": None if self.ci_prob is None else float(self.ci_prob),
            "prob": None if self.prob is None else float(self.prob),
        }

    def seed_sequence(self) -> np.random.SeedSequence:
        """The run's root seed, to pass back as ``rng=`` (or its int as ``--seed``).

        Examples
        --------
        >>> Receipt("python", seed={"entropy": 7, "spawn_key": [3]}).seed_sequence().spawn_key
        (3,)
        """
        if isinstance(self.seed, dict):
            return np.random.SeedSequence(**self.seed)
        if self.seed is None:
            raise ValueError("this receipt records no seed (the run drew nothing)")
        return np.random.SeedSequence(self.seed)

    def properties(self) -> dict[str, str]:
        """Flat ``receipt.*`` names and text values (JUnit properties, tags of a tracker)."""
        out = {"receipt.version": self.version, "receipt.schema_version": self.schema_version}
        out["receipt.command"] = self.command
        for i, d in enumerate(self.inputs):
            out[f"receipt.input.{i}.role"] = d.role
            out[f"receipt.input.{i}.name"] = escape_text(d.name)
            out[f"receipt.input.{i}.sha256"] = d.sha256 or "not kept (streamed)"
        for key in ("prior", "draws", "ci_prob", "prob"):
            value = getattr(self, key)
            if value is not None:
                out[f"receipt.{key}"] = escape_text(str(value))
        out["receipt.seed"] = json.dumps(self.seed)
        return out

    def _parts(self, name: Any) -> list[str]:
        parts = [f"f1posterior {self.version}", f"schema {self.schema_version}"]
        parts += [
            f"{d.role} {name(d.name)} sha256:{d.sha256 or 'not kept (streamed)'}"
            for d in self.inputs
        ]
        if self.prior is not None:
            parts.append(f"prior {name(self.prior)}")
        if self.draws is not None:
            parts.append(f"{self.draws:,} draws")
        parts.append(f"seed {json.dumps(self.seed)}")
        if self.ci_prob is not None:
            parts.append(f"ci_prob {self.ci_prob:g}")
        if self.prob is not None:
            parts.append(f"prob {self.prob:g}")
        return parts

    def text(self) -> str:
        """One line for the text outputs: ``Receipt: f1posterior 1.0.0; schema ...; ...``."""
        return "Receipt: " + "; ".join(self._parts(escape_text))

    def markdown(self) -> str:
        """A Markdown footer line (names escaped)."""
        return "<sub>Receipt: " + "; ".join(self._parts(escape_markdown)) + "</sub>"

    def add_to_junit(self, xml: str) -> str:
        """``xml`` (a JUnit ``testsuite``) with :meth:`properties` added to the suite's."""
        import xml.etree.ElementTree as ET

        suite = ET.fromstring(xml)
        props = suite.find("properties")
        if props is None:
            props = ET.Element("properties")
            suite.insert(0, props)
        for key, value in self.properties().items():
            ET.SubElement(props, "property", name=key, value=value)
        body = ET.tostring(suite, encoding="unicode")
        return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"


def _check(r: Receipt) -> None:
    """One-line errors for a receipt's fields, naming the field and echoing the value."""
    from .._core.describe import describe

    if not isinstance(r.command, str) or not r.command:
        raise TypeError(f"command must be a non-empty str; got {describe(r.command)}")
    if r.command not in COMMANDS:
        raise ValueError(f"command must be one of {', '.join(COMMANDS)}; got {r.command!r}")
    bad = [x for x in r.inputs if not isinstance(x, InputDigest)]
    if bad:
        raise TypeError(f"inputs must hold InputDigest values; got {describe(bad[0])}")
    draws = r.draws
    if draws is not None and (
        isinstance(draws, bool) or not isinstance(draws, int | np.integer) or draws < 1
    ):
        raise ValueError(f"draws must be an int >= 1 or None; got {describe(draws)}")
    for name in ("ci_prob", "prob"):
        p = getattr(r, name)
        if p is not None and (
            isinstance(p, bool) or not isinstance(p, float | int) or not 0 < p < 1
        ):
            raise ValueError(f"{name} must be a number in (0, 1) or None; got {describe(p)}")


def split_intervals(value: Any) -> Any:
    """``value`` with every interval ``[low, high]`` under :data:`INTERVAL_KEYS` split in two.

    ``{"hdi": [0.7, 0.9]}`` becomes ``{"hdi_low": 0.7, "hdi_high": 0.9}`` (a batch's
    ``[[l, h], ...]`` gives two lists), so that each end is a leaf of its own.

    Examples
    --------
    >>> split_intervals({"m": {"hdi": [0.7, 0.9], "mean": 0.8}})
    {'m': {'hdi_low': 0.7, 'hdi_high': 0.9, 'mean': 0.8}}
    """
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k in INTERVAL_KEYS and v is not None:
                ends = np.asarray(v, dtype=float)
                if ends.ndim == 0 or ends.shape[-1] != 2:
                    raise ValueError(f"{k}: an interval is [low, high]; got shape {ends.shape}")
                out[f"{k}_low"] = ends[..., 0].tolist()
                out[f"{k}_high"] = ends[..., 1].tolist()
            else:
                out[k] = split_intervals(v)
        return out
    if isinstance(value, (list, tuple)):
        return [split_intervals(v) for v in value]
    return value


def _strict(value: Any) -> Any:
    """Strict JSON: NaN and infinities become null (JSON has no such numbers)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def json_document(out: dict[str, Any], receipt: Receipt, indent: int | None = 2) -> str:
    """The JSON text of an output: intervals split (:func:`split_intervals`), undefined
    numbers as null, and ``receipt`` last; it validates against ``f1posterior schema``."""
    doc = _strict(split_intervals(out))
    doc["receipt"] = receipt.to_dict()
    return json.dumps(doc, indent=indent, allow_nan=False)
