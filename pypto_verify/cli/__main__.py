"""`python -m pypto_verify.cli` runs the command line (as the console script does)."""

from pypto_verify.cli import main

main()
