"""Level 2: readers (matrices, predictions, multi-label and document files; batches
streamed in bounded memory), writers of result rows, and the paper's data."""

from typing import TYPE_CHECKING

from .._core.lazy import attach as _attach

if TYPE_CHECKING:  # the names, for type checkers and IDEs
    from ._baseline import is_saved_baseline as is_saved_baseline
    from ._baseline import read_saved_baseline as read_saved_baseline
    from ._baseline import save_baseline as save_baseline
    from ._cells import check_cells as check_cells
    from ._data import FIGURE3_LABELS as FIGURE3_LABELS
    from ._data import TABLE1 as TABLE1
    from ._data import figure3 as figure3
    from ._documents import read_documents as read_documents
    from ._multilabel import read_multilabel as read_multilabel
    from ._predictions import PredictionTable as PredictionTable
    from ._predictions import is_predictions_table as is_predictions_table
    from ._predictions import read_prediction_table as read_prediction_table
    from ._readers import read_input
    from ._receipt import SCHEMA_VERSION as SCHEMA_VERSION
    from ._receipt import InputDigest as InputDigest
    from ._receipt import Receipt
    from ._receipt import digest_array as digest_array
    from ._receipt import digest_path as digest_path
    from ._receipt import json_document as json_document
    from ._receipt import split_intervals as split_intervals
    from ._receipt import streamed_stdin as streamed_stdin
    from ._rowmeta import read_metadata
    from ._rowmeta import row_metadata as row_metadata
    from ._schema import json_schema
    from ._slices import SliceTables, slice_tables
    from ._slices import read_sliced_predictions as read_sliced_predictions
    from ._sources import INPUT_FORMATS as INPUT_FORMATS
    from ._sources import MatrixInput
    from ._sources import is_stdin as is_stdin
    from ._sources import npy_ndim as npy_ndim
    from ._sources import source_name as source_name
    from ._streaming import DEFAULT_CHUNK as DEFAULT_CHUNK
    from ._streaming import BatchChunk as BatchChunk
    from ._streaming import BatchReader as BatchReader
    from ._streaming import open_batch as open_batch
    from ._streaming import open_lines as open_lines
    from ._writers import ParquetRowWriter as ParquetRowWriter
    from ._writers import RowWriter
    from ._writers import append_output as append_output
    from ._writers import atomic_output as atomic_output
    from ._writers import output_target as output_target
    from ._writers import write_output as write_output
else:  # each name's module is imported at its first use
    # fmt: off
    __getattr__, __dir__ = _attach(__name__, {
        "._baseline": ("is_saved_baseline", "read_saved_baseline", "save_baseline"),
        "._cells": ("check_cells",),
        "._data": ("FIGURE3_LABELS", "TABLE1", "figure3"),
        "._documents": ("read_documents",),
        "._multilabel": ("read_multilabel",),
        "._predictions": ("PredictionTable", "is_predictions_table", "read_prediction_table"),
        "._readers": ("read_input",),
        "._receipt": (
            "SCHEMA_VERSION", "InputDigest", "Receipt", "digest_array", "digest_path",
            "json_document", "split_intervals", "streamed_stdin",
        ),
        "._rowmeta": ("read_metadata", "row_metadata"),
        "._schema": ("json_schema",),
        "._slices": ("SliceTables", "read_sliced_predictions", "slice_tables"),
        "._sources": ("INPUT_FORMATS", "MatrixInput", "is_stdin", "npy_ndim", "source_name"),
        "._streaming": ("DEFAULT_CHUNK", "BatchChunk", "BatchReader", "open_batch", "open_lines"),
        "._writers": (
            "ParquetRowWriter", "RowWriter", "append_output", "atomic_output", "output_target",
            "write_output"
        ),
    })
    # fmt: on

# The names imported but not in __all__ are for the package's other layers, not public API.
# fmt: off
__all__ = [
    "MatrixInput",
    "Receipt",
    "RowWriter",
    "SliceTables",
    "json_schema",
    "read_input",
    "read_metadata",
    "slice_tables",
]
# fmt: on
