"""The model is loaded only when an answer needs it: a past-paper record or a refusal is answered with the
LLM configured but never built (a 2 GB load took a record answer from 0.7 s to 2.2 s), and shows the
same text as with the model loaded; a question the model must answer builds it once."""

from __future__ import annotations

import pytest

from pipeline.ask import service as service_module
from pipeline.ask.service import QueryService
from pipeline.llm.fake import FakeLlm
from pipeline.settings import load_settings

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def builds(monkeypatch):
    made: list[FakeLlm] = []

    def build(settings):
        made.append(FakeLlm(["进程是资源分配的基本单位，线程是调度的基本单位。"]))
        return made[-1]

    monkeypatch.setattr(service_module, "make_llm_from_settings", build)
    return made


def _service(sample_data):
    return QueryService(load_settings(data_dir=sample_data, llm_backend="local"))


@pytest.mark.parametrize("question, source", [("2024年第4题", "record"), ("2022年世界杯冠军是哪个国家", "refusal")])
def test_an_answer_decided_before_the_model_speaks_does_not_load_it(sample_data, builds, question, source):
    svc = _service(sample_data)
    shown: list[str] = []
    lazy = svc.ask(question, on_token=shown.append)
    assert builds == [] and lazy.source == source and svc.llm_model_id is None
    loaded = QueryService(load_settings(data_dir=sample_data, llm_backend="local"), llm=FakeLlm(["不该被调用"]))
    eager = loaded.ask(question)
    assert lazy.answer == eager.answer and lazy.refused == eager.refused and "".join(shown) == (lazy.answer or "")


def test_a_question_for_the_model_builds_it_once_and_shows_nothing_twice(sample_data, builds):
    svc = _service(sample_data)
    shown: list[str] = []
    a = svc.ask("进程和线程有什么区别", on_token=shown.append)
    assert len(builds) == 1 and builds[0].calls, "the model was asked"
    assert a.source not in ("record", "refusal")
    text = "".join(shown)
    for head in ("原文要点：", "解答："):
        assert text.count(head) <= 1, text
    svc.ask("线程是什么")
    assert len(builds) == 1


def test_a_simulation_question_computed_by_rule_does_not_load_the_model(sample_data, builds):
    """FIFO with 3 frames on 1,2,3,4,1,2,5,1,2,3,4,5: 9 faults (Belady's string: 10 with 4 frames)."""
    svc = _service(sample_data)
    shown: list[str] = []
    a = svc.ask("给进程分3个物理块，开始都空，页面访问顺序是1,2,3,4,1,2,5,1,2,3,4,5，用FIFO置换一共缺页几次？",
                on_token=shown.append)
    assert builds == [] and a.source == "program" and a.program.result.value == 9
    assert "".join(shown).endswith(a.answer.splitlines()[-1]) and "fifo_faults(pages, frames) = 9" in a.answer
