"""The extent behind a code frame is kept by the text's digest (`source.py`, `extent`; issue 18, item 4): a
warm check that replays a finding shows its frame without parsing the file again; an edited file, or a
kept entry of another shape, is parsed again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pypto_verify import source
from pypto_verify.reports.text import frame
from pypto_verify.span import Span

TEXT = "def f(a):\n    b = g(a,\n          a)\n    return b\n"


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_VERIFY_CACHE_DIR", str(tmp_path / "cache"))
    for cached in (source._kept, source._tree, source._read, source._split):
        cached.cache_clear()


def _forget() -> None:
    """A new process: nothing of the file is remembered but what the disk keeps."""
    for cached in (source._kept, source._tree, source._read, source._split):
        cached.cache_clear()


def test_a_kept_extent_is_read_back_without_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "k.py"
    path.write_text(TEXT, encoding="utf-8")
    span = Span(str(path), 2, 9)
    assert source.extent(span) == (3, 13)  # `g(a,\n a)` ends on line 3
    first = frame(span)
    _forget()
    parsed: list[str] = []
    monkeypatch.setattr(source, "_tree", lambda path, stamp: parsed.append(path))
    assert source.extent(span) == (3, 13) and frame(span) == first
    assert parsed == []


def test_a_new_span_or_an_edited_text_is_parsed_again(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(TEXT, encoding="utf-8")
    assert source.extent(Span(str(path), 2, 9)) == (3, 13)
    _forget()
    assert source.extent(Span(str(path), 4, 5)) == (4, 13)  # `return b`: not kept yet, found
    path.write_text(TEXT.replace("g(a,\n          a)", "g(a, a)   \n\n"), encoding="utf-8")
    _forget()
    assert source.extent(Span(str(path), 2, 9)) == (2, 16)


@pytest.mark.parametrize("junk", ['{"2:9": [9, 99, 1]}', '{"2:9": "x"}', "[]", "not json"])
def test_a_kept_entry_of_another_shape_is_found_again(tmp_path: Path, junk: str) -> None:
    path = tmp_path / "k.py"
    path.write_text(TEXT, encoding="utf-8")
    assert source.extent(Span(str(path), 2, 9)) == (3, 13)
    (entry,) = (tmp_path / "cache" / "extents").glob("*/*.json")
    assert json.loads(entry.read_text()) == {"2:9": [3, 13]}
    entry.write_text(junk, encoding="utf-8")
    _forget()
    assert source.extent(Span(str(path), 2, 9)) == (3, 13)
    assert json.loads(entry.read_text()) == {"2:9": [3, 13]}
