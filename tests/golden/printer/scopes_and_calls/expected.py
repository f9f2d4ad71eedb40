# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit.inline
def helper_kernel(x: pl.Tensor[[16, 256], pl.FP32], y: pl.Tensor[[16, 256], pl.FP32]):
    y = pl.tensor.assemble(y, pl.tensor.exp(x), [0, 0])
    return y


@pl.jit
def driver(x: pl.Tensor[[16, 256], pl.FP32], sig: pl.Tensor[[16, 1], pl.INT32], y: pl.Out[pl.Tensor[[16, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as first_tid:
        y: pl.Tensor[[16, 256], pl.FP32] = helper_kernel(x, y)
    for block_tid in pl.spmd(4, name_hint="blocks", deps=[first_tid]):
        blk = pl.tile.get_block_idx()
        y__slice_v1 = pl.tensor.slice(y, [4, 256], [blk * 4, 0])
        y = pl.tensor.assemble(y, pl.tensor.mul(y__slice_v1, 2.0), [blk * 4, 0])
    for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):
        pl.distributed.system.notify(target=sig, offsets=[lane, 0], value=1, op=pl.distributed.NotifyOp.AtomicAdd)
    with pl.manual_scope():
        deps = pl.array.create(2, pl.TASK_ID)
        deps = pl.tensor.setitem(deps, 0, block_tid)
        x.bind_dynamic(0, 16)
    return y
