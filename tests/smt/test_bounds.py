"""PV107 in-bounds (`smt/bounds.py`): every window a kernel reads or writes is proved inside its tensor on
every iteration, refuted with the window and the loop variables, or inconclusive with the reason."""

from __future__ import annotations

import textwrap

from pypto_verify.frontend import read_source
from pypto_verify.ir import Module
from pypto_verify.smt import Verdict, prove_bounds

HEADER = "import pypto.language as pl\n\n"


def module(body: str) -> Module:
    parsed = read_source(HEADER + textwrap.dedent(body), "kernel.py")
    assert not parsed.errors, [str(e) for e in parsed.errors]
    return parsed.module


def verdicts(body: str) -> list[tuple[int, Verdict]]:
    """(line, verdict) of every PV107 outcome of the kernel (lines of *body* counted from 1)."""
    shift = HEADER.count("\n")
    return [(o.span.line - shift, o.verdict) for o in prove_bounds(module(body), cache=False)]


def refuted(body: str):
    return [o for o in prove_bounds(module(body), cache=False) if o.verdict is Verdict.REFUTED]


FORM1 = """
@pl.jit
def proj(x: pl.Tensor[[16, {K}], pl.BF16], w: pl.Tensor[[{K}, 64], pl.BF16],
         y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        acc = pl.create_tensor([16, 64], dtype=pl.FP32)
        for k0 in pl.range({RANGE}):
            acc = pl.matmul_acc(acc, x[:, {XS}], w[k0 : k0 + 64, :], init_cond=(k0 == 0))
        y[:, {YS}] = acc
    return y
"""


def form1(K: int = 256, RANGE: str = "0, 256, 64", XS: str = "k0 : k0 + 64", YS: str = ":") -> str:
    return FORM1.format(K=K, RANGE=RANGE, XS=XS, YS=YS)


def test_in_bounds_k_loop_proves_every_access():
    outcomes = prove_bounds(module(form1()), cache=False)
    assert [o.verdict for o in outcomes] == [Verdict.PROVED] * 3  # x slice, w slice, the store
    assert all(o.rule == "PV107" for o in outcomes)
    assert outcomes[0].site.startswith("proj:bounds:")


def test_k_loop_one_step_too_long_refutes_both_slices_at_the_last_iteration():
    found = refuted(form1(RANGE="0, 256 + 64, 64"))
    assert [(o.span.line - 2, o.counterexample["k0"]) for o in found] == [(8, 256), (8, 256)]
    assert found[0].counterexample["columns"] == "[256, 320)"
    assert found[1].counterexample["rows"] == "[256, 320)"
    assert "`x[:, k0 : k0 + 64]` reads columns [256, 320) of `x` (shape [16, 256]) at k0 = 256" in found[0].message


def test_slice_shifted_past_the_tensor_is_refuted_with_the_window():
    (found,) = refuted(form1(K=4096, RANGE="0, 4096, 64", XS="k0 + 64 : k0 + 64 + 64"))
    assert found.message == "`x[:, k0 + 64 : k0 + 128]` reads columns [4096, 4160) of `x` (shape [16, 4096]) at k0 = 4032"
    assert found.counterexample == {"k0": 4032, "columns": "[4096, 4160)", "shape": "[16, 4096]"}


def test_assemble_past_the_output_is_refuted_at_the_store():
    (found,) = refuted(form1(YS="32 : 32 + 64"))
    assert found.span.line - 2 == 9
    assert found.message == "`y[:, 32:96] = acc` writes columns [32, 96) of `y` (shape [16, 64])"


def test_explicit_assemble_and_slice_calls_are_accesses():
    body = """
    @pl.jit
    def proj(x: pl.Tensor[[16, 256], pl.BF16], y: pl.Out[pl.Tensor[[16, 256], pl.BF16]]):
        for c in pl.range(0, 256, 64):
            t = pl.slice(x, [16, 64], [0, c + 16])
            y = pl.assemble(y, t, [0, c])
        return y
    """
    assert verdicts(body) == [(5, Verdict.REFUTED), (6, Verdict.PROVED)]


