"""``f1posterior compare``: is classifier A better than B?

Two inputs:

- confusion matrices of classifiers tested on **independent** test sets,
  ``f1posterior compare A.json B.json`` (any format ``summarize`` reads); three
  or more files rank the classifiers;
- a predictions CSV of classifiers run on the **same** documents,
  ``f1posterior compare --predictions preds.csv [--models a b]``: a ``y_true``
  column and one column per model (the paired model; three or more models are
  ranked).

FILEs that are all predictions CSVs (``y_true`` and ``y_pred`` columns) are
paired exactly as ``gate`` pairs FILE and BASEFILE
(:func:`pair_prediction_tables`): joined on ``--id-col NAME`` in any row
order, or, without it, paired only when every file lists the same true labels
in the same order; otherwise a warning says they were not paired and they are
compared as independent samples. One FILE (or ``--predictions``) may be ``-``,
standard input.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._core.priors import prior_preset
from .._core.text import escape_text
from ..analysis.comparison import (
    Comparison,
    Ranking,
    compare,
    compare_predictions,
    rank_classifiers,
    rank_predictions,
)
from ..io.readers import (
    INPUT_FORMATS,
    _delimiter,
    _read_text,
    _where,
    input_format_of,
    is_predictions_table,
    is_stdin,
    read_input,
)
from ..metrics.confusion import align_ids
from ..metrics.multiclass import METRICS, PER_CLASS_METRICS
from .common import add_sampling_arguments, probability
from .input_args import ID_COL_HELP, INPUT_FORMAT_HELP, check_stdin_inputs

__all__ = [
    "register",
    "run",
    "read_prediction_columns",
    "read_prediction_table",
    "PredictionTable",
    "pair_prediction_tables",
    "paired_prior",
    "paired_gate_predictions",
]

SCALAR_METRICS = [m for m in METRICS if m not in PER_CLASS_METRICS]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "compare",
        help="compare classifiers: P(A better), paired or independent",
        description="Posterior of the difference metric(A) - metric(B), P(A better), "
        "P(B better), P(practically equal) and a decision. Files A B: confusion matrices "
        "from independent test sets. --predictions FILE.csv: a y_true column and one column "
        "per model, predictions on the same documents (the paired model, far more "
        "decisive). FILEs that are all predictions CSVs (y_true, y_pred) are paired like "
        "gate's FILE and BASEFILE: by --id-col, or when they list the same true labels in the "
        "same order. Three or more classifiers are ranked.",
    )
    p.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="confusion-matrix files or predictions CSVs, one per model; one may be - "
        "(standard input)",
    )
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
        "--true-col",
        default="y_true",
        help="column of true labels in --predictions and predictions-CSV FILEs (y_true)",
    )
    p.add_argument(
        "--pred-col",
        default="y_pred",
        help="column of predicted labels in predictions-CSV FILEs (default y_pred)",
    )
    p.add_argument(
        "--id-col",
        default=None,
        metavar="NAME",
        help=ID_COL_HELP.replace("(FILE and BASEFILE)", "(the FILEs)")
        + "; with --predictions, the column is not a model",
    )
    p.add_argument(
        "--input-format", choices=INPUT_FORMATS, default=None, metavar="FMT", help=INPUT_FORMAT_HELP
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
    model's marginal prior is the preset
    (:func:`f1posterior.analysis.comparison.compare_predictions`).
    """
    alpha, beta = prior_preset(name)
    return {"alpha": alpha, "beta": beta}


@dataclass(frozen=True)
class PredictionTable:
    """Columns of a predictions CSV, labels and ids as text.

    Attributes
    ----------
    source : str
        The path (``<stdin>`` for standard input).
    y_true : list of str
        True label of each document.
    preds : dict of str to list of str
        Predicted labels, one list per model column.
    ids : list of str or None
        Document ids, when an id column was read.
    """

    source: str
    y_true: list[str]
    preds: dict[str, list[str]]
    ids: list[str] | None = None


def _table_delimiter(path: str | Path, text: str, input_format: str | None) -> str:
    if not is_stdin(path) and input_format is None:
        return "\t" if Path(path).suffix.lower() == ".tsv" else ","
    fmt = input_format_of(path, input_format)
    if fmt not in ("csv", "tsv", "predictions"):
        raise ValueError(
            f"{_where(path)}: read as {fmt}, but a predictions CSV was expected (give "
            "--input-format csv, tsv or predictions)"
        )
    return _delimiter(fmt, text)


