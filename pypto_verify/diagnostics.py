"""Input errors: bad user input that stops one kernel (or one file), never the run.

Owns: `InputError`, the one exception the frontend raises for input it cannot accept, and its printed
form `path:line:col: PV000 input-error: <what>; <why>` (STYLE.md §6). The CLI turns each one into a
PV000 finding; the other kernels of the file and the other files still run.
"""

from __future__ import annotations

from pypto_verify.span import Span


class InputError(Exception):
    """Input we cannot accept, at *span*: *what* names the construct, *why* says what is wrong."""

    def __init__(self, span: Span, what: str, why: str = "") -> None:
        super().__init__(f"{what}; {why}" if why else what)
        self.span = span
        self.what = what
        self.why = why

    @property
    def message(self) -> str:
        return f"{self.what}; {self.why}" if self.why else self.what

    def __str__(self) -> str:
        return f"{self.span}: PV000 input-error: {self.message}"
