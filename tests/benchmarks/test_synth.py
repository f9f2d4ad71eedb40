"""The synthetic scale benchmark's generator (`benchmarks/synth.py`): its kernels read, the clean ones verify and
every planted defect is reported, in each template it is planted in.

One `check` run (SMT on, simulation off) over every template in every dtype, clean, and every (defect, template)
pair the generator plants; plus the first ten kernels of a generated corpus and the smallest long kernel. No
timing is asserted: the figures are `benchmarks/synth.py`'s, recorded in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from pypto_verify.run import Options, run

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import synth  # noqa: E402


def _kernels() -> list[synth.Kernel]:
    rng = random.Random(3)
    kernels = []
    for template in synth.TEMPLATES:
        for dtype in synth.DTYPES:
            name = f"clean_{template}_{dtype}"
            shape = synth._shape(rng, dtype)
            kernels.append(synth.Kernel(name, template, None,
                                        synth.kernel_text(name, template, None, dtype, dtype == "int8", shape)))
    for defect, templates in synth.DEFECT_TEMPLATES.items():
        for template in templates:
            name = f"planted_{template}_{defect}"
            dtype = rng.choice(tuple(synth.DTYPES))
            shape = synth._shape(rng, dtype)
            kernels.append(synth.Kernel(name, template, defect,
                                        synth.kernel_text(name, template, defect, dtype, rng.random() < 0.5, shape)))
    return kernels + synth.generate_corpus(10) + [synth.long_kernel(200)]


def test_generated_kernels_verify_clean_and_planted_defects_are_reported(tmp_path: Path) -> None:
    kernels = _kernels()
    synth.write(kernels, tmp_path / "synth")
    result = run([str(tmp_path / "synth")], Options(sim=False, cache=False, jobs=2))
    found = {kernel.name: kernel.verdict for kernel in result.kernels}
    assert synth.mismatched(kernels, found) == []
    counts = synth.judge(kernels, found)
    assert counts["planted"] == sum(len(t) for t in synth.DEFECT_TEMPLATES.values()) + 1
    assert counts["mismatches"] == 0


def test_long_kernel_reports_its_lowered_statements(tmp_path: Path) -> None:
    synth.write([synth.long_kernel(300)], tmp_path / "long")
    points = synth.lowered_points(tmp_path / "long")
    assert 150 < points["long_300"] < 600


def test_rules_grow_with_the_program_not_its_square_on_a_long_chain(tmp_path: Path) -> None:
    # One accumulator chain of 200 unrolled K blocks: a relation over pairs of its values (as `same_chain`
    # was) has 40 000 rows, 27x the kernel's statements; every derived relation must stay a small multiple.
    from rule_sizes import all_outputs_program

    from pypto_verify.engines.api import run_program
    from pypto_verify.facts import write_facts
    from pypto_verify.run import Stage, run_work

    synth.write([synth.long_kernel(1, kb=200)], tmp_path / "long")
    (tmp_path / "rules").mkdir()
    program = all_outputs_program(tmp_path / "rules")
    [work] = run_work([str(tmp_path / "long")], Options(jobs=1), (Stage.READ, Stage.LOWER, Stage.FACTS))
    assert work.facts is not None
    write_facts(work.facts, tmp_path / "facts")
    relations = run_program(program, tmp_path / "facts", engine="clingo")
    points = len(work.facts.rows["node"])
    assert points > 1000
    largest = max(relations, key=lambda name: len(relations[name]))
    assert len(relations[largest]) <= 4 * points, (largest, len(relations[largest]), points)
