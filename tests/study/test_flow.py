"""The study loop as a new user runs it, on the shipped sample, through `python cli.py` (subprocesses):
practise 5, get 2 wrong, see them in `mistakes`, due in `review`, make cards, export an .apkg, and
see `progress` change. The clock is fixed (EXAMRAG_STUDY_NOW) so "due today" never straddles the
day's start; everything else is real."""

from __future__ import annotations

import json
import sqlite3
import zipfile

NOW = "2026-03-02T08:00:00+00:00"


def test_practise_five_two_wrong_then_mistakes_review_export_progress(cli, sample_data, tmp_path):
    env = {"EXAMRAG_STUDY_DB": str(tmp_path / "study.sqlite"), "EXAMRAG_STUDY_NOW": NOW, "EXAMRAG_LLM_BACKEND": "none"}

    def run(*args, ok=True):
        r = cli(*args, data_dir=sample_data, env=env, timeout=300)
        if ok:
            assert r.returncode == 0, r.stdout + r.stderr
        return r

    before = json.loads(run("progress", "--json").stdout)
    assert before["attempts"] == 0 and all(n["mastery"] == 0 for n in before["nodes"])

    listed = json.loads(run("practice", "--json", "--type", "choice", "--limit", "5").stdout)
    assert [q["item_id"] for q in listed] == ["2024-1", "2024-2", "2024-3", "2024-4", "2024-5"]
    picks = {"2024-1": "A", "2024-2": "C", "2024-3": "A", "2024-4": "D", "2024-5": "B"}  # 1 and 4 wrong
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"item": k, "answer": v, "seconds": 20, "key": f"k{k}"}) + "\n"
                               for k, v in picks.items()), "utf-8")
    results = [json.loads(line) for line in run("practice", "--answers", str(answers)).stdout.splitlines()]
    assert [(r["item_id"], r["verdict"]) for r in results] == [
        ("2024-1", "wrong"), ("2024-2", "right"), ("2024-3", "right"), ("2024-4", "wrong"), ("2024-5", "right")]
    again = [json.loads(line) for line in run("practice", "--answers", str(answers)).stdout.splitlines()]
    assert all(r["duplicate"] for r in again)  # the same keys: nothing stored twice

    mistakes = json.loads(run("mistakes", "--json").stdout)
    assert sorted(m["item"]["item_id"] for m in mistakes) == ["2024-1", "2024-4"]
    for m in mistakes:
        assert m["item"]["analysis"] and m["item"]["sections"] and m["last_answer"] in ("A", "D")
        assert m["item"]["sections"][0]["citation"].startswith("[来源: 第七章 查找")
    assert "2024-4" in run("mistakes", "--node", "树表的查找").stdout
    assert "2024-1" not in run("mistakes", "--node", "树表的查找").stdout

    due = json.loads(run("review", "--json").stdout)
    assert sorted(d["item"]["item_id"] for d in due) == ["2024-1", "2024-4"]

    made = json.loads(run("cards", "--chapter", "查找", "--json").stdout)
    assert made["made"] and all(c["citation"].startswith("[来源: 第七章 查找") for c in made["made"])
    deck = tmp_path / "deck.apkg"
    summary = json.loads(run("export", "anki", "--chapter", "查找", "-o", str(deck), "--json").stdout)
    assert summary["questions"] == 3 and summary["cards"] == len(made["made"])
    with zipfile.ZipFile(deck) as z:
        z.extract("collection.anki2", tmp_path)
    notes = sqlite3.connect(tmp_path / "collection.anki2").execute("SELECT flds FROM notes").fetchall()
    assert len(notes) == 3 + len(made["made"])

    after = json.loads(run("progress", "--json").stdout)
    assert (after["attempts"], after["right"], after["wrong"]) == (5, 3, 2)
    b = {n["node"]: n for n in before["nodes"]}
    a = {n["node"]: n for n in after["nodes"]}
    assert a["第八章 排序 › 8.5 各种排序方法的比较"]["mastery"] > 0.5  # 2024-2, right
    assert a["第七章 查找 › 7.2 折半查找"]["mastery"] == 0  # 2024-1 wrong; 2024-41 not attempted
    assert sum(n["priority"] for n in after["next"]) < sum(n["priority"] for n in before["next"])
    assert a["第七章 查找"]["cards"] > b["第七章 查找"]["cards"] == 0
    text = run("progress").stdout
    assert "下一步复习" in text and "第七章 查找 › 7.2 折半查找" in text


def test_bad_lines_are_named_and_the_others_stored(cli, sample_data, tmp_path):
    env = {"EXAMRAG_STUDY_DB": str(tmp_path / "study.sqlite"), "EXAMRAG_STUDY_NOW": NOW}
    f = tmp_path / "a.jsonl"
    f.write_text('{"item": "2024-1", "answer": "B"}\nnot json\n{"item": "2024-41", "answer": "…"}\n'
                 '{"item": "2019-3", "answer": "A"}\n{"item": "2024-42", "answer": "…", "rating": "good"}\n', "utf-8")
    r = cli("practice", "--answers", str(f), data_dir=sample_data, env=env, timeout=300)
    assert r.returncode == 1
    assert [json.loads(x)["item_id"] for x in r.stdout.splitlines()] == ["2024-1", "2024-42"]
    errors = r.stderr.splitlines()
    assert len(errors) == 3 and all(e.startswith(f"Error: {f}:") for e in errors)
    assert f"{f}:2:" in errors[0] and f"{f}:3:" in errors[1] and "grade yourself" in errors[1] and "2019-3" in errors[2]
    one = cli("practice", "--question", "2024-3", "--answer", "A", data_dir=sample_data, env=env, timeout=300)
    assert one.returncode == 0 and json.loads(one.stdout)["verdict"] == "right"
    usage = cli("practice", "--answer", "A", data_dir=sample_data, env=env, timeout=300)
    assert usage.returncode == 2 and "exactly one --question" in usage.stderr
