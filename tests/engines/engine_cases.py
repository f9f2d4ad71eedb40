"""Shared helpers for the engine tests: the fixture programs and small program files written on the fly."""

from __future__ import annotations

from pathlib import Path

from pypto_verify.engines.api import Row

PROGRAMS = Path(__file__).parent / "programs"

# Each case folder holds program.dl, facts/ (absent = no facts at all) and expected/<relation>.csv.
CASES = sorted(path for path in PROGRAMS.iterdir() if (path / "program.dl").is_file())


def facts_dir(case: Path, scratch: Path) -> Path:
    facts = case / "facts"
    if facts.is_dir():
        return facts
    empty = scratch / "no-facts"
    empty.mkdir(exist_ok=True)
    return empty


def write(folder: Path, text: str, name: str = "program.dl") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_facts(folder: Path, rows: dict[str, list[Row]]) -> Path:
    facts = folder / "facts"
    facts.mkdir(exist_ok=True)
    for name, values in rows.items():
        text = "".join("\t".join(str(value) for value in row) + "\n" for row in values)
        (facts / f"{name}.facts").write_text(text, encoding="utf-8")
    return facts
