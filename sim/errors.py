"""`SimError`: the one exception of the simulator, for parse errors and rejected programs.

A parse error (text outside docs/pto-subset.md, an undefined SSA value, a missing argument) has
`rule == ""`; an illegal program (L0C_RULES.md, PV202: illegal `pto.tmov` pair, `tmatmul.acc`
whose ins[0] and outs differ, capacity overflow, wrong space, shape or dtype mismatch, a read of
undefined L0C under `strict_undef`) has `rule == "PV202"`. `str(error)` is `line N: <what>`.
"""

from __future__ import annotations

from pypto_verify import rules


class SimError(Exception):
    """The simulator refused a text or a program; `.line` is 1-based (or None), `.rule` a rule id."""

    def __init__(self, message: str, line: int | None = None, rule: str = "") -> None:
        self.message = message
        self.line = line
        self.rule = rule
        super().__init__(f"line {line}: {message}" if line is not None else message)


def rejected(message: str, line: int | None) -> SimError:
    """A PV202 error: the program is illegal PTO."""
    return SimError(message, line, rules.ILLEGAL_PTO.id)


LIMIT = "limit"
"""The `rule` of a `SimError` for a program past the simulator's iteration limit: not simulated, no finding."""


def over_limit(message: str, line: int | None) -> SimError:
    """The program runs more loop iterations than the simulator will (`interpreter.MAX_ITERATIONS`)."""
    return SimError(message, line, LIMIT)
