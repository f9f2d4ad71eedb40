"""Planted defects: accumulating before any seed — PV007 uninitialised-accumulate (Datalog: no path
initialises the window) and PV102 initialise-first (Z3: the first MAD executed accumulates). TARGET_FACTS.md,
"Observed on the pre-fix compiler": "Kernels that accumulate into a `pl.create_tensor` before any seed (a
loop from 1 with `if kb == 0`, or `init_cond=(kb == 1)`) compile silently". `tile.create` emits nothing,
so the first accumulate adds into undefined L0C. Form 1, same findings in both pipelines.

- `seed_never_runs`: `pl.pipeline(1, KB)` with `if kb == 0` seeding: the seed arm can never run. PV102 on
  the `matmul_acc` (at kb = 1 it accumulates into an undefined window). No PV007: the seed MAD (or, in the
  fixed lowering, the predicated MAD) initialises the window on some CFG path, which is all the Datalog
  rule asks; only the solver sees that the predicate is false on the whole domain.
- `late_init_cond`: `init_cond=(kb == 1)` on a loop from 0: at kb = 0 the MAD accumulates (PV102), and at
  kb = 1 it re-initialises over the undrained block 0, which is lost (PV103: the source resetting there
  too is no excuse).
- `no_seed`: no seed at all, every block accumulates: PV007 (no path initialises the window) and PV102.
"""

import pypto.language as pl

M, N, K = 16, 64, 512
K_TILE = 128
KB = K // K_TILE


@pl.jit
def seed_never_runs(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="seed_never_runs"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.pipeline(1, KB, stage=2):
            k0 = kb * K_TILE
            if kb == 0:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])  # expect: PV102
        y[:, :] = acc
    return y


@pl.jit
def late_init_cond(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="late_init_cond"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.pipeline(KB, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 1))  # expect: PV102, PV103
        y[:, :] = acc
    return y


@pl.jit
def no_seed(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="no_seed"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(KB):
            k0 = kb * K_TILE
            # `prove` also refutes PV102 here; `check` proves only the kernels the Datalog rules leave
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])  # expect: PV007
        y[:, :] = acc
    return y
