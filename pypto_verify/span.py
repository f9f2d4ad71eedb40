"""Where a thing is, and what its author called it: `Span`, `NO_SPAN` and `display_name`.

Owns: the source location every IR node, finding and report carries. Kept apart from `ir` (which
re-exports all three) so that reading a cached result, which only needs locations, imports none of the
IR's node classes (issue 18: a warm check's start-up). Imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A source location: file path, 1-based line and 1-based column."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


NO_SPAN = Span("<generated>", 0, 0)


def display_name(name: str) -> str:
    """The name as the user wrote it: SSA suffixes (`acc__phi_v5`, `ko__idx_v0`) stripped."""
    return name.split("__", 1)[0] if "__" in name and not name.startswith("__") else name
