"""Small constructors for tile IR written in Python, for the memory-pass tests.

Each kernel builder returns a `Module` holding one AIC function in the form LowerPipelineLoops leaves
it (Form 2 tile ops, memory spaces set, no MemRefs): exactly what init-memref expects. Lines: every
statement gets a distinct span line so messages and notes can be checked by line.
"""

from __future__ import annotations

import itertools

from pypto_verify.ir import (
    Assign, Call, Compare, Const, DType, DictExpr, Eval, Expr, For, Function, FunctionKind, If, IterArg,
    ListExpr, LoopKind, MemRef, MemSpace, Module, Param, Program, Return, ScalarType, Span, Stmt, Sym,
    TensorType, TileType, Type, Var, Yield, Direction,
)

PATH = "<builders>"
_lines = itertools.count(10)


def span() -> Span:
    return Span(PATH, next(_lines), 9)


def c(value) -> Const:
    return Const(value)


def v(name: str) -> Var:
    return Var(name, span=span())


def it(name: str) -> IterArg:
    return IterArg(name, span=span())


def lst(*items) -> ListExpr:
    return ListExpr(tuple(x if isinstance(x, Expr) else Const(x) for x in items))


def sym(path: str) -> Sym:
    return Sym(path)


def mem(space: MemSpace) -> Sym:
    return Sym(f"Mem.{space.value}")


def tile(shape, dtype: DType = DType.FP32, space: MemSpace = MemSpace.Acc) -> TileType:
    return TileType(tuple(Const(d) for d in shape), dtype, space)


def tensor(shape, dtype: DType = DType.FP32) -> TensorType:
    return TensorType(tuple(Const(d) for d in shape), dtype)


def call(op: str, *args, **kwargs) -> Call:
    return Call(op, tuple(a if isinstance(a, Expr) else Const(a) for a in args),
                tuple((k, a if isinstance(a, Expr) else Const(a)) for k, a in kwargs.items()), span=span())


def attrs(membership: str) -> DictExpr:
    return DictExpr((("pipeline_membership", Const(membership)),))


def let(name: str, value: Expr, t: Type | None = None) -> Assign:
    s = span()
    return Assign(Var(name, span=s), value, t, span=s)


def do(value: Expr) -> Eval:
    return Eval(value, span=span())


def yield_(*names) -> Yield:
    return Yield(tuple(n if isinstance(n, Expr) else Var(n) for n in names), span=span())


def eq(lhs, rhs) -> Compare:
    return Compare("==", lhs if isinstance(lhs, Expr) else Const(lhs), rhs if isinstance(rhs, Expr) else Const(rhs))


def loop(var: str, start, stop, step, carried: list[tuple[str, Expr]], body: list[Stmt],
         returns: list[tuple[str, Type | None]], kind: LoopKind = LoopKind.RANGE, stage: int | None = None) -> For:
    s = span()
    return For(Var(var), Const(start) if isinstance(start, int) else start, Const(stop) if isinstance(stop, int) else stop,
               Const(step) if isinstance(step, int) else step,
               tuple(IterArg(n) for n, _ in carried), tuple(e for _, e in carried), tuple(body),
               tuple(Var(n, span=s) for n, _ in returns), tuple(t for _, t in returns), kind, stage, span=s)


def branch(cond: Expr, then: list[Stmt], else_: list[Stmt], returns: list[tuple[str, Type | None]] = ()) -> If:
    s = span()
    return If(cond, tuple(then), tuple(else_), tuple(Var(n, span=s) for n, _ in returns),
              tuple(t for _, t in returns), span=s)


def function(name: str, params: list[tuple[str, Type, Direction]], body: list[Stmt],
             returns: tuple[Type, ...] = (), kind: FunctionKind = FunctionKind.AIC) -> Function:
    return Function(name, kind, tuple(Param(n, t, d) for n, t, d in params), returns, tuple(body),
                    has_self=False, span=Span(PATH, 1, 1))


def module(*fns: Function) -> Module:
    return Module(PATH, (Program("Kernel", tuple(fns)),))


IN, OUT = Direction.IN, Direction.OUT


# ---------------------------------------------------------------------------------------------- common pieces

