"""``f1posterior compare --predictions FILE.csv --fold-col fold``: classifiers across folds.

Design notes: docs/design.md#cli-compare
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .._core.text import escape_markdown, escape_text

if TYPE_CHECKING:
    from ..analysis import FoldComparison, Ranking
    from ..gating import GateResult

__all__ = ["add_fold_argument", "fold_result", "gate_across_folds", "report_folds"]


def add_fold_argument(p: argparse.ArgumentParser) -> None:
    """``--fold-col`` and ``--tau-scale`` of ``compare``."""
    p.add_argument(
        "--fold-col",
        default=None,
        metavar="NAME",
        help="column of --predictions naming each document's fold (seed, test set): compare "
        "across folds (the paired model per fold; the mean over these folds, the population "
        "of folds and a new fold); the column is not a model",
    )
    p.add_argument(
        "--target",
        choices=["folds", "population"],
        default=None,
        help="with --fold-col and two models: decide on the mean over these folds (default) "
        "or over a population of folds like these",
    )
    p.add_argument(
        "--tau-scale",
        type=lambda text: text if text == "auto" else float(text),
        default=None,
        metavar="A",
        help="with --fold-col: scale of the half-Cauchy prior of the between-fold sd of the "
        "difference ('auto', the default: 3 times the folds' typical posterior sd)",
    )


def fold_result(
    args: argparse.Namespace, common: dict[str, Any], prior: dict[str, Any]
) -> tuple[FoldComparison | Ranking, list[str], str]:
    """The comparison (two models) or ranking (three or more) across the folds of
    ``--predictions``, the model names and the source line."""
    from ..analysis import compare_folds, rank_folds
    from ..io import is_stdin, read_prediction_table, source_name

    if args.predictions is None:
        raise ValueError(
            f"--fold-col {args.fold_col} names a column of --predictions CSV; got no --predictions"
        )
    if args.fold_col in (args.true_col, args.id_col):
        raise ValueError(
            f"--fold-col must be its own column; got {args.fold_col!r}, which is also the "
            f"{'--true-col' if args.fold_col == args.true_col else '--id-col'}"
        )
    fmt = args.input_format if is_stdin(args.predictions) else None
    models = None if args.models is None else [*args.models, args.fold_col]
    if models is not None and args.fold_col in args.models:
        raise ValueError(f"--models must not list the --fold-col column {args.fold_col!r}")
    table = read_prediction_table(
        args.predictions, args.true_col, models, min_models=1, id_col=args.id_col,
        input_format=fmt,
    )  # fmt: skip
    where = source_name(args.predictions)
    preds = dict(table.preds)
    if args.fold_col not in preds:
        raise ValueError(
            f"{where}: no column {args.fold_col!r} (--fold-col) in the header; columns are "
            f"{[args.true_col, *preds]}"
        )
    folds = preds.pop(args.fold_col)
    if len(preds) < 2:
        raise ValueError(
            f"{where}: --fold-col needs two or more model columns besides {args.true_col!r} and "
            f"{args.fold_col!r}; got {list(preds)}"
        )
    names = list(preds)
    source = f"{where} (paired: same documents, folds by column {args.fold_col})"
    if len(preds) == 2:
        extra: dict[str, Any] = {}
        if args.tau_scale is not None:
            extra["tau_scale"] = args.tau_scale
        if args.target is not None:
            extra["target"] = args.target
        result: FoldComparison | Ranking = compare_folds(
            table.y_true, preds[names[0]], preds[names[1]], folds=folds, rope=args.rope,
            prob=args.prob, **prior, **common, **extra,
        )  # fmt: skip
    else:
        if args.tau_scale is not None or args.target is not None:
            raise ValueError(
                f"--tau-scale and --target apply to two models (the random-effects model of "
                f"their difference); got {len(preds)} models: {names}"
            )
        result = rank_folds(table.y_true, preds, folds=folds, **prior, **common)
    return result, names, source


def report_folds(
    args: argparse.Namespace, result: FoldComparison, names: list[str], source: str
) -> int:
    """Print a two-model comparison across folds in ``--format``."""
    if args.plot or args.report:
        raise ValueError(
            "--plot and --report are not available with --fold-col for two models; use "
            "--format markdown or json"
        )
    from ._receipts import command_receipt, digests, print_with_receipt

    receipt = command_receipt(args, result, digests([("predictions", args.predictions)]))
    a, b = names
    md = result.to_markdown().rstrip("\n")
    print_with_receipt(
        args.format,
        receipt,
        {**result.to_dict(), "source": source, "models": {"A": a, "B": b}},
        f"Input: {escape_markdown(source)}; A = {escape_markdown(a)}, B = {escape_markdown(b)}"
        f"\n\n{md}",
        f"Input: {escape_text(source)}\nA = {escape_text(a)}, B = {escape_text(b)}\n{result}",
    )
    return 0


def gate_across_folds(args: argparse.Namespace, checks: Any, baseline: str | None) -> GateResult:
    """``gate FILE --baseline BASEFILE --fold-col NAME``: the baseline checks on the mean
    difference over the folds (:func:`f1posterior.gate_folds`), FILE and BASEFILE being
    predictions CSVs of the same documents with the fold column."""
    from ..gating import NonInferiority, gate_folds
    from ..io import is_stdin, read_prediction_table
    from ._common import prior_from_args
    from ._prediction_tables import pair_prediction_tables

    if baseline is None:
        raise ValueError(
            f"--fold-col {args.fold_col} checks the difference from the baseline across folds; "
            "give --baseline BASEFILE"
        )
    floors = [c.metric for c in checks if not isinstance(c, NonInferiority)]
    if floors or args.multilabel:
        why = f"floors (--min, for {floors[0]})" if floors else "--multilabel"
        raise ValueError(
            f"--fold-col checks the baseline across folds; {why} are checked per table: run "
            "them in a gate without --fold-col"
        )
    files = [args.file, baseline]
    tables = [
        read_prediction_table(
            f,
            args.true_col,
            [args.pred_col, args.fold_col],
            min_models=2,
            id_col=args.id_col,
            input_format=args.input_format if is_stdin(f) else None,
        )  # fmt: skip
        for f in files
    ]
    new, base = tables
    if args.id_col is None and new.y_true != base.y_true:
        raise ValueError(
            f"--fold-col pairs the predictions of the same documents: {new.source} and "
            f"{base.source} do not list the same true labels in the same order; give --id-col "
            "NAME (a column of document ids in both)"
        )
    paired = pair_prediction_tables(tables, args.id_col, command="f1posterior gate")
    assert paired is not None  # joined on ids, or the same documents in the same order
    new, base = paired
    folds = new.preds[args.fold_col]
    differ = [i for i, (a, b) in enumerate(zip(folds, base.preds[args.fold_col], strict=True))
              if a != b]  # fmt: skip
    if differ:
        i = differ[0]
        raise ValueError(
            f"{base.source}: {len(differ)} document(s) are in another fold than in {new.source} "
            f"(document {i + 1}: {base.preds[args.fold_col][i]!r} vs {folds[i]!r}); a document "
            "must be in the same fold in both files"
        )
    return gate_folds(
        new.y_true, new.preds[args.pred_col], base.preds[args.pred_col], checks, folds=folds,
        prob=args.prob, draws=args.draws, max_draws=args.max_draws, rng=args.seed,
        ci_prob=args.ci_prob, labels=args.labels, source=new.source,
        baseline_source=base.source, **prior_from_args(args),
    )  # fmt: skip
