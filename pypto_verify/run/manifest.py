"""The result cache's manifests: what a file's key was computed from, so a warm run asks the disk again
instead of reading and hashing every module a file imports.

Owns `RunDisk` (the `imports.Disk` of one run: each question answered once per run, each file read and
hashed at most once per run) and `Manifest` (one per file and salt under `manifests/`: the file's key and
every answer its import closure was computed from, `imports.local_closure`). The key is a function of
those answers, so when every answer is still the same, so is the key; the questions are asked again
(`still_holds`), and a file's bytes are read again only when its stat changed.

What is trusted, as git trusts its index: a regular file whose mode, size, mtime, ctime, inode and device
are all unchanged has unchanged bytes. An edit that keeps the size and restores the mtime still moves
the ctime (the kernel sets it on every write and on `utime`, and no call sets it back). A file changed
within `RACY_NS` of being read could be changed again within the same clock tick and keep its stat
(git's "racily clean" entries), so its stat is not kept: it is read and hashed again on every run until
it is older. Not covered, as in git: a clock set back, or a file system whose ctime does not move on
writes (FAT) when the mtime is restored by hand. An unreadable file is always asked again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from pypto_verify.diagnostics import UnreadableSource, read_source_bytes
from pypto_verify.imports import Disk, local_closure

RACY_NS = 2_000_000_000
"""A file whose mtime or ctime is this close to the time it was read is racy (module docstring): 2 s,
the coarsest file-system timestamp (FAT) and far above a clock tick."""

Stat = tuple[int, int, int, int, int, int]
"""(mode, size, mtime_ns, ctime_ns, inode, device)."""


def _stat(path: str) -> Stat | None:
    try:
        s = os.stat(path)
    except OSError:
        return None
    return (s.st_mode, s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino, s.st_dev)


@dataclass(frozen=True, slots=True)
class Read:
    """One file as a run read it: its bytes (None when unreadable), the digest of that outcome, and the
    stat taken before reading it (None when racy or unreadable: the file is read again next run)."""

    content: bytes | None
    outcome: str
    """sha256 of the bytes, or `!` and why the file is unreadable."""
    stat: Stat | None
    error: UnreadableSource | None = None


@dataclass
class RunDisk(Disk):
    """The disk as one run sees it: each answer memoised by absolute path, each file read and hashed at most
    once."""

    limit: int
    files: dict[str, bool] = field(default_factory=dict)
    reals: dict[str, str] = field(default_factory=dict)
    reads: dict[str, Read] = field(default_factory=dict)
    stats: dict[str, list[int] | None] = field(default_factory=dict)

    def is_file(self, path: Path) -> bool:
        return self.is_file_at(os.path.abspath(path))

    def is_file_at(self, where: str) -> bool:
        found = self.files.get(where)
        if found is None:
            found = self.files[where] = os.path.isfile(where)
        return found

    def real(self, path: Path) -> str:
        return self.real_at(os.path.abspath(path))

    def real_at(self, where: str) -> str:
        found = self.reals.get(where)
        if found is None:
            found = self.reals[where] = super().real(Path(where))
        return found

    def read(self, path: str, limit: int) -> bytes:
        if limit != self.limit:
            raise ValueError(f"this run reads at most {self.limit} bytes a file, not {limit}")
        found = self.read_once(os.path.abspath(path))
        if found.error is not None:
            raise found.error
        assert found.content is not None
        return found.content

    def read_once(self, where: str) -> Read:
        """The file at the absolute path *where* as this run read it (reading it on the first call)."""
        found = self.reads.get(where)
        if found is not None:
            return found
        now = time.time_ns()
        stat = _stat(where)
        try:
            content = read_source_bytes(where, self.limit)
        except UnreadableSource as error:
            found = Read(None, "!" + error.why, None, error)
        else:
            racy = stat is None or max(stat[2], stat[3]) >= now - RACY_NS
            found = Read(content, hashlib.sha256(content).hexdigest(), None if racy else stat)
        self.reads[where] = found
        return found

    def stat(self, where: str) -> list[int] | None:
        """The file's stat as a manifest keeps it, taken once per run."""
        if where not in self.stats:
            found = _stat(where)
            self.stats[where] = list(found) if found is not None else None
        return self.stats[where]

    def gives_read(self, where: str, outcome: object, stat: object) -> bool:
        """Whether the file at *where* still has the bytes of *outcome*: its stat kept and unchanged, else
        read (a racy, unreadable or touched file)."""
        return (stat is not None and self.stat(where) == stat) or self.read_once(where).outcome == outcome


