"""Calculation questions by program (pipeline/ask/calculate.py): applies, code taken from a reply, grounded
inputs, and the whole path through answer() with a scripted model (made-up study text)."""

import pytest
from answer_helpers import make_hit

from pipeline.ask import calculate
from pipeline.ask.answer import AnswerConfig, answer, render
from pipeline.ask.retrieve import Retrieval
from pipeline.ask.service import answer_json
from pipeline.llm.fake import FakeLlm

PAGING = ("分页存储管理中，逻辑地址分为页号和页内偏移两部分。页内偏移等于逻辑地址除以页面大小的余数，"
          "物理地址等于块号乘以页面大小再加上页内偏移。")
QUESTION = "页面大小为1KB，页号2对应块号8，逻辑地址2500对应的物理地址是多少？"
GOOD = """```python
page = 1024  # 页面大小
block = 8  # 块号
addr = 2500  # 逻辑地址
page_no = addr // page  # 页号
offset = addr % page
answer = block * page + offset  # 物理地址
```"""


def _retrieval(*texts):
    return Retrieval(hits=[make_hit(i, t, path=("第三章 内存管理", "3.2 分页")) for i, t in enumerate(texts, 1)],
                     best_bm25=14.0, coverage=0.9, passage_coverage=0.9)


@pytest.mark.parametrize("question, kind, expected", [
    (QUESTION, "calculation", True),
    ("UDP首部有几个字节？", "calculation", False),  # a lookup: the question gives no data
    ("4个页框、访问串1,2,3,4,1,2,5用FIFO缺页几次", "calculation", True),
    ("页面大小1KB和4KB的区别是什么", "concept", False),
])
def test_applies_to_calculations_with_their_own_data(question, kind, expected):
    assert calculate.applies(question, kind, None, False) is expected


def test_the_code_is_taken_out_of_the_reply():
    assert calculate.extract_code(GOOD).splitlines()[0] == "page = 1024  # 页面大小"
    schema_reply = '{"lines": ["w = [3, 5]  # 权值", "huffman_wpl = huffman_wpl(w)"]}'
    assert calculate.extract_code(schema_reply) == "w = [3, 5]  # 权值\nanswer = huffman_wpl(w)"
    # seen from the packaged model: a lambda redefining a simulation, a line cut at its end, noise after answer
    noisy = ('{"lines": ["fifo_faults = lambda pages, blocks, faults", "x = f([1, 3,", '
             '"answer = lru_faults([1, 3, 1], 3)", "page_list = [0] * 3"]}')
    assert calculate.extract_code(noisy) == "answer = lru_faults([1, 3, 1], 3)"
    prose = "解：先求偏移。\noffset = 2500 % 1024\n所以物理地址为：\nphys = 8 * 1024 + offset"
    assert calculate.extract_code(prose) == "offset = 2500 % 1024\nphys = 8 * 1024 + offset"
    assert calculate.extract_code("在现有资料中没有找到相关内容") == ""


def test_every_literal_must_be_given_by_the_question_or_a_unit_constant():
    assert calculate.ungrounded(calculate.extract_code(GOOD), QUESTION) == []
    # 2048 is not given (1024 and 8 are unit constants / given)
    assert calculate.ungrounded("base = 3000\nanswer = base + 2500 % 1024", QUESTION) == [3000.0]
    assert calculate.ungrounded("page = 1 * 1024\nkb = 2048", QUESTION) == []  # 1KB and 2 (KB) written in bytes
    assert calculate.ungrounded("answer = 8 * 1024 + 452", QUESTION) == [452.0]  # computed by hand, unchecked
    # a passage's own numbers are its example's, not this question's: 2**20 for a question without 20
    assert calculate.ungrounded("entries = 2 ** 20 // 4096\nanswer = entries * 4", "页面4KB、页表项4B，最大逻辑地址空间多大") == [20.0]


def test_every_number_the_question_gives_must_be_used():
    assert calculate.unused(calculate.extract_code(GOOD), QUESTION, [2.0]) == []
    assert calculate.unused("page = 1024\naddr = 2500\nanswer = addr % page", QUESTION) == ["2", "8"]
    assert calculate.unused("page = 1024\naddr = 2500\nanswer = addr % page", QUESTION, [2.0]) == ["8"]  # 页号 computed


def test_comment_labels_are_short_names_without_numbers():
    labels = calculate.comment_labels("page = 1024  # 页面大小\nx = 3  # 有3个页框，所以缺页为9次\ny = 1  #\n")
    assert labels == {"page": "页面大小"}


FIFO = "先进先出置换算法每次淘汰最早调入内存的页面；缺页次数为访问时页面不在内存中的次数。"
FIFO_Q = "分给进程的物理页有3个，开始都空，访问页面顺序是4,1,2,4,3,1,5,4，用FIFO一共缺页几次？"  # not ruled: the model writes it


MODEL = AnswerConfig(calc_model_programs=True)


