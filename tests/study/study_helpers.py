"""Helpers for study tests: a fixed clock and small items that need no index (imported as study_helpers)."""

from __future__ import annotations

from datetime import datetime, timezone

from pipeline.study.models import CardItem, QuestionItem

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=timezone.utc)


def choice(n: int = 1, answer: str = "B", nodes=(("第七章 查找", "7.2 折半查找"),)) -> QuestionItem:
    return QuestionItem(item_id=f"2024-{n}", year=2024, number=n, qtype="choice", stem=f"第{n}题的题干",
                        options={"A": "3", "B": "4", "C": "5", "D": "15"}, answer=answer, analysis="因为……",
                        citation=f"[来源: 卷 › 第{n}题|第1页·题目]", chunk_id=f"chunk{n}", nodes=[list(x) for x in nodes])


def card(i: int = 1, chunk_id: str = "c-chunk") -> CardItem:
    return CardItem(item_id=f"c-{i:016x}", card_type="definition", front=f"什么是术语{i}？", back=f"术语{i}是……",
                    sentence=f"术语{i}是……", citation="[来源: 笔记 › 一节|片段1]", chunk_id=chunk_id,
                    chapter_path=["笔记", "一节"], nodes=[["笔记", "一节"]])
