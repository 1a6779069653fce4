"""The bad-input zoo: hostile or broken files a student's ``data/raw`` really contains, written at test
time (nothing binary is committed). ``make_zoo(dir)`` writes every case and returns ``{case: path}``.

Each text case carries a marker phrase (``MARKERS``) that must come out of the pipeline intact, so a
test can check the right bytes were decoded, not just that "something" was indexed.
"""

from __future__ import annotations

import os
from pathlib import Path

PASSWORD = "s3cret-密码"
MARKERS = {
    "gbk": "哈希表用开放定址法解决冲突",
    "gb18030": "生僻字㐀䶵与欧元符号€都能表示",
    "utf16": "页表把逻辑页号映射为物理块号",
    "utf8_bom": "带BOM的笔记讲滑动窗口协议",
    "names": "文件名带空格中文和表情也能入库",
    "dup": "同一个文件两个名字只入库一次",
    "one_line": "第{i}条：顺序栈入栈前先判断栈满，出栈前先判断栈空。",
    "encrypted": "加密讲义里的内容：快表TLB缓存页表项",
    "broken_xref": "交叉引用表损坏的讲义：二叉排序树的中序遍历有序",
    "huge_image": "整页图片扫描",
    "partial_scan": "第一页可读的讲义：图的广度优先遍历借助队列",
    "truncated": "截断前的内容：图的深度优先遍历借助栈",
}

ONE_LINE_BYTES = 1_000_000


def text_pdf(pages: list[str], **save) -> bytes:
    """A text-layer PDF, one string per page (CJK via PyMuPDF's built-in china-s font)."""
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 520, 770), text, fontname="china-s", fontsize=12)
    data = doc.tobytes(**save)
    doc.close()
    return data


def encrypted_pdf() -> bytes:
    """AES-256, opened only with ``PASSWORD``."""
    return text_pdf(["第五章 内存管理\n" + MARKERS["encrypted"] + "。"], encryption=4, user_pw=PASSWORD, owner_pw="owner")


