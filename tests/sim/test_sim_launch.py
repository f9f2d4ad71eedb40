"""Launches (docs/pto-subset.md "Launches"): `pto.block_dim = N` runs its N instances in turn, last to first,
over one GM, each on fresh arenas, `pto.get_block_idx` / `pto.get_block_num` reading the running instance."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import CONSTANTS, alloc, load, pview, store, view

RNG = np.random.default_rng(20261205)


def _launch(body: str, block_dim: str | None, out: str = "f32") -> str:
    attribute = "" if block_dim is None else f", pto.block_dim = {block_dim}"
    return ('module attributes {pto.target_arch = "a2a3"} {\n'
            f"  func.func @main(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<{out}>) attributes "
            f"{{pto.kernel_kind = #pto.kernel_kind<vector>{attribute}}} {{\n"
            f"{CONSTANTS}\n{body}\n    return\n  }}\n}}\n")


def _row_band(row_of_block: str = "%r0 = arith.muli %b, %c4 : index") -> str:
    """Instance b copies rows [4b, 4b + 4) of x (16 x 8) into y, times 2."""
    return "\n".join([
        view("x", "arg0", 16, 8, "f32"), view("y", "arg1", 16, 8, "f32"),
        "    %blk = pto.get_block_idx",
        "    %b = arith.index_cast %blk : i64 to index",
        f"    {row_of_block}",
        f"    %xw = pto.partition_view %x_v, offsets = [%r0, %c0], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}",
        f"    %yw = pto.partition_view %y_v, offsets = [%r0, %c0], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}",
        load("xw", "t", "vec", "f32", 4, 8),
        "    %two = arith.constant 2.0 : f32",
        "    pto.tmuls ins(%t, %two : !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=?, v_col=?, "
        "blayout=row_major, slayout=row_major, fractal=512, pad=0>, f32) outs(%t : !pto.tile_buf<loc=vec, "
        "dtype=f32, rows=4, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=row_major, fractal=512, pad=0>)",
        store("t", "vec", "f32", 4, 8, "yw"),
    ])


def _inputs() -> dict[str, np.ndarray]:
    return {"arg0": RNG.standard_normal((16, 8)).astype(np.float32), "arg1": np.full((16, 8), -7, np.float32)}


def test_every_instance_of_a_launch_runs_over_one_gm() -> None:
    args = _inputs()
    out = simulate(_launch(_row_band(), "4"), "main", args)["arg1"]
    np.testing.assert_array_equal(out, 2 * args["arg0"])


def test_a_launch_of_fewer_blocks_leaves_the_last_band_unwritten() -> None:
    args = _inputs()
    out = simulate(_launch(_row_band(), "3"), "main", args)["arg1"]
    np.testing.assert_array_equal(out[:12], 2 * args["arg0"][:12])
    assert (out[12:] == -7).all()


def test_a_function_without_block_dim_is_one_instance_of_index_zero() -> None:
    args = _inputs()
    out = simulate(_launch(_row_band(), None), "main", args)["arg1"]
    np.testing.assert_array_equal(out[:4], 2 * args["arg0"][:4])
    assert (out[4:] == -7).all()


def test_instances_run_last_to_first() -> None:
    # every instance writes its own index into row 0 of y: instance 0, run last, is what remains
    i32 = "!pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, " \
          "slayout=row_major, fractal=512, pad=0>"
    body = "\n".join([
        view("y", "arg1", 16, 8, "i32"),
        "    %blk = pto.get_block_idx",
        "    %b = arith.index_cast %blk : i64 to index",
        alloc("t", "vec", "i32", 1, 8),
        f"    pto.texpands ins(%b : index) outs(%t : {i32})",
        f"    %yw = pto.partition_view %y_v, offsets = [%c0, %c0], sizes = [%c1, %c8] : "
        f"!pto.tensor_view<?x?xi32> -> {pview(1, 8, 'i32')}",
        store("t", "vec", "i32", 1, 8, "yw"),
    ])
    args = {"arg0": np.zeros((16, 8), np.float32), "arg1": np.full((16, 8), -7, np.int32)}
    out = simulate(_launch(body, "3", out="i32"), "main", args)["arg1"]
    assert (out[0] == 0).all() and (out[1:] == -7).all()


def test_get_block_num_reads_the_launch_size() -> None:
    body = "\n".join([
        view("x", "arg0", 16, 8, "f32"), view("y", "arg1", 16, 8, "f32"),
        "    %n64 = pto.get_block_num",
        "    %n = arith.index_cast %n64 : i64 to index",
        f"    %yw = pto.partition_view %y_v, offsets = [%n, %c0], sizes = [%c1, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(1, 8, 'f32')}",
        alloc("t", "vec", "f32", 1, 8),
        "    %one = arith.constant 1.0 : f32",
        "    pto.texpands ins(%one : f32) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, "
        "v_col=?, blayout=row_major, slayout=row_major, fractal=512, pad=0>)",
        store("t", "vec", "f32", 1, 8, "yw"),
    ])
    out = simulate(_launch(body, "5"), "main", _inputs())["arg1"]
    assert (out[5] == 1).all() and (np.delete(out, 5, axis=0) == -7).all()


def test_each_instance_starts_on_poisoned_arenas() -> None:
    # instance 1 (run first) fills the tile; both store it: instance 0's band holds the poison (NaN), not
    # instance 1's fill, as on a core of its own
    body = "\n".join([
        view("x", "arg0", 16, 8, "f32"), view("y", "arg1", 16, 8, "f32"),
        "    %blk = pto.get_block_idx",
        "    %b = arith.index_cast %blk : i64 to index",
        "    %second = arith.cmpi eq, %b, %c1 : index",
        alloc("t", "vec", "f32", 1, 8),
        "    %one = arith.constant 1.0 : f32",
        "    scf.if %second {",
        "    pto.texpands ins(%one : f32) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, "
        "v_col=?, blayout=row_major, slayout=row_major, fractal=512, pad=0>)",
        "    }",
        f"    %yw = pto.partition_view %y_v, offsets = [%b, %c0], sizes = [%c1, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(1, 8, 'f32')}",
        store("t", "vec", "f32", 1, 8, "yw"),
    ])
    out = simulate(_launch(body, "2"), "main", _inputs())["arg1"]
    assert (out[1] == 1).all() and np.isnan(out[0]).all()


@pytest.mark.parametrize("value", ["0", "-2", "true"])
def test_a_block_dim_that_is_not_a_positive_integer_is_rejected(value: str) -> None:
    with pytest.raises(SimError, match="pto.block_dim"):
        simulate(_launch(_row_band(), value), "main", _inputs())


def test_index_cast_converts_between_integer_types_only() -> None:
    body = "\n".join([view("x", "arg0", 16, 8, "f32"), view("y", "arg1", 16, 8, "f32"),
                      "    %h = arith.constant 0.5 : f32", "    %i = arith.index_cast %h : f32 to index"])
    with pytest.raises(SimError, match="arith.index_cast from f32 to index") as error:
        simulate(_launch(body, None), "main", _inputs())
    assert error.value.rule == "PV202"


def _rotate(barrier: str) -> str:
    """Instance b stores x's band b (rows 4b..4b+3, times 2) into scratch z, waits at *barrier*, then copies z's
    band b + 1 (mod 4) into y's band b."""
    t = "!pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=?, v_col=?, blayout=row_major, " \
        "slayout=row_major, fractal=512, pad=0>"
    return "\n".join([
        view("x", "arg0", 16, 8, "f32"), view("y", "arg1", 16, 8, "f32"), view("z", "arg2", 16, 8, "f32"),
        "    %blk = pto.get_block_idx",
        "    %b = arith.index_cast %blk : i64 to index",
        "    %r0 = arith.muli %b, %c4 : index",
        f"    %xw = pto.partition_view %x_v, offsets = [%r0, %c0], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}",
        f"    %zw = pto.partition_view %z_v, offsets = [%r0, %c0], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}",
        load("xw", "t", "vec", "f32", 4, 8),
        "    %two = arith.constant 2.0 : f32",
        f"    pto.tmuls ins(%t, %two : {t}, f32) outs(%t : {t})",
        store("t", "vec", "f32", 4, 8, "zw"),
        barrier,
        "    %b1 = arith.addi %b, %c1 : index",
        "    %nb = arith.remsi %b1, %c4 : index",
        "    %n0 = arith.muli %nb, %c4 : index",
        f"    %zn = pto.partition_view %z_v, offsets = [%n0, %c0], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}",
        f"    %yw = pto.partition_view %y_v, offsets = [%r0, %c0], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}",
        f"    pto.tload ins(%zn : {pview(4, 8, 'f32')}) outs(%t : {t})",
        store("t", "vec", "f32", 4, 8, "yw"),
    ])


