"""Calculation questions answered by a program, not by prose (issue 23).

The packaged 1.5B model is a coder model: asked to do arithmetic in sentences it garbles offsets and
repeats steps, asked for a program it writes named quantities (``page = 1024  # 页面大小``,
``offset = addr % page``). :func:`solve`:

1. **applies** only to a calculation question that gives at least ``MIN_GIVEN`` numbers (or one a
   rule recognises) and is not a past-paper record (a record is answered from its booklet);
2. writes the program by rule when one rule of :mod:`pipeline.ask.calc_rules` recognises the
   question and every datum it needs is stated exactly once (:func:`ruled_program`: page faults,
   Huffman WPL, Hamming check bits, binary-search ASL, CRC, linear-probing hash tables; paging address translation, the largest
   logical address space, TLB access time, disk access time, cache address fields, pipeline time,
   frame delay, send windows, Nyquist and Shannon limits, binary-tree node counts), else, with
   ``model_programs`` (``EXAMRAG_CALC_MODEL_PROGRAMS``, off by default: on our own set the model's
   programs that could be shown were only simulation calls the rules now write, and each request cost
   ~13 s before the prose answer), asks the model for it: the key sentences (the method) in the ``<资料>`` block, at most
   ``PROGRAM_MATERIAL`` characters; the reply held by a JSON schema to a list of assignment lines
   (``LINE``: ASCII code, an optional short comment), so the small model cannot drift into prose;
   :func:`extract_code` also takes code out of a free reply (an endpoint that ignores the schema);
3. runs it in the sandbox (:func:`pipeline.ask.program.run_program`: static whitelist, restricted
   evaluator, child process with CPU and memory limits); a program that does not run is no answer;
4. **grounds every input**, a ruled program's too: each number literal of the program must be one
   the question gives (``2`` of 2KB, ``5000``; 0x1A3C or 1A3CH as its value; a bit string ``"101001"``
   as its digits) or a unit constant of ``UNIT_CONSTANTS`` (1024, 1000, 8…); one other number
   (``2**32`` for a question that names no 32) and the program is no answer (:func:`ungrounded`). A
   passage's numbers do not count: they belong to its own example. And every number the question
   gives must be used (:func:`unused`): a program that ignores data solves another problem;
5. **shows a ruled program, or a simulation's result** by default; a ruled program is ours (each rule
   tested on hand-worked questions); a model-written one only when it is a simulation's
   (:func:`simulated`: the last statement calls a maintained, tested simulation of
   ``simulations.SIMULATIONS``, so the model only copies the data); a formula the model wrote is
   shown only with ``formulas`` (``EXAMRAG_CALC_FORMULAS``). Measured on our own calculation questions
   (bench/data/answers_set.jsonl) the 1.5B model's formula programs that passed every check above were
   wrong 3 times of 3 (it copies another example's 2**32 and 2**12), its simulation calls right 2 of 2;
   the result is a number, or a string of digits (a CRC remainder keeps its leading zeros);
6. shows the steps with their names and values and the result, each input named by its comment, a
   unit after the value when the comment ends with one of ``calc_text.UNITS`` (``# 页面大小（KB）``:
   ``page_kb（页面大小） = 2KB``), the conclusion as a sentence when the result is named (``答：物理地址为
   15240。``; with every ``answer_…`` step: ``答：块内地址位数为6位，行号位数为8位，标记位数为18位。``), and the
   passage the method comes from (the top key sentence's citation), or, for a question answered by
   rule although retrieval was weak (:func:`passes_gate`) with no passage about it, ``STANDARD_METHOD``:
   no citation rather than an unrelated passage's. One quantity given two ways (``answer_rate`` 9/10
   and ``answer`` 90%, both 缺页率) is said once: ``缺页率为9/10 = 90%``.

When it gives no answer (None), the caller answers the usual way: nothing the program computed is
shown. The numbers a shown program prints are all inputs from the question or computed from them by
the sandbox, so the claim check's number rule (which checks prose) is not run on them.
"""

from __future__ import annotations

import ast
import json
import re
import threading
from collections.abc import Iterable
from typing import Optional

