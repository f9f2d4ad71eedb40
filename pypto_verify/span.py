"""Where a thing is, and what its author called it: `Span`, `NO_SPAN` and `display_name`.

Owns: the source location every IR node, finding and report carries. Kept apart from `ir` (which
re-exports all three) so that reading a cached result, which only needs locations, imports none of the
IR's node classes (issue 18: a warm check's start-up). Imports nothing of ours.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, fields
from typing import TypeVar

_T = TypeVar("_T", bound=type)


def pickled_as_fields(cls: _T) -> _T:
    """*cls*, a frozen slotted dataclass, pickled as the tuple of its fields. The state dataclasses give such
    a class calls `fields()` on every object pickled: a file's IR crossed between the worker pool's
    processes about 40 % slower so (issue 18). The objects are the same either way."""
    names = tuple(f.name for f in fields(cls))
    if not names:
        return cls
    get = operator.attrgetter(*names)
    single = len(names) == 1
    setattr_ = object.__setattr__

    def __getstate__(self: object) -> tuple:
        return (get(self),) if single else get(self)

    def __setstate__(self: object, state: tuple) -> None:
        for name, value in zip(names, state):
            setattr_(self, name, value)

    setattr(cls, "__getstate__", __getstate__)
    setattr(cls, "__setstate__", __setstate__)
    return cls


@pickled_as_fields
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
