"""`check` on printer forms of a Form 3 dump (docs/form3-grammar.md): a form that only changes the
layout of the text verifies as the plain dump does; a construct that is read but not modelled is a PV000
at its line, never a pass. The kernel is tests/fixtures/form3/shape_f_predicated.py (verifies clean)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from pypto_verify.cli import main

SHAPE_F = Path(__file__).parent.parent / "fixtures" / "form3" / "shape_f_predicated.py"
LOOP = "        for ko, (c_iter,) in pl.range(0, 512, 256, init_values=(c_init,)):\n"
STORE = "        out__ssa_v1: pl.Tensor"


def check(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "dump.py"
    path.write_text(text)
    result = CliRunner().invoke(main, ["check", "--jobs", "1", "--no-sim", "--no-cache", "--color", "never",
                                       str(path)], catch_exceptions=False)
    return result.exit_code, result.output


def _loop_body_in_runtime_scope(text: str) -> str:
    """The K loop's whole body inside `with pl.scope():`, its yield last inside it, as PyPTO prints a
    body MaterializeRuntimeScopes wrapped."""
    head, rest = text.split(LOOP)
    body, tail = rest.split(STORE, 1)
    scoped = "".join("    " + line + "\n" for line in body.rstrip("\n").split("\n"))
    return f"{head}{LOOP}            with pl.scope():\n{scoped}{STORE}{tail}"


def test_loop_body_in_a_runtime_scope_verifies_as_the_plain_dump(tmp_path):
    plain = SHAPE_F.read_text()
    scoped = _loop_body_in_runtime_scope(plain)
    assert "            with pl.scope():\n                sa: " in scoped
    assert "                c: pl.Tile" in scoped
    assert check(tmp_path, plain)[0] == 0
    code, output = check(tmp_path, scoped)
    assert code == 0, output
    assert "1 kernel (1 verified" in output and "2 idiom sites (2 verified)" in output


def test_while_loop_with_an_out_of_bounds_store_is_not_a_pass(tmp_path):
    """The loop was skipped with a warning `check` does not show, so the kernel verified."""
    loop = ("        for (k,) in pl.while_(init_values=(0,)):\n"
            "            pl.cond(k < 4)\n"
            '            out__ssa_v2: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)]'
            " = pl.tile.store(a_mat__ssa_v0, [4096, 0], out__ssa_v0)\n"
            "            k2: pl.Scalar[pl.INDEX] = pl.yield_(k + 1)\n")
    text = SHAPE_F.read_text().replace(STORE, loop + STORE, 1)
    line = text[:text.index(loop)].count("\n") + 1
    code, output = check(tmp_path, text)
    assert code == 2, output
    assert (f"dump.py:{line}:9: PV000 input-error: `pl.while_` loop inside kernel `main`; not modelled: it runs "
            "`pl.tile.store`") in output
    assert "1 verified" not in output


def test_explicit_layout_dump_verifies_as_the_plain_dump(tmp_path):
    """`PassDumpLevel.EXPLICIT` prints every tile's full view (blayout, slayout, fractal)."""
    full = "pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box, fractal=512)"
    text = SHAPE_F.read_text().replace("pl.TileView(blayout=pl.TileLayout.row_major)", full)
    text = re.sub(r"(pl\.Mem\.(Mat|Acc|Right))\]", rf"\1, {full}]", text)
    assert text.count("fractal=512") == 10
    code, output = check(tmp_path, text)
    assert code == 0, output
    assert "1 kernel (1 verified" in output and "2 idiom sites (2 verified)" in output
