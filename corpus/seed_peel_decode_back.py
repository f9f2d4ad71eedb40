"""Back half of a dense decode layer, peeled style: every K reduction computes its first
block outside the loop and accumulates the rest in a loop that starts at block 1.

The program class is built by a factory function, as whole-model scripts do. The
output projection, gate and up use ``pl.range(1, ...)``; the down projection is
software-pipelined with ``pl.pipeline(1, ..., stage=2)``.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, INTERMEDIATE, Q_HIDDEN

K_TILE = 128
O_TILE = 256
MLP_TILE = 64
DOWN_TILE = 256
DOWN_K_TILE = 256
NORM_ROWS = 4
EPS = 1e-6
HIDDEN_INV = 1.0 / HIDDEN


def build_decode_back_program():
    @pl.program
    class DecodeBack:
        @pl.function(type=pl.FunctionType.Opaque)
        def decode_back(
            self,
            attn: pl.Tensor[[BATCH, Q_HIDDEN], pl.BF16],
            hidden: pl.Tensor[[BATCH, HIDDEN], pl.FP32],
            wo: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.BF16],
            post_gamma: pl.Tensor[[1, HIDDEN], pl.FP32],
            w_gate: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.BF16],
            w_up: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.BF16],
            w_down: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
            out: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.FP32]],
        ) -> pl.Tensor[[BATCH, HIDDEN], pl.FP32]:
            resid = pl.create_tensor([BATCH, HIDDEN], dtype=pl.FP32)
            for ob in pl.parallel(HIDDEN // O_TILE):
                o0 = ob * O_TILE
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="o_proj"):
                    o_acc = pl.matmul(attn[:, 0:K_TILE], wo[0:K_TILE, o0 : o0 + O_TILE], out_dtype=pl.FP32)
                    for kb in pl.range(1, Q_HIDDEN // K_TILE):
                        k0 = kb * K_TILE
                        o_acc = pl.matmul_acc(o_acc, attn[:, k0 : k0 + K_TILE], wo[k0 : k0 + K_TILE, o0 : o0 + O_TILE])
                    resid = pl.assemble(resid, pl.add(o_acc, hidden[:, o0 : o0 + O_TILE]), [0, o0])

            normed = pl.create_tensor([BATCH, HIDDEN], dtype=pl.BF16)
            # NORM_ROWS rows at a time: a [NORM_ROWS, HIDDEN] FP32 value is 32 KiB, so the co-live
            # vector values fit the 184 KiB UB; whole [BATCH, HIDDEN] ones (128 KiB each) do not.
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="post_norm"):
                for r0 in pl.range(0, BATCH, NORM_ROWS):
                    rows = resid[r0 : r0 + NORM_ROWS, :]
                    sq = pl.row_sum(pl.mul(rows, rows))
                    inv = pl.rsqrt(pl.add(pl.mul(sq, HIDDEN_INV), EPS))
                    normed = pl.assemble(normed, pl.cast(pl.col_expand_mul(pl.row_expand_mul(rows, inv), post_gamma), target_type=pl.BF16), [r0, 0])

            act = pl.create_tensor([BATCH, INTERMEDIATE], dtype=pl.BF16)
            for mb in pl.parallel(INTERMEDIATE // MLP_TILE):
                m0 = mb * MLP_TILE
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="gate_up"):
                    g_acc = pl.matmul(normed[:, 0:K_TILE], w_gate[0:K_TILE, m0 : m0 + MLP_TILE], out_dtype=pl.FP32)
                    for kb in pl.range(1, HIDDEN // K_TILE):
                        k0 = kb * K_TILE
                        g_acc = pl.matmul_acc(g_acc, normed[:, k0 : k0 + K_TILE], w_gate[k0 : k0 + K_TILE, m0 : m0 + MLP_TILE])
                    u_acc = pl.matmul(normed[:, 0:K_TILE], w_up[0:K_TILE, m0 : m0 + MLP_TILE], out_dtype=pl.FP32)
                    for kb in pl.range(1, HIDDEN // K_TILE):
                        k0 = kb * K_TILE
                        u_acc = pl.matmul_acc(u_acc, normed[:, k0 : k0 + K_TILE], w_up[k0 : k0 + K_TILE, m0 : m0 + MLP_TILE])
                    silu = pl.mul(g_acc, pl.recip(pl.add(pl.exp(pl.neg(g_acc)), 1.0)))
                    act = pl.assemble(act, pl.cast(pl.mul(silu, u_acc), target_type=pl.BF16), [0, m0])

            for db in pl.parallel(HIDDEN // DOWN_TILE):
                d0 = db * DOWN_TILE
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="down"):
                    d_acc = pl.matmul(act[:, 0:DOWN_K_TILE], w_down[0:DOWN_K_TILE, d0 : d0 + DOWN_TILE], out_dtype=pl.FP32)
                    for kb in pl.pipeline(1, INTERMEDIATE // DOWN_K_TILE, stage=2):
                        k0 = kb * DOWN_K_TILE
                        a_chunk = act[:, k0 : k0 + DOWN_K_TILE]
                        w_chunk = w_down[k0 : k0 + DOWN_K_TILE, d0 : d0 + DOWN_TILE]
                        d_acc = pl.matmul_acc(d_acc, a_chunk, w_chunk)
                    out[:, d0 : d0 + DOWN_TILE] = pl.add(d_acc, resid[:, d0 : d0 + DOWN_TILE])
            return out

    return DecodeBack
