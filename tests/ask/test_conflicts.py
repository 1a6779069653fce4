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