def read_prediction_table(
    path: str | Path,
    true_col: str = "y_true",
    models: list[str] | None = None,
    min_models: int = 2,
    *,
    id_col: str | None = None,
    input_format: str | None = None,
) -> PredictionTable:
    """Read ``true_col``, model columns and an optional id column from a predictions CSV.

    ``models=None`` takes every column but ``true_col`` and ``id_col``.
    ``path`` ``-`` reads standard input (format ``input_format`` or sniffed).
    Every malformed row is a ``ValueError`` naming the file and line.
    """
    p = Path(path)
    where = _where(p)
    text = _read_text(p)
    reader = csv.reader(io.StringIO(text), delimiter=_table_delimiter(p, text, input_format))
    try:
        header = [c.strip() for c in next(reader, [])]
        if true_col not in header:
            raise ValueError(
                f"{where}: no column {true_col!r} in the header; columns are {header} (a "
                f"predictions CSV has a {true_col} column and one column per model)"
            )
        if id_col is not None and id_col not in header:
            raise ValueError(f"--id-col: no column {id_col!r} in {where}; columns are {header}")
        if models is None:
            models = [c for c in header if c not in (true_col, id_col)]
        else:
            missing = [m for m in models if m not in header]
            if missing:
                raise ValueError(
                    f"--models: no column {missing[0]!r} in {where}; columns are {header}"
                )
            if len(set(models)) != len(models):
                raise ValueError(f"--models must not repeat a model; got {models}")
        if len(models) < min_models:
            raise ValueError(
                f"{where}: need at least two model columns besides {true_col!r}; got {models}"
            )
        names = [true_col, *models] + ([id_col] if id_col is not None else [])
        cols = [header.index(c) for c in names]
        values: list[list[str]] = [[] for _ in cols]
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            if len(cells) <= max(cols):
                raise ValueError(
                    f"{where}, line {reader.line_num}: {len(cells)} cells; the header has "
                    f"{len(header)}"
                )
            for out, i in zip(values, cols, strict=True):
                v = cells[i].strip()
                if not v:
                    what = "document id" if id_col is not None and i == cols[-1] else "label"
                    raise ValueError(
                        f"{where}, line {reader.line_num}: empty {what} in column {header[i]!r}"
                    )
                out.append(v)
    except csv.Error as exc:
        raise ValueError(f"{where}, line {reader.line_num}: broken CSV ({exc})") from None
    if not values[0]:
        raise ValueError(f"{where}: no predictions after the header line")
    k = len(models)
    return PredictionTable(
        source=where,
        y_true=values[0],
        preds=dict(zip(models, values[1 : k + 1], strict=True)),
        ids=values[k + 1] if id_col is not None else None,
    )


def read_prediction_columns(
    path: str | Path,
    true_col: str = "y_true",
    models: list[str] | None = None,
    min_models: int = 2,
    *,
    id_col: str | None = None,
    input_format: str | None = None,
) -> tuple[list[str], dict[str, list[str]]]:
    """Read ``y_true`` and model columns (labels as text) from a predictions CSV."""
    t = read_prediction_table(
        path, true_col, models, min_models, id_col=id_col, input_format=input_format
    )
    return t.y_true, t.preds


def _warn(command: str, message: str) -> None:
    print(f"{command}: warning: {escape_text(message)}", file=sys.stderr)