def _rotate_args() -> dict[str, np.ndarray]:
    return {**_inputs(), "arg2": np.zeros((16, 8), np.float32)}


def _three_args(text: str) -> str:
    return text.replace("%arg1: !pto.ptr<f32>)", "%arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f32>)")


SYNCALL = "    pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>"


def test_every_instance_reaches_a_syncall_before_any_goes_on() -> None:
    args = _rotate_args()
    out = simulate(_three_args(_launch(_rotate(SYNCALL), "4")), "main", args)["arg1"]
    np.testing.assert_array_equal(out, 2 * np.roll(args["arg0"], -4, axis=0))


def test_without_the_syncall_an_instance_reads_a_band_not_yet_written() -> None:
    args = _rotate_args()
    out = simulate(_three_args(_launch(_rotate(""), "4")), "main", args)["arg1"]
    # last to first: instance 3 reads band 0 before instance 0 wrote it
    assert (out[12:] == 0).all()


def test_an_instance_resumes_its_own_scalars_and_tiles_after_a_syncall() -> None:
    # the tile %t and the scalar %b are each instance's own across the barrier: reloading nothing, y's band b
    # is instance b's own scaled band
    body = _rotate(SYNCALL).replace(f"    pto.tload ins(%zn : {pview(4, 8, 'f32')}) outs(%t : "
                                    "!pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=?, v_col=?, "
                                    "blayout=row_major, slayout=row_major, fractal=512, pad=0>)", "")
    args = _rotate_args()
    out = simulate(_three_args(_launch(body, "4")), "main", args)["arg1"]
    np.testing.assert_array_equal(out, 2 * args["arg0"])


