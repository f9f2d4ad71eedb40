"""Sizes that fit a pre-commit budget (issue 14 item 4): a kernel over a huge vocabulary simulated with its size
constant shrunk, only where the lowering at the smaller value is the verified one but for trip counts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, BinOp, Call, Const, For, ListExpr, TupleExpr, Var, map_stmts, walk_stmts

HUGE = KERNELS / "huge_vocab.py"


def _kernels(text: str | None = None):
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    work = lower_stage(read_stage(str(HUGE), text=text), Options())
    return {k.name: k for k in work.kernels}


def _statements() -> dict[str, str]:
    from pypto_verify.cli import main

    result = CliRunner().invoke(main, ["check", str(HUGE), "--no-cache", "--jobs", "1", "--kernels"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {line.split(": ")[1]: line.split(": ", 2)[2] for line in result.output.splitlines()
            if line.startswith(str(HUGE) + ": ")}


def test_a_constant_that_sets_only_extents_and_a_trip_count_is_shrunk_and_matches() -> None:
    statements = _statements()
    assert statements["vocab_proj"] == "verified, simulated and matched at VOCAB=128 (real 2097152: trip counts only)"


def test_a_tail_window_that_moves_with_the_constant_keeps_the_real_size() -> None:
    # the tail store sits at VOCAB_T - TAIL: at 160 (two tiles and the same 32-column tail) it moves, so the
    # source (and its lowering) is not the verified one; the real size is over the limit, and the reason says both
    statement = _statements()["vocab_tail_proj"]
    assert statement.startswith("verified, not simulated: the kernel's tensors hold more elements than the "
                                "simulation's limit of 268435456 (301996544); not shrunk: VOCAB_T: at 160 the "
                                "source differs: `2097152` became `128` (line 47)")


def test_size_constants_and_the_first_value_keep_the_remainder_class() -> None:
    from pypto_verify.sizes import first_value, size_constants, window_unit

    kernels = _kernels()
    text = HUGE.read_text()
    proj, tail = kernels["vocab_proj"], kernels["vocab_tail_proj"]
    assert [(c.name, c.param, c.axis) for c in size_constants(text, proj.source)] == \
        [("ROWS", "x", 0), ("HIDDEN", "x", 1), ("HIDDEN", "w", 0), ("VOCAB", "w", 1), ("ROWS", "y", 0),
         ("VOCAB", "y", 1)]
    assert window_unit(proj.lowered, "w", 1) == 64
    assert first_value(2**21, 64) == 128 and first_value(2**21 + 32, 64) == 160  # the 32-column tail kept
    # TAIL is derived from VOCAB_T (assigned once, but a name computed from another follows it when rewritten)
    assert "VOCAB_T" in [c.name for c in size_constants(text, tail.source)]


def test_a_rewritten_constant_keeps_every_line_number() -> None:
    from pypto_verify.sizes import with_constant

    text = "A = 1\nVOCAB = (\n    2**20\n    * 2\n)  # rows\nB = VOCAB // 64\n"
    shrunk = with_constant(text, "VOCAB", 128)
    assert shrunk == "A = 1\nVOCAB = (\n    128\n\n)  # rows\nB = VOCAB // 64\n"
    assert len(shrunk.splitlines()) == len(text.splitlines())


def test_a_loop_keeps_its_remainder_and_two_iterations_per_task() -> None:
    # a grid-stride loop over 792 chunks from a task id, 24 tasks: 2 chunks is not enough (most tasks would
    # run none), 48 is (two each), 50 changes the last iteration's class
    from pypto_verify.sizes import plan_difference, trips_kept

    lowered = _kernels()["vocab_proj"].lowered
    (loop,) = [s for s in walk_stmts(lowered.body) if isinstance(s, For)]
    grid = replace(loop, start=Var("core"), step=Const(24), stop=Const(792))

    def at(stop: int):
        return replace(lowered, body=map_stmts(lowered.body, lambda s: (replace(grid, stop=Const(stop)),)
                                               if isinstance(s, For) else None))

    real = at(792)
    for stop, kept in ((2, False), (48, True), (50, False)):
        why, loops = plan_difference(real, at(stop))
        assert why is None and [(t.stop, t.shrunk, t.needed) for t in loops] == [(792, stop, 48)]
        assert (trips_kept(loops) is None) is kept
    moved = replace(grid, start=Var("other"), stop=Const(48))
    why, _ = plan_difference(real, replace(lowered, body=map_stmts(
        lowered.body, lambda s: (moved,) if isinstance(s, For) else None)))
    assert why is not None and "changed other than in its trip count" in why


def _shift_store(fn):
    """*fn* with its store at half its column offset (a wrong window in the loop, still in range)."""

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.store":
            offsets = stmt.value.args[1]
            assert isinstance(offsets, (ListExpr, TupleExpr))
            moved = replace(offsets, items=(*offsets.items[:-1], BinOp("//", offsets.items[-1], Const(2))))
            return (replace(stmt, value=replace(stmt.value, args=(stmt.value.args[0], moved, *stmt.value.args[2:]))),)
        return None

    return replace(fn, body=map_stmts(fn.body, stmt_fn))


def test_a_wrong_window_still_mismatches_at_the_shrunk_size() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.shrink import Shrunk, shrink_kernel, shrunk_outcome

    real = _kernels()["vocab_proj"]

    def relower(text: str, modules):
        again = _kernels(text)["vocab_proj"]
        return again.source, _shift_store(again.lowered)

    shrunk = shrink_kernel(HUGE.read_text(), real.source, _shift_store(real.lowered), relower)
    assert isinstance(shrunk, Shrunk) and shrunk.values == (("VOCAB", 128, 2**21),)
    outcome = shrunk_outcome(simulate_kernel(shrunk.source, shrunk.lowered), shrunk)
    assert outcome.status == "mismatch"
    assert outcome.message.startswith("with VOCAB=128 (real 2097152: trip counts only): `y`[0, 32]: sim ")


def test_the_divisors_the_file_divides_a_constant_by_set_its_unit() -> None:
    # a module assert and a module-level chunk count: a shrunk VOCAB keeps both (two of lcm(64, 256))
    from pypto_verify.sizes import divisor_unit, first_value

    text = ("TILE = 64\nCHUNK = 256\nVOCAB = 129280\nCHUNKS = VOCAB // CHUNK\nassert VOCAB % TILE == 0\n"
            "def k(x):\n    return (VOCAB + 1) // 3\n")
    assert divisor_unit(text, "VOCAB") == 768
    assert first_value(129280, divisor_unit(text, "VOCAB")) == 1536 + 129280 % 768


FLAT = '''import pypto.language as pl

ROWS = 16
COLS = 64
BANDS = 1024
TILE = 8


@pl.jit
def flat_scale(x: pl.Tensor[[BANDS, ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[BANDS * ROWS, COLS], pl.FP32]]):
    x_rows = pl.reshape(x, [BANDS * ROWS, COLS])
    for rb in pl.range(BANDS * ROWS // TILE):
        rows = pl.load(x_rows, [rb * TILE, 0], [TILE, COLS])
        doubled = pl.mul(rows, 2.0)
        tripled = pl.add(doubled, rows)
        y = pl.store(tripled, [rb * TILE, 0], y)
    return y
'''


def _lowered(tmp_path: Path, text: str):
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    path = tmp_path / "flat.py"
    path.write_text(text)
    (kernel,) = lower_stage(read_stage(str(path)), Options()).kernels
    return kernel.lowered


def test_a_gm_reshape_whose_shape_moves_with_the_constant_differs_only_in_extents(tmp_path: Path) -> None:
    from pypto_verify.sizes import plan_difference, with_constant

    real, small = _lowered(tmp_path, FLAT), _lowered(tmp_path, with_constant(FLAT, "BANDS", 2))
    why, loops = plan_difference(real, small)
    assert why is None and [(loop.stop, loop.shrunk) for loop in loops] == [(2048, 4)]


def test_buffers_numbered_otherwise_are_the_same_allocation_but_other_buffers_are_not(tmp_path: Path) -> None:
    import re

    from pypto_verify.printer import print_function
    from pypto_verify.sizes import plan_difference

    real = _lowered(tmp_path, FLAT)
    printed = "import pypto.language as pl\n\n\n" + print_function(real)
    numbers = sorted({int(n) for n in re.findall(r"mem_vec_(\d+)", printed)})
    assert len(numbers) >= 2
    # the two Vec buffers' numbers swapped: the same allocation up to a renaming
    swapped = re.sub(r"mem_vec_(\d+)", lambda m: f"mem_vec_{numbers[1] + numbers[0] - int(m.group(1))}", printed)
    assert plan_difference(real, _lowered(tmp_path, swapped))[0] is None
    # one name for both: two buffers became one, which no renaming is
    merged = re.sub(rf"mem_vec_{numbers[1]}\b", f"mem_vec_{numbers[0]}", printed)
    merged = re.sub(rf"\n\s*mem_vec_{numbers[0]}: pl.Ptr = [^\n]*", "", merged, count=1)
    why, _ = plan_difference(real, _lowered(tmp_path, merged))
    assert why == "its allocation is not the verified one (2 buffers became 1: a Vec buffer of 2048 bytes is gone)"


def test_loop_steps_and_divisor_arithmetic_set_a_constants_unit() -> None:
    from pypto_verify.sizes import divisor_unit

    text = ("K_TILE = 512\nINNER = 4\nOUT_TILE = 256\nD = 4096\n"
            "def k(x):\n    for k0 in pl.pipeline(0, D, K_TILE, stage=2):\n        pass\n"
            "    return D // (INNER * OUT_TILE)\n")
    assert divisor_unit(text, "D") == 1024


def test_a_shrunk_kernel_calls_its_callee_read_at_the_shrunk_size() -> None:
    # `_vocab_rest`'s parameters are `[HIDDEN, VOCAB]`: at the real VOCAB they would not fit the shrunk arguments;
    # its loop `range(1, VOCAB // 64)` is checked with the kernel's own: at 128 it would run once (the real one runs
    # a first, middle and last iteration), so the value is fitted to 192
    assert _statements()["vocab_split_proj"] == \
        "verified, simulated and matched at VOCAB=192 (real 2097152: trip counts only)"


def test_a_gm_reshape_that_moves_while_its_tensor_does_not_is_another_view(tmp_path: Path) -> None:
    from pypto_verify.sizes import plan_difference, with_constant

    fixed = FLAT.replace("x: pl.Tensor[[BANDS, ROWS, COLS], pl.FP32]", "x: pl.Tensor[[1024, ROWS, COLS], pl.FP32]")
    real, small = _lowered(tmp_path, fixed), _lowered(tmp_path, with_constant(fixed, "BANDS", 2))
    why, _ = plan_difference(real, small)
    assert why is not None and why.startswith("a GM tensor's reshape changed its extents other than with the "
                                              "tensor's own")


IMPORTED = KERNELS / "imported_sizes.py"


def _imported_statements() -> dict[str, str]:
    from pypto_verify.cli import main

    result = CliRunner().invoke(main, ["check", str(IMPORTED), "--no-cache", "--jobs", "1", "--kernels"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {line.split(": ")[1]: line.split(": ", 2)[2] for line in result.output.splitlines()
            if line.startswith(str(IMPORTED) + ": ")}


def test_an_imported_size_constant_is_shrunk_in_the_module_that_assigns_it() -> None:
    require_stages()
    assert _imported_statements()["shard_proj"] == \
        "verified, simulated and matched at N_OUT=128 (real 2097152, in shard_sizes.py: trip counts only)"


def test_an_imported_constant_whose_window_moves_keeps_the_real_size() -> None:
    require_stages()
    statement = _imported_statements()["shard_edge_proj"]
    assert statement.startswith("verified, not simulated: the kernel's tensors hold more elements than the "
                                "simulation's limit of 268435456 (301996544); not shrunk: N_OUT_ODD: at 160 the "
                                "source differs: `2097152` became `128` (line 46)")


def test_an_imported_constant_is_followed_through_the_modules_that_import_it(tmp_path: Path) -> None:
    from pypto_verify.run.shrink import Home, constant_home

    (tmp_path / "base.py").write_text("ROWS = 64\nWIDE = 1\nWIDE = 2\n")
    (tmp_path / "layer.py").write_text("from base import ROWS as TOKENS, WIDE\n")
    kernel = tmp_path / "k.py"
    text = "from layer import TOKENS as T, WIDE\nfrom missing import GONE\nfrom torch import SIZE\n"
    assert constant_home(text, "T", kernel) == Home(tmp_path / "base.py", "ROWS")
    assert constant_home(text, "WIDE", kernel) == "bound 2 times in base.py"
    assert constant_home(text, "GONE", kernel) == "imported from `missing`, which is not found"
    assert constant_home(text, "SIZE", kernel) == "imported from `torch`, which is not read"


def test_a_file_text_is_parsed_once_for_all_its_constants(tmp_path: Path) -> None:
    from pypto_verify.run.shrink import Home, _tree, constant_home

    (tmp_path / "base.py").write_text("ROWS = 64\nCOLS = 32\n")
    kernel = tmp_path / "k.py"
    text = "from base import ROWS, COLS\nLOCAL = 8\n"
    _tree.cache_clear()
    first = [constant_home(text, name, kernel) for name in ("ROWS", "COLS", "LOCAL")]
    parsed = _tree.cache_info().misses
    assert first == [Home(tmp_path / "base.py", "ROWS"), Home(tmp_path / "base.py", "COLS"), Home(kernel, "LOCAL")]
    assert parsed == 2  # the kernel's text and base.py's, each once
    assert [constant_home(text, name, kernel) for name in ("ROWS", "COLS", "LOCAL")] == first
    assert constant_home("def broken(:\n", "X", kernel) == "k.py does not parse"


def test_a_callee_of_another_module_sized_by_the_shrunk_module_is_read_at_the_shrunk_size() -> None:
    # `shard_rest.py` imports `N_OUT` from `shard_sizes.py` too: read at the real value, its parameters would not
    # fit the shrunk arguments; its loop keeps its kinds of iteration at 192, not at 128 (as `_vocab_rest`'s)
    require_stages()
    assert _imported_statements()["shard_split_proj"] == \
        "verified, simulated and matched at N_OUT=192 (real 2097152, in shard_sizes.py: trip counts only)"
