"""PV107 in-bounds on values whose extents `frontend/shapes.py` models from pypto's type deduction: the
valid region a store writes (kept by reductions and element-wise ops, made whole by `fillpad`), and the
shapes of `transpose` and `concat`."""

from __future__ import annotations

import textwrap

from pypto_verify.frontend import read_source
from pypto_verify.smt import Verdict, prove_bounds

HEADER = "import pypto.language as pl\n\n"


def outcomes(body: str):
    parsed = read_source(HEADER + textwrap.dedent(body), "kernel.py")
    assert not parsed.errors, [str(e) for e in parsed.errors]
    return prove_bounds(parsed.module, cache=False)


def verdicts(body: str) -> list[tuple[int, Verdict]]:
    """(line, verdict) of every PV107 outcome (lines of *body* counted from 1)."""
    shift = HEADER.count("\n")
    return [(o.span.line - shift, o.verdict) for o in outcomes(body)]


TAIL = """
@pl.jit
def tail(x: pl.Tensor[[40, 64], pl.FP32], x2: pl.Tensor[[40, 64], pl.FP32],
         y: pl.Out[pl.Tensor[[40, {COLS}], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail"):
        for r in pl.range(0, 40, 16):
            rows = pl.min(16, 40 - r)
            t = pl.slice(x, [16, 64], [r, 0], valid_shape=[rows, 64])
            y[r : r + 16, {WHERE}] = {VALUE}
    return y
"""


def tail(value: str, cols: int = 64, where: str = ":") -> str:
    return TAIL.format(VALUE=value, COLS=cols, WHERE=where)


def test_a_store_of_a_valid_region_writes_only_that_region():
    assert verdicts(tail("pl.exp(t)")) == [(8, Verdict.PROVED), (9, Verdict.PROVED)]


def test_fillpad_makes_the_whole_tile_valid_so_its_store_leaves_the_tensor():
    # pypto's fillpad types its result fully valid: all 16 rows are written, past row 40 at r = 32
    (read, write) = outcomes(tail("pl.fillpad(t, pad_value=pl.PadValue.min)"))
    assert read.verdict is Verdict.PROVED
    assert write.verdict is Verdict.REFUTED
    assert write.counterexample["r"] == 32
    assert write.counterexample["rows"] == "[32, 48)"


def test_a_row_reduction_keeps_the_valid_rows():
    assert verdicts(tail("pl.row_max(t)", cols=1, where="0:1")) == [(8, Verdict.PROVED), (9, Verdict.PROVED)]


def test_a_row_reduction_of_a_filled_tile_writes_every_row():
    body = tail("pl.row_sum(pl.fillpad(t))", cols=1, where="0:1")
    assert verdicts(body) == [(8, Verdict.PROVED), (9, Verdict.REFUTED)]


def test_a_tensor_op_on_operands_with_one_valid_region_keeps_it():
    assert verdicts(tail("pl.add(t, pl.mul(t, 2.0))")) == [(8, Verdict.PROVED), (9, Verdict.PROVED)]


def test_a_tensor_op_on_operands_with_different_valid_regions_is_not_refuted():
    # pypto types the result fully valid, its tile lowering takes the first operand's region: not settled
    store = outcomes(tail("pl.add(t, x2[r : r + 16, :])"))[-1]
    assert store.verdict is Verdict.INCONCLUSIVE
    assert "the valid region of" in store.reason


PADDED = """
@pl.jit
def rotate(x: pl.Tensor[[40, 64], pl.FP32], cos: pl.Tensor[[40, 64], pl.FP32],
           y: pl.Out[pl.Tensor[[{ROWS}, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rotate"):
        for r in pl.range(0, 40, 16):
            rows = pl.min(16, 40 - r)
            c = pl.slice(cos, [16, 64], [r, 0], valid_shape=[rows, 64])
            y[r : r + 16, :] = pl.cast(pl.mul(x[r : r + 16, :], c), target_type=pl.FP32)
    return y
"""


