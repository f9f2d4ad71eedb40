"""Discharge: the verdict cache (a fully cached run never imports z3), timeouts and approximations are
inconclusive (never a pass), `--dump-smt` names."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from pypto_verify import rules
from pypto_verify.ir import NO_SPAN

from pypto_verify.smt import Verdict, encode as E, prove_module
from pypto_verify.smt.obligations import Obligation
from pypto_verify.smt.solver import discharge, dump_name, query_text
from .harness import KERNELS, ROOT, kernel, lower_fixed


def _obligation(violation: E.Term, assumptions=(), approximations=(), case="") -> Obligation:
    return Obligation(rules.INITIALISE_FIRST, "k:1", case, tuple(assumptions), violation,
                      (("x", E.const("x")),), tuple(approximations), NO_SPAN,
                      lambda values: ("m", dict(values), None), "holds", "k")


def test_fully_cached_run_does_not_import_z3(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        from pypto_verify.frontend import read_file
        from pypto_verify.lowering.pass_base import LowerOptions
        from pypto_verify.lowering.pipeline import lower
        from pypto_verify.smt import prove_module
        source = read_file({str(KERNELS / 'split_k_slice.py')!r}).module
        outcomes = prove_module(source, lower(source, LowerOptions(mode="fixed")).module)
        print(sorted({{o.verdict.value for o in outcomes}}), "z3" in sys.modules,
              sum(o.seconds for o in outcomes))
    """)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def run() -> list[str]:
        done = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.split("] ")[1].split()

    cold = run()
    warm = run()
    assert cold[0] == "True"  # the first run solved
    assert warm[0] == "False" and float(warm[1]) == 0.0  # the second only read the cache


def test_cache_returns_the_same_verdict_and_no_cache_solves_again():
    ob = _obligation(E.and_(E.lt(E.const("x"), E.lit(3)), E.lt(E.lit(1), E.const("x"))))
    first = discharge(ob)
    again = discharge(ob)
    assert first.verdict is again.verdict is Verdict.REFUTED
    assert not first.cached and again.cached and again.values["x"] == first.values["x"] == 2
    assert not discharge(ob, cache=False).cached


def test_a_solver_timeout_is_inconclusive_and_never_cached():
    answer = discharge(_obligation(_fermat()), timeout_ms=50)   # the wall-clock guard, before the resource limit
    assert answer.verdict is Verdict.INCONCLUSIVE and "unknown" in answer.reason
    assert "50 ms of wall-clock time" in answer.reason
    assert not discharge(_obligation(_fermat()), timeout_ms=50).cached


def _fermat() -> E.Term:
    """x^3 + y^3 = z^3 over the positive integers: unsatisfiable, and beyond z3's nonlinear arithmetic."""
    x, y, z = E.const("x"), E.const("y"), E.const("z")
    cube = lambda t: E.mul(t, E.mul(t, t))  # noqa: E731
    return E.and_(E.lt(E.ZERO, x), E.lt(E.ZERO, y), E.lt(E.ZERO, z), E.eq(E.add(cube(x), cube(y)), cube(z)))


def test_a_query_past_the_resource_limit_is_inconclusive_naming_the_limit(monkeypatch):
    from pypto_verify.smt import solver

    monkeypatch.setattr(solver, "RLIMIT", 50_000)
    answer = discharge(_obligation(_fermat()), cache=False)  # the wall-clock guard: its 60 s default
    assert answer.verdict is Verdict.INCONCLUSIVE
    assert "resource limit of 50000 z3 rlimit units" in answer.reason and "ms" not in answer.reason


def test_the_same_query_gets_the_same_verdict_on_every_run(monkeypatch):
    """The verdict rests on z3's count of its own steps, not on the clock: however loaded the machine, a
    query past the limit is inconclusive for the same reason each time, and one within it is decided."""
    from pypto_verify.smt import solver

    monkeypatch.setattr(solver, "RLIMIT", 50_000)
    hard = [discharge(_obligation(_fermat()), cache=False) for _ in range(3)]
    assert {(a.verdict, a.reason) for a in hard} == {(hard[0].verdict, hard[0].reason)}
    x = E.const("x.rlimit")
    easy = _obligation(E.and_(E.lt(E.ZERO, x), E.eq(E.mul(x, x), E.lit(49)), E.lt(x, E.lit(7))))
    assert [discharge(easy, cache=False).verdict for _ in range(3)] == [Verdict.PROVED] * 3


