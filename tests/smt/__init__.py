"""Tests of the SMT stage (`pypto_verify.smt`): sites, encoding, obligations, solver, `prove`."""
