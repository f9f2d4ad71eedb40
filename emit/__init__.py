"""Back ends: lowered IR -> target text. `pto` writes PTO-AS (docs/pto-subset.md), the simulator's input.

Installed as `pypto_verify.emit`; importers use the names re-exported here.
"""

from pypto_verify.emit.pto import (
    ArgBinding, EmitError, EmittedFunction, NeedsScalars, emit, emit_function, emit_module,
)

__all__ = ["ArgBinding", "EmitError", "EmittedFunction", "NeedsScalars", "emit", "emit_function", "emit_module"]
