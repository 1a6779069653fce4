"""Small parts of serve: the generation queue and the text-layer placement rules."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.serve.queue import GenerationQueue, QueueFull


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


def test_serve_reads_no_private_attribute_of_another_object():
    """pipeline/serve uses the query service (and everything else) through public names only: an
    attribute starting with _ is read only from self."""
    import ast
    from pathlib import Path

    import pipeline.serve

    bad = []
    for path in sorted(Path(pipeline.serve.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                bad.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert bad == [], bad
