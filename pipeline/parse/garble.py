"""Decide, per PDF page, whether the text layer can be trusted.

Verdicts: ``good`` (use the text layer), ``missing`` (too little text, or only text repeated on
most pages such as a seller's footer, while the page shows something OCR can read: an image, or
glyphs drawn as vector paths: OCR it), ``garbled`` (text is mojibake, glyph junk or not the
expected language: OCR it). Thresholds that are settings:

- ``garble_min_chars`` (20): fewer non-space characters than this counts as no text.
- ``garble_max_bad_ratio`` (0.1): share of U+FFFD, private-use and control characters. The
  private-use range U+F020–U+F0FF is not counted: Word's symbol fonts (Symbol, Wingdings) put
  their glyphs there, e.g. the big brackets of a matrix or arrows on a page of good Chinese text.
- ``garble_min_cjk_ratio`` (0.2): share of CJK among letters, for documents expected in Chinese.
  Catches Latin-1 mojibake (``¼ÆËã»ú``) and layers where only Latin letters and digits extract.

Fixed signals (module constants, measured on the 408 corpus, see bench/reports/parse.py):

- ``MIN_COMMON_CJK`` (0.8): share of CJK characters that are common characters (GB2312, or Big5
  level 1 for traditional text). Real pages: ≥ 0.998; UTF-8 or GBK bytes read in the wrong
  encoding (``鎶樺崐鏌ユ壘``) or a wrong CID→Unicode map give valid but rare characters: ≈ 0.35.
- ``MAX_ACCENTED_RATIO`` (0.3): share of letters from Latin-1/Latin Extended (``ÆËãú``): Latin-1
  mojibake, also in documents not expected to be Chinese. French or German text stays below 0.1.
- ``MAX_SYMBOL_RATIO`` (0.5): a page made mostly of symbol-font glyphs is glyph junk after all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.text.lines import repeat_key

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_SYMBOL_PUA = re.compile(r"[\uf020-\uf0ff]")
_BAD = re.compile(r"[\ufffd\ue000-\uf01f\uf100-\uf8ff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_ACCENTED = re.compile(r"[\u00c0-\u024f]")

MIN_COMMON_CJK = 0.8
MIN_CJK_FOR_COMMON_CHECK = 20  # judge the common-character share only with this many CJK characters
MAX_ACCENTED_RATIO = 0.3
MIN_LETTERS_FOR_ACCENTED_CHECK = 20
MAX_SYMBOL_RATIO = 0.5


@dataclass(frozen=True)
class GarbleThresholds:
    min_chars: int = 20
    max_bad_ratio: float = 0.1
    min_cjk_ratio: float = 0.2


@dataclass(frozen=True)
class TextStats:
    chars: int  # non-space characters
    letters: int
    bad_ratio: float  # U+FFFD, private use (outside the symbol-font range), controls
    symbol_ratio: float  # symbol-font private-use glyphs (U+F020–U+F0FF)
    cjk: int
    cjk_ratio: float  # CJK among letters
    common_cjk: float  # common characters among CJK (1.0 when there is no CJK)
    accented_ratio: float  # Latin-1 / Latin Extended letters among letters


def _is_common(ch: str) -> bool:
    """In GB2312 (6763 common simplified characters) or Big5 level 1 (5401 common traditional)."""
    try:
        ch.encode("gb2312")
        return True
    except UnicodeEncodeError:
        pass
    try:
        b = ch.encode("big5")
    except UnicodeEncodeError:
        return False
    return len(b) == 2 and 0xA440 <= (b[0] << 8 | b[1]) <= 0xC67E


def text_stats(text: str) -> TextStats:
    compact = re.sub(r"\s+", "", text)
    n = len(compact)
    if n == 0:
        return TextStats(0, 0, 0.0, 0.0, 0, 0.0, 1.0, 0.0)
    letters = _LETTER.findall(compact)
    cjk_chars = _CJK.findall(compact)
    common = sum(map(_is_common, cjk_chars)) / len(cjk_chars) if cjk_chars else 1.0
    return TextStats(
        chars=n,
        letters=len(letters),
        bad_ratio=len(_BAD.findall(compact)) / n,
        symbol_ratio=len(_SYMBOL_PUA.findall(compact)) / n,
        cjk=len(cjk_chars),
        cjk_ratio=len(cjk_chars) / len(letters) if letters else 0.0,
        common_cjk=common,
        accented_ratio=len(_ACCENTED.findall(compact)) / len(letters) if letters else 0.0,
    )


def judge_page(text: str, *, has_image: bool, expect_cjk: bool, th: GarbleThresholds) -> tuple[str, str]:
    """(verdict, reason) for one page's text layer (boilerplate already removed).

    ``has_image``: the page shows something OCR could read (an image, or vector-drawn glyphs)."""
    s = text_stats(text)
    if s.chars < th.min_chars:
        if has_image:
            return "missing", f"{s.chars} chars of text on a page with images or drawn glyphs"
        return "good", f"{s.chars} chars and nothing else to read (blank page)"
    if s.bad_ratio > th.max_bad_ratio:
        return "garbled", f"{s.bad_ratio:.0%} replacement/private-use/control chars"
    if s.symbol_ratio > MAX_SYMBOL_RATIO:
        return "garbled", f"{s.symbol_ratio:.0%} symbol-font glyphs"
    if s.cjk >= MIN_CJK_FOR_COMMON_CHECK and s.common_cjk < MIN_COMMON_CJK:
        return "garbled", f"only {s.common_cjk:.0%} of CJK chars are common ones (wrong encoding)"
    if s.accented_ratio > MAX_ACCENTED_RATIO and s.letters >= MIN_LETTERS_FOR_ACCENTED_CHECK:
        return "garbled", f"{s.accented_ratio:.0%} of letters are Latin-1/extended (mojibake)"
    if expect_cjk and s.cjk_ratio < th.min_cjk_ratio:
        return "garbled", f"CJK share of letters {s.cjk_ratio:.0%} < {th.min_cjk_ratio:.0%}"
    return "good", "text layer readable"


def classify_page(text: str, *, has_image: bool, expect_cjk: bool, th: GarbleThresholds) -> str:
    """Return good / missing / garbled for one page's text layer (boilerplate already removed)."""
    return judge_page(text, has_image=has_image, expect_cjk=expect_cjk, th=th)[0]


