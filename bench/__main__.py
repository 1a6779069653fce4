"""``python -m bench``: list the benchmarks, reports and prototypes; ``python -m bench NAME [ARGS…]`` runs one.

A name is the module's path under bench/ (``ingest``, ``reports.boxes``, ``prototypes.cold_cuts``); the
module runs as ``__main__`` with ``ARGS`` as its command line, exactly as ``python -m bench.NAME ARGS``.
The list is read from the modules' docstrings without importing them (a benchmark's imports are heavy).
"""

from __future__ import annotations

import ast
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GROUPS = (("benchmarks", ""), ("reports", "reports"), ("prototypes", "prototypes"))  # lib/ holds no runnable


def runnable() -> dict[str, list[tuple[str, str]]]:
    """Group → [(name, first line of its docstring)] for every module that runs as ``__main__``."""
    out: dict[str, list[tuple[str, str]]] = {}
    for group, folder in GROUPS:
        for path in sorted((HERE / folder).glob("*.py")):
            if path.name.startswith("_"):
                continue
            text = path.read_text("utf-8")
            if 'if __name__ == "__main__":' not in text:
                continue
            doc = ast.get_docstring(ast.parse(text)) or ""
            name = ".".join(filter(None, (folder, path.stem)))
            out.setdefault(group, []).append((name, doc.splitlines()[0] if doc else ""))
    return out


def main(argv: list[str]) -> int:
    found = runnable()
    names = {name for rows in found.values() for name, _ in rows}
    if not argv or argv[0] in ("-h", "--help", "list"):
        print(__doc__.splitlines()[0] + "\n")
        for group, rows in found.items():
            print(f"{group}:")
            width = max(len(n) for n, _ in rows)
            for name, summary in rows:
                print(f"  {name:<{width}}  {summary}")
        return 0
    name = argv[0]
    if name not in names:
        print(f"no benchmark {name!r}; `python -m bench` lists them", file=sys.stderr)
        return 2
    sys.argv = [f"python -m bench {name}", *argv[1:]]
    runpy.run_module(f"bench.{name}", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
