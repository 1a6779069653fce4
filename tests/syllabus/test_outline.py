"""The syllabus reader on our own lines that reproduce what real 考试大纲 files do: PyMuPDF's spaces,
cut-off items, mixed numbering, page footers between an item and its children, a 考查目标 list."""

from __future__ import annotations

import pytest

from pipeline.syllabus.outline import normalise, read_outline
from pipeline.syllabus.rules import load_rules, name_variants
from pipeline.syllabus.sources import SyllabusError, read_file, read_yaml_tree

pytestmark = pytest.mark.timeout(30)

# our own text, laid out the way a PDF syllabus extracts: title block, exam structure (numbered 一、二、 too,
# before any subject: not part of the tree), then subjects with a 考查目标 list numbered 1. 2.
LINES = """- 1 -
408 计算机专业基础考试大纲（练习）
I 考试性质
一、试卷满分及考试时间
本试卷满分为150 分。
二、答题方式
IV 考查内容
数据结构
【考查目标】
1.掌握常用数据结构的逻辑结构与存储结构，能够对算法进行基本
的时间复杂度分析。
2.能够用C 语言实现算法。
一、线性表
(一)线性表的基本概念
(二)线性表的实现
1.顺序存储
2.链式存储
二、查找
(一)顺序查找法
(二)折半查找法
- 2 -
(三)B 树及其基本操作、B+树的基本概念
(四)散列(Hash)表
计算机组成原理
【考查目标】
- 3 -
1.理解计算机各部件的工作原理。
一、中央处理器（CPU）
(一)指令流水线
1、指令流水线的基本概
2、超标量和动态流水线的基本概念
(二)控制器的功能
1、微程序控制器
微程序、微指令和微命令;微指令的编码方式;微地址的
- 4 -
形成方式。
二、存储器层次结构
(一) 高速缓冲存储器(Cache)
（二）虚拟存储器
1.TLB(快表)
V 附录
一、不属于考纲的内容
""".splitlines()


@pytest.fixture(scope="module")
def rules():
    return load_rules()


@pytest.fixture(scope="module")
def tree(rules):
    return read_outline(LINES, rules)


def headings(node):
    return [c.heading for c in node.children]


def test_subjects_and_chapters_in_order(tree):
    assert [s.title for s in tree] == ["数据结构", "计算机组成原理"]
    assert headings(tree[0]) == ["一、线性表", "二、查找"]
    assert headings(tree[1]) == ["一、中央处理器(CPU)", "二、存储器层次结构"]  # full-width brackets made half-width


def test_exam_structure_and_objectives_are_not_items(tree):
    titles = [n.title for s in tree for n in s.children]
    assert "试卷满分及考试时间" not in titles and not any("掌握" in t or "理解" in t for t in titles)
    assert all(not s.notes for s in tree)  # the 考查目标 block is skipped, not kept as notes


def test_footer_between_an_item_and_its_children_is_dropped(tree):
    search = tree[0].children[1]
    assert headings(search) == ["(一)顺序查找法", "(二)折半查找法", "(三)B树及其基本操作、B+树的基本概念", "(四)散列(Hash)表"]
    assert not any("-" in n.heading for s in tree for n in s.children for n in [n] + n.children)


def test_pymupdf_spaces_next_to_chinese_are_removed(tree):
    b_tree = tree[0].children[1].children[2]
    assert b_tree.title == "B树及其基本操作、B+树的基本概念"
    assert tree[1].children[1].children[0].heading == "(一)高速缓冲存储器(Cache)"


def test_mixed_numbering_makes_levels_by_order_of_appearance(tree):
    cpu = tree[1].children[0]
    assert [n.level for n in (cpu, cpu.children[0], cpu.children[0].children[0])] == [1, 2, 3]
    assert headings(cpu.children[0]) == ["1、指令流水线的基本概", "2、超标量和动态流水线的基本概念"]  # 1、 like 1.
    memory = tree[1].children[1]
    assert headings(memory) == ["(一)高速缓冲存储器(Cache)", "(二)虚拟存储器"]  # （二） and (一) one style
    assert headings(memory.children[1]) == ["1.TLB(快表)"]


def test_cut_off_item_is_kept_and_not_joined_to_the_next(tree):
    first = tree[1].children[0].children[0].children[0]
    assert first.title == "指令流水线的基本概" and not first.notes


