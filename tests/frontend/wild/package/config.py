"""Tile sizes of the package-relative import kernel."""

ROWS = 16
HIDDEN = 512
OUT = 128
K_TILE = HIDDEN // 4
