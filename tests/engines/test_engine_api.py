"""The public engine API: engine choice, versions, output files and the per-process parse cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine_cases import write, write_facts
from pypto_verify.engines import api
from pypto_verify.engines.api import EngineError, engine_version, pick_engine, run_program

PROGRAM = """
.decl e(a: number, s: symbol)
.input e
.decl big(a: number, s: symbol)
.decl any()
.decl none()
.output big, any, none
big(a, s) :- e(a, s), a > 1.
any() :- e(_, _).
none() :- e(_, "never").
"""


def test_auto_picks_clingo_when_souffle_is_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert pick_engine("auto") == "clingo"


def test_asking_for_an_absent_souffle_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(EngineError, match="`souffle` is not on PATH"):
        pick_engine("souffle")


def test_unknown_engine_is_an_error() -> None:
    with pytest.raises(EngineError, match="unknown engine `datomic`"):
        pick_engine("datomic")


def test_clingo_version_names_the_engine() -> None:
    import clingo

    assert engine_version("clingo") == f"clingo {clingo.__version__}"


def test_outputs_are_written_sorted_with_nullary_relations_as_parentheses(tmp_path: Path) -> None:
    facts = write_facts(tmp_path, {"e": [(3, "z"), (1, "a"), (2, "b b")]})
    out = tmp_path / "nested" / "out"
    result = run_program(write(tmp_path, PROGRAM), facts, engine="clingo", out_dir=out)
    assert result == {"big": [(2, "b b"), (3, "z")], "any": [()], "none": []}
    assert (out / "big.csv").read_text() == "2\tb b\n3\tz\n"
    assert (out / "any.csv").read_text() == "()\n"
    assert (out / "none.csv").read_text() == ""


def test_a_missing_facts_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="facts directory .* does not exist"):
        run_program(write(tmp_path, PROGRAM), tmp_path / "nowhere", engine="clingo")


def test_a_program_is_parsed_once_until_one_of_its_files_changes(tmp_path: Path, monkeypatch) -> None:
    loads: list[Path] = []
    real_load = api.load_program
    monkeypatch.setattr(api, "load_program", lambda path: loads.append(path) or real_load(path))
    main = write(tmp_path, '#include "rules.dl"\n.decl e(a: number, s: symbol)\n.input e\n', "main.dl")
    rules = write(tmp_path, ".decl big(a: number)\n.output big\nbig(a) :- e(a, _), a > 1.\n", "rules.dl")
    facts = write_facts(tmp_path, {"e": [(1, "a"), (2, "b")]})
    assert run_program(main, facts, engine="clingo") == {"big": [(2,)]}
    assert run_program(main, facts, engine="clingo") == {"big": [(2,)]}
    assert len(loads) == 1
    rules.write_text(".decl big(a: number)\n.output big\nbig(a) :- e(a, _), a > 0.\n")
    stamp = rules.stat().st_mtime_ns + 1_000_000_000
    os.utime(rules, ns=(stamp, stamp))  # an included file changed: the program is read again
    assert run_program(main, facts, engine="clingo") == {"big": [(1,), (2,)]}
    assert len(loads) == 2


ROWS_PROGRAM = """
.decl e(a: number, s: symbol)
.input e
.decl unread(a: number, s: symbol)
.input unread
.decl big(a: number, s: symbol)
.output big
big(a, s) :- e(a, s), a > 1.
"""


@pytest.mark.parametrize("engine", ["clingo", pytest.param("souffle", marks=pytest.mark.skipif(
    __import__("shutil").which("souffle") is None, reason="souffle not on PATH"))])
def test_rows_in_memory_give_what_a_facts_directory_of_them_gives(tmp_path: Path, engine: str) -> None:
    rows = {"e": [(3, 'z "q"'), (1, "a"), (2, "b\\b")], "unread": [(7, "x")]}
    program = write(tmp_path, ROWS_PROGRAM)
    from_rows = api.run_rows(program, rows, engine=engine)
    assert from_rows == run_program(program, write_facts(tmp_path, rows), engine=engine)
    assert from_rows == {"big": [(2, "b\\b"), (3, 'z "q"')]}


def test_clingo_is_given_no_input_that_no_rule_reads(tmp_path: Path) -> None:
    from pypto_verify.engines import clingo_engine

    loaded = api._load(write(tmp_path, ROWS_PROGRAM))
    text = clingo_engine.rows_text(loaded.translation, {"e": [(2, "b")], "unread": [(7, "x")]})
    assert text == 'r_e(2,"b").\n'


def test_rows_past_clingo_s_integers_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match=r"e\.facts:1: number 4294967296 does not fit clingo's 32-bit integers"):
        api.run_rows(write(tmp_path, ROWS_PROGRAM), {"e": [(2**32, "b")]}, engine="clingo")
