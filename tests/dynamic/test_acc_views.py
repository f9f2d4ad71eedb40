"""Views of an accumulator before its drain: `pl.set_validshape` (the idiom PyPTO's own diagnostics
suggest) and a slice (PyPTO's zero-copy sub-window) — one L0C buffer, no PV006, a drain of just the
view's region, and a view read after the accumulator moved on is a clobbered read."""

from __future__ import annotations

import numpy as np

from pypto_verify.dynamic import prepare_run, run_and_compare
from pypto_verify.frontend import read_source
from pypto_verify.ir import Assign, Call, type_env, walk_stmts
from pypto_verify.lowering.pass_base import LowerOptions
from pypto_verify.lowering.pipeline import lower
from pypto_verify.run import Options, run
from pypto_verify.rules import Severity

RAGGED = '''
import pypto.language as pl

M = 64
K = 512
N = 128
K_TILE = 128


@pl.jit
def ragged_rows(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    rows: pl.Scalar[pl.INDEX],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ragged"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.pipeline(K // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 0))
        acc_valid = pl.set_validshape(acc, rows, N)
        y[0:M, 0:N] = acc_valid
    return y
'''


def _source_and_lowered():
    source = read_source(RAGGED, "ragged.py")
    assert not source.errors
    result = lower(source.module, LowerOptions(mode="fixed"))
    assert not result.errors
    (_, fn), = [(p, f) for p in source.module.programs for f in p.functions]
    (_, lowered), = [(p, f) for p in result.module.programs for f in p.functions]
    return fn, lowered


def test_the_narrowed_accumulator_is_a_view_on_the_accumulators_window() -> None:
    # from InitMemRef on (a view shares its input's MemRef), not by MemoryReuse's luck
    source = read_source(RAGGED, "ragged.py")
    result = lower(source.module, LowerOptions(mode="fixed"), keep_dumps=True)
    for name, module in result.dumps:
        if not name.startswith(("07_", "08_", "09_", "10_")):
            continue
        (_, fn), = [(p, f) for p in module.programs for f in p.functions]
        env = type_env(fn)
        view = next(s for s in walk_stmts(fn.body)
                    if isinstance(s, Assign) and isinstance(s.value, Call) and s.value.op == "tile.set_validshape")
        assert env[view.target.name].memref.window == env[view.value.args[0].name].memref.window, name


def test_set_validshape_before_the_drain_is_not_an_illegal_acc_reader(tmp_path) -> None:
    path = tmp_path / "ragged.py"
    path.write_text(RAGGED)
    report = run([str(path)], Options(engine="clingo", cache=False))
    (file,) = report.files
    assert [f.rule.id for f in file.findings if f.rule.severity is Severity.ERROR] == []
    (kernel,) = file.kernels
    # the store writes the valid `rows` x N region: inside `y` exactly when the caller's `rows` <= M
    assert kernel.verdict == "conditional" and kernel.sim == "match"
    assert len(kernel.conditions) == 1 and "`rows`" in kernel.conditions[0]


def test_only_the_valid_rows_are_drained() -> None:
    source, lowered = _source_and_lowered()
    run = prepare_run(source, lowered, seed=5, scalars={"rows": 37})
    assert run_and_compare(run).status == "match"
    from pypto_verify.sim import simulate

    y_arg = run.outputs["y"][0]
    before = np.array(run.args[y_arg], copy=True)
    after = simulate(run.text, run.function, run.args)[y_arg]
    assert np.array_equal(after[37:], before[37:])          # rows past the valid region keep their contents
    assert not np.array_equal(after[:37], before[:37])
    np.testing.assert_allclose(after[:37], run.reference.outputs["y"][:37], rtol=1e-2, atol=1e-2)


def test_a_valid_shape_beyond_the_tile_is_out_of_range_for_the_sample_values() -> None:
    source, lowered = _source_and_lowered()
    run = prepare_run(source, lowered, seed=5)
    assert run.scalars == {"rows": 64}   # 512 and 128 exceed the 64 rows: the next candidate is taken


SLICED = RAGGED.replace("def ragged_rows(", "def head_rows(").replace(
    "    rows: pl.Scalar[pl.INDEX],\n", "").replace(
    "        acc_valid = pl.set_validshape(acc, rows, N)\n        y[0:M, 0:N] = acc_valid\n",
    "        top = pl.slice(acc, [16, N], [ROW0, 0])\n        y[0:16, 0:N] = top\n").replace(
    "y: pl.Out[pl.Tensor[[M, N], pl.FP32]]", "y: pl.Out[pl.Tensor[[16, N], pl.FP32]]")


def _check(tmp_path, text: str):
    path = tmp_path / "kernel.py"
    path.write_text(text)
    (file,) = run([str(path)], Options(engine="clingo", cache=False)).files
    return file


def test_a_row_range_of_an_accumulator_is_drained_from_its_own_rows(tmp_path) -> None:
    file = _check(tmp_path, SLICED.replace("ROW0", "16"))
    assert [f.rule.id for f in file.findings if f.rule.severity is Severity.ERROR] == []
    (kernel,) = file.kernels
    assert kernel.verdict == "verified" and kernel.sim == "match"   # rows 16..31 of the product


def test_the_slice_shares_the_accumulators_window() -> None:
    source = read_source(SLICED.replace("ROW0", "16"), "sliced.py")
    result = lower(source.module, LowerOptions(mode="fixed"), keep_dumps=True)
    (_, fn), = [(p, f) for p in result.module.programs for f in p.functions]
    env = type_env(fn)
    view = next(s for s in walk_stmts(fn.body)
                if isinstance(s, Assign) and isinstance(s.value, Call) and s.value.op == "tile.slice")
    assert env[view.target.name].memref == env[view.value.args[0].name].memref


def test_a_column_window_of_an_accumulator_verifies_simulates_and_matches(tmp_path) -> None:
    text = SLICED.replace("ROW0", "0").replace("top = pl.slice(acc, [16, N], [0, 0])",
                                                "top = pl.slice(acc, [16, 64], [0, 64])").replace(
        "y[0:16, 0:N] = top", "y[0:16, 0:64] = top")
    file = _check(tmp_path, text)
    (kernel,) = file.kernels
    assert kernel.verdict == "verified" and kernel.sim == "match", kernel.sim_reason


def test_a_slice_read_after_the_accumulator_moved_on_is_a_clobbered_read(tmp_path) -> None:
    # the source's slice is a value; PyPTO's is a view of the one buffer, which the next matmul_acc
    # overwrites before the drain reads it
    text = SLICED.replace("ROW0", "0").replace(
        "        y[0:16, 0:N] = top\n",
        "        acc = pl.matmul_acc(acc, x[:, 0:K_TILE], w[0:K_TILE, :])\n        y[0:16, 0:N] = top\n")
    file = _check(tmp_path, text)
    found = [(f.rule.id, f.message) for f in file.findings if f.rule.severity is Severity.ERROR]
    assert len(found) == 1 and found[0][0] == "PV004"
    assert found[0][1].startswith("`top` is read from bytes [") and "after `acc` (line" in found[0][1]
