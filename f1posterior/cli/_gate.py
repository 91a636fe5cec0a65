"""``f1posterior gate``: fail a CI job when a model is not credibly good enough.

Exit status 0 when every check passes, 1 when any fails, 2 on a usage or
input error, 3 when no check fails but some are inconclusive
(``--inconclusive pass|fail`` maps 3 to 0 or 1). See :mod:`f1posterior.gate`
for the checks. With ``--multilabel`` FILE (and BASEFILE) hold per-label 2 x 2
tables or indicator predictions (:func:`f1posterior.io.read_multilabel`),
gated with the multi-label metrics; per-label metrics are floors for every
label.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING, Any

from ..gating import (
    DEFAULT_MAX_DRAWS,
    GATE_MULTILABEL_METRICS,
    MAX_DRAWS_LIMIT,
    MIN_DRAWS,
    NOISE_SIGMAS,
    CheckGroup,
    Floor,
    GateCheck,
    GateResult,
    JointFloor,
    check_groups,
    gate,
    gate_multilabel,
    per_class_metrics,
)
from ..io import MatrixInput, Receipt, is_stdin, json_document
from ..metrics import METRIC_RANGES, METRICS, MULTILABEL_METRICS
from ._common import (
    SINGLE_LABEL_WHY,
    add_sampling_arguments,
    check_metric_names,
    finite_number,
    number_type,
    positive_int,
    positive_number,
    prior_from_args,
    unit_number,
)
from ._gate_config import CONFIG_DEFAULTS, add_config_arguments, apply_config
from ._gate_pr import (
    add_pr_arguments,
    check_pr_arguments,
    compared_check,
    pr_outputs,
    read_baseline_input,
    runner_safe_output,
)
from ._input_args import (
    CLUSTER_COL_HELP,
    FILE_HELP,
    add_cluster_argument,
    add_input_arguments,
    check_stdin_inputs,
    load_input,
)
from ._receipts import command_receipt, digests

if TYPE_CHECKING:
    from ..gating import GateConfig

__all__ = ["EXIT_STATUS", "exit_status", "register", "run"]


class _MetricAction(argparse.Action):
    """``--metric NAME`` starts a check; a following ``--min T`` gives it a floor."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        checks = list(getattr(namespace, "checks", None) or [])
        checks.append([values, None])
        namespace.checks = checks


