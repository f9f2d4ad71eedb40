"""The run `check` makes: the result cache first, then the chain for the files it missed.

A warm run (every file a cache hit) imports neither the frontend, the lowering, numpy, z3 nor clingo: only
the records, the cache and the reporters. The chain (`chain.py`) is imported for the first miss.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pypto_verify.run.cache import ResultCache
from pypto_verify.run.inputs import collect_files
from pypto_verify.run.records import ALL_STAGES, FileResult, Options, RunResult


def run(paths: list[str], options: Options, progress: Callable[[int, int], None] | None = None) -> RunResult:
    """`check`: the whole chain over every file under *paths*, with the result cache; *progress(done, total)*
    is called as files finish their per-file stages."""
    started = time.perf_counter()
    files = [str(p) for p in collect_files(paths)]
    cache = ResultCache(options) if options.cache else None
    results: dict[str, FileResult] = {}
    for path in files:
        hit = cache.get(path) if cache else None
        if hit is not None:
            results[path] = hit
    todo = [p for p in files if p not in results]
    seconds: dict[str, float] = {}
    if todo:
        from pypto_verify.run.chain import check_files, finish

        for work in check_files(todo, options, ALL_STAGES, progress, len(results), len(files), seconds):
            result = results[work.path] = finish(work, options.max_file_size)
            if cache:
                cache.put(result)
    seconds["total"] = time.perf_counter() - started
    return RunResult(tuple(results[p] for p in files if p in results), options, tuple(seconds.items()))
