"""W8A8 prefill projections on 128-row token tiles, weights in row-major ``[K, N]``.

``a8w8_prefill_q`` walks the reduction by element offset; ``a8w8_prefill_gate`` keeps
the step index in a ``pl.range`` loop (no software pipelining, as for the small gate
projection). INT32 accumulators of 128 x 64 use half of one L0C bank each.
"""

import pypto.language as pl

from model_config import HIDDEN, INTERMEDIATE, Q_HIDDEN

TOKENS = 256
M_TILE = 128
N_TILE = 64
K_TILE = 512


@pl.jit
def a8w8_prefill_q(
    x_i8: pl.Tensor[[TOKENS, HIDDEN], pl.INT8],
    wq: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.INT8],
    q_i32: pl.Out[pl.Tensor[[TOKENS, Q_HIDDEN], pl.INT32]],
):
    for m0 in pl.parallel(0, TOKENS, M_TILE):
        for n0 in pl.parallel(0, Q_HIDDEN, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="prefill_q_i8"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.INT32)
                for k0 in pl.pipeline(0, HIDDEN, K_TILE, stage=2):
                    xa = x_i8[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wb = wq[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                    if k0 == 0:
                        acc = pl.matmul(xa, wb)
                    else:
                        acc = pl.matmul_acc(acc, xa, wb)
                q_i32 = pl.assemble(q_i32, acc, [m0, n0])
    return q_i32


@pl.jit
def a8w8_prefill_gate(
    x_i8: pl.Tensor[[TOKENS, HIDDEN], pl.INT8],
    w_gate: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.INT8],
    g_i32: pl.Out[pl.Tensor[[TOKENS, INTERMEDIATE], pl.INT32]],
):
    for m0 in pl.parallel(0, TOKENS, M_TILE):
        for n0 in pl.parallel(0, INTERMEDIATE, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="prefill_gate_i8"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.INT32)
                for k0 in pl.range(0, HIDDEN, K_TILE):
                    xa = x_i8[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wb = w_gate[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                    if k0 == 0:
                        acc = pl.matmul(xa, wb)
                    else:
                        acc = pl.matmul_acc(acc, xa, wb)
                g_i32[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = acc
    return g_i32
