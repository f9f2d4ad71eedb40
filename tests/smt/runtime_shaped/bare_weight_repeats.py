"""The twin of `bare_weight_proj.py`: its K loop reads the window of the bare `pl.Tensor` weight one K block
behind the left operand (K block 0 twice, PV106): the weight's windows are blocks of the tensor passed."""

import pypto.language as pl

ROWS = 16
HIDDEN = 256
OUT = 128
K_TILE = 64
N_TILE = 64


@pl.jit.inline
def _project(x: pl.Tensor[[ROWS, HIDDEN], pl.BF16], w: pl.Tensor, y: pl.Tensor[[ROWS, OUT], pl.FP32]):
    for n0 in pl.range(0, OUT, N_TILE):
        acc = pl.matmul(x[:, 0:K_TILE], w[0:K_TILE, n0 : n0 + N_TILE], out_dtype=pl.FP32)
        for kb in pl.range(1, HIDDEN // K_TILE):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 - K_TILE : k0, n0 : n0 + N_TILE])  # expect: PV106
        y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def proj_entry(x: pl.Tensor[[ROWS, HIDDEN], pl.BF16], w: pl.Tensor, y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        y = _project(x, w, y)
    return y
