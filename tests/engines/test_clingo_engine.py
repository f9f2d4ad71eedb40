"""The clingo translation: results on the fixture programs, stratification and safety checks, facts input.

Expected outputs under programs/*/expected/ were worked out by hand from each program's facts.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from engine_cases import CASES, facts_dir, write, write_facts
from pypto_verify.engines.api import EngineError, run_program
from pypto_verify.engines.clingo_engine import asp_string, mangle, translate
from pypto_verify.engines.souffle_lang import load_program


def run_clingo(tmp_path: Path, text: str, facts: dict | None = None, **options) -> dict:
    program = write(tmp_path, text)
    return run_program(program, write_facts(tmp_path, facts or {}), engine="clingo", **options)


# ----------------------------------------------------------------------------- fixture programs


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_fixture_program_gives_the_expected_relations(case: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_program(case / "program.dl", facts_dir(case, tmp_path), engine="clingo", out_dir=out)
    expected = {path.name: path.read_text(encoding="utf-8") for path in (case / "expected").iterdir()}
    actual = {path.name: path.read_text(encoding="utf-8") for path in out.iterdir()}
    assert actual == expected


# ------------------------------------------------------------------------------- stratification

UNSTRATIFIED = """
.decl q(x: number)
.decl p(x: number)
.decl r(x: number)
p(x) :- q(x), !r(x).
r(x) :- p(x).
"""


def test_negation_inside_a_cycle_is_rejected_naming_the_cycle(tmp_path: Path) -> None:
    with pytest.raises(EngineError) as error:
        run_clingo(tmp_path, UNSTRATIFIED)
    assert "`p` depends on `r` through negation inside the recursive cycle p -> r -> p" in str(error.value)
    assert "not stratified" in str(error.value)
    assert error.value.loc is not None and error.value.loc.line == 5


def test_negation_of_itself_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match=r"cycle p -> p; the program is not stratified"):
        run_clingo(tmp_path, ".decl q(x: number)\n.decl p(x: number)\np(x) :- q(x), !p(x).\n")


def test_aggregate_inside_a_cycle_is_rejected(tmp_path: Path) -> None:
    text = """
    .decl e(x: number)
    .decl c(n: number)
    .decl d(n: number)
    c(n) :- e(n).
    c(n) :- d(n).
    d(n) :- n = count : { c(_) }.
    """
    with pytest.raises(EngineError, match=r"`d` depends on `c` through an aggregate .* d -> c -> d"):
        run_clingo(tmp_path, text)


def test_negation_of_a_lower_stratum_inside_recursion_is_accepted(tmp_path: Path) -> None:
    text = """
    .decl edge(a: number, b: number)
    .decl blocked(n: number)
    .decl reach(n: number)
    .output reach
    .input edge, blocked
    reach(1).
    reach(b) :- reach(a), edge(a, b), !blocked(b).
    """
    facts = {"edge": [(1, 2), (2, 3), (3, 4), (1, 5)], "blocked": [(3,)]}
    assert run_clingo(tmp_path, text, facts) == {"reach": [(1,), (2,), (5,)]}


# ---------------------------------------------------------------------------------------- safety

PRELUDE = ".decl q(x: number)\n.decl p(x: number)\n.decl p2(x: number, y: number)\n"

UNSAFE = [
    ("head_only", "p2(x, y) :- q(x).", "ungrounded variable `y` in the head"),
    ("negation_only", "p(x) :- q(x), !p2(x, y).", "ungrounded variable `y` in a negated atom"),
    ("comparison_only", "p(x) :- q(x), y > 1.", "ungrounded variable `y` in a comparison"),
    ("arithmetic_argument", "p(x) :- q(x + 1).", "ungrounded variable `x` in an atom argument"),
    ("equality_through_arithmetic", "p(x) :- q(y), x + 1 = y.", "ungrounded variable `x` in a comparison"),
    ("fact_with_variable", "p(x).", "ungrounded variable `x` in the head"),
    ("aggregate_witness", "p2(x, n) :- n = count : { q(x) }.", "aggregate witnesses are outside the supported"),
    ("aggregate_local_unbound", "p(n) :- n = count : { !q(x) }.", "ungrounded variable `x` in a negated atom"),
    ("aggregate_target_unbound", "p(n) :- n = sum y : { q(x) }.", "ungrounded variable `y` in the `sum` target"),
]


@pytest.mark.parametrize(("text", "fragment"), [case[1:] for case in UNSAFE], ids=[case[0] for case in UNSAFE])
def test_unsafe_rule_is_rejected_naming_the_variable_and_rule_line(tmp_path: Path, text: str, fragment: str) -> None:
    with pytest.raises(EngineError) as error:
        run_clingo(tmp_path, PRELUDE + text + "\n")
    assert fragment in str(error.value)
    assert "(rule at line 4)" in str(error.value)
    assert error.value.loc is not None and error.value.loc.line == 4


def test_aggregate_local_variables_are_scoped_like_souffle(tmp_path: Path) -> None:
    # Soufflé renames an aggregate's local variables that share a name with outer ones
    # (UniqueAggregationVariables); a target variable is always local, even when grounded outside.
    text = PRELUDE + """
    .input q, p
    .decl result(tag: symbol, a: number, b: number)
    .output result
    result("max of itself", m, 0) :- m = max m : q(m).
    result("count named like its result", n, 0) :- n = count : { q(n) }.
    result("two aggregates share a local", lo, hi) :- lo = min z : q(z), hi = max z : q(z).
    result("target shadows an outer variable", x, s) :- p(x), s = sum x : { q(x) }.
    result("injected", x, s) :- p(x), s = sum y : { q(y), y > x }.
    """
    facts = {"q": [(1,), (2,), (5,)], "p": [(2,)]}
    assert run_clingo(tmp_path, text, facts)["result"] == sorted([
        ("max of itself", 5, 0), ("count named like its result", 3, 0), ("two aggregates share a local", 1, 5),
        ("target shadows an outer variable", 2, 8), ("injected", 2, 5)])


def test_equalities_ground_variables_in_a_chain(tmp_path: Path) -> None:
    text = PRELUDE + ".input q\n.output p\np(z) :- q(x), z = y * 2, y = x + 1.\n"
    assert run_clingo(tmp_path, text, {"q": [(1,), (5,)]}) == {"p": [(4,), (12,)]}


# -------------------------------------------------------------------------------- arithmetic


def test_negative_division_and_modulo_follow_c(tmp_path: Path) -> None:
    text = """
    .decl pair(a: number, b: number)
    .input pair
    .decl result(a: number, b: number, q: number, r: number)
    .output result
    result(a, b, a / b, a % b) :- pair(a, b), b != 0.
    """
    facts = {"pair": [(-9, 4), (9, -4), (-9, -4), (9, 4), (-1, 3), (3, 5)]}
    assert run_clingo(tmp_path, text, facts)["result"] == [
        (-9, -4, 2, -1), (-9, 4, -2, -1), (-1, 3, 0, -1), (3, 5, 0, 3), (9, -4, -2, 1), (9, 4, 2, 1)]


def test_numbers_beyond_32_bits_are_rejected(tmp_path: Path) -> None:
    text = ".decl n(x: number)\n.input n\n.output n\n"
    with pytest.raises(EngineError, match="does not fit clingo's 32-bit integers"):
        run_clingo(tmp_path, text, {"n": [(3000000000,)]})
    with pytest.raises(EngineError, match="does not fit clingo's 32-bit integers"):
        run_clingo(tmp_path, ".decl n(x: number)\nn(2147483648).\n")


# ---------------------------------------------------------------------------------- facts input

SYMBOLS = ".decl w(s: symbol, n: number)\n.input w\n.output w\n"


def test_symbols_with_quotes_spaces_and_unicode_round_trip(tmp_path: Path) -> None:
    rows = [('say "hi"', 1), ("two  spaces", 2), ("ünï ✓", 3), ("a,b(c)", 4), ("", 5)]
    assert run_clingo(tmp_path, SYMBOLS, {"w": rows}) == {"w": sorted(rows)}


def test_facts_with_extra_columns_and_crlf_are_read_like_souffle(tmp_path: Path) -> None:
    program = write(tmp_path, SYMBOLS)
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "w.facts").write_text("a\t1\textra\r\nb\t2\n", encoding="utf-8")
    assert run_program(program, tmp_path / "facts", engine="clingo") == {"w": [("a", 1), ("b", 2)]}


@pytest.mark.parametrize(("content", "fragment"), [
    ("a\n", "w.facts:1: expected 2 tab-separated values, found 1"),
    ("a\tone\n", "w.facts:1: column 2 is not a number: `one`"),
    ("a\t1\nb\t2 \n", "w.facts:2: column 2 is not a number"),
], ids=["too_few_columns", "not_a_number", "trailing_blank"])
def test_malformed_facts_are_rejected_with_file_and_line(tmp_path: Path, content: str, fragment: str) -> None:
    program = write(tmp_path, SYMBOLS)
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "w.facts").write_text(content, encoding="utf-8")
    with pytest.raises(EngineError, match=fragment):
        run_program(program, tmp_path / "facts", engine="clingo")


def test_missing_facts_file_is_an_empty_relation_with_a_warning(tmp_path: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="pypto_verify.engines"):
        assert run_clingo(tmp_path, SYMBOLS) == {"w": []}
    assert "w.facts is missing; input relation `w` is empty" in caplog.text


def test_input_relation_can_also_have_rules_and_program_facts(tmp_path: Path) -> None:
    text = SYMBOLS + 'w("from program", 0).\nw(s, n + 10) :- w(s, n), n < 5.\n'
    assert run_clingo(tmp_path, text, {"w": [("x", 7), ("y", 1)]}) == {
        "w": [("from program", 0), ("from program", 10), ("x", 7), ("y", 1), ("y", 11)]}


# ------------------------------------------------------------------------------- translation


def test_mangling_keeps_distinct_names_distinct() -> None:
    names = ["a_b", "a__b", "aQb", "a?b", "a_Qb", "A", "a"]
    assert len({mangle(name) for name in names}) == len(names)


def test_asp_string_escapes_only_what_clingo_knows() -> None:
    assert asp_string('a"b\\c\nd\te') == '"a\\"b\\\\c\\nd\te"'


def test_translation_shows_only_the_output_relations(tmp_path: Path) -> None:
    program = load_program(write(tmp_path, ".decl a(x: number)\n.decl b(x: number)\n.output b\nb(1).\na(2).\n"))
    translation = translate(program)
    assert translation.asp.count("#show") == 1 and "#show r_b/1." in translation.asp


def test_a_runaway_grounding_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    text = ".decl n(x: number)\n.output n\nn(0).\nn(x + 1) :- n(x).\n"
    with pytest.raises(EngineError, match="clingo did not finish within 1 s"):
        run_clingo(tmp_path, text, timeout=1.0)


def test_plain_symbol_rows_read_as_the_row_by_row_path_reads_them(tmp_path: Path) -> None:
    # rows the exporter writes (safe symbols, canonical numbers) take the one-substitution path; a file with one
    # row that needs an escape or a re-spelled number takes the row-by-row path: both give the same atoms
    from pypto_verify.engines.clingo_engine import Predicate, _relation_facts

    predicate = Predicate("w", "r_w", ("symbol", "number"))
    plain = "tile.matmul_acc\t-12\nAcc\t0\n\t7\n"
    assert _relation_facts(predicate, plain, tmp_path / "w.facts") == (
        'r_w("tile.matmul_acc",-12).\nr_w("Acc",0).\nr_w("",7).\n')
    escaped = plain + 'say "hi"\t007\n'
    assert _relation_facts(predicate, escaped, tmp_path / "w.facts") == (
        'r_w("tile.matmul_acc",-12).\nr_w("Acc",0).\nr_w("",7).\nr_w("say \\"hi\\"",7).\n')
    assert run_clingo(tmp_path, SYMBOLS, {"w": [("tile.move", 1), ("x y", 2)]}) == {"w": [("tile.move", 1), ("x y", 2)]}
