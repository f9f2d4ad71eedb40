"""memory-reuse, fixed: a seed moved onto its accumulate arm's chain window (`acc_alignment.
align_seed_onto_chain`), the sound half of what legacy coalescing did.

LowerPipelineLoops with runtime bounds leaves a remainder cascade outside the main loop:
`if rem == 1: (if main_end == start: seed else: matmul_acc(main)) else: main`. The seed is on a fresh
buffer, the accumulate arm in place on the main loop's window: only the seed can move, and it may
only when everything on that window is dead on the seed's path. Shape B (the old accumulator read
after the `if` by another name) stays PV001 with both windows named.
"""

from __future__ import annotations

import pytest

from pypto_verify.ir import BinOp, Compare, Const, DType, Expr, LoopKind, ScalarType, Stmt, Var
from pypto_verify.lowering.pass_base import LoweringError

from . import builders as b
from .helpers import acc_windows, divergent_sites, inplace_pairs, lower, only_function


def fixed(module):
    return only_function(lower(module, "fixed", upto="memory-reuse"))


def refusal(module) -> LoweringError:
    with pytest.raises(LoweringError) as raised:
        fixed(module)
    return raised.value


def add(lhs: Expr | str, k: int) -> Expr:
    return BinOp("+", Var(lhs) if isinstance(lhs, str) else lhs, Const(k))


def clone(j: str, kb: Expr, start: Expr, acc: Expr | str) -> list[Stmt]:
    """One pipeline clone: `if kb == start: s = matmul else: x = matmul_acc(acc)` -> phi `p<j>`."""
    return [
        *b.operands(j, kb),
        b.branch(Compare("==", kb, start),
                 [b.matmul(f"s{j}", j), b.yield_(f"s{j}")],
                 [b.matmul_acc(f"x{j}", acc, j), b.yield_(f"x{j}")],
                 [(f"p{j}", b.FP32_ACC)]),
    ]


def main_loop(stage: int) -> list[Stmt]:
    """`acc = create`; `main_end = start + (stop - start) // stage * stage`; the main loop of step
    *stage* with *stage* clones, its result `main`."""
    span = BinOp("-", Var("k_stop"), Var("k_start"))
    body: list[Stmt] = []
    previous: Expr | str = b.it("acc_it")
    for j in range(stage):
        body += clone(f"_m{j}", add("kb", j) if j else Var("kb"), Var("k_start"), previous)
        previous = f"p_m{j}"
    return [
        b.create("acc"),
        b.let("main_end", BinOp("+", Var("k_start"), BinOp("*", BinOp("//", span, Const(stage)), Const(stage))),
              ScalarType(DType.INDEX)),
        b.loop("kb", Var("k_start"), Var("main_end"), stage, [("acc_it", b.v("acc"))], [*body, b.yield_(previous)],
               [("main", b.FP32_ACC)], LoopKind.PIPELINE, stage),
        b.let("rem", BinOp("-", Var("k_stop"), Var("main_end")), ScalarType(DType.INDEX)),
    ]


def tail(clones: int, tag: str) -> tuple[list[Stmt], str]:
    """*clones* remainder clones (clone j sees `main_end + j`), chained from `main`; their last phi."""
    stmts: list[Stmt] = []
    previous = "main"
    for j in range(clones):
        stmts += clone(f"_{tag}{j}", add("main_end", j) if j else Var("main_end"), Var("k_start"), previous)
        previous = f"p_{tag}{j}"
    return stmts, previous


def kernel(body: list[Stmt], extra_outs: int = 0):
    ps = b.with_dirs(b.params() + [(f"out{i}", b.tensor([32, 64])) for i in range(1, extra_outs + 1)])
    ps += [("k_start", ScalarType(DType.INDEX), b.IN), ("k_stop", ScalarType(DType.INDEX), b.IN)]
    return b.module(b.function("main", ps, [*body, b.Return((b.v("out"),))], (b.tensor([32, 64]),)))


def cascade(after: list[Stmt] = ()) -> list[Stmt]:
    """The stage-2 dynamic remainder: `if rem == 1: <one clone> else: main` -> `res`."""
    one, last = tail(1, "t")
    return [
        *main_loop(2),
        b.branch(Compare("==", Var("rem"), Const(1)), [*one, b.yield_(last)], [b.yield_("main")],
                 [("res", b.FP32_ACC)]),
        b.store("res"),
        *after,
    ]