class _MinAction(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        checks = list(getattr(namespace, "checks", None) or [])
        if not checks:
            parser.error(f"--min {values:g} must follow the --metric it applies to")
        if checks[-1][1] is not None:
            parser.error(
                f"--metric {checks[-1][0]} has two --min values ({checks[-1][1]:g} and "
                f"{values:g}); give one --min per --metric"
            )
        checks[-1] = [checks[-1][0], values]
        namespace.checks = checks


def register(sub: Any) -> None:
    p = sub.add_parser(
        "gate",
        help="pass/fail/inconclusive: is a metric credibly above a floor, or credibly no "
        "more than D below a baseline?",
        description="Each check has three verdicts. A floor (--metric NAME --min T; per-class "
        "metrics f1, precision, recall: every class) PASSES when P(metric >= T | data) >= P, "
        "FAILS when P(metric < T | data) >= P, and is INCONCLUSIVE otherwise. A baseline "
        "comparison (--baseline BASEFILE, every --metric; a non-inferiority test with margin "
        "D = --max-drop) PASSES when P(new - base >= -D | data) >= P, FAILS when "
        "P(new - base < -D | data) >= P, and is INCONCLUSIVE otherwise. The gate fails if any "
        "check fails, else is inconclusive if any check is, else passes. "
        "Exit status: 0 pass, 1 fail, 2 usage or input error, 3 inconclusive "
        "(--inconclusive pass|fail turns 3 into 0 or 1).",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        default=None,
        help=FILE_HELP + "; may come from the config (file = ...)",
    )
    p.add_argument(
        "--metric",
        action=_MetricAction,
        choices=list(dict.fromkeys([*METRICS, *MULTILABEL_METRICS])),
        metavar="NAME",
        dest="checks",
        help="metric to check (repeatable); one of "
        + ", ".join(METRICS)
        + "; with --multilabel one of "
        + ", ".join(GATE_MULTILABEL_METRICS),
    )
    p.add_argument(
        "--min",
        action=_MinAction,
        type=finite_number,
        metavar="T",
        dest="checks",
        help="floor for the preceding --metric: PASS when P(metric >= T) >= P, FAIL when "
        "P(metric < T) >= P, else INCONCLUSIVE",
    )
    p.add_argument(
        "--baseline",
        metavar="BASEFILE",
        help="confusion matrix of the baseline model, or a file written by --save-baseline",
    )
    p.add_argument(
        "--max-drop",
        type=unit_number,
        default=0.0,
        metavar="D",
        help="non-inferiority margin: the allowed drop below the baseline (default 0). PASS "
        "when P(new - base >= -D) >= P, FAIL when P(new - base < -D) >= P, else INCONCLUSIVE; "
        "with D = 0 a model no different from its baseline is INCONCLUSIVE",
    )
    p.add_argument(
        "--prob",
        type=number_type(float, lambda v: 0.5 < v < 1.0, "a number in (0.5, 1)", "gate_prob"),
        default=0.95,
        metavar="P",
        help="posterior probability required for a PASS or a FAIL, in (0.5, 1) (default 0.95)",
    )
    p.add_argument(
        "--inconclusive",
        choices=["pass", "fail"],
        default=None,
        help="exit status of an inconclusive gate: 0 (pass) or 1 (fail) instead of 3",
    )
    p.add_argument(
        "--multilabel",
        action="store_true",
        help="FILE (and BASEFILE) hold multi-label input: a .npy stack (L, 2, 2) or "
        "(B, L, 2, 2) of per-label tables [[tn, fp], [fn, tp]], or .json: a list of such "
        'tables, {"tables", "labels"}, or indicator predictions {"y_true", "y_pred", "labels"}; '
        "per-label metrics (f1, fbeta, precision, recall, jaccard) are floors for every label",
    )
    p.add_argument(
        "--f-beta",
        type=positive_number,
        default=1.0,
        metavar="B",
        help="beta of the multi-label F-beta metrics micro_fbeta, macro_fbeta, weighted_fbeta, "
        "fbeta (default 1)",
    )
    p.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    p.add_argument(
        "--append-markdown",
        metavar="PATH",
        help="also append the Markdown verdict table to PATH (e.g. the CI job summary file)",
    )
    p.add_argument(
        "--junit-xml",
        metavar="PATH",
        help="also write JUnit XML to PATH: one testcase per check, a failure for FAIL, "
        "skipped (with the reason) for INCONCLUSIVE; probability, HDI, draws and seed as "
        "properties (written to a temporary file, then renamed)",
    )
    add_input_arguments(p)
    add_cluster_argument(p, CLUSTER_COL_HELP + " (FILE's column; with a paired BASEFILE too)")
    p.add_argument(
        "--fold-col",
        default=None,
        metavar="NAME",
        help="FILE and BASEFILE are predictions CSVs of the same documents with a fold column "
        "NAME: the baseline checks are on the mean difference over the folds",
    )
    add_sampling_arguments(p)
    p._option_string_actions["--draws"].type = positive_int  # fewer than MIN_DRAWS are raised
    p._option_string_actions["--draws"].help = (
        f"posterior draws of the first round (default 50,000; values below {MIN_DRAWS:,} are "
        f"raised to {MIN_DRAWS:,}); a sampled probability within {NOISE_SIGMAS:g} Monte Carlo "
        "standard errors of P or 1 - P is drawn again, doubling the draws each round, up to "
        "--max-draws"
    )
    p.add_argument(
        "--max-draws",
        type=positive_int,
        default=DEFAULT_MAX_DRAWS,
        metavar="N",
        help=f"ceiling of the adaptive draws (default {DEFAULT_MAX_DRAWS:,}, at most "
        f"{MAX_DRAWS_LIMIT:,}); a check still within Monte Carlo noise at N draws is "
        "INCONCLUSIVE",
    )
    add_config_arguments(p)
    p.add_argument_group("slices").add_argument(
        "--slice-col",
        metavar="NAME",
        default=None,
        help="column of a predictions CSV naming each document's slice (region, language, "
        "...): a floor of a single-number metric becomes a row per slice and one joint row, "
        "P(every slice >= T), from the same draws (--min-support K skips slices with fewer "
        "than K documents)",
    )
    add_pr_arguments(p)
    p.set_defaults(run=run, checks=None, **{k: None for k in CONFIG_DEFAULTS})
    for action in p._actions:  # None marks "not given"; the help shows the real default
        if action.dest in CONFIG_DEFAULTS and action.help and "%(default)s" in action.help:
            action.help = action.help.replace("%(default)s", str(CONFIG_DEFAULTS[action.dest]))


def _check_metric_names(args: argparse.Namespace, metrics: list[str]) -> None:
    """One-line errors for a metric of the other mode (single-label vs --multilabel)."""
    if not args.multilabel:
        check_metric_names(metrics, list(METRICS), SINGLE_LABEL_WHY)
        return
    if "hamming_loss" in metrics:
        raise ValueError(
            "--metric hamming_loss is a loss (lower is better) and a gate checks floors of "
            "scores; use one of " + ", ".join(GATE_MULTILABEL_METRICS)
        )
    why = "is not a multi-label metric; with --multilabel use one of"
    check_metric_names(metrics, GATE_MULTILABEL_METRICS, why)


def _check_floors(args: argparse.Namespace, checks: list[tuple[str, float | None]]) -> None:
    """A ``--min`` outside its metric's range, named as the flag (not as the Floor's field)."""
    for metric, t in checks:
        low, high = (0.0, 1.0) if args.multilabel else METRIC_RANGES.get(metric, (0.0, 1.0))
        if t is not None and not low <= t <= high:
            hint = "; a fraction, not a percentage" if 1 < t <= 100 and high == 1 else ""
            raise ValueError(
                f"--min for --metric {metric} must be a number in [{low:g}, {high:g}]{hint}; "
                f"got {t:g}"
            )


def run(args: argparse.Namespace) -> int:
    cfg = apply_config(args)  # --config or pyproject.toml; fills the settings not given
    check_pr_arguments(args)
    if args.f_beta != 1.0 and not args.multilabel:
        raise ValueError(
            f"--f-beta {args.f_beta:g} applies to the multi-label F-beta metrics; add --multilabel"
        )
    if cfg is not None and not args.checks:
        given = "max_drop" in args.cli_given
        groups = check_groups(
            cfg, baseline=args.baseline, max_drop=args.max_drop if given else None,
            min_support=args.min_support, joint=args.joint, multilabel=args.multilabel,
            max_relative_drop=args.max_relative_drop,
        )  # fmt: skip
    else:
        groups = [_command_line_checks(args, cfg)]
    if args.slice_col is not None:  # floors of single-number metrics: a row per slice + joint
        from ._slices import refuse_slice_options, slice_checks

        refuse_slice_options(args, "gate")
        groups = [
            dataclasses.replace(g, checks=slice_checks(g.checks, args.min_support)) for g in groups
        ]
    if len(groups) > 1 and (is_stdin(args.file) or any(is_stdin(g.baseline) for g in groups)):
        raise ValueError(
            f"standard input (-) can be read once, but the checks of {cfg and cfg.path} need "
            f"{len(groups)} passes; give file paths"
        )
    results = [_gate_group(args, g, from_config=not args.checks) for g in groups]
    bases = list(dict.fromkeys(r.baseline_source for r in results if r.baseline_source))
    result = dataclasses.replace(
        results[0],
        checks=tuple(c for r in results for c in r.checks),
        baseline_source=", ".join(bases) or None,
        config=None if cfg is None else cfg.path,
        hints="command",  # next steps as commands
    )
    config = None if cfg is None else cfg.path.partition(" [tool.")[0]  # (pyproject's table)
    paths = [("file", args.file), *(("baseline", g.baseline) for g in groups), ("config", config)]
    inputs = digests(dict.fromkeys(paths))
    with runner_safe_output(args):  # --annotations github: no ##[ command in the report
        return _report(args, result, command_receipt(args, result, inputs))


def _command_line_checks(args: argparse.Namespace, cfg: GateConfig | None) -> CheckGroup:
    """The ``--metric`` checks: floors (``--min``), then comparisons with the baseline.

    A bare ``--metric M`` is compared with the baseline (``--baseline`` or the
    configuration's), and with ``--baseline`` on the command line every ``--metric``
    is; the margin is ``--max-drop``, or else the ``max_drop`` of the configuration's
    first baseline check of ``M``: a configured margin is kept, not dropped to 0.
    """
    checks = args.checks or []
    if args.baseline is None:
        if not checks:
            raise ValueError("nothing to check: give --metric NAME --min T, or --baseline BASEFILE")
        bare = [m for m, t in checks if t is None]
        if bare:
            raise ValueError(
                f"--metric {bare[0]} has no --min and there is no --baseline to compare with; "
                "give --min T after it or --baseline BASEFILE"
            )
        given = {"--max-drop": "max_drop" in args.cli_given,
                 "--max-relative-drop": args.max_relative_drop is not None}  # fmt: skip
        margins = [flag for flag, on in given.items() if on]
        if margins:  # a margin with no comparison would be silently unused
            raise ValueError(
                f"{margins[0]} is the margin of a comparison with --baseline BASEFILE; there is "
                f"no baseline, only floors ({', '.join(m for m, _ in checks)})"
            )
    _check_metric_names(args, [m for m, _ in checks])
    _check_floors(args, checks)
    per = per_class_metrics(args.multilabel)
    slices = getattr(args, "slice_col", None) is not None  # --min-support also skips slices
    support = args.min_support and not slices
    for flag, value in (("--min-support", support), ("--joint", args.joint)):
        if value and not any(t is not None and m in per for m, t in checks):
            floors = [m for m, t in checks if t is not None]
            raise ValueError(
                f"{flag} applies to per-class floors ({', '.join(sorted(per))}); the floors "
                f"given are {floors or 'none'}"
            )
    out: list[GateCheck] = [
        (JointFloor if args.joint and m in per else Floor)(
            m, t, args.min_support if m in per else None
        )
        for m, t in checks
        if t is not None
    ]
    compared = [m for m, t in checks if t is None or "baseline" in args.cli_given]
    if args.baseline is not None and not checks:
        compared = ["micro_f1"]
    out += [compared_check(m, cfg, args) for m in dict.fromkeys(compared)]
    return CheckGroup(tuple(out), args.baseline if compared else None)


def _gate_group(args: argparse.Namespace, group: CheckGroup, from_config: bool) -> GateResult:
    """The gate of FILE (and the group's baseline) with the group's checks."""
    if args.fold_col is not None:
        both = [f for f, v in (("--cluster-col", args.cluster_col), ("--slice-col", args.slice_col))
                if v is not None]  # fmt: skip
        if both:
            raise ValueError(f"--fold-col and {both[0]}: not together (leave out one of the two)")
        from ._folds import gate_across_folds  # here: a gate without folds never loads it

        return gate_across_folds(args, group.checks, group.baseline)
    ns = argparse.Namespace(**vars(args))
    ns.baseline = group.baseline
    if group.baseline is None and from_config:
        ns.id_col = None  # floors read one file: nothing to pair
    data, base = read_inputs(args, ns.baseline)
    kw: dict[str, Any] = dict(
        baseline=None if base is None else base.counts, prob=args.prob, draws=args.draws,
        max_draws=args.max_draws, rng=args.seed, ci_prob=args.ci_prob,
        labels=data.labels or (base.labels if base is not None else None), names=data.names,
        source=data.source, baseline_source=None if base is None else base.source,
        **prior_from_args(args),
    )  # fmt: skip
    if args.multilabel:
        if args.cluster_col is not None:
            raise ValueError("--cluster-col reads single-label predictions; not with --multilabel")
        return gate_multilabel(data.counts, group.checks, f_beta=args.f_beta, **kw)
    paired = None  # (y_true, new, baseline) of two paired predictions CSVs
    if ns.baseline is None and getattr(ns, "id_col", None) is None:
        check_stdin_inputs(ns)  # all that paired_gate_predictions checks without a baseline
    else:  # here: a gate of floors never loads the prediction tables
        from ._prediction_tables import paired_gate_predictions

        paired = paired_gate_predictions(ns)
    cl = None
    if args.cluster_col is not None:
        from ._prediction_tables import read_clustered

        cl = read_clustered(args, args.file)
    if paired is None:
        if cl is not None:
            return gate(None, group.checks, y_true=cl.y_true, y_pred=cl.y_pred,
                        cluster=cl.clusters, **kw)  # fmt: skip
        return gate(data.counts, group.checks, **kw)
    y, new, old = paired
    kw["baseline"] = None
    cluster = None if cl is None else cl.clusters  # FILE's row order, as y
    return gate(None, group.checks, y_true=y, y_pred=new, baseline_pred=old, cluster=cluster, **kw)


def read_inputs(
    args: argparse.Namespace, baseline: str | None
) -> tuple[MatrixInput, MatrixInput | None]:
    """FILE and the baseline (if any) of ``gate`` or ``plan``, their labels in one order."""
    multilabel = getattr(args, "multilabel", False)
    if multilabel and (args.predictions or args.transpose):
        flag = "--predictions" if args.predictions else "--transpose"
        raise ValueError(
            f"{flag} reads single-label confusion matrices; --multilabel reads per-label "
            "tables or indicator predictions (leave out one of the two)"
        )

    def read(path: str) -> MatrixInput:
        if getattr(args, "slice_col", None) is not None:
            from ._slices import load_slices  # here: a gate without slices never loads it

            return load_slices(args, path)
        saved = read_baseline_input(args, path, multilabel)  # a file of --save-baseline
        if saved is not None:
            return saved
        if not multilabel:
            return load_input(args, path)
        from ..io import read_multilabel  # here: a single-label gate never loads it

        return read_multilabel(path, labels=args.labels)

    data = read(args.file)
    base = None if baseline is None else read(baseline)
    if base is None:
        return data, None
    if multilabel and base.counts.shape[-3] != data.counts.shape[-3]:
        raise ValueError(
            f"{baseline}: {base.counts.shape[-3]} labels, but {args.file} has "
            f"{data.counts.shape[-3]}"
        )
    if base.labels is not None and data.labels is not None and base.labels != data.labels:
        fix = "both files must list the per-label tables in one label order"
        raise ValueError(
            f"{baseline}: labels {base.labels} differ from {args.file}'s {data.labels}; "
            + (fix if multilabel else "use --labels to fix one order")
        )
    return data, base


def _report(args: argparse.Namespace, result: GateResult, receipt: Receipt) -> int:
    """Write the outputs of ``result``, each with the ``receipt``; the exit status."""
    markdown = f"{result.to_markdown()}\n\n{receipt.markdown()}"
    if args.junit_xml:
        from ..io import write_output  # here: only the files asked for load the writers

        write_output(args.junit_xml, receipt.add_to_junit(result.to_junit_xml()), "--junit-xml")
    if args.append_markdown:
        from ..io import append_output

        append_output(args.append_markdown, markdown + "\n", "--append-markdown")
    document = json_document(result.to_dict(), receipt)
    if args.format == "json":
        print(document)
    elif args.format == "markdown":
        print(markdown)
    else:  # the receipt before the closing line (the verdict stays first and last)
        body, _, footer = str(result).rpartition("\n")
        print(f"{body}\n{receipt.text()}\n{footer}")
    warning = result.prior_warning()
    if warning:
        print(f"f1posterior gate: {warning}", file=sys.stderr)
    pr_outputs(args, result, lambda: read_inputs(args, None)[0], document)
    return exit_status(result.verdict, args.inconclusive)


#: Exit status of each overall verdict.
EXIT_STATUS = {"pass": 0, "fail": 1, "inconclusive": 3}


def exit_status(verdict: str, inconclusive: str | None = None) -> int:
    """0 pass, 1 fail, 3 inconclusive (0 or 1 when ``inconclusive`` is "pass" or "fail")."""
    if verdict == "inconclusive" and inconclusive is not None:
        verdict = inconclusive
    return EXIT_STATUS[verdict]
