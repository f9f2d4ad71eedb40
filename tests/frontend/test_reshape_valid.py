"""The valid region a reshape gives a partly valid value (`frontend/shapes.py`, PyPTO's
`ComputeReshapeValidShape`): kept axis for axis when only unit dimensions are added or dropped, empty when it
was empty, a vector's prefix kept; any other reshape of a padded value is not followed (not a guess)."""

from __future__ import annotations

import textwrap

from pypto_verify.frontend import read_source
from pypto_verify.frontend.shapes import Shapes, expr_text
from pypto_verify.ir import Var

KERNEL = """
import pypto.language as pl


@pl.jit
def rows(x: pl.Tensor[[1, 1, 32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
        t = pl.slice(x, [1, 1, 32, 64], [0, 0, 0, 0], valid_shape=[1, 1, n, 64])
        dropped = pl.reshape(t, [32, 64])
        added = pl.reshape(dropped, [32, 1, 64])
        none = pl.reshape(pl.slice(x, [1, 1, 32, 64], [0, 0, 0, 0], valid_shape=[1, 1, 0, 64]), [64, 32])
        head = pl.reshape(pl.slice(x, [1, 1, 32, 64], [0, 0, 0, 0], valid_shape=[1, 1, 8, 64]), [64, 32])
        split = pl.reshape(dropped, [64, 32])
        y = pl.assemble(y, dropped, [0, 0])
    return y
"""


def _valid(name: str) -> tuple[bool, list[str] | None]:
    parsed = read_source(textwrap.dedent(KERNEL), "rows.py")
    (fn,) = [f for _, f in parsed.module.functions()]
    shape = Shapes(fn).of(Var(name))
    assert shape is not None and shape.exact
    return shape.valid_known, None if shape.valid is None else [expr_text(d) for d in shape.valid]


def test_unit_dimensions_dropped_or_added_keep_the_rows():
    assert _valid("dropped") == (True, ["n", "64"])
    assert _valid("added") == (True, ["n", "1", "64"])


def test_an_empty_region_stays_empty():
    assert _valid("none") == (True, ["0", "0"])


def test_a_reshape_that_repartitions_a_padded_value_is_not_followed():
    # pypto maps a literal flat prefix ([8, 64] -> [16, 32]) or rejects a run-time one: neither is guessed here
    assert _valid("head") == (False, None)
    assert _valid("split") == (False, None)
