"""The Anki export: a zip whose collection sqlite3 reads, the expected notes, GUIDs stable across two
exports, and a question's figure as the crop of its page."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

from study_helpers import choice

from pipeline.hashing import sha256_file
from pipeline.store import DocEntry, Manifest, Store
from pipeline.study.anki import write_deck
from pipeline.study.models import Figure


def read_deck(path: Path, tmp: Path) -> tuple[list[tuple], dict, zipfile.ZipFile]:
    z = zipfile.ZipFile(path)
    out = tmp / f"{path.stem}.anki2"
    out.write_bytes(z.read("collection.anki2"))
    db = sqlite3.connect(out)
    notes = db.execute("SELECT guid, mid, flds, tags FROM notes ORDER BY guid").fetchall()
    models = json.loads(db.execute("SELECT models FROM col").fetchone()[0])
    return notes, models, z


def test_two_exports_have_the_same_notes_and_guids(study, tmp_path):
    made = study.make_cards("查找").made
    first = study.export_anki(tmp_path / "a.apkg", chapter="查找")
    second = study.export_anki(tmp_path / "b.apkg", chapter="查找")
    assert first["questions"] == second["questions"] == 3 and first["cards"] == len(made)
    a, models, _ = read_deck(tmp_path / "a.apkg", tmp_path)
    b, _, _ = read_deck(tmp_path / "b.apkg", tmp_path)
    assert len(a) == 3 + len(made)
    assert [(g, m, f) for g, m, f, _ in a] == [(g, m, f) for g, m, f, _ in b]  # same guids, note types, fields
    names = {m["name"] for m in models.values()}
    assert {"examrag 真题 v1", "examrag 卡片 v1", "examrag 填空 v1"} <= names
    fields = [f.split("\x1f") for _, _, f, _ in a]
    question = next(f for f in fields if f[0] == "2024-1")
    assert "对长度为15的有序顺序表进行折半查找" in question[1] and "<br>B. 4" in question[1]
    assert question[3] == "B" and "判定树" in question[4] and question[6].startswith("[来源: 2024年计算机专业基础综合模拟卷_参考答案")
    assert "对应章节：第七章 查找 › 7.2 折半查找" in question[7]
    cloze = [f for f in fields if "{{c1::" in f[0]]
    assert cloze and all(f[1].startswith("[来源: 第七章 查找") for f in cloze)
    tags = {t.strip() for _, _, _, t in a}
    assert "examrag::第七章_查找::7.2_折半查找" in " ".join(tags)
    more = study.make_cards("排序").made  # a third export with more cards keeps the first notes' guids
    third = study.export_anki(tmp_path / "c.apkg")
    c, _, _ = read_deck(tmp_path / "c.apkg", tmp_path)
    assert {g for g, *_ in a} <= {g for g, *_ in c} and third["cards"] == len(made) + len(more)
    assert third["questions"] == 8


def test_a_figure_goes_in_as_the_crop_of_its_page(tmp_path):
    import fitz

    pdf = tmp_path / "paper.pdf"
    doc = fitz.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((60, 100), "3. figure question", fontsize=12)
    page.draw_rect(fitz.Rect(100, 130, 300, 260), color=(0, 0, 0), width=2)
    page.insert_text((60, 400), "4. next question", fontsize=12)
    doc.save(pdf)
    doc_id = sha256_file(pdf)[:16]
    store = Store(tmp_path / "data")
    store.save_manifest(Manifest(documents={doc_id: DocEntry(doc_id=doc_id, sources=[str(pdf)], raw_hash=doc_id)}))
    q = choice(3).model_copy(update={"figure": Figure(doc_id=doc_id, page=1, x0=0, y0=85, x1=-1, y1=385)})
    lost = choice(4).model_copy(update={"figure": Figure(doc_id="0" * 16, page=1, x0=0, y0=85, x1=-1, y1=385)})
    out = write_deck(tmp_path / "fig.apkg", [q, lost], [], deck_name="t", store=store)
    assert out["figures"] == 1 and out["figures_missing"] == ["2024-4"]
    notes, _, z = read_deck(tmp_path / "fig.apkg", tmp_path)
    assert json.loads(z.read("media")) == {"0": "examrag-2024-3-figure.png"}
    png = z.read("0")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pix = fitz.Pixmap(png)
    assert abs(pix.width - (595 - 36) * 150 / 72) < 3 and abs(pix.height - 300 * 150 / 72) < 3  # 150 dpi crop
    fields = {f.split("\x1f")[0]: f.split("\x1f") for _, _, f, _ in notes}
    assert fields["2024-3"][2] == '<img src="examrag-2024-3-figure.png">' and fields["2024-4"][2] == ""
    pdf.write_bytes(pdf.read_bytes() + b"\n% edited")  # an edited original gives no crop, never a wrong one
    assert write_deck(tmp_path / "fig2.apkg", [q], [], deck_name="t", store=store)["figures_missing"] == ["2024-3"]
