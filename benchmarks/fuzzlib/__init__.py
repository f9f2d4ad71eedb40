"""The differential fuzzer behind `benchmarks/fuzz.py` (issue 12, item 5): soundness by mutation and generation.

Modules:
- `mutate`: first- and higher-order source mutants of correct corpus kernels (`ast` in, text out; a kernel file
  is parsed, never imported or executed).
- `generate`: random lowered (Form 3) and tile-level (Form 2) K reductions, correct and defective, whose
  oracle is the plain matmul of their inputs.
- `judge`: one batch of candidates through the static check (`check --no-sim`: the run chain with
  simulation off) and through the oracle (the original's value-semantic reference, or numpy's matmul,
  against the candidate's own reference and its simulated PTO).
- `driver`: sampling, the worker pool, the tallies (escapes, precision per rule and per kind) and the JSON.

Everything is seeded: one `--seed` gives the same candidates, the same inputs and the same verdicts.
`docs/RELIABILITY.md` describes the method and records the results.
"""
