"""The corpus: every accumulator site of the fixed lowering of every corpus kernel proves (every clone,
every tail, symbolic bounds included); PV101 / PV105 of each source site against itself prove; the real
compiler's dumps (`../shared/real-ir`) prove as given. Every corpus kernel lowers (asserted: a kernel
that failed to lower would prove nothing)."""

from __future__ import annotations

import pytest
import shared_ir

from pypto_verify.smt import Verdict, prove_module
from .harness import CORPUS, REAL_IR, read

CORPUS_FILES = sorted(p for p in CORPUS.glob("*.py") if p.name != "model_config.py")


def _not_proved(outcomes):
    return [f"{o.site} {o.rule} {o.verdict.value}: {o.message} {o.counterexample or ''}"
            for o in outcomes if o.verdict is not Verdict.PROVED]


def _source(path):
    parsed = shared_ir.read(path)
    if parsed.errors:
        pytest.skip(f"input errors: {parsed.errors[0]}")
    return parsed.module


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_fixed_lowering_of_corpus_kernel_proves(path):
    source = _source(path)
    result = shared_ir.lowered(path, "fixed")
    assert not result.errors, [str(e) for e in result.errors]   # every corpus kernel lowers
    outcomes = prove_module(source, result.module)
    assert not _not_proved(outcomes), _not_proved(outcomes)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_corpus_site_against_itself_proves(path):
    source = _source(path)
    outcomes = prove_module(source, source)
    assert not _not_proved(outcomes), _not_proved(outcomes)


@pytest.mark.skipif(not REAL_IR.is_dir(), reason="../shared/real-ir is not there")
@pytest.mark.parametrize("path", sorted(REAL_IR.glob("*/34_after_MemoryReuse.py")), ids=lambda p: p.parent.name)
def test_real_compiler_dump_proves_as_given(path):
    outcomes = prove_module(None, read(path))
    assert outcomes and {o.rule for o in outcomes} == {"PV102", "PV103", "PV106"}
    assert not _not_proved(outcomes), _not_proved(outcomes)