def test_a_tensor_op_whose_first_operand_is_whole_writes_the_whole_tile():
    # pypto types the product fully valid (the regions differ: no intersection) and its tile lowering takes
    # the wholly valid first operand's region: both say all 16 rows, which the 48-row padding holds
    assert verdicts(PADDED.format(ROWS=48))[-1] == (9, Verdict.PROVED)


def test_a_tensor_op_whose_first_operand_is_whole_is_refuted_past_the_padding():
    write = outcomes(PADDED.format(ROWS=40))[-1]
    assert write.verdict is Verdict.REFUTED
    assert write.counterexample["r"] == 32
    assert write.counterexample["rows"] == "[32, 48)"


def test_a_tensor_op_whose_first_operand_is_whole_is_conditional_on_a_dynamic_row_count():
    body = """
    N = pl.dynamic("N")

    @pl.jit
    def rotate(x: pl.Tensor[[48, 64], pl.FP32], cos: pl.Tensor[[N, 64], pl.FP32],
               y: pl.Out[pl.Tensor[[48, 64], pl.FP32]]):
        n = pl.tensor.dim(cos, 0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rotate"):
            for blk in pl.range((n + 15) // 16):
                r = blk * 16
                c = pl.slice(cos, [16, 64], [r, 0], valid_shape=[pl.min(16, n - r), 64])
                y[r : r + 16, :] = pl.mul(x[r : r + 16, :], c)
        return y
    """
    write = outcomes(body)[-1]
    assert write.verdict is Verdict.CONDITIONAL  # all 16 rows written: in bounds exactly when N <= 48
    assert "`N` is a dynamic dimension" in write.reason
    assert "valid region" not in write.reason


def test_a_tile_op_keeps_its_first_operands_valid_region():
    body = """
    @pl.program
    class Tail:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[40, 64], pl.FP32], out: pl.Out[pl.Tensor[[40, 64], pl.FP32]]):
            for r in pl.range(0, 40, 16):
                t = pl.tile.load(a, [r, 0], [16, 64], [pl.min(16, 40 - r), 64], target_memory=pl.Mem.Vec)
                u = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
                s = pl.tile.add(t, u)
                out = pl.tile.store(s, [r, 0], out)
            return out
    """
    assert verdicts(body) == [(7, Verdict.PROVED), (8, Verdict.PROVED), (10, Verdict.PROVED)]


TRANSPOSE = """
@pl.jit
def flip(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="flip"):
        y[:, {WHERE}] = pl.transpose(x[:, :], axis1=0, axis2=1)
    return y
"""


def test_a_transpose_swaps_the_extents():
    assert [v for _, v in verdicts(TRANSPOSE.format(WHERE="16:32"))] == [Verdict.PROVED, Verdict.PROVED]


def test_a_transpose_written_past_the_columns_is_refuted():
    found = [o for o in outcomes(TRANSPOSE.format(WHERE="24:40")) if o.verdict is Verdict.REFUTED]
    assert len(found) == 1
    assert found[0].counterexample["columns"] == "[24, 40)"


CONCAT = """
@pl.jit
def join(a: pl.Tensor[[16, 48], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
         y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="join"):
        y[{ROWS}, {COLS}] = pl.concat(a[:, :], b[:, :])
    return y
"""


def test_a_concat_is_as_wide_as_both_operands():
    assert [v for _, v in verdicts(CONCAT.format(ROWS="16:32", COLS=":"))] == [Verdict.PROVED] * 3


def test_a_concat_written_past_the_columns_is_refuted():
    found = [o for o in outcomes(CONCAT.format(ROWS="0:16", COLS="16 : 16 + 64")) if o.verdict is Verdict.REFUTED]
    assert len(found) == 1
    assert found[0].counterexample["columns"] == "[16, 80)"


