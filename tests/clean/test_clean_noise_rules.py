"""repeated_bands, pattern_lines, watermark, toc_pages."""

from __future__ import annotations

from pipeline.clean.rules.markup import markup
from pipeline.clean.rules.pattern_lines import pattern_lines
from pipeline.clean.rules.repeated_bands import repeated_bands
from pipeline.text.lines import repeat_key
from pipeline.clean.rules.toc_pages import toc_pages
from pipeline.clean.rules.watermark import strip_watermarks, watermark
from pipeline.models import Block


def framed(n_pages: int, header: str, on_pages=None) -> list[Block]:
    out = []
    for p in range(1, n_pages + 1):
        if on_pages is None or p in on_pages:
            out.append(Block(text=header.format(p=p), page=p, band="top"))
        out.append(Block(text=f"正文第{p}段。", page=p))
    return out


def test_repeat_key_normalises_digits_and_spaces():
    assert repeat_key("第 12 页 共 3 页") == repeat_key("第9页共10页") == "第#页共#页"


def test_repeated_header_removed_on_half_the_pages(make_work, lines_of):
    work = make_work(framed(6, "数据结构复习讲义", on_pages={1, 2, 3}), pages=6)
    repeated_bands(work)
    assert "数据结构复习讲义" not in lines_of(work)
    assert work.removed["repeated_bands"] == 3
    assert len(lines_of(work)) == 6


def test_header_on_too_few_pages_kept(make_work, lines_of):
    work = make_work(framed(8, "第一章 绪论", on_pages={1, 2, 3}), pages=8)  # 3 of 8 < 50%
    repeated_bands(work)
    assert lines_of(work).count("第一章 绪论") == 3


def test_repeat_needs_three_pages(make_work, lines_of):
    work = make_work(framed(2, "讲义"), pages=2)
    repeated_bands(work)
    assert lines_of(work).count("讲义") == 2


def test_repeated_footer_with_changing_number(make_work, lines_of):
    blocks = framed(4, "第 {p} 页")
    for b in blocks:
        if b.band == "top":
            b.band = "bottom"
    work = make_work(blocks, pages=4)
    repeated_bands(work)
    assert lines_of(work) == [f"正文第{p}段。" for p in range(1, 5)]


def test_body_lines_never_removed_by_repetition(make_work, lines_of):
    blocks = [Block(text="栈", page=p) for p in range(1, 5)]
    work = make_work(blocks, pages=4)
    repeated_bands(work)
    assert lines_of(work) == ["栈"] * 4


def test_pattern_lines(make_work, lines_of):
    blocks = [
        Block(text="第 3 页", page=3),
        Block(text="- 3 -", page=3, band="bottom"),
        Block(text="17", page=3, band="bottom"),
        Block(text="17", page=3),  # a bare number in the body is real text
        Block(text="栈是线性表。\n淘宝店铺：【考研党之家】全套资料\n王道论坛 www.cskaoyan.com", page=3),
        Block(text="第3页的例题说明了这一点。", page=3),
        Block(text="绝密★启用前", page=1, band="top"),
        Block(text="第1页(共2页)\n第 2 页（共 2 页）", page=3),  # an OCR'd paper's footers
    ]
    work = make_work(blocks, pages=3)
    pattern_lines(work)
    assert lines_of(work) == ["17", "栈是线性表。", "第3页的例题说明了这一点。"]
    assert work.removed["pattern_lines"] == 8


def test_pattern_lines_leave_code_alone(make_work, lines_of):
    work = make_work([Block(kind="code", text="第 3 页")])
    pattern_lines(work)
    assert lines_of(work) == ["第 3 页"]


def test_strip_watermarks():
    marks = ["王道考研"]
    assert strip_watermarks("栈是王道考研一种线性表", marks) == "栈是 一种线性表"
    assert strip_watermarks("王道考研 王道考研", marks) == ""
    assert strip_watermarks("王", marks) == ""
    assert strip_watermarks("道 考", marks) == ""
    assert strip_watermarks("王后问题", marks) == "王后问题"  # real text with a watermark character stays
    assert strip_watermarks("研究", marks) == "研究"


