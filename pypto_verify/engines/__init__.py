"""Datalog engine drivers: `souffle` by subprocess and the embedded `clingo` translator."""

ENGINES = ("auto", "souffle", "clingo")
"""The engine choices: `auto` picks souffle when it is on PATH, else the embedded clingo."""


def pick_engine(name: str) -> str:
    """The engine `name` stands for: "auto" is "souffle" when it is on PATH and runs, else "clingo" (with
    one warning when a `souffle` on PATH does not run); "souffle" raises `EngineError` when it cannot run."""
    if name == "auto":
        return "souffle" if _souffle_runs() else "clingo"
    if name == "souffle":
        from pypto_verify.engines import souffle_engine

        souffle_engine.version_text(souffle_engine.souffle_path())  # raises when absent or broken
        return name
    if name == "clingo":
        return name
    from pypto_verify.engines.souffle_lang import EngineError

    raise EngineError(f"unknown engine `{name}` (expected one of {', '.join(ENGINES)})")


_PROBED: dict[str, bool] = {}


def _souffle_runs() -> bool:
    """A `souffle` is on PATH and `souffle --version` answers (probed once per process, with a time-out:
    a broken one costs the run one probe and one warning, then the embedded engine runs)."""
    import shutil

    path = shutil.which("souffle")
    if path is None:
        return False
    if path not in _PROBED:
        from pypto_verify.engines import souffle_engine
        from pypto_verify.engines.souffle_lang import EngineError

        try:
            souffle_engine.version_text(path)
            _PROBED[path] = True
        except EngineError as error:
            import logging  # only here: a warm check imports no more than it needs

            logging.getLogger("pypto_verify.engines").warning(
                "warning: `souffle` on PATH (%s) does not run (%s); using the embedded clingo engine", path, error)
            _PROBED[path] = False
    return _PROBED[path]


def engine_version(name: str) -> str:
    """A version string for cache keys: "clingo 5.8.3" or "souffle 2.4.1". Imports neither engine's
    translator: a warm-cache run asks for it."""
    engine = pick_engine(name)
    if engine == "clingo":
        return f"clingo {_installed_version('clingo')}"
    from pypto_verify.engines import souffle_engine

    return souffle_engine.version(souffle_engine.souffle_path())


def _installed_version(package: str) -> str:
    """The installed version of *package* from its `<name>-<version>.dist-info` folder beside it (a
    directory listing: `importlib.metadata` costs a warm check more than the rest of its start-up), else
    from `importlib.metadata`. Neither imports the package."""
    import importlib.util
    import os

    spec = importlib.util.find_spec(package)
    if spec is not None and spec.origin:
        site = os.path.dirname(os.path.dirname(spec.origin))
        prefix = f"{package}-"
        found = [e for e in os.listdir(site) if e.startswith(prefix) and e.endswith(".dist-info")]
        if len(found) == 1:
            return found[0][len(prefix):-len(".dist-info")]
    from importlib.metadata import version

    return version(package)
