# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit
def proj(x: pl.Tensor[[128, 1024], pl.BF16], w: pl.Tensor[[256, 1024], pl.BF16], y: pl.Out[pl.Tensor[[128, 256], pl.FP32]]):
    for mb in pl.parallel(0, 128, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
            acc = pl.tensor.create([16, 256], dtype=pl.FP32)
            for kb, (acc__iter_v1,) in pl.pipeline(4, stage=2, init_values=(acc,)):
                k0 = kb * 256
                xa = pl.tensor.slice(x, [16, 256], [mb, k0])
                wb = pl.tensor.slice(w, [256, 256], [0, k0])
                if k0 == 0:
                    acc__ssa_v2 = pl.tensor.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                    acc__phi_v4 = pl.yield_(acc__ssa_v2)
                else:
                    acc__ssa_v3 = pl.tensor.matmul_acc(acc__iter_v1, xa, wb, b_trans=True)
                    acc__phi_v4 = pl.yield_(acc__ssa_v3)
                acc__rv_v5 = pl.yield_(acc__phi_v4)
            y = pl.tensor.assemble(y, acc__rv_v5, [mb, 0])
    return y
