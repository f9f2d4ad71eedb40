"""Property: random Form 1 kernels (rebinding in loops and ifs) never crash the frontend, and when
they read cleanly they are in SSA form and round-trip through the printer."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pypto_verify import ir
from pypto_verify.frontend import read_source
from pypto_verify.printer import print_module

HEADER = ("import pypto.language as pl\n\nT, K, TK = 16, 512, 128\n\n\n@pl.jit\n"
          "def k(x: pl.Tensor[[T, K], pl.BF16], w: pl.Tensor[[K, T], pl.BF16], n: pl.Scalar[pl.INDEX],\n"
          "      y: pl.Out[pl.Tensor[[T, T], pl.FP32]]):\n"
          "    acc = pl.create_tensor([T, T], dtype=pl.FP32)\n    s = 0\n")
NAMES = ["acc", "s", "t", "y"]


def _assign(name: str, depth: int) -> str:
    pad = "    " * depth
    return {
        "acc": f"{pad}acc = pl.matmul_acc(acc, x[:, 0:TK], w[0:TK, :])\n",
        "s": f"{pad}s = s + 1\n",
        "t": f"{pad}t = pl.matmul(x[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)\n",
        "y": f"{pad}y[:, :] = acc\n",
    }[name]


@st.composite
def bodies(draw, depth: int = 1, budget: int = 3) -> str:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["assign", "assign", "for", "if"] if budget > 0 else ["assign"]))
        pad = "    " * depth
        if kind == "assign":
            out.append(_assign(draw(st.sampled_from(NAMES)), depth))
        elif kind == "for":
            loop = draw(st.sampled_from(["pl.range(4)", "pl.pipeline(1, 4, stage=2)", "pl.unroll(2)", "pl.parallel(2)"]))
            var = draw(st.sampled_from(["i", "j", "kb"]))
            out.append(f"{pad}for {var} in {loop}:\n" + draw(bodies(depth + 1, budget - 1)))
        else:
            cond = draw(st.sampled_from(["n == 0", "s > 2", "(n == 0) and (s != 1)"]))
            text = f"{pad}if {cond}:\n" + draw(bodies(depth + 1, budget - 1))
            if draw(st.booleans()):
                text += f"{pad}else:\n" + draw(bodies(depth + 1, budget - 1))
            out.append(text)
    return "".join(out)


def _defined_once(fn: ir.Function) -> bool:
    seen = [p.name for p in fn.params]
    for stmt in ir.walk_stmts(fn.body):
        if isinstance(stmt, ir.Assign) and stmt.target.name == "y":
            continue  # a GM tensor keeps its name (docs/ir-conventions.md)
        seen.extend(ir.defined_names(stmt))
    return len(seen) == len(set(seen))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies())
def test_random_form1_kernels_read_into_ssa_and_round_trip(body):
    text = HEADER + body + "    y[:, :] = acc\n    return y\n"
    result = read_source(text, "random.py")
    if result.errors:
        assert len(result.errors) == 1 and str(result.errors[0]).startswith("random.py:")
        return
    (fn,) = [fn for _, fn in result.module.functions()]
    assert _defined_once(fn)
    printed = print_module(result.module)
    again = read_source(printed, "random.py")
    assert again.errors == () and again.module.programs == result.module.programs
