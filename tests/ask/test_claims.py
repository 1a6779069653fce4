"""Claim rules: golden cases (tests/ask/data/claims_golden.yaml) and the rules file itself."""

from pathlib import Path

import pytest
import yaml
from answer_helpers import make_hit

from pipeline.ask.claims import Checker, ClaimRules, answer_sentences, check, load_rules
from pipeline.ask.records import to_record

GOLDEN = yaml.safe_load((Path(__file__).parent / "data" / "claims_golden.yaml").read_text("utf-8"))


def _hits(case):
    out = []
    for i, name in enumerate(case["passages"], start=1):
        is_record = name == case.get("record")
        out.append(make_hit(i, GOLDEN["passages"][name], path=("章", name), kind="question" if is_record else "text",
                            year=2019 if is_record else None, number=8 if is_record else None, chunk_id=name))
    return out


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[c["name"] for c in GOLDEN["cases"]])
def test_golden(case):
    hits = _hits(case)
    record = to_record(hits[0], "reference", 1.0) if case.get("record") else None
    claims = check(case["answer"], hits, case["question"], record=record)
    supported = all(c.supported for c in claims)
    assert supported == case["supported"], [(c.text, c.reason) for c in claims]
    if not supported:
        assert any(case["reason"] in c.reason for c in claims), [c.reason for c in claims]


def test_golden_set_covers_each_rule_both_ways():
    reasons = {c.get("reason") for c in GOLDEN["cases"] if not c["supported"]}
    assert {"polarity", "number", "option", "unit", "overlap", "swap", "code 10", "runaway", "invented", "transplanted",
            "cause", "garbled", "does not say what", "share"} <= reasons
    assert sum(c["supported"] for c in GOLDEN["cases"]) >= 8


def test_supported_claim_carries_the_citation_of_its_passage():
    hits = [make_hit(1, "顺序查找的平均查找长度为(n+1)/2。", path=("第七章", "7.1 顺序查找")),
            make_hit(2, "折半查找的时间复杂度为O(log2n)，要求顺序存储且有序。")]
    claims = check("折半查找要求顺序存储并且有序。", hits, "折半查找有什么要求")
    assert claims[0].supported and claims[0].citation == hits[1].citation


def test_citation_after_the_full_stop_belongs_to_the_sentence_before():
    text = "折半查找要求有序。[来源: 第七章 查找 › 7.2 折半查找|第3页·片段1]\n时间复杂度为O(log2n)。"
    pairs = answer_sentences(text)
    assert [s for s, _ in pairs][1] == "时间复杂度为O(log2n)。"
    assert pairs[0][1] == ["[来源: 第七章 查找 › 7.2 折半查找|第3页·片段1]"]


def test_main_claim_of_a_choice_answer_is_the_one_naming_the_option():
    hit = make_hit(1, "2019年 第8题（单项选择题）\n查找失败的平均查找长度是\nA. 4\nB. 5\nC. 6\nD. 7\n答案：C\n解析：平均为6。",
                   kind="question", year=2019, number=8)
    claims = check("查找失败的平均查找长度为6。选C。", [hit], "2019年第8题", record=to_record(hit, "reference", 1.0),
                   kind="choice")
    assert [c.main for c in claims] == [False, True]


def test_streaming_checker_agrees_with_check():
    case = next(c for c in GOLDEN["cases"] if c["name"].startswith("快速排序稳定"))
    hits = _hits(case)
    checker = Checker(hits, case["question"])
    streamed = [checker.add(s, cites) for s, cites in answer_sentences(case["answer"])]
    assert [c.supported for c in streamed] == [c.supported for c in check(case["answer"], hits, case["question"])]
    assert streamed[0].main


def test_check_is_the_streaming_checker():
    """One main-claim rule (issue 20): check() gives what the answer path's Checker gives, so a
    sentence that only restates the question is no main claim for the golden tests either."""
    hits = [make_hit(1, "B树的叶结点不含关键字信息以外的链接；B+树的叶结点用指针连成一个有序链表，支持顺序查找。")]
    question = "B树和B+树查找方式有什么不同？"
    answer = "B树和B+树查找方式不同。B+树的叶结点用指针连成有序链表，支持顺序查找。"
    claims = check(answer, hits, question)
    checker = Checker(hits, question)
    for s, cites in answer_sentences(answer):
        checker.add(s, cites)
    checker.finish()
    assert [(c.supported, c.main, c.reason) for c in claims] == [(c.supported, c.main, c.reason) for c in checker.claims]
    assert claims[0].reason == "restates the question" and not claims[0].main and claims[1].main


def test_an_answer_that_only_restates_the_question_has_no_main_claim():
    hits = [make_hit(1, "B树和B+树查找方式不同，B+树支持顺序查找。")]
    claims = check("B树和B+树查找方式不同。", hits, "B树和B+树查找方式有什么不同？")
    assert not any(c.main for c in claims)  # the answer path then falls back to the grounded core


