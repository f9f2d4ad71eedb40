"""What a pass is: a named pure function `Module -> Module`, and the error a pass may raise.

Owns: `Pass`, `LowerOptions`, `LoweringError`. Every pass module under `lowering/` defines one
`PASS: Final = Pass(...)`; `lowering/pipeline.py` lists them in order for each mode.

A pass sees one kernel at a time: the pipeline runner hands it a Module holding a single function, so
a `LoweringError` in one kernel drops that kernel only (reported as its rule's finding) and the other
kernels of the file still lower.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pypto_verify.ir import Module, Span, Window
from pypto_verify.target import TARGETS, Target

Mode = Literal["fixed", "legacy"]


@dataclass(frozen=True, slots=True)
class LowerOptions:
    """How to lower: the pipeline mode and the target's capacities."""

    mode: Mode = "fixed"
    target: Target = field(default_factory=lambda: TARGETS["a2a3"])


@dataclass(frozen=True, slots=True)
class Pass:
    """One pass: `name` is the kebab-case spelling (module `name.replace('-', '_')`, CLI, golden dir)."""

    name: str
    run: Callable[[Module, LowerOptions], Module]
    mirrors: str
    """The PyPTO pass it mirrors, e.g. `PyPTO 28 LowerPipelineLoops`."""

    @property
    def title(self) -> str:
        """CapWords spelling for dump file names: `lower-pipeline-loops` -> `LowerPipelineLoops`."""
        return "".join(part.capitalize() if not part.isupper() else part for part in self.name.split("-"))


@dataclass(frozen=True, slots=True)
class Note:
    """A secondary location for a finding: the producer, the other window."""

    span: Span
    message: str


class LoweringError(Exception):
    """A kernel the pass cannot lower soundly, as a finding: rule id, where, what, and the evidence.

    Raised, e.g., for a divergent Acc phi in fixed mode (PV001 / PV002) or a capacity overflow (PV008).
    """

    def __init__(self, rule: str, span: Span, message: str, *, windows: tuple[Window, ...] = (),
                 values: tuple[str, ...] = (), notes: tuple[Note, ...] = ()) -> None:
        super().__init__(message)
        self.rule = rule
        self.span = span
        self.message = message
        self.windows = windows
        self.values = values
        self.notes = notes

    def __str__(self) -> str:
        return f"{self.span}: {self.rule} {self.message}"
