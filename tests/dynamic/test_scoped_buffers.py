"""Buffers of separate InCore scopes (issue 14, a false PV202 of prefill_sparse_attn): the addresses the
lowering gives each scope's buffers are those its per-scope capacity check verified (a buffer is placed
first fit in each scope it is live in, the ones crossing scopes largest first), and the emitter keeps
them (two scopes' buffers sharing addresses are not read as unallocated offsets and laid end to end)."""

from __future__ import annotations

import re

from stages import KERNELS, require_stages

SCOPED = KERNELS / "scoped_buffers.py"
UB = 188416  # the a2a3 Vec capacity


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    work = lower_stage(read_stage(str(SCOPED)), Options())
    assert not work.findings, work.findings
    (kernel,) = work.kernels
    return kernel


def test_each_scope_is_laid_out_within_the_unified_buffer() -> None:
    from pypto_verify.emit import emit

    text = emit(_kernel().lowered)
    ends = []
    for line in text.splitlines():
        found = re.search(r"addr = %c(\d+)_i64 .*loc=vec, dtype=f32, rows=(\d+), cols=(\d+)", line)
        if found:
            addr, rows, cols = map(int, found.groups())
            ends.append(addr + rows * cols * 4)
    assert ends and max(ends) <= UB, ends


def test_scoped_buffers_simulate_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message
