"""Running the memory passes in tests and reading their results: windows by value name, Acc window
classes, the invariants the fixed pipeline promises, partitions compared with real-ir."""

from __future__ import annotations

from pathlib import Path

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, For, Function, If, MemSpace, Module, TileType, Window, var_like, walk_stmts,
)
from pypto_verify.lowering import allocate_memory_addr, init_memref, materialize_semantic_aliases, memory_reuse
from pypto_verify.lowering.memory.memrefs import yield_values, infer_env
from pypto_verify.lowering.pass_base import LowerOptions

REAL_IR = Path(__file__).resolve().parents[4] / "shared" / "real-ir"
if not REAL_IR.exists():  # the tree may sit elsewhere; the fixtures are at /work/shared in CI
    REAL_IR = next((p for p in (Path(__file__).resolve().parents[3].parent / "shared" / "real-ir", Path("/work/shared/real-ir")) if p.is_dir()), Path("/work/shared/real-ir"))
CASES = ("hand_peel", "auto_tiled", "two_accumulators", "tensor_proj")
GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "passes"

MEMORY_PASSES = (init_memref.PASS, materialize_semantic_aliases.PASS, memory_reuse.PASS, allocate_memory_addr.PASS)


def lower(module: Module, mode: str, upto: str = "allocate-memory-addr", start: str = "init-memref") -> Module:
    """*module* through the memory passes from *start* to *upto* (inclusive), in *mode*."""
    options = LowerOptions(mode=mode)  # type: ignore[arg-type]
    names = [p.name for p in MEMORY_PASSES]
    for p in MEMORY_PASSES[names.index(start):names.index(upto) + 1]:
        module = p.run(module, options)
    return module


def only_function(module: Module) -> Function:
    (fn,) = [f for _, f in module.functions()]
    return fn


def windows(fn: Function, space: MemSpace | None = None) -> dict[str, Window]:
    """Every tile value's window (iter_args: their init's), optionally of one space only."""
    out = {}
    for name, t in infer_env(fn).items():
        if isinstance(t, TileType) and t.memref is not None and (space is None or t.space is space):
            out[name] = t.memref.window
    return out


def acc_windows(fn: Function) -> dict[str, Window]:
    return windows(fn, MemSpace.Acc)


def partition_disagreements(ours: dict[str, Window], theirs: dict[str, Window]) -> tuple[int, list[tuple[str, str]]]:
    """(pairs compared, pairs on which 'same window' differs), over the names both sides have."""
    names = sorted(set(ours) & set(theirs))
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    bad = [(a, b) for a, b in pairs if (ours[a] == ours[b]) != (theirs[a] == theirs[b])]
    return len(pairs), bad


def inplace_pairs(fn: Function) -> list[tuple[str, str, Window, Window]]:
    """(output, acc input, output window, input window) of every `matmul_acc`."""
    w = windows(fn)
    out = []
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == ops.MATMUL_ACC:
            source = var_like(stmt.value.args[0])
            assert source is not None
            out.append((stmt.target.name, source.name, w[stmt.target.name], w[source.name]))
    return out


def divergent_sites(fn: Function) -> list[str]:
    """Acc phis and carries not on one window (empty when the fixed invariants hold); a value is an
    Acc one when its return var is (its parts are looked up whatever their annotated space)."""
    acc = windows(fn, MemSpace.Acc)
    w = windows(fn)
    problems = []
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, If):
            arms = (yield_values(stmt.then_body), yield_values(stmt.else_body))
            for i, rv in enumerate(stmt.return_vars):
                if rv.name not in acc:
                    continue
                values = {w.get(var_like(a[i]).name) for a in arms if i < len(a) and var_like(a[i]) is not None}  # type: ignore[union-attr]
                if values != {w[rv.name]}:
                    problems.append(f"phi {rv.name}: {sorted(map(str, values))} vs {w[rv.name]}")
        elif isinstance(stmt, For):
            yielded = yield_values(stmt.body)
            for i, rv in enumerate(stmt.return_vars):
                if rv.name not in acc:
                    continue
                init, value = var_like(stmt.inits[i]), var_like(yielded[i])
                group = {w[rv.name], w[stmt.iter_args[i].name]}
                group |= {w[x.name] for x in (init, value) if x is not None}
                if len(group) != 1:
                    problems.append(f"carry {rv.name}: {sorted(map(str, group))}")
    return problems


def frontend():
    """The frontend, or a skip while it is being written."""
    import pytest

    try:
        from pypto_verify import frontend as fe
    except ImportError:  # pragma: no cover
        pytest.skip("pypto_verify.frontend is not importable yet")
    if not hasattr(fe, "read_file"):  # pragma: no cover
        pytest.skip("pypto_verify.frontend.read_file is not there yet")
    return fe


def printer():
    import pytest

    try:
        from pypto_verify import printer as pr
    except ImportError:  # pragma: no cover
        pytest.skip("pypto_verify.printer is not importable yet")
    return pr


def read_real(case: str, stage: str) -> Module:
    """real-ir `<case>/<stage>_after_*.py` through the frontend (no input errors allowed)."""
    fe = frontend()
    (path,) = sorted((REAL_IR / case).glob(f"{stage}_after_*.py"))
    result = fe.read_file(path)
    assert not result.errors, result.errors
    return result.module


def kernel_of(module: Module) -> Function:
    """The cube kernel of a real-ir module (the AIC function)."""
    from pypto_verify.ir import FunctionKind

    return next(f for _, f in module.functions() if f.kind is not FunctionKind.ORCHESTRATION)
