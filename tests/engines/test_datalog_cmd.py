"""`pypto-verify datalog run`: writes the outputs, exits 0; an engine error prints `error:` and exits 2."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine_cases import PROGRAMS
from pypto_verify.cli import main


def test_datalog_run_writes_csv_outputs_and_a_summary(tmp_path: Path) -> None:
    case = PROGRAMS / "stratified_negation"
    result = CliRunner().invoke(
        main, ["datalog", "run", str(case / "program.dl"), "-F", str(case / "facts"), "-D", str(tmp_path),
               "--engine", "clingo"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "datalog: 4 output relations, 10 rows (clingo" in result.stderr
    assert (tmp_path / "reach.csv").read_text() == (case / "expected" / "reach.csv").read_text()


def test_datalog_run_reports_an_engine_error_and_exits_2(tmp_path: Path) -> None:
    program = tmp_path / "bad.dl"
    program.write_text(".decl r(x: number)\nr(x) :- r(x), !r(x).\n")
    (tmp_path / "facts").mkdir()
    result = CliRunner().invoke(
        main, ["datalog", "run", str(program), "-F", str(tmp_path / "facts"), "-D", str(tmp_path / "out"),
               "--engine", "clingo"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {program}:2:16: `r` depends on `r` through negation")


def test_datalog_run_rejects_an_unknown_engine_as_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["datalog", "run", "x.dl", "-F", ".", "-D", ".", "--engine", "xsb"])
    assert result.exit_code == 2
