"""``f1posterior plan``: how many more test documents make the gate's verdict conclusive.

A thin layer over :func:`f1posterior.gating.plan` (Bayesian assurance by
posterior-predictive simulation). Exit status 0 when the answer was found
(or the verdict is already conclusive), 3 when the target assurance is not
reached by ``--max-documents``, 2 on a usage or input error.
"""

from __future__ import annotations

import argparse
from typing import Any

from .._core.streams import DEFAULT_SEED
from ..gating import DEFAULT_MAX_DOCUMENTS, MAX_DOCUMENTS_LIMIT, plan
from ..io import json_document
from ..metrics import METRICS
from ._clusters import add_plan_cluster_arguments, plan_clustering
from ._common import (
    add_prior_argument,
    positive_int,
    prior_from_args,
    probability,
    seed,
    unit_number,
)
from ._gate import read_inputs
from ._input_args import FILE_HELP, add_input_arguments
from ._receipts import command_receipt, digests

__all__ = ["register", "run"]


#: The options that take one value: (flag, type, default, metavar, help).
_OPTIONS: tuple[tuple[str, Any, Any, str, str], ...] = (
    ("--min", unit_number, None, "T", "floor T of the metric"),
    (
        "--baseline", None, None, "BASEFILE",
        "baseline's confusion matrix: plan for the non-inferiority check (both models "
        "scored on the new documents, simulated as independent samples)",
    ),
    ("--max-drop", unit_number, 0.0, "D", "non-inferiority margin D (default 0)"),
    (
        "--prob", probability, 0.95, "P",
        "posterior probability the gate requires for PASS or FAIL, in (0.5, 1) (default 0.95)",
    ),
    ("--assurance", probability, 0.8, "A",
     "target probability of a conclusive verdict (default 0.8)"),
    ("--simulations", positive_int, 500, "S",
     "simulated future test sets per size (default 500, at least 50)"),
    (
        "--draws", positive_int, 200, "N",
        "posterior draws per simulated table (default 200); a table within Monte "
        "Carlo noise is drawn again, doubling, up to --max-draws",
    ),
    (
        "--max-draws", positive_int, 8_000, "N",
        "ceiling of the draws per simulated table (default 8,000); a table still "
        "within noise takes the rule on its pooled estimate",
    ),
    (
        "--max-documents", positive_int, DEFAULT_MAX_DOCUMENTS, "N",
        f"cap on the additional documents (default {DEFAULT_MAX_DOCUMENTS:,}, at most "
        f"{MAX_DOCUMENTS_LIMIT:,})",
    ),
)  # fmt: skip


def register(sub: Any) -> None:
    p = sub.add_parser(
        "plan",
        help="how many more test documents would make the gate's verdict conclusive "
        "(PASS or FAIL) with probability A",
        description="Bayesian assurance by posterior-predictive simulation: for each "
        "candidate number n of additional documents (same class mix and error rates, drawn "
        "from the current posterior), simulate --simulations future test sets, run the "
        "gate's rule on each (PASS when P(condition) >= P, FAIL when P(opposite) >= P) and "
        "report the fraction that is conclusive (the same simulated documents at every size; "
        "the curve is their monotone fit). Sizes: 0, then growing by 4, then bisection; "
        "the answer is the smallest size whose assurance reaches A. A per-class metric needs "
        "every class's check conclusive (--require every). Exit status 0 when found, 3 when "
        "not reached by --max-documents, 2 on a usage or input error.",
    )
    p.add_argument("file", metavar="FILE", help=FILE_HELP)
    p.add_argument(
        "--metric", required=True, choices=list(METRICS), metavar="NAME",
        help="metric of the gate's check; one of " + ", ".join(METRICS),
    )  # fmt: skip
    for flag, kind, default, metavar, text in _OPTIONS:
        p.add_argument(flag, type=kind, default=default, metavar=metavar, help=text)
    p.add_argument(
        "--require", choices=["every", "overall"], default="every",
        help="every: every check (every class of a per-class metric) conclusive (default); "
        "overall: the gate's overall verdict conclusive (FAIL as soon as one check fails)",
    )  # fmt: skip
    add_prior_argument(p)
    p.add_argument(
        "--seed", type=seed, default=DEFAULT_SEED,
        help=f"random seed (default {DEFAULT_SEED}, the gate's)",
    )  # fmt: skip
    p.add_argument("--format", choices=["text", "json"], default="text")
    add_input_arguments(p)
    add_plan_cluster_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.min is None and args.baseline is None:
        raise ValueError("nothing to plan for: give --min T and/or --baseline BASEFILE")
    data, base = read_inputs(args, args.baseline)
    if data.counts.ndim != 2:
        raise ValueError(
            f"{args.file}: plan takes one confusion matrix; got a batch of shape "
            f"{data.counts.shape[:-2]}"
        )
    result = plan(
        data.counts,
        metric=args.metric,
        threshold=args.min,
        baseline=None if base is None else base.counts,
        max_drop=args.max_drop,
        prob=args.prob,
        assurance=args.assurance,
        require=args.require,
        simulations=args.simulations,
        draws=args.draws,
        max_draws=args.max_draws,
        max_documents=args.max_documents,
        rng=args.seed,
        source=data.source,
        **prior_from_args(args),
        **plan_clustering(args),
    )
    paths = [("file", args.file), ("baseline", args.baseline)]
    receipt = command_receipt(args, result, digests(paths), ci_prob=None)
    if args.format == "json":
        print(json_document(result.to_dict(), receipt))
    else:
        body, _, last = str(result).rpartition("\n")  # the receipt before the answer
        print(f"{body}\n{receipt.text()}\n{last}")
    return 0 if result.reached else 3