def pair_prediction_tables(
    tables: list[PredictionTable],
    id_col: str | None = None,
    *,
    command: str = "f1posterior gate",
) -> list[PredictionTable] | None:
    """The tables with their rows in the first table's document order, or None.

    With ``id_col`` (every table read with its ids), rows are joined on the
    id (:func:`f1posterior.metrics.confusion.align_ids`): the ids must match one to
    one, and a document must have the same true label in every file, else a
    ``ValueError`` names the ids. Without it, the tables are paired only when
    they list the same true labels in the same order (same length); otherwise
    one warning line ``COMMAND: warning: ...`` on stderr says why they were not
    paired and the result is None (compare them as independent samples).
    """
    ref = tables[0]
    if id_col is not None:
        out = [ref]
        for t in tables[1:]:
            if ref.ids is None or t.ids is None:
                raise ValueError("pair_prediction_tables: id_col given, but a table has no ids")
            perm = align_ids(
                ref.ids,
                t.ids,
                name=f"{ref.source} (column {id_col!r})",
                other_name=f"{t.source} (column {id_col!r})",
            ).tolist()
            y = [t.y_true[i] for i in perm]
            differ = [j for j, (a, b) in enumerate(zip(ref.y_true, y, strict=True)) if a != b]
            if differ:
                shown = "; ".join(
                    f"id {ref.ids[j]!r}: {ref.y_true[j]!r} vs {y[j]!r}" for j in differ[:5]
                )
                more = f" (and {len(differ) - 5} more)" if len(differ) > 5 else ""
                raise ValueError(
                    f"{t.source}: {len(differ)} document(s) have a different true label than in "
                    f"{ref.source}: {shown}{more}; a document must have the same true label in "
                    "both files"
                )
            preds = {m: [v[i] for i in perm] for m, v in t.preds.items()}
            out.append(PredictionTable(t.source, ref.y_true, preds, ref.ids))
        return out
    for t in tables[1:]:
        if len(t.y_true) != len(ref.y_true):
            why = f"{len(ref.y_true)} and {len(t.y_true)} documents"
        else:
            j = next(
                (i for i, (a, b) in enumerate(zip(ref.y_true, t.y_true, strict=True)) if a != b),
                None,
            )
            if j is None:
                continue
            why = (
                f"their true labels differ from document {j + 1} on ({ref.y_true[j]!r} vs "
                f"{t.y_true[j]!r}), so the rows are not known to be the same documents"
            )
        _warn(
            command,
            f"{ref.source} and {t.source} are not paired ({why}); they are compared as "
            "independent samples, which is less decisive. To pair the same documents listed "
            "in different orders, give --id-col NAME (a column of document ids in both)",
        )
        return None
    return tables


def paired_gate_predictions(args: argparse.Namespace) -> tuple[list[str], ...] | None:
    """``(y_true, new, baseline)`` when ``gate``'s FILE and --baseline are paired predictions.

    Both must be predictions CSVs (``--true-col``/``--pred-col`` in the
    header). With ``--id-col`` their rows are joined on the id column (ids
    one to one, the same true label per document, else a ValueError naming
    the ids); without it, they are paired only when they list the same true
    labels in the same order, else a warning line explains that they were
    not paired (:func:`pair_prediction_tables`). Anything else is compared
    as independent samples (None). Also checks that at most one input is
    ``-`` and that ``--id-col`` has two predictions CSVs to pair.
    """
    check_stdin_inputs(args)
    id_col = getattr(args, "id_col", None)
    if args.baseline is None or getattr(args, "multilabel", False):
        if id_col is not None:
            why = "there is no --baseline" if args.baseline is None else "--multilabel is given"
            raise ValueError(
                f"--id-col {id_col} pairs two predictions CSVs, FILE and --baseline BASEFILE; {why}"
            )
        return None
    if args.predictions is False:
        return None
    files = [args.file, args.baseline]
    fmts = [getattr(args, "input_format", None) if is_stdin(f) else None for f in files]
    for f, fmt in zip(files, fmts, strict=True):
        if not (
            args.predictions
            or is_predictions_table(
                f, true_col=args.true_col, pred_col=args.pred_col, input_format=fmt
            )
        ):
            if id_col is not None:
                raise ValueError(
                    f"--id-col {id_col} pairs two predictions CSVs; {_where(f)} is not one (a "
                    f"predictions CSV has {args.true_col!r} and {args.pred_col!r} columns)"
                )
            return None
    tables = [
        read_prediction_table(
            f, args.true_col, [args.pred_col], min_models=1, id_col=id_col, input_format=fmt
        )
        for f, fmt in zip(files, fmts, strict=True)
    ]
    command = f"f1posterior {getattr(args, 'command', None) or 'gate'}"
    paired = pair_prediction_tables(tables, id_col, command=command)
    if paired is None:
        return None
    new, base = paired
    return new.y_true, new.preds[args.pred_col], base.preds[args.pred_col]


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