FP32_ACC = tile([32, 64])
MAT_A = tile([32, 64], DType.FP32, MemSpace.Mat)
MAT_B = tile([64, 64], DType.FP32, MemSpace.Mat)
LEFT = tile([32, 64], DType.FP32, MemSpace.Left)
RIGHT = tile([64, 64], DType.FP32, MemSpace.Right)


def operands(suffix: str, k: Expr | int = 0) -> list[Stmt]:
    """Loads of an A and a B block and their moves to Left / Right: `a<suffix>`, `b<suffix>`."""
    return [
        let(f"ma{suffix}", call("tile.load", v("lhs"), lst(0, k), lst(32, 64), target_memory=mem(MemSpace.Mat)), MAT_A),
        let(f"mb{suffix}", call("tile.load", v("rhs"), lst(k, 0), lst(64, 64), target_memory=mem(MemSpace.Mat)), MAT_B),
        let(f"a{suffix}", call("tile.move", v(f"ma{suffix}"), target_memory=mem(MemSpace.Left)), LEFT),
        let(f"b{suffix}", call("tile.move", v(f"mb{suffix}"), target_memory=mem(MemSpace.Right)), RIGHT),
    ]


def params() -> list[tuple[str, Type, Direction]]:
    return [("lhs", tensor([32, 256])), ("rhs", tensor([256, 64])), ("out", tensor([32, 64]))]


def with_dirs(ps) -> list[tuple[str, Type, Direction]]:
    return [(n, t, OUT if n.startswith("out") else IN) for n, t in ps]


def matmul(name: str, suffix: str) -> Assign:
    return let(name, call("tile.matmul", v(f"a{suffix}"), v(f"b{suffix}")), FP32_ACC)


def matmul_acc(name: str, acc: Expr | str, suffix: str, init_cond: Expr | None = None) -> Assign:
    acc_expr = acc if isinstance(acc, Expr) else v(acc)
    args = [acc_expr, v(f"a{suffix}"), v(f"b{suffix}")]
    if init_cond is not None:
        args.append(init_cond)
    return let(name, call("tile.matmul_acc", *args), FP32_ACC)


def store(value: str, out: str = "out", target: str | None = None) -> Assign:
    return let(target or out, call("tile.store", v(value), lst(0, 0), v(out)), tensor([32, 64]))


def create(name: str) -> Assign:
    return let(name, call("tile.create", lst(32, 64), dtype=sym("FP32"), target_memory=mem(MemSpace.Acc)), FP32_ACC)


def kernel(body: list[Stmt], extra_outs: int = 0) -> Module:
    ps = params() + [(f"out{i}", tensor([32, 64])) for i in range(1, extra_outs + 1)]
    return module(function("main", with_dirs(ps), [*body, Return((v("out"),))], (tensor([32, 64]),)))


# ---------------------------------------------------------------------------------------------- the shapes


def loads(suffix: str, k: Expr | int = 0) -> list[Stmt]:
    return operands(suffix, k)[:2]


def moves(suffix: str, source: str) -> list[Stmt]:
    return [
        let(f"a{suffix}", call("tile.move", v(f"ma{source}"), target_memory=mem(MemSpace.Left)), LEFT),
        let(f"b{suffix}", call("tile.move", v(f"mb{source}"), target_memory=mem(MemSpace.Right)), RIGHT),
    ]


def hand_peel() -> Module:
    """real-ir hand_peel: `if kb == 0: matmul else matmul_acc(c_iter)` inside the loop that carries it,
    the operand moves inside each arm as the real compiler leaves them."""
    return kernel([
        create("c_init"),
        loop("kb", 0, 4, 1, [("c_iter", v("c_init"))], [
            *loads("", Var("kb")),
            branch(eq(v("kb"), 0),
                   [*moves("", ""), matmul("f", ""), yield_("f")],
                   [*moves("_1", ""), matmul_acc("x", it("c_iter"), "_1"), yield_("x")],
                   [("ph", FP32_ACC)]),
            yield_("ph"),
        ], [("c", FP32_ACC)]),
        store("c"),
    ])


