"""Wild construct: float constants (`1.0 / (HEAD_DIM ** 0.5)`), `pl.full(...)`, vector ops
(`pl.add`, `pl.row_sum`, `pl.col_expand_mul`, `pl.exp`, `pl.recip`, ...), `pl.cast(x, target_type=...)`,
`pl.reshape` around an accumulator site."""

import pypto.language as pl

HEAD_DIM = 128
SCALE = 1.0 / (HEAD_DIM ** 0.5)
EPS = 1e-6
ROWS = 16
COLS = 256
K_TILE = 64


@pl.jit
def softmax_proj(x: pl.Tensor[[ROWS, HEAD_DIM], pl.BF16], w: pl.Tensor[[HEAD_DIM, COLS], pl.BF16],
                 gamma: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="softmax_proj"):
        acc = pl.full([ROWS, COLS], dtype=pl.FP32, value=0.0)
        for kb in pl.range(HEAD_DIM // K_TILE):
            k0 = kb * K_TILE
            if kb == 0:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
        scaled = pl.mul(acc, SCALE)
        e = pl.exp(pl.row_expand_sub(scaled, pl.row_max(scaled)))
        inv = pl.recip(pl.add(pl.row_sum(e), EPS))
        probs = pl.col_expand_mul(pl.row_expand_mul(e, inv), gamma)
        flat = pl.reshape(probs, [1, ROWS * COLS])
        y[:, :] = pl.reshape(pl.cast(flat, target_type=pl.BF16, mode="rint"), [ROWS, COLS])
    return y
