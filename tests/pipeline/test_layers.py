"""The floors of the house: data flows one way, and imports follow it.

Each pipeline module sits on a floor; it may import from its own floor and the floors below, never from
a floor above. Imports between pipeline packages are written at module top, so a module's dependencies
are visible in its first lines (function-local imports are for heavy third-party libraries only).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# bottom to top; a module's floor is the longest prefix listed here
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("pipeline", "pipeline.models", "pipeline.settings", "pipeline.store", "pipeline.runner",
              "pipeline.events", "pipeline.testhooks", "pipeline.errors", "pipeline.hashing", "pipeline.rulefiles", "pipeline.stages",
              "pipeline.llm", "pipeline.executors")),
    ("text", ("pipeline.text",)),
    ("parse", ("pipeline.parse",)),
    ("clean", ("pipeline.clean",)),
    ("enrich", ("pipeline.enrich",)),
    ("index", ("pipeline.index",)),
    ("syllabus", ("pipeline.syllabus",)),
    ("ask", ("pipeline.ask", "pipeline.study")),  # study sits beside ask: it reads records and key sentences
    ("app", ("pipeline.ingest", "pipeline.doctor", "pipeline.serve", "pipeline.mcp")),
    ("cli", ("pipeline.cli",)),
]
LEVEL = {name: i for i, (name, _) in enumerate(FLOORS)}


def floor_of(module: str) -> str:
    best, floor = -1, None
    for name, prefixes in FLOORS:
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, floor = len(p), name
    assert floor is not None, f"{module} is on no floor: add it to FLOORS"
    return floor


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def pipeline_imports(path: Path, root: Path = ROOT):
    """(imported module, line, is_top_level) for every import of a pipeline module, TYPE_CHECKING blocks excluded."""
    tree = ast.parse(path.read_text("utf-8"))
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    type_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            type_only |= {id(n) for n in ast.walk(node)}
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
                names = [f"{mod}.{a.name}" if node.module is None else mod for a in node.names]
            else:
                names = [node.module or ""]
        else:
            continue
        for name in names:
            if name == "pipeline" or name.startswith("pipeline."):
                yield name, node.lineno, id(node) in top


def modules():
    return sorted((ROOT / "pipeline").rglob("*.py"))


def test_every_module_has_a_floor():
    for path in modules():
        floor_of(module_name(path))


def test_no_upward_imports():
    bad = []
    for path in modules():
        me = module_name(path)
        for name, line, _ in pipeline_imports(path):
            if LEVEL[floor_of(name)] > LEVEL[floor_of(me)]:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {floor_of(me)} imports {name} ({floor_of(name)})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


# The command line is the top floor and imports every floor below inside its commands, so `--help` and a
# retrieval command load only what they run (cli.py thin, heavy imports lazy).
LAZY_FLOORS = ("cli",)


def test_imports_between_pipeline_packages_are_at_module_top():
    """The command line is the exception: each command imports its floor when it runs, so `--help`
    and retrieval-only commands never pay for the others' imports."""
    bad = []
    for path in modules():
        me = module_name(path)
        if floor_of(me) in LAZY_FLOORS:
            continue
        for name, line, top in pipeline_imports(path):
            if not top and floor_of(name) != floor_of(me):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {name} inside a function")
    assert not bad, "function-local imports between floors:\n" + "\n".join(bad)


def test_the_stage_order_is_written_once():
    """Only the registry names the four stages in order; everything else reads STAGES."""
    order = ('"parse"', '"clean"', '"enrich"', '"index"')
    offenders = []
    for path in modules() + [ROOT / "cli.py"]:  # pipeline/cli/ is among modules()
        text = path.read_text("utf-8").replace("'", '"')
        positions = [text.find(s) for s in order]
        if path.name != "stages.py" and all(p >= 0 for p in positions) and positions == sorted(positions):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"stage order written outside pipeline/stages.py: {offenders}"


def test_the_checks_see_upward_and_function_local_imports(tmp_path):
    """The checks read real syntax trees: an index module importing ask, and one importing inside a
    function, are both found (relative imports resolved)."""
    bad = tmp_path / "pipeline" / "index" / "x.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("from pipeline.ask.retrieve import rrf\nfrom ..ask import service\n\n"
                   "def f():\n    from pipeline.parse import stage\n")
    found = list(pipeline_imports(bad, tmp_path))
    assert ("pipeline.ask.retrieve", 1, True) in found
    assert ("pipeline.ask", 2, True) in found
    assert ("pipeline.parse", 5, False) in found
    assert LEVEL[floor_of("pipeline.ask.retrieve")] > LEVEL[floor_of(module_name(bad, tmp_path))]
