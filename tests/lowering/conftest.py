"""Make `builders.py` importable as `lowering_builders` (tests/dynamic has its own `builders`)."""

import importlib.util
import sys
from pathlib import Path

if "lowering_builders" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("lowering_builders", Path(__file__).with_name("builders.py"))
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["lowering_builders"] = _module
    _spec.loader.exec_module(_module)
