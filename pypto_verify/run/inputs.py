"""What a run is given besides its options: files, excludes, inline suppressions, baselines, rule filters.

Owns: `collect_files` (with `[tool.pypto-verify] exclude`), shard selection (`in_shard`, `check --shard`), `suppressions` and `apply_suppressions`
(PV900), and the report filters (`--select` / `--ignore`, `--baseline`), each of which returns a new
record. Rule PV900 unused-suppression.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import json
import re
import tokenize
from dataclasses import replace
from pathlib import Path

from pypto_verify import rules
from pypto_verify.findings import Finding, fingerprint
from pypto_verify.span import Span
from pypto_verify.run.records import FileResult, RunResult, Shard

# ---------------------------------------------------------------------------------------------- files


def collect_files(paths: list[str], exclude: tuple[str, ...] | None = None) -> list[Path]:
    """Files named, and `*.py` under directories named (recursively), sorted, each once.

    A directory walk skips paths matching the `exclude` globs (default: `[tool.pypto-verify] exclude`
    of the nearest pyproject.toml above that directory, like a linter's config); a file named
    explicitly is always checked.
    """
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            patterns = project_excludes(path) if exclude is None else exclude
            # a directory named explicitly is walked even if a pattern excludes it
            active = tuple(pat for pat in patterns if not _excluded(path / "_.py", (pat,)))
            out.extend(sorted(p for p in path.rglob("*.py")
                              if "__pycache__" not in p.parts and not _excluded(p, active)))
        else:
            out.append(path)
    return list(dict.fromkeys(out))


def _excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """*path* (made absolute) matches one of the absolute glob *patterns*, or lies below one."""
    text = path.resolve().as_posix()
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


__all__ = ["FileResult", "apply_suppressions", "baseline_text", "collect_files", "filter_findings", "in_shard",
           "parse_shard", "project_excludes", "read_baseline", "select_shard", "shard_key", "suppressions"]
