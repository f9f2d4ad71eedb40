"""One spine for a run (ARCHITECTURE.md, "The run: one spine").

- `records`: frozen options, stages and results — what reporters read;
- `inputs`: file collection, excludes, suppressions, baselines and rule filters;
- `cache`: the result cache (stored by content, replayed onto the path as given);
- `chain`: the stages in order, and `run` / `run_work`, which every command calls with the stages it needs.
"""

from pypto_verify.run.chain import run, run_work
from pypto_verify.run.records import FileResult, KernelResult, Options, RunResult, Stage

__all__ = ["FileResult", "KernelResult", "Options", "RunResult", "Stage", "run", "run_work"]