def test_description_lines_are_notes_and_wrap_across_a_footer(tree):
    micro = tree[1].children[0].children[1].children[0]
    assert micro.title == "微程序控制器"
    assert micro.notes == "微程序、微指令和微命令;微指令的编码方式;微地址的形成方式。"


def test_the_next_part_ends_the_content(tree):
    assert all("不属于" not in n.title for s in tree for n in s.children)


def test_ids_are_content_addressed_and_stable(rules, tree):
    again = read_outline(LINES, rules)
    assert [n.node_id for s in again for n in s.children] == [n.node_id for s in tree for n in s.children]
    edited = read_outline([ln.replace("散列(Hash)表", "散列表") for ln in LINES], rules)
    assert edited[0].children[0].node_id == tree[0].children[0].node_id  # other nodes keep their ids
    assert edited[0].children[1].children[3].node_id != tree[0].children[1].children[3].node_id


def test_markdown_headings_and_bullets_without_numbering(rules):
    md = "# 我的考纲\n\n## 数据结构\n\n### 查找\n\n- 折半查找\n- 散列表\n  - 冲突处理\n\n### 排序\n\n- 快速排序\n"
    tree = read_outline(md.splitlines(), rules)
    assert [s.title for s in tree] == ["数据结构"]
    assert headings(tree[0]) == ["查找", "排序"]
    assert headings(tree[0].children[0]) == ["折半查找", "散列表"]
    assert headings(tree[0].children[0].children[1]) == ["冲突处理"]


def test_a_subject_of_another_exam_is_a_short_line_before_its_objectives(rules):
    tree = read_outline(["高等数学", "【考查目标】", "1.理解极限的概念。", "一、函数与极限", "(一)数列的极限"], rules)
    assert [s.title for s in tree] == ["高等数学"] and headings(tree[0]) == ["一、函数与极限"]


def test_yaml_syllabus(rules, tmp_path):
    path = tmp_path / "syllabus.yaml"
    path.write_text("数据结构:\n  五、查找:\n    - (二)顺序查找法\n    - (四)折半查找法: [判定树, 平均查找长度]\n"
                    "  排序:\n    notes: 内部排序为主\n    快速排序: null\nOS:\n  - 进程管理\n", encoding="utf-8")
    s = read_file(path, rules)
    assert s.format == "yaml" and [x.title for x in s.subjects] == ["数据结构", "操作系统"]  # OS is an alias
    search = s.subjects[0].children[0]
    assert (search.heading, search.title) == ("五、查找", "查找")
    assert headings(search.children[1]) == ["判定树", "平均查找长度"]
    sort = s.subjects[0].children[1]
    assert sort.notes == "内部排序为主" and headings(sort) == ["快速排序"]
    assert s.content_hash and s.counts() == {"subject": 2, "chapter": 3, "section": 3, "point": 2}


def test_bad_syllabus_files_are_one_line_errors(rules, tmp_path):
    bad = tmp_path / "syllabus.yaml"
    bad.write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(SyllabusError, match="syllabus.yaml: not a syllabus YAML"):
        read_file(bad, rules)
    empty = tmp_path / "syllabus.md"
    empty.write_text("# 只是笔记\n\n没有科目。\n", encoding="utf-8")
    with pytest.raises(SyllabusError, match="no subject with chapters"):
        read_file(empty, rules)
    with pytest.raises(SyllabusError):
        read_yaml_tree({}, rules)


def test_normalise_and_name_variants(rules):
    assert normalise("(五)B 树 及其基本操作") == "(五)B树及其基本操作"
    assert normalise("（二） IPv4 分组") == "(二) IPv4分组"  # a space between two ASCII characters stays…
    ipv4 = read_outline(["计算机网络", "一、网络层", "（二） IPv4 分组"], rules)[0].children[0].children[0]
    assert (ipv4.heading, ipv4.title) == ("(二)IPv4分组", "IPv4分组")  # …but not after an item's numbering
    assert name_variants("栈、队列和数组", rules)[1:] == ["栈", "队列", "数组"]
    assert "散列表" in name_variants("散列(Hash)表", rules)
    assert name_variants("线性表的定义和基本操作", rules)[1:] == ["线性表"]  # 基本操作 alone names nothing
