"""A call of a helper that is not a kernel and holds InCore scopes of its own (tensor-level ops only) is not spliced:
the simulation lowers a non-kernel callee only when it is one region as a whole, and the skip says why rather than
naming the call as an instruction outside the subset; a call that reaches another rank's window is spliced and read
by the multi-rank run; a function its module binds when imported is named with the binding."""

from __future__ import annotations

from stages import KERNELS, require_stages


def test_a_helper_with_scopes_of_its_own_that_is_not_a_kernel_is_named_as_not_lowered() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    work = lower_stage(read_stage(str(KERNELS / "untiled_helper.py")), Options())
    kernel = next(k for k in work.kernels if k.name == "bumped_scores")
    outcome = simulate_kernel(kernel.source, kernel.lowered, callees=file_callees(work, Options()))
    assert outcome.status == "skipped"
    assert "`_bump` is not lowered: it holds InCore scopes but no tile op and no matmul" in outcome.reason, \
        outcome.reason


def test_a_kernel_too_large_to_simulate_whose_call_is_spliced_at_no_size_is_not_shrunk() -> None:
    require_stages()
    from pypto_verify.run import Options, run

    (file,) = run([str(KERNELS / "untiled_helper.py")], Options(engine="clingo", cache=False, sim=True)).files
    kernel = next(k for k in file.kernels if k.name == "looked_up_rows")
    assert kernel.verdict == "verified" and kernel.sim == "skipped"
    # the emitter's reason at the real sizes, not `with VOCAB=2 (real 262144: trip counts only): ...`
    assert kernel.sim_reason.startswith("emit: the call `call._bump` is not spliced"), kernel.sim_reason


def test_a_call_reaching_another_ranks_window_through_an_orchestration_is_read_by_the_multi_rank_run() -> None:
    # `exchange` (no kernel) is spliced; the multi-rank run reads `push_rows`' op, whose peer is a parameter
    require_stages()
    from pypto_verify.run import Options, run

    (file,) = run([str(KERNELS / "rank_exchange.py")], Options(engine="clingo", cache=False, sim=True)).files
    kernel = next(k for k in file.kernels if k.name == "staged_exchange")
    assert kernel.verdict == "verified" and kernel.sim == "skipped"
    assert kernel.sim_reason == (
        "with VOCAB=2 (real 262144: trip counts only): the number of ranks is not known: the peer of "
        "`distributed.tile.remote_store` (line 25 of `push_rows`) is not the variable of a loop over the ranks"), \
        kernel.sim_reason


def test_an_imported_function_reaching_another_ranks_window_is_read_by_the_multi_rank_run() -> None:
    require_stages()
    from pypto_verify.run import Options, run

    (file,) = run([str(KERNELS / "rank_exchange_caller.py")], Options(engine="clingo", cache=False, sim=True)).files
    (kernel,) = file.kernels
    assert kernel.sim == "skipped"
    assert kernel.sim_reason == (
        "the number of ranks is not known: the peer of `distributed.tile.remote_store` (line 25 of `push_rows`) is "
        "not the variable of a loop over the ranks"), kernel.sim_reason


def test_a_function_its_module_binds_when_imported_is_named_with_the_binding() -> None:
    # as the mtp MoE tails' `moe` calls `hc_pre`, which `hc_pre.py` binds with `hc_pre = _bind_hc_pre()`
    require_stages()
    from pypto_verify.run import Options, run

    (file,) = run([str(KERNELS / "bound_caller.py")], Options(engine="clingo", cache=False, sim=True)).files
    (kernel,) = file.kernels
    assert kernel.verdict == "verified" and kernel.sim == "skipped"
    assert kernel.sim_reason == (
        "emit: the call `extern.double_rows` is not spliced: `double_rows` is not a function read from "
        "`bound_helper.py`: the module binds it when imported (`double_rows = _bind_double()`), a call the static "
        "reader does not run"), kernel.sim_reason