def test_a_path_guard_keeps_the_extra_iteration_out():
    body = form1(RANGE="0, 256 + 64, 64").replace(
        "            acc = pl.matmul_acc(acc, x[:, k0 : k0 + 64], w[k0 : k0 + 64, :], init_cond=(k0 == 0))",
        "            if k0 < 256:\n"
        "                acc = pl.matmul_acc(acc, x[:, k0 : k0 + 64], w[k0 : k0 + 64, :], init_cond=(k0 == 0))")
    assert {v for _, v in verdicts(body)} == {Verdict.PROVED}


def test_negative_step_loops_are_in_their_domain():
    assert {v for _, v in verdicts(form1(RANGE="192, -64, -64"))} == {Verdict.PROVED}
    found = refuted(form1(RANGE="256, -64, -64"))
    assert [o.counterexample["k0"] for o in found] == [256, 256]


def test_symbolic_bounds_are_proved_over_every_dynamic_extent():
    body = """
    T = pl.dynamic("T")

    @pl.jit
    def rows(x: pl.Tensor[[T, 64], pl.BF16], y: pl.Out[pl.Tensor[[T, 64], pl.BF16]]):
        t = pl.tensor.dim(x, 0)
        for r in pl.range(t // 16):
            blk = x[r * 16 : r * 16 + 16, :]
            y[r * 16 : r * 16 + 16, :] = blk
        t_pad = pl.tensor.max(t, 16)
        for r in pl.range(t_pad // 16):
            rows = pl.tensor.min(16, t - r * 16)
            tail = pl.slice(x, [16, 64], [r * 16, 0], valid_shape=[rows, 64])
        return y
    """
    assert verdicts(body) == [(8, Verdict.PROVED), (9, Verdict.PROVED), (13, Verdict.PROVED)]


def test_a_window_that_leaves_for_some_dynamic_sizes_is_conditional_not_refuted():
    body = """
    T = pl.dynamic("T")

    @pl.jit
    def rows(x: pl.Tensor[[T, 64], pl.BF16], y: pl.Out[pl.Tensor[[T, 64], pl.BF16]]):
        t = pl.tensor.dim(x, 0)
        for r in pl.range(0, t, 16):
            blk = x[r : r + 16, :]
        return y
    """
    (outcome,) = prove_bounds(module(body), cache=False)
    assert outcome.verdict is Verdict.CONDITIONAL  # in bounds exactly when T is a multiple of 16
    assert "`T` is a dynamic dimension" in outcome.reason


def test_a_bound_read_at_run_time_is_conditional_with_the_reason():
    body = """
    @pl.jit
    def decode(seq_lens: pl.Tensor[[4], pl.INT32], k: pl.Tensor[[4, 1024, 64], pl.BF16],
               y: pl.Out[pl.Tensor[[4, 64], pl.FP32]]):
        for b in pl.range(4):
            ctx_len = pl.read(seq_lens, [b])
            for s0 in pl.range(0, ctx_len, 128):
                blk = k[b : b + 1, s0 : s0 + 128, :]
        return y
    """
    read, window = prove_bounds(module(body), cache=False)
    assert (read.span.line - 2, read.verdict) == (6, Verdict.PROVED)  # `seq_lens[b]` for b in [0, 4)
    assert (window.span.line - 2, window.verdict) == (8, Verdict.CONDITIONAL)
    assert "`ctx_len` is read from `seq_lens` at run time" in window.reason
    assert window.counterexample is None


def test_tile_level_loads_and_stores_are_checked():
    body = """
    @pl.program
    class Gemm:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[64, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
                 out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            c_init = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
            for ko, (c_iter,) in pl.range(0, 256, 64, init_values=(c_init,)):
                sa = pl.tile.load(a, [0, ko], [64, 64], target_memory=pl.Mem.Left)
                sb = pl.tile.load(b, [ko + 64, 0], [64, 64], target_memory=pl.Mem.Right)
                c_new = pl.tile.matmul_acc(c_iter, sa, sb, init_cond=(ko == 0))
                c = pl.yield_(c_new)
            out = pl.tile.store(c, [0, 16], out)
            return out
    """
    assert verdicts(body) == [(9, Verdict.PROVED), (10, Verdict.REFUTED), (13, Verdict.REFUTED)]
    store = refuted(body)[1]
    assert store.message == "`out[:, 16:80] = c` writes columns [16, 80) of `out` (shape [64, 64])"


