"""Wild construct: a frozen dataclass config with derived `@property`s, `dataclasses.replace`,
environment-overridable sizes (`int(os.environ.get(...))` reads its default) and `pl.dynamic`
dimensions, as the model folders write them."""

import os
from dataclasses import dataclass, replace

import pypto.language as pl


@dataclass(frozen=True)
class ModelConfig:
    hidden: int
    heads: int
    head_dim: int
    max_seq: int = 2048

    @property
    def kv_hidden(self) -> int:
        return self.heads * self.head_dim

    @property
    def scale(self) -> float:
        return self.head_dim ** -0.5


BASE = ModelConfig(hidden=1024, heads=2, head_dim=128)
M = replace(BASE, max_seq=int(os.environ.get("WILD_MAX_SEQ", "4096")))
TOKENS = pl.dynamic("TOKENS")
T_TILE = 16
K_TILE = 256


@pl.jit
def kv_proj(x: pl.Tensor[[TOKENS, M.hidden], pl.BF16], w: pl.Tensor[[M.hidden, M.kv_hidden], pl.BF16],
            kv: pl.Out[pl.Tensor[[TOKENS, M.kv_hidden], pl.FP32]]):
    for t0 in pl.parallel(0, TOKENS, T_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="kv_proj"):
            acc = pl.matmul(x[t0 : t0 + T_TILE, 0:K_TILE], w[0:K_TILE, :], out_dtype=pl.FP32)
            for kb in pl.pipeline(1, M.hidden // K_TILE, stage=2):
                acc = pl.matmul_acc(acc, x[t0 : t0 + T_TILE, kb * K_TILE : kb * K_TILE + K_TILE],
                                    w[kb * K_TILE : kb * K_TILE + K_TILE, :])
            kv[t0 : t0 + T_TILE, :] = pl.mul(acc, M.scale)
    return kv
