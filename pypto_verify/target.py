"""Target facts as numbers: capacities per memory space, the cube fractal, Acc row padding.

Owns: TARGET_FACTS.md "Memory spaces" as data. Input: a target name (`a2a3`, `a5`). Used by the
lowering (tiling, address allocation), the facts exporter (padded bytes), the emitter and the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_verify.ir import DType, MemSpace

KIB = 1024
FRACTAL = 16
"""Cube dimensions (M, K, N) are multiples of this (TARGET_FACTS.md)."""
MAX_CUBE_DIM = 4095


@dataclass(frozen=True, slots=True)
class Target:
    """One chip generation's memory capacities (bytes) and rules."""

    name: str
    capacity: dict[MemSpace, int]
    acc_to_vec: bool
    """A5 allows an Acc -> Vec FIXPIPE drain; A2/A3 do not."""
    int32_acc_rows: int
    """Acc rows pad to this for an INT32 accumulator (32 on A2/A3, 16 on A5)."""

    def padded_rows(self, rows: int, dtype: DType, space: MemSpace) -> int:
        """Physical rows of a tile: Acc rows pad to 16, and INT32 Acc rows to `int32_acc_rows`."""
        if space is not MemSpace.Acc:
            return rows
        quantum = self.int32_acc_rows if dtype is DType.INT32 else FRACTAL
        return -(-rows // quantum) * quantum

    def tile_bytes(self, shape: tuple[int, ...], dtype: DType, space: MemSpace) -> int:
        """Bytes a tile occupies on this target (padded for Acc); leading unit dims are dropped."""
        dims = [d for d in shape]
        while len(dims) > 2 and dims[0] == 1:
            dims = dims[1:]
        if not dims:
            return dtype.bytes
        rows = self.padded_rows(dims[0], dtype, space)
        count = rows
        for d in dims[1:]:
            count *= d
        return count * dtype.bytes


_COMMON = {
    MemSpace.Mat: 512 * KIB,
    MemSpace.Left: 64 * KIB,
    MemSpace.Right: 64 * KIB,
}

TARGETS: dict[str, Target] = {
    "a2a3": Target("a2a3", {**_COMMON, MemSpace.Acc: 128 * KIB, MemSpace.Bias: 1 * KIB,
                            MemSpace.Vec: 184 * KIB}, acc_to_vec=False, int32_acc_rows=32),
    "a5": Target("a5", {**_COMMON, MemSpace.Acc: 256 * KIB, MemSpace.Bias: 4 * KIB,
                        MemSpace.Vec: 240 * KIB}, acc_to_vec=True, int32_acc_rows=16),
}


def get_target(name: str) -> Target:
    """The target called *name*; a KeyError names the known ones."""
    try:
        return TARGETS[name]
    except KeyError:
        raise KeyError(f"unknown target {name!r}; known: {', '.join(sorted(TARGETS))}") from None
