"""Sizes that fit a pre-commit budget (issue 14, item 4): the kernel simulated with module size constants made
smaller, only where the smaller lowering is the verified one but for trip counts and GM extents.

Owns: the search for smaller values of a kernel's size constants (`shrink_kernel`). A kernel whose tensor
parameters hold more than `sizes.SIM_BUDGET_ELEMENTS` elements has each module constant written as one of
their dimensions (`sizes.size_constants`, largest first) tried at a smaller value: the file is read again with
that constant's assignment rewritten (`sizes.with_constant`, no line moves) and the kernel lowered again, and
the value is kept only when that lowering is the real one but for loop stops and GM tensor extents
(`sizes.plan_difference`) and each changed loop still runs the real one's kinds of iteration
(`sizes.trips_kept`). The first value tried is two windows of the constant's dimension in the real value's
remainder class modulo the windows along it and the divisors the file divides it by (`sizes.window_unit`,
`sizes.divisor_unit`: `VOCAB // CHUNK`, `assert VOCAB % 64 == 0`; `sizes.first_value`); when a loop needs more iterations, one more value is fitted from the
loop stops seen (`sizes.fitted_value`) and checked the same way. Nothing is guessed: a value is kept only
after its own lowering was compared.
Input: the file's text, the kernel as read and lowered, and a function that reads and lowers a text.
Output: a `Shrunk` kernel pair with the values, or why no constant could be shrunk.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pypto_verify import ops
from pypto_verify.ir import Function, TensorType
from pypto_verify.sizes import (
    SIM_BUDGET_ELEMENTS, SizeConstant, divisor_unit, first_value, fitted_value, input_elements, plan_difference, size_constants,
    trips_kept, window_unit, with_constant,
)

if TYPE_CHECKING:
    from pypto_verify.dynamic import SimOutcome

Relower = Callable[[str], "tuple[Function, Function] | str"]
"""Read a file's text and lower the kernel again: its source and lowered functions, or why not."""


@dataclass(frozen=True, slots=True)
class Shrunk:
    """The kernel at smaller values of its size constants, the lowering checked against the real one."""

    source: Function
    lowered: Function
    values: tuple[tuple[str, int, int], ...]
    """`(name, value simulated, real value)` of each constant shrunk."""
    unshrunk: str = ""
    """Why the other size constants tried were not shrunk (empty: none was left)."""
    file_text: str = ""
    """The file's text at the shrunk values (the functions the kernel calls are read from it too)."""

    @property
    def text(self) -> str:
        """`VOCAB=13824 (real 152064: trip counts only)`: what the simulation ran at."""
        return ", ".join(f"{name}={value} (real {real}: trip counts only)" for name, value, real in self.values)


def shrink_kernel(text: str, source: Function, lowered: Function, relower: Relower,
                  budget: int = SIM_BUDGET_ELEMENTS) -> Shrunk | str:
    """The kernel with its size constants shrunk until its inputs fit *budget* (module docstring), or why
    none could be."""
    real_values = {p.name: p.type.shape for p in source.params if isinstance(p.type, TensorType)}
    constants: list[tuple[SizeConstant, int]] = []
    blocked: dict[str, str] = {}
    for constant in size_constants(text, source):
        value = ops.const_int(real_values[constant.param][constant.axis])
        if constant.blocked:
            blocked.setdefault(constant.name, constant.blocked)
        elif value is not None and value > 1 and constant.name not in (c.name for c, _ in constants):
            constants.append((constant, value))
    cannot = [f"{', '.join(n for n, w in blocked.items() if w == why)}: {why}"
              for why in dict.fromkeys(blocked.values())]
    if not constants:
        return "; ".join(cannot) or "no module constant names a dimension of its tensor parameters"
    constants.sort(key=lambda item: -item[1])
    kept: list[tuple[str, int, int]] = []
    why: list[str] = []
    current, current_pair = text, (source, lowered)
    for constant, real in constants:
        if input_elements(current_pair[0]) <= budget:
            break
        unit = math.lcm(window_unit(lowered, constant.param, constant.axis), divisor_unit(text, constant.name))
        found = _shrink_one(current, constant.name, real, unit, (source, lowered), relower)
        if isinstance(found, str):
            why.append(f"{constant.name}: {found}")
            continue
        value, current, current_pair = found
        kept.append((constant.name, value, real))
    if not kept:
        return "; ".join([*why, *cannot])
    return Shrunk(current_pair[0], current_pair[1], tuple(kept), "; ".join([*why, *cannot]), current)


def _shrink_one(text: str, name: str, real: int, unit: int, verified: tuple[Function, Function], relower: Relower
                ) -> tuple[int, str, tuple[Function, Function]] | str:
    """The least value of constant *name* tried (at most two) whose source and lowering are the *verified* ones
    but for trip counts and GM extents, with the text and kernel at it; or why there is none."""
    value = first_value(real, unit)
    if value >= real:
        return f"{real} is already at most two windows of {unit}"
    for _ in range(2):
        if value >= real:
            return f"no smaller value keeps its loops' iterations (it would be {value})"
        shrunk_text = with_constant(text, name, value)
        pair = relower(shrunk_text)
        if isinstance(pair, str):
            return f"at {value}: {pair}"
        # The source too, not only its lowering: the reference runs the source, and what the lowering drops
        # (a slice's `valid_shape`) must not change with the value either.
        source_different, _ = plan_difference(verified[0], pair[0])
        if source_different:
            return f"at {value} the source differs: {source_different}"
        different, loops = plan_difference(verified[1], pair[1])
        if different:
            return f"at {value} the lowering differs: {different}"
        short = trips_kept(loops)
        if short is None:
            return value, shrunk_text, pair
        fitted = fitted_value(real, value, loops, unit)
        if fitted is None or fitted <= value:
            return f"at {value}: {short}"
        value = fitted
    return f"at {value}: {short}"


def shrunk_outcome(outcome: SimOutcome, shrunk: Shrunk) -> SimOutcome:
    """*outcome*, simulated at *shrunk*'s values, saying so: `match at VOCAB=13824 (real 152064: trip counts
    only)`, `match at T=32; T=40 with VOCAB=...`, `with VOCAB=... : <difference or reason>`."""
    if outcome.status == "match":
        samples = outcome.message[len("match at "):] if outcome.message.startswith("match at ") else ""
        message = f"match at {samples} with {shrunk.text}" if samples else f"match at {shrunk.text}"
        return replace(outcome, message=message)
    message = f"with {shrunk.text}: {outcome.message}"
    if outcome.status == "skipped" and shrunk.unshrunk and outcome.reason.startswith("the kernel's tensors"):
        message += f"; not shrunk: {shrunk.unshrunk}"
    return replace(outcome, message=message, reason=message if outcome.reason else "")
