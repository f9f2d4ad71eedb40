"""A tile of a run-time number of rows: PyPTO's tile.create takes only compile-time dims, so this is an
input error (the run-time extent belongs in valid_shape)."""

import pypto.language as pl

T_DYN = pl.dynamic("T")
N = 64


@pl.jit
def dynamic_tile(
    x: pl.Tensor[[T_DYN, N], pl.FP32],
    w: pl.Tensor[[N, N], pl.BF16],
    out: pl.Out[pl.Tensor[[16, N], pl.FP32]],
):
    t_dim = pl.tensor.dim(x, 0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="dynamic_tile"):
        scratch = pl.create_tensor([t_dim, N], dtype=pl.FP32)
        doubled = pl.mul(scratch, 2.0)
        head = pl.cast(doubled[0:16, :], target_type=pl.BF16)
        out[:, :] = pl.matmul(head, w, out_dtype=pl.FP32)
    return out
