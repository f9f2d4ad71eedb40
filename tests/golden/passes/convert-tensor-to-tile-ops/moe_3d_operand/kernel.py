# lower: --pipeline fixed
import pypto.language as pl

E = 4
T = 16
D = 256
H = 64
K_TILE = 128


@pl.jit
def expert_proj(x: pl.Tensor[[T, D], pl.BF16], w: pl.Tensor[[E, H, D], pl.BF16],
                y: pl.Out[pl.Tensor[[E, T, H], pl.FP32]]):
    for e in pl.parallel(0, E, 1):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="expert_proj"):
            acc = pl.create_tensor([1, T, H], dtype=pl.FP32)
            for kb in pl.pipeline(D // K_TILE, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[e : e + 1, :, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            y[e : e + 1, :, :] = acc
    return y