def test_a_load_with_a_valid_shape_reads_only_its_valid_region():
    body = """
    @pl.program
    class Tail:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[40, 64], pl.BF16], out: pl.Out[pl.Tensor[[40, 64], pl.BF16]]):
            for r in pl.range(0, 40, 16):
                t = pl.tile.load(a, [r, 0], [16, 64], [pl.min(16, 40 - r), 64], target_memory=pl.Mem.Vec)
            return out
    """
    assert verdicts(body) == [(7, Verdict.PROVED)]


def test_a_write_of_a_value_whose_shape_is_a_guess_is_inconclusive():
    body = """
    @pl.jit
    def scale(x: pl.Tensor[[16, 64], pl.FP32], s: pl.Tensor[[16, 1], pl.FP32],
              y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y[:, :] = pl.row_expand_mul(pl.exp(pl.unknown_op(x)), s)
        return y
    """
    (outcome,) = prove_bounds(module(body), cache=False)
    assert outcome.verdict is Verdict.INCONCLUSIVE
    assert "are not known exactly" in outcome.reason


def test_the_chain_reports_refuted_accesses_as_pv107_findings(tmp_path):
    from pypto_verify.run import Options, run

    path = tmp_path / "k.py"
    path.write_text(HEADER + form1(RANGE="0, 256 + 64, 64"))
    report = run([str(path)], Options(sim=False, cache=False, jobs=1))
    (file_result,) = report.files
    assert sorted((f.rule.id, f.span.line) for f in file_result.findings) == [("PV107", 10), ("PV107", 10)]
    (kernel,) = file_result.kernels
    assert dict(kernel.obligations).get("refuted") == 2


def test_a_unit_batch_result_written_into_a_2d_tensor_drops_its_unit_dimension():
    body = """
    @pl.jit
    def expert(x: pl.Tensor[[16, 64], pl.BF16], w: pl.Tensor[[4, 64, 32], pl.BF16],
               y: pl.Out[pl.Tensor[[16, 128], pl.FP32]]):
        for e in pl.range(4):
            acc = pl.matmul(x, w[e : e + 1, :, :], out_dtype=pl.FP32)
            y = pl.assemble(y, acc, [0, e * {STEP}])
        return y
    """
    assert [v for _, v in verdicts(body.replace("{STEP}", "32"))] == [Verdict.PROVED, Verdict.PROVED]
    assert [v for _, v in verdicts(body.replace("{STEP}", "33"))] == [Verdict.PROVED, Verdict.REFUTED]


def test_lowered_ir_is_checked_as_given():
    body = """
    @pl.program
    class Dumped:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[64, 256], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 65536)
            mem_left_1: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 16384)
            a_mat: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_mat_0, 0, 65536), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 256], [64, 256], target_memory=pl.Mem.Mat)
            for ko in pl.range(0, 256, 64):
                sa: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_left_1, 0, 16384), pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko - 64, [64, 64], target_memory=pl.Mem.Left)
            return out
    """
    assert verdicts(body) == [(8, Verdict.PROVED), (10, Verdict.REFUTED)]
    (found,) = refuted(body)
    assert found.counterexample == {"ko": 0, "columns": "[-64, 0)", "shape": "[64, 256]"}


def test_a_2d_value_assembled_into_a_3d_tensor_covers_its_trailing_dimensions():
    # pypto's tensor.assemble of a lower-rank value: one index of each leading dimension, the value's extents
    # on the trailing ones
    body = """
    @pl.jit
    def scatter(x: pl.Tensor[[4, 16, 64], pl.BF16], out: pl.Out[pl.Tensor[[4, {ROWS}, 64], pl.BF16]]):
        for b in pl.range(4):
            for r0 in pl.range(0, 32, 16):
                row = pl.create_tensor([16, 64], dtype=pl.BF16)
                out = pl.assemble(out, row, [b, r0, 0])
        return out
    """
    assert [v for _, v in verdicts(body.replace("{ROWS}", "32"))] == [Verdict.PROVED]
    (found,) = refuted(body.replace("{ROWS}", "24"))
    assert found.counterexample["dimension 1"] == "[16, 32)"


