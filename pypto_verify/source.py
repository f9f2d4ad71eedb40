"""The user's source behind a span: its lines, the extent of the construct at a span, and the spelling
the author used for an op or a buffer (issue 16, items 11 and the code frames).

Owns: `source_line`, `author_window`, `extent` (the end line and column of the outermost expression or statement that
starts at a span, from the file's `ast`), `spelled_op` (`pl.matmul_acc` where the source says so for
the op `tile.matmul_acc`) and `in_source` (whether a generated name such as `mem_acc_8` is written in
the file, as it is in a Form 3 dump). Input: a path and 1-based line/column (STYLE.md §6). Every
function degrades to "unknown" (None, the op as given, False) when the file cannot be read or parsed:
a report never fails on a source it cannot show. Imports nothing of ours but `span` (and `cache_root`,
where the extents found are kept).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from pathlib import Path

from pypto_verify.span import Span

_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If,
             ast.With, ast.AsyncWith, ast.Try, ast.Match)


def _stamp(path: str) -> tuple[int, int, int, int] | None:
    """The file's (mtime, ctime, size, inode): the caches below are keyed by it, so an edited file is read
    again (the ctime moves on every write, even one that restores the mtime)."""
    try:
        stat = Path(path).stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino)


def _text(path: str) -> str | None:
    return _read(path, _stamp(path))


@functools.lru_cache(maxsize=256)
def _read(path: str, stamp: tuple[int, int, int, int] | None) -> str | None:
    if stamp is None:
        return None
    from pypto_verify.diagnostics import UnreadableSource, read_source_bytes

    try:  # regular files only, bounded: a FIFO named like a kernel never blocks a report
        return read_source_bytes(path).decode("utf-8-sig")
    except (UnreadableSource, UnicodeDecodeError):
        return None


def source_lines(path: str) -> tuple[str, ...]:
    """The lines of the source file at *path* (read once while it is unchanged; none when unreadable)."""
    return _split(path, _stamp(path))


@functools.lru_cache(maxsize=256)
def _split(path: str, stamp: tuple[int, int, int, int] | None) -> tuple[str, ...]:
    text = _read(path, stamp)
    return tuple(text.splitlines()) if text is not None else ()


def source_line(path: str, line: int) -> str | None:
    """Line *line* (1-based) of *path* without its newline, or None when there is no such line."""
    lines = source_lines(path)
    return lines[line - 1] if 1 <= line <= len(lines) else None


@functools.lru_cache(maxsize=64)
def _tree(path: str, stamp: tuple[int, int, int, int] | None) -> ast.Module | None:
    text = _read(path, stamp)
    if text is None:
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _end(node: ast.stmt | ast.expr, lines: tuple[str, ...]) -> tuple[int, int]:
    """(end line, 1-based end col, exclusive) of *node*; a compound statement ends with its header's line."""
    if isinstance(node, _COMPOUND):
        header = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
        return node.lineno, len(code_of(header)) + 1
    return node.end_lineno or node.lineno, (node.end_col_offset or node.col_offset) + 1


def code_of(line: str) -> str:
    """*line* without a trailing comment and trailing blanks (a `#` inside a string is rare in kernels)."""
    return re.sub(r"\s+#.*$", "", line).rstrip()


def extent(span: Span) -> tuple[int, int] | None:
    """(end line, end column) of the largest construct that starts at *span*, the column exclusive and
    1-based (SARIF `endColumn`); None when the source has nothing starting there. A pure function of the
    file's text, so it is kept by the text's digest beside the result cache (`extents/`): a warm check
    that replays a finding shows its code frame without parsing the file again."""
    stamp = _stamp(span.path)
    kept = _kept(span.path, stamp)
    if kept is None:
        return None
    where = f"{span.line}:{span.col}"
    if where in kept.ends:
        return kept.ends[where]
    best = _extent(span, stamp)
    kept.ends[where] = best
    kept.save()
    return best


class _Kept:
    """The extents found in one text, as kept on disk (`extents/<digest>.json`: `{"line:col": [line, col]
    or null}`)."""

    def __init__(self, entry: Path, ends: dict[str, tuple[int, int] | None]) -> None:
        self.entry = entry
        self.ends = ends

    def save(self) -> None:
        import json
        import os

        try:
            self.entry.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.entry.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({k: list(v) if v else None for k, v in self.ends.items()}), encoding="utf-8")
            tmp.replace(self.entry)
        except OSError:
            pass  # not kept: computed again next time


