"""The static stages' cheap paths (stop 29) are the slow ones they stand for: `ir.replace` is
`dataclasses.replace`, `span.slotted_init`'s `__init__` is the generated one, `ir.var_names` is the walk it
shortens, `ssa.child_nodes` is `ast.iter_child_nodes`, the terms' table forgets a dead term, and
`ops.is_kernel` / `is_lowered` answer for the function asked about, not the one before."""

from __future__ import annotations

import ast
import dataclasses
import gc
import inspect
from pathlib import Path

import pytest

from pypto_verify import ir, ops
from pypto_verify.frontend import read_file
from pypto_verify.frontend.ssa import child_nodes
from pypto_verify.ir import (
    Assign, BinOp, Call, Const, DictExpr, For, Function, FunctionKind, IterArg, ListExpr, Param, Span, Var, Yield,
    replace, var_names, walk_exprs,
)
from pypto_verify.smt import encode as E
from pypto_verify.smt import sites
from pypto_verify.span import slotted_init

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
SPAN = Span("k.py", 3, 7)


def _node_classes() -> list[type]:
    return [c for c in vars(ir).values() if isinstance(c, type) and c.__module__ == ir.__name__
            and dataclasses.is_dataclass(c)]


@pytest.mark.parametrize("cls", [*_node_classes(), Span, sites.Mad, sites.AccSite, ops.MatmulParts],
                         ids=lambda c: c.__name__)
def test_a_slotted_init_takes_the_generated_parameters(cls: type) -> None:
    fields = dataclasses.fields(cls)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in params] == [f.name for f in sorted(fields, key=lambda f: f.kw_only)]
    for p, f in zip(params, sorted(fields, key=lambda f: f.kw_only)):
        assert (p.kind is p.KEYWORD_ONLY) == f.kw_only
        assert p.default is (p.empty if f.default is dataclasses.MISSING else f.default)


def test_a_node_made_by_the_slotted_init_is_the_generated_ones() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Plain:
        a: int
        b: tuple = ()
        c: str = dataclasses.field(default="x", kw_only=True)

    fast = slotted_init(dataclasses.dataclass(frozen=True, slots=True)(type("Fast", (), {
        "__annotations__": {"a": "int", "b": "tuple", "c": "str"}, "b": (),
        "c": dataclasses.field(default="x", kw_only=True)})))
    assert fast.__init__ is not Plain.__init__
    for args, kwargs in [((1,), {}), ((1, (2,)), {"c": "y"})]:
        made, plain = fast(*args, **kwargs), Plain(*args, **kwargs)
        assert (made.a, made.b, made.c) == (plain.a, plain.b, plain.c)
    with pytest.raises(TypeError):
        fast()
    with pytest.raises(TypeError):
        fast(1, (), "c")  # `c` is keyword-only
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast(1).a = 2


def test_replace_is_dataclasses_replace() -> None:
    x = Var("x", span=SPAN)
    call = Call("tile.add", (x, Const(1)), (("attrs", DictExpr((("k", Const(2)),))),), span=SPAN)
    loop = For(Var("i"), Const(0), Const(4), Const(1), (IterArg("a"),), (x,), (Yield((call,)),), (Var("r"),),
               (None,), span=SPAN)
    for node, changes in [(x, {"name": "y"}), (call, {"args": ()}), (loop, {"body": (), "stage": 2}),
                          (Param("p", None, untyped="why"), {"name": "q"}), (IterArg("a"), {"name": "b"})]:
        copy = replace(node, **changes)
        assert type(copy) is type(node)
        assert copy == dataclasses.replace(node, **changes)
        assert all(getattr(copy, f.name) is getattr(dataclasses.replace(node, **changes), f.name)
                   for f in dataclasses.fields(node))  # the span too, which equality ignores
    with pytest.raises(TypeError, match="unexpected keyword argument 'nmae'"):
        replace(x, nmae="y")


def test_replace_leaves_a_class_with_post_init_to_dataclasses() -> None:
    seen: list[int] = []

    @dataclasses.dataclass(frozen=True)
    class Checked:
        n: int

        def __post_init__(self) -> None:
            seen.append(self.n)

    assert replace(Checked(1), n=2) == Checked(2)
    assert seen == [1, 2, 2]


def test_var_names_is_the_walk_of_the_variables() -> None:
    i, a = Var("i"), IterArg("acc")
    expr = Call("tile.matmul_acc", (a, ListExpr((BinOp("*", i, Const(64)), i)), Var("w")),
                (("init_cond", BinOp("==", i, Const(0))), ("attrs", DictExpr((("k", Var("z")),)))))
    walked = [e.name for e in walk_exprs(expr) if isinstance(e, Var)]
    assert var_names(expr) == walked == ["acc", "i", "i", "w", "i", "z"]


def test_child_nodes_is_iter_child_nodes() -> None:
    for path in sorted(CORPUS.glob("*.py"))[:10]:
        for node in ast.walk(ast.parse(path.read_text())):
            assert child_nodes(node) == list(ast.iter_child_nodes(node))


def test_a_term_is_one_object_while_it_lives_and_forgotten_when_it_dies() -> None:
    x = E.const("statfast.x")
    first = E.add(x, E.lit(3))
    assert E.add(x, E.lit(3)) is first
    assert E.Term("+", first.args, None, E.INT) is first
    key = ("+", first.args, type(None), None, E.INT)
    assert key in E._TERMS
    del first
    gc.collect()
    assert key not in E._TERMS
    assert E.Term("int", (), 1, E.INT) is not E.Term("bool", (), True, E.BOOL)  # 1 == True, but not the same term


_JIT_KERNEL = """
import pypto.language as pl


@pl.jit
def mm(x: pl.Tensor[[16, 128], pl.FP32], w: pl.Tensor[[128, 32], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    acc = pl.matmul(x[:, 0:64], w[0:64, :])
    acc = pl.matmul_acc(acc, x[:, 64:128], w[64:128, :])
    y[:, :] = acc
    return y
"""


def test_is_kernel_and_is_lowered_answer_for_the_function_asked_about(tmp_path: Path) -> None:
    path = tmp_path / "mm.py"
    path.write_text(_JIT_KERNEL)
    (fn,) = [f for _, f in read_file(str(path)).module.functions()]
    assert fn.kind is FunctionKind.OPAQUE  # a kernel by what it holds (a matmul), not by its kind
    glue = Function("glue", FunctionKind.OPAQUE, (), (), (Assign(Var("n"), Const(1)),))
    for _ in range(2):  # each asked right after the other: the remembered answer is not the other's
        assert ops.is_kernel(fn) and not ops.is_kernel(glue)
        assert not ops.is_lowered(fn)
    alloc = Assign(Var("mem"), Call(ops.ALLOC, ()), None)
    lowered = replace(fn, body=(alloc, *fn.body))
    assert ops.is_lowered(lowered) and not ops.is_lowered(fn)
