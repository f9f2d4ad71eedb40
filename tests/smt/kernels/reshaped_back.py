"""A GM buffer viewed as `[T, H, D]` for a step that writes its heads in place, then viewed back as
`[T, H * D]` and read in K blocks by a MAD whose weight is a bare `pl.Tensor` (issue 13; the pattern of
`qwen3_14b/decode_fwd.py`'s output projection): reshaping back to the buffer's own shape is the buffer
itself (one row-major buffer), so the left operand's K blocks are blocks of it and PV106 checks them.
`heads_back` proves; its twin `heads_back_skips` reads the heads one K block behind (PV106)."""
import pypto.language as pl

T, H, D, N, TK = 16, 4, 64, 128, 64


@pl.jit
def heads_back(x: pl.Tensor[[T, H, D], pl.FP32], w: pl.Tensor, y: pl.Out[pl.Tensor[[T, N], pl.FP32]]):
    heads = pl.create_tensor([T, H * D], dtype=pl.BF16)
    heads_thd = pl.reshape(heads, [T, H, D])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="heads"):
        heads_thd = pl.assemble(heads_thd, pl.cast(x, target_type=pl.BF16), [0, 0, 0])
    heads = pl.reshape(heads_thd, [T, H * D])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        acc = pl.matmul(heads[:, 0:TK], w[0:TK, 0:N], out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, H * D, TK, stage=2):
            acc = pl.matmul_acc(acc, heads[:, k0 : k0 + TK], w[k0 : k0 + TK, 0:N])
        y[:, :] = acc
    return y


@pl.jit
def heads_back_skips(x: pl.Tensor[[T, H, D], pl.FP32], w: pl.Tensor, y: pl.Out[pl.Tensor[[T, N], pl.FP32]]):
    heads = pl.create_tensor([T, H * D], dtype=pl.BF16)
    heads_thd = pl.reshape(heads, [T, H, D])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="heads"):
        heads_thd = pl.assemble(heads_thd, pl.cast(x, target_type=pl.BF16), [0, 0, 0])
    heads = pl.reshape(heads_thd, [T, H * D])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        acc = pl.matmul(heads[:, 0:TK], w[0:TK, 0:N], out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, H * D, TK, stage=2):
            acc = pl.matmul_acc(acc, heads[:, k0 - TK : k0], w[k0 : k0 + TK, 0:N])  # expect: PV106
        y[:, :] = acc
    return y
