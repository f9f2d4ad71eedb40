"""PV007 on a drain (issue 12): a FIXPIPE drain of an accumulator that nothing wrote since its
`tile.create` is a static finding, so `--no-sim` catches a K loop that runs zero times.

The facts give a loop whose trip count is a literal 0 no edge into its body and no back edge
(`facts.py`); the rule (`acc_chain.dl`, `fresh_drain`) asks whether any path from the create to the
drain wrote the window. Like PV007 on a MAD it is a may-analysis: one path that initialises is enough,
so a symbolic trip count and an `if` that initialises in one arm only are left to the Z3 obligations.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pypto_verify.engines.api import run_program
from pypto_verify.facts import write_facts
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.chain import merge_facts

HEADER = '''import pypto.language as pl

M, N, K = 16, 64, 256
K_TILE = 128

'''

# A K loop over `{bounds}` whose predicated MAD would initialise on its first block; then the drain.
PREDICATED = HEADER + '''
@pl.jit
def kernel(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    nb: pl.Scalar[pl.INDEX],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kernel"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range({bounds}):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == {first}))
        y[:, :] = acc
    return y
'''
STORE_LINE = 19  # `y[:, :] = acc` in PREDICATED (and in IF_SEED, NO_SEED)
LOOP_LINE = 16

# The same with the `if kb == 0` seed (the fixed pipeline predicates it, the legacy one keeps the phi).
IF_SEED = HEADER + '''
@pl.jit
def kernel(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kernel"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // (4 * K)):
            k0 = kb * K_TILE
            if kb == 0:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
        y[:, :] = acc
    return y
'''
IF_SEED_STORE_LINE = 21

# No seed at all, in a loop over `{bounds}`.
NO_SEED = HEADER + '''
@pl.jit
def kernel(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kernel"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range({bounds}):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
        y[:, :] = acc
    return y
'''
NO_SEED_MAD_LINE = 17
NO_SEED_STORE_LINE = 18

# A peeled seed, then a loop from 1 that runs zero times: the drain reads the seed.
PEELED = HEADER + '''
@pl.jit
def kernel(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kernel"):
        acc = pl.matmul(x[:, 0:K_TILE], w[0:K_TILE, :], out_dtype=pl.FP32)
        for kb in pl.range(1, 1):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
        y[:, :] = acc
    return y
'''

# The accumulator is initialised in the then arm only (a runtime condition), then drained.
ONE_ARM = HEADER + '''
@pl.jit
def kernel(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    flag: pl.Scalar[pl.INDEX],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kernel"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        if flag == 0:
            acc = pl.matmul(x[:, 0:K_TILE], w[0:K_TILE, :], out_dtype=pl.FP32)
        y[:, :] = acc
    return y
'''

# Form 3: `x` is read after a loop over `{bounds}` whose body writes another value on x's window.
CLOBBER_IR = '''import pypto.language as pl

@pl.program
class Clobber:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], b__ssa_v0: pl.Tensor[[128, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)], y__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_4: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_5: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_6: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        ta: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_2, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        ta_l: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_4, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
        tb_r: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_5, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
        x: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(ta_l, tb_r)
        for i in pl.range({bounds}):
            z: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(ta_l, tb_r)
            y__ssa_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(z, [0, 0], y__ssa_v0)
        y__ssa_v2: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(x, [0, 0], y__ssa_v0)
        return y__ssa_v0
'''
CLOBBER_READ_LINE = 20


def findings_of(tmp_path: Path, source: str, mode: str = "fixed"):
    path = tmp_path / "kernel.py"
    path.write_text(source, encoding="utf-8")
    (work,) = run_work([str(path)], Options(engine="clingo", mode=mode),
                       (Stage.READ, Stage.LOWER, Stage.FACTS, Stage.DATALOG))
    assert not [f for f in work.findings if f.rule.id == "PV000"], work.findings
    return [f for f in work.findings if f.severity.value == "error"]


def rules_at(found) -> list[tuple[str, int]]:
    return sorted((f.rule.id, f.span.line) for f in found)


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
@pytest.mark.parametrize("bounds, first", [("K // (4 * K)", 0), ("0", 0), ("4, 4", 4), ("4, 0", 4),
                                           ("0, K, -K_TILE", 0)])
def test_zero_trip_k_loop_drain_reports_pv007_at_the_store(tmp_path: Path, mode: str, bounds: str, first: int) -> None:
    found = findings_of(tmp_path, PREDICATED.format(bounds=bounds, first=first), mode)
    assert rules_at(found) == [("PV007", STORE_LINE)]
    (pv007,) = found
    assert pv007.message == ("`acc` is stored to `y` but no MAD initialised its L0C window (bytes [0, 4096) of "
                             "mem_acc_3): "
                             f"the loop at line {LOOP_LINE} runs 0 times")
    assert pv007.windows == ("mem_acc_3[0:4096]",)
    assert [n.span.line for n in pv007.notes] == [LOOP_LINE - 1, LOOP_LINE]  # the create, the loop


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_zero_trip_loop_with_if_seed_reports_pv007_at_the_store(tmp_path: Path, mode: str) -> None:
    assert rules_at(findings_of(tmp_path, IF_SEED, mode)) == [("PV007", IF_SEED_STORE_LINE)]


def test_one_trip_loop_is_not_flagged(tmp_path: Path) -> None:
    assert findings_of(tmp_path, PREDICATED.format(bounds="1", first=0)) == []


def test_symbolic_trip_loop_is_not_flagged_by_pv007(tmp_path: Path) -> None:
    # `nb` may be 0 at run time, but the Datalog rules only drop the body edge of a *literal* zero trip;
    # whether a runtime count can be 0 is the Z3 side's question (PV102), not a CFG path question.
    assert findings_of(tmp_path, PREDICATED.format(bounds="nb", first=0)) == []


def test_drain_after_a_proper_init_is_clean(tmp_path: Path) -> None:
    assert findings_of(tmp_path, PREDICATED.format(bounds="K // K_TILE", first=0)) == []
    assert findings_of(tmp_path, PEELED) == []  # the seed before a zero-trip loop initialises


def test_drain_after_an_if_that_initialises_in_one_arm_is_not_flagged(tmp_path: Path) -> None:
    # May-analysis, as PV007 on a MAD: one path from the create to the drain writes the window, so the
    # rule stays silent; that the else path drains undefined L0C is a predicate question (Z3).
    assert findings_of(tmp_path, ONE_ARM) == []


def test_accumulate_without_seed_is_reported_once_at_the_mad_or_at_the_drain(tmp_path: Path) -> None:
    # One defect, one finding: a drain after a MAD that accumulated into undefined L0C is that MAD's
    # PV007; when the loop runs zero times the MAD is unreachable and the drain is the finding.
    assert rules_at(findings_of(tmp_path, NO_SEED.format(bounds="K // K_TILE"))) == [("PV007", NO_SEED_MAD_LINE)]
    assert rules_at(findings_of(tmp_path, NO_SEED.format(bounds="0"))) == [("PV007", NO_SEED_STORE_LINE)]


def test_write_in_a_zero_trip_body_clobbers_nothing_after_the_loop(tmp_path: Path) -> None:
    # Without the back edge of the never-entered body, its write of `z` on x's window cannot reach the
    # read of `x` after the loop: PV004 only when the loop runs.
    assert rules_at(findings_of(tmp_path, CLOBBER_IR.format(bounds="0, 2, 1"))) == [("PV004", CLOBBER_READ_LINE)]
    assert findings_of(tmp_path, CLOBBER_IR.format(bounds="0, 0, 1")) == []


def test_both_engines_agree_on_the_drain_rule(tmp_path: Path) -> None:
    if shutil.which("souffle") is None:
        pytest.skip("souffle not on PATH: engine parity needs both engines")
    import importlib.resources
    main = Path(str(importlib.resources.files("pypto_verify.datalog") / "main.dl"))
    sources = [PREDICATED.format(bounds="0", first=0), PREDICATED.format(bounds="nb", first=0), IF_SEED, ONE_ARM,
               NO_SEED.format(bounds="0"), PEELED, CLOBBER_IR.format(bounds="0, 0, 1")]
    paths = []
    for i, source in enumerate(sources):
        paths.append(tmp_path / f"k{i}.py")
        paths[-1].write_text(source, encoding="utf-8")
    works = run_work([str(p) for p in paths], Options(), (Stage.READ, Stage.LOWER, Stage.FACTS))
    facts, _ = merge_facts(w.facts for w in works if w.facts is not None)
    write_facts(facts, tmp_path / "facts")
    clingo = run_program(main, tmp_path / "facts", engine="clingo")
    assert clingo["pv007_skipped_loop"]  # the case under test is in the database
    assert run_program(main, tmp_path / "facts", engine="souffle") == clingo
