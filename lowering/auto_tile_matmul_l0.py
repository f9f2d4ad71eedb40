"""Split a matmul whose operands do not fit L0 into a pipelined K loop of L0-sized blocks.

Mirrors PyPTO 15 AutoTileMatmulL0 (K tiling only). Requires: tile IR (after
convert-tensor-to-tile-ops; spaces may still be unset). Leaves: every `tile.matmul`, `tile.matmul_bias`
and `tile.matmul_acc` whose operands fit L0A / L0B and whose accumulator fits L0C untouched; every
other one replaced by a `pl.pipeline(..., stage=2)` K loop over `tile.extract`ed Left / Right blocks
(TARGET_FACTS.md, "The compiler passes" 1).

Fits. A matmul `[M, K] x [K, N]` fits when its left operand fits L0A, its right operand fits L0B and its
accumulator (rows padded, `Target.tile_bytes`) fits L0C, each in full: such a matmul needs no loop (it
gets its `tile.move`s to Left / Right in infer-tile-memory-space). Operands already in Left / Right are a
manual decision and are never retiled.

Chooser (deterministic). `m = M`, `n = N`; `kmax` is the largest multiple of 16 (the cube fractal) with
`M*kmax` elements of the left operand in half of L0A and `kmax*N` of the right operand in half of L0B
(each block is double-buffered by the stage-2 pipeline). `k` is the largest multiple of 16 that divides
K and is at most `kmax`, if that is at least `kmax / 2`; otherwise `k = kmax` and the last `K mod k`
columns form a straight-line tail block. real-ir confirms it: auto_tiled (M=128, K=512, N=128, BF16)
gives k=128, tensor_proj (M=16, K=256, N=256, BF16) gives k=64. No M/N tiling: an accumulator larger than
L0C, a K that is not a multiple of 16, or an M / N too large for a 16-wide block raise a PV008 capacity
error that names the sizes.

The loop, for `c = tile.matmul(a, b)` (names from the result's display name, uniquified):

    c__l0_init = tile.create([M, N], dtype=ACC, target_memory=Acc)
    for c__l0_ko, (c__l0_c,) in pl.pipeline(0, K, k, init_values=(c__l0_init,), stage=2):
        c__l0_a = tile.extract(a, 0, c__l0_ko, [M, k], target_memory=Left)
        c__l0_b = tile.extract(b, c__l0_ko, 0, [k, N], target_memory=Right)
        <body>
        c = pl.yield_(...)

Body by pipeline and op (legacy: `Behaviours.tiles_k_with_first_block_phi`):
- `tile.matmul`, fixed: `c__l0_c_acc = tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b, init_cond=(c__l0_ko == 0))`.
- `tile.matmul`, legacy: `if c__l0_ko == 0: c__l0_c_first = tile.matmul(...) else: c__l0_c_acc =
  tile.matmul_acc(c__l0_c, ...)`, the phi `c__l0_c_phi` yielded (exactly real-ir/*/16).
- `tile.matmul_bias`, legacy: the same if-phi with `tile.matmul_bias` in the then arm.
- `tile.matmul_bias`, fixed: the single-buffer form. The first K block is peeled before the loop
  (`c__l0_c0 = tile.matmul_bias(c__l0_a0, c__l0_b0, bias)`), then a uniform `matmul_acc` loop from `k`
  carries it (no `tile.create`), so an odd block count never leaves a divergent tail phi.
- `tile.matmul_acc(acc, a, b)` (both modes): the loop carries `acc` itself (no `tile.create`) and every
  block is a plain `matmul_acc`.
- `tile.matmul_acc(acc, a, b, init_cond=P)`, fixed: as above, and the block at K offset 0 carries the
  predicate: `init_cond=(P and c__l0_ko == 0)` in the loop (the later blocks accumulate; after pipeline
  lowering their clones read `P and c__l0_ko + k == 0`, and the literal tail clones' `P and 256 == 0`
  fold to false in simplify-literal-conditions). Legacy: the old compiler did not tile a predicated
  `matmul_acc` and failed on L0B capacity (TARGET_FACTS.md, "Observed"); legacy raises that PV008 error
  (`Behaviours.leaves_predicated_matmul_acc_untiled`).

When the loop would run once (two blocks with a peeled first one, or a single full block before a
tail) the block is emitted straight-line instead (`c__l0_a1`, ...). A non-divisor K adds the straight-line
tail block after the loop: `c = tile.matmul_acc(c__l0_kmain, c__l0_at, c__l0_bt)`. The loop's (or the
tail's) result keeps the matmul's own name, so no use needs rewriting. A left or right operand in Vec or
Acc is first staged into Mat (`c__l0_lmat = tile.move(a, target_memory=Mat)`), as the real pass does for
a Vec left operand.
"""