def test_a_2d_value_assembled_into_a_4d_tensor_takes_one_index_of_each_leading_dimension():
    body = """
    @pl.jit
    def heads(out: pl.Out[pl.Tensor[[2, 4, {ROWS}, 64], pl.BF16]]):
        for h in pl.range(2):
            for q in pl.range(4):
                for r0 in pl.range(0, 16, 8):
                    tile = pl.create_tensor([8, 64], dtype=pl.BF16)
                    out = pl.assemble(out, tile, [h, q, r0, 0])
        return out
    """
    assert [v for _, v in verdicts(body.replace("{ROWS}", "16"))] == [Verdict.PROVED]
    (found,) = refuted(body.replace("{ROWS}", "12"))
    assert found.counterexample["r0"] == 8 and found.counterexample["dimension 2"] == "[8, 16)"


def test_an_all_scalar_full_rank_subscript_is_a_run_time_read_and_its_window_is_conditional():
    # pypto's parser: `order[s]` of a 1-D tensor reads one element (tensor.read), not a [1] slice; the row it
    # yields is a run-time scalar, so the window below holds only for the values `order` holds
    body = """
    @pl.jit
    def gather(order: pl.Tensor[[4], pl.INT32], x: pl.Tensor[[64, 64], pl.BF16],
               y: pl.Out[pl.Tensor[[32, 64], pl.BF16]]):
        for s in pl.range(4):
            base = order[s] * 16
            for r0 in pl.range(0, 16, 8):
                y[s * 8 : s * 8 + 8, :] = x[base + r0 : base + r0 + 8, :]
        return y
    """
    outcomes = prove_bounds(module(body), cache=False)
    assert [(o.span.line - 2, o.verdict) for o in outcomes] == \
        [(6, Verdict.PROVED), (8, Verdict.CONDITIONAL), (8, Verdict.PROVED)]  # `order[s]` itself is inside
    assert "is read from `order` at run time" in outcomes[1].reason


BARE = """
@pl.jit
def scale(x: pl.Tensor, y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    for c in pl.range(0, 64, 32):
        y[:, c : c + 32] = pl.slice(x, [16, 32], [{R0}, c])
    return y
"""


def test_a_window_of_a_bare_tensor_entry_parameter_is_conditional_on_the_extents_passed():
    # pypto specialises a `pl.jit` entry on the tensors each call passes: the window is in bounds exactly
    # when the tensor passed for `x` is 2-D and holds it
    outcomes = [o for o in prove_bounds(module(BARE.format(R0=0)), cache=False) if o.verdict is not Verdict.PROVED]
    assert [(o.span.line - 2, o.verdict) for o in outcomes] == [(5, Verdict.CONDITIONAL)]
    assert "`x.shape[1]` is an extent of the tensor passed for the bare `pl.Tensor` `x` (taken as 2-D), known " \
        "only at run time" in outcomes[0].reason


def test_a_window_of_a_bare_tensor_entry_parameter_before_its_start_is_refuted():
    # whatever the extents of the tensor passed, row -32 is not in it
    (read,) = refuted(BARE.format(R0="c - 32"))
    assert read.span.line - 2 == 5
    assert read.counterexample == {"c": 0, "rows": "[-32, -16)"}
    assert "before its start" in read.message


def test_windows_of_a_bare_tensor_of_different_ranks_are_inconclusive_naming_why():
    body = """
    @pl.jit
    def scale(x: pl.Tensor, y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y[:, 0:32] = pl.slice(x, [16, 32], [0, 0])
        y[:, 32:64] = pl.reshape(pl.slice(x, [1, 16, 32], [0, 0, 32]), [16, 32])
        return y
    """
    outcomes = [o for o in prove_bounds(module(body), cache=False) if o.verdict is Verdict.INCONCLUSIVE]
    assert [o.span.line - 2 for o in outcomes] == [4, 5]
    assert "the parameter `x` is a bare `pl.Tensor` of the `pl.jit` entry `scale`: its shape and dtype are those " \
        "of the tensor passed at run time" in outcomes[0].reason
    assert "its windows disagree on its rank (2, 3)" in outcomes[0].reason


