# Module-level code with side effects at import time. pypto-verify never imports or executes a
# kernel file, so parsing this must create no marker file and run no command.
import os
import pathlib
import subprocess

import pypto.language as pl

MARKER = pathlib.Path(__file__).with_suffix(".marker")
MARKER.write_text("imported!\n")
open(str(MARKER) + ".open", "w").write("imported!\n")
os.system("touch " + str(MARKER) + ".system")
subprocess.run(["touch", str(MARKER) + ".subprocess"])
exec("open('" + str(MARKER) + ".exec', 'w').close()")
TILE = len(open(MARKER).read()) if MARKER.exists() else 64
SIZE = 64


@pl.jit
def copy_tile(x: pl.Tensor[[16, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[16, SIZE], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_tile"):
        y[:, :] = pl.add(x, x)
    return y


if __name__ == "__main__":
    os.system("touch " + str(MARKER) + ".main")

# Expected diagnostics (asserted by tests/frontend/test_frontend_invalid.py), one per line:
# expect-functions: copy_tile