def test_a_syncall_inside_a_loop_is_over_the_simulators_limit() -> None:
    from pypto_verify.sim.errors import LIMIT

    body = _rotate(f"    scf.for %i = %c0 to %c1 step %c1 {{\n{SYNCALL}\n    }}")
    with pytest.raises(SimError, match="only at the launch's top level") as error:
        simulate(_three_args(_launch(body, "4")), "main", _rotate_args())
    assert error.value.rule == LIMIT


# --- `pto.launch`: a step of an orchestration launching the kernel its region is ---------------------------------


def _step(body: str, count: str = "%c4") -> str:
    """*body* (a launch's text that reads x and y through views made before it) as a `pto.launch %count` step."""
    views = view("x", "arg0", 16, 8, "f32") + "\n" + view("y", "arg1", 16, 8, "f32")
    inner = "\n".join(line for line in body.splitlines() if "make_tensor_view" not in line)
    return f"{views}\n    pto.launch {count} {{\n{inner}\n    }}"


def test_a_launch_step_runs_every_instance_of_its_region_over_one_gm() -> None:
    args = _inputs()
    out = simulate(_launch(_step(_row_band()), None), "main", args)["arg1"]
    np.testing.assert_array_equal(out, 2 * args["arg0"])


def test_a_launch_step_takes_its_instance_count_at_run_time() -> None:
    text = _launch(_step(_row_band(), "%arg2"), None).replace(
        "%arg1: !pto.ptr<f32>)", "%arg1: !pto.ptr<f32>, %arg2: index)")
    args = _inputs()
    out = simulate(text, "main", {**args, "arg2": 3})["arg1"]
    np.testing.assert_array_equal(out[:12], 2 * args["arg0"][:12])
    assert (out[12:] == -7).all()


