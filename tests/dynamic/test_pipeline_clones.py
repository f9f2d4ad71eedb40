"""A pipelined body whose tiles are typed by a scalar of the body (`valid_shape=[rows, COLS]`, `rows =
pl.min(...)`): every clone the pipeline makes types its tiles by its own `rows`, never by the first
clone's (which the remainder arm cannot even see: its emitted PTO named an undefined value, a PV999)."""

from __future__ import annotations

import pytest
from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, TileType, Var, walk_stmts

CLIPPED = KERNELS / "clipped_rows.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    work = lower_stage(read_stage(str(CLIPPED)), Options())
    (kernel,) = work.kernels
    return kernel


def test_each_clone_types_its_tiles_by_its_own_rows() -> None:
    lowered = _kernel().lowered
    defined = [s.target.name for s in walk_stmts(lowered.body)
               if isinstance(s, Assign) and s.target.name.startswith("rows")]
    assert len(defined) == 3, defined  # two clones in the main loop, one in the remainder arm
    blocks = {s.target.name: s.type for s in walk_stmts(lowered.body)
              if isinstance(s, Assign) and s.target.name.startswith("block")}
    assert len(blocks) == 3, blocks
    for name, t in blocks.items():
        assert isinstance(t, TileType) and t.valid_shape is not None
        row = t.valid_shape[0]
        assert isinstance(row, Var)
        assert row.name == "rows" + name[len("block"):], (name, row.name)


@pytest.mark.parametrize("tokens", [12, 13, 20, 24])
def test_clipped_tiles_simulate_and_match(tokens: int) -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()
    outcome = simulate_kernel(kernel.source, kernel.lowered, sizes={"TOKENS": tokens})
    assert outcome.status == "match", outcome.message
    assert f"TOKENS={tokens}" in outcome.message
