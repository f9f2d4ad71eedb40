"""`pypto-verify parse`: IR on stdout, PV000 on stderr, exit 2 on input errors, `--format json`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pypto_verify.cli import main

HERE = Path(__file__).parent
INVALID = HERE / "invalid"
FORM3 = HERE.parent / "fixtures" / "form3"
WILD = HERE / "wild"


def run(*args: str):
    return CliRunner().invoke(main, ["parse", *args])


def test_clean_file_prints_its_kernels_and_exits_0():
    result = run(str(WILD / "w01_program_methods.py"))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert "class TwoStage:" in result.stdout
    assert "def scale(self, x:" in result.stdout and "def project(self," in result.stdout
    assert "def run(" not in result.stdout  # orchestration: parsed, not a kernel
    assert "pl.tensor.matmul(" in result.stdout


def test_all_functions_flag_prints_orchestration_too():
    result = run("--all-functions", str(WILD / "w01_program_methods.py"))
    assert "def run(self," in result.stdout


def test_lowered_input_prints_form3():
    result = run(str(FORM3 / "shape_f_predicated.py"))
    assert result.exit_code == 0
    assert result.stdout.startswith("# pypto-verify IR (Form 3)\n")
    assert "pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 16384)" in result.stdout


def test_input_errors_go_to_stderr_and_exit_2_while_other_kernels_print():
    path = INVALID / "undefined_name.py"
    result = run(str(path))
    assert result.exit_code == 2
    assert result.stderr == (f"{path}:11:31: PV000 input-error: undefined name `SCALE`; it is not a parameter, "
                             "a local, a module constant or an import\n")
    assert "def good(" in result.stdout and "def bad(" not in result.stdout


def test_directories_are_searched_recursively():
    result = run(str(WILD))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("# pypto-verify IR") == len(list(WILD.rglob("w*.py")))


def test_several_files_one_bad_exits_2():
    result = run(str(WILD / "w07_code_outside_kernels.py"), str(INVALID / "binary_garbage.py"))
    assert result.exit_code == 2
    assert "def gemm(" in result.stdout
    assert "PV000 input-error: binary file" in result.stderr


def test_warnings_are_shown_on_request():
    result = run("--warnings", str(WILD / "w04_runtime_scalars.py"))
    assert result.exit_code == 0
    assert "warning: runtime scalar `ctx_blocks`; used as a loop bound" in result.stderr


def test_json_dump_is_a_generic_dataclass_walk():
    path = INVALID / "wrong_annotation.py"
    result = run("--format", "json", str(path))
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    (entry,) = document["files"]
    assert entry["path"] == str(path) and entry["status"] == "input-error"
    assert entry["kernels"] == ["good"]
    assert entry["errors"] == [{
        "rule": "PV000", "name": "input-error", "severity": "error", "path": str(path), "line": 12, "col": 9,
        "message": "type annotation of `c`; annotation says [16, 64] FP32 Acc but `pl.tile.matmul` gives "
                   "[16, 128] FP32 Acc"}]
    module = entry["module"]
    assert module["node"] == "Module"
    fn = module["programs"][0]["functions"][0]
    assert fn["node"] == "Function" and fn["kind"] == "InCore" and fn["span"] == [17, 5]
    first = fn["body"][0]
    assert first["node"] == "Assign" and first["target"] == {"node": "Var", "name": "ta", "span": [19, 9]}
    assert first["type"]["node"] == "TileType" and first["type"]["space"] == "Left"
    assert first["value"]["op"] == "tile.load"


def test_json_for_a_clean_lowered_file():
    result = run("--format", "json", str(FORM3 / "shape_a_divergent_tail_phi.py"))
    assert result.exit_code == 0
    entry = json.loads(result.stdout)["files"][0]
    assert entry["status"] == "ok" and entry["errors"] == []
    params = entry["module"]["programs"][0]["functions"][0]["params"]
    assert params[0]["type"]["memref"] == {"node": "MemRef", "base": "mem_ddr_0", "offset": 0, "size": 49152,
                                           "slots": None, "slot": None, "quoted": True}
