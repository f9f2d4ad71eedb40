"""``forwarded_exchange`` doubles its rows and calls ``relay`` of `rank_exchange.py` (imported: an `extern` call),
which is no kernel and reaches another rank's window through ``push_rows``: the skip names the op there."""

import pypto.language as pl
import pypto.language.distributed as pld

from rank_exchange import COLS, ROWS, relay


@pl.jit
def forwarded_exchange(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    window: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    peer: pl.Scalar[pl.INT32],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
        rows = pl.load(x, [0, 0], [ROWS, COLS])
        doubled = pl.add(rows, rows)
        y = pl.store(doubled, [0, 0], y)
    relay(y, window, peer)
    return y
