"""What a run is given besides its options: files, excludes, inline suppressions, baselines, rule filters.

Owns: `collect_files` (with `[tool.pypto-verify] exclude`), shard selection (`in_shard`, `check --shard`),
`suppressions` and `apply_suppressions` (PV900: ids in any case, rule names, a bare `ignore`), the report
filters (`--select` / `--ignore`, `--baseline`), each of which returns a new record, and the baseline
format (`Baseline`: findings by project-relative path and a fingerprint without generated names). Rule
PV900 unused-suppression.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import json
import os
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from pypto_verify import rules
from pypto_verify.findings import GENERATED, Finding
from pypto_verify.span import Span
from pypto_verify.run.records import FileResult, RunResult, Shard

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


# ---------------------------------------------------------------------------------------------- shards


def parse_shard(text: str) -> tuple[int, int]:
    """`"2/3"` -> `(2, 3)`; `ValueError` unless it is `I/N` with 1 <= I <= N."""
    index, sep, count = text.partition("/")
    if not sep or not index.strip().isdigit() or not count.strip().isdigit():
        raise ValueError(f"--shard must be I/N (e.g. 1/4), not {text!r}")
    i, n = int(index), int(count)
    if not 1 <= i <= n:
        raise ValueError(f"--shard {text}: I must be between 1 and N")
    return i, n


def shard_key(path: Path) -> str:
    """The path a file is sharded by: relative to the root of its repository (the nearest directory above
    it holding `.git`), else to the working directory, else absolute; POSIX separators. The same checkout
    in another directory, or on another CI runner, gives the same key."""
    here = path.resolve()
    for directory in here.parents:
        if (directory / ".git").exists():
            return here.relative_to(directory).as_posix()
    try:
        return here.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return here.as_posix()


def in_shard(path: Path, index: int, count: int) -> bool:
    """*path* belongs to shard *index* of *count*: sha256 of its `shard_key` modulo *count* (a stable hash,
    unlike Python's salted `hash`), so adding or removing a file never moves another one."""
    digest = hashlib.sha256(shard_key(path).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count == index - 1


def select_shard(paths: list[str], text: str) -> tuple[Shard, list[Path]]:
    """The files under *paths* that shard *text* (`I/N`) checks, and the `Shard` record of their positions
    in the whole collection (what `merge` orders the report by)."""
    index, count = parse_shard(text)
    files = collect_files(paths)
    chosen = [(position, p) for position, p in enumerate(files) if in_shard(p, index, count)]
    return (Shard(index, count, len(files), tuple(pos for pos, _ in chosen)), [p for _, p in chosen])


# ---------------------------------------------------------------------------------------------- suppressions

SUPPRESSION = re.compile(r"#\s*pypto-verify:\s*ignore\b(?:\[([^\]]*)\])?", re.IGNORECASE)
"""`# pypto-verify: ignore[PV004, clobbered-read]`, or bare `# pypto-verify: ignore` (every rule)."""


@dataclass(frozen=True)
class Suppression:
    """One inline suppression comment: where it is and what it names."""

    line: int
    col: int
    """1-based column of the `#` that starts the directive."""
    rules: frozenset[str] | None
    """The rule ids it suppresses; None for a bare `ignore` (every rule on the line)."""
    unknown: tuple[str, ...] = ()
    """The words in its brackets that name no rule (each reported as PV900)."""


def suppressions(text: str) -> dict[int, Suppression]:
    """The suppression comment of each line of *text* (found with tokenize, so a string holding the words
    is none): ids in any case or rule names inside the brackets (`rules.named`)."""
    out: dict[int, Suppression] = {}
    if SUPPRESSION.search(text) is None:
        return out  # no comment can hold a directive the whole text does not: most files, without tokenizing
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.COMMENT:
                continue
            m = SUPPRESSION.search(token.string)
            if m is None:
                continue
            line, col = token.start[0], token.start[1] + m.start() + 1
            if m.group(1) is None:
                out[line] = Suppression(line, col, None)
                continue
            words = [w.strip() for w in m.group(1).split(",") if w.strip()]
            found = [(w, rules.named(w)) for w in words]
            out[line] = Suppression(line, col, frozenset(r.id for _, r in found if r is not None),
                                    tuple(w for w, r in found if r is None))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def apply_suppressions(path: str, text: str, findings: list[Finding]) -> list[Finding]:
    """*findings* without the ones an inline suppression on their line names (a bare `ignore`: all of them),
    plus a PV900, at the comment, for every suppression that matched nothing and every word in one that
    names no rule."""
    wanted = suppressions(text)
    used: set[tuple[int, str | None]] = set()
    kept = []
    for f in findings:
        here = wanted.get(f.span.line) if f.span.path == path else None
        if here is not None and f.rule.id != rules.UNUSED_SUPPRESSION.id and (here.rules is None or f.rule.id in here.rules):
            used.add((f.span.line, None if here.rules is None else f.rule.id))
            continue
        kept.append(f)
    for line, here in sorted(wanted.items()):
        where = Span(path, line, here.col)
        if here.rules is None:
            if (line, None) not in used:
                kept.append(Finding(rules.UNUSED_SUPPRESSION, where, "`ignore` suppresses nothing on this line", "", ""))
            continue
        for rid in sorted(here.rules):
            if (line, rid) not in used:
                kept.append(Finding(rules.UNUSED_SUPPRESSION, where, f"`ignore[{rid}]` suppresses nothing on this line",
                                    "", ""))
        for word in here.unknown:
            kept.append(Finding(rules.UNUSED_SUPPRESSION, where, f"`ignore[{word}]` names no rule (an id such as "
                                f"PV004 or a name such as clobbered-read)", "", ""))
    return kept


# ---------------------------------------------------------------------------------------------- filters


def filter_findings(result: RunResult, select: tuple[str, ...] = (), ignore: tuple[str, ...] = (),
                    baseline: Baseline | None = None) -> RunResult:
    """A new result with only the selected, not ignored findings that are not in *baseline*. *select* and
    *ignore* are selector lists (`rules.resolve_selectors`: ids in any case, id prefixes, names;
    `ValueError` for one that matches no rule). Verdicts are not changed: a filter changes what is shown."""
    chosen = rules.resolve_selectors(select) if select else None
    dropped = rules.resolve_selectors(ignore)
    lines = _SourceLines()

    def keep(f: Finding) -> bool:
        if chosen is not None and f.rule.id not in chosen:
            return False
        if f.rule.id in dropped:
            return False
        return baseline is None or baseline_entry(f, baseline.directory, lines) not in baseline.entries

    files = tuple(replace(file, findings=tuple(f for f in file.findings if keep(f))) for file in result.files)
    return replace(result, files=files)


# ---------------------------------------------------------------------------------------------- baselines

BASELINE_VERSION = 2
"""The baseline format: 2 keys findings by project-relative path and a fingerprint without generated names."""

_GENERATED = GENERATED
"""What a message holds that moves when unrelated code changes (`findings.GENERATED`)."""


@dataclass(frozen=True)
class Baseline:
    """A read baseline: the findings it accepts, as `baseline_entry` keys."""

    directory: Path
    """The baseline file's directory (paths outside any project are relative to it)."""
    entries: frozenset[tuple[str, str]]


class _SourceLines:
    """Each source line a fingerprint quotes, whitespace collapsed (`source.source_line`, read once per file)."""

    def line(self, path: str, number: int) -> str:
        from pypto_verify.source import source_line

        return " ".join((source_line(path, number) or "").split())


def baseline_path(path: str, directory: Path) -> str:
    """*path* as a baseline names it: relative to its project's root (the nearest directory with `.git` or
    `pyproject.toml`), else to the baseline's *directory*, else absolute — never as it was typed."""
    from pypto_verify.run.imports import project_root

    resolved = Path(path).resolve()
    for base in (project_root(resolved), directory.resolve()):
        if base is not None and resolved.is_relative_to(base):
            return resolved.relative_to(base).as_posix()
    return resolved.as_posix()


def baseline_fingerprint(finding: Finding, lines: _SourceLines) -> str:
    """Rule, kernel, values, the message without generated names (`_GENERATED`), and the source text of the
    finding's line and of its notes' lines: stable when a line moves, an unrelated matmul is added (buffer
    numbers shift) or the run starts from another directory."""
    spans = [finding.span, *(n.span for n in finding.notes)]
    text = "\0".join((finding.rule.id, finding.kernel, ",".join(finding.values),
                      " ".join(_GENERATED.sub("", finding.message).split()),
                      *(lines.line(s.path, s.line) for s in spans)))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def baseline_entry(finding: Finding, directory: Path, lines: _SourceLines) -> tuple[str, str]:
    """`(path, fingerprint)` of *finding* in a baseline kept in *directory*."""
    return baseline_path(finding.span.path, directory), baseline_fingerprint(finding, lines)


def read_baseline(path: str) -> Baseline:
    """The baseline file at *path*; `ValueError` when it is missing, unreadable, or of another format."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read baseline {path}: {error}") from None
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION:
        raise ValueError(f"baseline {path} is not a pypto-verify baseline of version {BASELINE_VERSION}; "
                         f"write it again with --write-baseline")
    try:
        entries = frozenset((e["path"], e["fingerprint"]) for e in data["findings"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"cannot read baseline {path}: {type(error).__name__}: {error}") from None
    return Baseline(Path(path).resolve().parent, entries)


def baseline_text(result: RunResult, path: str) -> str:
    """The baseline file of *result*'s findings, to be written at *path* (`--write-baseline`)."""
    directory, lines = Path(path).resolve().parent, _SourceLines()
    entries = sorted({(*baseline_entry(f, directory, lines), f.rule.id) for f in result.findings})
    data = {"tool": "pypto-verify", "version": BASELINE_VERSION,
            "findings": [{"path": p, "fingerprint": fp, "rule": r} for p, fp, r in entries]}
    return json.dumps(data, indent=1) + "\n"


__all__ = ["Baseline", "FileResult", "Suppression", "apply_suppressions", "baseline_entry", "baseline_fingerprint",
           "baseline_path", "baseline_text", "collect_files", "filter_findings", "in_shard", "parse_shard",
           "project_excludes", "read_baseline", "select_shard", "shard_key", "suppressions"]
