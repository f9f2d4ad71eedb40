import pypto.language as pl

SCALE = 1.0 / (128 ** 0.5)
EPS = 1e-06
BIG = -3.4028234663852886e38


@pl.jit
def exprs(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    a = (n + m) * 2
    b = n - (m - 1)
    c = n - m - 1
    d = -(n // 4) % 3
    e = 2 ** -n
    f = (2 ** n) ** m
    g = min(n, m + 1) + max(n, 4)
    if not (n > 1 and m < 2) or n == m:
        t = pl.mul(x, SCALE)
    else:
        t = pl.add(x, EPS)
    u = pl.full([16, 64], dtype=pl.FP32, value=BIG)
    v = pl.cast(t, target_type=pl.BF16, mode="rint")
    w = pl.reshape(u, [1, 1024], attrs={"hint": "flat", "n": 3, "ok": True, "none": None})
    y[:, :] = pl.add(pl.cast(v, target_type=pl.FP32), pl.reshape(w, [16, 64]))
    return y
