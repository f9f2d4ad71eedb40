"""Whether a generated buffer name is written in the source (`source.in_source`, which picks how a finding names
a window): a name the text does not contain is decided without tokenizing the file; a name in a comment or a
string is not written in the code."""

from __future__ import annotations

import tokenize
from pathlib import Path

import pytest

from pypto_verify import source

TEXT = 'mem_acc_8 = pl.tile.create()  # mem_vec_2\nx = "mem_mat_4"\n'


@pytest.fixture
def path(tmp_path: Path) -> str:
    for cached in (source._read, source._names):
        cached.cache_clear()
    file = tmp_path / "k.py"
    file.write_text(TEXT, encoding="utf-8")
    return str(file)


def test_a_name_the_text_lacks_is_not_in_the_source_and_costs_no_tokenizing(path: str,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args):
        raise AssertionError("tokenized")

    monkeypatch.setattr(tokenize, "generate_tokens", refuse)
    assert not source.in_source("mem_acc_12", path)


def test_only_a_name_in_the_code_is_in_the_source(path: str) -> None:
    assert source.in_source("mem_acc_8", path)
    assert not source.in_source("mem_vec_2", path) and not source.in_source("mem_mat_4", path)
    assert not source.in_source("mem_acc_8", path + ".missing")