def _compare_paired(
    y_true: list[str], preds: dict[str, list[str]], args: argparse.Namespace, common: dict
) -> Comparison | Ranking:
    """The paired model on predictions of the same documents (two compared, more ranked)."""
    prior = paired_prior(args.prior)
    names = list(preds)
    if len(preds) == 2:
        return compare_predictions(
            y_true, preds[names[0]], preds[names[1]], rope=args.rope, prob=args.prob,
            **prior, **common,
        )  # fmt: skip
    return rank_predictions(y_true, preds, **prior, **common)


def _paired_files(args: argparse.Namespace) -> tuple[list[str], dict[str, list[str]]] | None:
    """FILEs that are all predictions CSVs, paired as ``gate`` pairs them; else None."""
    fmts = [args.input_format if is_stdin(f) else None for f in args.files]
    all_predictions = all(
        is_predictions_table(f, true_col=args.true_col, pred_col=args.pred_col, input_format=fmt)
        for f, fmt in zip(args.files, fmts, strict=True)
    )
    if not all_predictions:
        if args.id_col is not None:
            bad = next(
                _where(f)
                for f, fmt in zip(args.files, fmts, strict=True)
                if not is_predictions_table(
                    f, true_col=args.true_col, pred_col=args.pred_col, input_format=fmt
                )
            )
            raise ValueError(
                f"--id-col {args.id_col} pairs predictions CSVs; {bad} is not one (a predictions "
                f"CSV has {args.true_col!r} and {args.pred_col!r} columns)"
            )
        return None
    tables = [
        read_prediction_table(
            f, args.true_col, [args.pred_col], min_models=1, id_col=args.id_col, input_format=fmt
        )
        for f, fmt in zip(args.files, fmts, strict=True)
    ]
    sources = [t.source for t in tables]
    if len(set(sources)) != len(sources):
        dup = next(x for x in sources if sources.count(x) > 1)
        raise ValueError(f"compare: FILE {dup} is given twice; give each model's file once")
    paired = pair_prediction_tables(tables, args.id_col, command="f1posterior compare")
    if paired is None:
        return None
    return paired[0].y_true, {t.source: t.preds[args.pred_col] for t in paired}


def run(args: argparse.Namespace) -> int:
    common = dict(metric=args.metric, draws=args.draws, hdi_prob=args.hdi_prob, rng=args.seed)
    result: Comparison | Ranking
    check_stdin_inputs(args, [args.predictions, *args.files])
    if args.predictions is not None:
        if args.files:
            raise ValueError(
                "give either confusion-matrix FILEs or --predictions CSV, not both; got "
                f"{len(args.files)} file(s) and --predictions {args.predictions}"
            )
        fmt = args.input_format if is_stdin(args.predictions) else None
        y_true, preds = read_prediction_columns(
            args.predictions, args.true_col, args.models, id_col=args.id_col, input_format=fmt
        )
        where = _where(args.predictions)
        if args.models is None:
            known = set(y_true)
            for col, values in preds.items():
                extra = sorted(set(values) - known)
                if extra:
                    raise ValueError(
                        f"{where}: column {col!r} holds labels that never occur in "
                        f"{args.true_col}: {extra[:5]}; if it is not a model's predictions, "
                        "name the model columns with --models (or the id column with --id-col)"
                    )
        names = list(preds)
        result = _compare_paired(y_true, preds, args, common)
        source = f"{where} (paired: same documents)"
    else:
        if args.models:
            raise ValueError("--models selects columns of --predictions; got no --predictions")
        if len(args.files) < 2:
            raise ValueError(
                f"compare needs two or more confusion-matrix FILEs, or --predictions CSV; got "
                f"{len(args.files)} file(s)"
            )
        paired_files = _paired_files(args)
        if paired_files is not None:
            y_true, preds = paired_files
            names = list(preds)
            result = _compare_paired(y_true, preds, args, common)
            how = f"joined on {args.id_col}" if args.id_col is not None else "same row order"
            return _report(
                args, result, names, f"{', '.join(names)} (paired: same documents, {how})"
            )
        names = [_where(f) for f in args.files]
        inputs = [
            read_input(
                f,
                true_col=args.true_col,
                pred_col=args.pred_col,
                input_format=args.input_format if is_stdin(f) else None,
            )
            for f in args.files
        ]
        counts = _align_labels(inputs, names)
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
        source = ", ".join(names) + " (independent test sets)"
    return _report(args, result, names, source)


def _report(
    args: argparse.Namespace, result: Comparison | Ranking, names: list[str], source: str
) -> int:
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