def test_a_repeated_sentence_stops_the_stream():
    hits = [make_hit(1, "顺序查找的平均查找长度为(n+1)/2。")]
    checker = Checker(hits, "顺序查找的平均查找长度是多少")
    first = checker.add("顺序查找的平均查找长度为(n+1)/2。", [])
    assert first.supported and checker.runaway is None
    again = checker.add("顺序查找的平均查找长度为(n+1)/2。", [])
    assert not again.supported and again.reason.startswith("runaway") and checker.runaway


def test_a_loop_without_a_sentence_end_is_seen_in_the_pending_text():
    checker = Checker([make_hit(1, "平均查找长度为3.5。")], "平均查找长度是多少")
    assert checker.partial("平均查找长度 = (1 + 2 + 3 + 4 + 5 + 6) / 6 = 3.5 ") is None
    assert checker.partial("平均查找长度 = (1 + 2 + 3 + 4 + 5 + 6) / 6 = 3.5 " * 3)
    assert checker.runaway


# a runaway pattern in a user's claims file: tests/pipeline/test_patterns.py


def test_a_claims_file_from_before_names_still_loads(tmp_path):
    raw = yaml.safe_load(Path("pipeline/ask/claims.yaml").read_text("utf-8"))
    for key in ("names", "repetition"):
        raw.pop(key)
    raw["numbers"].pop("equals")
    raw["numbers"]["expression"] = "(\\d+)=(\\d+)"  # the old key: ignored now, not an error
    old = tmp_path / "claims.yaml"
    old.write_text(yaml.safe_dump(raw, allow_unicode=True), "utf-8")
    rules = load_rules(old)
    assert rules.names is None and rules.repetition.min_chars == 6


def test_rules_file_is_validated(tmp_path):
    raw = yaml.safe_load(Path("pipeline/ask/claims.yaml").read_text("utf-8"))
    raw["numbers"]["pattern"] = "(unclosed"
    bad = tmp_path / "claims.yaml"
    bad.write_text(yaml.safe_dump(raw, allow_unicode=True), "utf-8")
    with pytest.raises(ValueError, match="bad regular expression"):
        load_rules(bad)


def test_user_rules_can_add_a_polarity_pair(tmp_path):
    raw = yaml.safe_load(Path("pipeline/ask/claims.yaml").read_text("utf-8"))
    raw["polarity"]["pairs"].append({"name": "允许", "a": ["允许"], "b": ["不允许"]})
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), "utf-8")
    rules = load_rules(path)
    assert isinstance(rules, ClaimRules)
    hits = [make_hit(1, "Floyd算法不允许图中有带负权值的边组成的回路。")]
    answer = "Floyd算法允许图中有带负权值的边组成的回路。"
    assert check(answer, hits, "Floyd能处理负权回路吗")[0].supported  # the shipped rules do not know 允许
    assert not check(answer, hits, "Floyd能处理负权回路吗", rules=rules)[0].supported


@pytest.mark.parametrize("question,entities", [
    ("进程和线程谁是调度的基本单位，谁是资源分配的基本单位", ["进程", "线程"]),
    ("SRAM和DRAM哪个要刷新？", ["SRAM", "DRAM"]),
    ("流量控制和拥塞控制有啥不一样", ["流量控制", "拥塞控制"]),
    ("B树和B+树查找方式有什么不同？", ["B树", "B+树"]),
    ("邮件的发送和读取分别用什么协议", ["发送", "读取"]),
    ("用拉链法解决冲突和用开放定址法解决冲突有何不同", ["拉链法", "开放定址法"]),  # the names, not the clause
    ("直接寻址和一次间接寻址哪个快", ["直接寻址", "一次间接寻址"]),  # up to the left side's head
    ("进程同步和进程互斥是什么关系", ["进程同步", "进程互斥"]),  # two kinds of 进程, whole
    ("同步定时和异步定时谁更快", ["同步定时", "异步定时"]),
    ("折半查找的时间复杂度是多少", []),
])
def test_question_entities(question, entities):
    from pipeline.ask.claims import question_entities

    assert question_entities(question, load_rules()) == entities


@pytest.mark.parametrize("sentence, filler", [
    ("设置缓冲区的原因有以下几点：", True),
    ("缓冲区的作用包括以下几个方面：", True),
    ("原因如下：", True),
    ("设置缓冲区的原因包括：", True),  # seen after the first pattern: the same lead-in, other words
    ("下列说法中正确的是C：", False),  # names an option
    ("缓冲区用于缓和CPU与I/O设备之间速度不匹配的矛盾。", False),
])
def test_a_lead_in_states_nothing(sentence, filler):
    from pipeline.ask.claims import is_filler

    assert is_filler(sentence, load_rules()) is filler


