"""The run `check` makes: the files, the result cache first, then the chain for the files it missed.

Owns `run` and `dependents`. The files are those under the paths given (`collect_files`); then, for each
file named on the command line that turned out to define no kernel (a constants module such as
`model_config.py`), the files of its project that import it (`imports.importers`), so that a commit
changing only that module re-checks the kernels that read their constants from it. A file whose
source was given (stdin) is never read from, nor stored in, the cache, and brings no importers.

A warm run (every file a cache hit) imports neither the frontend, the lowering, numpy, z3 nor clingo: only
the records, the cache and the reporters. The chain (`chain.py`) is imported for the first miss.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from pypto_verify.run.cache import ResultCache
from pypto_verify.run.collector import collections_reduced
from pypto_verify.run.inputs import _excluded, collect_files, project_excludes
from pypto_verify.run.records import ALL_STAGES, FileResult, Options, RunResult


def dependents(modules: Iterable[Path], known: set[Path]) -> list[str]:
    """The files of each module's project (`imports.project_root`, its `exclude` globs honoured) that import
    it, directly or through another module, and are not in *known* (resolved paths)."""
    from pypto_verify.run.imports import importers, project_files, project_root

    by_root: dict[Path, list[Path]] = {}
    for path in modules:
        root = project_root(path)
        if root is not None:
            by_root.setdefault(root, []).append(path)
    out: list[str] = []
    seen = set(known)
    for root, mine in by_root.items():
        patterns = project_excludes(root)
        for user in importers(mine, project_files(root, skip=lambda p: _excluded(p, patterns))):
            if user.resolve() not in seen:
                seen.add(user.resolve())
                out.append(_shown(user))
    return out


def _shown(path: Path) -> str:
    """*path* relative to the working directory when it lies below it (as a directory walk names it)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _modules(paths: list[str], results: dict[str, FileResult], sources: Mapping[str, str]) -> list[Path]:
    """The files named in *paths* that read without error and define no kernel."""
    named = [str(Path(p)) for p in paths if Path(p).is_file()]  # as `collect_files` spells them
    return [Path(p) for p in named if p in results and p not in sources and results[p].status == "ok"
            and not results[p].kernels]


def run(paths: list[str], options: Options, progress: Callable[[str, int, int], None] | None = None,
        sources: Mapping[str, str] | None = None) -> RunResult:
    """`check`: the whole chain over the files under *paths* and the importers of a named module (module
    docstring), with the result cache; *progress(stage, done, total)* is called as files finish each
    stage; *sources* maps a path to its text when it was given rather than read (stdin)."""
    started = time.perf_counter()
    sources = dict(sources or {})
    files = [str(p) for p in collect_files(paths)]
    cache = ResultCache(options) if options.cache else None
    seconds: dict[str, float] = {}
    with collections_reduced():
        results = _check(files, options, cache, progress, sources, seconds)
        modules = _modules(paths, results, sources)
        if modules:
            more = dependents(modules, {Path(f).resolve() for f in files})
            files += more
            results.update(_check(more, options, cache, progress, sources, seconds))
    seconds["total"] = time.perf_counter() - started
    return RunResult(tuple(results[p] for p in files if p in results), options, tuple(seconds.items()))


def _check(files: list[str], options: Options, cache: ResultCache | None,
           progress: Callable[[str, int, int], None] | None, sources: Mapping[str, str],
           seconds: dict[str, float]) -> dict[str, FileResult]:
    """The result of every file of *files*: the cache's, else the chain's (stored for next time)."""
    results: dict[str, FileResult] = {}
    for path in files:
        hit = cache.get(path) if cache and path not in sources else None
        if hit is not None:
            results[path] = hit
    todo = [p for p in files if p not in results]
    if todo:
        from pypto_verify.run.chain import check_files, finish

        spent: dict[str, float] = {}
        for work in check_files(todo, options, ALL_STAGES, progress, len(results), len(files), spent, sources,
                                lean=True):
            result = results[work.path] = finish(work, options.max_file_size)
            if cache and work.path not in sources:
                cache.put(result)
        for stage, value in spent.items():
            seconds[stage] = seconds.get(stage, 0.0) + value
    return results
