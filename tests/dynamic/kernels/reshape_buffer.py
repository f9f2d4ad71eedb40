"""A row scale reshaped with `pl.reshape`, then a projection: a reshape is a view of its operand's buffer (PyPTO's
InitMemRef), so the operand's buffer stays live while the reshape is read and the next load goes elsewhere."""

import pypto.language as pl

ROWS = 16
COLS = 256
OUT = 64
K_CHUNK = 128


@pl.jit
def row_scale_proj(
    x: pl.Tensor[[ROWS, COLS], pl.BF16],
    w: pl.Tensor[[COLS, OUT], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    scaled = pl.create_tensor([ROWS, COLS], dtype=pl.BF16)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_scale"):
        sq = pl.full([1, ROWS], dtype=pl.FP32, value=0.0)
        for kb in pl.range(COLS // K_CHUNK):
            chunk = pl.cast(pl.slice(x, [ROWS, K_CHUNK], [0, kb * K_CHUNK]), target_type=pl.FP32)
            sq = pl.add(sq, pl.reshape(pl.row_sum(pl.mul(chunk, chunk)), [1, ROWS]))
        inv = pl.reshape(pl.rsqrt(pl.add(pl.mul(sq, 0.25), 1e-6)), [ROWS, 1])
        for kb in pl.range(COLS // K_CHUNK):
            chunk = pl.cast(pl.slice(x, [ROWS, K_CHUNK], [0, kb * K_CHUNK]), target_type=pl.FP32)
            scaled = pl.assemble(scaled, pl.cast(pl.row_expand_mul(chunk, inv), target_type=pl.BF16), [0, kb * K_CHUNK])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        y[:, :] = pl.matmul(scaled, w, out_dtype=pl.FP32)
    return y