@pytest.fixture
def no_rules(monkeypatch):
    """The model-written path: no rule writes the program (QUESTION is one a rule knows)."""
    monkeypatch.setattr(calculate, "ruled", lambda question: None)


SEGMENT_Q = "分段系统中段号2的段长为3000，基址为8000，逻辑地址(2, 2500)对应的物理地址是多少？"  # no rule reads segments


def test_by_default_the_model_writes_no_program_and_a_calculation_no_rule_knows_is_prose():
    llm = FakeLlm(["物理地址等于块号乘以页面大小再加上页内偏移[1]。"])
    a = answer(SEGMENT_Q, _retrieval(PAGING), llm)
    assert a.source == "llm" and len(llm.calls) == 1 and llm.call_kwargs[0].get("json_schema") is None
    assert "no rule recognises" in a.note


def test_a_model_programs_simulation_call_is_shown(no_rules):
    """4 1 2 miss, 4 hit, 3 miss (out 4), 1 hit, 5 miss (out 1), 4 miss (out 2): 6 faults."""
    llm = FakeLlm(['{"lines": ["pages = [4, 1, 2, 4, 3, 1, 5, 4]  # 访问串", "frames = 3  # 物理块数", '
                   '"answer = fifo_faults(pages, frames)  # 缺页次数"]}'])
    a = answer(FIFO_Q, _retrieval(FIFO), llm, cfg=MODEL)
    assert a.source == "program" and a.program.result.value == 6
    assert "结果：answer（缺页次数） = fifo_faults(pages, frames) = 6" in a.answer
    assert llm.call_kwargs[0]["json_schema"] == calculate.SCHEMA


def test_a_model_formula_is_not_shown_by_default(no_rules):
    prose = "物理地址等于块号乘以页面大小再加上页内偏移[1]。"
    a = answer(QUESTION, _retrieval(PAGING), FakeLlm([GOOD, prose]), cfg=MODEL)
    assert a.source == "llm" and "formula" in a.note and "8644" not in render(a)


def test_a_grounded_formula_answers_with_its_steps_and_the_method_citation(no_rules):
    llm = FakeLlm([GOOD])
    streamed: list[str] = []
    r = _retrieval(PAGING)
    a = answer(QUESTION, r, llm, on_token=streamed.append, cfg=AnswerConfig(calc_model_programs=True, calc_formulas=True))
    assert a.source == "program" and len(llm.calls) == 1
    assert "offset = addr % page = 452" in a.answer
    assert "结果：answer（物理地址） = block * page + offset = 8644" in a.answer
    assert "page（页面大小） = 1024" in a.answer and r.hits[0].citation in a.answer
    assert "page_no（页号） = addr // page = 2" in a.answer
    assert "".join(streamed) == render(a) and a.program.result.value == 8644
    assert answer_json(a)["program"]["result"]["value"] == 8644


@pytest.mark.parametrize("reply, note", [
    ("base = 3000\nblock = 8\nanswer = base + 2500 % 1024", "does not give"),  # an invented number
    ("page = 1024\naddr = 2500\nanswer = addr % page", "does not use"),  # the block number ignored
    ("page = 1024\nimport os\nanswer = page % 7", "not allowed"),  # refused by the sandbox
    ("answer = 8644", "nothing is computed"),  # a number stated, not computed
    ("block = 8\nanswer = [block * 1024 + 2500 % 1024, 2]", "not a number"),
])
def test_a_program_that_fails_is_not_shown_and_the_answer_is_prose(reply, note, no_rules):
    prose = "物理地址等于块号乘以页面大小再加上页内偏移[1]。"
    llm = FakeLlm([reply, prose])
    a = answer(QUESTION, _retrieval(PAGING), llm, cfg=AnswerConfig(calc_model_programs=True, calc_formulas=True))
    assert a.source != "program" and len(llm.calls) == 2 and note in (a.note or "")
    assert "2048" not in render(a) and "计算（" not in render(a)


def test_off_by_setting_the_calculation_is_prose():
    llm = FakeLlm(["物理地址等于块号乘以页面大小再加上页内偏移[1]。"])
    a = answer(QUESTION, _retrieval(PAGING), llm, cfg=AnswerConfig(calc_programs=False))
    assert a.source == "llm" and len(llm.calls) == 1 and "计算（" not in render(a)