def divergent_tail(read_main_after: bool = False) -> Module:
    """Shape A: a stage-2 K loop with an odd block count; the literal tail clone is a divergent phi
    `if 128 == 0: f = matmul @D else: x = matmul_acc(c_main @A) @A` outside the loop. With
    *read_main_after*, `c_main` is also stored after the `if` (so the seed cannot move onto A)."""
    body_clone = lambda j: [  # noqa: E731
        *operands(f"_{j}", Var("ko")),
        branch(eq(v("ko") if j == 0 else call_add("ko", 64), 0),
               [matmul(f"f_{j}", f"_{j}"), yield_(f"f_{j}")],
               [matmul_acc(f"x_{j}", it("c_iter") if j == 0 else v("p_0"), f"_{j}"), yield_(f"x_{j}")],
               [(f"p_{j}", FP32_ACC)]),
    ]
    return kernel([
        create("c_init"),
        loop("ko", 0, 128, 128, [("c_iter", v("c_init"))], [*body_clone(0), *body_clone(1), yield_("p_1")],
             [("c_main", FP32_ACC)], LoopKind.PIPELINE, 1),
        *operands("_t", 128),
        branch(eq(128, 0),
               [matmul("f", "_t"), yield_("f")],
               [matmul_acc("x", "c_main", "_t"), yield_("x")],
               [("c_phi", FP32_ACC)]),
        store("c_phi"),
        *([store("c_main", "out1")] if read_main_after else []),
    ], extra_outs=1 if read_main_after else 0)


def post_if_read() -> Module:
    """Shape B: `acc = matmul_acc(prev)` before the if, `then: seed`, `else: yield acc`, then a store of
    `acc` after the if (a read of the old accumulator by another name than the phi)."""
    return _with_flag([
        *operands("", 0),
        matmul("prev", ""),
        matmul_acc("acc", "prev", ""),
        branch(Compare("<", v("flag"), c(1)),
               [matmul("seed", ""), yield_("seed")],
               [yield_("acc")],
               [("phi", FP32_ACC)]),
        store("phi"),
        store("acc", "out1"),
    ])


def _with_flag(body: list[Stmt]) -> Module:
    ps = with_dirs(params() + [("out1", tensor([32, 64]))]) + [("flag", ScalarType(DType.INDEX), IN)]
    return module(function("main", ps, [*body, Return((v("out"),))], (tensor([32, 64]),)))


def fragmented_chain() -> Module:
    """Shape C: `pl.pipeline(0, 192, 64, stage=4)` with the `if ko == 0` body: three literal tail
    clones and no main loop, each `if <lit> == 0: matmul else matmul_acc(previous)`."""
    body: list[Stmt] = [create("c_init")]
    previous = "c_init"
    for j, k in enumerate((0, 64, 128)):
        body += operands(f"_{j}", k)
        body.append(branch(eq(k, 0),
                           [matmul(f"f{j}", f"_{j}"), yield_(f"f{j}")],
                           [matmul_acc(f"x{j}", previous, f"_{j}"), yield_(f"x{j}")],
                           [(f"p{j}", FP32_ACC)]))
        previous = f"p{j}"
    body.append(store(previous))
    return kernel(body)


def iter_arg_phi_arm() -> Module:
    """Shape D (phi arm): a drained phi inside the loop whose else arm is the loop's IterArg."""
    return kernel([
        create("c_init"),
        loop("k", 0, 4, 1, [("c_iter", v("c_init"))], [
            *operands("", Var("k")),
            branch(eq(v("k"), 0),
                   [matmul("f", ""), yield_("f")],
                   [yield_(it("c_iter"))],
                   [("ph", FP32_ACC)]),
            store("ph"),
            matmul_acc("x", it("c_iter"), ""),
            yield_("x"),
        ], [("c", FP32_ACC)]),
        store("c"),
    ])


def iter_arg_loop_init() -> Module:
    """Shape D (loop init): an inner loop whose init is the outer loop's IterArg; the inner body yields
    a fresh matmul after draining its carry, so the carry cannot be pushed onto the inner yield."""
    return kernel([
        create("c_init"),
        loop("i", 0, 2, 1, [("c_o", v("c_init"))], [
            loop("j", 0, 2, 1, [("c_i", it("c_o"))], [
                *operands("", Var("j")),
                matmul("f", ""),
                let("drain", call("tile.move", it("c_i"), target_memory=mem(MemSpace.Mat)), MAT_A),
                yield_("f"),
            ], [("c_r", FP32_ACC)]),
            yield_("c_r"),
        ], [("c", FP32_ACC)]),
        store("c"),
    ])


