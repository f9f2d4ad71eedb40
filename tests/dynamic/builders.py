"""Small builders for IR written in Python, for the dynamic-check tests (emitter, reference).

`v("x")` is a use, `it("c_iter")` an iter_arg use, plain ints / floats / bools become `Const`, lists
become `ListExpr`, `sym("Mem.Acc")` an enumerator. `tile(...)` builds a `TileType`, with a MemRef
when `addr=` is given (the byte address allocate-memory-addr assigns: base `mem_<space>_<addr>`).
"""

from __future__ import annotations

from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, DType, Direction, Eval, Expr, For, Function, FunctionKind,
    If, IterArg, ListExpr, LoopKind, MemRef, MemSpace, Param, Program, Module, Return, ScalarType,
    Stmt, Sym, TensorType, TileType, UnaryOp, Var, Yield,
)
from pypto_verify.target import TARGETS

FP32, BF16, FP16, INT8, INT32, INDEX, BOOL = (DType.FP32, DType.BF16, DType.FP16, DType.INT8,
                                              DType.INT32, DType.INDEX, DType.BOOL)
Mat, Left, Right, Acc, Vec, Bias = (MemSpace.Mat, MemSpace.Left, MemSpace.Right, MemSpace.Acc,
                                     MemSpace.Vec, MemSpace.Bias)


def v(name: str) -> Var:
    return Var(name)


def it(name: str) -> IterArg:
    return IterArg(name)


def sym(path: str) -> Sym:
    return Sym(path)


