"""Export to Anki (genanki): past-paper questions and cards as one deck, re-exportable.

Stable identities, so importing a re-export updates notes instead of adding copies:
* a note's GUID is ``genanki.guid_for("examrag", item_id)``: a question's id is its year and number,
  a card's the hash of its content;
* the deck and note-type ids are fixed numbers derived from their names (``stable_id``), so Anki
  sees the same deck and note types each time; a note type that changes its fields gets a new name.

A question whose stem points at a figure carries the crop of its page as media (figures.py), named
after the question, so a re-export replaces the picture too.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import os
import re
import sqlite3
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Optional

import genanki

from pipeline.store import Store, fsync_dir
from pipeline.study.figures import figure_png
from pipeline.study.models import CardItem, QuestionItem

CSS = ".card { font-family: sans-serif; font-size: 18px; text-align: left; }\n.cite { color: #777; font-size: 13px; }\n"


def stable_id(name: str) -> int:
    """A positive 31-bit id for a deck or note type, the same for the same name."""
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) & 0x7FFFFFFF


QUESTION = genanki.Model(
    stable_id("examrag question v1"), "examrag 真题 v1",
    fields=[{"name": n} for n in ("Id", "Question", "Figure", "Answer", "Analysis", "Scoring", "Citation", "Sections")],
    templates=[{"name": "真题", "qfmt": "{{Question}}{{#Figure}}<br>{{Figure}}{{/Figure}}",
                "afmt": "{{FrontSide}}<hr id=answer>答案：{{Answer}}<br>{{#Analysis}}解析：{{Analysis}}<br>{{/Analysis}}"
                        "{{#Scoring}}评分说明：{{Scoring}}<br>{{/Scoring}}<div class=cite>{{Citation}}<br>{{Sections}}</div>"}],
    css=CSS)
BASIC = genanki.Model(
    stable_id("examrag card v1"), "examrag 卡片 v1",
    fields=[{"name": n} for n in ("Id", "Front", "Back", "Citation")],
    templates=[{"name": "卡片", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr id=answer>{{Back}}<div class=cite>{{Citation}}</div>"}],
    css=CSS)
CLOZE = genanki.Model(
    stable_id("examrag cloze v1"), "examrag 填空 v1", model_type=genanki.Model.CLOZE,
    fields=[{"name": n} for n in ("Text", "Citation", "Id")],
    templates=[{"name": "填空", "qfmt": "{{cloze:Text}}", "afmt": "{{cloze:Text}}<div class=cite>{{Citation}}</div>"}],
    css=CSS)


def _h(text: Optional[str]) -> str:
    return html.escape(text or "").replace("\n", "<br>")


def tags(nodes: list[list[str]]) -> list[str]:
    """``examrag::第七章_查找::7.2_折半查找`` per node (Anki tags hold no spaces)."""
    return ["examrag::" + "::".join(re.sub(r"\s+", "_", h.strip()) for h in n) for n in nodes if n]


def question_note(q: QuestionItem, figure: Optional[str]) -> genanki.Note:
    head = f"{q.year}年第{q.number}题" if q.year else f"第{q.number}题"
    body = _h(q.stem) + "".join(f"<br>{k}. {_h(v)}" for k, v in sorted(q.options.items()))
    sections = "；".join(_h(s.chapter) for s in q.sections)
    return genanki.Note(model=QUESTION, guid=genanki.guid_for("examrag", q.item_id), tags=tags(q.nodes),
                        fields=[q.item_id, f"<b>{head}</b><br>{body}", f'<img src="{figure}">' if figure else "",
                                _h(q.answer), _h(q.analysis), _h(q.scoring), _h(q.solution_citation or q.citation),
                                f"对应章节：{sections}" if sections else ""])


def card_note(c: CardItem) -> genanki.Note:
    guid = genanki.guid_for("examrag", c.item_id)
    if c.card_type == "cloze":
        # html.escape leaves the {{c1::…}} marks as they are
        return genanki.Note(model=CLOZE, guid=guid, tags=tags(c.nodes), fields=[_h(c.front), _h(c.citation), c.item_id])
    return genanki.Note(model=BASIC, guid=guid, tags=tags(c.nodes), fields=[c.item_id, _h(c.front), _h(c.back), _h(c.citation)])


def write_deck(path: Path, questions: list[QuestionItem], cards: list[CardItem], *, deck_name: str,
               store: Store) -> dict:
    """Write the .apkg atomically (temp file, rename); returns what went in."""
    deck = genanki.Deck(stable_id(f"examrag deck {deck_name}"), deck_name)
    with tempfile.TemporaryDirectory(prefix="examrag-anki-") as tmp:
        media, missing = [], []
        for q in questions:
            name = None
            if q.figure is not None:
                png = figure_png(store, q.figure)
                if png:
                    name = f"examrag-{q.item_id}-figure.png"
                    (Path(tmp) / name).write_bytes(png)
                    media.append(str(Path(tmp) / name))
                else:
                    missing.append(q.item_id)
            deck.add_note(question_note(q, name))
        for c in cards:
            deck.add_note(card_note(c))
        _write_package(genanki.Package(deck, media_files=media), Path(path), Path(tmp))
    return {"path": str(path), "deck": deck_name, "questions": len(questions), "cards": len(cards),
            "figures": len(media), "figures_missing": missing}


def _write_package(package: genanki.Package, path: Path, tmp: Path) -> None:
    """``Package.write_to_file`` with its collection in our temp dir (genanki's own leaves it in /tmp)
    and the zip written beside ``path`` then renamed over it."""
    db_path = tmp / "collection.anki2"
    conn = sqlite3.connect(db_path)
    package.write_to_db(conn.cursor(), time.time(), itertools.count(int(time.time() * 1000)))
    conn.commit()
    conn.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, part = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        with zipfile.ZipFile(part, "w") as z:
            z.write(db_path, "collection.anki2")
            z.writestr("media", json.dumps({str(i): os.path.basename(p) for i, p in enumerate(package.media_files)}))
            for i, p in enumerate(package.media_files):
                z.write(p, str(i))
        os.replace(part, path)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
