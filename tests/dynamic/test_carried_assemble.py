"""An `assemble` into a tile the kernel computed, inside a loop (`rows = pl.assemble(rows, v, [r, 0])` after
`rows = pl.cast(...)`): the name is a loop carry, the assemble a `tile.assemble` on the iter_arg, as PyPTO 10
makes it. It was read as a GM tensor kept under its name, lowered to a `tile.store` redefining `rows` with no
carry, and the Datalog invariants failed (PV999)."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, Const, For, ListExpr, map_stmts, walk_stmts

ROWS = KERNELS / "scaled_rows.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(ROWS)), Options()).kernels
    return kernel


def test_the_assembled_tile_is_a_loop_carry_and_the_check_runs_its_rules(tmp_path) -> None:
    from click.testing import CliRunner

    from pypto_verify.cli import main

    kernel = _kernel()
    loops = [s for s in walk_stmts(kernel.lowered.body) if isinstance(s, For)]
    assert len(loops) == 1 and [a.name for a in loops[0].iter_args] == ["rows__iter_v1"]
    assembles = [s.value for s in walk_stmts(kernel.lowered.body)
                 if isinstance(s, Assign) and isinstance(s.value, Call) and s.value.op == "tile.assemble"]
    assert len(assembles) == 1 and assembles[0].args[0].name == "rows__iter_v1"
    assert not any(isinstance(s, Assign) and isinstance(s.value, Call) and s.value.op == "tile.store"
                   and s.target.name.startswith("rows") for s in walk_stmts(kernel.lowered.body))
    result = CliRunner().invoke(main, ["check", str(ROWS), "--no-sim", "--no-cache", "--format", "json"],
                                catch_exceptions=False)
    assert "PV999" not in result.output and '"kernels"' in result.output, result.output


def test_it_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_assembling_at_the_wrong_row_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.assemble":
            return (replace(stmt, value=replace(stmt.value, args=(*stmt.value.args[:2], ListExpr((Const(0), Const(0)))))),)
        return None

    wrong = replace(kernel.lowered, body=map_stmts(kernel.lowered.body, stmt_fn))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
