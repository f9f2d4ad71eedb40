"""Plain FP32 GEMMs with M/N/K blocking over parallel core groups.

``gemm_blocked`` is the textbook form (``pl.range`` K loop, seed on the step index);
``gemm_bias_relu`` adds a broadcast bias row and clamps at zero after the K loop.
"""

import pypto.language as pl

M = 256
N = 256
K = 512
M_TILE = 128
N_TILE = 64
K_TILE = 128


@pl.jit
def gemm_blocked(
    a: pl.Tensor[[M, K], pl.FP32],
    b: pl.Tensor[[K, N], pl.FP32],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    for mb in pl.parallel(0, M, M_TILE):
        for nb in pl.parallel(0, N, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm_tile"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.range(K // K_TILE):
                    k0 = kb * K_TILE
                    ta = a[mb : mb + M_TILE, k0 : k0 + K_TILE]
                    tb = b[k0 : k0 + K_TILE, nb : nb + N_TILE]
                    if kb == 0:
                        acc = pl.matmul(ta, tb)
                    else:
                        acc = pl.matmul_acc(acc, ta, tb)
                c[mb : mb + M_TILE, nb : nb + N_TILE] = acc
    return c


@pl.jit
def gemm_bias_relu(
    a: pl.Tensor[[M, K], pl.FP32],
    b: pl.Tensor[[K, N], pl.FP32],
    bias: pl.Tensor[[1, N], pl.FP32],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    for mb in pl.parallel(0, M, M_TILE):
        for nb in pl.parallel(0, N, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm_bias_relu"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.range(K // K_TILE):
                    k0 = kb * K_TILE
                    ta = a[mb : mb + M_TILE, k0 : k0 + K_TILE]
                    tb = b[k0 : k0 + K_TILE, nb : nb + N_TILE]
                    if k0 == 0:
                        acc = pl.matmul(ta, tb, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, ta, tb)
                biased = pl.col_expand_add(acc, bias[:, nb : nb + N_TILE])
                c[mb : mb + M_TILE, nb : nb + N_TILE] = pl.maximum(biased, 0.0)
    return c


def build_tensor_specs(m: int = M, n: int = N, k: int = K):
    import torch

    return {
        "a": torch.randn(m, k),
        "b": torch.randn(k, n),
        "bias": torch.randn(1, n),
        "c": torch.zeros(m, n),
    }


def golden_gemm_bias_relu(t):
    t["c"][:] = (t["a"] @ t["b"] + t["bias"]).clamp_min(0.0)
