"""`pypto-verify emit` and `pypto-verify sim` (pypto_verify/cli/emit_cmd.py, sim_cmd.py)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from stages import KERNELS, ROOT, require_stages

GOLDEN = ROOT / "tests" / "golden" / "emission"


def _run(*args: str):
    from pypto_verify.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_emit_writes_the_golden_module(tmp_path: Path) -> None:
    require_stages()
    case = GOLDEN / "predicated_k_loop"
    out = tmp_path / "k.pto"
    result = _run("emit", str(case / "kernel.py"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_text() == (case / "expected.pto").read_text()


def test_emit_to_stdout_for_a5() -> None:
    require_stages()
    result = _run("emit", str(GOLDEN / "int8_phi_moves" / "kernel.py"), "--target", "a5")
    assert result.exit_code == 0
    assert 'pto.target_arch = "a5"' in result.output and "dtype=i32, rows=16, cols=64" in result.output


def test_sim_reports_a_legacy_mismatch_and_exits_1() -> None:
    require_stages()
    result = _run("sim", str(KERNELS / "fragmented_chain.py"), "--pipeline", "legacy", "--seed", "2")
    assert result.exit_code == 1
    assert result.output.startswith(f"{KERNELS / 'fragmented_chain.py'}:15:1: fragmented: mismatch: `y`[0, 0]: sim nan")


def test_sim_matches_in_fixed_mode_and_skips_form3() -> None:
    require_stages()
    fixed = _run("sim", str(KERNELS / "fragmented_chain.py"))
    assert (fixed.exit_code, fixed.output) == (0, f"{KERNELS / 'fragmented_chain.py'}:15:1: fragmented: match\n")
    form3 = _run("sim", str(KERNELS / "divergent_tail_phi.py"))
    assert (form3.exit_code, form3.output) == (0, f"{KERNELS / 'divergent_tail_phi.py'}:12:5: DivergentPhi.main: "
                                                  "skipped: Form 3 input: no source to compare with\n")


def test_sim_of_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    require_stages()
    bad = tmp_path / "bad.py"
    bad.write_text("x = (\n")
    result = _run("sim", str(bad))
    assert result.exit_code == 2


def test_sim_exits_4_when_the_simulation_fails_inside(monkeypatch) -> None:
    """An exception of ours inside emission or simulation is a PV999 and exit 4, never a quiet `skipped`
    with exit 0 (a merge left a NameError there that `sim` reported as skipped)."""
    require_stages()
    import pypto_verify.dynamic as dynamic

    def broken(*args, **kwargs):
        raise NameError("name 'target' is not defined")

    monkeypatch.setattr(dynamic, "simulate_kernel", broken)  # the chain imports it when it simulates
    result = _run("sim", str(KERNELS / "fragmented_chain.py"))
    assert result.exit_code == 4, result.output
    assert "PV999" in result.output and "skipped: internal error: NameError" in result.output
