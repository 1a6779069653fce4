"""The one bounded queue every generation goes through.

``slots`` generations run at once (the LLM runtime's parallel slots, 1 for most backends); up to
``size`` more wait in arrival order; one more is refused at once (:class:`QueueFull`, the server's
503 + Retry-After). A waiting ticket knows its position, so a stream can tell its student "2 ahead
of you". Everything here runs on the event loop's thread, so no locks: worker threads hand a slot
back with :meth:`GenerationQueue.release_threadsafe`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Optional


class QueueFull(Exception):
    """No slot free and the waiting line is full."""


@dataclass(eq=False)
class Ticket:
    running: bool = False
    done: bool = False
    ready: Optional[asyncio.Future] = field(default=None, repr=False)  # set by the queue when the ticket runs


class GenerationQueue:
    def __init__(self, slots: int = 1, size: int = 8):
        self.slots = max(1, int(slots))
        self.size = max(0, int(size))
        self.running = 0
        self._waiting: deque[Ticket] = deque()
        self._loop: Optional[asyncio.AbstractEventLoop] = None

    # ------------------------------------------------------------------ state
    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def position(self, ticket: Ticket) -> int:
        """1-based place in the waiting line; 0 once running (or gone)."""
        try:
            return self._waiting.index(ticket) + 1
        except ValueError:
            return 0

    def stats(self) -> dict:
        return {"slots": self.slots, "running": self.running, "waiting": self.waiting, "queue_size": self.size}

    def set_slots(self, slots: int) -> None:
        """Resize when the LLM is known (its ``slots``); wakes waiters if slots were added."""
        self.slots = max(1, int(slots))
        self._wake()

    # ------------------------------------------------------------------ flow
    def admit(self) -> Ticket:
        """A running ticket if a slot is free and nobody waits, else a waiting one; QueueFull when
        the line is full. Call on the event loop."""
        self._loop = asyncio.get_running_loop()
        ticket = Ticket()
        if self.running < self.slots and not self._waiting:
            self.running += 1
            ticket.running = True
            return ticket
        if len(self._waiting) >= self.size:
            raise QueueFull(f"{self.running} answer(s) being generated and {len(self._waiting)} waiting "
                            f"(serve_queue_size={self.size})")
        ticket.ready = self._loop.create_future()
        self._waiting.append(ticket)
        return ticket

    async def wait(self, ticket: Ticket, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the ticket's turn; True once it runs."""
        if ticket.running:
            return True
        assert ticket.ready is not None
        try:
            await asyncio.wait_for(asyncio.shield(ticket.ready), timeout)
        except asyncio.TimeoutError:
            return ticket.running
        return True

    def leave(self, ticket: Ticket) -> None:
        """The ticket's request is over. A waiting ticket leaves the line; a running one keeps its
        slot until :meth:`release` (its generation may still be stopping in a worker thread)."""
        if not ticket.running and ticket in self._waiting:
            self._waiting.remove(ticket)
            ticket.done = True

    def release(self, ticket: Ticket) -> None:
        """A running generation finished (or stopped): its slot goes to the next waiter."""
        if ticket.running and not ticket.done:
            ticket.done = True
            self.running -= 1
            self._wake()

    def release_threadsafe(self, ticket: Ticket) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self.release, ticket)

    def _wake(self) -> None:
        while self._waiting and self.running < self.slots:
            ticket = self._waiting.popleft()
            self.running += 1
            ticket.running = True
            if ticket.ready is not None and not ticket.ready.done():
                ticket.ready.set_result(True)