def nested_cascade() -> list[Stmt]:
    """The stage-3 dynamic remainder: `if rem == 1: <clone> else: (if rem == 2: <2 clones> else: main)`."""
    one, last1 = tail(1, "a")
    two, last2 = tail(2, "b")
    return [
        *main_loop(3),
        b.branch(Compare("==", Var("rem"), Const(1)), [*one, b.yield_(last1)], [
            b.branch(Compare("==", Var("rem"), Const(2)), [*two, b.yield_(last2)], [b.yield_("main")],
                     [("res2", b.FP32_ACC)]),
            b.yield_("res2"),
        ], [("res", b.FP32_ACC)]),
        b.store("res"),
    ]


def assert_one_chain(fn) -> None:
    w = acc_windows(fn)
    assert divergent_sites(fn) == []
    assert all(wo == wi for _, _, wo, wi in inplace_pairs(fn))
    assert len(set(w.values())) == 1, sorted(f"{n}: {x}" for n, x in w.items())


def test_dynamic_remainder_cascade_seed_moves_onto_the_main_loop_window() -> None:
    module = kernel(cascade())
    before = acc_windows(only_function(lower(module, "fixed", upto="materialize-semantic-aliases")))
    assert before["s_t0"] == before["p_t0"] == before["res"] != before["main"] == before["x_t0"]
    fn = fixed(module)
    assert_one_chain(fn)
    w = acc_windows(fn)
    assert w["s_t0"] == w["p_t0"] == w["res"] == w["main"] == before["main"]


def test_nested_remainder_cascade_is_one_window() -> None:
    fn = fixed(kernel(nested_cascade()))
    assert_one_chain(fn)


def test_cascade_inside_an_enclosing_loop_is_one_window() -> None:
    # the shape of `packed_segment_proj` / `gqa_decode`: the whole K reduction per row block of a
    # parallel loop; the main loop's window is written again in the next iteration, after the seed's
    # value was stored
    body = [b.loop("s", 0, 4, 1, [], cascade(), [], LoopKind.PARALLEL)]
    assert_one_chain(fixed(kernel(body)))


def test_cascade_with_the_main_result_read_after_the_if_is_pv001() -> None:
    # `main` is read after the if by another name than the phi: on the seed's path that read would
    # see the seed; no alignment, both windows named
    error = refusal(kernel(cascade([b.store("main", "out1")]), extra_outs=1))
    assert error.rule == "PV001"
    assert error.values[0] == "p_t0" and "seed `s_t0`" in error.message and "accumulate `x_t0`" in error.message
    assert len({str(w) for w in error.windows}) == 2


def test_loop_invariant_accumulator_is_not_overwritten_by_a_seed_in_the_loop() -> None:
    # `keep` is defined before the loop and accumulated into in every iteration: a seed on its window
    # would clobber it for the next iteration
    body = [
        *b.operands("_k", 0), b.matmul("keep", "_k"),
        b.loop("s", 0, 4, 1, [], [
            *b.operands("", Var("s")),
            b.branch(Compare("==", Var("s"), Var("k_start")),
                     [b.matmul("seed", ""), b.yield_("seed")],
                     [b.matmul_acc("x", "keep", ""), b.yield_("x")],
                     [("phi", b.FP32_ACC)]),
            b.store("phi"),
        ], [], LoopKind.PARALLEL),
    ]
    assert refusal(kernel(body)).rule == "PV001"


def test_post_if_read_shape_b_is_still_pv001_naming_both_windows() -> None:
    error = refusal(b.post_if_read())
    assert error.rule == "PV001" and error.values == ("phi", "seed", "acc")
    windows = list(error.windows)
    assert len({str(w) for w in windows}) == 2
    # each as the author knows it: its byte range, then the lowering's name for the buffer
    assert all(f"bytes [{w.offset}, {w.offset + w.size}) of {w.base}" in error.message for w in windows)


def test_legacy_is_untouched_by_the_seed_alignment() -> None:
    # legacy keeps PyPTO's coalescing, which does the same move here without the liveness proof
    module = kernel(cascade([b.store("main", "out1")]), extra_outs=1)
    fn = only_function(lower(module, "legacy", upto="memory-reuse"))
    w = acc_windows(fn)
    assert w["s_t0"] == w["main"]  # the unsound post-if read, silently


@pytest.mark.parametrize("name", ["edge_nonzero_start", "attn_decode_gqa"])
def test_runtime_bound_pipelines_of_the_corpus_lower_in_fixed_mode(name: str) -> None:
    from pathlib import Path

    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower as lower_all

    from .helpers import frontend

    path = Path(__file__).resolve().parents[3] / "corpus" / f"{name}.py"
    result = lower_all(frontend().read_file(path).module, LowerOptions(mode="fixed"))
    assert result.errors == ()
    for _, fn in result.module.functions():
        assert divergent_sites(fn) == [] and all(wo == wi for _, _, wo, wi in inplace_pairs(fn)), fn.name