def test_an_answer_that_is_only_a_lead_in_is_no_answer():
    """Seen with the packaged model: "…的原因有以下几点：" shown alone, every point after it dropped."""
    from pipeline.ask.answer import answer
    from pipeline.ask.retrieve import Retrieval
    from pipeline.llm.fake import FakeLlm

    passage = "设置缓冲区是为了缓和CPU与I/O设备之间速度不匹配的矛盾，并减少对CPU的中断频率。"
    r = Retrieval(hits=[make_hit(1, passage, path=("第五章 设备管理", "5.3 缓冲区"))], best_bm25=15.0, coverage=0.9,
                  passage_coverage=0.9)
    a = answer("为什么要设置缓冲区？", r, FakeLlm(["设置缓冲区的原因有以下几点：[1]\n1. 因为月亮是方的。[1]"]))
    assert a.source in ("grounded", "refusal") and "以下几点" not in (a.answer or "")


def test_a_formula_without_its_result_must_be_written_in_the_passages():
    """Seen: "E = 8 * 1024 + 2500" (the offset is 452), every number of it in the passage's worked example."""
    passage = ("例：页面大小L为1KB，页号2对应块号b=8，逻辑地址A=2500。页内偏移量W=A%L=2500%1024=452，"
               "物理地址E=b*L+W=8 * 1024 + 452=8644。")
    hits = [make_hit(1, passage, path=("第三章 内存管理", "3.2 分页"))]
    question = "逻辑地址2500对应的物理地址是多少？"
    [bad] = check("物理地址E = 8 * 1024 + 2500。", hits, question)
    assert not bad.supported and "formula" in bad.reason
    [good] = check("物理地址E = 8×1024 + 452。", hits, question)
    assert good.supported, good.reason
    [power] = check("页内偏移量占10位，页面大小为2^10字节。", [make_hit(1, "页内偏移量占10位，页面大小为2^10字节。")], "页面多大")
    assert power.supported, power.reason  # a power is a number, not a formula


def test_of_x_de_y_y_is_the_subject():
    """`散列表的装填因子是…`: what follows is said of 装填因子, not given to 散列表 (a false swap before)."""
    hits = [make_hit(1, "装填因子定义为表中记录数除以散列表长度，装填因子越大，冲突越多，查找效率越低。"
                        "散列表是根据关键字直接进行访问的数据结构，散列表建立了关键字和存储地址之间的映射。")]
    q = "散列表的装填因子是啥意思？它越大，查找效率会咋变？"
    claim = check("散列表的装填因子是表中记录数除以散列表长度。", hits, q)[0]
    assert claim.supported, claim.reason
    swapped = check("散列表的装填因子建立了关键字和存储地址之间的映射。", hits, q)[0]
    assert not swapped.supported and "swap" in swapped.reason  # 散列表's fact given to 装填因子


def test_a_phase_given_the_other_phases_growth_is_a_swap():
    """What an answer says of one side, clause by clause as the contrast table reads it, against what the
    passages say of each (entities.check_side_facts): the second clause has no name of its own."""
    hits = [make_hit(1, "一开始是慢开始，窗口每轮翻一番，呈指数增长。窗口到门限后进入拥塞避免，每轮只加一，呈线性增长。"
                        "慢开始和拥塞避免都由发送方执行。")]
    q = "慢开始和拥塞避免的窗口增长有什么区别"
    swapped = check("慢开始阶段窗口的增长，每轮只加一，呈线性增长。", hits, q)[0]
    assert not swapped.supported and swapped.reason.startswith("swap") and "拥塞避免" in swapped.reason
    assert check("拥塞避免阶段窗口每轮只加一，呈线性增长。", hits, q)[0].supported
    assert "swap" not in check("慢开始阶段窗口不是线性增长，而是每轮翻一番。", hits, q)[0].reason


RATES = ("波特率是码元传输速率，单位是波特；比特率是信息传输速率，单位是b/s。"
         "若一个码元携带n比特信息，则比特率=波特率×n。")


def test_the_two_contrasted_things_said_to_be_one_need_a_passage_saying_so():
    """`…是一回事吗` answered yes by the model: no passage says it, so it fails; the difference passes,
    and a passage that does say so (in numbers, for binary signals) backs it."""
    question = "波特率和比特率是一回事吗？有什么区别？"
    same = check("波特率和比特率是一回事，都是衡量数据传输速率的单位。", [make_hit(1, RATES)], question)[0]
    assert not same.supported and same.reason.startswith("says 波特率 and 比特率 are the same")
    assert check("波特率是码元传输速率，比特率是信息传输速率。", [make_hit(1, RATES)], question)[0].supported
    # that they differ is no polarity claim against the passage's 是 (波特率是码元传输速率)
    assert check("波特率和比特率不是一回事。", [make_hit(1, RATES)], question)[0].supported
    said = make_hit(2, "二进制调制时，两者在数值上是一样的。")
    assert check("二进制调制时波特率和比特率在数值上是一样的。", [make_hit(1, RATES), said], question)[0].supported