def test_a_bare_tensor_of_an_inline_function_each_call_passes_a_bare_entry_tensor_is_conditional():
    body = """
    @pl.jit.inline
    def half(x: pl.Tensor, y: pl.Tensor[[16, 64], pl.FP32], c: pl.Scalar[pl.INDEX]):
        y[:, c : c + 32] = pl.slice(x, [16, 32], [0, c])
        return y

    @pl.jit
    def scale(x: pl.Tensor, y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = half(x, y, 0)
        y = half(x, y, 32)
        return y
    """
    (read,) = [o for o in prove_bounds(module(body), cache=False) if o.function == "half" and o.name == "x"]
    assert read.verdict is Verdict.CONDITIONAL
    assert "`x.shape[0]` is an extent of the tensor passed for the bare `pl.Tensor` `x`" in read.reason


def test_a_matmul_result_carries_its_lhs_valid_rows_into_the_write():
    # pypto's tile.matmul: the product's valid region is the lhs's valid M by the rhs's valid N, so the
    # ragged last row block writes only its valid rows
    body = """
    @pl.jit
    def proj(x: pl.Tensor[[40, 64], pl.BF16], w: pl.Tensor[[64, 32], pl.BF16],
             y: pl.Out[pl.Tensor[[40, 32], pl.FP32]]):
        for r0 in pl.range(0, 48, 16):
            rows = pl.min(16, {ROWS})
            xa = pl.slice(x, [16, 64], [r0, 0], valid_shape=[rows, 64])
            acc = pl.matmul(xa, w, out_dtype=pl.FP32)
            y = pl.assemble(y, acc, [r0, 0])
        return y
    """
    assert [v for _, v in verdicts(body.replace("{ROWS}", "40 - r0"))] == [Verdict.PROVED, Verdict.PROVED]
    found = refuted(body.replace("{ROWS}", "48 - r0"))
    assert [(o.span.line - 2, o.counterexample["r0"]) for o in found] == [(7, 32), (9, 32)]


def test_a_carry_updated_from_run_time_reads_is_a_condition_not_an_approximation():
    # `base` adds up the counts read from `counts`: a value known only at run time, like the counts themselves
    body = """
    @pl.jit
    def pack(counts: pl.Tensor[[4], pl.INT32], x: pl.Tensor[[64, 32], pl.BF16],
             y: pl.Out[pl.Tensor[[64, 32], pl.BF16]]):
        base = pl.cast(0, pl.INDEX)
        for src in pl.range(4):
            n = pl.cast(pl.read(counts, [src]), pl.INDEX)
            for slot in pl.range(n):
                y[base + slot : base + slot + 1, :] = x[src * 16 + slot : src * 16 + slot + 1, :]
            base = {UPDATE}
        return y
    """
    (count, read, write) = prove_bounds(module(body.replace("{UPDATE}", "base + n")), cache=False)
    assert count.verdict is Verdict.PROVED  # `counts[src]` for src in [0, 4)
    assert write.verdict is Verdict.CONDITIONAL
    assert "`base` (line 8) is updated from values read at run time" in write.reason
    assert read.verdict is Verdict.CONDITIONAL
    # a carry that is not affine and reads nothing stays a gap of the encoding
    (_, _, write) = prove_bounds(module(body.replace("{UPDATE}", "base * 2 + 1")), cache=False)
    assert write.verdict is Verdict.INCONCLUSIVE and "is not affine in the iteration" in write.reason


def test_a_loop_over_the_world_size_is_conditional_on_it():
    body = """
    @pl.jit
    def fan_out(parts: pl.Tensor[[4, 16, 64], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
        for rank in pl.range(pl.distributed.world_size()):
            y[:, :] = parts[rank, :, :]
        return y
    """
    outcomes = prove_bounds(module(body), cache=False)
    assert [(o.span.line - 2, o.verdict) for o in outcomes] == [(5, Verdict.CONDITIONAL), (5, Verdict.PROVED)]
    assert "the world size `pld.world_size()` is known only at run time" in outcomes[0].reason


def test_a_bare_tensor_read_within_its_run_time_extents_is_conditional_only_on_its_rank():
    # `pl.tensor.dim(x, d)` is the extent its windows are checked against: in bounds for every extent passed,
    # so only the rank the windows take it to have remains (a lower-rank `pl.slice` is a reinterpreting view)
    body = """
    @pl.jit
    def tiles(x: pl.Tensor, y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        rows = pl.tensor.dim(x, 0)
        cols = pl.tensor.dim(x, 1)
        for r in pl.range(rows // 16):
            for q in pl.range(cols // 64):
                y[:, :] = x[r * 16 : r * 16 + 16, q * 64 : q * 64 + 64]
        return y
    """
    (read,) = [o for o in prove_bounds(module(body), cache=False) if o.name == "x"]
    assert read.verdict is Verdict.CONDITIONAL
    assert read.reason == ("depends on run-time values: the tensor passed for the bare `pl.Tensor` `x` is 2-D (the "
                           "rank of its windows)")


