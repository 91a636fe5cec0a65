"""``f1posterior compare``: is classifier A better than B?

Two inputs:

- confusion matrices of classifiers tested on **independent** test sets,
  ``f1posterior compare A.json B.json`` (any format ``summarize`` reads); three
  or more files rank the classifiers;
- a predictions CSV of classifiers run on the **same** documents,
  ``f1posterior compare --predictions preds.csv [--models a b]``: a ``y_true``
  column and one column per model (the paired model; three or more models are
  ranked).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..comparison import (
    Comparison,
    Ranking,
    compare,
    compare_predictions,
    rank_classifiers,
    rank_predictions,
)
from ..inputs import _read_text, read_input
from ..metrics import METRICS, PER_CLASS_METRICS
from ..priors import prior_preset
from .common import add_sampling_arguments, probability

__all__ = ["register", "run", "read_prediction_columns", "paired_prior", "paired_gate_predictions"]

SCALAR_METRICS = [m for m in METRICS if m not in PER_CLASS_METRICS]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "compare",
        help="compare classifiers: P(A better), paired or independent",
        description="Posterior of the difference metric(A) - metric(B), P(A better), "
        "P(B better), P(practically equal) and a decision. Files A B: confusion matrices "
        "from independent test sets. --predictions FILE.csv: a y_true column and one column "
        "per model, predictions on the same documents (the paired model, far more "
        "decisive). Three or more classifiers are ranked.",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="confusion-matrix files, one per model")
    p.add_argument(
        "--predictions",
        metavar="CSV",
        help="predictions CSV: column y_true and one column per model (same documents)",
    )
    p.add_argument(
        "--models",
        nargs="+",
        metavar="NAME",
        help="model columns of --predictions to compare (default: every column but y_true)",
    )
    p.add_argument(
        "--true-col", default="y_true", help="column of true labels in --predictions (y_true)"
    )
    p.add_argument(
        "--metric",
        default="macro_f1",
        choices=SCALAR_METRICS,
        metavar="NAME",
        help="metric to compare (default macro_f1); one of " + ", ".join(SCALAR_METRICS),
    )
    p.add_argument(
        "--rope",
        type=_nonnegative,
        default=0.0,
        help="half-width of the region of practical equivalence (default 0)",
    )
    p.add_argument(
        "--prob",
        type=probability,
        default=0.95,
        help="probability a decision needs, in (0.5, 1) (default 0.95)",
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_sampling_arguments(p)
    p.set_defaults(run=run)


def _nonnegative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0; got {text!r}") from None
    if not (np.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a number >= 0; got {text!r}")
    return value


def paired_prior(name: str) -> dict[str, Any]:
    """Paired-model ``alpha``/``beta`` for a prior preset name.

    The paired model resolves every preset as the core does, so that each
    model's marginal prior is the preset (:func:`f1posterior.comparison.compare_predictions`).
    """
    alpha, beta = prior_preset(name)
    return {"alpha": alpha, "beta": beta}


def read_prediction_columns(
    path: str | Path,
    true_col: str = "y_true",
    models: list[str] | None = None,
    min_models: int = 2,
) -> tuple[list[str], dict[str, list[str]]]:
    """Read ``y_true`` and model columns (labels as text) from a predictions CSV."""
    p = Path(path)
    text = _read_text(p)
    reader = csv.reader(io.StringIO(text), delimiter="\t" if p.suffix.lower() == ".tsv" else ",")
    try:
        header = [c.strip() for c in next(reader, [])]
        if true_col not in header:
            raise ValueError(
                f"{p}: no column {true_col!r} in the header; columns are {header} (a predictions "
                f"CSV has a {true_col} column and one column per model)"
            )
        if models is None:
            models = [c for c in header if c != true_col]
        else:
            missing = [m for m in models if m not in header]
            if missing:
                raise ValueError(f"--models: no column {missing[0]!r} in {p}; columns are {header}")
            if len(set(models)) != len(models):
                raise ValueError(f"--models must not repeat a model; got {models}")
        if len(models) < min_models:
            raise ValueError(
                f"{p}: need at least two model columns besides {true_col!r}; got {models}"
            )
        cols = [header.index(c) for c in [true_col, *models]]
        values: list[list[str]] = [[] for _ in cols]
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            if len(cells) <= max(cols):
                raise ValueError(
                    f"{p}, line {reader.line_num}: {len(cells)} cells; the header has {len(header)}"
                )
            for out, i in zip(values, cols, strict=True):
                v = cells[i].strip()
                if not v:
                    raise ValueError(
                        f"{p}, line {reader.line_num}: empty label in column {header[i]!r}"
                    )
                out.append(v)
    except csv.Error as exc:
        raise ValueError(f"{p}, line {reader.line_num}: broken CSV ({exc})") from None
    if not values[0]:
        raise ValueError(f"{p}: no predictions after the header line")
    return values[0], dict(zip(models, values[1:], strict=True))


def paired_gate_predictions(args: argparse.Namespace) -> tuple[list[str], ...] | None:
    """``(y_true, new, baseline)`` when ``gate``'s FILE and --baseline are paired predictions.

    Both must be predictions CSVs (``--true-col``/``--pred-col`` in the header)
    with the same ``y_true`` column, document by document; anything else is
    compared as independent samples (None).
    """
    paths = [Path(args.file), Path(args.baseline)]
    if args.predictions is False or any(p.suffix.lower() not in (".csv", ".tsv") for p in paths):
        return None
    cols = []
    for p in paths:
        header = [c.strip() for c in next(csv.reader(io.StringIO(_read_text(p))), [])]
        if args.true_col not in header or args.pred_col not in header:
            return None
        y, preds = read_prediction_columns(p, args.true_col, [args.pred_col], min_models=1)
        cols.append((y, preds[args.pred_col]))
    if cols[0][0] != cols[1][0]:
        return None
    return cols[0][0], cols[0][1], cols[1][1]


def _align_labels(inputs: list[Any], files: list[str]) -> list[np.ndarray]:
    """Counts of every file in the first labelled file's class order."""
    ref = next((d for d in inputs if d.labels is not None), None)
    out = []
    for d, f in zip(inputs, files, strict=True):
        if ref is None or d.labels is None or d.labels == ref.labels:
            out.append(d.counts)
            continue
        if set(d.labels) != set(ref.labels):
            raise ValueError(
                f"{f}: different class labels from {ref.source}: {d.labels} vs {ref.labels}; "
                "the classifiers must be scored on the same classes"
            )
        order = [d.labels.index(x) for x in ref.labels]
        out.append(d.counts[..., order, :][..., :, order])
    return out


