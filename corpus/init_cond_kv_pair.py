"""Key and value projections with predicated first steps (prefill, 128-row tiles).

Both chains live in one loop and share the activation slice; each ``matmul_acc``
carries ``init_cond`` on the derived offset ``k0 == 0``. Accumulators are
``pl.create_tensor`` tiles drained with ``pl.assemble``.
"""

import pypto.language as pl

from model_config import HIDDEN, KV_HIDDEN

TOKENS = 128
M_TILE = 128
N_TILE = 64
K_TILE = 128


@pl.jit
def pred_kv(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
    wk: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
    wv: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
    k: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.BF16]],
    v: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.BF16]],
):
    for n0 in pl.parallel(0, KV_HIDDEN, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="pred_kv"):
            k_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
            v_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wkb = wk[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                wvb = wv[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                k_acc = pl.matmul_acc(k_acc, xa, wkb, b_trans=True, init_cond=(k0 == 0))
                v_acc = pl.matmul_acc(v_acc, xa, wvb, b_trans=True, init_cond=(k0 == 0))
            k = pl.assemble(k, pl.cast(k_acc, target_type=pl.BF16), [0, n0])
            v = pl.assemble(v, pl.cast(v_acc, target_type=pl.BF16), [0, n0])
    return k, v
