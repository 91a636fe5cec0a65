"""Level 2: readers (matrices, predictions, multi-label and document files; batches
streamed in bounded memory), writers of result rows, and the paper's data."""

from ._cells import check_cells
from ._data import FIGURE3_LABELS, TABLE1, figure3
from ._documents import read_documents
from ._multilabel import read_multilabel
from ._predictions import PredictionTable, is_predictions_table, read_prediction_table
from ._readers import read_input
from ._rowmeta import read_metadata, run_metadata
from ._sources import INPUT_FORMATS, MatrixInput, is_stdin, npy_ndim, source_name
from ._streaming import DEFAULT_CHUNK, BatchChunk, BatchReader, open_batch, open_lines
from ._writers import FLAG, ParquetRowWriter, RowWriter, append_output, atomic_output, write_output

# fmt: off
__all__ = [
    "BatchChunk", "BatchReader", "DEFAULT_CHUNK", "FIGURE3_LABELS", "FLAG", "INPUT_FORMATS",
    "MatrixInput", "ParquetRowWriter", "PredictionTable", "RowWriter", "TABLE1",
    "append_output", "atomic_output", "check_cells", "figure3", "is_predictions_table",
    "is_stdin", "npy_ndim", "open_batch", "open_lines", "read_documents", "read_input",
    "read_metadata", "read_multilabel", "read_prediction_table", "run_metadata", "source_name",
    "write_output",
]
# fmt: on
