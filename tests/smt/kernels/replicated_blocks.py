"""Chains that are not carried by their pipelined loop, and operands the model cannot trace.

`per_block` pipelines over output row blocks (`stage=2`, two iterations): each iteration starts a
fresh, auto-tiled accumulator, so the lowering's main loop of step 2 holds two clones, the second at
`hb + 1`; `per_block_tail` has three iterations: one main loop iteration of two clones, then a
literal tail clone at `hb = 2`. `reshaped_lhs` reads its left operand through a reshape that merges two dimensions (the
model cannot trace it to a GM block), so the K width the lowering tiles into comes from the right
operand; `both_reshaped` reads both operands so, and the K width comes from the left operand's type.
`per_block_inner_loop` pipelines an outer loop around an inner `pl.parallel` over column blocks: the
clone's copy of the inner loop is renamed (`n0` → `n0_1`) and is still the source's `n0`;
`unrolled_inner_loop` does the same under `pl.unroll`, whose copies fix `hb` to a literal each."""
import pypto.language as pl

H, M_TILE, K, N = 64, 32, 512, 128


@pl.jit
def per_block(q: pl.Tensor[[H, K], pl.BF16], kv: pl.Tensor[[N, K], pl.BF16], y: pl.Out[pl.Tensor[[H, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="per_block"):
        for hb in pl.pipeline(H // M_TILE, stage=2):
            h0 = hb * M_TILE
            raw = pl.matmul(q[h0 : h0 + M_TILE, 0:K], kv[0:N, 0:K], b_trans=True, out_dtype=pl.FP32)
            y[h0 : h0 + M_TILE, 0:N] = raw
    return y


@pl.jit
def per_block_tail(q: pl.Tensor[[96, K], pl.BF16], kv: pl.Tensor[[N, K], pl.BF16], y: pl.Out[pl.Tensor[[96, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="per_block_tail"):
        for hb in pl.pipeline(96 // M_TILE, stage=2):
            h0 = hb * M_TILE
            raw = pl.matmul(q[h0 : h0 + M_TILE, 0:K], kv[0:N, 0:K], b_trans=True, out_dtype=pl.FP32)
            y[h0 : h0 + M_TILE, 0:N] = raw
    return y


@pl.jit
def reshaped_lhs(x3: pl.Tensor[[2, 8, 1024], pl.INT8], w: pl.Tensor[[4, 256, 1024], pl.INT8],
                 y: pl.Out[pl.Tensor[[16, 256], pl.INT32]], e: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="reshaped_lhs"):
        x = pl.reshape(x3, [16, 1024])
        acc = pl.create_tensor([1, 16, 256], dtype=pl.INT32)
        for k0 in pl.pipeline(0, 1024, 512, stage=2):
            x_k = x[0:16, k0 : k0 + 512]
            w_k = w[e : e + 1, 0:256, k0 : k0 + 512]
            if k0 == 0:
                acc = pl.matmul(x_k, w_k, b_trans=True, out_dtype=pl.INT32)
            else:
                acc = pl.matmul_acc(acc, x_k, w_k, b_trans=True)
        y[:, :] = pl.reshape(acc, [16, 256])
    return y


@pl.jit
def both_reshaped(x3: pl.Tensor[[2, 8, 512], pl.BF16], w3: pl.Tensor[[2, 64, 512], pl.BF16],
                  y: pl.Out[pl.Tensor[[16, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="both_reshaped"):
        x = pl.reshape(x3, [16, 512])
        w = pl.reshape(w3, [128, 512])
        y[:, :] = pl.matmul(x[0:16, 0:512], w[0:128, 0:512], b_trans=True, out_dtype=pl.FP32)
    return y


@pl.jit
def per_block_inner_loop(q: pl.Tensor[[H, K], pl.BF16], kv: pl.Tensor[[N, K], pl.BF16],
                         y: pl.Out[pl.Tensor[[H, N], pl.FP32]]):
    for hb in pl.pipeline(H // M_TILE, stage=2):
        h0 = hb * M_TILE
        for n0 in pl.parallel(0, N, 64):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="per_block_inner_loop"):
                acc = pl.create_tensor([M_TILE, 64], dtype=pl.FP32)
                for kb in pl.range(K // 128):
                    k0 = kb * 128
                    if kb == 0:
                        acc = pl.matmul(q[h0 : h0 + M_TILE, k0 : k0 + 128], kv[n0 : n0 + 64, k0 : k0 + 128],
                                        b_trans=True, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, q[h0 : h0 + M_TILE, k0 : k0 + 128], kv[n0 : n0 + 64, k0 : k0 + 128],
                                            b_trans=True)
                y[h0 : h0 + M_TILE, n0 : n0 + 64] = acc
    return y


@pl.jit
def unrolled_inner_loop(q: pl.Tensor[[H, K], pl.BF16], kv: pl.Tensor[[N, K], pl.BF16],
                        y: pl.Out[pl.Tensor[[H, N], pl.FP32]]):
    for hb in pl.unroll(H // M_TILE):
        h0 = hb * M_TILE
        for n0 in pl.parallel(0, N, 64):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="unrolled_inner_loop"):
                y[h0 : h0 + M_TILE, n0 : n0 + 64] = pl.matmul(q[h0 : h0 + M_TILE, 0:K], kv[n0 : n0 + 64, 0:K],
                                                              b_trans=True, out_dtype=pl.FP32)
    return y
