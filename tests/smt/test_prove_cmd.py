"""`pypto-verify prove`: the listing, the summary line and the exit codes (0 / 1 / 2 / 3)."""

from __future__ import annotations

from click.testing import CliRunner

from pypto_verify.cli import main
from .harness import KERNELS

INCONCLUSIVE_KERNEL = '''
import pypto.language as pl


@pl.program
class Partial:
    @pl.function(type=pl.FunctionType.InCore)
    def partial(self, a: pl.Tensor[[16, 512], pl.BF16], b: pl.Tensor[[512, 64], pl.BF16],
                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        c_init = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.range(0, 4, 1, init_values=(c_init,)):
            ta = pl.tile.load(a, [0, kb * 128], [16, 128], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [kb * 128, 0], [128, 64], target_memory=pl.Mem.Mat)
            if kb < 2:
                more = pl.tile.matmul_acc(c_iter, ta, tb, init_cond=(kb == 0))
                ph = pl.yield_(more)
            else:
                ph = pl.yield_(c_iter)
            c = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out
'''


def _prove(*args: str):
    return CliRunner().invoke(main, ["prove", *args])


def test_correct_kernel_lists_each_obligation_as_proved_and_exits_3_for_its_run_time_windows():
    """`dynamic` runs `n_blocks` K blocks, read from `lens` at run time: its slices of `x` and `w` stay in
    bounds only for some values (conditional), so not everything is proved: exit 3. The read of `lens` itself
    is proved in bounds."""
    result = _prove(str(KERNELS / "tiled_k.py"), "--no-cache")
    assert result.exit_code == 3, result.output
    assert "site piped:31 `c`: 5 proved, 0 failed, 0 inconclusive" in result.output
    assert "  PV101 predication-is-phi: proved" in result.output
    assert "GM windows of `dynamic`: 2 proved, 0 failed, 0 inconclusive, 2 conditional" in result.output
    summary = result.output.strip().splitlines()[-1]
    assert summary.startswith("3 sites, 10 GM windows, 25 obligations: 23 proved, 0 failed, 0 inconclusive, "
                              "2 conditional; solver time ")


def test_failed_obligation_prints_the_counterexample_and_exits_1():
    result = _prove(str(KERNELS / "init_cond_off_by_one.py"))
    assert result.exit_code == 1
    assert "PV102 initialise-first: failed: init_cond (ko == 1)" in result.output
    assert "counterexample: ko = 0" in result.output


def test_input_error_exits_2(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("import pypto.language as pl\ndef (:\n")
    result = _prove(str(bad))
    assert result.exit_code == 2
    assert "PV000" in result.output


def test_inconclusive_site_exits_3(tmp_path):
    path = tmp_path / "partial.py"
    path.write_text(INCONCLUSIVE_KERNEL)
    result = _prove(str(path))
    assert result.exit_code == 3, result.output
    assert "inconclusive: the number of MADs per iteration of `kb`" in result.output


def test_dump_smt_and_timeout_options(tmp_path):
    result = _prove(str(KERNELS / "bias_twice.py"), "--dump-smt", str(tmp_path), "--timeout-ms", "5000")
    assert result.exit_code == 1
    assert (tmp_path / "biased.18.PV104.smt2").is_file()