def predicated_loop(stage_tail: bool = True) -> Module:
    """Shape F: the fixed AutoTileMatmulL0 body `matmul_acc(c_iter, a, b, init_cond=(ko == 0))`, two
    pipeline clones per iteration and, with *stage_tail*, a literal tail clone after the loop."""
    clone = lambda j, acc, k: [*operands(f"_{j}", k), matmul_acc(f"x_{j}", acc, f"_{j}", eq(k, 0))]  # noqa: E731
    ko1 = call_add("ko", 64)
    body: list[Stmt] = [
        create("c_init"),
        loop("ko", 0, 128, 128, [("c_iter", v("c_init"))],
             [*clone(0, it("c_iter"), Var("ko")), *clone(1, v("x_0"), ko1), yield_("x_1")],
             [("c_main", FP32_ACC)], LoopKind.PIPELINE, 1),
    ]
    last = "c_main"
    if stage_tail:
        body += [*operands("_t", 128), matmul_acc("x_t", "c_main", "_t", eq(128, 0))]
        last = "x_t"
    body.append(store(last))
    return kernel(body)


def call_add(name: str, k: int) -> Expr:
    from pypto_verify.ir import BinOp

    return BinOp("+", Var(name), Const(k))


def bias_peel() -> Module:
    """Shape E, fixed: the first K block peeled (`matmul_bias`), then a uniform matmul_acc loop from k."""
    bias_t = tile([1, 64], DType.FP32, MemSpace.Bias)
    return module(function("main", with_dirs(params() + [("bias", tensor([1, 64]))]), [
        *operands("_0", 0),
        let("bias_t", call("tile.load", v("bias"), lst(0, 0), lst(1, 64), target_memory=mem(MemSpace.Bias)), bias_t),
        let("c0", call("tile.matmul_bias", v("a_0"), v("b_0"), v("bias_t")), FP32_ACC),
        loop("ko", 64, 256, 64, [("c_iter", v("c0"))], [
            *operands("", Var("ko")),
            matmul_acc("x", it("c_iter"), ""),
            yield_("x"),
        ], [("c", FP32_ACC)]),
        store("c"),
        Return((v("out"),)),
    ], (tensor([32, 64]),)))


def fresh_arms() -> Module:
    """A phi of two fresh producers on two buffers: alignable (the else arm moves to the phi's window)."""
    return _with_flag([
        *operands("", 0),
        branch(Compare("<", v("flag"), c(1)),
               [matmul("p", ""), yield_("p")],
               [matmul("q", ""), yield_("q")],
               [("phi", FP32_ACC)]),
        store("phi"),
    ])


def two_accumulators() -> Module:
    """Two predicated chains in one loop (real-ir two_accumulators, un-pipelined)."""
    body = [
        create("k_init"), create("v_init"),
        loop("k0", 0, 256, 64, [("k_it", v("k_init")), ("v_it", v("v_init"))], [
            *operands("", Var("k0")),
            matmul_acc("k_new", it("k_it"), "", eq(v("k0"), 0)),
            matmul_acc("v_new", it("v_it"), "", eq(v("k0"), 0)),
            yield_("k_new", "v_new"),
        ], [("k_acc", None), ("v_acc", None)]),
        store("k_acc"),
        store("v_acc", "out1"),
    ]
    ps = with_dirs(params() + [("out1", tensor([32, 64]))])
    return module(function("main", ps, [*body, Return((v("out"),))], (tensor([32, 64]),)))


def memref(base: str, size: int, offset: int = 0) -> MemRef:
    return MemRef(base, offset, size)


def iter_arg_copy() -> Module:
    """An identity copy of an iter_arg yielded as the carry (legacy InitMemRef misses the IterArg)."""
    return kernel([
        create("c_init"),
        loop("k", 0, 2, 1, [("c_iter", v("c_init"))], [
            let("copy", it("c_iter"), FP32_ACC),
            yield_("copy"),
        ], [("c", FP32_ACC)]),
        store("c"),
    ])


