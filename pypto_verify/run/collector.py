"""The cyclic garbage collector during a run: fewer full collections (the IR of a long kernel is large and
acyclic, so each collection walks it for nothing)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


GC_THRESHOLD = (100_000, 50, 100)
"""The cyclic collector's thresholds during a run. The defaults (700, 10, 10) run a full collection every
few hundred thousand allocations, and each one walks every live object: the IR of a 22 000-statement kernel
(pypto-lib's prefill_fwd_a8w8.py) made that ~1.5 of its 6.3 s of lowering and fact export. The IR and the
facts are acyclic values, so the garbage a run makes is almost all freed by reference counting at once."""


def fewer_collections() -> None:
    """Raise the collector's thresholds to at least GC_THRESHOLD (a worker's initializer)."""
    gc.set_threshold(*(max(now, least) for now, least in zip(gc.get_threshold(), GC_THRESHOLD)))


@contextmanager
def collections_reduced() -> Iterator[None]:
    """`fewer_collections` for the duration of a run, the caller's thresholds restored after it."""
    before = gc.get_threshold()
    fewer_collections()
    try:
        yield
    finally:
        gc.set_threshold(*before)
