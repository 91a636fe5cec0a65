"""The result of :func:`f1posterior.evaluate_slices`: one row per slice, as text,
Markdown, a dict and a pandas DataFrame.

Design notes: docs/design.md#posterior-slices
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.text import escape_markdown, escape_text
from ._evaluation import Evaluation

__all__ = ["SliceEvaluation"]


@dataclass(frozen=True)
class SliceEvaluation:
    """Posterior of each slice of a test set, and of "every slice clears the floor".

    Attributes
    ----------
    evaluation : Evaluation
        The posteriors of the judged slices: a batch, one matrix per slice,
        named by ``evaluation.names`` (a slice below ``min_support`` is not
        evaluated).
    names : tuple of str
        Every slice, judged or skipped, in order.
    support : tuple of int
        Documents of each slice.
    skipped : tuple of str
        Why each slice was skipped (``""`` for a judged slice).
    floor : float or None
        The floor ``T`` of ``P(>= T)``, when one was given.
    joint : dict of str to float, or None
        Per metric, ``P(every judged slice >= floor | data)``, the fraction of
        the joint posterior draws in which every judged slice clears it.
    min_support : int or None
        The fewest documents a slice needs to be judged.

    See Also
    --------
    evaluate_slices : Makes it.
    f1posterior.SliceFloor : The gate's check that every slice clears a floor.

    Examples
    --------
    >>> from f1posterior import evaluate_slices
    >>> y_true = [0, 1] * 60
    >>> y_pred = [0, 1] * 50 + [1, 0] * 10
    >>> groups = ["eu"] * 60 + ["us"] * 60
    >>> res = evaluate_slices(y_true, y_pred, groups, metrics="accuracy", floor=0.6,
    ...                       draws=4_000, rng=0)
    >>> res.names, res.support
    (('eu', 'us'), (60, 60))
    >>> round(res.joint["accuracy"], 2)
    0.84
    """

    evaluation: Evaluation
    names: tuple[str, ...]
    support: tuple[int, ...]
    skipped: tuple[str, ...]
    floor: float | None = None
    joint: dict[str, float] | None = None
    min_support: int | None = None

    @property
    def metrics(self) -> list[str]:
        """The metrics evaluated, in request order."""
        return list(self.evaluation)

    def _cells(self, metric: str, j: int) -> dict[str, Any]:
        """The summary of judged slice ``j`` for ``metric`` as plain numbers."""
        sm = self.evaluation[metric]

        def at(x: Any) -> float:
            return float(np.asarray(x, dtype=float).reshape(-1)[j])

        hdi = np.asarray(sm.hdi, dtype=float).reshape(-1, 2)[j]
        out = {
            "score": at(sm.score),
            "mean": at(sm.mean),
            "std": at(sm.std),
            "hdi_low": float(hdi[0]),
            "hdi_high": float(hdi[1]),
        }
        if self.floor is not None:
            out["p_floor"] = at(sm.p_above)
        return out

    def records(self) -> list[dict[str, Any]]:
        """One plain record per slice and metric (skipped slices: one record, no numbers).

        Returns
        -------
        list of dict
            ``slice``, ``support``, ``metric``, ``score``, ``mean``, ``std``,
            ``hdi_low``, ``hdi_high``, ``p_floor`` (with a floor) and
            ``status`` (``"judged"`` or the reason it was skipped).

        Examples
        --------
        >>> from f1posterior import evaluate_slices
        >>> res = evaluate_slices([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], ["a", "a", "b", "b", "b"],
        ...                       metrics="accuracy", min_support=3, draws=2_000, rng=0)
        >>> [(r["slice"], r["status"]) for r in res.records()]
        [('a', 'skipped: 2 documents < min_support 3'), ('b', 'judged')]
        """
        judged = {n: j for j, n in enumerate(self.evaluation.names or [])}
        out: list[dict[str, Any]] = []
        for name, n, why in zip(self.names, self.support, self.skipped, strict=True):
            if why:
                out.append({"slice": name, "support": n, "status": f"skipped: {why}"})
                continue
            for m in self.metrics:
                cells = self._cells(m, judged[name])
                out.append({"slice": name, "support": n, "metric": m, **cells, "status": "judged"})
        return out

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per slice and metric, like fairlearn's ``MetricFrame.by_group``.

        Returns
        -------
        pandas.DataFrame
            Columns ``slice``, ``support``, ``metric``, ``score``, ``mean``,
            ``std``, ``hdi_low``, ``hdi_high``, ``p_floor`` (with a floor) and
            ``status``; a skipped slice is one row with its reason and no
            numbers (NaN).

        Examples
        --------
        >>> from f1posterior import evaluate_slices
        >>> res = evaluate_slices([0, 1] * 40, [0, 1] * 40, ["a"] * 40 + ["b"] * 40,
        ...                       metrics="accuracy", floor=0.8, draws=2_000, rng=0)
        >>> res.to_frame()[["slice", "support", "metric", "status"]]
          slice  support    metric  status
        0     a       40  accuracy  judged
        1     b       40  accuracy  judged
        """  # noqa: E501
        import pandas as pd  # optional: only this method needs it

        cols = ["slice", "support", "metric", "score", "mean", "std", "hdi_low", "hdi_high"]
        cols += ["p_floor"] if self.floor is not None else []
        return pd.DataFrame(self.records(), columns=[*cols, "status"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary: the slices' records, the joint probabilities and the run.

        Returns
        -------
        dict
            ``slices`` (:meth:`records`, NaN as None), ``floor``, ``joint``,
            ``min_support``, ``prior``, ``draws``, ``ci_prob``, ``seed``.

        Examples
        --------
        >>> from f1posterior import evaluate_slices
        >>> res = evaluate_slices([0, 1] * 40, [0, 1] * 40, ["a"] * 40 + ["b"] * 40,
        ...                       metrics="accuracy", draws=2_000, rng=0)
        >>> sorted(res.to_dict())
        ['ci_prob', 'draws', 'floor', 'joint', 'min_support', 'prior', 'seed', 'slices']
        """
        ev = self.evaluation.to_dict()

        def plain(v: Any) -> Any:
            return None if isinstance(v, float) and math.isnan(v) else v

        return {
            "slices": [{k: plain(v) for k, v in r.items()} for r in self.records()],
            "floor": self.floor,
            "joint": self.joint,
            "min_support": self.min_support,
            **{k: ev[k] for k in ("prior", "draws", "ci_prob", "seed")},
        }

    def _table(self, esc: Callable[[str], str]) -> tuple[list[str], list[list[str]]]:
        pct = f"{100 * self.evaluation.ci_prob:g}%"
        head = ["slice", "documents", "metric", "score", "mean", f"{pct} HDI"]
        head += [f"P(>= {self.floor:g})"] if self.floor is not None else []
        body = []
        for r in self.records():
            row = [esc(r["slice"]), f"{r['support']:,}"]
            if "metric" not in r:
                why = "SKIPPED: " + r["status"].removeprefix("skipped: ")
                body.append(row + [""] * (len(head) - 2) + [esc(why)])
                continue
            row += [r["metric"], f"{r['score']:.3f}", f"{r['mean']:.3f}"]
            row += [f"[{r['hdi_low']:.3f}, {r['hdi_high']:.3f}]"]
            row += [f"{r['p_floor']:.4f}"] if self.floor is not None else []
            body.append(row + [""])
        if not any(self.skipped):  # no notes: no note column
            return head, [row[:-1] for row in body]
        return [*head, "note"], body

    def _joint_lines(self) -> list[str]:
        if not self.joint:
            return []
        return [
            f"P(every judged slice >= {self.floor:g}) of {m}: {p:.4f}"
            for m, p in self.joint.items()
        ]

    def _header(self) -> str:
        n_skip = sum(bool(w) for w in self.skipped)
        skip = f" ({n_skip} skipped: fewer than {self.min_support} documents)" if n_skip else ""
        ev = self.evaluation
        return f"Slices: {len(self.names)}{skip}; prior {ev.prior}; {ev.draws:,} draws"

    def __str__(self) -> str:
        head, body = self._table(escape_text)  # slice names come from files: escaped
        widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
        lines = [self._header()]
        for row in [head, *body]:
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        return "\n".join(lines + self._joint_lines())

    def to_markdown(self) -> str:
        """A GitHub-flavoured Markdown table, one row per slice and metric; names escaped.

        Returns
        -------
        str
            The table, then the joint probabilities and the run's prior.

        Examples
        --------
        >>> from f1posterior import evaluate_slices
        >>> res = evaluate_slices([0, 1] * 40, [0, 1] * 40, ["a|b"] * 40 + ["c"] * 40,
        ...                       metrics="accuracy", draws=2_000, rng=0)
        >>> print(res.to_markdown().splitlines()[2])  # doctest: +ELLIPSIS
        | a\\|b | 40 | accuracy | 1.000 | ...
        """
        head, body = self._table(escape_markdown)
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        lines += ["", *(f"{x}." for x in self._joint_lines())] if self.joint else []
        return "\n".join([*lines, "", escape_markdown(self._header()) + "."])
