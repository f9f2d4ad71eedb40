"""Reinforcement-learning heads on a policy trunk (FP32).

``value_reward`` computes the value and reward heads from one K loop (two chains);
``policy_logits`` is the action head with a 512-wide K step; ``baseline`` is the
peeled form of a small baseline head (seed block, pipelined loop from block 1).
"""

import pypto.language as pl

ROWS = 16
TRUNK = 2048
HEAD_N = 32
ACTIONS = 128
VR_K = 256
POL_K = 512


@pl.jit
def value_reward(
    h: pl.Tensor[[ROWS, TRUNK], pl.FP32],
    w_value: pl.Tensor[[HEAD_N, TRUNK], pl.FP32],
    w_reward: pl.Tensor[[HEAD_N, TRUNK], pl.FP32],
    value: pl.Out[pl.Tensor[[ROWS, HEAD_N], pl.FP32]],
    reward: pl.Out[pl.Tensor[[ROWS, HEAD_N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="value_reward"):
        v_acc = pl.create_tensor([ROWS, HEAD_N], dtype=pl.FP32)
        r_acc = pl.create_tensor([ROWS, HEAD_N], dtype=pl.FP32)
        for kb in pl.pipeline(TRUNK // VR_K, stage=2):
            k0 = kb * VR_K
            ha = h[:, k0 : k0 + VR_K]
            wv = w_value[:, k0 : k0 + VR_K]
            wr = w_reward[:, k0 : k0 + VR_K]
            if k0 == 0:
                v_acc = pl.matmul(ha, wv, b_trans=True)
                r_acc = pl.matmul(ha, wr, b_trans=True)
            else:
                v_acc = pl.matmul_acc(v_acc, ha, wv, b_trans=True)
                r_acc = pl.matmul_acc(r_acc, ha, wr, b_trans=True)
        value[:, :] = v_acc
        reward[:, :] = pl.maximum(pl.minimum(r_acc, 1.0), -1.0)
    return value, reward


@pl.jit
def policy_logits(
    h: pl.Tensor[[ROWS, TRUNK], pl.FP32],
    w_pol: pl.Tensor[[ACTIONS, TRUNK], pl.FP32],
    logits: pl.Out[pl.Tensor[[ROWS, ACTIONS], pl.FP32]],
):
    for a0 in pl.parallel(0, ACTIONS, HEAD_N):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="policy_logits"):
            acc = pl.create_tensor([ROWS, HEAD_N], dtype=pl.FP32)
            for kb in pl.pipeline(TRUNK // POL_K, stage=2):
                k0 = kb * POL_K
                ha = h[:, k0 : k0 + POL_K]
                wb = w_pol[a0 : a0 + HEAD_N, k0 : k0 + POL_K]
                if kb == 0:
                    acc = pl.matmul(ha, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, ha, wb, b_trans=True)
            logits = pl.assemble(logits, acc, [0, a0])
    return logits


@pl.jit
def baseline(
    h: pl.Tensor[[ROWS, TRUNK], pl.FP32],
    w_base: pl.Tensor[[TRUNK, HEAD_N], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, HEAD_N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="baseline"):
        acc = pl.matmul(h[:, 0:VR_K], w_base[0:VR_K, :])
        for kb in pl.pipeline(1, TRUNK // VR_K, stage=2):
            k0 = kb * VR_K
            acc = pl.matmul_acc(acc, h[:, k0 : k0 + VR_K], w_base[k0 : k0 + VR_K, :])
        out[:, :] = acc
    return out
