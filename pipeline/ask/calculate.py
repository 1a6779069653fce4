"""Calculation questions answered by a program, not by prose (issue 23).

The packaged 1.5B model is a coder model: asked to do arithmetic in sentences it garbles offsets and
repeats steps, asked for a program it writes named quantities (``page = 1024  # 页面大小``,
``offset = addr % page``). :func:`solve`:

1. **applies** only to a calculation question that gives at least ``MIN_GIVEN`` numbers and is not a
   past-paper record (a record is answered from its booklet);
2. asks the model for the program (the material in the usual ``<资料>`` block, ``PROGRAM_TOKENS``
   at most), takes the code out of its reply (:func:`extract_code`);
3. runs it in the sandbox (:func:`pipeline.ask.program.run_program`: static whitelist, restricted
   evaluator, child process with CPU and memory limits); a program that does not run is no answer;
4. **grounds every input**: each number literal of the program must occur in the question or in
   the passages (``4`` of 4KB, ``2500``), or be a unit constant of ``UNIT_CONSTANTS`` (1024, 1000,
   8…); one invented number and the program is no answer (:func:`ungrounded`);
5. shows the steps with their values and the result, each input named by its comment, and the
   passage the method comes from (the top key sentence's citation).

When it gives no answer (None), the caller answers the usual way: nothing the program computed is
shown. The numbers a shown program prints are all inputs from the material or computed from them by
the sandbox, so the claim check's number rule (which checks prose) is not run on them.
"""

from __future__ import annotations

import ast
import re
import threading
from typing import Optional

from pipeline.ask.program import run_program
from pipeline.ask.prompts import material
from pipeline.ask.sentences import normalise, strip_citations
from pipeline.models import Hit, KeySentence, ProgramResult, RecordAnswer

MIN_GIVEN = 2  # numbers the question must give: "UDP首部几个字节" is a lookup, not a calculation
PROGRAM_TOKENS = 220  # ~10 lines of code; a longer reply is a runaway, cut
# numbers a program may use that no text states: unit sizes and powers (KB = 1024 B, 1 s = 1000 ms,
# 1 B = 8 bit, 2 for binary logarithms and halving, 10 for decimal, 60 for minutes, 100 for percent)
UNIT_CONSTANTS = {0.0, 1.0, 2.0, 8.0, 10.0, 60.0, 100.0, 1000.0, 1024.0, 1e6, 1e9, 1048576.0, 1073741824.0}
HEAD = "计算（模型写出算式，由程序算出；已知量都取自题目或资料）："
LABEL_CHARS = 16  # of a comment shown as an input's name; longer is prose, not a name

