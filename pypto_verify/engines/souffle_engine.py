"""The `souffle` engine: runs the real Soufflé binary by subprocess and reads its `.csv` outputs back.

Input: a checked `Program` (souffle_lang.py) and a facts directory. Output: the `.output` relations as
sorted typed rows, the same structure the clingo engine returns. Spec: ARCHITECTURE.md "Engines".

Soufflé is given the program flattened into one file (our include resolution, with `#line` markers so its
messages still cite the original files), so both engines read exactly the same text. It always runs with
`-w`: with it a missing `.facts` file is an empty relation (without it Soufflé 2.4+ stops), which is the
behaviour the clingo engine has. Interpreted mode runs `souffle -F -D`; compiled mode builds the binary
once with `souffle -o` and caches it under `$XDG_CACHE_HOME/pypto-verify/souffle-bin/<sha256>`.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from pypto_verify.engines.souffle_lang import EngineError, EngineTimeout, Program, Row, without_includes


def souffle_path() -> str:
    path = shutil.which("souffle")
    if path is None:
        raise EngineError("`souffle` is not on PATH (use --engine clingo)")
    return path


_VERSIONS: dict[str, str | EngineError] = {}

VERSION_TIMEOUT = 10.0
"""Seconds `souffle --version` may take; a souffle that does not answer in time does not run."""


def forget_versions() -> None:
    """Ask `souffle --version` again next time (a test that swaps the binary on PATH)."""
    _VERSIONS.clear()


def version_text(executable: str) -> str:
    """`souffle --version`'s whole output, part of the compiled-binary cache key; `EngineError` when it
    fails, hangs or prints nothing (asked once per process: a failure is remembered too)."""
    if executable not in _VERSIONS:
        try:
            text = _run([executable, "--version"], timeout=VERSION_TIMEOUT, what="souffle --version").stdout
            _VERSIONS[executable] = text if text.strip() else EngineError("souffle --version printed nothing")
        except EngineError as error:
            _VERSIONS[executable] = error
    answer = _VERSIONS[executable]
    if isinstance(answer, EngineError):
        raise answer
    return answer


def version(executable: str) -> str:
    """"souffle 2.4.1" from `souffle --version`, or its first non-decorative line."""
    text = version_text(executable)
    match = re.search(r"Version:\s*(\S+)", text)
    if match:
        return f"souffle {match.group(1)}"
    lines = [line.strip() for line in text.splitlines() if line.strip().strip("-")]
    return lines[0] if lines else "souffle (unknown version)"


def flatten(program: Program) -> str:
    """All source files in include order, `#include`s blanked, each preceded by a `#line` marker."""
    parts: list[str] = []
    for source in program.sources:
        name = str(source.path)
        if '"' not in name and "\n" not in name:
            parts.append(f'#line 1 "{name}"\n')
        parts.append(without_includes(source.text, name))
        if not source.text.endswith("\n"):
            parts.append("\n")
    return "".join(parts)


def run(
    program: Program, facts_dir: Path, *, timeout: float, compiled: bool = False, jobs: int = 1
) -> dict[str, list[Row]]:
    """Evaluate `program` with Soufflé on `facts_dir`; `{output relation: sorted rows}`."""
    executable = souffle_path()
    text = flatten(program)
    with tempfile.TemporaryDirectory(prefix="pypto-verify-souffle-") as scratch:
        out_dir = Path(scratch) / "out"
        out_dir.mkdir()
        facts = str(facts_dir.resolve())
        if compiled:
            binary = compiled_binary(executable, text, timeout=timeout)
            command = [str(binary), "-F", facts, "-D", str(out_dir), "-j", str(jobs)]
        else:
            flat = Path(scratch) / "program.dl"
            flat.write_text(text, encoding="utf-8")
            command = [executable, "-w", "-F", facts, "-D", str(out_dir), "-j", str(jobs), str(flat)]
        _run(command, timeout=timeout, what="souffle")
        return read_outputs(program, out_dir)


def cache_dir() -> Path:
    from pypto_verify.cache_root import cache_root

    return cache_root() / "souffle-bin"


def compiled_binary(executable: str, text: str, *, timeout: float) -> Path:
    """The `souffle -o` binary of `text`, built once per (program text, Soufflé version)."""
    key = hashlib.sha256((text + "\0" + version_text(executable)).encode("utf-8")).hexdigest()
    binary = cache_dir() / key
    if binary.is_file():
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pypto-verify-souffle-build-", dir=binary.parent) as scratch:
        flat = Path(scratch) / "program.dl"
        flat.write_text(text, encoding="utf-8")
        built = Path(scratch) / "program"
        _run([executable, "-w", "-o", str(built), str(flat)], timeout=max(timeout, 600.0), what="souffle -o",
             cwd=scratch)
        if not built.is_file():
            raise EngineError("`souffle -o` reported success but wrote no binary")
        os.replace(built, binary)  # atomic: a concurrent run sees the old state or the whole binary
    return binary


def _run(command: list[str], *, timeout: float, what: str, cwd: str | None = None) -> subprocess.CompletedProcess:
    # NOTE: its own session, so a time-out ends the whole process group: a child the engine (or a wrapper
    # script) started would otherwise hold the pipes open and `communicate` would wait for it.
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   text=True, errors="replace", cwd=cwd, start_new_session=True)
    except (OSError, ValueError) as error:
        raise EngineError(f"cannot run {what}: {error}") from None
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise EngineTimeout(f"{what} did not finish within {timeout:g} s") from None
    except BaseException:
        _kill_group(process)
        raise
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    # Soufflé reports some failures (e.g. bad fact files) on stderr with exit code 0 in older versions.
    if done.returncode != 0 or "Error:" in done.stderr or re.search(r"^Error", done.stderr, re.MULTILINE):
        detail = done.stderr.strip() or done.stdout.strip() or "no message"
        raise EngineError(f"{what} failed (exit code {done.returncode}): {detail}")
    return done


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        process.kill()
    try:
        process.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def read_outputs(program: Program, out_dir: Path) -> dict[str, list[Row]]:
    """Parse the `<relation>.csv` files Soufflé wrote, typed by the declared column kinds."""
    result: dict[str, list[Row]] = {}
    for name in program.outputs:
        path = out_dir / f"{name}.csv"
        try:
            data = path.read_text(encoding="utf-8")
        except OSError:
            raise EngineError(f"souffle wrote no `{name}.csv`") from None
        result[name] = _parse_csv(data, program.relations[name].kinds, path)
    return result


def _parse_csv(data: str, kinds: tuple[str, ...], path: Path) -> list[Row]:
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not kinds:
        return [()] if lines else []  # Soufflé writes a true nullary relation as one `()` line
    rows: list[Row] = []
    for lineno, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != len(kinds):
            raise EngineError(
                f"{path}:{lineno}: expected {len(kinds)} tab-separated values, found {len(fields)} "
                "(a symbol containing a tab or newline cannot be read back)"
            )
        try:
            rows.append(tuple(int(field) if kind == "number" else field for field, kind in zip(fields, kinds)))
        except ValueError:
            raise EngineError(f"{path}:{lineno}: a number column holds `{line}`: not Soufflé's output") from None
    return sorted(set(rows))
