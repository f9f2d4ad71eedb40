"""Tests of the four memory passes and their `lowering/memory/` helpers. A package, so that its modules
(`builders`, `helpers`, `test_real_ir_oracle`) do not clash with those of `tests/lowering/`."""
