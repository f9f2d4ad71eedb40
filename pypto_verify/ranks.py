"""The ranks of a distributed run, one at a time (issue 14, item 2: kernels of `pypto.language.distributed`).

Owns: `run_ranks` — one body per rank, run in a fixed order, exactly one running at a time, and
`Deadlock`. The reference (`reference.py`, the source's ops) and the simulator (`sim/`, the emitted PTO) each
run their own ranks through it; it only decides who runs, never a value.

Each rank runs on a thread of its own holding the baton; a rank whose `wait` does not hold hands the baton to the
next rank, in *order* from itself on, that can run (has not finished, and is not waiting, or its wait now holds).
A rank runs until it finishes or waits. When no rank can run and some have not finished, the run is a deadlock:
`Deadlock` names every waiting rank and what it waits for. An error in one rank ends the run: the first error
raised (only one rank runs at a time, so the first is well defined) is raised again by `run_ranks`.
Layering: imports nothing of the project.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass


class Deadlock(Exception):
    """Every rank that has not finished waits for a signal no running rank can give."""

    def __init__(self, waits: Sequence[tuple[int, str]]) -> None:
        self.waits = tuple(waits)
        super().__init__("every rank waits: " + "; ".join(f"rank {rank} waits for {what}" for rank, what in waits))


class _Ended(BaseException):
    """The run ended while this rank waited (another rank's error or a deadlock): unwind its thread."""


@dataclass(eq=False, slots=True)
class _Rank:
    done: bool = False
    waiting: Callable[[], bool] | None = None
    what: Callable[[], str] | None = None


class Baton:
    """What a running rank calls: `wait(holds, what)` returns once `holds()` is true, running other ranks
    meanwhile; `rank` is the calling thread's rank."""

    def __init__(self, order: Sequence[int]) -> None:
        self.order = list(order)
        self.ranks = {rank: _Rank() for rank in self.order}
        self.turn: int | None = None
        self.ended = False
        self.error: BaseException | None = None
        self.cond = threading.Condition()
        self.local = threading.local()

    @property
    def rank(self) -> int:
        return int(self.local.rank)

    def wait(self, holds: Callable[[], bool], what: Callable[[], str]) -> None:
        """Block the calling rank until `holds()` (checked only while no other rank runs); `what()` says what it
        waits for (asked when the run deadlocks)."""
        if holds():
            return
        me = self.rank
        with self.cond:
            state = self.ranks[me]
            state.waiting, state.what = holds, what
            self._pass(me)
            self._await(me)
            state.waiting, state.what = None, None

    def _pass(self, me: int) -> None:
        """Hand the baton to the next rank that can run after *me* (*me* last); a deadlock when none can."""
        at = self.order.index(me)
        for rank in self.order[at + 1:] + self.order[:at + 1]:
            state = self.ranks[rank]
            if not state.done and (state.waiting is None or state.waiting()):
                self.turn = rank
                self.cond.notify_all()
                return
        if all(state.done for state in self.ranks.values()):
            self.turn = None
            self.cond.notify_all()
            return
        waits = [(rank, state.what() if state.what is not None else "")
                 for rank, state in sorted(self.ranks.items()) if not state.done]
        self._end(Deadlock(waits))

    def _end(self, error: BaseException) -> None:
        if self.error is None:
            self.error = error
        self.ended = True
        self.turn = None
        self.cond.notify_all()

    def _await(self, me: int) -> None:
        while self.turn != me:
            if self.ended:
                raise _Ended()
            self.cond.wait()

    def _body(self, me: int, body: Callable[[], None]) -> None:
        self.local.rank = me
        try:
            with self.cond:
                self._await(me)
            body()
        except _Ended:
            return
        except BaseException as error:  # noqa: BLE001 - handed to the caller of run_ranks
            with self.cond:
                self._end(error)
            return
        with self.cond:
            self.ranks[me].done = True
            if not self.ended:
                self._pass(me)


def run_ranks(order: Sequence[int], body: Callable[[Baton], None]) -> None:
    """Run `body(baton)` once per rank of *order* (the first runs first), one rank at a time (module docstring);
    `baton.rank` is the rank each runs as. Raises `Deadlock`, or the first error a rank raised."""
    baton = Baton(order)
    threads = [threading.Thread(target=baton._body, args=(rank, lambda: body(baton)), daemon=True,
                                name=f"rank-{rank}") for rank in baton.order]
    for thread in threads:
        thread.start()
    with baton.cond:
        baton.turn = baton.order[0] if baton.order else None
        baton.cond.notify_all()
    try:
        for thread in threads:
            thread.join()
    except BaseException as error:  # the caller interrupted (a time limit): end the run, wake every waiting rank
        with baton.cond:
            baton._end(error)
        raise
    if baton.error is not None:
        raise baton.error
