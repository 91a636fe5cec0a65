"""f1posterior.integrations.dask on a cluster of processes, and batch files as partitions.

One ``LocalCluster(processes=True, n_workers=2, threads_per_worker=1)`` for the
module (a few seconds to start). Results are compared bit for bit with one
in-memory :func:`f1posterior.evaluate` of the whole stack.
"""

from __future__ import annotations

import json
import os

import dask
import dask.array as da
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from distributed import Client, LocalCluster
from helpers import FIELDS
from helpers import stack as _stack

from f1posterior import evaluate
from f1posterior.integrations import dask as f1dask
from f1posterior.integrations import dask_files

KW = dict(metrics=("micro_f1", "macro_f1", "f1"), draws=1500, ref=0.6, rng=20260901)


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def test_dask_array_on_a_process_cluster_is_bit_identical(client):
    c = _stack(23, 4)
    x = da.from_array(c, chunks=((5, 9, 9), 4, 4))
    assert dask.base.get_scheduler() == client.get  # the cluster, not local threads
    worker_pids = set(client.run(os.getpid).values())
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids
    res = f1dask.evaluate(x, **KW)
    mem = evaluate(c, **KW)
    assert res.seed == mem.seed and res.batch_shape == (23,)
    for name in mem:
        for f in FIELDS:
            np.testing.assert_array_equal(getattr(res[name], f), getattr(mem[name], f), err_msg=f)


def _write_jsonl(path, counts, names):
    with open(path, "w") as fh:
        for name, m in zip(names, counts, strict=True):
            print(json.dumps({"name": name, "matrix": m.tolist()}), file=fh)


def _write_parquet(path, counts, names):
    table = pa.table({"name": names, "matrix": [m.tolist() for m in counts]})
    pq.write_table(table, path, row_group_size=4)


def _expected(c, names, labels=None):
    """One in-memory evaluate of the whole stack, as the CLI's CSV rows."""
    return evaluate(c, names=names, labels=labels, **KW).to_dataframe(form="wide")


@pytest.mark.parametrize("sizes", [(4, 13, 9), (26,), (1, 1, 24)])
def test_files_as_partitions_equal_one_evaluate(client, tmp_path, sizes):
    c = _stack(26, 3, seed=5)
    names = [f"m{i}" for i in range(26)]
    paths, start = [], 0
    for k, n in enumerate(sizes):
        p = tmp_path / f"part{k}.jsonl"
        _write_jsonl(p, c[start : start + n], names[start : start + n])
        paths.append(p)
        start += n
    outs = dask_files.evaluate_files(paths, tmp_path, chunk=5, labels=["x", "y", "z"], **KW)
    assert [o.name for o in outs] == [f"part{k}.csv" for k in range(len(sizes))]
    got = pd.concat(
        [
            pd.read_csv(o, dtype={"name": str}, comment="#", float_precision="round_trip")
            for o in outs
        ],
        ignore_index=True,
    )
    want = _expected(c, names, labels=["x", "y", "z"])
    assert "f1_y_hdi_low" in got.columns
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_parquet_in_and_out_on_the_cluster(client, tmp_path):
    c = _stack(17, 4, seed=9)
    names = [f"row-{i}" for i in range(17)]
    _write_parquet(tmp_path / "a.parquet", c[:10], names[:10])
    _write_jsonl(tmp_path / "b.jsonl", c[10:], names[10:])
    outs = dask_files.evaluate_files(
        [tmp_path / "a.parquet", tmp_path / "b.jsonl"], tmp_path / ".", fmt="parquet", **KW
    )
    got = pd.concat([pd.read_parquet(o) for o in outs], ignore_index=True)
    pd.testing.assert_frame_equal(got, _expected(c, names), check_exact=True)


# ------------------------------------------------------ errors (no cluster needed)


def test_evaluate_files_errors(tmp_path):
    good = tmp_path / "a.jsonl"
    _write_jsonl(good, _stack(2, 2), ["p", "q"])
    (tmp_path / "sub").mkdir()
    other = tmp_path / "sub" / "a.jsonl"
    _write_jsonl(other, _stack(2, 2), ["p", "q"])
    with (
        dask.config.set(scheduler="synchronous"),
        pytest.raises(ValueError, match=r"would both be written to"),
    ):
        dask_files.evaluate_files([good, other], tmp_path)
    with pytest.raises(ValueError, match=r"paths must be files ending in .*got '.*x\.csv'"):
        dask_files.evaluate_files([tmp_path / "x.csv"], tmp_path)
    with pytest.raises(ValueError, match="paths must name at least one file; got an empty"):
        dask_files.evaluate_files([], tmp_path)
    with pytest.raises(ValueError, match="out_dir must be an existing folder; got"):
        dask_files.evaluate_files([good], tmp_path / "missing")
    with pytest.raises(ValueError, match="fmt must be one of 'csv', 'parquet'; got 'xlsx'"):
        dask_files.evaluate_files([good], tmp_path, fmt="xlsx")
    with pytest.raises(ValueError, match="chunk must be a positive int; got 0"):
        dask_files.evaluate_files([good], tmp_path, chunk=0)
    with pytest.raises(ValueError, match="draws must be an integer >= 1; got 0"):
        dask_files.evaluate_files([good], tmp_path, draws=0)


def test_evaluate_files_bad_content_names_the_file_and_writes_nothing(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"matrix": [[5, 1], [2, 7]]}\n{"matrix": [[5, 1], [2, -7]]}\n')
    with dask.config.set(scheduler="synchronous"), pytest.raises(ValueError, match="bad.jsonl"):
        dask_files.evaluate_files([bad], tmp_path, draws=100)
    assert not (tmp_path / "bad.csv").exists()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".part")]
    no_matrix = tmp_path / "n.parquet"
    pq.write_table(pa.table({"name": ["a"], "counts": [[1, 2]]}), no_matrix)
    with (
        dask.config.set(scheduler="synchronous"),
        pytest.raises(ValueError, match=r"n\.parquet: a Parquet batch needs a 'matrix' column"),
    ):
        dask_files.evaluate_files([no_matrix], tmp_path, draws=100)
    ragged = tmp_path / "r.parquet"
    pq.write_table(
        pa.table({"matrix": [[[1, 2], [3, 4]], [[1, 2, 3], [3, 4, 5], [1, 1, 1]]]}), ragged
    )
    with (
        dask.config.set(scheduler="synchronous"),
        pytest.raises(ValueError, match=r"r\.parquet, row 1: not a 2 x 2 matrix like row 0"),
    ):
        dask_files.evaluate_files([ragged], tmp_path, draws=100)
