"""pypto-verify: checks PyPTO tile kernels' L0C accumulator chains (see ARCHITECTURE.md)."""

__version__ = "0.1.0"
