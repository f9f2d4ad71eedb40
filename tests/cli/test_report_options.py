"""`check`'s report options: several formats at once (each `-o` after its `--format`), usage errors before
the run, `--statistics`, `--color` / `NO_COLOR`, the code frames, the summary's wording, and messages in
the author's vocabulary (issue 16)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pypto_verify.cli import main
from pypto_verify.cli.check_cmd import pair_outputs, report_order, use_color

ROOT = Path(__file__).resolve().parents[2]
PV004_FORM1 = "corpus/defects/pv004_read_after_inplace.py"
PV004_FORM3 = "tests/fixtures/form3/shape_b_post_if_read.py"
FORM3_CLEAN = "tests/fixtures/form3/shape_f_predicated.py"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NO_COLOR", raising=False)


def check(*args: str):
    return CliRunner().invoke(main, ["check", "--jobs", "1", *args], catch_exceptions=False)


def test_each_output_file_takes_the_format_before_it_and_the_rest_goes_to_stdout(tmp_path: Path) -> None:
    sarif, junit = tmp_path / "a.sarif", tmp_path / "r.xml"
    result = check(PV004_FORM3, "--no-sim", "--format", "text", "--format", "sarif", "-o", str(sarif),
                   "--format", "junit", "-o", str(junit))
    assert result.exit_code == 1
    assert "PV004 clobbered-read" in result.stdout and result.stdout.rstrip().endswith("1 error finding")
    assert json.loads(sarif.read_text())["runs"][0]["results"][0]["ruleId"] == "PV004"
    assert junit.read_text().startswith("<?xml")


@pytest.mark.parametrize("order", [("--format", "json", "-o", "{f}"), ("-o", "{f}", "--format", "json")])
def test_one_format_with_one_output_file_keeps_working_in_either_order(tmp_path: Path, order) -> None:
    out = tmp_path / "r.json"
    result = check(PV004_FORM3, "--no-sim", *(a.format(f=out) for a in order))
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads(out.read_text())["findings"][0]["rule"] == "PV004"


@pytest.mark.parametrize("args", [
    ("--format", "json", "--format", "text"),                       # two reports on stdout
    ("-o", "{f}", "--format", "json", "--format", "text"),          # an -o before any format of its own
    ("--format", "json", "-o", "{f}", "-o", "{f}2"),                # two files for one format
    ("--format", "json", "-o", "{f}", "--format", "sarif", "-o", "{f}"),  # one file twice
])
def test_a_format_and_output_mismatch_is_a_usage_error_before_the_run(tmp_path: Path, args) -> None:
    out = tmp_path / "r.out"
    result = check(PV004_FORM3, *(a.format(f=out) for a in args))
    assert result.exit_code == 2
    assert not out.exists()  # nothing ran, nothing was written
    assert "Error:" in result.stderr


def test_report_order_reads_every_spelling_of_the_options() -> None:
    order = report_order(["a.py", "--format=sarif", "-oa.sarif", "--format", "text", "--output=x", "--", "-o"])
    assert order == [("format", "sarif"), ("output", "a.sarif"), ("format", "text"), ("output", "x")]
    assert pair_outputs([]) == [("text", None)]
    assert pair_outputs([("output", "r.txt")]) == [("text", "r.txt")]


def test_statistics_print_per_rule_counts_in_place_of_the_findings() -> None:
    result = check("corpus/defects/pv103_init_cond_resets.py", PV004_FORM3, "--no-sim", "--statistics")
    lines = result.stdout.splitlines()
    assert lines[:2] == ["3  PV103  no-lost-partial-sums", "1  PV004  clobbered-read"]
    assert not any(": PV103 " in line for line in lines)
    assert lines[-1].startswith("2 files, 4 kernels")


def test_statistics_with_only_a_machine_report_go_to_stderr() -> None:
    result = check(PV004_FORM3, "--no-sim", "--statistics", "--format", "json")
    assert json.loads(result.stdout)["findings"] and result.stderr == "1  PV004  clobbered-read\n"


def test_colour_follows_the_option_and_no_color() -> None:
    assert "\033[" in check(PV004_FORM3, "--no-sim", "--color", "always").stdout
    assert "\033[" not in check(PV004_FORM3, "--no-sim").stdout  # auto, and the runner is not a terminal

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert use_color("auto", Terminal()) is True
    assert use_color("never", Terminal()) is False
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NO_COLOR", "1")
        assert use_color("auto", Terminal()) is False
        assert use_color("always", io.StringIO()) is True


def test_a_text_finding_shows_its_source_line_and_a_caret_under_the_construct() -> None:
    lines = check(PV004_FORM1, "--no-sim").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if ": PV004 clobbered-read:" in line)
    assert lines[at + 1] == "   29 |         half[:, :] = first  # expect: PV004"
    assert lines[at + 2] == "      |         " + "^" * len("half[:, :] = first")


def test_summary_counts_are_singular_or_plural_and_say_why_form3_is_not_simulated() -> None:
    clean = check(FORM3_CLEAN).stdout.splitlines()[-1]
    assert clean == ("1 file, 1 kernel (1 verified: 0 simulated and matched, 1 not simulated: Form 3 input: no "
                     "source to compare with), 2 idiom sites (2 verified), 0 error findings")
    bad = check(PV004_FORM3, "--no-sim").stdout.splitlines()[-1]
    assert bad == ("1 file, 1 kernel (0 verified: 0 simulated and matched, 0 not simulated), 1 idiom site "
                   "(0 verified), 1 error finding")
    both = check(FORM3_CLEAN, PV004_FORM3, "--no-sim").stdout.splitlines()[-1]
    assert both.startswith("2 files, 2 kernels") and both.endswith("3 idiom sites (2 verified), 1 error finding")


def test_notes_name_the_op_as_the_source_spells_it() -> None:
    form1 = check(PV004_FORM1, "--no-sim").stdout
    assert "`total` written here by pl.matmul_acc" in form1 and "tile.matmul_acc" not in form1
    form3 = check(PV004_FORM3, "--no-sim").stdout
    assert "`seed` written here by pl.tile.matmul" in form3


def test_a_generated_buffer_comes_after_its_byte_range_and_a_declared_one_stays_as_written() -> None:
    form1 = check(PV004_FORM1, "--no-sim").stdout
    assert "read from bytes [0, 4096) of mem_acc_8 after `total` (line 28) overwrote it" in form1
    assert "(`first` and `total` share that buffer)" in form1
    assert "read from mem_acc_5[0:4096] after `seed`" in check(PV004_FORM3, "--no-sim").stdout


def test_a_capacity_note_and_the_json_windows_give_the_same_range() -> None:
    data = json.loads(check("corpus/defects/pv008_l0c_capacity.py", "--no-sim", "--format", "json").stdout)
    (finding,) = [f for f in data["findings"] if f["rule"] == "PV008"]
    in_notes = [re.search(r"mem_\w+\[\d+:\d+\]", n["message"]).group(0) for n in finding["notes"]]
    assert in_notes == finding["windows"] == ["mem_acc_5[0:98304]", "mem_acc_6[0:98304]"]


def test_a_carry_note_never_repeats_the_findings_own_line() -> None:
    data = json.loads(check("corpus/defects", "tests/fixtures/form3", "--no-sim", "--format", "json").stdout)
    carries = [f for f in data["findings"] if f["rule"] == "PV002"]
    assert carries
    for finding in carries:
        assert all(n["line"] != finding["line"] for n in finding["notes"]), finding


def test_a_sim_line_leads_with_the_kernels_file_and_line() -> None:
    result = CliRunner().invoke(main, ["sim", FORM3_CLEAN], catch_exceptions=False)
    assert result.stdout == f"{FORM3_CLEAN}:15:5: ShapeF.main: skipped: Form 3 input: no source to compare with\n"


def test_an_illegal_pto_points_at_the_source_statement_it_was_emitted_for() -> None:
    result = CliRunner().invoke(main, ["sim", "corpus/defects/pv005_acc_to_acc_move.py"], catch_exceptions=False)
    assert ("AccCopy.copy_then_store: mismatch: PV202 the simulator rejected the PTO emitted for line 29: pto.tmov: "
            "acc -> acc is not a legal move on a2a3 (PTO line ") in result.stdout
