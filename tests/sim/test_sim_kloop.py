"""Full K-loop matmuls (scf.for + scf.if on `ko == 0`) against numpy, and the real compiler output."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import parse_pto, simulate
from sim_kernels import FIXTURES, REAL_IR, bf16

RNG = np.random.default_rng(1234)


@pytest.mark.parametrize("k", [256, 512, 1024])
def test_bf16_k_loop_matches_numpy(k: int) -> None:
    text = (FIXTURES / "kloop_bf16.pto").read_text()
    x = RNG.standard_normal((16, k)).astype(np.float32)
    w = RNG.standard_normal((k, 64)).astype(np.float32)
    out = simulate(text, "main", {"arg0": x, "arg1": w, "arg2": np.zeros((16, 64), np.float32),
                                  "arg3": k})
    reference = bf16(x).astype(np.float64) @ bf16(w).astype(np.float64)
    np.testing.assert_allclose(out["arg2"], reference, rtol=1e-4, atol=1e-4)


def test_i8_k_loop_matches_numpy_exactly() -> None:
    text = (FIXTURES / "kloop_i8.pto").read_text()
    x = RNG.integers(-128, 128, (16, 1024)).astype(np.int8)
    w = RNG.integers(-128, 128, (1024, 32)).astype(np.int8)
    out = simulate(text, "main", {"arg0": x, "arg1": w, "arg2": np.zeros((16, 32), np.int32)})
    np.testing.assert_array_equal(out["arg2"], x.astype(np.int64) @ w.astype(np.int64))


def _tensor_shapes(path) -> list[tuple[int, ...]]:
    """The shapes of the function's tensor arguments, read from its make_tensor_view ops."""
    module = parse_pto(path.read_text())
    func = module.functions[0]
    constants = {op.results[0]: op.attr("value") for op in func.body if op.name == "arith.constant"}
    views = {op.operands[0]: tuple(constants[d] for d in op.group("shape"))
             for op in func.body if op.name == "pto.make_tensor_view"}
    return [views[arg.name] for arg in func.args]


REAL_CASES = {"auto_tiled": 1, "hand_peel": 1, "two_accumulators": 2}


@pytest.mark.skipif(not REAL_IR.is_dir(), reason="../shared/real-ir is not present")
@pytest.mark.parametrize("case", sorted(REAL_CASES))
def test_real_compiler_kernel_simulates_to_the_matmul(case: str) -> None:
    path = REAL_IR / case / "main.pto"
    shapes = _tensor_shapes(path)
    outputs = REAL_CASES[case]
    inputs = [RNG.standard_normal(shape).astype(np.float32) for shape in shapes[:-outputs]]
    args = {f"arg{i}": array for i, array in enumerate(inputs)}
    args.update({f"arg{len(inputs) + j}": np.zeros(shape, np.float32)
                 for j, shape in enumerate(shapes[-outputs:])})
    out = simulate(path.read_text(), "main", args)
    dtypes = [arg.type.dtype for arg in parse_pto(path.read_text()).functions[0].args]
    rounded = [bf16(a) if dtype == "bf16" else a for a, dtype in zip(inputs, dtypes)]
    x = rounded[0].astype(np.float64)
    for j in range(outputs):
        reference = x @ rounded[1 + j].astype(np.float64)
        np.testing.assert_allclose(out[f"arg{len(inputs) + j}"], reference, rtol=1e-4, atol=1e-3)
