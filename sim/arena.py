"""Byte arenas, one per on-chip memory space, and tile views into them.

Owns one arena per memory space, sized by `pypto_verify.target` (docs/pto-subset.md, "Capacities"), the poison fill ("Undefined
memory": every 4-byte word is 0x7FC07FC0, little-endian) and `Tile`: a window
`[addr, addr + rows * cols * size)` of one arena seen as a row-major `rows x cols` array of its
dtype's storage. Two tiles whose byte ranges overlap alias byte for byte, because both are numpy
views of the same bytes. Under `strict_undef` each arena also keeps a written-bitmap (one bool per
byte) so that a read of bytes never written since the start of the run can be detected (PV202).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np

from pypto_verify.ir import MemSpace
from pypto_verify.target import TARGETS

from .dtypes import DTYPES

SPACES: Final[dict[str, MemSpace]] = {
    "mat": MemSpace.Mat, "left": MemSpace.Left, "right": MemSpace.Right, "acc": MemSpace.Acc,
    "bias": MemSpace.Bias, "vec": MemSpace.Vec,
}
"""The arenas by their PTO `loc` names, with the memory space each one is."""

POISON_WORD: Final[int] = 0x7FC07FC0


@dataclass(frozen=True, eq=False, slots=True)
class Tile:
    """A tile: a row-major window of one arena, and its valid region (the part instructions use)."""

    space: str
    addr: int
    rows: int
    cols: int
    dtype: str
    valid_rows: int
    valid_cols: int
    data: np.ndarray
    """`rows x cols` view of the arena bytes in the dtype's storage (bf16: uint16 bits)."""
    valid: np.ndarray
    """`data[:valid_rows, :valid_cols]`."""
    written: np.ndarray | None
    """The written-bitmap bytes of `valid` (`valid_rows x valid_cols * size`), under strict_undef."""

    @property
    def nbytes(self) -> int:
        """Bytes the tile occupies from `addr` (physical shape)."""
        return self.rows * self.cols * DTYPES[self.dtype].size


@dataclass(eq=False)
class Arena:
    """The bytes of one memory space, poisoned at creation."""

    space: str
    capacity: int
    track_writes: bool = False
    data: np.ndarray = field(init=False)
    written: np.ndarray | None = field(init=False)

    def __post_init__(self) -> None:
        words = np.full(self.capacity // 4, POISON_WORD, dtype="<u4")
        self.data = words.view(np.uint8)
        self.written = np.zeros(self.capacity, dtype=bool) if self.track_writes else None

    def poison(self) -> None:
        """Refill every byte with the poison pattern (and forget every write), in place: the tile
        views into the arena stay valid."""
        self.data.view("<u4")[:] = POISON_WORD
        if self.written is not None:
            self.written[:] = False

    def fits(self, addr: int, nbytes: int) -> bool:
        """Whether `[addr, addr + nbytes)` lies inside the arena."""
        return 0 <= addr and addr + nbytes <= self.capacity

    def tile(self, addr: int, rows: int, cols: int, dtype: str, valid_rows: int,
             valid_cols: int) -> Tile:
        """The tile view at *addr*; the caller has checked `fits` and the valid region."""
        size = DTYPES[dtype].size
        nbytes = rows * cols * size
        raw = self.data[addr:addr + nbytes]
        data = raw.view(DTYPES[dtype].storage).reshape(rows, cols)
        written = None
        if self.written is not None:
            bitmap = self.written[addr:addr + nbytes].reshape(rows, cols * size)
            written = bitmap[:valid_rows, :valid_cols * size]
        return Tile(self.space, addr, rows, cols, dtype, valid_rows, valid_cols, data,
                    data[:valid_rows, :valid_cols], written)


@dataclass(eq=False)
class Memory:
    """All arenas of one target."""

    target: str
    arenas: dict[str, Arena]

    @classmethod
    def for_target(cls, target: str, track_writes: bool = False) -> "Memory":
        """Fresh poisoned arenas sized by *target*'s capacities; `KeyError` for an unknown target."""
        capacities = TARGETS[target].capacity
        return cls(target, {space: Arena(space, capacities[mem], track_writes)
                            for space, mem in SPACES.items()})

    def poison(self) -> None:
        """Every arena back to its state at creation (a fresh core's memory)."""
        for arena in self.arenas.values():
            arena.poison()

    def snapshot(self) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
        """A copy of every arena's bytes (and written-bitmap): one core's memory, to `restore` later."""
        return {space: (arena.data.copy(), None if arena.written is None else arena.written.copy())
                for space, arena in self.arenas.items()}

    def restore(self, snapshot: dict[str, tuple[np.ndarray, np.ndarray | None]]) -> None:
        """Every arena as *snapshot* holds it, in place (the tile views stay valid)."""
        for space, (data, written) in snapshot.items():
            arena = self.arenas[space]
            arena.data[:] = data
            if written is not None and arena.written is not None:
                arena.written[:] = written