from __future__ import annotations

from typing import Final

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, BoolOp, Call, Compare, Const, Expr, For, Function, If, IterArg, ListExpr, LoopKind, MemSpace,
    Module, Span, Stmt, Sym, TileType, Type, Var, Yield, display_name, expr_type, map_stmts, var_like, replace,
)
from pypto_verify.target import FRACTAL, Target

from pypto_verify.lowering._pass_util import Namer, infer_env, map_kernel_functions
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError, Pass

STAGES = 2
"""The K loop's pipeline depth (the real pass marks it `pipeline_stages=2`)."""


def auto_tile_matmul_l0(module: Module, options: LowerOptions) -> Module:
    """Tile every matmul whose operands or accumulator do not fit L0 into a pipelined K loop."""
    return map_kernel_functions(module, lambda fn: _tile_function(fn, options))


def _tile_function(fn: Function, options: LowerOptions) -> Function:
    tiler = _Tiler(fn, options, infer_env(fn), Namer(fn))
    body = tiler.body(fn.body)
    return fn if not tiler.changed else replace(fn, body=body)


def choose_k(m: int, k_total: int, n: int, lhs_bytes: int, rhs_bytes: int, target: Target) -> int | None:
    """The K block size for a `[m, k_total] x [k_total, n]` matmul (module docstring, "Chooser"), or
    None when not even a 16-wide block fits half of L0A / L0B."""
    half_left = target.capacity[MemSpace.Left] // 2
    half_right = target.capacity[MemSpace.Right] // 2
    limit = min(half_left // (m * lhs_bytes), half_right // (n * rhs_bytes))
    kmax = min(limit, k_total) // FRACTAL * FRACTAL
    if kmax < FRACTAL:
        return None
    divisor = next((k for k in range(kmax, 0, -FRACTAL) if k_total % k == 0), FRACTAL)
    return divisor if 2 * divisor >= kmax else kmax


class _Tiler:
    def __init__(self, fn: Function, options: LowerOptions, env: dict[str, Type], namer: Namer) -> None:
        self.fn = fn
        self.options = options
        self.env = env
        self.namer = namer
        self.changed = False

    def body(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        return map_stmts(body, self.tile_mad)

    def tile_mad(self, stmt: Stmt) -> tuple[Stmt, ...] | None:
        """The statements replacing *stmt* when it is a matmul that gets K-tiled, else None."""
        if not (isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op in ops.MADS):
            return None
        tiled = self.mad(stmt)
        if tiled is not None:
            self.changed = True
        return tiled

    # ------------------------------------------------------------------ one matmul

    def mad(self, stmt: Assign) -> tuple[Stmt, ...] | None:
        call = stmt.value
        assert isinstance(call, Call), "body() hands over only matmul calls"
        parts = ops.matmul_parts(call)
        lhs_t, rhs_t = _tile(parts.lhs, self.env), _tile(parts.rhs, self.env)
        if lhs_t is None or rhs_t is None:
            return None
        if lhs_t.space is MemSpace.Left or rhs_t.space is MemSpace.Right:
            return None  # a manual L0 placement is the user's decision
        lhs_shape, rhs_shape = ops.static_shape(lhs_t.shape), ops.static_shape(rhs_t.shape)
        if lhs_shape is None or rhs_shape is None or len(lhs_shape) != 2 or len(rhs_shape) != 2:
            return None
        (m, k_total), (_, n) = lhs_shape, rhs_shape
        target = self.options.target
        acc_dtype = ops.acc_dtype(lhs_t.dtype)
        left = m * k_total * lhs_t.dtype.bytes
        right = k_total * n * rhs_t.dtype.bytes
        acc_bytes = target.tile_bytes((m, n), acc_dtype, MemSpace.Acc)
        cap = target.capacity
        if left <= cap[MemSpace.Left] and right <= cap[MemSpace.Right] and acc_bytes <= cap[MemSpace.Acc]:
            return None
        name = display_name(stmt.target.name)
        span = stmt.span
        if acc_bytes > cap[MemSpace.Acc]:
            raise LoweringError("PV008", span,
                                f"`{name}` needs {acc_bytes} bytes of L0C (Acc [{m}, {n}] {acc_dtype.value}, rows "
                                f"padded) but {target.name} has {cap[MemSpace.Acc]}; M/N tiling of an accumulator "
                                "is not implemented", values=(stmt.target.name,))
        if (call.op == ops.MATMUL_ACC and parts.init_cond is not None
                and self.options.behaviours.leaves_predicated_matmul_acc_untiled):
            space, need = ((MemSpace.Right, right) if right > cap[MemSpace.Right] else (MemSpace.Left, left))
            level = "L0B" if space is MemSpace.Right else "L0A"
            raise LoweringError("PV008", span,
                                f"`{name}`: a predicated matmul_acc whose {space.value} operand needs {need} bytes "
                                f"of {level} (capacity {cap[space]} on {target.name}) is not tiled by the legacy "
                                "pipeline", values=(stmt.target.name,))
        if k_total % FRACTAL:
            raise LoweringError("PV008", span,
                                f"`{name}`: K = {k_total} is not a multiple of {FRACTAL}, so the operands "
                                f"([{m}, {k_total}] needs {left} bytes of L0A, [{k_total}, {n}] needs {right} of "
                                "L0B) cannot be split into L0 blocks", values=(stmt.target.name,))
        k = choose_k(m, k_total, n, lhs_t.dtype.bytes, rhs_t.dtype.bytes, target)
        if k is None or k >= k_total:
            raise LoweringError("PV008", span,
                                f"`{name}`: even a {FRACTAL}-wide K block of [{m}, K] x [K, {n}] does not fit half "
                                f"of L0A / L0B on {target.name}; M/N tiling is not implemented",
                                values=(stmt.target.name,))
        return _KLoop(self, stmt, parts, lhs_t, rhs_t, m, n, k_total, k,
                      TileType((Const(m), Const(n)), acc_dtype, MemSpace.Acc,
                               valid_shape=ops.product_valid(lhs_t, rhs_t))).build()


def _tile(expr: Expr | None, env: dict[str, Type]) -> TileType | None:
    t = expr_type(expr, env) if expr is not None else None
    return t if isinstance(t, TileType) else None


def _mem(space: MemSpace) -> Sym:
    return Sym(f"Mem.{space.value}")


class _KLoop:
    """The statements replacing one matmul: staging, peel, K loop, tail."""

    def __init__(self, tiler: _Tiler, stmt: Assign, parts: ops.MatmulParts, lhs_t: TileType, rhs_t: TileType,
                 m: int, n: int, k_total: int, k: int, acc_t: TileType) -> None:
        self.tiler = tiler
        self.stmt = stmt
        assert isinstance(stmt.value, Call), "_Tiler.mad builds a _KLoop only for a matmul call"
        self.call: Call = stmt.value
        self.parts = parts
        self.lhs_t, self.rhs_t = lhs_t, rhs_t
        self.m, self.n, self.k_total, self.k = m, n, k_total, k
        self.acc_t = acc_t
        self.span: Span = stmt.span
        self.base = display_name(stmt.target.name)
        self.out: list[Stmt] = []
        self.behaviours = tiler.options.behaviours

    def fresh(self, suffix: str) -> str:
        return self.tiler.namer.fresh(f"{self.base}__l0_{suffix}")

    def emit(self, name: str, value: Call, t: TileType) -> Var:
        self.out.append(Assign(Var(name, span=self.span), value, t, span=self.span))
        return Var(name, span=self.span)

    def stage(self, operand: Expr, t: TileType, suffix: str) -> Expr:
        """A Vec / Acc operand staged into Mat once, before the K loop."""
        if t.space in (MemSpace.Vec, MemSpace.Acc):
            call = Call(ops.MOVE, (operand,), (("target_memory", _mem(MemSpace.Mat)),), span=self.span)
            return self.emit(self.fresh(suffix), call, TileType(t.shape, t.dtype, MemSpace.Mat, valid_shape=t.valid_shape))
        return operand

    def extracts(self, ko: Expr, width: int, tag: str) -> tuple[Var, Var]:
        # PyPTO's tile.extract: a window's valid shape is its source's under it; a K block spans the
        # operand's rows (lhs) or columns (rhs), so those keep the operand's valid extent
        rows = self.lhs_t.valid_shape[-2] if self.lhs_t.valid_shape is not None else Const(self.m)
        cols = self.rhs_t.valid_shape[-1] if self.rhs_t.valid_shape is not None else Const(self.n)
        a_valid = None if rows == Const(self.m) else (rows, Const(width))
        b_valid = None if cols == Const(self.n) else (Const(width), cols)
        a = self.emit(self.fresh("a" + tag), Call(ops.EXTRACT, (self.lhs, Const(0), ko, ListExpr((Const(self.m),
                      Const(width)))), (("target_memory", _mem(MemSpace.Left)),), span=self.span),
                      TileType((Const(self.m), Const(width)), self.lhs_t.dtype, MemSpace.Left, valid_shape=a_valid))
        b = self.emit(self.fresh("b" + tag), Call(ops.EXTRACT, (self.rhs, ko, Const(0), ListExpr((Const(width),
                      Const(self.n)))), (("target_memory", _mem(MemSpace.Right)),), span=self.span),
                      TileType((Const(width), Const(self.n)), self.rhs_t.dtype, MemSpace.Right, valid_shape=b_valid))
        return a, b

    def mad(self, op: str, args: tuple[Expr, ...], init_cond: Expr | None = None) -> Call:
        kwargs = (("init_cond", init_cond),) if init_cond is not None else ()
        return Call(op, args, kwargs, span=self.call.span)

    def bias(self) -> Expr:
        """The bias operand of a `matmul_bias`."""
        bias = self.parts.bias
        assert bias is not None, "matmul_parts: a matmul_bias has its bias (3rd operand or `bias=`)"
        return bias

    def block(self, offset: int, width: int, acc: Expr | None, name: str, tag: str,
              init_cond: Expr | None = None) -> Var:
        """One straight-line K block at a literal offset: `matmul_acc` into *acc*, or the fresh op."""
        a, b = self.extracts(Const(offset), width, tag)
        if acc is not None:
            call = self.mad(ops.MATMUL_ACC, (acc, a, b), init_cond)
        elif self.call.op == ops.MATMUL_BIAS:
            call = self.mad(ops.MATMUL_BIAS, (a, b, self.bias()))
        else:
            call = self.mad(ops.MATMUL, (a, b))
        return self.emit(name, call, self.acc_t)

    def build(self) -> tuple[Stmt, ...]:
        self.lhs = self.stage(self.parts.lhs, self.lhs_t, "lmat")
        self.rhs = self.stage(self.parts.rhs, self.rhs_t, "rmat")
        result_name = self.stmt.target.name
        blocks = self.k_total // self.k
        k_full = blocks * self.k
        tail = self.k_total - k_full
        main_name = self.fresh("kmain") if tail else result_name
        op = self.call.op
        peel = op == ops.MATMUL_BIAS and not self.behaviours.tiles_k_with_first_block_phi
        if op == ops.MATMUL_ACC:
            assert self.parts.acc is not None, "matmul_parts: a matmul_acc's first operand is its acc"
            start, init = 0, self.parts.acc
        elif peel or blocks == 1:
            first = self.block(0, self.k, None, self.fresh("c0"), "0")
            start, init = self.k, first
        else:
            create = Call(ops.CREATE, (ListExpr(self.acc_t.shape),), (("dtype", Sym(self.acc_t.dtype.value)),
                          ("target_memory", _mem(MemSpace.Acc))), span=self.span)
            start, init = 0, self.emit(self.fresh("init"), create, self.acc_t)
        remaining = (k_full - start) // self.k
        if remaining == 0:
            main = init
        elif remaining == 1:
            cond = self.first_block_cond(Const(start))
            name = main_name if not tail else self.fresh(f"c{start // self.k}")
            main = self.block(start, self.k, init, name, str(start // self.k), cond)
        else:
            main = self.loop(start, k_full, init, main_name)
        if tail:
            self.block(k_full, tail, main, result_name, "t")
        elif (main_var := var_like(main)) is None or main_var.name != result_name:
            # the result keeps the matmul's name: bind it when the chain ended on another value
            self.out.append(Assign(Var(result_name, span=self.span), main, self.acc_t, span=self.span))
        return tuple(self.out)

    def first_block_cond(self, ko: Expr) -> Expr | None:
        """The `init_cond` of a `matmul_acc` block at K offset *ko* of a predicated input (P on the
        block at offset 0, nothing elsewhere)."""
        predicate = self.parts.init_cond
        if self.call.op != ops.MATMUL_ACC or predicate is None:
            return None
        if isinstance(ko, Const):
            return predicate if ko.value == 0 else None
        return BoolOp("and", (predicate, Compare("==", ko, Const(0))))

    def loop(self, start: int, stop: int, init: Expr, result_name: str) -> Var:
        ko = Var(self.fresh("ko"), span=self.span)
        carry = IterArg(self.fresh("c"), span=self.span)
        outer = self.out
        self.out = []
        a, b = self.extracts(ko, self.k, "")
        first = start == 0 and self.call.op != ops.MATMUL_ACC
        if first and self.behaviours.tiles_k_with_first_block_phi:
            fresh_op = ops.MATMUL_BIAS if self.call.op == ops.MATMUL_BIAS else ops.MATMUL
            fresh_args: tuple[Expr, ...] = (a, b, self.bias()) if fresh_op == ops.MATMUL_BIAS else (a, b)
            first_name, acc_name, phi = self.fresh("c_first"), self.fresh("c_acc"), Var(self.fresh("c_phi"))
            then_body = (Assign(Var(first_name, span=self.span), self.mad(fresh_op, fresh_args), self.acc_t,
                                span=self.span), Yield((Var(first_name),), span=self.span))
            else_body = (Assign(Var(acc_name, span=self.span), self.mad(ops.MATMUL_ACC, (carry, a, b)), self.acc_t,
                                span=self.span), Yield((Var(acc_name),), span=self.span))
            self.out.append(If(Compare("==", ko, Const(0)), then_body, else_body, (phi,), (self.acc_t,),
                               span=self.span))
            yielded: Expr = phi
        else:
            cond = Compare("==", ko, Const(0)) if first else self.first_block_cond(ko) if start == 0 else None
            yielded = self.emit(self.fresh("c_acc"), self.mad(ops.MATMUL_ACC, (carry, a, b), cond), self.acc_t)
        body = (*self.out, Yield((yielded,), span=self.span))
        self.out = outer
        loop = For(ko, Const(start), Const(stop), Const(self.k), (carry,), (init,), body,
                   (Var(result_name, span=self.span),), (self.acc_t,), kind=LoopKind.PIPELINE, stage=STAGES,
                   span=self.span)
        self.out.append(loop)
        return Var(result_name, span=self.span)


PASS: Final = Pass("auto-tile-matmul-l0", auto_tile_matmul_l0, mirrors="PyPTO 15 AutoTileMatmulL0")
