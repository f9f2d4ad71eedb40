"""Planted defect: PV007 uninitialised-accumulate on a drain — a K loop that runs zero times, so the
store drains the never-initialised L0C of its `pl.create_tensor` accumulator (L0C_RULES.md PV007;
TARGET_FACTS.md: `tile.create` emits no instruction, the L0C contents are undefined until a MAD writes
them). Issue 12: before the drain was covered, only the simulation caught this (PV201), so under
`--no-sim` (the pre-commit hook's mode) both kernels verified.

The split-K stage gives each of its SPLIT slices K_SLICE = K // SPLIT = 64 columns and tiles the slice by
K_TILE = 128, so `K_SLICE // K_TILE` is 0: every K loop below has a literal zero trip count. The body,
with its seed, never runs; the loop returns its init, the `tile.create`, and the drain reads undefined L0C.

- `split_k_if_seed`: the `if kb == 0: matmul / else: matmul_acc` seed inside the zero-trip loop (the fixed
  pipeline predicates it, the legacy one keeps the if-phi); each slice's partial sum is assembled into
  `partials`. PV007 on the assemble.
- `split_k_init_cond`: the predicated form `init_cond=(kb == 0)`. PV007 on the store.

PV201 on each `def` (both pipelines): simulated, the drain reads undefined L0C (the simulator's poison),
which the manifest test checks directly (`check` proves and simulates only the kernels the Datalog rules
leave, so it shows no PV102 or PV201 here). Same findings in both pipelines.
"""

import pypto.language as pl

M, N, K = 16, 64, 256
SPLIT = 4
K_SLICE = K // SPLIT
K_TILE = 128
KB = K_SLICE // K_TILE


@pl.jit
def split_k_if_seed(  # expect: PV201
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    partials: pl.Out[pl.Tensor[[SPLIT * M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="split_k_if_seed"):
        for s in pl.range(SPLIT):
            acc = pl.create_tensor([M, N], dtype=pl.FP32)
            for kb in pl.range(KB):
                k0 = s * K_SLICE + kb * K_TILE
                if kb == 0:
                    acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
            partials = pl.assemble(partials, acc, [s * M, 0])  # expect: PV007
    return partials


@pl.jit
def split_k_init_cond(  # expect: PV201
    x: pl.Tensor[[M, K_SLICE], pl.BF16],
    w: pl.Tensor[[K_SLICE, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="split_k_init_cond"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(KB):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 0))
        y[:, :] = acc  # expect: PV007
    return y
