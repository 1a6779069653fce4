"""The agent skill (skills/examrag/SKILL.md) and its AGENTS.md snippet: every command they show runs on the
ingested sample as they say (exit code, JSON, citations, refusal, record answer), and every MCP tool they
name exists."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[2]
SKILL = ROOT / "skills" / "examrag" / "SKILL.md"
SNIPPET = ROOT / "skills" / "examrag" / "AGENTS.md"


def commands(path: Path) -> list[list[str]]:
    """The `examrag …` lines of the file's ```bash blocks, split as a shell would."""
    blocks = re.findall(r"```bash\n(.*?)```", path.read_text("utf-8"), flags=re.S)
    return [shlex.split(line) for block in blocks for line in block.splitlines() if line.startswith("examrag ")]


@pytest.mark.timeout(60)
def test_the_skill_has_front_matter_and_commands():
    text = SKILL.read_text("utf-8")
    head = re.match(r"---\nname: examrag\ndescription: (.+)\n---\n", text)
    assert head and "408" in head.group(1)
    assert len(commands(SKILL)) >= 5 and commands(SNIPPET)
    for doc in (SKILL, SNIPPET):
        assert "在现有资料中没有找到相关内容" in doc.read_text("utf-8") and "[来源: 章节路径|片段位置]" in doc.read_text("utf-8")


@pytest.mark.timeout(900)
def test_every_command_of_the_skill_runs_as_it_says(cli, sample_data):
    outcomes = []
    for args in commands(SKILL) + commands(SNIPPET):
        assert args[0] == "examrag" and "--json" in args, args
        r = cli(*args[1:], data_dir=sample_data, env={"EXAMRAG_LLM_BACKEND": "none"}, timeout=300)
        generates = args[1] == "ask" and "--no-llm" not in args
        # the skill: exit 0, or 1 with the passages still in the JSON when no model was available
        assert r.returncode == (1 if generates else 0), (args, r.stderr)
        out = json.loads(r.stdout)
        if generates:
            assert "no generated answer" in out["note"] and out["hits"]
        if args[1] == "ask":
            assert all(h["citation"].startswith("[来源: ") for h in out["hits"])
            outcomes.append(out)
    assert any(o["refused"] for o in outcomes), "the skill shows a refusal: one of its questions must be refused"
    assert any(o["source"] == "record" and o["record"]["citation"] in o["answer"] for o in outcomes)
    assert any(not o["refused"] and o["key_sentences"] for o in outcomes)


@pytest.mark.timeout(120)
def test_the_tools_the_skill_names_exist(tmp_path):
    from pipeline.mcp import build_server
    from pipeline.settings import load_settings

    server = build_server(load_settings(data_dir=tmp_path))
    tools = {t.name for t in anyio.run(server.list_tools)}
    named = set(re.findall(r"`([a-z_]+)\(", SKILL.read_text("utf-8") + SNIPPET.read_text("utf-8")))
    assert named and named <= tools, named - tools
