"""Self-check of the iteration-space encoding: for every site of the corpus (source, refined source and
fixed lowering) and of the test kernels, a direct execution of the site model gives the same sequence of
steps, loop values, creates and drains as the decoded templates evaluated at each concrete `n`.
Runtime symbols are set to a few concrete values; terms fold to literals without z3."""

from __future__ import annotations

import itertools

import pytest
import shared_ir

from pypto_verify.smt import encode as E
from pypto_verify.smt import extract_sites, match_sites
from pypto_verify.smt import sites as S
from pypto_verify.smt.obligations import N
from .harness import CORPUS, KERNELS

FILES = sorted([*CORPUS.glob("*.py"), *KERNELS.glob("*.py")])
FILES = [p for p in FILES if p.name != "model_config.py"]


class _Opaque(Exception):
    pass


def _value(term: E.Term, subst: dict) -> int | bool:
    t = E.substitute(term, subst)
    if not t.is_lit:
        raise _Opaque(repr(t))
    return t.value  # type: ignore[return-value]


def _execute(site: S.AccSite, subst: dict):
    """The site model run directly: (mad, sub-block, loop values) per step, create and drain positions."""
    steps, creates, drains = [], set(), set()
    symbols = E.Symbols(site.scalars)

    def go(items, enc, values):
        for item in items:
            if isinstance(item, S.Mad):
                for t in range(item.sub_blocks):
                    steps.append((item, t if item.sub_blocks > 1 else None, values))
            elif isinstance(item, S.Create):
                creates.add(len(steps))
            elif isinstance(item, S.Drain):
                drains.add(len(steps))
            elif isinstance(item, S.Loop):
                start, stop, step = (_value(enc.int_(x), subst) for x in (item.start, item.stop, item.step))
                for v in range(start, stop, step):
                    go(item.body, enc.bind(item.var, E.lit(v)), (*values, (S.var_label(item.var), v)))
            elif isinstance(item, S.Branch):
                taken = _value(enc.bool_(item.cond), subst)
                go(item.then if taken else item.orelse, enc, values)

    go(site.body, E.ExprEncoder(symbols), ())
    return steps, creates, drains


def _check(site: S.AccSite, subst: dict) -> None:
    chain = E.ChainEncoding(site, N, E.Symbols(site.scalars), "t")
    assert not chain.unsupported, chain.unsupported
    try:
        steps, creates, drains = _execute(site, subst)
    except _Opaque:
        return  # a bound that depends on an opaque value: nothing concrete to compare
    assert _value(chain.total, subst) == len(steps)
    for n in range(len(steps) + 1):
        at_n = {**subst, N: E.lit(n)}
        active = [s for s in chain.steps if _value(s.at, at_n)]
        if n == len(steps):
            assert not active
        else:
            mad, sub_block, values = steps[n]
            assert len(active) == 1, (n, [a.mad.span.line for a in active])
            (step,) = active
            assert step.mad is mad
            assert tuple((name, _value(v, at_n)) for name, v in step.loop_values) == values
            if sub_block is not None:
                assert _value(step.sub_block, at_n) == sub_block
        assert (n in drains) == any(_value(d.at, at_n) for d in chain.drains)
        assert (n in creates) == any(_value(c.at, at_n) for c in chain.creates)


def _substitutions(site: S.AccSite):
    """A few concrete values for the site's free symbols (each symbol 0..3, joint, at most 16)."""
    chain = E.ChainEncoding(site, N, E.Symbols(site.scalars), "t")
    names = sorted(chain.symbols.free)
    if not names:
        return [{}]
    grid = itertools.product(range(4), repeat=len(names))
    return [dict(zip((E.const(n) for n in names), map(E.lit, values))) for values in itertools.islice(grid, 16)]


def _sites(path):
    parsed = shared_ir.read(path)
    if parsed.errors:
        pytest.skip("input errors")
    out = [s for s in extract_sites(parsed.module) if not s.unsupported]
    lowered = [s for s in extract_sites(shared_ir.lowered(path, "fixed").module) if not s.unsupported]
    pairs, _ = match_sites(out, lowered)
    out += [p.lowered for p in pairs] + [p.source for p in pairs if p.source is not None]
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_decoded_steps_match_a_direct_execution(path):
    sites = _sites(path)
    for site in sites:
        for subst in _substitutions(site):
            _check(site, subst)