def test_two_launch_steps_run_one_after_the_other() -> None:
    # the second step doubles what the first wrote: y = 4 x
    second = _row_band().replace("%xw = pto.partition_view %x_v", "%xw = pto.partition_view %y_v").replace(
        "%blk ", "%blk2 ").replace("%blk :", "%blk2 :").replace("%b =", "%bb =").replace("%b,", "%bb,")
    second = second.replace("%xw", "%xw2").replace("%yw", "%yw2").replace("%t ", "%t2 ").replace("%t,", "%t2,") \
        .replace("%t :", "%t2 :").replace("%two", "%two2").replace("%r0", "%s0")
    text = _launch(_step(_row_band()) + "\n    pto.launch %c4 {\n" + second + "\n    }", None)
    args = _inputs()
    out = simulate(text, "main", args)["arg1"]
    np.testing.assert_array_equal(out, 4 * args["arg0"])


def test_a_launch_steps_instances_run_last_to_first_unless_asked_in_order() -> None:
    # every instance writes its own index into row 0 of y: the one run last is what remains
    i32 = "!pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, " \
          "slayout=row_major, fractal=512, pad=0>"
    body = "\n".join([
        view("y", "arg1", 16, 8, "i32"),
        "    pto.launch %c3 {",
        "    %blk = pto.get_block_idx",
        "    %b = arith.index_cast %blk : i64 to index",
        alloc("t", "vec", "i32", 1, 8),
        f"    pto.texpands ins(%b : index) outs(%t : {i32})",
        f"    %yw = pto.partition_view %y_v, offsets = [%c0, %c0], sizes = [%c1, %c8] : "
        f"!pto.tensor_view<?x?xi32> -> {pview(1, 8, 'i32')}",
        store("t", "vec", "i32", 1, 8, "yw"),
        "    }",
    ])
    args = {"arg0": np.zeros((16, 8), np.float32), "arg1": np.full((16, 8), -7, np.int32)}
    assert (simulate(_launch(body, None, out="i32"), "main", args)["arg1"][0] == 0).all()
    assert (simulate(_launch(body, None, out="i32"), "main", args, blocks_in_order=True)["arg1"][0] == 2).all()


def test_a_launch_step_cannot_read_a_tile_of_the_orchestration() -> None:
    body = "\n".join([
        view("x", "arg0", 16, 8, "f32"), view("y", "arg1", 16, 8, "f32"),
        f"    %xw = pto.partition_view %x_v, offsets = [%c0, %c0], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}",
        load("xw", "t", "vec", "f32", 4, 8),
        "    pto.launch %c2 {",
        f"    %yw = pto.partition_view %y_v, offsets = [%c0, %c0], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}",
        store("t", "vec", "f32", 4, 8, "yw"),
        "    }",
    ])
    with pytest.raises(SimError, match="tile %t is defined outside the pto.launch") as error:
        simulate(_launch(body, None), "main", _inputs())
    assert error.value.rule == "PV202"


@pytest.mark.parametrize("block_dim, nested", [("2", False), (None, True)])
def test_a_launch_step_inside_a_launch_is_rejected(block_dim: str | None, nested: bool) -> None:
    step = _step(_row_band())
    if nested:
        step = step.replace("pto.launch %c4 {", "pto.launch %c1 {\n    pto.launch %c4 {") + "\n    }"
    with pytest.raises(SimError, match="a pto.launch inside a launch") as error:
        simulate(_launch(step, block_dim), "main", _inputs())
    assert error.value.rule == "PV202"


def test_a_syncall_at_the_top_of_a_launch_step_is_a_barrier_of_its_instances() -> None:
    args = _rotate_args()
    views = "\n".join(line for line in _rotate(SYNCALL).splitlines() if "make_tensor_view" in line)
    inner = "\n".join(line for line in _rotate(SYNCALL).splitlines() if "make_tensor_view" not in line)
    text = _three_args(_launch(f"{views}\n    pto.launch %c4 {{\n{inner}\n    }}", None))
    np.testing.assert_array_equal(simulate(text, "main", args)["arg1"], 2 * np.roll(args["arg0"], -4, axis=0))
    unsynced = text.replace(SYNCALL, "")
    assert (simulate(unsynced, "main", _rotate_args())["arg1"][12:] == 0).all()
