"""Against the oracle: `lower(source.py, legacy, stop_after=lower-pipeline-loops)` agrees with the
real compiler's `29_after_LowerPipelineLoops.py` (/work/shared/real-ir) on what matters, compared as a
name-free summary: the loop structure with bounds and steps, the clones' conditions, the if-phis, which
op each MAD is, and which values feed it (by role: carry, phi, MAD result, extract / move / load of
what at which offsets). Fixed mode gives the predicated forms.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import lowering_builders as b

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, Eval, Expr, For, Function, If, ListExpr, Scope, Stmt,
    UnaryOp, Yield, display_name, var_like,
)

REAL_IR = next((p for p in (Path(__file__).resolve().parents[2].parent / "shared" / "real-ir", Path("/work/shared/real-ir")) if p.is_dir()), Path("/work/shared/real-ir"))
CASES = ["auto_tiled", "hand_peel", "two_accumulators", "tensor_proj"]
KERNEL_OF_REAL = {"tensor_proj": "proj_proj"}
"""The real compiler outlines tensor_proj's scope into `proj_proj`; we keep it as a scope of `proj`."""

pytestmark = pytest.mark.skipif(not REAL_IR.exists(), reason="real-ir fixtures are not present")


class Summary:
    """A name-free rendering of one function's loops, ifs, MADs and stores."""

    def __init__(self, fn: Function) -> None:
        self.lines: list[str] = []
        self.refs: dict[str, str] = {p.name: display_name(p.name) for p in fn.params}
        self.scalars: dict[str, Expr] = {}
        self.loops = 0
        self.ifs = 0
        self.mads = 0
        self.body(fn.body, 0)

    def expr(self, e: Expr) -> str:
        v = var_like(e)
        if v is not None:
            if v.name in self.scalars:
                return self.expr(self.scalars[v.name])
            return self.refs.get(v.name, f"?{display_name(v.name)}")
        if isinstance(e, Const):
            return str(e.value)
        if isinstance(e, BinOp):
            return f"({self.expr(e.lhs)} {e.op} {self.expr(e.rhs)})"
        if isinstance(e, Compare):
            return f"{self.expr(e.lhs)} {e.op} {self.expr(e.rhs)}"
        if isinstance(e, BoolOp):
            return "(" + f" {e.op} ".join(self.expr(o) for o in e.operands) + ")"
        if isinstance(e, UnaryOp):
            return f"({e.op} {self.expr(e.operand)})"
        if isinstance(e, ListExpr):
            return "[" + ", ".join(self.expr(i) for i in e.items) + "]"
        return type(e).__name__

    def value(self, call: Call) -> str:
        args = call.args
        if call.op == ops.EXTRACT:
            return f"extract({self.expr(args[0])}, {self.expr(args[1])}, {self.expr(args[2])})"
        if call.op == ops.MOVE:
            return f"move({self.expr(args[0])} -> {ops.target_memory(call).value})"
        if call.op == ops.TRANSPOSE_VIEW:
            return f"T({self.expr(args[0])})"
        if call.op == ops.LOAD:
            return f"load({self.expr(args[0])}, {self.expr(args[1])})"
        if call.op == ops.CREATE:
            return "create"
        return call.op

    def body(self, body: tuple[Stmt, ...], depth: int) -> None:
        pad = "  " * depth
        for stmt in body:
            if isinstance(stmt, Assign) and isinstance(stmt.value, Call):
                call = stmt.value
                if call.op in ops.MADS:
                    parts = ops.matmul_parts(call)
                    ref = f"mad{self.mads}"
                    self.mads += 1
                    acc = f"acc={self.expr(parts.acc)}, " if parts.acc is not None else ""
                    bias = f", bias={self.expr(parts.bias)}" if parts.bias is not None else ""
                    init = f", init={self.expr(parts.init_cond)}" if parts.init_cond is not None else ""
                    self.lines.append(f"{pad}{ref} = {call.op}({acc}{self.expr(parts.lhs)}, "
                                      f"{self.expr(parts.rhs)}{bias}{init})")
                    self.refs[stmt.target.name] = ref
                elif call.op == ops.STORE:
                    self.lines.append(f"{pad}store {self.expr(call.args[0])} at {self.expr(call.args[1])}")
                    self.refs[stmt.target.name] = self.expr(call.args[2])
                else:
                    self.refs[stmt.target.name] = self.value(call)
            elif isinstance(stmt, Assign) and var_like(stmt.value) is not None:
                self.refs[stmt.target.name] = self.expr(stmt.value)
            elif isinstance(stmt, Assign):
                self.scalars[stmt.target.name] = stmt.value
            elif isinstance(stmt, Eval) and isinstance(stmt.value, Call) and stmt.value.op == ops.STORE:
                self.lines.append(f"{pad}store {self.expr(stmt.value.args[0])} at {self.expr(stmt.value.args[1])}")
            elif isinstance(stmt, For):
                n = self.loops
                self.loops += 1
                self.refs[stmt.loop_var.name] = f"L{n}"
                inits = ", ".join(self.expr(i) for i in stmt.inits)
                self.lines.append(f"{pad}for L{n} in [{self.expr(stmt.start)}, {self.expr(stmt.stop)}) step "
                                  f"{self.expr(stmt.step)} init ({inits})")
                for i, arg in enumerate(stmt.iter_args):
                    self.refs[arg.name] = f"carry{n}.{i}"
                self.body(stmt.body, depth + 1)
                for i, rv in enumerate(stmt.return_vars):
                    self.refs[rv.name] = f"rv{n}.{i}"
            elif isinstance(stmt, If):
                m = self.ifs
                self.ifs += 1
                self.lines.append(f"{pad}if {self.expr(stmt.cond)}")
                self.body(stmt.then_body, depth + 1)
                self.lines.append(f"{pad}else")
                self.body(stmt.else_body, depth + 1)
                for i, rv in enumerate(stmt.return_vars):
                    self.refs[rv.name] = f"phi{m}.{i}"
            elif isinstance(stmt, Yield):
                self.lines.append(f"{pad}yield ({', '.join(self.expr(v) for v in stmt.values)})")
            elif isinstance(stmt, Scope):
                self.body(stmt.body, depth)


