"""Decode-step Q/K/V projections of a dense grouped-query decoder layer.

One new token per sequence, so the whole batch is a single 16-row M tile. ``q_proj``
spreads the query columns over SPMD blocks; ``kv_proj`` produces the key and the value
projection of one column tile in the same K loop so every activation slice is loaded
once and feeds both cube ops. Weights are stored row-major as ``[HIDDEN, N]``.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, KV_HIDDEN, Q_HIDDEN

Q_N_TILE = 256      # query columns per SPMD block
Q_K_TILE = 256      # reduction step of the query projection
KV_N_TILE = 256     # key/value columns per block
KV_K_TILE = 128     # smaller K step: two weight slices are staged per iteration


@pl.jit
def q_proj(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    wq: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.BF16],
    q_out: pl.Out[pl.Tensor[[BATCH, Q_HIDDEN], pl.FP32]],
):
    for qi in pl.spmd(Q_HIDDEN // Q_N_TILE, name_hint="q_proj"):
        n0 = qi * Q_N_TILE
        q_acc = pl.create_tensor([BATCH, Q_N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(HIDDEN // Q_K_TILE, stage=2):
            k0 = kb * Q_K_TILE
            x_chunk = x[:, k0 : k0 + Q_K_TILE]
            wq_chunk = wq[k0 : k0 + Q_K_TILE, n0 : n0 + Q_N_TILE]
            if k0 == 0:
                q_acc = pl.matmul(x_chunk, wq_chunk, out_dtype=pl.FP32)
            else:
                q_acc = pl.matmul_acc(q_acc, x_chunk, wq_chunk)
        q_out = pl.assemble(q_out, q_acc, [0, n0])
    return q_out


@pl.jit
def kv_proj(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    wk: pl.Tensor[[HIDDEN, KV_HIDDEN], pl.BF16],
    wv: pl.Tensor[[HIDDEN, KV_HIDDEN], pl.BF16],
    k_out: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
    v_out: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
):
    for kvi in pl.spmd(KV_HIDDEN // KV_N_TILE, name_hint="kv_proj"):
        n0 = kvi * KV_N_TILE
        k_acc = pl.create_tensor([BATCH, KV_N_TILE], dtype=pl.FP32)
        v_acc = pl.create_tensor([BATCH, KV_N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(HIDDEN // KV_K_TILE, stage=2):
            k0 = kb * KV_K_TILE
            x_chunk = x[:, k0 : k0 + KV_K_TILE]
            wk_chunk = wk[k0 : k0 + KV_K_TILE, n0 : n0 + KV_N_TILE]
            wv_chunk = wv[k0 : k0 + KV_K_TILE, n0 : n0 + KV_N_TILE]
            if k0 == 0:
                k_acc = pl.matmul(x_chunk, wk_chunk, out_dtype=pl.FP32)
                v_acc = pl.matmul(x_chunk, wv_chunk, out_dtype=pl.FP32)
            else:
                k_acc = pl.matmul_acc(k_acc, x_chunk, wk_chunk)
                v_acc = pl.matmul_acc(v_acc, x_chunk, wv_chunk)
        k_out = pl.assemble(k_out, k_acc, [0, n0])
        v_out = pl.assemble(v_out, v_acc, [0, n0])
    return k_out, v_out


def golden_qkv(tensors):
    """Reference in torch; used by the host-side test runner only."""
    x = tensors["x"].float()
    tensors["q_out"][:] = x @ tensors["wq"].float()
    tensors["k_out"][:] = x @ tensors["wk"].float()
    tensors["v_out"][:] = x @ tensors["wv"].float()