def test_watermark_rule(make_work, lines_of):
    blocks = [Block(text="王\n栈是一种线性表。\n道"), Block(text="考"), Block(text="研"),
              Block(text="八王后问题 王道考研")]
    work = make_work(blocks, watermarks=["王道考研"])
    watermark(work)
    assert lines_of(work) == ["栈是一种线性表。", "八王后问题"]
    assert work.removed["watermark"] == 4


def test_shipped_watermark(make_work, lines_of, rules):
    assert rules.watermarks == ["研芝士计算机考研"]  # the diagonal watermark of the 2023 paper and answers
    work = make_work([Block(text="研芝士计算机考研\n水印之间的正文。\n研芝士计算机考研【解析】略。\n研")])
    watermark(work)
    assert lines_of(work) == ["水印之间的正文。", "【解析】略。"]


def test_toc_page_with_title_dropped(make_work, lines_of):
    blocks = [Block(kind="heading", text="目 录", page=2),
              Block(text="第一章 绪论 ........ 1\n第二章 线性表 ........ 9", page=2),
              Block(text="2.1 线性表的定义 ...... 9\n2.2 顺序表 ...... 12", page=3),
              Block(text="2.3 链表 27", page=3),
              Block(text="正文从这里开始。", page=4)]
    work = make_work(blocks, pages=4)
    toc_pages(work)
    assert lines_of(work) == ["正文从这里开始。"]
    assert work.removed["toc_pages"] == 6


def test_toc_title_as_first_body_line_under_a_running_header(make_work, lines_of):
    blocks = [Block(text="数据结构复习讲义", page=2, band="top"), Block(text="目录\n第一章 绪论", page=2),
              Block(text="正文。", page=3)]
    work = make_work(blocks, pages=3)
    toc_pages(work)
    assert lines_of(work) == ["正文。"]


def test_page_with_few_leaders_kept(make_work, lines_of):
    text = "栈的定义见下文。\n栈是只允许在一端插入的线性表。\n顺序栈 ...... 12\n队列是另一种线性表。"
    work = make_work([Block(text=text, page=5)], pages=5)
    toc_pages(work)
    assert len(lines_of(work)) == 4


def test_markdown_toc_heading_and_its_list_dropped(make_work, lines_of):
    blocks = [Block(kind="heading", text="目录", chapter_path=["笔记", "目录"]),
              Block(text="- [栈](#栈)\n- [队列](#队列)", chapter_path=["笔记", "目录"]),
              Block(kind="heading", text="栈", chapter_path=["笔记", "栈"]),
              Block(text="栈是线性表。", chapter_path=["笔记", "栈"])]
    work = make_work(blocks, kind="note")
    toc_pages(work)
    assert lines_of(work) == ["栈", "栈是线性表。"]


def test_toc_title_in_running_text_does_not_drop_page(make_work, lines_of):
    blocks = [Block(text="文件系统通过目录管理文件。", page=7), Block(text="目录", page=7)]
    work = make_work(blocks, pages=7)
    toc_pages(work)
    assert len(lines_of(work)) == 2


def test_markup_images_and_html(make_work, lines_of):
    blocks = [Block(text="![系统层次](.\\imgs-OS\\1系统层次.png)\n![image-20240729175204777](./imgs/a.png)\n"
                         '<div align="center"> <img src="https://x/a.png" width="500"/> </div><br>\n'
                         '2<sup>10</sup>B，P<sub>1</sub>，<span style="color:orange">重点</span>，<u>异或</u>\n'
                         '<img src="./1.png" alt="1主存储器" style="zoom:50%;" />\nif (x<p && y>0) 外存->内存'),
              Block(kind="code", text="#include <stdio.h>\n<div>不动</div>")]
    work = make_work(blocks)
    markup(work)
    assert lines_of(work) == ["系统层次", "2^10B，P1，重点，异或", "1主存储器", "if (x<p && y>0) 外存->内存",
                              "#include <stdio.h>\n<div>不动</div>"]
    assert work.removed["markup"] == 2


def test_page_footer_with_running_title_and_bullets(make_work, lines_of):
    blocks = [Block(text="2021年计算机408统考真题第 9 页，共9 页 · 009·\n• 003 •\n第2页是本讲的重点，要记住。", page=9)]
    work = make_work(blocks)
    pattern_lines(work)
    assert lines_of(work) == ["第2页是本讲的重点，要记住。"]

