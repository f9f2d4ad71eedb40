"""A `pl.spmd` step that sets again a scalar its function set before (the lowering carries the name through the
launch): every block sets it before reading it, so the step is emitted and matches; a PTO whose blocks set it
wrongly mismatches; a read of the name after the step is named as having no one value (`emit/pto.py`,
`launch_step`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stages import KERNELS, lowered_kernels

RESETS = KERNELS / "block_resets.py"


@pytest.fixture(scope="module")
def kernels():
    return lowered_kernels(RESETS)


def _simulate(source, lowered):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(source, lowered)


def test_a_name_each_block_sets_again_is_no_carry(kernels) -> None:
    from pypto_verify.ir import For, LoopKind, walk_stmts

    lowered = kernels["clamped_bands"].lowered
    (launch,) = [s for s in walk_stmts(lowered.body) if isinstance(s, For) and s.kind is LoopKind.SPMD]
    assert [a.name for a in launch.iter_args] == ["active__iter_v3"]  # what the lowering carries
    outcome = _simulate(kernels["clamped_bands"].source, lowered)
    assert outcome.status == "match", outcome.message


def test_blocks_setting_the_name_wrongly_mismatch(kernels) -> None:
    # each block of the PTO counts one active row, where the source counts `count`
    from pypto_verify.ir import Assign, Call, Const, map_stmts

    lowered = kernels["clamped_bands"].lowered
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and stmt.target.name == "active__ssa_v4" and isinstance(stmt.value, Call):
            hits.append(stmt)
            return (replace(stmt, value=replace(stmt.value, args=(Const(1), *stmt.value.args[1:]))),)
        return None

    twin = replace(lowered, body=map_stmts(lowered.body, stmt_fn))
    assert len(hits) == 1
    outcome = _simulate(kernels["clamped_bands"].source, twin)
    assert outcome.status == "mismatch", outcome.message


def test_the_name_read_after_the_step_has_no_value(kernels) -> None:
    outcome = _simulate(kernels["clamped_bands_after"].source, kernels["clamped_bands_after"].lowered)
    assert outcome.status == "skipped"
    assert outcome.reason == ("emit: `active__rv_v5` is what the blocks of a `pl.spmd` step leave in a name each "
                              "sets on a core of its own: it has no one value after the step"), outcome.reason
