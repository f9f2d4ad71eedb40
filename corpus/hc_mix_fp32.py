"""Hyper-connection mixing weights (FP32): the flattened residual streams are projected
onto the mixing coefficients.

``hc_head_mixes`` reduces the 8192-wide input in ``SPLIT`` slices, one per parallel
step, atomically adding into a zero-seeded output (seed keyed on the slice-local
offset). ``hc_pre_mixes`` is the unsplit form: the first block seeds the accumulator
before a pipelined loop that starts at block 1.
"""

import pypto.language as pl

ROWS = 16
STREAMS = 4
WIDTH = 2048
FLAT = STREAMS * WIDTH
MIXES = 32
K_TILE = 256
SPLIT = 4
K_SLICE = FLAT // SPLIT


@pl.jit
def hc_head_mixes(
    x_flat: pl.Tensor[[ROWS, FLAT], pl.FP32],
    w_mix: pl.Tensor[[MIXES, FLAT], pl.FP32],
    mixes: pl.Out[pl.Tensor[[ROWS, MIXES], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="hc_seed"):
        mixes[:, :] = pl.full([ROWS, MIXES], dtype=pl.FP32, value=0.0)
    for s in pl.parallel(SPLIT):
        k_base = s * K_SLICE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="hc_head_mm"):
            acc = pl.create_tensor([ROWS, MIXES], dtype=pl.FP32)
            for kb in pl.pipeline(K_SLICE // K_TILE, stage=2):
                kk = kb * K_TILE
                xa = x_flat[:, k_base + kk : k_base + kk + K_TILE]
                wb = w_mix[:, k_base + kk : k_base + kk + K_TILE]
                if kk == 0:
                    acc = pl.matmul(xa, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            mixes = pl.assemble(mixes, acc, [0, 0], atomic=pl.AtomicType.Add)
    return mixes


@pl.jit
def hc_pre_mixes(
    x_flat: pl.Tensor[[ROWS, FLAT], pl.FP32],
    w_mix: pl.Tensor[[MIXES, FLAT], pl.FP32],
    mixes: pl.Out[pl.Tensor[[ROWS, MIXES], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="hc_pre_mm"):
        acc = pl.matmul(x_flat[:, 0:K_TILE], w_mix[:, 0:K_TILE], b_trans=True, out_dtype=pl.FP32)
        for kb in pl.pipeline(1, FLAT // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x_flat[:, k0 : k0 + K_TILE], w_mix[:, k0 : k0 + K_TILE], b_trans=True)
        mixes[:, :] = pl.mul(acc, 1.0 / STREAMS)
    return mixes
