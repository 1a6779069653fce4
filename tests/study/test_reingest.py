"""A re-ingest that changes the material keeps every attempt and flags the cards whose source changed
(never silently kept); making the chapter's cards again re-confirms the unchanged sentences."""

from __future__ import annotations

from study_helpers import T0

from pipeline.settings import load_settings
from pipeline.study.service import StudyService

OLD = "死锁是指多个进程因竞争资源而造成的一种互相等待的僵局"
NEW = "死锁是指两个或两个以上的进程因争夺资源而造成的一种互相等待的现象"


def test_reingest_keeps_attempts_and_flags_changed_cards(cli, copy_of_sample, tmp_path):
    data = tmp_path / "data"
    r = cli("ingest", str(copy_of_sample), "--quiet", data_dir=data)
    assert r.returncode == 0, r.stdout + r.stderr

    def service():
        return StudyService(load_settings(data_dir=data, study_now=T0, llm_backend="none"))

    svc = service()
    me = svc.profile("alice")
    for qid, letter in (("2024-1", "A"), ("2024-5", "B"), ("2024-6", "A")):
        svc.answer(me, qid, letter)
    deadlock = svc.make_cards("死锁").made
    search = svc.make_cards("查找").made
    changed = [c for c in deadlock if OLD in c.sentence]
    assert changed and len(deadlock) > len(changed)  # the 银行家算法 card sits in another chunk
    review = svc.review(me, changed[0].item_id, rating="good")
    before_attempts = svc.attempts(me)
    svc.store.close()

    notes = copy_of_sample / "操作系统笔记.md"
    text = notes.read_text("utf-8")
    assert OLD in text
    notes.write_text(text.replace(OLD, NEW), "utf-8")
    r = cli("ingest", str(copy_of_sample), "--quiet", data_dir=data)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (data / "study.sqlite").exists()  # the study database sits in the data dir, untouched by ingest

    svc = service()
    me = svc.profile("alice")
    assert svc.attempts(me) == before_attempts and len(before_attempts) == 4
    assert sorted(m.item.item_id for m in svc.mistakes(me)) == ["2024-1", "2024-6"]
    flagged = svc.cards(flagged=True)
    assert {c.item_id for c in flagged} == {c.item_id for c in deadlock if c.chunk_id == changed[0].chunk_id}
    assert all("source changed" in c.flag for c in flagged)
    kept = [c for c in svc.cards("死锁") if not c.flag]  # same text, new chunk id (its file's id changed): re-linked
    assert kept and all(c.chunk_id not in {d.chunk_id for d in deadlock} for c in kept)
    assert set(svc.query.retriever().catalog.by_ids([c.chunk_id for c in kept])) == {c.chunk_id for c in kept}
    assert not any(c.flag for c in svc.cards("查找")) and {c.item_id for c in svc.cards("查找")} == {c.item_id for c in search}
    due_ids = {d.item.item_id for d in svc.due(me, until=T0.replace(year=2030))}
    assert changed[0].item_id not in due_ids and not (due_ids & {c.item_id for c in flagged})
    out = svc.export_anki(tmp_path / "deck.apkg", chapter="死锁")
    assert out["cards"] == len(deadlock) - len(flagged)  # flagged cards are not exported

    again = svc.make_cards("死锁")
    assert [c.sentence for c in again.made if NEW in c.sentence]  # the new sentence, a new card
    assert all(OLD not in c.sentence for c in again.made + again.confirmed)
    still = {c.item_id for c in svc.cards(flagged=True)}
    assert changed[0].item_id in still  # the old sentence is gone from the material: it stays flagged
    assert {c.item_id for c in again.confirmed} == {c.item_id for c in flagged} - still  # unchanged text re-confirmed
    assert svc.store.states(me)[review.item_id]  # its review state is kept, in case it comes back
