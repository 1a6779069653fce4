"""Small parts of serve: the generation queue and the text-layer placement rules."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.serve.queue import GenerationQueue, QueueFull
from pipeline.serve.sources import place_on_page_text, sentences


def test_the_queue_runs_slots_then_waits_in_order_then_refuses():
    async def scenario():
        q = GenerationQueue(slots=2, size=2)
        a, b = q.admit(), q.admit()
        c, d = q.admit(), q.admit()
        assert (a.running, b.running, c.running, d.running) == (True, True, False, False)
        assert (q.position(c), q.position(d)) == (1, 2)
        with pytest.raises(QueueFull):
            q.admit()
        q.leave(c)  # c's tab closed while waiting
        assert q.position(d) == 1 and q.waiting == 1
        q.release(a)
        assert d.running and await q.wait(d, 0.1) and q.stats() == {"slots": 2, "running": 2, "waiting": 0, "queue_size": 2}
        q.release(a)  # twice is harmless
        assert q.running == 2
        e = q.admit()
        assert not e.running and not await q.wait(e, 0.05)  # still waiting after its timeout
        q.set_slots(3)  # the LLM turned out to have more slots
        assert e.running and q.running == 3

    asyncio.run(scenario())


def test_release_from_a_worker_thread():
    async def scenario():
        q = GenerationQueue(slots=1, size=1)
        a, b = q.admit(), q.admit()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, q.release_threadsafe, a)
        assert await q.wait(b, 1.0) and q.running == 1

    asyncio.run(scenario())


def _chars(text: str, line_len: int = 10):
    """Fake page characters: ``line_len`` per line, each with a distinct bbox."""
    return [(c, (i % line_len * 10.0, i // line_len * 12.0, i % line_len * 10.0 + 10, i // line_len * 12.0 + 12),
             i // line_len) for i, c in enumerate(text)]


def test_only_sentences_found_exactly_once_count():
    page = "折半查找要求线性表有序。顺序查找适用于链表。折半查找要求线性表有序。分块查找块间有序块内无序。"
    wanted = sentences("折半查找要求线性表有序。分块查找块间有序块内无序。不在这一页上的句子啊。")
    lines, found = place_on_page_text(_chars(page), wanted)
    assert found == ["分块查找块间有序块内无序。"]  # the first sentence is on the page twice: no evidence
    marked = sorted({i for boxes in lines.values() for i in range(len(boxes))})
    assert sum(len(b) for b in lines.values()) == len("分块查找块间有序块内无序。") and marked


def test_sentences_ignore_spaces_width_and_short_fragments():
    assert sentences("Ｏ(log2 n) 的 时间复杂度。短句。\n另一行的内容比较长") == ["O(log2n)的时间复杂度。", "另一行的内容比较长"]
