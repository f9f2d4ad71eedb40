"""Where a thing is, and what its author called it: `Span`, `NO_SPAN` and `display_name`.

Owns: the source location every IR node, finding and report carries. Kept apart from `ir` (which
re-exports all three) so that reading a cached result, which only needs locations, imports none of the
IR's node classes (issue 18: a warm check's start-up). Imports nothing of ours.
"""

from __future__ import annotations

import operator
from dataclasses import MISSING, dataclass, fields
from types import MemberDescriptorType
from typing import Any, TypeVar

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


def generated_init(cls: type) -> bool:
    """Whether *cls*'s `__init__` is one made from its fields (by `dataclass`, or `slotted_init`: code compiled from
    a string), with no `__post_init__` after it: then setting each field is all that making one does."""
    init = getattr(getattr(cls, "__init__", None), "__code__", None)
    return init is not None and init.co_filename == "<string>" and not hasattr(cls, "__post_init__")


def slotted_init(cls: _T) -> _T:
    """*cls* (a frozen slotted dataclass) with an `__init__` that sets each field through its slot's own
    descriptor: the same parameters, defaults and keyword-only fields as the one `dataclass` generates, which
    goes through `object.__setattr__` by name for each field (a frozen class's only way past its own
    `__setattr__`): about a third cheaper, and every stage makes IR nodes by the hundred thousand. A class with a
    default factory, a `__post_init__` or an `__init__` of its own keeps the generated one. Apply it above
    `@dataclass`."""
    own = fields(cls)
    slots = [getattr(cls, f.name, None) for f in own]
    if (not own or not generated_init(cls)
            or any(f.default_factory is not MISSING or not f.init for f in own)
            or not all(isinstance(slot, MemberDescriptorType) for slot in slots)):
        return cls
    scope: dict[str, Any] = {}
    positional: list[str] = []
    keywords: list[str] = []
    for i, f in enumerate(own):
        param = f.name
        if f.default is not MISSING:
            scope[f"_default_{i}"] = f.default
            param += f"=_default_{i}"
        (keywords if f.kw_only else positional).append(param)
        scope[f"_set_{i}"] = slots[i].__set__  # type: ignore[union-attr]
    params = ", ".join(["self", *positional, *(["*", *keywords] if keywords else [])])
    lines = "".join(f"    _set_{i}(self, {f.name})\n" for i, f in enumerate(own))
    exec(f"def __init__({params}):\n{lines}", scope)  # noqa: S102 - made from the class's own field names
    function = scope["__init__"]
    function.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(cls, "__init__", function)
    return cls


@pickled_as_fields
@slotted_init
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
