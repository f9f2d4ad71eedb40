# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit
def python_range_i8(x: pl.Tensor[[16, 384], pl.INT8], w: pl.Tensor[[64, 384], pl.INT8], y: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="python_range_i8"):
        acc = pl.tensor.create([16, 64], dtype=pl.INT32)
        k0__u0 = 0
        xa__u0 = pl.tensor.slice(x, [16, 128], [0, 0])
        wb__u0 = pl.tensor.slice(w, [64, 128], [0, 0])
        acc__ssa_v2__u0 = pl.tensor.matmul(xa__u0, wb__u0, b_trans=True)
        k0__u1 = 128
        xa__u1 = pl.tensor.slice(x, [16, 128], [0, 128])
        wb__u1 = pl.tensor.slice(w, [64, 128], [0, 128])
        acc__ssa_v3__u1 = pl.tensor.matmul_acc(acc__ssa_v2__u0, xa__u1, wb__u1, b_trans=True)
        k0__u2 = 256
        xa__u2 = pl.tensor.slice(x, [16, 128], [0, 256])
        wb__u2 = pl.tensor.slice(w, [64, 128], [0, 256])
        acc__ssa_v3__u2 = pl.tensor.matmul_acc(acc__ssa_v3__u1, xa__u2, wb__u2, b_trans=True)
        y = pl.tensor.assemble(y, acc__ssa_v3__u2, [0, 0])
    return y
