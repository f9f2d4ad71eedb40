"""The progress bar (issue 16): it advances as work completes, not in submission order, the results keep the
files' order, and every report names the stage that runs (`run/chain.py`: `_map`, `check_files`)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.chain import _map

ROOT = Path(__file__).resolve().parents[2]
CLEAN = ROOT / "corpus" / "edge_combined_predicate.py"

_done: list[int] = []
_lock = threading.Lock()


class _Threads:
    """The `_Workers` interface over a thread pool (the test's tasks are closures of this process)."""

    def __init__(self, executor: ThreadPoolExecutor) -> None:
        self.executor = executor

    def get(self) -> ThreadPoolExecutor:
        return self.executor

    def submit(self, fn, *args):
        return self.executor.submit(fn, *args)

    def discard(self, kill: bool = False) -> None:
        pass


def _slow_first(item: int, options: Options) -> int:
    time.sleep(0.3 * (3 - item))  # item 0 finishes last
    with _lock:
        _done.append(item)
    return item * 10


def test_progress_advances_on_completion_and_results_keep_their_order() -> None:
    _done.clear()
    seen: list[list[int]] = []
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = _map(_Threads(pool), _slow_first, [0, 1, 2], Options(),  # type: ignore[arg-type]
                       progress=lambda: seen.append(list(_done)))
    assert results == [0, 10, 20]
    assert len(seen) == 3
    assert 0 not in seen[0], seen  # the first tick came before the slowest (first submitted) item finished


def test_every_progress_report_names_its_stage() -> None:
    reports: list[tuple[str, int, int]] = []
    run_work([str(CLEAN)], Options(jobs=1, cache=False), progress=lambda *a: reports.append(a))
    assert [stage for stage, _, _ in reports] == ["read, lower", "datalog", "datalog", "prove, simulate"]
    assert reports[-1][1:] == (1, 1)


def test_the_stage_names_follow_the_options() -> None:
    reports: list[tuple[str, int, int]] = []
    run_work([str(CLEAN)], Options(jobs=1, cache=False, sim=False), (Stage.READ, Stage.LOWER, Stage.PROVE,
                                                                     Stage.SIMULATE),
             progress=lambda *a: reports.append(a))
    assert [stage for stage, _, _ in reports] == ["read, lower", "prove"]
