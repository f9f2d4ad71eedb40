"""PV105 / PV106 never prove anything that rests on an untraced MAD operand (`kernels/untraced_operands.py`,
`inconclusive/untraced_packed.py`,
`runtime_shaped/bare_weight_repeats.py`): a cast of a traced block and a window of a bare `pl.Tensor` are
traced (proved, and their twins that repeat a K block refuted); an operand that is not traced (a value a
loop yields) leaves PV105 inconclusive, naming the MAD, the operand, the values it is computed from and what
is not modelled; an operand computed per K block leaves PV106 inconclusive, its twin that repeats a K block
too, where it used to be verified."""

from __future__ import annotations

from pathlib import Path

from pypto_verify.run import Options, run
from pypto_verify.smt import Verdict, prove_module

from .harness import KERNELS, lower_fixed, only, read

PATH = KERNELS / "untraced_operands.py"
PACKED = KERNELS.parent / "inconclusive" / "untraced_packed.py"
CHAIN_RULES = ("PV101", "PV102", "PV103", "PV105", "PV106")


def _outcomes(function: str, path: Path = PATH):
    source = only(read(path), function)
    return {o.rule: o for o in prove_module(source, lower_fixed(source), cache=False) if o.rule in CHAIN_RULES}


def test_a_cast_of_each_k_block_proves_its_coverage():
    outcomes = _outcomes("cast_rows")
    assert set(outcomes) == set(CHAIN_RULES)
    assert all(o.verdict is Verdict.PROVED for o in outcomes.values()), [(o.rule, o.message) for o in outcomes.values()]


def test_a_cast_of_a_repeated_k_block_is_refuted_on_the_cast_operand():
    coverage = _outcomes("cast_rows_repeats")["PV106"]
    assert coverage.verdict is Verdict.REFUTED
    assert "K [0, 128) of `x` is accumulated twice" in coverage.message


def test_a_reshape_of_a_block_computed_per_k_block_is_compared_but_its_coverage_is_inconclusive():
    # `pl.reshape(pl.exp(xp[kb : kb + 1, :]), [M, TK])`: a term of the window it reads, the same on both sides
    # (PV105 compares the blocks), but which K blocks of `xp` each result covers is not modelled (PV106)
    outcomes = _outcomes("packed_rows", PACKED)
    assert outcomes["PV106"].verdict is Verdict.INCONCLUSIVE
    assert "computed in the kernel inside the K loop (`reshape@16:25`, `reshape@19:18`)" in outcomes["PV106"].message
    assert all(outcomes[r].verdict is Verdict.PROVED for r in ("PV101", "PV102", "PV103", "PV105"))


def test_a_repeated_k_block_of_a_per_block_operand_is_never_proved():
    outcomes = _outcomes("packed_rows_repeats", PACKED)
    assert outcomes["PV106"].verdict is Verdict.INCONCLUSIVE


def test_an_operand_a_loop_yields_is_inconclusive_and_names_what_is_not_modelled():
    outcomes = _outcomes("scores_pv", KERNELS.parent / "inconclusive" / "untraced_operand.py")
    assert outcomes["PV105"].verdict is Verdict.INCONCLUSIVE
    assert ("the left operand of the MAD at line 27 (`oi`) is not traced to a GM tensor or buffer: `probs`, computed "
            "by `tensor.cast` at line 26 from a `tensor.exp` computed inline from a `tensor.mul` computed inline from "
            "`raw`, a value the loop at line 23 yields, whose body yields `raw`, the result of the matmul at line 24 "
            "read inside another chain; not modelled: the sum of a chain of several MADs read as an operand") \
        in outcomes["PV105"].message


def test_a_chain_whose_every_mad_initialises_needs_no_operand():
    # one MAD per output tile: no sequence of K blocks to skip or repeat, whatever the operand holds
    source = PACKED.read_text().replace("for kb in pl.range(1, KB):", "for kb in pl.range(1, 1):")
    outcomes = {}
    for o in prove_module(only(_read_text(source), "packed_rows"),
                          lower_fixed(only(_read_text(source), "packed_rows")), cache=False):
        outcomes[o.rule] = o
    assert outcomes["PV106"].verdict is Verdict.PROVED, outcomes["PV106"].message


def _read_text(text: str):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "untraced_operands.py"
        path.write_text(text)
        return read(path)


def test_a_bare_weight_window_one_k_block_behind_is_refuted():
    result = run([str(KERNELS.parent / "runtime_shaped" / "bare_weight_repeats.py")],
                 Options(cache=False, jobs=1, sim=False))
    assert [(f.rule.id, f.span.line) for f in result.findings] == [("PV106", 19)]
    assert "K [0, 64) of `w` is accumulated twice" in result.findings[0].message