@pytest.mark.parametrize("question, call, value", [
    # 4 1 2 miss, 4 hit, 3 miss (out 4), 1 hit, 5 miss (out 1), 4 miss (out 2): 6
    ("分给进程3个物理块，开始都空，访问页面顺序是4,1,2,4,3,1,5,4，用FIFO一共缺页几次？", "fifo_faults", 6),
    # LRU: 4 1 2 miss, 4 hit, 3 miss (out 1), 1 miss (out 2), 5 miss (out 4), 4 miss (out 3): 7
    ("分给进程3个页框，访问页面顺序是4、1、2、4、3、1、5、4，采用LRU置换算法缺页多少次？", "lru_faults", 7),
    # 2+3=5, 4+5=9, 5+9=14: WPL 28
    ("用权值2,3,4,5构造哈夫曼树，带权路径长度WPL是多少？", "huffman_wpl", 28),
    # 2**3 = 8 < 12+3+1, 2**4 = 16 < 12+4+1 = 17, 2**5 = 32 >= 12+5+1: 5
    ("12位数据用海明码纠正一位错，要几位校验位？", "hamming_bits", 5),
])
def test_a_simulation_question_is_computed_by_rule_without_the_model(question, call, value):
    assert call in calculate.ruled_program(question)
    llm = FakeLlm([])  # any call fails the test
    a = answer(question, _retrieval(FIFO), llm)
    assert a.source == "program" and llm.calls == [] and a.program.result.value == value
    assert f"= {call}(" in a.answer and f"= {value}" in a.answer.splitlines()[-3]
    conclusion = a.answer.splitlines()[-2]  # the result as a sentence: 答：缺页次数为6。
    assert conclusion.startswith("答：") and (conclusion.endswith(f"为{value}。") or conclusion.endswith(f"为{value}位。"))


@pytest.mark.parametrize("question", [
    "FIFO和LRU有什么区别？",  # no data
    "访问页面顺序是4,1,2,4,3,1,5,4，用FIFO和LRU各缺页几次？",  # two algorithms, no frame count
    "分给进程3个物理块或4个物理块，访问页面顺序是4,1,2,4,3,1,5,4，用FIFO缺页几次？",  # two frame counts
])
def test_an_ambiguous_question_is_not_ruled(question):
    assert calculate.ruled_program(question) is None


def test_a_formula_written_by_rule_is_shown_without_the_model():
    """Ours, not the model's: shown by default (no EXAMRAG_CALC_FORMULAS). 2500 = 2·1024 + 452: 8·1024 + 452."""
    llm = FakeLlm([])  # any call fails the test
    a = answer(QUESTION, _retrieval(PAGING), llm)
    assert a.source == "program" and llm.calls == [] and a.program.result.value == 8644
    assert "page（页面大小） = page_kb * 1024 = 1024B" in a.answer
    assert "offset（页内偏移） = addr % page = 452" in a.answer
    assert a.answer.splitlines()[-2] == "答：物理地址为8644。"


def test_hex_numbers_are_given_as_their_value():
    assert calculate.given_numbers("逻辑地址0x1A3C，页面大小4KB") == ["6716", "4"]
    assert calculate.given_numbers("逻辑地址为2F6AH，每页1KB") == ["12138", "1"]
    assert calculate.given_numbers("FIFO有5个H") == ["5"]  # not a hex number
    assert calculate.ungrounded("addr = 0x1A3C\nanswer = addr % 4096", "逻辑地址0x1A3C，页面大小4KB") == []


def test_a_stated_convention_gives_no_number():
    # 1M按10^6计 fixes a unit, mid=⌊(low+high)/2⌋ the midpoint: neither is a datum the program must use
    assert calculate.given_numbers("总线带宽是多少（以MB/s为单位，1M按10^6计）？时钟100MHz") == ["100"]
    assert calculate.given_numbers("长度为12的有序表折半查找（mid=⌊(low+high)/2⌋）") == ["12"]
    assert calculate.given_numbers("每个块2M，共10^6个块") == ["2", "10", "6"]  # a datum, not a convention


def test_a_spelled_stage_count_grounds_its_literal():
    assert calculate.spelled_counts("五段流水线，每段10ns") == [5.0]
    assert calculate.spelled_counts("一段程序执行了10ns") == []  # 一段 of a program is no count


def test_a_bit_string_is_a_number_the_question_must_give():
    question = "信息位101001，生成多项式G(x)=x^3+x^2+1，余数是多少？"
    assert calculate.ungrounded('info = "101001"\ng = to_bits(2 ** 3 + 2 ** 2 + 1)', question) == []
    assert calculate.ungrounded('info = "101001"\ng = "1011"', question) == [1011.0]  # not the generator given
    assert calculate.unused('g = to_bits(2 ** 3 + 2 ** 2 + 1)', question) == ["101001"]


def test_the_conclusion_names_every_answer_step_with_its_unit():
    question = "主存地址32位，Cache容量8KB，块大小32B，直接映射，主存地址中标记、行号、块内地址各几位？"
    text, run, note = calculate.solve(question, [], _retrieval(PAGING).hits, FakeLlm([]))
    # 32 B: 5 offset bits; 8 KB / 32 B = 256 lines: 8 bits; tag 32 - 8 - 5 = 19
    assert note == "ok: by rule cache_address_split" and run.result.value == 19
    assert "block（块大小） = 32B" in text and "cache（Cache数据区大小） = cache_kb * 1024 = 8192B" in text
    assert text.splitlines()[-2] == "答：块内地址位数为5位，行号位数为8位，标记位数为19位。"