SORT = """
@pl.jit
def top(x: pl.Tensor[[1, 256], pl.FP32], idx: pl.Tensor[[1, 256], pl.INT32],
        y: pl.Out[pl.Tensor[[1, 512], pl.FP32]], k: pl.Out[pl.Tensor[[1, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="top"):
        pairs = pl.sort32(x[:, :], idx[:, :])
        pairs = pl.mrgsort(pairs, block_len=64)
        merged = pl.mrgsort(pairs[:, 0:128], pairs[:, 128:256], pairs[:, {RUN3}], pairs[:, 384:512])
        y[:, {Y}] = merged
        k[:, {K}] = pl.gather(merged[:, 0:128], mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
    return y, k
"""


def sort_kernel(RUN3: str = "256:384", Y: str = ":", K: str = ":") -> str:
    return SORT.format(RUN3=RUN3, Y=Y, K=K)


def test_sorted_pairs_and_their_gathered_indices_are_in_bounds():
    assert {v for _, v in verdicts(sort_kernel())} == {Verdict.PROVED}


def test_a_run_sliced_past_the_sorted_pairs_is_refuted():
    # sort32 doubles the last dimension: 256 scores give 512 interleaved (score, index) lanes
    found = [o for o in outcomes(sort_kernel(RUN3="448:576")) if o.verdict is Verdict.REFUTED]
    assert [o.counterexample["columns"] for o in found] == ["[448, 576)"]


def test_a_merge_of_four_runs_is_as_wide_as_the_four():
    found = [o for o in outcomes(sort_kernel(Y="64 : 64 + 512")) if o.verdict is Verdict.REFUTED]
    assert [o.counterexample["columns"] for o in found] == ["[64, 576)"]


def test_a_gather_by_mask_halves_the_columns():
    found = [o for o in outcomes(sort_kernel(K="32 : 32 + 64")) if o.verdict is Verdict.REFUTED]
    assert [o.counterexample["columns"] for o in found] == ["[32, 96)"]


ARANGE = """
@pl.jit
def shift(off: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[1, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shift"):
        o = pl.cast(off, target_type=pl.INT32)
        y[:, {W}] = pl.add(pl.arange(0, [1, 64], dtype=pl.INT32), o)
    return y
"""


def test_an_arange_plus_a_cast_scalar_has_the_aranges_shape():
    assert [v for _, v in verdicts(ARANGE.format(W=":"))] == [Verdict.PROVED]


def test_an_arange_written_past_the_columns_is_refuted():
    (outcome,) = outcomes(ARANGE.format(W="8 : 8 + 64"))
    assert outcome.verdict is Verdict.REFUTED
    assert outcome.counterexample["columns"] == "[8, 72)"


def test_a_reshaped_column_keeps_its_valid_prefix():
    body = """
    @pl.jit
    def col(x: pl.Tensor[[40, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 40], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="col"):
            for r in pl.range(0, 40, 16):
                t = pl.slice(x, [16, 64], [r, 0], valid_shape=[pl.min(16, 40 - r), 64])
                y[0:1, r : r + 16] = pl.reshape(pl.row_max(t), [1, 16])
        return y
    """
    assert [v for _, v in verdicts(body)] == [Verdict.PROVED, Verdict.PROVED]


def test_a_reshaped_filled_column_is_whole():
    body = """
    @pl.jit
    def col(x: pl.Tensor[[40, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 40], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="col"):
            for r in pl.range(0, 40, 16):
                t = pl.slice(x, [16, 64], [r, 0], valid_shape=[pl.min(16, 40 - r), 64])
                y[0:1, r : r + 16] = pl.reshape(pl.row_max(pl.fillpad(t)), [1, 16])
        return y
    """
    assert [v for _, v in verdicts(body)] == [Verdict.PROVED, Verdict.REFUTED]