WRITTEN = """
@pl.jit
def fill(x: pl.Tensor, y: pl.Tensor[[16, 64], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="fill"):
        x = pl.assemble(x, pl.exp(y[:, :]), [0, 0])
        x = pl.assemble(x, pl.exp(y[:, :]), [{ROW}, 0])
    return x
"""


def test_writes_into_a_bare_tensor_entry_parameter_are_conditional_on_its_extents():
    outcomes = [o for o in prove_bounds(module(WRITTEN.format(ROW=16)), cache=False) if o.name == "x"]
    assert [(o.span.line - 2, o.verdict) for o in outcomes] == [(5, Verdict.CONDITIONAL), (6, Verdict.CONDITIONAL)]


def test_a_write_into_a_bare_tensor_entry_parameter_before_its_start_is_refuted():
    (write,) = refuted(WRITTEN.format(ROW=-16))
    assert write.span.line - 2 == 6
    assert write.counterexample == {"rows": "[-16, 0)"}


ELEMENTS = """
@pl.jit
def routed_rows(
    row_ids: pl.Tensor[[8, 4], pl.INT32],
    x: pl.Tensor[[64, 128], pl.BF16],
    w: pl.Tensor[[128, 128], pl.BF16],
    y: pl.Out[pl.Tensor[[8, 128], pl.FP32]],
    picked: pl.Out[pl.Tensor[[8, 4], pl.INT32]],
    num_tokens: pl.Scalar[pl.INT32],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="routed_rows"):
        for t in pl.range({TOKENS}):
            for j in pl.range(4):
                rid = pl.read(row_ids, [t, {COL}])
                pl.write(picked, [t, j], rid)
        last = pl.read(row_ids, [num_tokens - 1, 0])
        acc = pl.matmul(x[0:8, :], w, out_dtype=pl.FP32)
        y[:, :] = acc
    return y, picked
"""


def elements(TOKENS: str = "8", COL: str = "j") -> str:
    return ELEMENTS.format(TOKENS=TOKENS, COL=COL)


def test_element_reads_and_writes_in_bounds_are_proved_and_a_runtime_index_is_a_condition():
    got = verdicts(elements())
    assert got[:2] == [(14, Verdict.PROVED), (15, Verdict.PROVED)]  # pl.read and pl.write inside the loops
    assert (16, Verdict.CONDITIONAL) in got  # `num_tokens - 1` is known only at run time
    assert all(v is Verdict.PROVED for line, v in got if line not in (16,))


def test_an_element_read_past_its_tensor_is_refuted_with_its_index():
    found = refuted(elements(COL="j + 1"))
    assert len(found) == 1 and found[0].span.line - 2 == 14
    assert found[0].counterexample["element"] == "[0, 4]" and found[0].counterexample["shape"] == "[8, 4]"
    assert "`row_ids[t, j + 1]` reads element [0, 4] of `row_ids` (shape [8, 4])" in found[0].message


def test_an_element_write_past_its_tensor_is_refuted():
    found = refuted(elements(TOKENS="9"))
    assert sorted(o.span.line - 2 for o in found) == [14, 15]  # the read and the write at t = 8
    assert all(o.counterexample["t"] == 8 for o in found)
    assert any("writes element [8, " in o.message for o in found)


def test_an_element_read_at_a_bare_index_is_one_axis():
    body = """
    @pl.jit
    def scale_rows(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_rows"):
            scales = pl.create_tensor([16], dtype=pl.FP32)
            for ti in pl.range({ROWS}):
                s = pl.read(scales, ti)
        return y
    """
    assert verdicts(body.replace("{ROWS}", "16")) == [(7, Verdict.PROVED)]
    (found,) = refuted(body.replace("{ROWS}", "17"))
    assert found.counterexample["element"] == "[16]" and found.counterexample["ti"] == 16