def e(value) -> Expr:
    """*value* as an expression: Expr kept, str a Var, list a ListExpr, anything else a Const."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, str):
        return Var(value)
    if isinstance(value, (list, tuple)):
        return ListExpr(tuple(e(x) for x in value))
    return Const(value)


def call(op: str, *args, **kwargs) -> Call:
    return Call(op, tuple(e(a) for a in args), tuple((k, e(x)) for k, x in kwargs.items()))


def mem(space: MemSpace) -> Sym:
    return Sym(f"Mem.{space.value}")


def add(a, b) -> BinOp:
    return BinOp("+", e(a), e(b))


def mul(a, b) -> BinOp:
    return BinOp("*", e(a), e(b))


def eq(a, b) -> Compare:
    return Compare("==", e(a), e(b))


def tensor(shape, dtype: DType) -> TensorType:
    return TensorType(tuple(Const(d) for d in shape), dtype)


def tile(shape, dtype: DType, space: MemSpace | None = None, addr: int | None = None,
         valid=None, target: str = "a2a3") -> TileType:
    memref = None
    if addr is not None:
        assert space is not None
        size = TARGETS[target].tile_bytes(tuple(shape), dtype, space)
        memref = MemRef(f"mem_{space.value.lower()}_{addr}", addr, size)
    valid_shape = tuple(e(x) for x in valid) if valid is not None else None
    return TileType(tuple(Const(d) for d in shape), dtype, space, memref, valid_shape)


def assign(name: str, value, type=None) -> Assign:
    return Assign(Var(name), e(value), type)


def ev(value) -> Eval:
    return Eval(e(value))


def yield_(*values) -> Yield:
    return Yield(tuple(e(x) for x in values))


def loop(var: str, start, stop, step, body: list[Stmt], *, iter_args=(), inits=(), returns=(),
         return_types=None, kind: LoopKind = LoopKind.RANGE, stage: int | None = None) -> For:
    return For(Var(var), e(start), e(stop), e(step), tuple(IterArg(a) for a in iter_args),
               tuple(e(x) for x in inits), tuple(body), tuple(Var(r) for r in returns),
               tuple(return_types) if return_types is not None else tuple(None for _ in returns),
               kind, stage)


def branch(cond, then: list[Stmt], orelse: list[Stmt] = (), returns=(), return_types=None) -> If:
    return If(e(cond), tuple(then), tuple(orelse), tuple(Var(r) for r in returns),
              tuple(return_types) if return_types is not None else tuple(None for _ in returns))


def param(name: str, type, direction: Direction = Direction.IN) -> Param:
    return Param(name, type, direction)


def out(name: str, type) -> Param:
    return Param(name, type, Direction.OUT)


def scalar_param(name: str, dtype: DType = INDEX) -> Param:
    return Param(name, ScalarType(dtype))


def function(name: str, params: list[Param], body: list[Stmt],
             kind: FunctionKind = FunctionKind.INCORE) -> Function:
    return Function(name, kind, tuple(params), (), tuple(body), has_self=False)


def module(*functions: Function, path: str = "<test>") -> Module:
    return Module(path, (Program(None, tuple(functions)),))


def ret(*values) -> Return:
    return Return(tuple(e(x) for x in values))


# ---------------------------------------------------------------------------------------------- sample kernels
# Each takes `lowered`: True gives the lowered form (every tile on a byte address, as after
# allocate-memory-addr), False the same program as a Form 2 source (no MemRefs).


def _t(lowered: bool, shape, dtype, space, addr, **kw) -> TileType:
    return tile(shape, dtype, space, addr if lowered else None, **kw)


def gemm_predicated(lowered: bool, dtype: DType = FP32, m: int = 64, n: int = 64, k: int = 256,
                    tk: int = 64) -> Function:
    """`for ko: c = matmul_acc(c_iter, a[:, ko], b[ko, :], init_cond=(ko == 0))`, then store."""
    acc = ACC_OF[dtype]
    body = [
        assign("a_mat", call("tile.load", "a", [0, 0], [m, k], target_memory=mem(Mat)),
               _t(lowered, [m, k], dtype, Mat, 0)),
        assign("b_mat", call("tile.load", "b", [0, 0], [k, n], target_memory=mem(Mat)),
               _t(lowered, [k, n], dtype, Mat, 65536)),
        assign("c_init", call("tile.create", [m, n], dtype=sym(acc.value), target_memory=mem(Acc)),
               _t(lowered, [m, n], acc, Acc, 0)),
        loop("ko", 0, k, tk, [
            assign("sa", call("tile.extract", "a_mat", 0, "ko", [m, tk], target_memory=mem(Left)),
                   _t(lowered, [m, tk], dtype, Left, 0)),
            assign("sb", call("tile.extract", "b_mat", "ko", 0, [tk, n], target_memory=mem(Right)),
                   _t(lowered, [tk, n], dtype, Right, 0)),
            assign("c_new", call("tile.matmul_acc", it("c_iter"), "sa", "sb", init_cond=eq("ko", 0)),
                   _t(lowered, [m, n], acc, Acc, 0)),
            yield_("c_new"),
        ], iter_args=["c_iter"], inits=["c_init"], returns=["c"],
            return_types=[_t(lowered, [m, n], acc, Acc, 0)]),
        assign("out", call("tile.store", "c", [0, 0], "out")),
        ret("out"),
    ]
    return function("gemm", [param("a", tensor([m, k], dtype)), param("b", tensor([k, n], dtype)),
                             out("out", tensor([m, n], acc))], body)


ACC_OF = {FP32: FP32, BF16: FP32, FP16: FP32, INT8: INT32}


def transposed_rhs(lowered: bool, style: str = "view") -> Function:
    """`y = x @ w.T` (bf16, w stored [N, K]): `style="view"` uses a `tile.transpose_view` of the Mat
    load, `style="flag"` a `b_trans=True` matmul on an untransposed Right extract."""
    m, n, k = 16, 64, 128
    body = [
        assign("xm", call("tile.load", "x", [0, 0], [m, k], target_memory=mem(Mat)), _t(lowered, [m, k], BF16, Mat, 0)),
        assign("wm", call("tile.load", "w", [0, 0], [n, k], target_memory=mem(Mat)), _t(lowered, [n, k], BF16, Mat, 4096)),
        assign("xl", call("tile.extract", "xm", 0, 0, [m, k], target_memory=mem(Left)), _t(lowered, [m, k], BF16, Left, 0)),
    ]
    if style == "view":
        body += [
            assign("wt", call("tile.transpose_view", "wm"), _t(lowered, [k, n], BF16, Mat, 4096)),
            assign("wr", call("tile.extract", "wt", 0, 0, [k, n], target_memory=mem(Right)), _t(lowered, [k, n], BF16, Right, 0)),
            assign("c", call("tile.matmul", "xl", "wr"), _t(lowered, [m, n], FP32, Acc, 0)),
        ]
    else:
        body += [
            assign("wr", call("tile.extract", "wm", 0, 0, [n, k], target_memory=mem(Right)), _t(lowered, [n, k], BF16, Right, 0)),
            assign("c", call("tile.matmul", "xl", "wr", b_trans=True), _t(lowered, [m, n], FP32, Acc, 0)),
        ]
    body += [assign("y", call("tile.store", "c", [0, 0], "y")), ret("y")]
    return function("proj_t", [param("x", tensor([m, k], BF16)), param("w", tensor([n, k], BF16)),
                               out("y", tensor([m, n], FP32))], body)


def int8_padded(lowered: bool) -> Function:
    """An INT8 x INT8 -> INT32 matmul with M = 16 (32 physical Acc rows on a2a3)."""
    m, n, k = 16, 32, 64
    body = [
        assign("xm", call("tile.load", "x", [0, 0], [m, k], target_memory=mem(Mat)), _t(lowered, [m, k], INT8, Mat, 0)),
        assign("wm", call("tile.load", "w", [0, 0], [k, n], target_memory=mem(Mat)), _t(lowered, [k, n], INT8, Mat, 1024)),
        assign("xl", call("tile.move", "xm", target_memory=mem(Left)), _t(lowered, [m, k], INT8, Left, 0)),
        assign("wr", call("tile.move", "wm", target_memory=mem(Right)), _t(lowered, [k, n], INT8, Right, 0)),
        assign("c", call("tile.matmul", "xl", "wr"), _t(lowered, [m, n], INT32, Acc, 4096)),
        assign("y", call("tile.store", "c", [0, 0], "y")),
        ret("y"),
    ]
    return function("int8_mm", [param("x", tensor([m, k], INT8)), param("w", tensor([k, n], INT8)),
                                out("y", tensor([m, n], INT32))], body)


def drain_variants(lowered: bool) -> Function:
    """One fp32 accumulator drained twice: narrowed into a bf16 tensor, atomically added into fp32."""
    m, n, k = 16, 32, 32
    body = [
        assign("xm", call("tile.load", "x", [0, 0], [m, k], target_memory=mem(Mat)), _t(lowered, [m, k], FP32, Mat, 0)),
        assign("wm", call("tile.load", "w", [0, 0], [k, n], target_memory=mem(Mat)), _t(lowered, [k, n], FP32, Mat, 2048)),
        assign("xl", call("tile.move", "xm", target_memory=mem(Left)), _t(lowered, [m, k], FP32, Left, 0)),
        assign("wr", call("tile.move", "wm", target_memory=mem(Right)), _t(lowered, [k, n], FP32, Right, 0)),
        assign("c", call("tile.matmul", "xl", "wr"), _t(lowered, [m, n], FP32, Acc, 0)),
        assign("yb", call("tile.store", "c", [0, 0], "yb")),
        assign("ya", call("tile.store", "c", [16, 0], "ya", atomic=sym("AtomicType.Add"))),
        ret("yb", "ya"),
    ]
    return function("drains", [param("x", tensor([m, k], FP32)), param("w", tensor([k, n], FP32)),
                               out("yb", tensor([m, n], BF16)), out("ya", tensor([2 * m, n], FP32))], body)


def vector_chain(lowered: bool) -> Function:
    """Vec ops of the subset: `y = cast(exp(relu(a + b) * 0.5) + 1.0, BF16)`."""
    shape = [16, 64]
    body = [
        assign("ta", call("tile.load", "a", [0, 0], shape, target_memory=mem(Vec)), _t(lowered, shape, FP32, Vec, 0)),
        assign("tb", call("tile.load", "b", [0, 0], shape, target_memory=mem(Vec)), _t(lowered, shape, FP32, Vec, 4096)),
        assign("s", call("tile.add", "ta", "tb"), _t(lowered, shape, FP32, Vec, 8192)),
        assign("r", call("tile.relu", "s"), _t(lowered, shape, FP32, Vec, 12288)),
        assign("h", call("tile.mul", "r", 0.5), _t(lowered, shape, FP32, Vec, 0)),
        assign("x", call("tile.exp", "h"), _t(lowered, shape, FP32, Vec, 4096)),
        assign("p", call("tile.adds", "x", 1.0), _t(lowered, shape, FP32, Vec, 8192)),
        assign("q", call("tile.cast", "p", target_type=sym("BF16")), _t(lowered, shape, BF16, Vec, 12288)),
        assign("y", call("tile.store", "q", [0, 0], "y")),
        ret("y"),
    ]
    return function("vec", [param("a", tensor(shape, FP32)), param("b", tensor(shape, FP32)),
                            out("y", tensor(shape, BF16))], body)


def norm_chain(lowered: bool) -> Function:
    """Row / column Vec ops: `y = col_expand_add(row_expand_mul(x, rsqrt(row_sum(x * x) / 64 +
    1e-6)), g)`, `m = maximum(row_max(x), 0.5)`, and `z = full(3)` (INT32)."""
    shape, row, col = [8, 64], [8, 1], [1, 64]
    body = [
        assign("tx", call("tile.load", "x", [0, 0], shape, target_memory=mem(Vec)), _t(lowered, shape, FP32, Vec, 0)),
        assign("sq", call("tile.mul", "tx", "tx"), _t(lowered, shape, FP32, Vec, 2048)),
        assign("ss", call("tile.row_sum", "sq"), _t(lowered, row, FP32, Vec, 4096)),
        assign("ms", call("tile.mul", "ss", 0.015625), _t(lowered, row, FP32, Vec, 4096)),
        assign("me", call("tile.add", "ms", 1e-6), _t(lowered, row, FP32, Vec, 4096)),
        assign("inv", call("tile.rsqrt", "me"), _t(lowered, row, FP32, Vec, 4128)),
        assign("xn", call("tile.row_expand_mul", "tx", "inv"), _t(lowered, shape, FP32, Vec, 2048)),
        assign("tg", call("tile.load", "g", [0, 0], col, target_memory=mem(Vec)), _t(lowered, col, FP32, Vec, 4160)),
        assign("yo", call("tile.col_expand_add", "xn", "tg"), _t(lowered, shape, FP32, Vec, 2048)),
        assign("y", call("tile.store", "yo", [0, 0], "y")),
        assign("mx", call("tile.row_max", "tx"), _t(lowered, row, FP32, Vec, 4096)),
        assign("mc", call("tile.maximum", "mx", 0.5), _t(lowered, row, FP32, Vec, 4096)),
        assign("m", call("tile.store", "mc", [0, 0], "m")),
        assign("zi", call("tile.full", shape, dtype=sym("INT32"), value=3), _t(lowered, shape, INT32, Vec, 0)),
        assign("z", call("tile.store", "zi", [0, 0], "z")),
        ret("y", "m", "z"),
    ]
    return function("norm", [param("x", tensor(shape, FP32)), param("g", tensor(col, FP32)),
                             out("y", tensor(shape, FP32)), out("m", tensor(row, FP32)),
                             out("z", tensor(shape, INT32))], body)


def post_if_read(lowered: bool, coalesced: bool = False) -> Function:
    """Shape (B): `acc = matmul_acc(prev)`; `if kb == 1: seed` else `acc`; then `store(acc)`.

    Lowered with `coalesced=True` as the old MemoryReuse left it: the seed retargeted onto the
    accumulator's window (Acc 0), so the post-if store of `acc` reads the seed's data.
    """
    m, n, k = 16, 32, 32
    seed_addr = 0 if coalesced else 2048
    body = [
        assign("xm", call("tile.load", "x", [0, 0], [m, k], target_memory=mem(Mat)), _t(lowered, [m, k], FP32, Mat, 0)),
        assign("wm", call("tile.load", "w", [0, 0], [k, n], target_memory=mem(Mat)), _t(lowered, [k, n], FP32, Mat, 2048)),
        assign("xl", call("tile.move", "xm", target_memory=mem(Left)), _t(lowered, [m, k], FP32, Left, 0)),
        assign("wr", call("tile.move", "wm", target_memory=mem(Right)), _t(lowered, [k, n], FP32, Right, 0)),
        assign("prev", call("tile.matmul", "xl", "wr"), _t(lowered, [m, n], FP32, Acc, 0)),
        loop("kb", 0, 2, 1, [
            assign("acc", call("tile.matmul_acc", it("c_iter"), "xl", "wr"), _t(lowered, [m, n], FP32, Acc, 0)),
            branch(eq("kb", 1), [
                assign("seed", call("tile.matmul", "xl", "wr"), _t(lowered, [m, n], FP32, Acc, seed_addr)),
                yield_("seed"),
            ], [yield_("acc")], returns=["ph"], return_types=[_t(lowered, [m, n], FP32, Acc, seed_addr)]),
            assign("ya", call("tile.store", "acc", [0, 0], "ya")),
            assign("yp", call("tile.store", "ph", [0, 0], "yp")),
            yield_("acc"),
        ], iter_args=["c_iter"], inits=["prev"], returns=["c"], return_types=[_t(lowered, [m, n], FP32, Acc, 0)]),
        ret("ya", "yp"),
    ]
    return function("post_if_read", [param("x", tensor([m, k], FP32)), param("w", tensor([k, n], FP32)),
                                     out("ya", tensor([m, n], FP32)), out("yp", tensor([m, n], FP32))], body)


def biased(lowered: bool) -> Function:
    """`y = x @ w + bias[0, :]` with the bias row loaded straight into the bias table."""
    m, n, k = 16, 32, 64
    body = [
        assign("xm", call("tile.load", "x", [0, 0], [m, k], target_memory=mem(Mat)), _t(lowered, [m, k], FP32, Mat, 0)),
        assign("wm", call("tile.load", "w", [0, 0], [k, n], target_memory=mem(Mat)), _t(lowered, [k, n], FP32, Mat, 4096)),
        assign("bt", call("tile.load", "bias", [0, 0], [1, n], target_memory=mem(Bias)), _t(lowered, [1, n], FP32, Bias, 0)),
        assign("xl", call("tile.move", "xm", target_memory=mem(Left)), _t(lowered, [m, k], FP32, Left, 0)),
        assign("wr", call("tile.move", "wm", target_memory=mem(Right)), _t(lowered, [k, n], FP32, Right, 0)),
        assign("c", call("tile.matmul_bias", "xl", "wr", "bt"), _t(lowered, [m, n], FP32, Acc, 0)),
        assign("y", call("tile.store", "c", [0, 0], "y")),
        ret("y"),
    ]
    return function("biased", [param("x", tensor([m, k], FP32)), param("w", tensor([k, n], FP32)),
                               param("bias", tensor([1, n], FP32)), out("y", tensor([m, n], FP32))], body)


def unaddressed(lowered: bool) -> Function:
    """`gemm_predicated` as a dump after MemoryReuse leaves it: every base at offset 0."""
    fn = gemm_predicated(lowered)
    if not lowered:
        return fn
    from dataclasses import replace as _replace

    from pypto_verify.ir import map_stmts

    def zero(t):
        if isinstance(t, TileType) and t.memref is not None:
            return _replace(t, memref=_replace(t.memref, base=f"mem_{t.space.value.lower()}_{t.memref.offset}",
                                               offset=0))
        return t

    def step(stmt):
        if isinstance(stmt, Assign):
            return (_replace(stmt, type=zero(stmt.type)),)
        if isinstance(stmt, For):
            return (_replace(stmt, return_types=tuple(zero(t) for t in stmt.return_types)),)
        return None

    return _replace(fn, body=map_stmts(fn.body, step))
