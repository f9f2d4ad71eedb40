"""What a report needs besides the run: `ReportSettings` (the command line, colour, the text options, the
repository root that paths are made relative to) and `repo_path`, the one place that turns a finding's
path into a repository-relative one (SARIF `%SRCROOT%`, GitLab `location.path`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


def find_root(start: Path) -> Path:
    """The repository root above *start*: the nearest directory with a `.git` (a worktree's `.git` is a
    file), else *start* itself."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


@dataclass(frozen=True)
class ReportSettings:
    """How to render one report (none of it changes a result)."""

    color: bool = False
    """ANSI colour in the text report (`--color`, `NO_COLOR`)."""
    show_kernels: bool = False
    """Text: every kernel's verdict (`--kernels`)."""
    statistics: bool = False
    """Text: per-rule counts in place of the findings (`--statistics`)."""
    frames: bool = True
    """Text: the source line and a caret under each finding."""
    show_summary: bool = True
    """Text: the summary line (`check -q` drops it: the findings only)."""
    root: Path = field(default_factory=lambda: find_root(Path.cwd()))
    """The repository root; report paths are relative to it where a format asks for that."""


def repo_path(path: str, root: Path) -> str | None:
    """*path* relative to *root*, POSIX-style, or None when it lies outside the root."""
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return None
