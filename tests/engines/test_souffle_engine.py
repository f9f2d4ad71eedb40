"""The Soufflé driver, tested against a stand-in `souffle` script so it runs without Soufflé installed.

The stand-in logs its argument list, copies prepared `.csv` files into its `-D` folder and can fail,
print `Error:` or hang on request. test_parity.py runs the real binary when it is on PATH.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from engine_cases import write
from pypto_verify.engines import souffle_engine
from pypto_verify.engines.api import EngineError, pick_engine, run_program
from pypto_verify.engines.souffle_lang import load_program

FAKE = r'''#!{python}
import json, os, shutil, stat, sys, time
args = sys.argv[1:]
if args == ["--version"]:
    print("-" * 20)
    print("Version: " + os.environ.get("FAKE_SOUFFLE_VERSION", "9.9.9"))
    sys.exit(0)
with open(os.environ["FAKE_SOUFFLE_LOG"], "a") as log:
    log.write(json.dumps([os.path.basename(sys.argv[0])] + args) + "\n")
mode = os.environ.get("FAKE_SOUFFLE_MODE", "ok")
if mode == "exit":
    sys.stderr.write("Error: undefined relation in file x.dl at line 1\n")
    sys.exit(1)
if mode == "stderr":
    sys.stderr.write("Error loading r data: Cannot open fact file r.facts\n")
    sys.exit(0)
if mode == "hang":
    time.sleep(30)
if "-o" in args:
    binary = args[args.index("-o") + 1]
    shutil.copy(sys.argv[0], binary)
    os.chmod(binary, os.stat(binary).st_mode | stat.S_IEXEC)
    sys.exit(0)
out = args[args.index("-D") + 1]
for name in os.listdir(os.environ["FAKE_SOUFFLE_CSV"]):
    shutil.copy(os.path.join(os.environ["FAKE_SOUFFLE_CSV"], name), out)
'''

PROGRAM = """
.decl e(a: number, s: symbol)
.input e
.decl flag()
.decl out(a: number, s: symbol)
.output out, flag
out(a, s) :- e(a, s).
flag() :- e(_, _).
"""


@pytest.fixture()
def fake_souffle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put the stand-in on PATH; returns the folder whose .csv files it 'computes'."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "souffle"
    script.write_text(FAKE.replace("{python}", sys.executable), encoding="utf-8")
    script.chmod(0o755)
    csv = tmp_path / "csv"
    csv.mkdir()
    (csv / "out.csv").write_text("2\tb c\n-1\tsay \"hi\"\n10\tü\n", encoding="utf-8")
    (csv / "flag.csv").write_text("()\n", encoding="utf-8")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SOUFFLE_LOG", str(tmp_path / "log.jsonl"))
    monkeypatch.setenv("FAKE_SOUFFLE_CSV", str(csv))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    souffle_engine.forget_versions()
    return csv


def calls(tmp_path: Path) -> list[list[str]]:
    log = tmp_path / "log.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_interpreted_run_reads_typed_sorted_rows(tmp_path: Path, fake_souffle: Path) -> None:
    program = write(tmp_path, PROGRAM)
    (tmp_path / "facts").mkdir()
    result = run_program(program, tmp_path / "facts", engine="souffle")
    assert result == {"out": [(-1, 'say "hi"'), (2, "b c"), (10, "ü")], "flag": [()]}
    ((name, *args),) = calls(tmp_path)
    assert name == "souffle" and args[0] == "-w"
    assert args[args.index("-F") + 1] == str((tmp_path / "facts").resolve())
    assert args[args.index("-j") + 1] == "1"
    assert args[-1].endswith("program.dl")


def test_auto_picks_souffle_when_it_is_on_path(fake_souffle: Path) -> None:
    assert pick_engine("auto") == "souffle"


def test_nonzero_exit_is_an_engine_error_with_stderr(tmp_path: Path, fake_souffle: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_SOUFFLE_MODE", "exit")
    (tmp_path / "facts").mkdir()
    with pytest.raises(EngineError, match=r"souffle failed \(exit code 1\): Error: undefined relation"):
        run_program(write(tmp_path, PROGRAM), tmp_path / "facts", engine="souffle")


def test_error_on_stderr_fails_even_with_exit_code_zero(tmp_path: Path, fake_souffle: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_SOUFFLE_MODE", "stderr")
    (tmp_path / "facts").mkdir()
    with pytest.raises(EngineError, match=r"exit code 0\): Error loading r data"):
        run_program(write(tmp_path, PROGRAM), tmp_path / "facts", engine="souffle")


def test_a_hanging_souffle_is_stopped_at_the_timeout(tmp_path: Path, fake_souffle: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_SOUFFLE_MODE", "hang")
    (tmp_path / "facts").mkdir()
    with pytest.raises(EngineError, match="souffle did not finish within 0.5 s"):
        run_program(write(tmp_path, PROGRAM), tmp_path / "facts", engine="souffle", timeout=0.5)


def test_compiled_binary_is_built_once_per_program_and_version(tmp_path: Path, fake_souffle: Path, monkeypatch) -> None:
    program = write(tmp_path, PROGRAM)
    (tmp_path / "facts").mkdir()
    first = run_program(program, tmp_path / "facts", engine="souffle", compiled=True)
    second = run_program(program, tmp_path / "facts", engine="souffle", compiled=True)
    assert first == second == {"out": [(-1, 'say "hi"'), (2, "b c"), (10, "ü")], "flag": [()]}
    names = [call[0] for call in calls(tmp_path)]
    assert names.count("souffle") == 1  # one `souffle -o`, then the cached binary twice
    (binary,) = (tmp_path / "cache" / "pypto-verify" / "souffle-bin").iterdir()
    assert len(binary.name) == 64 and names.count(binary.name) == 2
    monkeypatch.setenv("FAKE_SOUFFLE_VERSION", "10.0.0")
    souffle_engine.forget_versions()
    run_program(program, tmp_path / "facts", engine="souffle", compiled=True)
    assert len(list((tmp_path / "cache" / "pypto-verify" / "souffle-bin").iterdir())) == 2


def test_engine_version_reads_the_version_line(fake_souffle: Path) -> None:
    from pypto_verify.engines.api import engine_version

    assert engine_version("souffle") == "souffle 9.9.9"


def test_flatten_blanks_includes_and_marks_each_file(tmp_path: Path) -> None:
    write(tmp_path, '#include "schema.dl"\ne(1). // #include "not an include"\n', "main.dl")
    write(tmp_path, '.decl e(a: number)\ne(2).', "schema.dl")
    text = souffle_engine.flatten(load_program(tmp_path / "main.dl"))
    assert text == (
        f'#line 1 "{(tmp_path / "main.dl").resolve()}"\n'
        + " " * len('#include "schema.dl"') + '\ne(1). // #include "not an include"\n'
        + f'#line 1 "{(tmp_path / "schema.dl").resolve()}"\n'
        + ".decl e(a: number)\ne(2).\n"
    )


def test_outputs_are_parsed_by_declared_kinds(tmp_path: Path) -> None:
    program = load_program(write(tmp_path, PROGRAM))
    out = tmp_path / "out"
    out.mkdir()
    (out / "out.csv").write_text("3\t\n3\t007\n", encoding="utf-8")
    (out / "flag.csv").write_text("", encoding="utf-8")
    assert souffle_engine.read_outputs(program, out) == {"out": [(3, ""), (3, "007")], "flag": []}


def test_an_output_row_with_a_stray_tab_is_an_error(tmp_path: Path) -> None:
    program = load_program(write(tmp_path, PROGRAM))
    out = tmp_path / "out"
    out.mkdir()
    (out / "out.csv").write_text("3\ta\tb\n", encoding="utf-8")
    (out / "flag.csv").write_text("", encoding="utf-8")
    with pytest.raises(EngineError, match="expected 2 tab-separated values, found 3"):
        souffle_engine.read_outputs(program, out)


def test_a_missing_output_file_is_an_error(tmp_path: Path) -> None:
    program = load_program(write(tmp_path, PROGRAM))
    with pytest.raises(EngineError, match="souffle wrote no `out.csv`"):
        souffle_engine.read_outputs(program, tmp_path)
