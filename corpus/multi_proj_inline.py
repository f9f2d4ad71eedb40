"""One inlined projection body shared by three call sites (Q, K and V of a
cross-attention block). ``proj_cols`` is a ``@pl.jit.inline`` function: the source
holds one accumulator site; each call expands it over different tensors.
"""

import pypto.language as pl

ROWS = 16
D_MODEL = 1024
N_TILE = 256
K_TILE = 128


@pl.jit.inline
def proj_cols(
    x: pl.Tensor[[ROWS, D_MODEL], pl.BF16],
    w: pl.Tensor[[D_MODEL, D_MODEL], pl.BF16],
    y: pl.Tensor[[ROWS, D_MODEL], pl.FP32],
):
    for n0 in pl.parallel(0, D_MODEL, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj_cols"):
            acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.FP32)
            for kb in pl.range(D_MODEL // K_TILE):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                if kb == 0:
                    acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xa, wb)
            y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def cross_attn_qkv(
    x: pl.Tensor[[ROWS, D_MODEL], pl.BF16],
    mem: pl.Tensor[[ROWS, D_MODEL], pl.BF16],
    wq: pl.Tensor[[D_MODEL, D_MODEL], pl.BF16],
    wk: pl.Tensor[[D_MODEL, D_MODEL], pl.BF16],
    wv: pl.Tensor[[D_MODEL, D_MODEL], pl.BF16],
    q: pl.Out[pl.Tensor[[ROWS, D_MODEL], pl.FP32]],
    k: pl.Out[pl.Tensor[[ROWS, D_MODEL], pl.FP32]],
    v: pl.Out[pl.Tensor[[ROWS, D_MODEL], pl.FP32]],
):
    q = proj_cols(x, wq, q)
    k = proj_cols(mem, wk, k)
    v = proj_cols(mem, wv, v)
    return q, k, v


def golden_cross_attn_qkv(t):
    t["q"][:] = t["x"].float() @ t["wq"].float()
    t["k"][:] = t["mem"].float() @ t["wk"].float()
    t["v"][:] = t["mem"].float() @ t["wv"].float()


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    p.add_argument("--rtol", type=float, default=2e-3)
    args = p.parse_args()
    raise SystemExit(f"no runtime in this checkout (platform {args.platform}, rtol {args.rtol})")
