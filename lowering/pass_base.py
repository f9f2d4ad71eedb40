"""What a pass is: a named pure function `Module -> Module`, and the error a pass may raise.

Owns: `Pass`, `LowerOptions`, `LoweringError`, and `Behaviours`: the one table of what the legacy
(pre-fix) pipeline does differently inside its passes, `FIXED_BEHAVIOURS` / `LEGACY_BEHAVIOURS`. A pass
asks `options.behaviours.<name>`, never the mode. Every pass module under `lowering/` defines one
`PASS: Final = Pass(...)`; `lowering/pipeline.py` lists them in order for each mode (the pass lists'
one difference, simplify-literal-conditions, lives there).

A pass sees one kernel at a time: the pipeline runner hands it a Module holding a single function, so
a `LoweringError` in one kernel drops that kernel only (reported as its rule's finding) and the other
kernels of the file still lower.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Final, Literal

from pypto_verify.ir import Module, Span, Window
from pypto_verify.target import TARGETS, Target

Mode = Literal["fixed", "legacy"]


@dataclass(frozen=True, slots=True)
class Behaviours:
    """The pre-fix compiler's behaviours the legacy pipeline keeps: each field true reproduces one of them
    (TARGET_FACTS.md, "The defects" and "Observed on the pre-fix compiler"); all false is the fixed
    pipeline."""

    tiles_k_with_first_block_phi: bool
    """AutoTileMatmulL0: the first K block of a split `matmul` / `matmul_bias` is an `if ko == 0` phi
    over a fresh MAD and a `matmul_acc` (fixed: a predicated `matmul_acc`, the bias block peeled)."""
    leaves_predicated_matmul_acc_untiled: bool
    """AutoTileMatmulL0: a predicated `matmul_acc` too big for L0 is not tiled; it fails on L0 capacity
    (PV008)."""
    misses_iter_args: bool
    """InitMemRef, MemoryReuse (lifetimes, yield fixup): `As<Var>` does not match an IterArg (UNSOUND, the
    IterArg blind spot); AllocateMemoryAddr's PV008 peak uses the same lifetimes."""
    stops_retarget_at_acc_copies: bool
    """MaterializeSemanticAliases: the planner declines an identity copy of an Acc value ("cannot
    reconcile" on an auto-tiled seed with an odd L0 block count)."""
    coalesces_acc_if_phis: bool
    """MemoryReuse: CoalesceAccumulatorIfPhis moves an Acc if phi's arms onto one buffer, with its unsound
    behaviours (hw-native-sys/pypto#1924)."""
    compares_buffers_by_base: bool
    """MemoryReuse (yield fixup): a carry or phi is on one buffer when the allocations (bases) agree (fixed:
    the windows, L0C_RULES.md)."""
    cannot_reconcile_acc_buffers: bool
    """MemoryReuse: a divergent Acc phi or carry is never aligned onto one window (no pre-alignment before
    packing); yield fixup raises "cannot reconcile divergent L0C accumulator buffers"."""


FIXED_BEHAVIOURS: Final = Behaviours(*(False for _ in fields(Behaviours)))
"""The fixed pipeline: none of the pre-fix behaviours."""

LEGACY_BEHAVIOURS: Final = Behaviours(*(True for _ in fields(Behaviours)))
"""The legacy pipeline: every pre-fix behaviour."""

_BEHAVIOURS_OF: Final[dict[str, Behaviours]] = {"fixed": FIXED_BEHAVIOURS, "legacy": LEGACY_BEHAVIOURS}


@dataclass(frozen=True, slots=True)
class LowerOptions:
    """How to lower: the pipeline mode and the target's capacities."""

    mode: Mode = "fixed"
    target: Target = field(default_factory=lambda: TARGETS["a2a3"])

    @property
    def behaviours(self) -> Behaviours:
        """The behaviours of `mode`'s pipeline (`FIXED_BEHAVIOURS` or `LEGACY_BEHAVIOURS`)."""
        return _BEHAVIOURS_OF[self.mode]


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

    function: str
    """The kernel the error dropped; set by `pipeline.py` when it catches the error (unset before)."""

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
