"""Tile-level (Form 2) if-seeded K loops with explicit SSA: loop carries through
``init_values`` and ``pl.yield_``, the ``if`` arms yield the phi value.

``single_chain`` pipelines four K blocks of a 128-row tile; ``kv_chains`` carries two
accumulators through a ``pl.range`` loop and yields both from each arm.
"""

import pypto.language as pl

M = 128
N = 64
K = 512
K_TILE = 128
R = 16
KV_N = 64


@pl.program
class TileIfPhi:
    @pl.function(type=pl.FunctionType.InCore)
    def single_chain(
        self,
        a: pl.Tensor[[M, K], pl.BF16],
        b: pl.Tensor[[K, N], pl.BF16],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        c_init: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.pipeline(0, K // K_TILE, 1, init_values=(c_init,), stage=2):
            ta: pl.Tile[[M, K_TILE], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, kb * K_TILE], [M, K_TILE], target_memory=pl.Mem.Mat)
            tb: pl.Tile[[K_TILE, N], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [kb * K_TILE, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
            if kb == 0:
                first: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
                ph: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(first)
            else:
                more: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ta, tb)
                ph: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(more)
            c: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def kv_chains(
        self,
        x: pl.Tensor[[R, K], pl.BF16],
        wk: pl.Tensor[[K, KV_N], pl.BF16],
        wv: pl.Tensor[[K, KV_N], pl.BF16],
        k_out: pl.Out[pl.Tensor[[R, KV_N], pl.FP32]],
        v_out: pl.Out[pl.Tensor[[R, KV_N], pl.FP32]],
    ) -> pl.Tensor[[R, KV_N], pl.FP32]:
        k_init = pl.tile.create([R, KV_N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        v_init = pl.tile.create([R, KV_N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k0, (k_it, v_it) in pl.range(0, K, K_TILE, init_values=(k_init, v_init)):
            xa = pl.tile.load(x, [0, k0], [R, K_TILE], target_memory=pl.Mem.Mat)
            wkt = pl.tile.load(wk, [k0, 0], [K_TILE, KV_N], target_memory=pl.Mem.Mat)
            wvt = pl.tile.load(wv, [k0, 0], [K_TILE, KV_N], target_memory=pl.Mem.Mat)
            if k0 == 0:
                k_first = pl.tile.matmul(xa, wkt)
                v_first = pl.tile.matmul(xa, wvt)
                k_ph, v_ph = pl.yield_(k_first, v_first)
            else:
                k_more = pl.tile.matmul_acc(k_it, xa, wkt)
                v_more = pl.tile.matmul_acc(v_it, xa, wvt)
                k_ph, v_ph = pl.yield_(k_more, v_more)
            k_acc, v_acc = pl.yield_(k_ph, v_ph)
        k_out = pl.tile.store(k_acc, [0, 0], k_out)
        v_out = pl.tile.store(v_acc, [0, 0], v_out)
        return k_out
