"""What a run is given besides its options: files, excludes, inline suppressions, baselines, rule filters.

Owns: `collect_files` (with `[tool.pypto-verify] exclude`), `suppressions` and `apply_suppressions`
(PV900), and the report filters (`--select` / `--ignore`, `--baseline`), each of which returns a new
record. Rule PV900 unused-suppression.
"""

from __future__ import annotations

import fnmatch
import io
import json
import os
import re
import tokenize
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from pypto_verify import rules
from pypto_verify.findings import Finding, fingerprint
from pypto_verify.span import Span
from pypto_verify.run.records import FileResult, RunResult

# ---------------------------------------------------------------------------------------------- files


def collect_files(paths: list[str], exclude: tuple[str, ...] | None = None) -> list[Path]:
    """Files named, and `*.py` under directories named (recursively), sorted, each once.

    A directory walk skips paths matching the `exclude` globs (default: `[tool.pypto-verify] exclude`
    of the nearest pyproject.toml above that directory, like a linter's config); a file named
    explicitly is always checked.

    The walk never follows a symlink to a directory (so no loop), and never opens anything: an entry named
    `*.py` that is a directory is walked, not listed; any other entry (a FIFO, a dangling symlink, a device)
    is listed, and reading it is that file's PV000 (`diagnostics.read_source_bytes`).
    """
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            patterns = project_excludes(path) if exclude is None else exclude
            # a directory named explicitly is walked even if a pattern excludes it
            active = tuple(pat for pat in patterns if not _excluded(path / "_.py", (pat,)))
            out.extend(sorted(p for p in _walk(path) if not _excluded(p, active)))
        else:
            out.append(path)
    return list(dict.fromkeys(out))


def _walk(root: Path) -> Iterator[Path]:
    """Every non-directory entry named `*.py` under *root*; a symlink to a directory is neither entered nor
    listed (a symlink loop is not a directory: it is listed, and its read is a PV000)."""
    for directory, subdirs, names in os.walk(root, followlinks=False):
        subdirs[:] = [d for d in subdirs if d != "__pycache__"]
        base = Path(directory)
        yield from (base / n for n in names if n.endswith(".py"))


def _absolute(path: Path) -> str:
    """*path* made absolute with its symlinks resolved where they resolve (a loop is left as written)."""
    try:
        return path.resolve().as_posix()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return Path(os.path.abspath(path)).as_posix()


def _excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """*path* (made absolute) matches one of the absolute glob *patterns*, or lies below one."""
    if not patterns:
        return False
    text = _absolute(path)
    return any(fnmatch.fnmatch(text, pat) or text.startswith(pat.rstrip("/") + "/") for pat in patterns)


def project_excludes(start: Path | None = None) -> tuple[str, ...]:
    """`exclude` globs from `[tool.pypto-verify]` in the nearest pyproject.toml above *start* (default: the
    working directory), made absolute against that file's directory."""
    import tomllib

    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                config = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return ()
            globs = config.get("tool", {}).get("pypto-verify", {}).get("exclude", [])
            return tuple((directory / g).resolve().as_posix() for g in globs)
    return ()


# ---------------------------------------------------------------------------------------------- suppressions

SUPPRESSION = re.compile(r"#\s*pypto-verify:\s*ignore\[([A-Z0-9, ]+)\]")


def suppressions(text: str) -> dict[int, set[str]]:
    """`{line: {rule ids}}` from `# pypto-verify: ignore[PV004, PV003]` comments (found with tokenize)."""
    out: dict[int, set[str]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                m = SUPPRESSION.search(token.string)
                if m:
                    out.setdefault(token.start[0], set()).update(x.strip() for x in m.group(1).split(",") if x.strip())
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def apply_suppressions(path: str, text: str, findings: list[Finding]) -> list[Finding]:
    """*findings* without the ones an inline suppression on their line names, plus a PV900 for every
    suppression that matched nothing."""
    wanted = suppressions(text)
    used: set[tuple[int, str]] = set()
    kept = []
    for f in findings:
        if f.span.path == path and f.rule.id in wanted.get(f.span.line, ()):
            used.add((f.span.line, f.rule.id))
            continue
        kept.append(f)
    for line, ids in sorted(wanted.items()):
        for rid in sorted(ids):
            if (line, rid) not in used:
                kept.append(Finding(rules.UNUSED_SUPPRESSION, Span(path, line, 1),
                                    f"`ignore[{rid}]` suppresses nothing on this line", "", ""))
    return kept


# ---------------------------------------------------------------------------------------------- filters


def _matches(rule_id: str, patterns: tuple[str, ...]) -> bool:
    return any(rule_id.startswith(p.strip()) for spec in patterns for p in spec.split(",") if p.strip())


def filter_findings(result: RunResult, select: tuple[str, ...] = (), ignore: tuple[str, ...] = (),
                    baseline: set[tuple[str, str]] | None = None) -> RunResult:
    """A new result with only the selected, not ignored findings that are not in *baseline*
    (`(path, fingerprint)` pairs). Verdicts are not changed: a filter changes what is shown."""
    def keep(f: Finding) -> bool:
        if select and not _matches(f.rule.id, select):
            return False
        if ignore and _matches(f.rule.id, ignore):
            return False
        return baseline is None or (f.span.path, fingerprint(f)) not in baseline

    files = tuple(replace(file, findings=tuple(f for f in file.findings if keep(f))) for file in result.files)
    return replace(result, files=files)


def read_baseline(path: str) -> set[tuple[str, str]]:
    """`(path, fingerprint)` of every finding of a baseline file; `ValueError` when it cannot be read."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return {(e["path"], e["fingerprint"]) for e in data["findings"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"cannot read baseline {path}: {error}") from None


def baseline_text(result: RunResult) -> str:
    """The baseline file of *result*'s findings (`--write-baseline`)."""
    entries = sorted({(f.span.path, fingerprint(f), f.rule.id) for f in result.findings})
    data = {"tool": "pypto-verify", "findings": [{"path": p, "fingerprint": fp, "rule": r} for p, fp, r in entries]}
    return json.dumps(data, indent=1) + "\n"


__all__ = ["FileResult", "apply_suppressions", "baseline_text", "collect_files", "filter_findings",
           "project_excludes", "read_baseline", "suppressions"]
