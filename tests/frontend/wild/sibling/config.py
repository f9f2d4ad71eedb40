"""Model dimensions shared by the sibling-import kernels (a plain module, read statically)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Dims:
    rows: int
    hidden: int
    out: int

    @property
    def k_tile(self) -> int:
        return self.hidden // 8


DIMS = Dims(rows=16, hidden=1024, out=256)
HIDDEN = DIMS.hidden
OUT = DIMS.out
ROWS = DIMS.rows
N_TILE = 128
