"""A `tile.reshape` the lowering gave a buffer of its own is not emitted as a view at its operand's address
(found simulating qwen3_14b/rms_lm_head.py shrunk: the view was clobbered by the next load into the operand's
buffer, a false PV201). PyPTO's InitMemRef makes a reshape a view of its operand's buffer, and so does our
lowering now: the reshape shares its operand's window, and the kernel simulates to a match."""

from __future__ import annotations

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, TileType, walk_stmts


def test_a_reshape_shares_its_operands_buffer_and_matches() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(KERNELS / "reshape_buffer.py")), Options()).kernels
    types = {s.target.name: s.type for s in walk_stmts(kernel.lowered.body) if isinstance(s, Assign)}
    reshapes = [s for s in walk_stmts(kernel.lowered.body) if isinstance(s, Assign) and isinstance(s.value, Call)
                and s.value.op == "tile.reshape" and isinstance(s.type, TileType)]
    assert reshapes and all(s.type.memref.window == types[s.value.args[0].name].memref.window for s in reshapes)
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.reason