def _kernel(module, name=None) -> Function:
    from pypto_verify.lowering.pipeline import is_kernel

    fns = [fn for _, fn in module.functions() if is_kernel(fn) and (name is None or fn.name == name)]
    assert len(fns) == 1, [fn.name for fn in fns]
    return fns[0]


def _read(path: Path):
    from pypto_verify.frontend import read_file

    parsed = read_file(path)
    assert not parsed.errors, [str(e) for e in parsed.errors]
    return parsed.module


def ours(case: str, mode: str, stop_after: str) -> list[str]:
    result = b.lower_checked(_read(REAL_IR / case / "source.py"), mode, stop_after=stop_after)
    assert not result.errors, [str(e) for e in result.errors]
    return Summary(_kernel(result.module)).lines


def theirs(case: str, dump: str = "29_after_LowerPipelineLoops.py") -> list[str]:
    return Summary(_kernel(_read(REAL_IR / case / dump), KERNEL_OF_REAL.get(case))).lines


@pytest.mark.parametrize("case", CASES)
def test_legacy_lowering_agrees_with_the_real_compiler_after_lower_pipeline_loops(case: str) -> None:
    assert ours(case, "legacy", "lower-pipeline-loops") == theirs(case)


@pytest.mark.parametrize("case", CASES)
def test_legacy_tiling_agrees_with_the_real_compiler_after_auto_tile(case: str) -> None:
    # AutoTileMatmulL0 runs before the moves are inserted: compare before infer-tile-memory-space
    assert ours(case, "legacy", "auto-tile-matmul-l0") == theirs(case, "16_after_AutoTileMatmulL0.py")


def test_fixed_auto_tiled_is_one_predicated_chain() -> None:
    assert ours("auto_tiled", "fixed", "simplify-literal-conditions") == [
        "for L0 in [0, 512) step 256 init (create)",
        "  mad0 = tile.matmul_acc(acc=carry0.0, extract(load(a, [0, 0]), 0, L0), extract(load(b, [0, 0]), L0, 0), "
        "init=L0 == 0)",
        "  mad1 = tile.matmul_acc(acc=mad0, extract(load(a, [0, 0]), 0, (L0 + 128)), "
        "extract(load(b, [0, 0]), (L0 + 128), 0), init=(L0 + 128) == 0)",
        "  yield (mad1)",
        "store rv0.0 at [0, 0]",
    ]


def test_fixed_tensor_proj_predicates_the_inner_tiled_loops_and_keeps_the_user_phi() -> None:
    lines = ours("tensor_proj", "fixed", "simplify-literal-conditions")
    legacy = ours("tensor_proj", "legacy", "lower-pipeline-loops")

    def structure(summary: list[str]) -> list[str]:
        return [line for line in summary if line.strip().startswith(("for ", "if "))]

    # the same loops and the user's `if k0 == 0` clones; only the tiler's inner `if ko == 0` phis are gone
    inner_phi = re.compile(r"^\s*if \(?L[1-9]")
    assert structure(lines) == [line for line in structure(legacy) if not inner_phi.match(line)]
    mads = [line.split("= ", 1)[1] for line in lines if " = tile.matmul" in line]
    assert mads and all(m.startswith("tile.matmul_acc(") for m in mads)
    assert sum("init=" in m for m in mads) == 4   # both clones of each fresh inner K loop are predicated


@pytest.mark.parametrize("case", ["hand_peel", "two_accumulators"])
def test_fixed_leaves_kernels_without_auto_tiling_as_legacy_does(case: str) -> None:
    assert ours(case, "fixed", "simplify-literal-conditions") == ours(case, "legacy", "lower-pipeline-loops")
