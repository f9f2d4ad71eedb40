"""BF16 GEMMs with fused vector epilogues (FP32 accumulate, BF16 or FP32 out).

``gemm_scale_mul`` multiplies the product element-wise by a gating tensor;
``gemm_exp`` exponentiates it (as a softmax numerator) and stores BF16.
"""

import pypto.language as pl

M = 64
N = 512
K = 1024
M_TILE = 16
N_TILE = 256
K_TILE = 256


@pl.jit
def gemm_scale_mul(
    a: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    gate: pl.Tensor[[M, N], pl.FP32],
    out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    for m0 in pl.parallel(0, M, M_TILE):
        for n0 in pl.parallel(0, N, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm_mul"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.range(K // K_TILE):
                    k0 = kb * K_TILE
                    ta = a[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    tw = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                    if kb == 0:
                        acc = pl.matmul(ta, tw, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, ta, tw)
                out[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = pl.mul(acc, gate[m0 : m0 + M_TILE, n0 : n0 + N_TILE])
    return out


@pl.jit
def gemm_exp(
    a: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[N, K], pl.BF16],
    out: pl.Out[pl.Tensor[[M, N], pl.BF16]],
):
    for m0 in pl.parallel(0, M, M_TILE):
        for n0 in pl.parallel(0, N, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm_exp"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.pipeline(K // K_TILE, stage=2):
                    k0 = kb * K_TILE
                    ta = a[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    tw = w[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    if k0 == 0:
                        acc = pl.matmul(ta, tw, b_trans=True, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, ta, tw, b_trans=True)
                num = pl.exp(pl.mul(acc, 0.125))
                out[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = pl.cast(num, target_type=pl.BF16)
    return out