PROGRAM_SYSTEM = """你是408考研计算题助手。只输出一段Python计算代码，不要解释，不要输出其他文字。
规则：每行一个赋值；先用英文变量名写出题目和<资料>中给出的已知量，行尾用 # 写出它的中文名称；
再一步步计算；最后一行写 answer = 结果。只能用 + - * / // % ** 和 min max abs round ceil floor log2 sqrt；
页面置换次数可用 fifo_faults(页面列表, 块数)、lru_faults(页面列表, 块数)、opt_faults(页面列表, 块数)，
哈夫曼树带权路径长度可用 huffman_wpl(权值列表)。不要 import，不要定义函数，不要 print。"""

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)(?:```|$)", re.S)
_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:[-+*/%]|//|\*\*)?=(?!=)")
_COMMENT = re.compile(r"#\s*(.*)$")


def given_numbers(question: str) -> list[str]:
    return _NUMBER.findall(normalise(question))


def applies(question: str, kind: str, record: Optional[RecordAnswer], strong: bool) -> bool:
    """A calculation question with its own data, not a past-paper record."""
    return kind == "calculation" and not (record is not None and strong) and len(given_numbers(question)) >= MIN_GIVEN


def program_prompt(question: str, hits: list[Hit], keys: list[KeySentence], max_chars: int) -> tuple[str, str]:
    text, _ = material(hits, keys, None, max_chars)
    return PROGRAM_SYSTEM, f"<资料>\n{text}\n</资料>\n\n问题：{question}\n代码："


def extract_code(reply: str) -> str:
    """The code of the model's reply: a fenced block if there is one, else the lines from the first
    assignment on; prose lines (no assignment, no code) are dropped."""
    m = _FENCE.search(reply)
    body = m.group(1) if m else reply
    lines = body.splitlines()
    start = next((i for i, ln in enumerate(lines) if _ASSIGN.match(ln)), len(lines))
    kept = []
    for ln in lines[start:]:
        code = ln.split("#", 1)[0]
        if not code.strip() or _ASSIGN.match(ln) or not re.search(r"[\u4e00-\u9fff]", code):
            kept.append(ln)
    return "\n".join(kept).strip()


def literals(source: str) -> list[float]:
    """Every number literal of the program (an invented one hides anywhere: ``8*1024 + 452``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [float(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)]


def ungrounded(source: str, question: str, hits: list[Hit]) -> list[float]:
    """The literals that are neither in the question or the passages nor a unit constant."""
    stated = {float(x) for t in [question] + [strip_citations(h.text) for h in hits] for x in _NUMBER.findall(normalise(t))}
    return [v for v in literals(source) if v not in stated and abs(v) not in UNIT_CONSTANTS]


def comment_labels(source: str) -> dict[str, str]:
    """name → the comment of its first assignment, when it is a short name (no digits: a number in a
    comment would be an unchecked claim)."""
    out: dict[str, str] = {}
    for ln in source.splitlines():
        a, c = _ASSIGN.match(ln), _COMMENT.search(ln)
        if a and c and a.group(1) not in out:
            label = c.group(1).strip()
            if label and len(label) <= LABEL_CHARS and not re.search(r"\d", label):
                out[a.group(1)] = label
    return out


def render(result: ProgramResult, labels: dict[str, str], citation: str) -> str:
    """The answer text: the inputs with their names, each computed step with its value, the result."""
    inputs = {s.name for s in result.inputs}

    def named(name: str) -> str:
        return f"{name}（{labels[name]}）" if name in labels else name

    lines = [HEAD]
    if result.inputs:
        lines.append("已知：" + "，".join(f"{named(s.name)} = {s.shown}" for s in result.inputs))
    for s in result.steps:
        if s.name in inputs or result.result is not None and s.name == result.result.name:
            continue
        lines.append(f"{s.name} = {s.expression} = {s.shown}")
    r = result.result
    if r is not None:
        lines.append(f"结果：{named(r.name)} = {r.expression} = {r.shown}" if r.name not in inputs
                     else f"结果：{named(r.name)} = {r.shown}")
    lines.append(f"方法依据：{citation}")
    return "\n".join(lines)


def solve(question: str, hits: list[Hit], keys: list[KeySentence], llm, *, max_chars: int,
          cancel: Optional[threading.Event] = None) -> tuple[Optional[str], Optional[ProgramResult], str]:
    """(the answer text or None, the run, why not / "ok"). See the module docstring."""
    system, user = program_prompt(question, hits, keys, max_chars)
    reply = llm.complete(system, user, max_tokens=PROGRAM_TOKENS, temperature=0.0, cancel=cancel)
    code = extract_code(reply)
    if not code:
        return None, None, "no program in the reply"
    result = run_program(code)
    if not result.ok:
        return None, result, f"program: {result.error}"
    if result.result is None or not isinstance(result.result.value, (int, float)) or isinstance(result.result.value, bool):
        return None, result, "program: the result is not a number"
    if result.result.name in {s.name for s in result.inputs}:
        return None, result, "program: the result is a given number, nothing is computed"
    bad = ungrounded(code, question, hits)
    if bad:
        return None, result, "program: numbers in neither the question nor the passages: " + ", ".join(f"{v:g}" for v in bad[:5])
    citation = keys[0].citation if keys else (hits[0].citation if hits else "")
    return render(result, comment_labels(code), citation), result, "ok"
