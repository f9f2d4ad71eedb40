"""A whole dense decode layer's cube work in one Opaque program function.

Q, K/V, output projection and the MLP are separate core-group stages; attention
itself is out of scope here (its output arrives as ``attn``). Every reduction keys its
seed on the derived offset ``k0 = kb * K_TILE``. Weights are row-major ``[K, N]``.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, INTERMEDIATE, KV_HIDDEN, Q_HIDDEN

Q_N = 256
Q_K = 256
KV_N = 256
KV_K = 128
O_N = 256
O_K = 256
GU_N = 64
GU_K = 512
D_N = 256
D_K = 256


@pl.program
class DenseDecodeLayer:
    @pl.function(type=pl.FunctionType.Opaque)
    def decode_layer(
        self,
        x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
        attn: pl.Tensor[[BATCH, Q_HIDDEN], pl.BF16],
        wq: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.BF16],
        wk: pl.Tensor[[HIDDEN, KV_HIDDEN], pl.BF16],
        wv: pl.Tensor[[HIDDEN, KV_HIDDEN], pl.BF16],
        wo: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.BF16],
        w_gate: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.BF16],
        w_up: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.BF16],
        w_down: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
        q: pl.Out[pl.Tensor[[BATCH, Q_HIDDEN], pl.FP32]],
        k: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
        v: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
        out: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.BF16]],
    ) -> pl.Tensor[[BATCH, HIDDEN], pl.BF16]:
        for qb in pl.parallel(Q_HIDDEN // Q_N):
            n0 = qb * Q_N
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="q"):
                q_acc = pl.create_tensor([BATCH, Q_N], dtype=pl.FP32)
                for kb in pl.pipeline(HIDDEN // Q_K, stage=2):
                    k0 = kb * Q_K
                    xa = x[:, k0 : k0 + Q_K]
                    wb = wq[k0 : k0 + Q_K, n0 : n0 + Q_N]
                    if k0 == 0:
                        q_acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
                    else:
                        q_acc = pl.matmul_acc(q_acc, xa, wb)
                q = pl.assemble(q, q_acc, [0, n0])

        for vb in pl.parallel(KV_HIDDEN // KV_N):
            n0 = vb * KV_N
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="kv"):
                k_acc = pl.create_tensor([BATCH, KV_N], dtype=pl.FP32)
                v_acc = pl.create_tensor([BATCH, KV_N], dtype=pl.FP32)
                for kb in pl.pipeline(HIDDEN // KV_K, stage=2):
                    k0 = kb * KV_K
                    xa = x[:, k0 : k0 + KV_K]
                    wkb = wk[k0 : k0 + KV_K, n0 : n0 + KV_N]
                    wvb = wv[k0 : k0 + KV_K, n0 : n0 + KV_N]
                    if k0 == 0:
                        k_acc = pl.matmul(xa, wkb, out_dtype=pl.FP32)
                        v_acc = pl.matmul(xa, wvb, out_dtype=pl.FP32)
                    else:
                        k_acc = pl.matmul_acc(k_acc, xa, wkb)
                        v_acc = pl.matmul_acc(v_acc, xa, wvb)
                k = pl.assemble(k, k_acc, [0, n0])
                v = pl.assemble(v, v_acc, [0, n0])

        h1 = pl.create_tensor([BATCH, HIDDEN], dtype=pl.FP32)
        h1_bf = pl.create_tensor([BATCH, HIDDEN], dtype=pl.BF16)
        for ob in pl.parallel(HIDDEN // O_N):
            n0 = ob * O_N
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="o"):
                o_acc = pl.create_tensor([BATCH, O_N], dtype=pl.FP32)
                for kb in pl.pipeline(Q_HIDDEN // O_K, stage=2):
                    k0 = kb * O_K
                    aa = attn[:, k0 : k0 + O_K]
                    wb = wo[k0 : k0 + O_K, n0 : n0 + O_N]
                    if k0 == 0:
                        o_acc = pl.matmul(aa, wb, out_dtype=pl.FP32)
                    else:
                        o_acc = pl.matmul_acc(o_acc, aa, wb)
                res = pl.add(o_acc, pl.cast(x[:, n0 : n0 + O_N], target_type=pl.FP32))
                h1 = pl.assemble(h1, res, [0, n0])
                h1_bf = pl.assemble(h1_bf, pl.cast(res, target_type=pl.BF16), [0, n0])

        act = pl.create_tensor([BATCH, INTERMEDIATE], dtype=pl.BF16)
        for gb in pl.parallel(INTERMEDIATE // GU_N):
            n0 = gb * GU_N
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gate_up"):
                g_acc = pl.create_tensor([BATCH, GU_N], dtype=pl.FP32)
                u_acc = pl.create_tensor([BATCH, GU_N], dtype=pl.FP32)
                for kb in pl.pipeline(HIDDEN // GU_K, stage=2):
                    k0 = kb * GU_K
                    ha = h1_bf[:, k0 : k0 + GU_K]
                    wg = w_gate[k0 : k0 + GU_K, n0 : n0 + GU_N]
                    wu = w_up[k0 : k0 + GU_K, n0 : n0 + GU_N]
                    if k0 == 0:
                        g_acc = pl.matmul(ha, wg, out_dtype=pl.FP32)
                        u_acc = pl.matmul(ha, wu, out_dtype=pl.FP32)
                    else:
                        g_acc = pl.matmul_acc(g_acc, ha, wg)
                        u_acc = pl.matmul_acc(u_acc, ha, wu)
                gated = pl.mul(pl.mul(g_acc, pl.recip(pl.add(pl.exp(pl.neg(g_acc)), 1.0))), u_acc)
                act = pl.assemble(act, pl.cast(gated, target_type=pl.BF16), [0, n0])

        for db in pl.parallel(HIDDEN // D_N):
            n0 = db * D_N
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="down"):
                d_acc = pl.create_tensor([BATCH, D_N], dtype=pl.FP32)
                for kb in pl.pipeline(INTERMEDIATE // D_K, stage=2):
                    k0 = kb * D_K
                    aa = act[:, k0 : k0 + D_K]
                    wb = w_down[k0 : k0 + D_K, n0 : n0 + D_N]
                    if k0 == 0:
                        d_acc = pl.matmul(aa, wb, out_dtype=pl.FP32)
                    else:
                        d_acc = pl.matmul_acc(d_acc, aa, wb)
                out[:, n0 : n0 + D_N] = pl.cast(pl.add(d_acc, h1[:, n0 : n0 + D_N]), target_type=pl.BF16)
        return out
