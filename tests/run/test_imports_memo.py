"""The imports of a file's bytes are kept by their digest (`pypto_verify/imports.py`, `imports_of`), so a warm
check hashes a kernel and its modules instead of parsing them; an entry of the wrong shape is parsed again."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import pytest

from pypto_verify import imports

SOURCE = b"import pypto.language as pl\nfrom model_config import BATCH\nfrom .dims import D\n"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_VERIFY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(imports, "_IMPORTS", {})


def test_kept_imports_are_read_back_without_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    first = imports.imports_of(SOURCE)
    assert ("model_config", 0) in first and ("dims", 1) in first
    monkeypatch.setattr(imports, "_IMPORTS", {})
    monkeypatch.setattr(ast, "parse", lambda *a, **k: pytest.fail("parsed again"))
    assert imports.imports_of(SOURCE) == first


@pytest.mark.parametrize("junk", ["{}", "null", "[[1, 2]]", '[["x"]]', "not json"])
def test_a_kept_entry_of_the_wrong_shape_is_parsed_again(tmp_path: Path, junk: str) -> None:
    expected = imports.imports_of(SOURCE)
    digest = hashlib.sha256(SOURCE).hexdigest()
    (tmp_path / "cache" / "imports" / digest[:2] / f"{digest}.json").write_text(junk, encoding="utf-8")
    imports._IMPORTS.clear()
    assert imports.imports_of(SOURCE) == expected
