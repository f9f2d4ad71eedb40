"""`python -m pypto_verify` runs the command line, as the `pypto-verify` console script does."""

from pypto_verify.cli import main

main(prog_name="pypto-verify")
