"""A passage as the units its key sentences are chosen from (``keysentences``): sentences, with what
belongs together kept together.

- a heading ("1. 三次握手建立连接"), an announcement ("区别如下：") or a question the notes then answer
  ("为什么要三次握手？主要是为了…") is joined to the sentence after it;
- a question or announcement followed by a numbered list, or after a colon a bulleted one
  ("缓冲区的作用：+ …+ …"), keeps the whole list (up to ``LIST_CHARS``);
- a restatement ("即…") or a sentence explaining the one before ("这么做有两个理由：") joins that one;
- a table row the clean stage wrote as one line ("字段：值；字段：值") stays whole;
- of a past-paper record, its answer (with the chosen option's text) and analysis, not its stem.
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.records import parse_record
from pipeline.ask.sentences import split_sentences

HEADING_CHARS = 20  # a line this short without an end mark is a heading
LIST_CHARS = 320  # a question or announcement followed by a numbered list keeps the list, up to this
_ASKED = re.compile(r"[?？]$")
_GOES_ON = re.compile(r"^(?:即|也就是说|也即|换言之|换句话说|"
                      r"(?:这么|这样)做(?:的)?(?:有|是|原因|理由|目的)|这是(?:因为|为了|由于)|之所以这样)")
_INTRO = re.compile(r"(?:以下|如下|下列|几点|几个方面)[^。]{0,6}[。：:]?$|[：:]$")
_TABLE_ROW = re.compile(r"^[^；。\n]{1,30}；[^；。\n]{1,30}[：:]")  # 查找方式；m阶B树：折半查找。…；m阶B+树：…
_ITEM = re.compile(r"^\s*(?:[(（]?\d{1,2}[)）.、．]|[①-⑩])\s*\S")
_BULLET_ITEM = re.compile(r"^\s*[-+*•·]\s+\S")  # "+ 缓和CPU与I/O设备之间…": an item after "X的作用："
_ANNOUNCES = re.compile(r"[：:]\s*$")
# a bulleted list is one answer only after a lead that says what it lists (`缓冲区的作用：`, `有两个理由：`);
# after `超时：` its bullets are loose notes, and a 300-character run of them covers any question's words
_LIST_LEAD = re.compile(r"(?:作用|目的|用途|意义|原因|理由|好处|特点|特征|优点|缺点|区别|不同|变化|影响|功能|步骤|过程|条件|"
                        r"方法|组成|包括|分为|如下|以下|几点|几个方面|[两几三四五]种|[两几三四五]类|[两几三四五]个)"
                        r"[^：:。]{0,8}[：:]\s*$")


def joined_sentences(text: str) -> list[str]:
    """Sentences, where a heading ("1. 三次握手建立连接"), an announcement ("区别如下：") or a question
    the text then answers ("为什么要三次握手？主要是为了…") is joined to the sentence after it, and
    a restatement ("即…") to the sentence before it."""
    sents = []
    for s in _units(text):
        if sents and _GOES_ON.match(s):  # "即…" says the sentence before again; "这么做有两个理由：" explains it
            sents[-1] += s
        else:
            sents.append(s)
    out = []
    i = 0
    while i < len(sents):
        s = sents[i]
        heading = len(s) <= HEADING_CHARS and not re.search(r"[。！？；!?;]$", s)
        if (heading or _INTRO.search(s) or _ASKED.search(s)) and i + 1 < len(sents):
            j = i + 1
            joined = s + (" " if heading else "") + sents[j]
            lead = s  # what announces the list: the question or intro itself, or what a heading is joined to
            if heading and _ANNOUNCES.search(sents[j]) and j + 1 < len(sents) and _list_item(sents[j + 1], _lists(sents[j])):
                lead = sents[j]  # "TIME_WAIT" + "…2MSL。这么做有两个理由：" + its list
                j += 1
                joined += sents[j]
            elif heading and not _ANNOUNCES.search(s):
                lead = ""  # a heading and its first line: no list announced ("1. 三次握手建立连接 （1）…")
            item = _list_item(sents[j], _lists(lead)) if lead else None
            if item:  # "为什么…？1. …2. …", "缓冲区的作用：+ …+ …": the whole list answers it
                while j + 1 < len(sents) and item.match(sents[j + 1]) and len(joined) + len(sents[j + 1]) <= LIST_CHARS:
                    j += 1
                    joined += sents[j]
            out.append(joined)
            i = j + 1
            continue
        out.append(s)
        i += 1
    return out


def _list_item(sentence: str, after_colon: bool) -> Optional[re.Pattern]:
    """The pattern of the list ``sentence`` starts (numbered; bulleted only after a colon), or None."""
    if _ITEM.match(sentence):
        return _ITEM
    return _BULLET_ITEM if after_colon and _BULLET_ITEM.match(sentence) else None


def _lists(lead: str) -> bool:
    """``lead`` ends announcing a bulleted list of what it names (:data:`_LIST_LEAD`)."""
    return bool(_LIST_LEAD.search(lead))


def _units(text: str):
    """Sentences, except that a table row (the clean stage writes each as one line "字段：值；字段：值")
    stays whole even when a cell holds several sentences: a cut row pairs a value with the wrong column."""
    for line in text.split("\n"):
        line = line.strip()
        if _TABLE_ROW.match(line):
            yield line
        else:
            yield from split_sentences(line, semicolon=False)


def record_sentences(text: str) -> list[str]:
    """A record's answer (with the chosen option's text) and its analysis, sentence by sentence."""
    _, answer, analysis = parse_record(text)
    out = []
    if answer:
        letter = re.fullmatch(r"\s*([A-D])[。.]?\s*", answer)
        option = re.search(rf"^{letter.group(1)}[.．、]\s*(.+)$", text, re.M) if letter else None
        out.append(f"答案：{answer.strip()}" + (f"（{option.group(1).strip()}）" if option else ""))
    # the analysis as notes are read: "具体有以下几种情况：（1）…（3）若有多条匹配…最长前缀匹配" keeps its list
    return out + (joined_sentences(analysis) if analysis else [])