# Chinese/Japanese/Korean font families and CJK CMaps (a Latin font such as "Century Gothic" must not match)
_CJK_FONT = re.compile(
    r"sim(sun|hei|kai|fang|li|you)|fangsong|kaiti|heiti|songti|adobe ?(song|heiti|kaiti|fangsong|ming)"
    r"|^st(song|heiti|kaiti|fangsong|xihei|xinwei|zhongsong|caiyun|hupo|liti|xingkai)|^fz|yahei|dengxian"
    r"|mingliu|mincho|ms ?p?gothic|yu ?gothic|meiryo|malgun|batang|gulim|dotum|source ?han|noto ?\w* ?cjk"
    r"|wenquanyi|wqy|droid ?sans ?fallback|arial ?unicode|gb2312|gbk|big5|uni(gb|cns|jis|ks)|^(gb|b5|ksc?)[-_]",
    re.I)


def _cjk_font(name: str, encoding: str) -> bool:
    name = re.sub(r"^[A-Z]{6}\+|^\*", "", name)
    try:  # names written in GBK but read as Latin-1, e.g. "ËÎÌå" = 宋体
        name += " " + name.encode("latin-1").decode("gbk")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    return bool(_CJK_FONT.search(name) or _CJK_FONT.search(encoding or "")
                or re.search(r"[\u4e00-\u9fff]", name))


def expects_cjk(doc, raw: list[str], source: str) -> bool:
    """Whether this document is Chinese: its file name or title, its text, or its fonts say so."""
    if re.search(r"[\u4e00-\u9fff]", Path(source).name + ((doc.metadata or {}).get("title") or "")):
        return True
    if any(len(re.findall(r"[\u4e00-\u9fff]", t)) > 30 for t in raw):
        return True
    for i in range(min(doc.page_count, 20)):
        if any(_cjk_font(f[3], f[5]) for f in doc[i].get_fonts()):
            return True
    return False


def repeated_lines(pages: list[str], min_share: float = 0.5) -> set[str]:
    """Lines (digits normalised) present on at least ``min_share`` of pages (min 2): boilerplate."""
    if len(pages) < 2:
        return set()
    counts: dict[str, int] = {}
    for text in pages:
        for key in {repeat_key(l) for l in text.splitlines() if l.strip()}:
            counts[key] = counts.get(key, 0) + 1
    need = max(2, int(len(pages) * min_share + 0.999))
    return {k for k, c in counts.items() if c >= need}


def strip_lines(text: str, boiler: set[str]) -> str:
    return "\n".join(l for l in text.splitlines() if repeat_key(l) not in boiler)
