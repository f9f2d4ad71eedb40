"""The record of one idiom site (`IdiomSite`): where it is, which form, and its class.

Owns the record only; `census` finds the sites. Apart from `census` (which reads the IR) so that replaying
a cached result imports none of the IR. Imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IdiomSite:
    """One idiom site: where, which form, and its class."""

    path: str
    line: int
    function: str
    form: str
    """`if-phi`, `seed-before-loop` or `init-cond`."""
    loop: str
    """The kind of the enclosing K loop (`pipeline`, `range`, ...) or `none`."""
    condition: str
    """`derived-offset`, `loop-index`, `offset-loop-var`, `combined`, `other` (or `-` for seed-before-loop)."""
    accumulators: int
    nesting: int
    """How many loops enclose the site."""
    consumer: str
    """What reads the chain after the loop: `store`, `assemble`, `atomic-assemble`, `cast`, `vector`, ..."""
    removed: str = ""
    """Why the lowering removes the site ("" when it runs): it lies in the arm of an `if` that the file's
    constants decide against (`if VOCAB_TAIL != 0:` with `VOCAB_TAIL` 0). Not a chain to prove."""

    @property
    def klass(self) -> str:
        return f"{self.form}/{self.loop}/{self.condition}/acc{self.accumulators}/{self.consumer}"

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "function": self.function, "form": self.form,
                "class": self.klass, "loop": self.loop, "condition": self.condition,
                "accumulators": self.accumulators, "nesting": self.nesting, "consumer": self.consumer,
                "removed": self.removed}