def run(args: argparse.Namespace) -> int:
    common = dict(metric=args.metric, draws=args.draws, hdi_prob=args.hdi_prob, rng=args.seed)
    result: Comparison | Ranking
    if args.predictions is not None:
        if args.files:
            raise ValueError(
                "give either confusion-matrix FILEs or --predictions CSV, not both; got "
                f"{len(args.files)} file(s) and --predictions {args.predictions}"
            )
        y_true, preds = read_prediction_columns(args.predictions, args.true_col, args.models)
        if args.models is None:
            known = set(y_true)
            for col, values in preds.items():
                extra = sorted(set(values) - known)
                if extra:
                    raise ValueError(
                        f"{args.predictions}: column {col!r} holds labels that never occur in "
                        f"{args.true_col}: {extra[:5]}; if it is not a model's predictions, "
                        "name the model columns with --models"
                    )
        prior = paired_prior(args.prior)
        names = list(preds)
        if len(preds) == 2:
            result = compare_predictions(
                y_true, preds[names[0]], preds[names[1]], rope=args.rope, prob=args.prob,
                **prior, **common,
            )  # fmt: skip
        else:
            result = rank_predictions(y_true, preds, **prior, **common)
        source = f"{args.predictions} (paired: same documents)"
    else:
        if args.models:
            raise ValueError("--models selects columns of --predictions; got no --predictions")
        if len(args.files) < 2:
            raise ValueError(
                f"compare needs two or more confusion-matrix FILEs, or --predictions CSV; got "
                f"{len(args.files)} file(s)"
            )
        names = list(args.files)
        inputs = [read_input(f) for f in args.files]
        counts = _align_labels(inputs, args.files)
        alpha, beta = prior_preset(args.prior)
        if len(counts) == 2:
            result = compare(
                counts[0], counts[1], rope=args.rope, prob=args.prob, alpha=alpha, beta=beta,
                **common,
            )  # fmt: skip
        else:
            shapes = {c.shape for c in counts}
            if len(shapes) != 1:
                raise ValueError(
                    f"ranking needs confusion matrices of one shape; got {sorted(shapes)}"
                )
            result = rank_classifiers(
                np.stack(counts, axis=-3), names=names, alpha=alpha, beta=beta, **common
            )
        source = ", ".join(args.files) + " (independent test sets)"
    if args.format == "json":
        out = result.to_dict()
        out["source"] = source
        if isinstance(result, Comparison):
            out["models"] = {"A": names[0], "B": names[1]}
        print(json.dumps(out, indent=2))
        return 0
    print(f"Input: {source}")
    if isinstance(result, Comparison):
        print(f"A = {names[0]}, B = {names[1]}")
    print(result)
    return 0