from pipeline.ask.calc_rules import conventions, ruled
from pipeline.ask.calc_text import UNITS, chinese_number
from pipeline.ask.program import run_program
from pipeline.ask.question import Asked, asked_of
from pipeline.ask.refs import YEAR_OR_EXAM
from pipeline.ask.sentences import strip_citations
from pipeline.ask.simulations import FORMATTERS, SIMULATIONS
from pipeline.models import Hit, KeySentence, ProgramResult, ProgramStep, RecordAnswer

MIN_GIVEN = 2  # numbers the question must give: "UDP首部几个字节" is a lookup, not a calculation
PROGRAM_TOKENS = 220  # ~10 lines of code; a longer reply is a runaway, cut
PROGRAM_MATERIAL = 300  # chars of key sentences: ~200 prompt tokens beyond the cached system prompt
# one line of the program: a name, "=", ASCII code, an optional comment of up to 16 characters
LINE = r"^[a-z_][a-z0-9_]{0,24} = [-+*/%()., \[\]0-9a-z_]{1,100}( # [^\n\"\\]{1,16})?$"
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["lines"],
          "properties": {"lines": {"type": "array", "minItems": 2, "maxItems": 12,
                                   "items": {"type": "string", "pattern": LINE}}}}
# numbers a program may use that no text states: unit sizes and powers (KB = 1024 B, 1 s = 1000 ms,
# 1 B = 8 bit, 2 for binary logarithms and halving, 10 for decimal, 60 for minutes, 100 for percent)
UNIT_CONSTANTS = {0.0, 1.0, 2.0, 8.0, 10.0, 60.0, 100.0, 1000.0, 1024.0, 10000.0, 1e6, 1e9, 1048576.0, 1073741824.0}  # 10000: 万
HEAD = "计算（由程序算出；已知量都取自题目）："
# the method's source when no passage retrieved is about the question: said so, nothing cited
STANDARD_METHOD = "408 考题的标准解法（资料中没有检索到讲这一方法的段落，未引用）"
LABEL_CHARS = 16  # of a comment shown as an input's name; longer is prose, not a name

PROGRAM_SYSTEM = """你是408考研计算题助手。只输出一段Python计算代码，不要解释，不要输出其他文字。
规则：每行一个赋值；先用英文变量名写出题目给出的每个已知量，行尾用 # 写出它的中文名称；
再按<资料>中的方法一步步计算；最后一行写 answer = 结果。只能用 + - * / // % ** 和 min max abs round ceil floor log2 sqrt；
页面置换次数可用 fifo_faults(页面列表, 块数)、lru_faults(页面列表, 块数)、opt_faults(页面列表, 块数)，
哈夫曼树带权路径长度可用 huffman_wpl(权值列表)，线性探测查找成功的平均查找长度可用 linear_probe(关键字列表, 表长, 除数)。
调用时直接写 answer = fifo_faults([7, 0, 1, 2, 0], 3)；不要给这些函数名赋值，不要写 lambda。不要 import，不要定义函数，不要 print。"""

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# P1, J3, 进程2, 作业4: a process's or job's name, not a datum (its number need not be used)
_JOB_LABEL = re.compile(r"(?<![A-Za-z0-9])(?:[PJI]|进程|作业)\s*\d{1,2}(?![\d.个])")  # P1, 作业2, instruction class I3
_ALL_BITS = re.compile(r"全\s*[01](?![\d.])")  # 全0、全1子网: the names of bit patterns, not data
# a count the question spells (三个物理页框, 两级): it grounds a program's 3, and need not be used
_SPELLED_COUNT = re.compile(r"((?:[一二两三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九十]))\s*"
                            r"(?:个|台|片|级|次|块|条|路|道|层|位|轮|段(?:的)?(?:指令)?流水)")
