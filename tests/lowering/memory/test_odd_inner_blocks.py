"""Fixed pipeline, TARGET_FACTS.md "Observed on the pre-fix compiler": a user K loop whose `if kb == 0`
arms are each auto-tiled into an inner stage-2 K loop with an odd L0 block count (384 = 3 x 128: one
main iteration of two clones and a literal straight-line tail clone) is a valid kernel the old compiler
could not compile ("cannot reconcile divergent L0C accumulator buffers"). The static remainder binds
the arm's value to its tail clone's output by an identity copy; fixed materialize-semantic-aliases
follows an Acc identity copy (PyPTO's planner declines it), so the seed arm's inner chain lands on the
carry's window. Every Acc phi / carry ends on one window per accumulator, every `matmul_acc` output on
its input's; legacy keeps the old error (PV001 on the `if`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_verify.ir import For, walk_stmts
from pypto_verify.lowering.pass_base import LowerOptions
from pypto_verify.lowering.pipeline import lower
from pypto_verify.run import Options, run
from pypto_verify.rules import Severity

from .helpers import acc_windows, divergent_sites, frontend, inplace_pairs

DEFECT = Path(__file__).resolve().parents[3] / "corpus" / "defects" / "shape_a_odd_inner_blocks.py"

TWO_ACCUMULATORS = '''
import pypto.language as pl

M, N = 16, 128
K_TILE = 384
KB = 3
K = KB * K_TILE


@pl.jit
def odd_inner_two_accs(
    x: pl.Tensor[[M, K], pl.BF16],
    wq: pl.Tensor[[K, N], pl.BF16],
    wk: pl.Tensor[[K, N], pl.BF16],
    q: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    k: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="odd_inner_two_accs"):
        q_acc = pl.create_tensor([M, N], dtype=pl.FP32)
        k_acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.LOOP:
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wqb = wq[k0 : k0 + K_TILE, :]
            wkb = wk[k0 : k0 + K_TILE, :]
            if kb == 0:
                q_acc = pl.matmul(xa, wqb, out_dtype=pl.FP32)
                k_acc = pl.matmul(xa, wkb, out_dtype=pl.FP32)
            else:
                q_acc = pl.matmul_acc(q_acc, xa, wqb)
                k_acc = pl.matmul_acc(k_acc, xa, wkb)
        q[:, :] = q_acc
        k[:, :] = k_acc
    return q, k
'''
LOOPS = {"pipeline": "pipeline(KB, stage=2)", "range": "range(KB)"}
"""The user K loop: a stage-2 pipeline with an odd trip count (a literal tail clone of its own) or a range."""


def _source(tmp_path: Path, loop: str) -> Path:
    path = tmp_path / f"odd_inner_two_accs_{loop}.py"
    path.write_text(TWO_ACCUMULATORS.replace("pl.LOOP", f"pl.{LOOPS[loop]}"), encoding="utf-8")
    return path


def _lowered(path: Path, mode: str):
    return lower(frontend().read_file(path).module, LowerOptions(mode=mode))  # type: ignore[arg-type]


def _chain_windows(fn, prefix: str) -> set:
    return {w for name, w in acc_windows(fn).items() if name.startswith(prefix)}


def _assert_one_window_per_accumulator(path: Path, prefixes: tuple[str, ...]) -> None:
    result = _lowered(path, "fixed")
    assert result.errors == ()
    (fn,) = [f for _, f in result.module.functions()]
    assert divergent_sites(fn) == []
    assert all(wo == wi for _, _, wo, wi in inplace_pairs(fn))
    windows = [_chain_windows(fn, p) for p in prefixes]
    assert all(len(w) == 1 for w in windows), windows
    assert len(set().union(*windows)) == len(prefixes)  # the accumulators do not share a window
    # the arms really were auto-tiled into inner loops (at least one per arm and accumulator)
    inner = [s for s in walk_stmts(fn.body) if isinstance(s, For) and s.loop_var.name.startswith(prefixes)]
    assert len(inner) >= 2 * len(prefixes)


def _check_errors(path: Path, mode: str) -> list[tuple[str, int]]:
    report = run([str(path)], Options(mode=mode, sim=mode == "fixed", cache=False, jobs=1))
    findings = [f for r in report.files for f in r.findings if f.severity is Severity.ERROR]
    if mode == "fixed":
        assert all(k.verdict == "verified" and k.sim == "match" for r in report.files for k in r.kernels)
    return [(f.rule.id, f.span.line) for f in findings]


def test_the_corpus_kernel_lowers_onto_one_window_in_fixed_mode() -> None:
    _assert_one_window_per_accumulator(DEFECT, ("acc",))


def test_the_corpus_kernel_verifies_and_simulates_in_fixed_mode_and_keeps_the_legacy_error() -> None:
    assert _check_errors(DEFECT, "fixed") == []
    marked = [i for i, line in enumerate(DEFECT.read_text().splitlines(), 1) if "# expect[legacy]: PV001" in line]
    assert _check_errors(DEFECT, "legacy") == [("PV001", line) for line in marked] != []


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_two_accumulators_in_one_if_lower_onto_one_window_each(tmp_path: Path, loop: str) -> None:
    _assert_one_window_per_accumulator(_source(tmp_path, loop), ("q_acc", "k_acc"))


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_two_accumulators_verify_in_fixed_mode_and_keep_the_legacy_error(tmp_path: Path, loop: str) -> None:
    path = _source(tmp_path, loop)
    assert _check_errors(path, "fixed") == []
    line = TWO_ACCUMULATORS.splitlines().index("            if kb == 0:") + 1
    assert _check_errors(path, "legacy") == [("PV001", line)]
