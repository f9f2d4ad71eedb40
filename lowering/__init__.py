"""Passes over the IR that mirror PyPTO's tile stage.

- one module per pass directly here, each with its `PASS` constant; `pipeline` lists the `FIXED` and
  `LEGACY` pass lists and runs them (`lower`);
- `pass_base`: what a pass is (`Pass`, `LowerOptions`, `LoweringError`) and the one table of the
  legacy pipeline's behaviours (`Behaviours`); `_pass_util`: rewriting helpers of the tile passes;
- `memory/`: the helpers the four memory passes share (none of them a pass);
- `verify_ir`: the SSA well-formedness check the tests run after every pass.

The PTO emitter, a back end, is `pypto_verify.emit`.
"""
