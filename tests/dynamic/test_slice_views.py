"""`tile.slice` is a view of its source's buffer, as in PyPTO (`IsBufferAliasingViewOp`: InitMemRef
gives the result a MemRef on its input's base at the slice's byte offset, codegen is a `pto.subview`),
in every memory space, not only of an accumulator: a slice read after an in-place write to its source
(an `assemble` into it) is a clobbered read (PV004), and its twin that reads the slice first verifies,
and simulates with the slice emitted as an `alloc_tile` inside the source's bytes."""

from __future__ import annotations

from pypto_verify.frontend import read_source
from pypto_verify.ir import Assign, Call, type_env, walk_stmts
from pypto_verify.lowering.pass_base import LowerOptions
from pypto_verify.lowering.pipeline import lower
from stages import check_text

OVERWRITTEN = '''
import pypto.language as pl

ROWS = 16
COLS = 64


@pl.jit
def overwritten_band(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    p: pl.Tensor[[4, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[4, COLS // 2], pl.FP32]],
    z: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="overwritten_band"):
        rows = pl.tile.load(x, [0, 0], [ROWS, COLS])
        scaled = pl.mul(rows, 2.0)
        band = pl.slice(scaled, [4, COLS // 2], [8, 16])
        patch = pl.tile.load(p, [0, 0], [4, COLS])
        patched = pl.assemble(scaled, patch, [8, 0])
        y[:, :] = band
        z[:, :] = patched
    return y, z
'''
"""The slice `band` (rows 8..11, columns 16..47 of `scaled`) is read after `assemble` wrote rows
8..11 of its source in place: PyPTO's `band` is a subview of those bytes, so it reads the patch."""

READ_FIRST = OVERWRITTEN.replace(
    "        patched = pl.assemble(scaled, patch, [8, 0])\n        y[:, :] = band\n",
    "        y[:, :] = band\n        patched = pl.assemble(scaled, patch, [8, 0])\n")
"""The twin: the slice is stored before its source is patched."""

BAND_SUM = OVERWRITTEN.replace(
    "        patch = pl.tile.load(p, [0, 0], [4, COLS])\n        patched = pl.assemble(scaled, patch, [8, 0])\n"
    "        y[:, :] = band\n        z[:, :] = patched\n",
    "        y[:, :] = pl.add(band, band)\n        z[:, :] = scaled\n")
"""A slice at a column offset read by a vector op, its source stored whole (the simulated form)."""

BANDS = '''
import pypto.language as pl

ROWS = 16
COLS = 64


@pl.jit
def doubled_bands(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS // 2], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="doubled_bands"):
        rows = pl.tile.load(x, [0, 0], [ROWS, COLS])
        scaled = pl.mul(rows, 3.0)
        for i in pl.range(4):
            band = pl.slice(scaled, [4, COLS // 2], [i * 4, 8])
            y[i * 4 : i * 4 + 4, :] = pl.add(band, band)
    return y
'''
"""Slices at a run-time row offset (the loop's): each a window of `scaled` at a computed address."""


OUTLIVED = '''
import pypto.language as pl

ROWS = 16
COLS = 64


@pl.jit
def outlived_source(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    p: pl.Tensor[[4, COLS // 2], pl.FP32],
    y: pl.Out[pl.Tensor[[4, COLS // 2], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="outlived_source"):
        rows = pl.tile.load(x, [0, 0], [ROWS, COLS])
        scaled = pl.mul(rows, 2.0)
        band = pl.slice(scaled, [4, COLS // 2], [8, 16])
        other = pl.exp(pl.tile.load(p, [0, 0], [4, COLS // 2]))
        y[:, :] = pl.add(band, other)
    return y
'''
"""`scaled` is dead after the slice, `band` is not: its buffer must stay `band`'s until `band`'s read."""


def test_a_vec_slice_shares_its_sources_buffer_from_init_memref_on() -> None:
    source = read_source(OVERWRITTEN, "overwritten.py")
    result = lower(source.module, LowerOptions(mode="fixed"), keep_dumps=True)
    assert not result.errors
    seen = 0
    for name, module in [*result.dumps, ("final", result.module)]:
        (_, fn), = [(p, f) for p in module.programs for f in p.functions]
        env = type_env(fn)
        for s in walk_stmts(fn.body):
            if not (isinstance(s, Assign) and isinstance(s.value, Call) and s.value.op == "tile.slice"):
                continue
            target, src = env.get(s.target.name), env.get(s.value.args[0].name)
            if getattr(target, "memref", None) is None:
                continue
            seen += 1
            assert target.memref.window == src.memref.window, name
    assert seen


def test_a_vec_slice_read_after_its_source_was_written_in_place_is_a_clobbered_read(tmp_path) -> None:
    file, found = check_text(tmp_path, OVERWRITTEN)
    assert [rule for rule, _ in found] == ["PV004"]
    assert found[0][1].startswith("`band` is read from ") and "after `patched` (line" in found[0][1]
    (kernel,) = file.kernels
    assert kernel.verdict == "findings"


def test_a_vec_slice_read_before_its_source_is_written_verifies(tmp_path) -> None:
    file, found = check_text(tmp_path, READ_FIRST)
    assert found == []
    (kernel,) = file.kernels
    assert kernel.verdict == "verified"


def test_a_vec_slice_at_a_column_offset_simulates_as_a_window_of_its_source(tmp_path) -> None:
    assert "pl.assemble" not in BAND_SUM
    file, found = check_text(tmp_path, BAND_SUM, sim=True)
    assert found == []
    (kernel,) = file.kernels
    assert kernel.verdict == "verified" and "simulated and matched" in kernel.statement, kernel.statement


def test_a_vec_slice_at_a_run_time_offset_simulates_at_a_computed_address(tmp_path) -> None:
    file, found = check_text(tmp_path, BANDS, sim=True)
    assert found == []
    (kernel,) = file.kernels
    assert kernel.verdict == "verified" and "simulated and matched" in kernel.statement, kernel.statement


def test_the_memory_passes_keep_a_dead_sources_buffer_while_its_slice_is_live(tmp_path) -> None:
    source = read_source(OUTLIVED, "outlived.py")
    result = lower(source.module, LowerOptions(mode="fixed"))
    assert not result.errors
    (fn,) = [f for p in result.module.programs for f in p.functions]
    env = type_env(fn)
    band = env["band"].memref.window
    assert band == env["scaled"].memref.window
    loads = [n for n in env if n.startswith("other")]
    assert loads
    for name in loads:  # the window offsets are Vec addresses once the memory passes ran
        w = env[name].memref.window
        assert w.offset >= band.offset + band.size or band.offset >= w.offset + w.size, (name, w, band)
    file, found = check_text(tmp_path, OUTLIVED, sim=True)
    assert found == []
    (kernel,) = file.kernels
    assert kernel.verdict == "verified" and "simulated and matched" in kernel.statement, kernel.statement
