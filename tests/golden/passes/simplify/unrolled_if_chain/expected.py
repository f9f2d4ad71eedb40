# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit
def unrolled_index(x: pl.Tensor[[16, 512], pl.BF16], w: pl.Tensor[[512, 64], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="unrolled_index"):
        acc = pl.tensor.create([16, 64], dtype=pl.FP32)
        xa__u0 = pl.tensor.slice(x, [16, 128], [0, 0])
        wb__u0 = pl.tensor.slice(w, [128, 64], [0, 0])
        acc__ssa_v2__u0 = pl.tensor.matmul(xa__u0, wb__u0, out_dtype=pl.FP32)
        xa__u1 = pl.tensor.slice(x, [16, 128], [0, 128])
        wb__u1 = pl.tensor.slice(w, [128, 64], [128, 0])
        acc__ssa_v3__u1 = pl.tensor.matmul_acc(acc__ssa_v2__u0, xa__u1, wb__u1)
        xa__u2 = pl.tensor.slice(x, [16, 128], [0, 256])
        wb__u2 = pl.tensor.slice(w, [128, 64], [256, 0])
        acc__ssa_v3__u2 = pl.tensor.matmul_acc(acc__ssa_v3__u1, xa__u2, wb__u2)
        xa__u3 = pl.tensor.slice(x, [16, 128], [0, 384])
        wb__u3 = pl.tensor.slice(w, [128, 64], [384, 0])
        acc__ssa_v3__u3 = pl.tensor.matmul_acc(acc__ssa_v3__u2, xa__u3, wb__u3)
        y = pl.tensor.assemble(y, acc__ssa_v3__u3, [0, 0])
    return y
