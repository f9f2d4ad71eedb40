"""Site extraction: chains, their iteration-space model, context loops, names and ids, matching."""

from __future__ import annotations

from pypto_verify.smt import sites as S
from pypto_verify.smt import extract_sites, match_sites
from .builders import (
    BF16, FP32, add, create, eq, it, kernel, load, loop, matmul, matmul_acc, out, param, ret, store, tensor,
    yield_, branch,
)
from .harness import KERNELS, lower_fixed, only, read


def _gemm(cond_line: int = 14):
    return kernel("gemm", [param("a", tensor([16, 512], BF16)), param("b", tensor([512, 64], BF16)),
                           out("y", tensor([16, 64], FP32))], [
        create("c0", [16, 64], line=10),
        loop("ko", 0, 512, 128, [
            load("ta", "a", [0, "ko"], [16, 128], line=12),
            load("tb", "b", ["ko", 0], [128, 64], line=13),
            matmul_acc("c1", it("c"), "ta", "tb", [16, 64], init_cond=eq("ko", 0), line=cond_line),
            yield_("c1"),
        ], iter_args=["c"], inits=["c0"], returns=["cr"], line=11),
        store("y2", "cr", [0, 0], "y", line=16),
        ret("y2"),
    ])


def test_a_predicated_loop_is_create_loop_drain_with_traced_operands():
    (site,) = extract_sites(_gemm())
    assert site.id == "gemm:14" and site.name == "cr" and site.initial == "undefined"  # the value it stores
    create_, loop_, drain = site.body
    assert isinstance(create_, S.Create) and isinstance(loop_, S.Loop) and isinstance(drain, S.Drain)
    (mad,) = loop_.body
    assert mad.kind == "acc" and mad.k_extent == 128
    assert mad.lhs.root == "a" and mad.lhs.extents == (16, 128) and S.expr_text(mad.lhs.offsets[1]) == "ko"
    assert mad.rhs.root == "b" and mad.rhs_k_root == 0


def test_an_enclosing_loop_that_does_not_carry_the_chain_is_context():
    module = read(KERNELS / "tiled_k.py")
    dynamic = [s for s in extract_sites(module) if s.function == "dynamic"][0]
    assert [c.var for c in dynamic.context if isinstance(c, S.ContextLoop)] == ["b"]
    assert isinstance(dynamic.body[0], S.Create)


def test_a_loop_that_carries_the_chain_over_output_tiles_stays_in_the_model():
    module = only(read(KERNELS / "inner_index_reset.py"), "drained_per_tile")
    (site,) = extract_sites(module)
    outer = site.body[1]
    assert isinstance(outer, S.Loop) and outer.carried
    assert isinstance(outer.body[-1], S.Drain)  # each tile is stored before the next one starts


def test_a_read_after_the_chain_moved_on_is_unsupported():
    m = kernel("stale", [param("a", tensor([16, 128], BF16)), param("b", tensor([128, 64], BF16)),
                         out("y", tensor([16, 64], FP32))], [
        load("ta", "a", [0, 0], [16, 128], line=30),
        load("tb", "b", [0, 0], [128, 64], line=31),
        matmul("c0", "ta", "tb", [16, 64], line=32),
        matmul_acc("c1", "c0", "ta", "tb", [16, 64], line=33),
        store("y2", "c0", [0, 0], "y", line=34),
        ret("y2"),
    ])
    (site,) = extract_sites(m)
    assert "`c0` is read at line 34 after the chain moved on" in site.unsupported


def test_an_if_phi_seed_is_a_branch_of_two_mads():
    m = kernel("ifphi", [param("a", tensor([16, 512], BF16)), param("b", tensor([512, 64], BF16)),
                         out("y", tensor([16, 64], FP32))], [
        create("c0", [16, 64], line=40),
        loop("kb", 0, 4, 1, [
            load("ta", "a", [0, add("kb", 0)], [16, 128], line=42),
            load("tb", "b", [add("kb", 0), 0], [128, 64], line=43),
            branch(eq("kb", 0), [matmul("f", "ta", "tb", [16, 64], line=45), yield_("f")],
                   [matmul_acc("x", it("c"), "ta", "tb", [16, 64], line=47), yield_("x")], returns=["ph"], line=44),
            yield_("ph"),
        ], iter_args=["c"], inits=["c0"], returns=["cr"], line=41),
        store("y2", "cr", [0, 0], "y", line=49),
        ret("y2"),
    ])
    (site,) = extract_sites(m)
    (branch_,) = site.body[1].body
    assert isinstance(branch_, S.Branch)
    assert [m.kind for m in branch_.then] == ["fresh"] and [m.kind for m in branch_.orelse] == ["acc"]
    assert site.id == "ifphi:45"


def test_lowered_sites_match_their_source_by_span_and_are_refined_to_l0_blocks():
    source = only(read(KERNELS / "tiled_k.py"), "tiled")
    pairs, unmatched = match_sites(extract_sites(source), extract_sites(lower_fixed(source)))
    assert not unmatched and len(pairs) == 1
    pair = pairs[0]
    assert pair.lowered.id == pair.source.id == "tiled:17"
    (mad,) = pair.source.mads
    assert mad.k_extent == 512 and mad.sub_blocks == 4 and mad.sub_width == 128


def test_generated_l0_loop_variables_are_labelled_by_their_accumulator():
    assert S.var_label("acc__l0_ko") == "acc.ko"
    assert S.var_label("c__ssa_v0_l0_ko") == "c.ko"
    assert S.var_label("ko__idx_v0") == "ko"
