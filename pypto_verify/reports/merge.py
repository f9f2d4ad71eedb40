"""Merging shard reports: the JSON reports of `check --shard I/N` back into the one run's `RunResult`.

Owns: `read_report` (a JSON report, as `json_report` writes it with its `shard` block, back into the frozen
records: files, kernels, idiom sites, findings with their notes) and `merge_reports` (every shard of one
run, checked to be exactly the shards 1..N of one collection, with the same tool version, pipeline and
target, files in the whole run's order). Any reporter then writes the merged result as `check` would have
written the unsharded one, byte for byte. A report that cannot be read, or a set of shards that is not one
whole run, is a `ValueError` naming the file and what is wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

from pypto_verify import __version__
from pypto_verify.findings import Finding, Note
from pypto_verify.idiom import IdiomSite
from pypto_verify.rules import RULES
from pypto_verify.run.records import FileResult, KernelResult, Options, RunResult, Shard
from pypto_verify.span import Span


def _site(data: dict) -> IdiomSite:
    return IdiomSite(data["path"], data["line"], data["function"], data["form"], data["loop"], data["condition"],
                     data["accumulators"], data["nesting"], data["consumer"], data.get("removed", ""))


def _kernel(data: dict) -> KernelResult:
    return KernelResult(data["name"], data["function"], data["verdict"], data["sim"], data["sim_reason"],
                        tuple(data["obligations"].items()), tuple(data["conditions"]))


def _finding(data: dict) -> Finding:
    rule = RULES.get(data["rule"])
    if rule is None:
        raise ValueError(f"unknown rule {data['rule']!r}")
    notes = tuple(Note(Span(n["path"], n["line"], n["col"]), n["message"]) for n in data["notes"])
    return Finding(rule, Span(data["path"], data["line"], data["col"]), data["message"], data["kernel"],
                   data["function"], notes, tuple(data["windows"]), tuple(data["values"]), tuple(data["producers"]),
                   data["counterexample"])


def read_report(data: dict) -> RunResult:
    """The records of one shard's JSON report (it must carry the `shard` block)."""
    if data.get("tool") != "pypto-verify":
        raise ValueError("not a pypto-verify JSON report")
    if "shard" not in data:
        raise ValueError("not a shard report (write it with `check --shard I/N --format json`)")
    block = data["shard"]
    sites_of = block["sites"]
    if len(sites_of) != len(data["files"]) or len(block["positions"]) != len(data["files"]):
        raise ValueError("its shard block does not match its files")
    findings: dict[str, list[Finding]] = {}
    for entry in data["findings"]:
        finding = _finding(entry)
        findings.setdefault(finding.span.path, []).append(finding)
    files = []
    for entry, sites in zip(data["files"], sites_of, strict=True):
        # a file's findings are the report's findings under its path (text, JSON and SARIF list them all,
        # sorted, across files; each file's own tuple is sorted the same way)
        mine = tuple(findings.pop(entry["path"], ()))
        files.append(FileResult(entry["path"], entry["status"], tuple(_site(s) for s in sites),
                                tuple(_kernel(k) for k in entry["kernels"]), mine))
    if findings:
        # a finding located in a file the shard did not check (a sibling module's line): keep it on the first
        # file, the union of findings is what every reporter reads
        rest = tuple(f for found in findings.values() for f in found)
        if not files:
            raise ValueError("it has findings but no files")
        files[0] = FileResult(files[0].path, files[0].status, files[0].sites, files[0].kernels,
                              (*files[0].findings, *rest))
    options = Options(mode=data["pipeline"], target=data["target"])
    shard = Shard(block["index"], block["count"], block["total"], tuple(block["positions"]))
    return RunResult(tuple(files), options, shard=shard)


def load_report(path: str) -> tuple[RunResult, str]:
    """`read_report` of the file at *path*, and the version of pypto-verify that wrote it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return read_report(data), str(data.get("version"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"cannot read shard report {path}: {error}") from None


def merge_reports(shards: list[tuple[str, RunResult, str]]) -> RunResult:
    """The whole run from its shards `(path, result, version)`: exactly the shards 1..N of one collection
    (one count, one total, each index once), one version, pipeline and target; files in collection order."""
    if not shards:
        raise ValueError("no shard reports given")
    first_path, first, _ = shards[0]
    assert first.shard is not None  # read_report requires it
    count, total = first.shard.count, first.shard.total
    seen: dict[int, str] = {}
    for path, result, version in shards:
        shard = result.shard
        assert shard is not None
        if version != __version__:
            raise ValueError(f"{path} was written by pypto-verify {version}, this is {__version__}")
        if (shard.count, shard.total) != (count, total):
            raise ValueError(f"{path} is shard {shard.index}/{shard.count} of {shard.total} files, "
                             f"{first_path} of {count} shards of {total} files: not one run")
        if (result.options.mode, result.options.target) != (first.options.mode, first.options.target):
            raise ValueError(f"{path} and {first_path} differ in --pipeline or --target: not one run")
        if shard.index in seen:
            raise ValueError(f"shard {shard.index}/{count} given twice ({seen[shard.index]}, {path})")
        seen[shard.index] = path
    missing = [i for i in range(1, count + 1) if i not in seen]
    if missing:
        raise ValueError(f"shards {', '.join(f'{i}/{count}' for i in missing)} missing")
    placed: dict[int, FileResult] = {}
    for _, result, _ in shards:
        assert result.shard is not None
        for position, file in zip(result.shard.positions, result.files, strict=True):
            if position in placed or not 0 <= position < total:
                raise ValueError(f"file position {position} ({file.path}) is not one of a run of {total} files "
                                 "or is claimed twice")
            placed[position] = file
    if len(placed) != total:
        raise ValueError(f"the shards hold {len(placed)} of the run's {total} files")
    files = tuple(placed[p] for p in sorted(placed))
    return RunResult(files, first.options)
