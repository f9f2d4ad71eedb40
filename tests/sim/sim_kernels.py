"""Helpers that write small hand-made PTO-AS kernels for the simulator tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pypto_verify.sim.dtypes import narrow, widen

FIXTURES = Path(__file__).parent / "fixtures"
REAL_IR = Path(__file__).resolve().parents[3] / "shared" / "real-ir"


def tile(loc: str, dtype: str, rows: int, cols: int) -> str:
    """A `!pto.tile_buf` type as the compiler prints it."""
    return (f"!pto.tile_buf<loc={loc}, dtype={dtype}, rows={rows}, cols={cols}, v_row=?, v_col=?, "
            "blayout=row_major, slayout=row_major, fractal=512, pad=0>")


def pview(rows: int, cols: int, dtype: str) -> str:
    """A `!pto.partition_tensor_view` type."""
    return f"!pto.partition_tensor_view<{rows}x{cols}x{dtype}>"


CONSTANTS = "\n".join(
    [f"    %c{n} = arith.constant {n} : index" for n in (0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64)]
    + [f"    %a{n} = arith.constant {n} : i64" for n in (0, 4, 16, 64, 256, 1024, 4096, 8192, 16384)])


def module(args: str, body: str, target: str = "a2a3") -> str:
    """A module holding `@main(args)` whose body is the standard constants then *body*."""
    return (f'module attributes {{pto.target_arch = "{target}"}} {{\n'
            f"  func.func @main({args}) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{\n"
            f"{CONSTANTS}\n{body}\n    return\n  }}\n}}\n")


def view(name: str, arg: str, rows: int, cols: int, dtype: str) -> str:
    """`%name_v`: a row-major tensor view of *arg*, and `%name`: its full partition."""
    return (f"    %{name}_v = pto.make_tensor_view %{arg}, shape = [%c{rows}, %c{cols}], "
            f"strides = [%c{cols}, %c1] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?x{dtype}>\n"
            f"    %{name} = pto.partition_view %{name}_v, offsets = [%c0, %c0], "
            f"sizes = [%c{rows}, %c{cols}] : !pto.tensor_view<?x?x{dtype}> -> "
            f"{pview(rows, cols, dtype)}")


def load(window: str, target: str, loc: str, dtype: str, rows: int, cols: int,
         addr: str = "%a0") -> str:
    """Allocate `%target` in *loc* at *addr* and `pto.tload` the partition `%window` into it."""
    t = tile(loc, dtype, rows, cols)
    return (f"    %{target} = pto.alloc_tile addr = {addr} valid_row = %c{rows} valid_col = %c{cols} : {t}\n"
            f"    pto.tload ins(%{window} : {pview(rows, cols, dtype)}) outs(%{target} : {t})")


def alloc(target: str, loc: str, dtype: str, rows: int, cols: int, addr: str = "%a0") -> str:
    """`%target = pto.alloc_tile` in *loc* at *addr* (valid region = whole tile)."""
    return (f"    %{target} = pto.alloc_tile addr = {addr} valid_row = %c{rows} valid_col = %c{cols} : "
            f"{tile(loc, dtype, rows, cols)}")


def store(source: str, loc: str, dtype: str, rows: int, cols: int, window: str,
          view_dtype: str | None = None, atomic: bool = False) -> str:
    """`pto.tstore` of tile `%source` into the partition `%window`."""
    suffix = " {atomic = #pto.atomic<add>}" if atomic else ""
    return (f"    pto.tstore ins(%{source} : {tile(loc, dtype, rows, cols)}) "
            f"outs(%{window} : {pview(rows, cols, view_dtype or dtype)}){suffix}")


def bf16(values: np.ndarray) -> np.ndarray:
    """*values* rounded to bf16 and widened back to f32."""
    return widen(narrow(np.asarray(values, dtype=np.float32), "bf16"), "bf16")


def expected_line(text: str, marker: str = "// expect: PV202") -> int:
    """The 1-based line of *text* carrying *marker*."""
    for number, line in enumerate(text.splitlines(), start=1):
        if marker in line:
            return number
    raise AssertionError(f"no {marker!r} in the fixture")
