"""Directory walks honour `[tool.pypto-verify] exclude` of the nearest pyproject.toml, wherever run from."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_verify.run.inputs import collect_files


def test_walk_skips_excluded_dirs_but_an_explicit_one_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pypto-verify]\nexclude = ["kernels/bad"]\n')
    (tmp_path / "kernels" / "bad").mkdir(parents=True)
    (tmp_path / "kernels" / "good.py").write_text("x = 1\n")
    (tmp_path / "kernels" / "bad" / "planted.py").write_text("x = 1\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert [p.name for p in collect_files([str(tmp_path / "kernels")])] == ["good.py"]
    assert [p.name for p in collect_files([str(tmp_path / "kernels" / "bad")])] == ["planted.py"]
    assert [p.name for p in collect_files([str(tmp_path / "kernels" / "bad" / "planted.py")])] == ["planted.py"]
    assert len(collect_files([str(tmp_path / "kernels")], exclude=())) == 2


def test_an_engine_that_fails_on_one_file_costs_only_that_files_kernels(tmp_path, monkeypatch) -> None:
    # the one Datalog run over everything fails (an engine that crashes on one file's facts): every file
    # is run on its own, and only the one that still fails is reported, as PV999 (a time-out is PV100:
    # tests/run/test_engine_timeout.py)
    import shutil

    from pypto_verify import rules
    from pypto_verify.run import Options, chain, run
    from pypto_verify.run.cache import ResultCache
    from pypto_verify.engines.souffle_lang import EngineError

    root = Path(__file__).resolve().parents[2]
    good, heavy = tmp_path / "good.py", tmp_path / "heavy.py"
    shutil.copy(root / "tests" / "fixtures" / "form3" / "shape_b_post_if_read.py", good)
    heavy.write_text((root / "tests" / "fixtures" / "form3" / "shape_b_post_if_read.py").read_text()
                     + "# another file (the cache keys by content)\n")
    real = chain.datalog_relations

    def flaky(facts, engine, timeout):
        if any(table.path == str(heavy) for table in facts.kernels.values()):
            raise EngineError("souffle: Segmentation fault")
        return real(facts, engine, timeout)

    monkeypatch.setattr(chain, "datalog_relations", flaky)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    report = run([str(tmp_path)], Options(engine="clingo", sim=False, smt=False))
    by_name = {Path(f.path).name: f for f in report.files}
    assert [f.rule.id for f in by_name["good.py"].findings] == ["PV004"]          # checked as usual
    heavy_findings = by_name["heavy.py"].findings
    assert heavy_findings and {f.rule for f in heavy_findings} == {rules.INTERNAL_ERROR}
    assert "failed" in heavy_findings[0].message and "is not verified" in heavy_findings[0].message
    cached = ResultCache(Options(engine="clingo", sim=False, smt=False))
    assert cached.get(str(heavy)) is None and cached.get(str(good)) is not None              # a crash is not kept