def partial_plan() -> Module:
    """A carried phi whose then-arm seed can move onto the carry and whose else arm cannot."""
    return kernel([
        create("c_init"),
        loop("k", 0, 4, 1, [("c_iter", v("c_init"))], [
            *operands("", Var("k")),
            branch(eq(v("k"), 0),
                   [matmul("f", ""), yield_("f")],
                   [matmul("g", ""),
                    let("drain", call("tile.move", it("c_iter"), target_memory=mem(MemSpace.Mat)), MAT_A),
                    yield_("g")],
                   [("ph", FP32_ACC)]),
            yield_("ph"),
        ], [("c", FP32_ACC)]),
        store("c"),
    ])


def vec_phi_move() -> Module:
    """A Vec phi whose else arm is a value still read after the if: yield fixup inserts a move."""
    vec = tile([32, 64], space=MemSpace.Vec)
    return _with_flag([
        let("base", call("tile.load", v("lhs"), lst(0, 0), lst(32, 64), target_memory=mem(MemSpace.Vec)), vec),
        let("prev", call("tile.exp", v("base")), vec),
        branch(Compare("<", v("flag"), c(1)),
               [let("seed", call("tile.exp", v("base")), vec), yield_("seed")],
               [yield_("prev")],
               [("phi", vec)]),
        store("phi"),
        store("prev", "out1"),
    ])


def l0c_overflow() -> Module:
    """Three co-live 64 KiB accumulators: 192 KiB of L0C on a2a3's 128 KiB."""
    big = tile([128, 128])
    body: list[Stmt] = [let(f"acc{i}", call("tile.create", lst(128, 128), dtype=sym("FP32"),
                                             target_memory=mem(MemSpace.Acc)), big) for i in range(3)]
    body += [let("out", call("tile.store", v(f"acc{i}"), lst(0, 0), v("out")), tensor([128, 128])) for i in range(3)]
    return module(function("main", [("out", tensor([128, 128]), OUT)], [*body, Return((v("out"),))],
                           (tensor([128, 128]),)))


def auto_tiled_tail_arms() -> Module:
    """An odd-count tail phi whose arms are auto-tiled inner K loops (TARGET_FACTS.md, "Observed")."""
    def inner(tag: str, init: Expr, acc: Assign) -> For:
        return loop(f"k{tag}", 0, 128, 64, [(f"c{tag}", init)],
                    [*operands(tag, Var(f"k{tag}")), acc, yield_(f"r{tag}")], [(f"o{tag}", FP32_ACC)])

    return kernel([
        create("c_main"),
        branch(eq(128, 0),
               [create("fresh"), inner("_t", v("fresh"), matmul_acc("r_t", it("c_t"), "_t", eq(Var("k_t"), 0))),
                yield_("o_t")],
               [inner("_e", v("c_main"), matmul_acc("r_e", it("c_e"), "_e")), yield_("o_e")],
               [("phi", FP32_ACC)]),
        store("phi"),
    ])


def create_seeded_tail() -> Module:
    """A tail clone with a runtime condition: `d0 = flag * 64; if d0 == 0: f = matmul else
    x = matmul_acc(acc)`, `acc` an uninitialised `tile.create` read by nothing else."""
    from pypto_verify.ir import BinOp

    return _with_flag([
        create("acc"),
        let("d0", BinOp("*", Var("flag"), Const(64)), ScalarType(DType.INDEX)),
        *operands("", Var("d0")),
        branch(eq(v("d0"), 0),
               [matmul("f", ""), yield_("f")],
               [matmul_acc("x", "acc", ""), yield_("x")],
               [("phi", FP32_ACC)]),
        store("phi"),
    ])


def swapped_arms() -> Module:
    """`if kb != 0: accumulate else: seed`, the seed arm an auto-tiled inner K loop from a fresh
    `tile.create` (predicated), carried by the outer loop: the phi lives on the carry's window."""
    return kernel([
        create("c_init"),
        loop("kb", 0, 4, 1, [("c_iter", v("c_init"))], [
            *operands("", Var("kb")),
            branch(Compare("!=", v("kb"), Const(0)),
                   [matmul_acc("x", it("c_iter"), ""), yield_("x")],
                   [create("fresh"),
                    loop("ko", 0, 64, 32, [("c_in", v("fresh"))],
                         [matmul_acc("y", it("c_in"), "", eq(Var("ko"), 0)), yield_("y")], [("seeded", FP32_ACC)]),
                    yield_("seeded")],
                   [("ph", FP32_ACC)]),
            yield_("ph"),
        ], [("c", FP32_ACC)]),
        store("c"),
    ])
