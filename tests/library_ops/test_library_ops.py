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
    assert [(k.name, k.verdict) for k in checked.kernels] == [("unpack_rotate", "verified"),
                                                             ("unpack_inline", "verified")], checked.findings


def test_an_operand_computed_inline_is_traced():
    """`pl.matmul(pl.cast(x, ...), w)`: the source's inline cast and the lowering's hoisted one are one
    opaque root (named by the call's position), so PV105 compares real blocks, not step indices."""
    from pypto_verify.frontend import read_file
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower
    from pypto_verify.smt import sites

    source = read_file(KERNELS / "unsigned_codes.py").module
    lowered = lower(source, LowerOptions(mode="fixed")).module
    for module in (source, lowered):
        (site,) = [s for s in sites.extract_sites(module) if s.function == "unpack_inline"]
        (mad,) = site.mads
        assert mad.lhs is not None and mad.lhs.root.startswith("cast@"), mad.lhs
