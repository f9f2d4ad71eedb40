"""`tile.reshape` is a view of its source's buffer, as in PyPTO (InitMemRef gives the result its
input's MemRef, MemoryReuse merges the sharing group's lifetimes, `pto.treshape` moves no data): the
source's buffer stays live while the reshape is, and an in-place write to the source (an `assemble`,
a `matmul_acc`) before the reshape is read is a clobbered read (PV004), not a verified kernel."""

from __future__ import annotations

from pypto_verify.frontend import read_source
from pypto_verify.ir import Assign, Call, type_env, walk_stmts
from pypto_verify.lowering.pass_base import LowerOptions
from pypto_verify.lowering.pipeline import lower
from stages import check_text

PATCHED = '''
import pypto.language as pl

ROWS = 16
COLS = 64


@pl.jit
def patched_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    p: pl.Tensor[[4, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS * 2, COLS // 2], pl.FP32]],
    z: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="patched_rows"):
        rows = pl.tile.load(x, [0, 0], [ROWS, COLS])
        folded = pl.reshape(rows, [ROWS * 2, COLS // 2])
        patch = pl.tile.load(p, [0, 0], [4, COLS])
        patched = pl.assemble(rows, patch, [8, 0])
        y[:, :] = folded
        z[:, :] = patched
    return y, z
'''
"""The reshape `folded` is read after `assemble` wrote rows 8..11 of its source in place."""

PATCHED_AFTER_READ = PATCHED.replace(
    "        patched = pl.assemble(rows, patch, [8, 0])\n        y[:, :] = folded\n",
    "        y[:, :] = folded\n        patched = pl.assemble(rows, patch, [8, 0])\n")
"""The twin: the reshape is drained before the source is patched."""

FOLDED_ACC = '''
import pypto.language as pl

M = 32
K = 256
N = 64
K_TILE = 128


@pl.jit
def folded_partial(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    part: pl.Out[pl.Tensor[[M * 2, N // 2], pl.FP32]],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="folded_partial"):
        acc = pl.matmul(x[:, 0:K_TILE], w[0:K_TILE, :], out_dtype=pl.FP32)
        half = pl.reshape(acc, [M * 2, N // 2])
        acc = pl.matmul_acc(acc, x[:, K_TILE:K], w[K_TILE:K, :])
        part[:, :] = half
        y[:, :] = acc
    return part, y
'''
"""A reshape of the first partial product, drained after the next `matmul_acc` moved the accumulator on."""


def test_the_reshape_shares_its_sources_buffer_from_init_memref_on() -> None:
    source = read_source(PATCHED, "patched.py")
    result = lower(source.module, LowerOptions(mode="fixed"), keep_dumps=True)
    assert not result.errors
    seen = 0
    for name, module in [*result.dumps, ("final", result.module)]:
        (_, fn), = [(p, f) for p in module.programs for f in p.functions]
        env = type_env(fn)
        views = [s for s in walk_stmts(fn.body)
                 if isinstance(s, Assign) and isinstance(s.value, Call) and s.value.op == "tile.reshape"]
        for view in views:
            target, src = env.get(view.target.name), env.get(view.value.args[0].name)
            if getattr(target, "memref", None) is None:
                continue
            seen += 1
            assert target.memref.window == src.memref.window, name
    assert seen


def test_a_reshape_read_after_its_source_was_written_in_place_is_a_clobbered_read(tmp_path) -> None:
    file, found = check_text(tmp_path, PATCHED)
    assert [rule for rule, _ in found] == ["PV004"]
    assert found[0][1].startswith("`folded` is read from bytes [0, 4096) of ")
    assert "after `patched` (line" in found[0][1]
    (kernel,) = file.kernels
    assert kernel.verdict == "findings"


def test_a_reshape_drained_before_its_source_is_written_verifies(tmp_path) -> None:
    file, found = check_text(tmp_path, PATCHED_AFTER_READ)
    assert found == []
    (kernel,) = file.kernels
    assert kernel.verdict == "verified"


def test_a_reshape_of_an_accumulator_read_after_the_next_mad_is_a_clobbered_read(tmp_path) -> None:
    # a reshape of an Acc tile is no FIXPIPE drain (PV006, as before); being a view of the one L0C
    # buffer, the partial it names is gone once matmul_acc accumulated into that buffer
    _, found = check_text(tmp_path, FOLDED_ACC)
    assert sorted(rule for rule, _ in found) == ["PV004", "PV006"]
    (message,) = [m for rule, m in found if rule == "PV004"]
    assert message.startswith("`half` is read from ") and "after `acc` (line" in message
    _, twin = check_text(tmp_path, FOLDED_ACC.replace(
        "        acc = pl.matmul_acc(acc, x[:, K_TILE:K], w[K_TILE:K, :])\n        part[:, :] = half\n",
        "        part[:, :] = half\n        acc = pl.matmul_acc(acc, x[:, K_TILE:K], w[K_TILE:K, :])\n"))
    assert [rule for rule, _ in twin] == ["PV006"]
