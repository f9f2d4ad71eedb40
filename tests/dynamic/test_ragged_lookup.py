"""A row-wise gather (`pl.gather(x, dim=-1, index=i)`) of a tile with fewer valid rows than its index: the reference
reads the source into its padding (as the row gathers the emitter makes do), so a kernel keeping only the valid rows
matches, and its twin storing the rows read from unfilled padding mismatches (the simulator holds poison there)."""

from __future__ import annotations

import pytest

from stages import KERNELS, require_stages

RAGGED = KERNELS / "ragged_lookup.py"


@pytest.mark.parametrize(("name", "status"), [("ragged_lookup", "match"), ("ragged_lookup_whole", "mismatch")])
def test_a_gather_of_a_ragged_tile_matches_where_its_padding_stays_unstored(name: str, status: str) -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    kernel = {k.name: k for k in lower_stage(read_stage(str(RAGGED)), Options()).kernels}[name]
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == status, outcome.message
    if status == "mismatch":
        assert outcome.first_difference["index"][0] >= 5  # a row past the valid ones
