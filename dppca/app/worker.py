"""The one thread that computes the app's runs, and each waiting run's place in its queue.

Runs go through pyplot, whose figure registry and ``rcParams`` (``plt.rc_context``) are
process-wide and not thread-safe, so the runs of every session are computed one at a time, off
Shiny's event loop (the pages stay responsive). A run that waits is told how many runs are
ahead of it (:meth:`RunQueue.ahead`), so that a queue of sessions is visible, not a silent
wait. The count is of runs (public: every session sees how busy the server is), never of what
they compute.
"""
from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor


class RunQueue:
    """A single-worker executor whose jobs carry tickets (1, 2, ...) in the order submitted.

    Examples
    --------
    >>> queue = RunQueue()
    >>> ticket = queue.ticket()
    >>> queue.run(ticket, lambda: 41 + 1), queue.ahead(ticket)
    (42, 0)
    """

    def __init__(self):
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dppca-app-run")
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._waiting: set[int] = set()

    def ticket(self) -> int:
        """A new ticket: the run is counted as waiting until :meth:`run` has finished it."""
        with self._lock:
            number = next(self._numbers)
            self._waiting.add(number)
            return number

    def ahead(self, ticket: int) -> int:
        """How many runs with an earlier ticket are still waiting or running (0: computing now
        or done)."""
        with self._lock:
            return sum(1 for other in self._waiting if other < ticket)

    def pending(self, ticket: int) -> bool:
        """Whether the run of ``ticket`` has not finished."""
        with self._lock:
            return ticket in self._waiting

    def run(self, ticket: int, work):
        """``work()`` for ``ticket`` (called in the worker thread); the ticket is then done."""
        try:
            return work()
        finally:
            with self._lock:
                self._waiting.discard(ticket)


#: The queue of every session's runs in this process.
RUN_QUEUE = RunQueue()

__all__ = ["RUN_QUEUE", "RunQueue"]
