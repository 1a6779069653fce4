"""examrag command line: ``python cli.py --help``. The commands live in :mod:`pipeline.cli`; this file is
the entry point the README uses (the ``examrag`` console script runs the same app)."""

from pipeline.cli import app, main

__all__ = ["app"]

if __name__ == "__main__":
    main()