def test_a_model_of_an_approximated_obligation_is_inconclusive():
    ob = _obligation(E.eq(E.const("x"), E.lit(4)), approximations=("`x ** 2` is not modelled",))
    answer = discharge(ob)
    assert answer.verdict is Verdict.INCONCLUSIVE and "approximations" in answer.reason
    assert discharge(_obligation(E.FALSE, approximations=("a",))).verdict is Verdict.PROVED


def test_dump_smt_writes_one_query_per_obligation(tmp_path):
    source = kernel("init_cond_off_by_one.py")
    prove_module(source, lower_fixed(source), dump_smt=tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "gemm.16.PV101.smt2" in names and "gemm.16.PV105.step.smt2" in names
    text = (tmp_path / "gemm.16.PV102.smt2").read_text()
    assert text.endswith("(check-sat)\n") and "(declare-const |w!n| Int)" in text


def test_query_text_is_the_dump_name_and_text_of_an_obligation():
    ob = _obligation(E.TRUE, case="step")
    assert dump_name(ob) == "k.1.PV102.step.smt2"
    text = query_text(ob)
    assert text == ("(declare-const |x| Int)\n(assert true)\n"              # the violation, asserted
                    "(declare-const |w!x| Int)\n(assert (= |w!x| |x|))\n"    # its witness `x`, read back
                    "(check-sat)\n")


def _odd_evens(x: E.Term, count: int) -> list[Obligation]:
    """*count* unsatisfiable obligations a solver must decide (`2 x = 2 y + 2 i + 1`: parity, over unbounded
    constants, which no interval refutes: `boxes.refuted_by_box` leaves them to the batch)."""
    y = E.const(f"{x.value}.y")
    return [_obligation(E.eq(E.mul(E.lit(2), x), E.add(E.mul(E.lit(2), y), E.lit(2 * i + 1)))) for i in range(count)]


def test_a_query_posed_twice_in_a_process_is_decided_once(batches):
    from pypto_verify.smt import solver

    x = E.const("x.twice")
    proved, = _odd_evens(x, 1)
    answers = solver.discharge_all([proved, proved], cache=False)
    assert [a.verdict for a in answers] == [Verdict.PROVED] * 2 and batches.sizes() == [1]  # one query in the batch
    assert solver.discharge(proved, cache=False).verdict is Verdict.PROVED and batches.sizes() == [1]  # no batch again
    refuted = _obligation(E.and_(E.lt(x, E.lit(3)), E.lt(E.lit(1), x)))
    first, again = (solver.discharge(refuted, cache=False) for _ in range(2))
    assert first.verdict is again.verdict is Verdict.REFUTED and first.values == again.values


def test_a_batch_holds_every_query_of_its_site_even_those_answered_before(batches):
    """What a check in a batch learns from the checks before it must not depend on what this process or the
    cache answered before (the verdict of a query near the resource limit would follow it): a site with one
    query unanswered is decided as on a cold run, all its queries in one batch of its own."""
    from pypto_verify.smt import solver

    x = E.const("x.batch")
    first, second = _odd_evens(x, 2)
    assert solver.discharge(first, cache=False).verdict is Verdict.PROVED and batches.sizes() == [1]
    answers = solver.discharge_all([first, second], cache=False)
    assert [a.verdict for a in answers] == [Verdict.PROVED] * 2 and batches.sizes() == [1, 2]  # `first` again
    solver.discharge_all([first, second], cache=False)
    assert batches.sizes() == [1, 2]  # every query answered: no batch


def test_a_batch_checks_no_query_after_the_last_one_still_to_answer(batches):
    """The checks after the last unanswered query of a batch could only answer queries answered before, and a
    check learns only from the checks before it: they are left out, every query still asserted."""
    from pypto_verify.smt import solver

    x = E.const("x.prefix")
    first, second, third = _odd_evens(x, 3)
    assert solver.discharge(third, cache=False).verdict is Verdict.PROVED and batches == [(1, 1)]
    answers = solver.discharge_all([first, second, third], cache=False)
    assert [a.verdict for a in answers] == [Verdict.PROVED] * 3 and batches[1] == (3, 2)  # `third` is not checked
    queries = [solver._query(ob) for ob in (first, second, third)]
    whole = [raw for raw, _ in batches.real(queries, 2000)]
    assert len(whole) == 3 and [raw for raw, _ in batches.real(queries, 2000, 2)] == whole[:2]


def test_the_batch_builds_every_term_form_as_the_text_means_it():
    # the batch makes z3 terms directly (solver._Builder); each query's verdict there is the one its own
    # SMT-LIB text gets in a context of its own (solver._solve), for every head the encoding makes
    from pypto_verify.smt import solver

    x, y = E.const("x.built"), E.const("y.built")
    flag = E.const("f.built", E.BOOL)
    tile = E.app("mm.built", (x,), E.TILE)
    big = E.lit(2 ** 70)
    facts = [
        E.eq(E.floordiv(x, E.lit(3)), E.lit(2)), E.eq(E.floormod(x, E.lit(3)), E.lit(1)),
        E.eq(E.mul(x, y), E.lit(21)), E.lt(E.add(x, y), big), E.le(E.lit(-4), E.sub(y, x)),
        E.eq(E.ite(flag, x, y), E.lit(7)), E.or_(E.not_(flag), E.eq(tile, E.app("mm.built", (E.lit(7),), E.TILE))),
        E.eq(E.floordiv(x, y), E.lit(2)), E.TRUE,
    ]
    queries = [solver._Query((), E.and_(*facts[:i + 1], E.not_(E.eq(x, E.lit(7)))), (("x", x),))
               for i in range(len(facts))] + [solver._Query(tuple(facts[:3]), E.eq(x, E.lit(7)), (("x", x),))]
    batch = [raw for raw, _ in solver._solve_batch(queries, 2000)]
    alone = [solver._solve(q.text(), q.witnesses, 2000)["answer"] for q in queries]
    assert [("unsat" if raw else "other") for raw in batch] == [("unsat" if a == "unsat" else "other") for a in alone]
    assert "unsat" in alone and "sat" in alone  # both verdicts are exercised


def test_solving_keeps_z3s_freed_memory_instead_of_faulting_it_in_again():
    # each batch makes and frees a z3 context and solver (~34 MiB); glibc's default thresholds gave it back
    # to the system at each free, so every batch touched ~4 100 fresh pages again (system time, not solving)
    if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
        pytest.skip("the thresholds are glibc's")
    script = textwrap.dedent("""
        import resource
        from pypto_verify import rules
        from pypto_verify.ir import NO_SPAN
        from pypto_verify.smt import encode as E
        from pypto_verify.smt.obligations import Obligation
        from pypto_verify.smt.solver import Verdict, discharge

        def proved(bound):
            x = E.const("x")
            ob = Obligation(rules.INITIALISE_FIRST, "k:1", "", (), E.and_(E.lt(x, E.lit(bound)),
                            E.lt(E.lit(bound), x)), (("x", x),), (), NO_SPAN, lambda v: ("m", v, None), "holds", "k")
            assert discharge(ob, cache=False).verdict is Verdict.PROVED

        proved(0)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for bound in range(1, 11):
            proved(bound)
        print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 10)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 1000  # faults per batch: ~4 100 when the heap is trimmed at each free


def test_resource_count_is_z3s_rlimit_count():
    import z3

    from pypto_verify.smt.solver import _resources

    ctx = z3.Context()
    solver = z3.SolverFor("QF_UFLIA", ctx=ctx)
    x = z3.Int("x", ctx)
    before = _resources(solver)
    solver.add(x * x == 50)
    assert solver.check() == z3.unsat
    used = _resources(solver)
    assert used > before and used == solver.statistics().get_key_value("rlimit count")
