"""Heading recognition: numbering patterns (第七章, 7.3, 7.3.1, 一、, （一）, IV), exam section
titles, PDF headings from layout (font size ranks, outline, repeated lines), heading paths.

A numbered line is a heading candidate only if it is short (≤ ``MAX_HEADING_CHARS``) and does not
end like a sentence; callers add font evidence where they have it (PDF) and decide.
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.models import Block
from pipeline.parse.layout import LayoutBlock, PageLayout

MAX_HEADING_CHARS = 40
_CN_NUM = "零一二三四五六七八九十百千〇两"

# (name, regex, level); decimal depth gives its own level.
PATTERNS: list[tuple[str, re.Pattern, Optional[int]]] = [
    ("part", re.compile(rf"^第[{_CN_NUM}\d]+(部分|篇)\s*\S"), 1),
    ("chapter", re.compile(rf"^第[{_CN_NUM}\d]+章\s*\S*"), 1),
    ("section", re.compile(rf"^第[{_CN_NUM}\d]+节\s*\S"), 2),
    ("decimal", re.compile(r"^(\d{1,2}(?:\.\d{1,2}){1,3})(?![\d.])\s*[\u4e00-\u9fffA-Za-z（(《“\"]"), None),
    ("roman", re.compile(r"^(?:I{1,3}|IV|VI{0,3}|IX|X)(?:\s*[.．、]\s*|\s+)(?=[\u4e00-\u9fff])"), 1),
    ("cn_item", re.compile(rf"^[{_CN_NUM}]{{1,3}}、\s*\S"), 2),
    ("cn_paren", re.compile(rf"^[（(][{_CN_NUM}]{{1,3}}[）)]\s*\S"), 3),
]


def numbering(line: str) -> Optional[tuple[str, int]]:
    """Return (pattern name, level) when the line starts with heading numbering."""
    s = line.strip()
    if not s or len(s) > MAX_HEADING_CHARS or s[-1] in "。；;，,：:？?！!":
        return None
    for name, rx, level in PATTERNS:
        m = rx.match(s)
        if m:
            if name == "decimal":
                rest = s[m.end(1):]  # words, not a unit: "1.2 概述", "1.2 Overview"; not "1.5 ms"
                if not re.search(r"[\u4e00-\u9fff]", rest) and len(re.findall(r"[A-Za-z]", rest)) < 4:
                    return None
                return name, m.group(1).count(".") + 1
            return name, level  # type: ignore[return-value]
    return None


# Exam-paper section titles: "一、单项选择题：第1～40小题，每小题2分，共80分。…" is one long line whose
# start is the section heading.
EXAM_SECTION = re.compile(rf"^[{_CN_NUM}]{{1,3}}\s*[、.．]\s*(单项选择题|多项选择题|不定项选择题|选择题|填空题|判断题"
                          r"|简答题|计算题|综合应用题|综合题|应用题|算法设计题|设计题|分析题|问答题|解答题)")
_CODE_LIKE = re.compile(r"[;{}=<>]|^\s*(return|if|else|for|while|int|void|char|struct|printf)\b")
_MD_INLINE = [(re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # [text](url), images
              (re.compile(r"</?[A-Za-z][^>]*>"), ""),  # <a name=…>, <font …>
              (re.compile(r"(\*\*|__|==|~~|`)"), ""),  # bold, highlight, strike, code marks
              (re.compile(r"(?<![\w*])\*(?=\S)([^*]+)(?<=\S)\*(?![\w*])"), r"\1")]  # *italic*


def exam_section(line: str) -> Optional[tuple[str, str]]:
    """(section heading, rest of the line) when a line starts with an exam section title such as
    ``一、单项选择题``; a short line that is only a title (``二、综合应用题答案``) is all heading."""
    s = line.strip()
    m = EXAM_SECTION.match(s)
    if not m:
        return None
    if len(s) <= 16 and not re.search(r"[。，,；;：:]", s):
        return s, ""
    return m.group(0), s[m.end():].lstrip(" ：:").strip()


def plausible_heading(text: str) -> bool:
    """Whether a short line could be a heading at all: real words (2 CJK characters or 3 letters)
    and not a line of code or a formula. Figure labels (``a``, ``L/2``) and code fail."""
    s = text.strip()
    if _CODE_LIKE.search(s) or not re.match(r"[\w（(【《“\"'\[]", s):
        return False  # code, or starts like a fragment (". Intern.et", "，其出栈序列")
    cjk = len(re.findall(r"[\u4e00-\u9fff]", s))
    letters = len(re.findall(r"[A-Za-z]", s))
    return cjk >= 2 or letters >= 3


def clean_heading(text: str) -> str:
    """A markdown heading's text without inline markup (``==考点==``, ``**粗体**``, links, HTML tags)."""
    s = text
    for rx, repl in _MD_INLINE:
        s = rx.sub(repl, s)
    return re.sub(r"\s+", " ", s).strip() or text.strip()


def title_from_filename(stem: str) -> str:
    """A document title from a file name: a leading ordinal (``7.``, ``3.1``, ``02-``) dropped."""
    t = re.sub(r"^\d{1,2}(?:[.\-_]\d{1,2})*(?:\s*[.\-_、．\s]\s*(?=\D)|(?=[\u4e00-\u9fff]))", "", stem).strip()
    return t or stem


_JUNK_OUTLINE = re.compile(r"^(页面提取自|Pages? (extracted )?from)|\.(pdf|docx?|pptx?)$", re.I)


