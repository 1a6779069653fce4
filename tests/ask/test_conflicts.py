"""Conflicts in the material (pipeline/ask/conflicts.py): golden cases in tests/ask/data/conflicts_golden.yaml."""

from pathlib import Path

import pytest
import yaml
from answer_helpers import make_hit

from pipeline.ask.conflicts import disclosure, find_conflicts

GOLDEN = yaml.safe_load((Path(__file__).parent / "data" / "conflicts_golden.yaml").read_text("utf-8"))


def _hits(case):
    return [make_hit(i, GOLDEN["passages"][name], path=("章", name), chunk_id=name)
            for i, name in enumerate(case["passages"], start=1)]


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[c["name"] for c in GOLDEN["cases"]])
def test_golden(case):
    hits = _hits(case)
    found = find_conflicts(case["question"], hits)
    if "values" not in case:
        assert found == [], [c.difference for c in found]
        return
    assert len(found) == 1
    conflict = found[0]
    assert [s.value for s in conflict.statements] == case["values"]
    for st, cond in zip(conflict.statements, case["conditions"]):
        assert cond in st.condition, (st.condition, cond)
        assert st.citation in {h.citation for h in hits}


def test_the_disclosure_names_both_values_their_difference_and_citations():
    case = GOLDEN["cases"][0]
    conflict = find_conflicts(case["question"], _hits(case))[0]
    text = disclosure(conflict)
    for st in conflict.statements:
        assert f"{st.value}{st.unit}" in text and st.condition in text and st.citation in text
    assert "取指令也算在内" in conflict.difference and "仅就取操作数而言" in conflict.difference


def test_an_answer_discloses_the_conflict_after_it_streamed_and_in_its_json():
    """Wired into the answer: whatever the model picks (3), both values are shown with their conditions and
    citations, as the answer's last line, streamed and in ``render`` alike; no conflict, no line."""
    from pipeline.ask.answer import answer, render
    from pipeline.ask.retrieve import Retrieval
    from pipeline.ask.service import answer_json
    from pipeline.llm import FakeLlm

    case = GOLDEN["cases"][0]
    hits = _hits(case)
    retrieval = Retrieval(hits=hits, coverage=1.0, best_bm25=20.0, passage_coverage=1.0)
    streamed: list[str] = []
    llm = FakeLlm(lambda s, u: "一次间接寻址需要访问主存3次[1]。")
    a = answer(case["question"], retrieval, llm, on_token=streamed.append)
    assert a.source in ("llm", "grounded") and len(a.conflicts) == 1
    line = a.conflicts[0]
    assert "3次" in line and "2次" in line and "取指令也算在内" in line and hits[0].citation in line
    assert render(a).endswith(line) and "".join(streamed) == render(a)
    assert answer_json(a)["conflicts"] == [line]
    plain = answer(GOLDEN["cases"][2]["question"], retrieval, FakeLlm(lambda s, u: "间接寻址给出有效地址所在的主存单元地址[1]。"))
    assert plain.conflicts == [] and "注意：资料" not in render(plain)
