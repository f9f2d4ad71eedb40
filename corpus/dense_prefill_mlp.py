"""Prefill SwiGLU MLP written the way whole-layer programs are: one Opaque function
holding core-group scopes.

The gate/up loop walks the reduction by element offset (``for k0 in pl.pipeline(0,
HIDDEN, K_TILE)``), so the seed test is on the offset itself. Weights use the
``[N, K]`` checkpoint layout.
"""

import pypto.language as pl

from model_config import HIDDEN, INTERMEDIATE

TOKENS = 128
M_TILE = 128
N_TILE = 64
K_TILE = 256
DOWN_K_TILE = 256


@pl.program
class DensePrefillMLP:
    @pl.function(type=pl.FunctionType.Opaque)
    def prefill_mlp(
        self,
        x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
        w_gate: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
        w_up: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
        w_down: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.BF16],
        out: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.BF16]],
    ) -> pl.Tensor[[TOKENS, HIDDEN], pl.BF16]:
        act = pl.create_tensor([TOKENS, INTERMEDIATE], dtype=pl.BF16)
        for m0 in pl.parallel(0, TOKENS, M_TILE):
            for n0 in pl.parallel(0, INTERMEDIATE, N_TILE):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="gate_up"):
                    g_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                    u_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                    for k0 in pl.pipeline(0, HIDDEN, K_TILE, stage=2):
                        xa = x[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                        wg = w_gate[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                        wu = w_up[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                        if k0 == 0:
                            g_acc = pl.matmul(xa, wg, b_trans=True, out_dtype=pl.FP32)
                            u_acc = pl.matmul(xa, wu, b_trans=True, out_dtype=pl.FP32)
                        else:
                            g_acc = pl.matmul_acc(g_acc, xa, wg, b_trans=True)
                            u_acc = pl.matmul_acc(u_acc, xa, wu, b_trans=True)
                    gate_sig = pl.recip(pl.add(pl.exp(pl.neg(g_acc)), 1.0))
                    gated = pl.mul(pl.mul(g_acc, gate_sig), u_acc)
                    act = pl.assemble(act, pl.cast(gated, target_type=pl.BF16), [m0, n0])

        for m0 in pl.parallel(0, TOKENS, M_TILE):
            for d0 in pl.parallel(0, HIDDEN, N_TILE):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="down"):
                    d_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                    for k0 in pl.pipeline(0, INTERMEDIATE, DOWN_K_TILE, stage=2):
                        ha = act[m0 : m0 + M_TILE, k0 : k0 + DOWN_K_TILE]
                        wd = w_down[d0 : d0 + N_TILE, k0 : k0 + DOWN_K_TILE]
                        if k0 == 0:
                            d_acc = pl.matmul(ha, wd, b_trans=True, out_dtype=pl.FP32)
                        else:
                            d_acc = pl.matmul_acc(d_acc, ha, wd, b_trans=True)
                    out[m0 : m0 + M_TILE, d0 : d0 + N_TILE] = pl.cast(d_acc, target_type=pl.BF16)
        return out
