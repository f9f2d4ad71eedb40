"""Prefill output projection and gate/up projections on 128-row tiles (BF16).

Written as a program with one Opaque function holding core-group scopes. The output
projection adds the residual; the gate/up scope accumulates both projections from
one activation slice and applies SiLU-gating before writing the BF16 activation.
"""

import pypto.language as pl

from model_config import HIDDEN, INTERMEDIATE, Q_HIDDEN

TOKENS = 256
M_TILE = 128
N_TILE = 64
O_K_TILE = 256
GU_K_TILE = 128


@pl.program
class PrefillOGateUp:
    @pl.function(type=pl.FunctionType.Opaque)
    def o_gate_up(
        self,
        attn: pl.Tensor[[TOKENS, Q_HIDDEN], pl.BF16],
        resid: pl.Tensor[[TOKENS, HIDDEN], pl.FP32],
        wo: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.BF16],
        w_gate: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
        w_up: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
        h_out: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.FP32]],
        act: pl.Out[pl.Tensor[[TOKENS, INTERMEDIATE], pl.BF16]],
    ) -> pl.Tensor[[TOKENS, INTERMEDIATE], pl.BF16]:
        h_bf = pl.create_tensor([TOKENS, HIDDEN], dtype=pl.BF16)
        for m0 in pl.parallel(0, TOKENS, M_TILE):
            for n0 in pl.parallel(0, HIDDEN, N_TILE):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="prefill_o"):
                    o_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                    for kb in pl.pipeline(Q_HIDDEN // O_K_TILE, stage=2):
                        k0 = kb * O_K_TILE
                        xa = attn[m0 : m0 + M_TILE, k0 : k0 + O_K_TILE]
                        wb = wo[n0 : n0 + N_TILE, k0 : k0 + O_K_TILE]
                        if k0 == 0:
                            o_acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                        else:
                            o_acc = pl.matmul_acc(o_acc, xa, wb, b_trans=True)
                    h = pl.add(o_acc, resid[m0 : m0 + M_TILE, n0 : n0 + N_TILE])
                    h_out[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = h
                    h_bf = pl.assemble(h_bf, pl.cast(h, target_type=pl.BF16), [m0, n0])

        for m0 in pl.parallel(0, TOKENS, M_TILE):
            for n0 in pl.parallel(0, INTERMEDIATE, N_TILE):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="prefill_gate_up"):
                    g_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                    u_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                    for kb in pl.pipeline(HIDDEN // GU_K_TILE, stage=2):
                        k0 = kb * GU_K_TILE
                        xa = h_bf[m0 : m0 + M_TILE, k0 : k0 + GU_K_TILE]
                        wg = w_gate[n0 : n0 + N_TILE, k0 : k0 + GU_K_TILE]
                        wu = w_up[n0 : n0 + N_TILE, k0 : k0 + GU_K_TILE]
                        if k0 == 0:
                            g_acc = pl.matmul(xa, wg, b_trans=True, out_dtype=pl.FP32)
                            u_acc = pl.matmul(xa, wu, b_trans=True, out_dtype=pl.FP32)
                        else:
                            g_acc = pl.matmul_acc(g_acc, xa, wg, b_trans=True)
                            u_acc = pl.matmul_acc(u_acc, xa, wu, b_trans=True)
                    gated = pl.mul(pl.mul(g_acc, pl.recip(pl.add(pl.exp(pl.neg(g_acc)), 1.0))), u_acc)
                    act[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = pl.cast(gated, target_type=pl.BF16)
        return act
