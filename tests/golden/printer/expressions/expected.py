# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit
def exprs(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    a = (n + m) * 2
    b = n - (m - 1)
    c = n - m - 1
    d = -(n // 4) % 3
    e = 2 ** -n
    f = (2 ** n) ** m
    g = min(n, m + 1) + max(n, 4)
    if not (n > 1 and m < 2) or n == m:
        t = pl.tensor.mul(x, 0.08838834764831843)
        t__phi_v2 = pl.yield_(t)
    else:
        t__ssa_v1 = pl.tensor.add(x, 1e-06)
        t__phi_v2 = pl.yield_(t__ssa_v1)
    u = pl.tensor.full([16, 64], dtype=pl.FP32, value=-3.4028234663852886e+38)
    v = pl.tensor.cast(t__phi_v2, target_type=pl.BF16, mode="rint")
    w = pl.tensor.reshape(u, [1, 1024], attrs={"hint": "flat", "n": 3, "ok": True, "none": None})
    y = pl.tensor.assemble(y, pl.tensor.add(pl.tensor.cast(v, target_type=pl.FP32), pl.tensor.reshape(w, [16, 64])), [0, 0])
    return y
