"""Int8 KV compressors over the 7168-wide hidden state.

``compress_ratio4`` computes the compressed KV tile and its score tile in one loop of
28 steps of 256 (two INT32 chains); the window pooling runs on the vector unit.
``compress_ratio128`` only needs the KV projection (row-major ``[K, N]`` weight) and
walks K by offset with 512-wide steps.
"""

import pypto.language as pl

from model_config import MOE_HIDDEN

T = 16
D = MOE_HIDDEN
OUT = 256
K4 = 256
K128 = 512
DQ = 1.0 / 4096.0


@pl.jit
def compress_ratio4(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    w_kv: pl.Tensor[[OUT, D], pl.INT8],
    w_sc: pl.Tensor[[OUT, D], pl.INT8],
    prev: pl.Tensor[[T, OUT], pl.FP32],
    out: pl.Out[pl.Tensor[[T, OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="compress_ratio4"):
        kv_acc = pl.create_tensor([T, OUT], dtype=pl.INT32)
        sc_acc = pl.create_tensor([T, OUT], dtype=pl.INT32)
        for kb in pl.pipeline(D // K4, stage=2):
            k0 = kb * K4
            xa = x_i8[:, k0 : k0 + K4]
            wkv = w_kv[:, k0 : k0 + K4]
            wsc = w_sc[:, k0 : k0 + K4]
            if k0 == 0:
                kv_acc = pl.matmul(xa, wkv, b_trans=True)
                sc_acc = pl.matmul(xa, wsc, b_trans=True)
            else:
                kv_acc = pl.matmul_acc(kv_acc, xa, wkv, b_trans=True)
                sc_acc = pl.matmul_acc(sc_acc, xa, wsc, b_trans=True)
        kv = pl.mul(pl.cast(kv_acc, target_type=pl.FP32), DQ)
        w = pl.exp(pl.mul(pl.cast(sc_acc, target_type=pl.FP32), DQ))
        out[:, :] = pl.add(pl.mul(kv, w), prev)
    return out


@pl.jit
def compress_ratio128(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    w_kv_t: pl.Tensor[[D, OUT], pl.INT8],
    out: pl.Out[pl.Tensor[[T, OUT], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="compress_ratio128"):
        acc = pl.create_tensor([T, OUT], dtype=pl.INT32)
        for k0 in pl.pipeline(0, D, K128, stage=2):
            xa = x_i8[:, k0 : k0 + K128]
            wb = w_kv_t[k0 : k0 + K128, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        out = pl.assemble(out, acc, [0, 0])
    return out
