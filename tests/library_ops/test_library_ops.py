"""The ops and dtypes pypto-lib kernels use (issue 13): each kernel of `kernels/` is checked whole."""

from __future__ import annotations

from pathlib import Path

from pypto_verify.run import Options, run

KERNELS = Path(__file__).parent / "kernels"


def _check(name: str):
    result = run([str(KERNELS / name)], Options(cache=False, jobs=1, sim=False))
    (checked,) = result.files
    return checked


def test_an_unsigned_dtype_is_modelled():
    """`pl.UINT8` codes cast on the vector unit feed a matmul: the chain is traced and verified (before,
    the dtype was left open, the matmul operand had no type: PV000)."""
    checked = _check("unsigned_codes.py")
    assert [(k.name, k.verdict) for k in checked.kernels] == [("unpack_rotate", "verified")], checked.findings
