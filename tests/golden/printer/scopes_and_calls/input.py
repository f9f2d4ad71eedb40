import pypto.language as pl
import pypto.language.distributed as pld

T = 16
D = 256


@pl.jit.inline
def helper_kernel(x: pl.Tensor[[T, D], pl.FP32], y: pl.Tensor[[T, D], pl.FP32]):
    y[:, :] = pl.exp(x)
    return y


@pl.jit
def driver(x: pl.Tensor[[T, D], pl.FP32], sig: pl.Tensor[[T, 1], pl.INT32], y: pl.Out[pl.Tensor[[T, D], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as first_tid:
        y = helper_kernel(x, y)
    with pl.spmd(4, name_hint="blocks", deps=[first_tid]) as block_tid:
        blk = pl.tile.get_block_idx()
        y[blk * 4 : blk * 4 + 4, :] = pl.mul(y[blk * 4 : blk * 4 + 4, :], 2.0)
    for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):
        pld.system.notify(target=sig, offsets=[lane, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    with pl.manual_scope():
        deps = pl.array.create(2, pl.TASK_ID)
        deps[0] = block_tid
        x.bind_dynamic(0, T)
    return y
