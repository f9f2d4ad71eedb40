"""`pypto-verify lower`: final module on stdout, per-pass dumps that read back, errors and exit codes."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pypto_verify.cli import main

REAL_IR = next((p for p in (Path(__file__).resolve().parents[2].parent / "shared" / "real-ir", Path("/work/shared/real-ir")) if p.is_dir()), Path("/work/shared/real-ir"))
GOLDEN = Path(__file__).parents[1] / "golden" / "passes"

TOO_BIG = """\
import pypto.language as pl


@pl.program
class TooBig:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[256, 512], pl.BF16], b: pl.Tensor[[512, 256], pl.BF16],
             out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
        a_mat: pl.Tile[[256, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 512], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[512, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 256], target_memory=pl.Mem.Mat)
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        out = pl.tile.store(c, [0, 0], out)
        return out
"""


def _run(*args: str):
    return CliRunner().invoke(main, ["lower", *args])


def test_lower_prints_the_final_module(tmp_path: Path) -> None:
    result = _run(str(REAL_IR / "auto_tiled" / "source.py"), "--pipeline", "legacy")
    assert result.exit_code == 0, result.output
    assert "@pl.program" in result.output and "pl.tile.matmul_acc" in result.output


def test_dump_passes_writes_one_file_per_pass_and_each_reads_back(tmp_path: Path) -> None:
    from pypto_verify.frontend import read_file
    from pypto_verify.lowering.pipeline import FIXED

    dumps = tmp_path / "dumps"
    result = _run(str(REAL_IR / "tensor_proj" / "source.py"), "--dump-passes", str(dumps), "--target", "a5")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in dumps.iterdir())
    expected = ["00_frontend.py"] + [f"{i:02d}_after_{p.title}.py" for i, p in enumerate(FIXED, start=1)]
    assert names == expected
    for path in dumps.iterdir():
        parsed = read_file(path)
        assert not parsed.errors, (path.name, [str(e) for e in parsed.errors])


def test_stop_after_ends_the_pipeline_there() -> None:
    result = _run(str(GOLDEN / "lower-pipeline-loops" / "shape_c_fewer_trips_than_stages" / "kernel.py"),
                  "--pipeline", "legacy", "--stop-after", "lower-pipeline-loops")
    assert result.exit_code == 0, result.output
    assert "if 128 == 0:" in result.output and "pl.MemRef" not in result.output


def test_lowering_errors_print_with_their_location_and_exit_1(tmp_path: Path) -> None:
    kernel = tmp_path / "too_big.py"
    kernel.write_text(TOO_BIG)
    result = CliRunner().invoke(main, ["lower", str(kernel)])
    assert result.exit_code == 1
    assert f"{kernel}:11:9: PV008 l0c-capacity: `c` needs 262144 bytes of L0C" in result.output


def test_input_errors_exit_2(tmp_path: Path) -> None:
    kernel = tmp_path / "broken.py"
    kernel.write_text("import pypto.language as pl\n\n@pl.jit\ndef f(x: pl.Tensor[[16, 16], pl.FP32]:\n"
                      "    return x\n")
    result = _run(str(kernel))
    assert result.exit_code == 2
    assert "PV000 input-error" in result.output


def test_an_unknown_stop_after_is_a_usage_error() -> None:
    result = _run(str(REAL_IR / "auto_tiled" / "source.py"), "--pipeline", "legacy",
                  "--stop-after", "simplify-literal-conditions")
    assert result.exit_code == 2
