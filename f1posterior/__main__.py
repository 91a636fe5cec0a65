"""``python -m f1posterior``: the command line."""

from .cli import main

raise SystemExit(main())
