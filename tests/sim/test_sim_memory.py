"""Memory semantics: aliasing windows, the poison pattern, strict undefined-L0C reads."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, parse_pto, simulate
from pypto_verify.sim.arena import POISON_WORD
from sim_kernels import FIXTURES, expected_line

RNG = np.random.default_rng(7)
ALIASING = parse_pto((FIXTURES / "aliasing.pto").read_text())
POISON_TEXT = (FIXTURES / "poison.pto").read_text()
POISON = parse_pto(POISON_TEXT)


def test_two_tiles_at_one_address_see_each_others_bytes() -> None:
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    out = simulate(ALIASING, "same_address", {"arg0": x, "arg1": np.zeros((4, 8), np.int32)})
    np.testing.assert_array_equal(out["arg1"], x.view(np.int32))


def test_partially_overlapping_tiles_alias_on_their_common_rows() -> None:
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    y = RNG.standard_normal((4, 8)).astype(np.float32)
    out = simulate(ALIASING, "partial_overlap", {"arg0": x, "arg1": y, "arg2": np.zeros((4, 8), np.float32),
                                                 "arg3": np.zeros(1, np.float32)})
    np.testing.assert_array_equal(out["arg2"][:2], x[:2])
    np.testing.assert_array_equal(out["arg2"][2:], y[:2])


def test_two_acc_names_on_one_window_accumulate_together() -> None:
    x = RNG.standard_normal((16, 16)).astype(np.float32)
    y = RNG.standard_normal((16, 16)).astype(np.float32)
    out = simulate(ALIASING, "acc_window_shared_by_two_names",
                   {"arg0": x, "arg1": y, "arg2": np.zeros((16, 16), np.float32)})
    np.testing.assert_allclose(out["arg2"], 2 * (x @ y), rtol=1e-5, atol=1e-5)


def test_inputs_are_returned_unchanged() -> None:
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    keep = x.copy()
    out = simulate(ALIASING, "same_address", {"arg0": x, "arg1": np.zeros((4, 8), np.int32)})
    np.testing.assert_array_equal(out["arg0"], keep)
    np.testing.assert_array_equal(x, keep)


def test_outputs_do_not_mutate_the_callers_array() -> None:
    given = np.zeros((4, 8), np.int32)
    simulate(ALIASING, "same_address", {"arg0": np.ones((4, 8), np.float32), "arg1": given})
    assert not given.any()


def _bf16_args() -> dict[str, np.ndarray]:
    return {"arg0": RNG.standard_normal((16, 32)).astype(np.float32),
            "arg1": RNG.standard_normal((32, 16)).astype(np.float32),
            "arg2": np.zeros((16, 16), np.float32)}


def test_accumulating_into_uninitialised_f32_acc_drains_nan() -> None:
    out = simulate(POISON, "f32_acc", _bf16_args())
    assert np.isnan(out["arg2"]).all()


def test_accumulating_into_uninitialised_i32_acc_drains_the_garbage_pattern() -> None:
    zeros = np.zeros((16, 512), np.int8)
    out = simulate(POISON, "i32_acc", {"arg0": zeros, "arg1": zeros.T.copy(),
                                       "arg2": np.zeros((16, 16), np.int32)})
    assert (out["arg2"] == POISON_WORD).all()


def test_i32_accumulation_wraps_like_hardware() -> None:
    ones = np.full((16, 512), 127, np.int8)
    out = simulate(POISON, "i32_acc", {"arg0": ones, "arg1": ones.T.copy(),
                                       "arg2": np.zeros((16, 16), np.int32)})
    wrapped = (POISON_WORD + 127 * 127 * 512 + 2**31) % 2**32 - 2**31
    assert wrapped < 0 and (out["arg2"] == wrapped).all()


def test_never_loaded_bf16_vec_tile_stores_nan() -> None:
    out = simulate(POISON, "bf16_vec", {"arg0": np.zeros((8, 8), np.float32)})
    assert np.isnan(out["arg0"]).all()
    assert (out["arg0"].view(np.uint32) >> 16 == 0x7FC0).all()


def test_strict_undef_rejects_a_read_of_never_written_l0c() -> None:
    with pytest.raises(SimError) as error:
        simulate(POISON, "f32_acc", _bf16_args(), strict_undef=True)
    assert error.value.rule == "PV202" and "reads undefined L0C" in error.value.message
    lines = [n for n, line in enumerate(POISON_TEXT.splitlines(), 1) if "// expect: undefined" in line]
    assert error.value.line == lines[0]


def test_strict_undef_sees_rows_outside_the_written_valid_region() -> None:
    with pytest.raises(SimError) as error:
        simulate(POISON, "half_written", {"arg0": np.zeros((32, 16), np.float32)}, strict_undef=True)
    lines = [n for n, line in enumerate(POISON_TEXT.splitlines(), 1) if "// expect: undefined" in line]
    assert error.value.rule == "PV202" and error.value.line == lines[1]


def test_strict_undef_accepts_an_initialised_chain() -> None:
    text = (FIXTURES / "kloop_i8.pto").read_text()
    x = RNG.integers(-128, 128, (16, 1024)).astype(np.int8)
    w = RNG.integers(-128, 128, (1024, 32)).astype(np.int8)
    out = simulate(text, "main", {"arg0": x, "arg1": w, "arg2": np.zeros((16, 32), np.int32)},
                   strict_undef=True)
    np.testing.assert_array_equal(out["arg2"], x.astype(np.int32) @ w.astype(np.int32))


def test_expected_line_helper_finds_the_marker() -> None:
    assert expected_line("a\n// expect: PV202 here\n") == 2
