"""Level 2: readers (matrices, predictions, multi-label and document files; batches
streamed in bounded memory), writers of result rows, and the paper's data."""