class _Recording(Disk):
    """A `RunDisk` that also writes down each answer it gives, once."""

    def __init__(self, disk: RunDisk) -> None:
        self.disk = disk
        self.files: dict[str, bool] = {}
        self.reals: dict[str, str] = {}
        self.reads: dict[str, list] = {}

    def is_file(self, path: Path) -> bool:
        where = os.path.abspath(path)
        answer = self.files[where] = self.disk.is_file_at(where)
        return answer

    def real(self, path: Path) -> str:
        where = os.path.abspath(path)
        answer = self.reals[where] = self.disk.real_at(where)
        return answer

    def read(self, path: str, limit: int) -> bytes:
        where = os.path.abspath(path)
        found = self.disk.read_once(where)
        self.reads[where] = [found.outcome, list(found.stat) if found.stat is not None else None]
        return self.disk.read(where, limit)


@dataclass(frozen=True)
class Manifest:
    """A file's key and the answers it was computed from: which paths are files, where each path leads,
    and each file's bytes (`[outcome, stat or None]`), by absolute path."""

    key: str | None
    files: dict[str, bool]
    reals: dict[str, str]
    reads: dict[str, list]

    def still_holds(self, disk: RunDisk) -> bool:
        """Whether *disk* gives every answer again: then the key is the same (module docstring). An answer
        of another shape is never given again: a miss."""
        try:
            return (all(disk.is_file_at(w) is v for w, v in self.files.items())
                    and all(disk.real_at(w) == v for w, v in self.reals.items())
                    and all(disk.gives_read(w, outcome, stat) for w, (outcome, stat) in self.reads.items()))
        except (TypeError, ValueError):
            return False

    @property
    def trusted(self) -> bool:
        """Whether every file it read has a stat kept (none racy nor unreadable): else rewrite it later."""
        return all(stat is not None for _, stat in self.reads.values())


def compute(path: str, salt: str, disk: RunDisk) -> Manifest:
    """The key of the file at *path* (its bytes and its import closure's, with *salt*; None when the file
    itself is unreadable) and every answer it was computed from."""
    recording = _Recording(disk)
    try:
        data = recording.read(path, disk.limit)
    except UnreadableSource:
        return Manifest(None, recording.files, recording.reals, recording.reads)  # the chain reports it (PV000)
    h = hashlib.sha256(salt.encode())
    h.update(hashlib.sha256(data).digest())
    for name, content in local_closure(Path(path), data, disk.limit, recording):
        h.update(hashlib.sha256(name.encode()).digest())
        h.update(hashlib.sha256(content).digest())
    return Manifest(h.hexdigest(), recording.files, recording.reals, recording.reads)


def load(entry: Path) -> Manifest | None:
    """The manifest stored at *entry*, or None when it is absent or of another shape (an answer of another
    shape inside is found by `still_holds`)."""
    try:
        data = json.loads(entry.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    key, files, reals, reads = data.get("key"), data.get("files"), data.get("reals"), data.get("reads")
    if not (isinstance(key, str) and isinstance(files, dict) and isinstance(reals, dict) and isinstance(reads, dict)):
        return None
    return Manifest(key, files, reals, reads)


def store(entry: Path, manifest: Manifest) -> None:
    """Write *manifest* to *entry* (atomically; a failure to write is no error: the next run computes)."""
    if manifest.key is None:
        return
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": manifest.key, "files": manifest.files, "reals": manifest.reals,
                                   "reads": manifest.reads}), encoding="utf-8")
        tmp.replace(entry)
    except OSError:
        pass