_DOTTED_QUAD = re.compile(r"(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\d.])")
# a hex number: 0x1A3C, or upper-case digits with at least one decimal digit and H (1A3CH, 5000H)
_HEX = re.compile(r"(?<![0-9A-Za-z])(?:0[xX]([0-9A-Fa-f]+)|([0-9A-F]*[0-9][0-9A-F]*)H)(?![0-9A-Za-z])")
_BITS = re.compile(r"[0-9]+|[0-9A-F]+H")  # a string literal that is a number as the question writes it: "101001"
_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)(?:```|$)", re.S)
_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:[-+*/%]|//|\*\*)?=(?!=)")
_COMMENT = re.compile(r"#\s*(.*)$")
_SHADOWED = re.compile(r"^(\w+)\s*=\s*\1\s*\(", re.M)
# a convention the question states, no datum: a unit's base (1M按10^6计, 1K=1000), the midpoint of a
# binary search (mid=⌊(low+high)/2⌋), the two zeros of a code (+0和-0)
_CONVENTION = re.compile(r"1\s*[KMGkmg]\s*[Bb]?\s*(?:按|取|=|等于)\s*(?:10\s*\^\s*[369]|1000|1024|1000000|1048576)\s*计?"
                         r"|mid\s*=\s*[⌊\[(]?\s*\(\s*low\s*\+\s*high\s*\)\s*/\s*2\s*[⌋\])]?"
                         r"|\+\s*0\s*(?:和|与|、|及)\s*-\s*0"  # +0和-0: the two zeros named
                         r"|IEEE\s*754")  # the standard's name


def given_numbers(question: "str | Asked") -> list[str]:
    """The numbers the question gives, as written; a hex number (0x1A3C, 1A3CH) as its decimal value;
    a dotted IPv4 address or mask (192.168.1.0) as its four numbers, not two decimals; none in a
    stated convention (``_CONVENTION``)."""
    text = _CONVENTION.sub(" ", asked_of(question).norm)
    text = _HEX.sub(lambda m: f" {int(m.group(1) or m.group(2), 16)} ", text)
    text = _DOTTED_QUAD.sub(lambda m: " " + " ".join(m.groups()) + " ", text)
    text = _ALL_BITS.sub(" ", text)
    text = _JOB_LABEL.sub(" ", text)
    return _NUMBER.findall(text)


def gives_numbers(question: "str | Asked") -> bool:
    """Does the question give a number of its own (not the paper it names: 2009年, 408) or spell a
    count (三个)? One that gives none asks about the general case, not a worked example."""
    return bool(spelled_counts(question)) or any(not YEAR_OR_EXAM.match(n) for n in given_numbers(question))


def ruled_program(question: str) -> Optional[str]:
    """The program of a question a rule of :mod:`pipeline.ask.calc_rules` recognises; None otherwise."""
    found = ruled(question)
    return found[1] if found else None


def applies(question: "str | Asked", kind: str, record: Optional[RecordAnswer], strong: bool) -> bool:
    """A calculation question with its own data (or a simulation question recognised by rule), not a
    past-paper record."""
    if kind != "calculation" or (record is not None and strong):
        return False
    return len(given_numbers(question)) >= MIN_GIVEN or ruled_program(question) is not None


def program_prompt(question: str, keys: list[KeySentence], hits: list[Hit]) -> tuple[str, str]:
    """The key sentences (else the top passage's start): the method, not a whole section."""
    lines = [k.text for k in keys] or [strip_citations(hits[0].text)]
    text = "\n".join(f"[{i}] {t}" for i, t in enumerate(lines, 1))[:PROGRAM_MATERIAL]
    return PROGRAM_SYSTEM, f"<资料>\n{text}\n</资料>\n\n问题：{question}\n"


def extract_code(reply: str) -> str:
    """The code of the model's reply: the schema's lines; else a fenced block if there is one, else
    the lines from the first assignment on; prose lines (no assignment, no code) are dropped. A name
    assigned the call of the function of the same name (``huffman_wpl = huffman_wpl(w)``) is the
    result: it becomes ``answer``."""
    try:
        lines = json.loads(reply)["lines"]
        if isinstance(lines, list) and all(isinstance(x, str) for x in lines):
            reply = "\n".join(lines)
    except (ValueError, TypeError, KeyError):
        pass
    code = _SHADOWED.sub(lambda m: f"answer = {m.group(1)}(", _free_code(reply))
    return _tidy(code)


def _tidy(code: str) -> str:
    """The small model's noise cut: a line that is no statement on its own (cut at the token limit,
    an unclosed bracket), a ``lambda`` (it redefines the simulations), and everything after the first
    ``answer = `` line (the result is that line's)."""
    kept = []
    for ln in code.splitlines():
        try:
            ast.parse(ln)
        except SyntaxError:
            continue
        if re.search(r"\blambda\b", ln.split("#", 1)[0]):
            continue
        kept.append(ln)
        if re.match(r"\s*answer\s*=(?!=)", ln):
            break
    return "\n".join(kept)


def _free_code(reply: str) -> str:
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
    """Every number literal of the program (an invented one hides anywhere: ``8*1024 + 452``), a
    string of digits as its number (the bit string ``"101001"`` is the question's 101001)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            out.append(float(n.value))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and _BITS.fullmatch(n.value):
            out.append(float(n.value))
    return out


# 2KB may be written 2048; not ×8 (bytes as bits): it let 2**32 pass for a question giving 4B, copied from
# another example in the passages
UNIT_FACTORS = (1.0, 1000.0, 1024.0, 1e6, 1048576.0, 1e9, 1073741824.0)


def _forms(x: float) -> set[float]:
    return {x * f for f in UNIT_FACTORS}


def spelled_counts(question: "str | Asked") -> list[float]:
    """The small counts the question writes in characters (三个物理页框 → 3)."""
    return [float(n) for m in _SPELLED_COUNT.finditer(asked_of(question).norm) if (n := chinese_number(m.group(1)))]


def ungrounded(source: str, question: str) -> list[float]:
    """The literals that are neither a number the question gives (or it times a unit: 2KB as 2048;
    or spells: 三个 as 3) nor a unit constant."""
    stated = set().union(*(_forms(float(x)) for x in given_numbers(question))) if given_numbers(question) else set()
    stated |= set(spelled_counts(question))
    return [v for v in literals(source) if v not in stated and abs(v) not in UNIT_CONSTANTS]


def unused(source: str, question: str, values: Iterable[float] = ()) -> list[str]:
    """The numbers the question gives that the program neither uses (as written or times a unit) nor
    computes (``values``: its steps' values; 页号2 is derived from the address, not needed as data)."""
    used = set(literals(source)) | set(values)
    return [x for x in dict.fromkeys(given_numbers(question)) if not _forms(float(x)) & used]


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


def _unit(label: str) -> tuple[str, str]:
    """A label's name and unit: 页面大小（KB） → (页面大小, KB); a label without one of ``UNITS`` → (label, "")."""
    m = re.fullmatch(r"(.+)（([^（）]+)）", label)
    return (m.group(1), m.group(2)) if m and m.group(2) in UNITS else (label, "")


def render(result: ProgramResult, labels: dict[str, str], citation: str) -> str:
    """The answer text: the inputs with their names, each computed step with its name and value, the
    result, and the conclusion: the result and every named step called ``answer_…`` (a rule's other
    asked quantities: 块内地址位数 and 行号位数 besides 标记位数), each with its unit."""
    inputs = {s.name for s in result.inputs}
    names = {name: _unit(label) for name, label in labels.items()}

    def named(name: str) -> str:
        return f"{name}（{names[name][0]}）" if name in names else name

    def valued(step: ProgramStep) -> str:
        return step.shown + (names[step.name][1] if step.name in names else "")

    lines = [HEAD]
    if result.inputs:
        lines.append("已知：" + "，".join(f"{named(s.name)} = {valued(s)}" for s in result.inputs))
    r = result.result
    for s in result.steps:
        if s.name in inputs or r is not None and s.name == r.name:
            continue
        lines.append(f"{named(s.name)} = {s.expression} = {valued(s)}")
    if r is not None:
        lines.append(f"结果：{named(r.name)} = {r.expression} = {valued(r)}" if r.name not in inputs
                     else f"结果：{named(r.name)} = {valued(r)}")
        concluded = [s for s in result.steps if s.name.startswith("answer_") and s.name != r.name] + [r]
        said: list[list[str]] = []  # [name, value, value…]: one quantity given two ways is said once (9/10 = 90%)
        for s in concluded:
            if s.name not in names:
                continue
            if said and said[-1][0] == names[s.name][0]:
                said[-1].append(valued(s))
            else:
                said.append([names[s.name][0], valued(s)])
        if r.name in names:  # the conclusion as a sentence: 答：缺页次数为9。
            lines.append("答：" + "，".join(f"{name}为{' = '.join(values)}" for name, *values in said) + "。")
    lines.append(f"方法依据：{citation}")
    return "\n".join(lines)


def simulated(source: str) -> bool:
    """Whether the program's result is a maintained simulation's (its last statement calls one;
    ``to_bits``, ``to_hex`` and ``fraction_text`` only write a value another way)."""
    try:
        last = ast.parse(source).body[-1]
    except (SyntaxError, IndexError):
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in SIMULATIONS
               and n.func.id not in FORMATTERS for n in ast.walk(last))


def passes_gate(question: "str | Asked", kind: str, record: Optional[RecordAnswer], strong: bool) -> bool:
    """Whether a calculation question may be answered although retrieval is weak (the refusal gate,
    ``answer.should_refuse``): a rule writes its program from the question's own data, so the passages
    add only the method's citation. Not a past-paper record (answered from its booklet), not a question
    no rule recognises (a model-written program needs the method from the passages)."""
    return kind == "calculation" and not (record is not None and strong) and ruled(question) is not None


def solve(question: str, keys: list[KeySentence], hits: list[Hit], llm, *, model_programs: bool = False,
          formulas: bool = False, cancel: Optional[threading.Event] = None,
          citation: Optional[str] = None) -> tuple[Optional[str], Optional[ProgramResult], str]:
    """(the answer text or None, the run, why not / "ok" / "ok: by rule").
    See the module docstring. ``citation`` replaces the top key sentence's as the method's source
    (``STANDARD_METHOD`` when no passage is about the question)."""
    if citation is None and not (keys or hits):
        return None, None, "no passage gives a method"
    found = ruled(question)
    rule, code = found if found else (None, None)
    if code is None and not model_programs:
        return None, None, "no rule recognises this calculation (model-written programs: EXAMRAG_CALC_MODEL_PROGRAMS)"
    if code is None:
        system, user = program_prompt(question, keys, hits)
        reply = llm.complete(system, user, max_tokens=PROGRAM_TOKENS, temperature=0.0, cancel=cancel, json_schema=SCHEMA)
        code = extract_code(reply)
    if not code:
        return None, None, "no program in the reply"
    result = run_program(code)
    if not result.ok:
        return None, result, f"program: {result.error}"
    if result.result is None or not _number_or_bits(result.result.value):
        return None, result, "program: the result is not a number"
    if result.result.name in {s.name for s in result.inputs}:
        return None, result, "program: the result is a given number, nothing is computed"
    bad = [v for v in ungrounded(code, question) if not (rule and abs(v) in conventions(rule))]
    if bad:
        return None, result, "program: numbers the question does not give: " + ", ".join(f"{v:g}" for v in bad[:5])
    missing = unused(code, question, [float(st.value) for st in result.steps
                                      if isinstance(st.value, (int, float)) and not isinstance(st.value, bool)])
    if missing:
        return None, result, "program: given numbers it does not use: " + ", ".join(missing[:5])
    if rule is None and not formulas and not simulated(code):
        return None, result, "program: a formula, not a maintained simulation, is not shown (EXAMRAG_CALC_FORMULAS)"
    citation = citation or (keys[0].citation if keys else hits[0].citation)
    return render(result, comment_labels(code), citation), result, f"ok: by rule {rule}" if rule else "ok"


def _number_or_bits(value: object) -> bool:
    """A number, or a string of digits (a CRC remainder ``"001"``: its leading zeros are the answer)."""
    if isinstance(value, str):
        return bool(_BITS.fullmatch(value))
    return isinstance(value, (int, float)) and not isinstance(value, bool)
