"""Wild construct: constants imported from a `config.py` beside the script (`from config import X`,
`import config as cfg; cfg.X`, a dataclass instance with a `@property`), resolved statically."""

import config as cfg
import pypto.language as pl
from config import DIMS, HIDDEN, N_TILE, OUT, ROWS

K_TILE = DIMS.k_tile


@pl.jit
def proj(x: pl.Tensor[[ROWS, HIDDEN], pl.BF16], w: pl.Tensor[[HIDDEN, OUT], pl.BF16],
         y: pl.Out[pl.Tensor[[ROWS, cfg.OUT], pl.FP32]]):
    for n0 in pl.parallel(0, OUT, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
            acc = pl.create_tensor([cfg.ROWS, N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                k0 = kb * K_TILE
                if k0 == 0:
                    acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, n0 : n0 + N_TILE], out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, n0 : n0 + N_TILE])
            y[:, n0 : n0 + N_TILE] = acc
    return y
