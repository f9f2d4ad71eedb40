"""Byte arenas: capacities, the poison fill, tile views that alias byte for byte."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim.arena import POISON_WORD, SPACES, Memory
from pypto_verify.target import TARGETS


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_arenas_are_sized_by_the_target(target: str) -> None:
    memory = Memory.for_target(target)
    assert {space: arena.data.size for space, arena in memory.arenas.items()} == \
        {space: TARGETS[target].capacity[mem] for space, mem in SPACES.items()}
    assert memory.arenas["acc"].capacity == {"a2a3": 131072, "a5": 262144}[target]


def test_arena_starts_as_the_poison_pattern() -> None:
    arena = Memory.for_target("a2a3").arenas["vec"]
    words = arena.data.view("<u4")
    assert (words == POISON_WORD).all()
    assert arena.data[:4].tolist() == [0xC0, 0x7F, 0xC0, 0x7F]


def test_tiles_at_one_address_alias_across_dtypes() -> None:
    arena = Memory.for_target("a2a3").arenas["mat"]
    as_f32 = arena.tile(64, 2, 4, "f32", 2, 4)
    as_i32 = arena.tile(64, 2, 4, "i32", 2, 4)
    as_bf16 = arena.tile(64, 2, 8, "bf16", 2, 8)
    as_f32.valid[...] = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(as_i32.data.view(np.float32), as_f32.data)
    assert as_bf16.data[0, 3] == 0x3F80  # the high half of 1.0f


def test_partially_overlapping_tiles_share_their_common_bytes() -> None:
    arena = Memory.for_target("a2a3").arenas["vec"]
    upper = arena.tile(0, 4, 4, "f32", 4, 4)
    lower = arena.tile(32, 4, 4, "f32", 4, 4)  # starts at row 2 of `upper`
    upper.valid[...] = np.arange(16, dtype=np.float32).reshape(4, 4)
    np.testing.assert_array_equal(lower.data[:2], upper.data[2:])
    assert np.isnan(lower.data[2:]).all()
    lower.valid[0, 0] = -1.0
    assert upper.data[2, 0] == -1.0


def test_valid_region_is_a_view_of_the_top_left_corner() -> None:
    arena = Memory.for_target("a2a3").arenas["acc"]
    tile = arena.tile(0, 32, 16, "i32", 16, 8)
    tile.valid[...] = 7
    assert (tile.data[:16, :8] == 7).all() and (tile.data[16:] == POISON_WORD).all()
    assert tile.nbytes == 32 * 16 * 4


def test_fits_checks_the_whole_byte_range() -> None:
    arena = Memory.for_target("a2a3").arenas["bias"]
    assert arena.fits(0, 1024) and not arena.fits(4, 1024) and not arena.fits(-4, 8)


def test_written_bitmap_tracks_the_valid_bytes() -> None:
    arena = Memory.for_target("a2a3", track_writes=True).arenas["acc"]
    tile = arena.tile(0, 4, 4, "f32", 2, 4)
    assert tile.written is not None and tile.written.shape == (2, 16)
    tile.written[...] = True
    assert arena.written is not None and arena.written[:32].all() and not arena.written[32:].any()
