"""``python -m f1posterior``: the command line."""

from .cli import main

if __name__ == "__main__":  # importing the module (documentation tools do) runs nothing
    raise SystemExit(main())
