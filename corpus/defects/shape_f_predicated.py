"""Shape F, clean: the predicated form (L0C_RULES.md, "The shapes every engine test covers"; TARGET_FACTS.md,
AutoTileMatmulL0 "New body (the fix)").

`pred_proj`: the user writes the predicate, one `matmul_acc(acc, ..., init_cond=(k0 == 0))` per K block
of a stage-2 pipeline over a `pl.create_tensor` accumulator, one output tile after the other (each stored
before the next one starts, so re-initialising it is a new tile, not a lost partial sum).
`seed_branch`: the branchy INT8 `if kb == 0` seed that the fixed tiler turns into the predicated body
(and that the legacy pipeline keeps as an if-phi, on one buffer).

No expectation: this file must give no finding (error or warning) in either pipeline. (A predicated
block too large for L0B is in `pv008_legacy_untiled_predicated.py`: the legacy pipeline rejects it.)
"""

import pypto.language as pl

M, N, K = 16, 256, 1024
K_TILE = 256


@pl.jit
def pred_proj(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[N, K], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pred_proj"):
        acc = pl.create_tensor([M, 64], dtype=pl.FP32)
        for nb in pl.range(N // 64):
            n0 = nb * 64
            for k0 in pl.pipeline(0, K, K_TILE, stage=2):
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[n0 : n0 + 64, k0 : k0 + K_TILE], b_trans=True,
                                    init_cond=(k0 == 0))
            y[:, n0 : n0 + 64] = acc
    return y


@pl.jit
def seed_branch(
    x: pl.Tensor[[M, K], pl.INT8],
    w: pl.Tensor[[K, 64], pl.INT8],
    y: pl.Out[pl.Tensor[[M, 64], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="seed_branch"):
        acc = pl.create_tensor([M, 64], dtype=pl.INT32)
        for kb in pl.pipeline(K // K_TILE, stage=2):
            k0 = kb * K_TILE
            if kb == 0:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
            else:
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
        y[:, :] = acc
    return y