def zero_page_pdf() -> bytes:
    """PyMuPDF refuses to save a document without pages, so the bytes are written by hand."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def broken_xref_pdf() -> bytes:
    """A good PDF whose xref offsets and startxref all point to the wrong bytes (PyMuPDF repairs it)."""
    data = text_pdf(["第一章 树\n" + MARKERS["broken_xref"] + "。" * 3])
    head, sep, tail = data.rpartition(b"\nxref\n")
    lines = tail.split(b"\n")
    for i, line in enumerate(lines):
        if len(line) >= 18 and line[:10].isdigit() and line.endswith(b" n "):
            lines[i] = b"%010d" % (int(line[:10]) + 37) + line[10:]
    start = lines.index(b"startxref")
    lines[start + 1] = b"%d" % (int(lines[start + 1]) + 11)
    return head + sep + b"\n".join(lines)


def huge_image_pdf() -> bytes:
    """One A4 page that is a single 600-dpi grayscale scan (~35 megapixels) with printed text on it."""
    import pymupdf

    text = "第三章 存储管理\n" + MARKERS["huge_image"] + "\n" + "虚拟存储器基于局部性原理。\n" * 3
    src = pymupdf.open("pdf", text_pdf([text]))
    pix = src[0].get_pixmap(dpi=600, colorspace=pymupdf.csGRAY)
    png = pix.tobytes("png")
    src.close()
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_image(page.rect, stream=png)
    data = doc.tobytes(deflate=True)
    doc.close()
    return data


def partial_scan_pdf() -> bytes:
    """Page 1 has a text layer; page 2 is a blank scan, so OCR finds nothing there."""
    import pymupdf

    doc = pymupdf.open("pdf", text_pdf(["第四章 图\n" + MARKERS["partial_scan"] + "。" * 3]))
    page = doc.new_page()
    page.insert_image(page.rect, stream=blank_png())
    data = doc.tobytes()
    doc.close()
    return data


def blank_png() -> bytes:
    import pymupdf

    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 800, 600), False)
    pix.set_rect(pix.irect, (255, 255, 255))
    return pix.tobytes("png")


def one_line_text() -> bytes:
    parts, size, i = [], 0, 0
    while size < ONE_LINE_BYTES:
        i += 1
        s = MARKERS["one_line"].format(i=i).encode("utf-8")
        parts.append(s)
        size += len(s)
    return b"".join(parts)[:ONE_LINE_BYTES].decode("utf-8", "ignore").encode("utf-8")


def note(title: str, marker: str) -> str:
    return f"# {title}\n\n## 要点\n\n{marker}。这是一段用于测试的复习笔记。\n"


CASES = ("empty", "truncated", "broken_xref", "encrypted", "zero_pages", "blank_image", "huge_image", "junk_md",
         "one_line", "gbk", "gb18030", "utf16", "utf8_bom", "symlink_loop", "dir_loop", "fifo", "dup_a", "dup_b",
         "names", "partial_scan", "unsupported", "office_lock")


def make_zoo(root: Path) -> dict[str, Path]:
    """Write every case under ``root`` (created); returns case name -> path."""
    root.mkdir(parents=True, exist_ok=True)
    p = {
        "empty": root / "empty.pdf",
        "truncated": root / "truncated.pdf",
        "broken_xref": root / "broken_xref.pdf",
        "encrypted": root / "encrypted.pdf",
        "zero_pages": root / "zero_pages.pdf",
        "blank_image": root / "blank.png",
        "huge_image": root / "huge_image_page.pdf",
        "junk_md": root / "junk.md",
        "one_line": root / "one_line.txt",
        "gbk": root / "gbk.txt",
        "gb18030": root / "gb18030.txt",
        "utf16": root / "utf16.txt",
        "utf8_bom": root / "utf8_bom.md",
        "symlink_loop": root / "loop_a.md",
        "dir_loop": root / "sub" / "up",
        "fifo": root / "fifo.pdf",
        "dup_a": root / "dup_a.md",
        "dup_b": root / "sub" / "dup copy.md",
        "names": root / "我的 笔记 📚 final v2.md",
        "partial_scan": root / "partial_scan.pdf",
        "unsupported": root / "lecture.doc",
        "office_lock": root / "~$lecture.docx",
    }
    good = text_pdf(["第一章 绪论\n" + MARKERS["truncated"] + "。" + "数据结构研究数据的逻辑结构和存储结构。" * 8,
                     "第二章 线性表\n" + "顺序表支持随机存取。" * 8, "第三章 栈\n" + "栈是后进先出的线性表。" * 8])
    p["empty"].write_bytes(b"")
    p["truncated"].write_bytes(good[: len(good) * 7 // 10])  # pages 1-2 survive, page 3's content is cut off
    p["broken_xref"].write_bytes(broken_xref_pdf())
    p["encrypted"].write_bytes(encrypted_pdf())
    p["zero_pages"].write_bytes(zero_page_pdf())
    p["blank_image"].write_bytes(blank_png())
    p["huge_image"].write_bytes(huge_image_pdf())
    p["junk_md"].write_bytes(bytes(range(256)) * 64)
    p["one_line"].write_bytes(one_line_text())
    p["gbk"].write_bytes(("第一章 散列\n" + MARKERS["gbk"] + "。\n").encode("gbk"))
    p["gb18030"].write_bytes(("第一章 编码\n" + MARKERS["gb18030"] + "。\n").encode("gb18030"))
    p["utf16"].write_bytes(("第一章 分页\n" + MARKERS["utf16"] + "。\n").encode("utf-16"))  # with BOM, as Notepad saves
    p["utf8_bom"].write_bytes(note("计算机网络", MARKERS["utf8_bom"]).encode("utf-8-sig"))
    os.symlink("loop_b.md", root / "loop_a.md")
    os.symlink("loop_a.md", root / "loop_b.md")
    p["dir_loop"].parent.mkdir(exist_ok=True)
    os.symlink("..", p["dir_loop"])
    os.mkfifo(p["fifo"])
    p["dup_a"].write_text(note("查找", MARKERS["dup"]), encoding="utf-8")
    p["dup_b"].write_bytes(p["dup_a"].read_bytes())
    p["names"].write_text(note("操作系统", MARKERS["names"]), encoding="utf-8")
    p["partial_scan"].write_bytes(partial_scan_pdf())
    p["unsupported"].write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))  # old Word (OLE2) header
    p["office_lock"].write_bytes(b"\x05user" + bytes(157))
    return p


def corpus(raw: Path) -> Path:
    """Three notes and one long text (~200 chunks, so embedding takes several batches of 64)."""
    raw.mkdir(parents=True, exist_ok=True)
    (raw / "a.md").write_text("# 查找\n\n## 折半查找\n\n折半查找要求顺序存储且有序，时间复杂度为O(log2 n)。\n", "utf-8")
    (raw / "b.md").write_text("# 排序\n\n## 快速排序\n\n快速排序平均时间复杂度为O(nlog2 n)，是不稳定的排序方法。\n", "utf-8")
    (raw / "c.md").write_text("# 图\n\n## 遍历\n\n广度优先遍历借助队列，深度优先遍历借助栈。\n", "utf-8")
    body = "".join(f"第{i}段：页式存储管理把逻辑地址划分为页号和页内偏移，页表记录页号到物理块号的映射。"
                   for i in range(2200))
    (raw / "long.txt").write_text("第一章 存储管理\n" + body + "\n", "utf-8")
    return raw
