"""The rule table: every finding's id, name, severity, summary and help (L0C_RULES.md).

Owns: `Rule`, `Severity`, the registry and how a user names rules (`named`, `selected`,
`resolve_selectors`: ids in any case, id prefixes, names). An id is the primary key, never renumbered or reused; a
retired rule keeps its row with `retired=True`. `register` rejects a duplicate id or name.
Datalog rules have an output relation `pvNNN_<name_with_underscores>` in `datalog/outputs.dl`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from collections.abc import Iterable
from typing import Final


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Engine(enum.Enum):
    """Which stage decides the rule."""

    INPUT = "input"
    DATALOG = "datalog"
    LOWERING = "lowering"
    SMT = "smt"
    SIM = "sim"


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    """`PV004`: the primary key, never reused."""
    name: str
    """`clobbered-read`: printed after the id."""
    severity: Severity
    engine: Engine
    summary: str
    """One line: `explain --all`, SARIF shortDescription."""
    help: str
    """Why it matters and what to do: `explain PV004`, SARIF help."""
    retired: bool = False

    @property
    def relation(self) -> str:
        """The Datalog output relation of a Datalog rule: `pv004_clobbered_read`."""
        return f"{self.id.lower()}_{self.name.replace('-', '_')}"


RULES: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    if rule.id in RULES:
        raise ValueError(f"duplicate rule id {rule.id}")
    if any(r.name == rule.name for r in RULES.values()):
        raise ValueError(f"duplicate rule name {rule.name}")
    RULES[rule.id] = rule
    return rule


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]


def named(word: str) -> Rule | None:
    """The rule *word* names exactly: its id in any case (`pv004`) or its name (`clobbered-read`)."""
    word = word.strip()
    by_id = RULES.get(word.upper())
    if by_id is not None:
        return by_id
    return next((r for r in RULES.values() if r.name == word.lower()), None)


def selected(selector: str) -> tuple[Rule, ...]:
    """The rules one selector names: an id or a name (`named`), or an id prefix in any case (`PV1`, `pv00`),
    in id order; () when it names none."""
    exact = named(selector)
    if exact is not None:
        return (exact,)
    prefix = selector.strip().upper()
    if not prefix:
        return ()
    return tuple(r for r in sorted(RULES.values(), key=lambda r: r.id) if r.id.startswith(prefix))


def resolve_selectors(specs: Iterable[str]) -> frozenset[str]:
    """The rule ids of `--select` / `--ignore` values (each a comma-separated list of selectors, see
    `selected`); `ValueError` naming every selector that matches no rule."""
    ids: set[str] = set()
    unknown: list[str] = []
    for spec in specs:
        for selector in (part.strip() for part in spec.split(",")):
            if not selector:
                continue
            found = selected(selector)
            if not found:
                unknown.append(selector)
            ids.update(r.id for r in found)
    if unknown:
        raise ValueError(", ".join(f"`{u}`" for u in dict.fromkeys(unknown)) + " matches no rule (an id such as "
                         "PV004 or pv004, an id prefix such as PV1, or a name such as clobbered-read; "
                         "`pypto-verify explain --all` lists them)")
    return frozenset(ids)


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

INPUT_ERROR: Final = register(Rule(
    "PV000", "input-error", E, Engine.INPUT,
    "The input could not be read as a kernel.",
    "The file has a syntax error, a construct outside the kernel language, an undefined name, an "
    "annotation that contradicts the inferred type, or a shape that must be constant and is not. The "
    "other kernels of the file and the other files are still checked."))
DIVERGENT_ACC_PHI: Final = register(Rule(
    "PV001", "divergent-acc-phi", E, Engine.DATALOG,
    "An Acc if-phi's arms and its result are not all on one L0C window.",
    "Both arms of an `if` that yields an accumulator must leave it in the same L0C buffer as the phi: "
    "there is no Acc->Acc copy to reconcile two buffers. Write one predicated "
    "`matmul_acc(acc, a, b, init_cond=(k == 0))` instead of `if k == 0: matmul else: matmul_acc`."))
DIVERGENT_ACC_CARRY: Final = register(Rule(
    "PV002", "divergent-acc-carry", E, Engine.DATALOG,
    "A loop-carried accumulator's init, iter_arg, yield and result are not all on one L0C window.",
    "A loop that carries an accumulator reads it from the iter_arg's buffer and must leave the next "
    "value there; codegen binds the carry to one buffer and assumes every path wrote it."))
INPLACE_ALIAS: Final = register(Rule(
    "PV003", "inplace-alias", E, Engine.DATALOG,
    "A matmul_acc's output window differs from its accumulator input's window.",
    "`matmul_acc` accumulates in place: the hardware reads and writes the destination buffer, so the IR "
    "acc operand is never emitted. An output on another window silently accumulates into whatever that "
    "window holds."))
CLOBBERED_READ: Final = register(Rule(
    "PV004", "clobbered-read", E, Engine.DATALOG,
    "A value is read after another value overwrote its window.",
    "Two values share an L0C window and one is written while the other is still needed (a read after "
    "the `if`, after an in-place op consumed it, or around a loop back edge): the read returns the other "
    "value's data."))
ACC_TO_ACC_MOVE: Final = register(Rule(
    "PV005", "acc-to-acc-move", E, Engine.DATALOG,
    "A move or copy from Acc to Acc.",
    "No target has an L0C->L0C data path (`tile.move` Acc->Acc and `pto.tmov` acc->acc are illegal)."))
ILLEGAL_ACC_READER: Final = register(Rule(
    "PV006", "illegal-acc-reader", E, Engine.DATALOG,
    "An Acc value is read by an op that cannot read L0C.",
    "Only `matmul_acc` (its acc operand) and the FIXPIPE drain (store to GM, move/assemble to Mat, Vec on "
    "a5) read L0C; anything else needs the value drained first."))
UNINITIALISED_ACCUMULATE: Final = register(Rule(
    "PV007", "uninitialised-accumulate", E, Engine.DATALOG,
    "An accumulating MAD can run, or a drain can read, before any initialising write of its window.",
    "`tile.create` emits no instruction: the L0C contents are undefined until a `matmul`, "
    "`matmul_bias` or `matmul_acc` with a true `init_cond` writes them. Accumulating first adds garbage; "
    "draining first (a K loop that runs zero times) stores it."))
L0C_CAPACITY: Final = register(Rule(
    "PV008", "l0c-capacity", E, Engine.DATALOG,
    "Co-live Acc windows need more bytes than the target's L0C.",
    "The accumulators live at one time, with their rows padded (16, and 32 for INT32 on a2a3), must fit "
    "in L0C (128 KiB on a2a3, 256 KiB on a5)."))
FRAGMENTED_CHAIN: Final = register(Rule(
    "PV009", "fragmented-chain", E, Engine.DATALOG,
    "One reduction chain spans more than one Acc window.",
    "Values linked by in-place ops, phis and loop carries form one logical accumulator; on two windows "
    "each MAD accumulates into a buffer it never initialised."))
ACC_PHI: Final = register(Rule(
    "PV010", "acc-phi", I, Engine.DATALOG,
    "Reaching producers and window of every Acc phi and carry.",
    "Informational: for each Acc phi arm and loop carry, the ops whose results reach it and the window "
    "it lives on (`pypto-verify explain`)."))
UNUSED_BIAS: Final = register(Rule(
    "PV011", "unused-bias", E, Engine.DATALOG,
    "A tile written to the bias table is added to no accumulator.",
    "The bias table's only reader is `tile.matmul_bias`, which starts an accumulator from the bias row. A "
    "bias loaded there that no op reads is never added: the kernel computes A @ B, not A @ B + bias. Seed "
    "the chain with `matmul_bias(a, b, bias)`, or drop the load."))
PREDICATION_IS_PHI: Final = register(Rule(
    "PV101", "predication-is-phi", E, Engine.SMT,
    "init_cond does not hold exactly where the source's if chose the fresh matmul.",
    "Over the whole loop domain (every clone and tail of a replicated body, symbolic bounds included) "
    "the predicate must be true on exactly the iterations where the source reset the accumulator."))
INITIALISE_FIRST: Final = register(Rule(
    "PV102", "initialise-first", E, Engine.SMT,
    "The first executed MAD on a created accumulator does not initialise it.",
    "On the first iteration that runs (zero- and one-trip loops, split-K slices with a non-zero start, "
    "pipelined remainders included) the MAD must be `matmul`, `matmul_bias` or an `init_cond` that holds."))
NO_LOST_PARTIAL_SUMS: Final = register(Rule(
    "PV103", "no-lost-partial-sums", E, Engine.SMT,
    "A re-initialisation discards partial sums that were never drained.",
    "After the first initialisation, a MAD may reset the accumulator only where the source does the "
    "same; otherwise the partial sums since the last reset are lost."))
BIAS_ONCE: Final = register(Rule(
    "PV104", "bias-once", E, Engine.SMT,
    "A biased chain does not add the bias exactly once per output tile.",
    "`matmul_bias` must run on exactly one iteration of each output tile's reduction."))
REDUCTION_EQUIVALENCE: Final = register(Rule(
    "PV105", "reduction-equivalence", E, Engine.SMT,
    "The lowered chain does not compute the source chain's sequence of accumulate steps.",
    "With `mm(k)` and `add` uninterpreted (no float associativity), the lowered chain's value after each "
    "step must equal the source chain's."))
REDUCTION_COVERAGE: Final = register(Rule(
    "PV106", "reduction-coverage", E, Engine.SMT,
    "The K blocks accumulated between an initialisation and a drain do not cover the reduction once.",
    "Between the MAD that initialises an accumulator and the drain that reads it, each block of the K "
    "dimension of both operands must be accumulated exactly once: consecutive MADs read adjacent K blocks "
    "(no gap, no block twice), the two operands advance together, and a K loop over a whole operand covers "
    "all of it. A split K whose partial sums are combined by an atomic `assemble` covers its own slice."))
IN_BOUNDS: Final = register(Rule(
    "PV107", "in-bounds", E, Engine.SMT,
    "A GM window read or written can lie outside its tensor.",
    "Every slice, load, store, assemble and view of a GM tensor must lie inside the tensor's shape on every "
    "iteration of its loops (symbolic bounds included): outside it the hardware reads or writes another "
    "tensor's memory."))
PADDING_READ: Final = register(Rule(
    "PV108", "padding-read", E, Engine.SMT,
    "A value written out takes elements from an operand's padding that no `fillpad` filled.",
    "A `valid_shape=` load moves only the valid rows and columns; the rest of the tile holds stale on-chip "
    "data. An element-wise op whose result is valid wider than an operand (a tensor op whose first operand is "
    "whole), a `set_validshape` that widens, or a matmul whose operand is padded along K puts that data into "
    "elements a store then writes to GM."))
SIM_MISMATCH: Final = register(Rule(
    "PV201", "sim-mismatch", E, Engine.SIM,
    "The simulated PTO does not match the value-semantic reference.",
    "The emitted PTO, run on byte arenas with seeded random inputs, must reproduce the source kernel's "
    "values within the dtype's tolerance."))
ILLEGAL_PTO: Final = register(Rule(
    "PV202", "illegal-pto", E, Engine.SIM,
    "The simulator rejected the emitted PTO as illegal.",
    "acc->acc `tmov`, a `tmatmul.acc` whose ins and outs differ, a tile outside its space's capacity."))
INCONCLUSIVE: Final = register(Rule(
    "PV100", "inconclusive", W, Engine.SMT,
    "An obligation could not be decided: a construct the model does not express, or a solver or engine limit.",
    "An unknown, a limit reached or a construct not modelled is never a pass: the site is reported inconclusive "
    "(exit 3 under --strict)."))
UNUSED_SUPPRESSION: Final = register(Rule(
    "PV900", "unused-suppression", W, Engine.INPUT,
    "An inline `# pypto-verify: ignore[...]` suppressed nothing.",
    "Remove the comment or fix the rule id it names."))
INTERNAL_ERROR: Final = register(Rule(
    "PV999", "internal-error", E, Engine.INPUT,
    "pypto-verify failed on this kernel (a bug in pypto-verify, not in the kernel).",
    "A stage raised an unexpected exception on this kernel. The kernel is not verified; the other kernels of "
    "the file and the other files are still checked. Please report it with the kernel file."))
