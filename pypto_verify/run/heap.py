"""The C heap of a process that proves: z3's large blocks kept for the next context instead of handed back to
the kernel after each one.

Each Z3 site is decided in a context of its own (`smt/solver.py`), and a context allocates a block of several
MiB. glibc's malloc serves a block that size with `mmap` and returns it with `munmap` when the context goes,
and trims the heap's free top back to the kernel past 128 KiB, so every context faulted its pages in anew:
~8 800 minor page faults and ~14 ms of system time per file of the synthetic corpus, against ~21 ms of user
time for the proofs themselves. Above `MMAP_THRESHOLD` and `TRIM_THRESHOLD` such blocks stay in the heap, so
the next context reuses pages already mapped: ~100 faults and ~1 ms of system time per file, for at most
`TRIM_THRESHOLD` bytes of free heap a process keeps. Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

MMAP_THRESHOLD = 32 << 20
"""Blocks below this come from the heap (glibc's default starts at 128 KiB)."""
TRIM_THRESHOLD = 64 << 20
"""Free heap past this is given back to the kernel (glibc's default: 128 KiB)."""

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameter numbers (malloc.h)


def keep_heap() -> bool:
    """Raise this process's malloc thresholds to `MMAP_THRESHOLD` / `TRIM_THRESHOLD` (a process forked after
    inherits them); whether the C library took them (False off glibc)."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):  # not glibc (musl has no such tuning)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