def usable_outline(toc) -> list[tuple[int, str, int]]:
    """Outline entries worth a heading: not tool leftovers ("页面提取自－…", file names) nor bare
    codes ("FLA"), with a page."""
    out = []
    for level, title, pno in toc:
        t = re.sub(r"\s+", " ", title or "").strip()
        if pno < 1 or not t or _JUNK_OUTLINE.search(t):
            continue
        if not re.search(r"[\u4e00-\u9fff]", t) and len(re.findall(r"[A-Za-z0-9]", t)) <= 3:
            continue
        out.append((level, t, pno))
    return out



# ---------------------------------------------------------------- headings from PDF layout

HEADING_SIZE_RATIO = 1.15  # a line this much larger than body text is a heading candidate
REPEATED_HEADING_PAGES = 3  # the same heading text on this many pages is a running header
SIZE_STEP = 0.6  # font sizes closer than this (points) are one heading level
RANKED = -1  # heading level to be set from the font-size rank (see assign_levels)
# options ("A. 栈"), question numbers with a bracket ("42.【解析】", "41.（10分）"), captions ("图 3.1", "题47-a 图")
_NOT_HEADING = re.compile(r"^([A-D]\s*[.．、]|\d{1,2}\s*[.．、]\s*[【（(\[]|[图表]\s*[\d一二三四五六七八九十]|题\s*\d)")


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


def heading_level(text: str, b: LayoutBlock, body_size: float, pending: list[tuple[int, str]],
                  authoritative: bool, from_ocr: bool) -> Optional[int]:
    """An int level (outline, or numbering on OCR'd text), RANKED when the level comes from the
    font size rank (``b.rank_size``, 0 for a numbered or bold heading at body size), or None.
    Sets ``b.outline`` and ``b.rank_size`` as it decides; removes a matched outline entry from ``pending``."""
    if "\n" in text and (len(text) > 60 or text.count("\n") > 2 or not body_size or from_ocr
                         or b.size < body_size * HEADING_SIZE_RATIO):
        return None  # only a big-type title may run over (up to three) lines
    key = _norm(text)
    for entry in pending:
        if _norm(entry[1]) == key:
            pending.remove(entry)
            b.outline = True
            return entry[0]
    if authoritative or not plausible_heading(text) or _NOT_HEADING.match(text):
        return None  # a rich outline is the authority when present
    num = numbering(text)
    if from_ocr or not body_size:
        return num[1] if num and num[0] in ("chapter", "part", "decimal", "section") else None
    bigger = b.size >= body_size * HEADING_SIZE_RATIO
    if num and (bigger or b.bold or num[0] in ("chapter", "part")):
        b.rank_size = b.size if bigger else 0.0
        return RANKED
    if bigger and len(key) <= (60 if "\n" in text else 30) and key[-1:] not in "。；，：？！":
        b.rank_size = b.size
        return RANKED
    return None


def assign_levels(pages: list[PageLayout]) -> None:
    """Levels for headings found by font size: distinct sizes (within SIZE_STEP) ranked from the
    largest, so a 24 pt title, 22 pt parts and 16 pt sections nest as 1 › 2 › 3; numbered or bold
    headings at body size come one level below the smallest heading size."""
    sizes = sorted({b.rank_size for page in pages for b in page.blocks
                    if b.heading == RANKED and b.rank_size > 0}, reverse=True)
    clusters: list[float] = []
    for size in sizes:
        if not clusters or clusters[-1] - size >= SIZE_STEP:
            clusters.append(size)

    def level(size: float) -> int:
        if size <= 0:
            return len(clusters) + 1
        return 1 + max(i for i, c in enumerate(clusters) if size <= c + 1e-6)

    for page in pages:
        for b in page.blocks:
            if b.heading == RANKED:  # an exam section sits under the paper's title
                b.heading = max(level(b.rank_size), 2 if b.exam else 1)


def drop_repeated_headings(pages: list[PageLayout]) -> None:
    """A heading text found on several pages is a running header or a repeated label, not a heading."""
    found: dict[str, set[int]] = {}
    for page in pages:
        for b in page.blocks:
            if b.heading is not None and not b.outline and not b.exam:
                found.setdefault(_norm(b.text), set()).add(page.number)
    repeated = {k for k, v in found.items() if len(v) >= REPEATED_HEADING_PAGES}
    for page in pages:
        for b in page.blocks:
            if b.heading is not None and not b.outline and _norm(b.text) in repeated:
                b.heading = None


def merge_title_lines(blocks: list[Block]) -> None:
    """A document title set over several lines at the top of the first page ("2017年全国硕士研究生
    招生考试" / "计算机科学与技术学科联考" / "…综合试题") becomes one heading, not three in a row."""
    i = 0
    while i < len(blocks) and blocks[i].band != "body":
        i += 1
    j = i
    while (j + 1 < len(blocks) and blocks[j].kind == blocks[j + 1].kind == "heading" and blocks[j].page == 1
           and blocks[j + 1].page == 1 and not numbering(blocks[j + 1].text)
           and not exam_section(blocks[j + 1].text)):
        j += 1
    if j > i and not numbering(blocks[i].text) and not exam_section(blocks[i].text):
        blocks[i].text = " ".join(b.text for b in blocks[i:j + 1])
        blocks[i].level = min(b.level or 1 for b in blocks[i:j + 1])
        blocks[i].lines = [ln for b in blocks[i:j + 1] for ln in b.lines]
        del blocks[i + 1:j + 1]


class HeadingPath:
    """Keeps the current path of headings as headings of given levels arrive."""

    def __init__(self, root: Optional[list[str]] = None):
        self._stack: list[tuple[int, str]] = []
        self.root = list(root or [])

    def push(self, level: int, title: str) -> list[str]:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        return self.path

    @property
    def path(self) -> list[str]:
        return self.root + [t for _, t in self._stack]
