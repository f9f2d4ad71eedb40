"""The public API: argument binding, target selection, returned arrays, error values."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import Module, SimError, parse_pto, simulate
from sim_kernels import FIXTURES

KLOOP = (FIXTURES / "kloop_bf16.pto").read_text()


def _args(k: int = 256) -> dict[str, object]:
    return {"arg0": np.ones((16, k), np.float32), "arg1": np.ones((k, 64), np.float32),
            "arg2": np.zeros((16, 64), np.float32), "arg3": k}


def test_simulate_accepts_text_or_a_parsed_module() -> None:
    module = parse_pto(KLOOP)
    assert isinstance(module, Module)
    from_text = simulate(KLOOP, "main", _args())
    from_module = simulate(module, "main", _args())
    np.testing.assert_array_equal(from_text["arg2"], from_module["arg2"])
    assert (from_text["arg2"] == 256).all()


def test_simulate_returns_every_tensor_argument_in_its_callers_shape() -> None:
    out = simulate(KLOOP, "main", _args())
    assert sorted(out) == ["arg0", "arg1", "arg2"]
    assert out["arg0"].shape == (16, 256) and out["arg0"].dtype == np.float32


def test_bf16_tensor_may_be_given_as_bit_patterns() -> None:
    args = _args()
    args["arg0"] = np.full((16, 256), 0x3F80, np.uint16)  # 1.0 in bf16
    assert (simulate(KLOOP, "main", args)["arg2"] == 256).all()


def test_missing_argument_is_an_error() -> None:
    args = _args()
    del args["arg3"]
    with pytest.raises(SimError, match="missing argument arg3") as error:
        simulate(KLOOP, "main", args)
    assert error.value.rule == ""


def test_unknown_argument_and_function_are_errors() -> None:
    with pytest.raises(SimError, match="no argument arg9"):
        simulate(KLOOP, "main", {**_args(), "arg9": 1})
    with pytest.raises(SimError, match="no function @other"):
        simulate(KLOOP, "other", _args())


def test_scalar_argument_must_be_an_int() -> None:
    with pytest.raises(SimError, match="must be an int"):
        simulate(KLOOP, "main", {**_args(), "arg3": 256.0})


def test_gm_view_larger_than_the_array_is_rejected() -> None:
    args = _args()
    args["arg1"] = np.ones((128, 64), np.float32)
    with pytest.raises(SimError) as error:
        simulate(KLOOP, "main", args)
    assert error.value.rule == "PV202" and "exceeds %arg1" in error.value.message


def test_target_defaults_to_the_modules_target_arch() -> None:
    text = (FIXTURES / "rejected" / "tmov_acc_to_vec_on_a2a3.pto").read_text()
    with pytest.raises(SimError):
        simulate(text, "main", {})
    assert simulate(text.replace('"a2a3"', '"a5"'), "main", {}) == {}