def test_a_row_reduction_of_a_4d_value_folds_its_last_axis():
    body = """
    @pl.jit
    def heads(x: pl.Tensor[[2, 1, 40, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, {N}], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="heads"):
            for r in pl.range(0, 40, 16):
                t = pl.slice(x, [1, 1, 16, 64], [1, 0, r, 0], valid_shape=[1, 1, pl.min(16, 40 - r), 64])
                y[0:1, r : r + 16] = pl.reshape(pl.row_max({T}), [1, 16])
        return y
    """
    assert [v for _, v in verdicts(body.format(N=40, T="t"))] == [Verdict.PROVED, Verdict.PROVED]
    assert [v for _, v in verdicts(body.format(N=40, T="pl.fillpad(t)"))] == [Verdict.PROVED, Verdict.REFUTED]


SCATTER = """
@pl.jit
def interleave(a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],
               y: pl.Out[pl.Tensor[[16, {COLS}], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="interleave"):
        both = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        both = pl.tensor.scatter(a[:, :], mask_pattern=pl.tile.MaskPattern.P0101, dst=both)
        both = pl.tensor.scatter(b[:, :], mask_pattern=pl.tile.MaskPattern.P1010, dst=both)
        y[:, {WHERE}] = pl.cast(both, target_type=pl.FP32)
    return y
"""


def test_a_scatter_by_mask_has_its_destinations_shape():
    assert [v for _, v in verdicts(SCATTER.format(COLS=64, WHERE=":"))] == [Verdict.PROVED] * 3


def test_a_scatter_by_mask_written_past_the_columns_is_refuted():
    write = outcomes(SCATTER.format(COLS=96, WHERE="48 : 48 + 64"))[-1]
    assert write.verdict is Verdict.REFUTED
    assert write.counterexample["columns"] == "[48, 112)"


SHARD = """
@pl.jit
def shard_store(x: pl.Tensor[[{M}, 128], pl.BF16], w: pl.Tensor[[64, 128], pl.BF16],
                y: pl.Out[pl.Tensor[[{ROWS}, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shard_store"):
        acc = pl.matmul(x[:, :], w[:, :], b_trans=True, out_dtype=pl.FP32)
        for lane in pl.split_aiv(2, mode=pl.SplitMode.{MODE}):
            part = pl.aiv_shard(acc)
            y[lane * {BAND} : lane * {BAND} + {BAND}, :] = part
    return y
"""


def shard(mode: str, m: int = 32, rows: int = 32, band: int = 16) -> str:
    return SHARD.format(MODE=mode, M=m, ROWS=rows, BAND=band)


def test_an_up_down_shard_holds_half_the_rows():
    # pypto's aiv_shard in an UP_DOWN region: [32, 64] -> [16, 64] per lane, each lane its own band
    assert verdicts(shard("UP_DOWN"))[-1] == (9, Verdict.PROVED)


def test_a_left_right_shard_keeps_every_row_and_is_refuted_past_them():
    # LEFT_RIGHT halves the columns: each lane holds all 32 rows, so lane 1's band [16, 48) leaves `y`
    write = outcomes(shard("LEFT_RIGHT"))[-1]
    assert write.verdict is Verdict.REFUTED
    assert write.counterexample["lane"] == 1
    assert write.counterexample["rows"] == "[16, 48)"


def test_a_shard_with_no_split_axis_keeps_the_shape():
    assert verdicts(shard("NONE", band=0))[-1] == (9, Verdict.PROVED)
    write = outcomes(shard("NONE", rows=40))[-1]  # all 32 rows per lane: lane 1's [16, 48) leaves `y`
    assert write.verdict is Verdict.REFUTED
    assert write.counterexample["rows"] == "[16, 48)"


def test_an_odd_shard_is_not_refuted_on_the_typed_half():
    # 31 rows: both lanes get a 16-row box, but lane 1 holds 15 valid rows (pypto localises them later), so
    # lane 1's typed band [16, 32) past the 31 rows of `y` is not a refutation
    write = outcomes(shard("UP_DOWN", m=31, rows=31))[-1]
    assert write.verdict is Verdict.INCONCLUSIVE
    assert "valid region" in write.reason