@functools.lru_cache(maxsize=64)
def _kept(path: str, stamp: tuple[int, int, int, int] | None) -> _Kept | None:
    """The kept extents of *path*'s text (none yet, or an entry of another shape: empty), or None when the
    file cannot be read. The digest covers this module's own code too: another `extent` is another key."""
    import hashlib
    import json

    from pypto_verify.cache_root import cache_root

    text = _read(path, stamp)
    if text is None:
        return None
    digest = hashlib.sha256(_own_code() + text.encode("utf-8")).hexdigest()
    entry = cache_root() / "extents" / digest[:2] / f"{digest}.json"
    ends: dict[str, tuple[int, int] | None] = {}
    try:
        data = json.loads(entry.read_bytes())
        if isinstance(data, dict):
            for where, end in data.items():
                if end is None:
                    ends[where] = None
                elif isinstance(end, list) and len(end) == 2 and all(type(n) is int for n in end):
                    ends[where] = (end[0], end[1])
                else:
                    ends.clear()
                    break
    except (OSError, ValueError, RecursionError):
        pass  # absent or unreadable: computed and kept anew
    return _Kept(entry, ends)


@functools.lru_cache(maxsize=1)
def _own_code() -> bytes:
    try:
        return Path(__file__).read_bytes()
    except OSError:  # not a plain file (a zipped install): the version stands for the code
        from pypto_verify import __version__

        return __version__.encode()


def _extent(span: Span, stamp: tuple[int, int, int, int] | None) -> tuple[int, int] | None:
    """`extent`, computed: only the nodes whose lines hold *span* are visited, so a finding costs its own
    statement, not the file (and the file's parse, once)."""
    tree = _tree(span.path, stamp)
    if tree is None:
        return None
    lines = _split(span.path, stamp)
    best: tuple[int, int] | None = None
    stack: list[ast.AST] = [tree]
    while stack:
        for child in ast.iter_child_nodes(stack.pop()):
            first, last = getattr(child, "lineno", None), getattr(child, "end_lineno", None)
            if first is None or last is None:
                stack.append(child)  # no position of its own (arguments, comprehensions): look inside
                continue
            if not first <= span.line <= last:
                continue
            stack.append(child)
            if isinstance(child, (ast.stmt, ast.expr)) and (first, child.col_offset + 1) == (span.line, span.col):
                end = _end(child, lines)
                if best is None or end > best:
                    best = end
    return best


_ALIASES = {"create": ("create", "create_tensor", "create_tile")}
"""Ops the language spells under another name: `tile.create` is `pl.create_tensor` in a tensor-level
script (KERNEL_LANGUAGE.md)."""


def spelled_op(op: str, span: Span) -> str:
    """The op as the author wrote it on the statement at *span*: `pl.matmul_acc` for `tile.matmul_acc` in
    a tensor- or tile-level script, `pl.tile.matmul_acc` in a Form 3 dump; *op* itself when the source
    does not call it there (an op the lowering inserted)."""
    leaf = op.rsplit(".", 1)[-1]
    names = "|".join(re.escape(n) for n in _ALIASES.get(leaf, (leaf,)))
    pattern = re.compile(rf"((?:[A-Za-z_]\w*\.)*)({names})\s*\(")
    end = extent(span)
    last = end[0] if end is not None else span.line
    for line in range(span.line, max(last, span.line) + 1):
        text = source_line(span.path, line)
        if text is None:
            break
        match = pattern.search(code_of(text), span.col - 1 if line == span.line else 0)
        if match:
            return match.group(1) + match.group(2)
    return op


def in_source(name: str, path: str) -> bool:
    """Whether *name* is written as a name in the code of *path* (a buffer name is, in a Form 3 dump; a
    comment or docstring that mentions it does not count)."""
    stamp = _stamp(path)
    text = _read(path, stamp)
    # a name the text does not contain is no token of it: the common case (a generated buffer name in a
    # tensor-level script) is decided without tokenizing the file
    return text is not None and name in text and name in _names(path, stamp)


@functools.lru_cache(maxsize=64)
def _names(path: str, stamp: tuple[int, int, int, int] | None) -> frozenset[str]:
    text = _read(path, stamp)
    if text is None:
        return frozenset()
    try:
        return frozenset(t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
                         if t.type == tokenize.NAME)
    except (tokenize.TokenError, SyntaxError):
        return frozenset()


def referenced_outside(name: str, path: str) -> bool:
    """Whether the code of *path* refers to the function *name* (`name(...)`, `self.name`, `mod.name`,
    the name passed as a value) anywhere but inside its own definitions. True when the file does not
    parse or cannot be read (nothing is claimed about what cannot be seen)."""
    tree = _tree(path, _stamp(path))
    if tree is None:
        return True
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            continue
        if isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name:
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def author_window(window: str, path: str) -> str:
    """*window* (`mem_acc_8[0:4096]`) as the author of the file at *path* knows it: unchanged when the
    source names the buffer (Form 3), else `bytes [0, 4096) of mem_acc_8` (the buffer is the lowering's)."""
    match = re.fullmatch(r"([^\[]+)\[(\d+):(\d+)\]", window)
    if match is None or in_source(match.group(1), path):
        return window
    base, lo, hi = match.groups()
    return f"bytes [{lo}, {hi}) of {base}"
