"""Share buffers between values whose lifetimes do not overlap, then make every loop carry and if phi
sit on one buffer.

Mirrors PyPTO 33 MemoryReuse (TARGET_FACTS.md, "The compiler passes" 6; the August 2026 snapshot's
TransformMemoryReuse), step by step:
0. fixed only (not with `Behaviours.cannot_reconcile_acc_buffers`): when some Acc if phi can only be
   aligned by moving its seed onto the accumulate arm's chain window (a dynamic pipeline remainder
   `if main_end == start: seed else: matmul_acc(main)`), every divergent Acc phi of the function is
   aligned here, before packing (`memory.acc_alignment.pre_align_acc_phis`); other functions are left
   to step 4 as before;
1. lifetimes (`memory.lifetimes`) and the first-fit-decreasing packing within each space
   (`memory.buffer_packing`);
2. the packing applied: a reused value's sharing group moves onto its representative's root, each
   member keeping its offset relative to the group and its own size; each loop's return var is
   re-aligned to its (possibly moved) init;
3. legacy only (`Behaviours.coalesces_acc_if_phis`): the accumulator if-phi coalescing
   (`memory.acc_coalescing`, with its unsound behaviours);
4. yield fixup (`memory.yield_fixup`): moves for non-Acc mismatches; an Acc mismatch is legacy's
   internal error, or in fixed mode an alignment or PV001 / PV002;
5. identity copies `a = b` re-aligned to `b`'s buffer (and an in-place output whose input such a copy
   moved follows it);
6. `tile.alloc` roots nothing uses any more removed; `pipeline_membership` attrs stripped.
Requires: materialize-semantic-aliases. Leaves: final buffer assignment (offsets still 0).
Orchestration functions are left alone, as in PyPTO.
"""

from __future__ import annotations

from typing import Final

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, For, Function, FunctionKind, MemRef, Module, TileType, map_functions, var_like, walk_stmts, replace,
)
from pypto_verify.lowering.memory.acc_alignment import pre_align_acc_phis
from pypto_verify.lowering.memory.acc_coalescing import coalesce_acc_if_phis
from pypto_verify.lowering.memory.buffer_packing import identify_reuse
from pypto_verify.lowering.memory.lifetimes import analyze
from pypto_verify.lowering.memory.memrefs import (
    alloc_base, infer_env, memref_map, memref_of_type, strip_pipeline_membership, with_memrefs,
)
from pypto_verify.lowering.pass_base import LowerOptions, Pass
from pypto_verify.lowering.memory.yield_fixup import yield_fixup


def run(module: Module, options: LowerOptions) -> Module:
    return map_functions(module, lambda fn: memory_reuse(fn, options))


def memory_reuse(fn: Function, options: LowerOptions) -> Function:
    """*fn* after PyPTO's MemoryReuse, with *options.behaviours*."""
    if fn.kind is FunctionKind.ORCHESTRATION:
        return fn
    behaviours = options.behaviours
    if not behaviours.cannot_reconcile_acc_buffers:
        fn = with_memrefs(fn, pre_align_acc_phis(fn))
    lifetimes = analyze(fn, behaviours.misses_iter_args)
    if not lifetimes.intervals:
        return fn
    env = infer_env(fn)
    reuse = identify_reuse(lifetimes, env, options.target)
    if reuse:
        fn = apply_sharing(fn, reuse, lifetimes.groups)
        fn = align_loop_carries(fn)
    if behaviours.coalesces_acc_if_phis:
        fn = coalesce_acc_if_phis(fn)
    fn = yield_fixup(fn, behaviours)
    fn = normalize_identity_copies(fn)
    fn = remove_unused_allocs(fn)
    return strip_pipeline_membership(fn)


def apply_sharing(fn: Function, reuse: dict[str, str], groups: dict[str, list[str]]) -> Function:
    """Each reused value takes its representative's MemRef; the rest of its sharing group keeps its
    offset relative to it (PyPTO MemRefSharingMutator)."""
    env = infer_env(fn)
    mem = memref_map(fn, env)
    changes: dict[str, MemRef] = {}
    for cand, rep in reuse.items():
        source, current = mem[rep], mem[cand]
        for member in groups.get(cand, [cand]):
            old = mem[member]
            rel = old.offset - current.offset
            # NOTE: PyPTO hands the reused value the representative's MemRef as is (its size too);
            # a value keeps its own size here, so a window is the bytes the value occupies and a
            # carry merged onto a larger root is still on one window (L0C_RULES.md compares windows)
            changes[member] = source if rel == 0 and old.size == source.size else MemRef(
                source.base, source.offset + rel, old.size)
    return with_memrefs(fn, changes, env)


def align_loop_carries(fn: Function) -> Function:
    """Each loop's return var on its init's MemRef, outermost and earliest loop first, so a loop whose
    init is an enclosing loop's iter_arg or an earlier loop's result sees it already aligned (PyPTO
    AlignLoopCarriesToInitMutator); the iter_arg follows its init by construction."""
    env = infer_env(fn)
    current = memref_map(fn, env)
    changes: dict[str, MemRef] = {}
    for stmt in walk_stmts(fn.body):
        if not isinstance(stmt, For):
            continue
        for arg, rv, init in zip(stmt.iter_args, stmt.return_vars, stmt.inits):
            v = var_like(init)
            if v is None or not isinstance(env.get(v.name), TileType) or v.name not in current:
                continue
            current[arg.name] = current[v.name]
            rm = current.get(rv.name)
            if rm is not None and rm.base != current[v.name].base:
                changes[rv.name] = current[rv.name] = current[v.name]
    return with_memrefs(fn, changes, env)


def normalize_identity_copies(fn: Function) -> Function:
    """`a = b` moved onto `b`'s buffer when they diverged; an in-place output whose input was moved
    here follows it (PyPTO NormalizeIdentityCopyBuffersMutator, ReanchorInplaceOutput)."""
    env = infer_env(fn)
    mem = memref_map(fn, env)
    changes: dict[str, MemRef] = {}
    for stmt in walk_stmts(fn.body):
        if not isinstance(stmt, Assign) or not isinstance(env.get(stmt.target.name), TileType):
            continue
        name = stmt.target.name
        source = var_like(stmt.value)
        if source is not None:
            new = changes.get(source.name, mem.get(source.name))
            if new is not None and name in mem and new.base != mem[name].base:
                changes[name] = new
            continue
        if isinstance(stmt.value, Call):
            inp = var_like(ops.inplace_input(stmt.value))
            if inp is None or inp.name not in changes or name not in mem or inp.name not in mem:
                continue
            old_in, new_in = mem[inp.name], changes[inp.name]
            if mem[name].base == old_in.base and new_in.base != old_in.base:
                changes[name] = new_in
    return with_memrefs(fn, changes, env)


def remove_unused_allocs(fn: Function) -> Function:
    """*fn* without the `tile.alloc` roots no value's MemRef names any more."""
    env = infer_env(fn)
    used = {m.base for t in env.values() if (m := memref_of_type(t)) is not None}
    for p in fn.params:
        if (m := memref_of_type(p.type)) is not None:
            used.add(m.base)
    body = tuple(s for s in fn.body if (b := alloc_base(s)) is None or b in used)
    return replace(fn, body=body) if len(body) != len(fn.body) else fn


PASS: Final = Pass("memory-reuse", run, mirrors="PyPTO 33 MemoryReuse")
