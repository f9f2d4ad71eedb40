"""The hostile-input fuzzer (issue 15, item 6; docs/RELIABILITY.md, "Hostile inputs").

Makes inputs a hostile user or a flaky machine would give `pypto-verify check` — token deletion, duplication
and swap over the corpus kernels, random bytes, deep nesting, huge literals, unicode names, file names with
spaces, tabs and newlines, and file-system oddities (symlink loops, FIFOs, dangling links, directories and
devices named `*.py`) — runs the real command line over them in batches, each under a wall-clock deadline,
and judges every run:

- a **traceback** (on stderr, or an exit status outside 0-3) is a failure;
- a **hang** (the batch past its deadline) is a failure;
- a **lost result** (an input file the report does not list) is a failure;
- a **PV999** (a crash of ours the guard caught) is counted and listed: the run went on, but it is a bug;
- otherwise each input is *judged*: a kernel verdict, a PV000 located in that file, or a file with no kernel.

Nothing is ever imported or executed from an input: the planted side effects (`open(...).write`,
`os.system`) must leave no trace, which is checked after every batch.

    python benchmarks/hostile_fuzz.py --inputs 10000 --seed 1 --batch 100 --out hostile.json
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"

KINDS = ("delete", "duplicate", "swap", "bytes", "nesting", "literal", "unicode", "name", "fs")
"""The mutation kinds, in the order the sampler cycles through them."""

SENTINEL = "PYPTO_VERIFY_HOSTILE_RAN"
"""A planted side effect writes a file of this name: its existence means an input was executed."""


@dataclass(frozen=True)
class Input:
    """One hostile input: its file name (relative to the batch directory), kind, and bytes (None: an fs entry)."""

    name: str
    kind: str
    data: bytes | None
    special: str = ""
    """For kind `fs`: `fifo`, `loop`, `dangling`, `dir`, `device`."""


@dataclass
class Tally:
    inputs: int = 0
    batches: int = 0
    seconds: float = 0.0
    kinds: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: list[dict] = field(default_factory=list)
    internal: list[dict] = field(default_factory=list)
    slowest_batch: float = 0.0


# ---------------------------------------------------------------------------------------------- inputs


def corpus_texts(limit: int | None = None) -> list[tuple[str, str]]:
    """`(name, text)` of the corpus kernels (idioms and defects), sorted."""
    paths = sorted(CORPUS.glob("*.py")) + sorted((CORPUS / "defects").glob("*.py"))
    out = [(p.stem, p.read_text(encoding="utf-8")) for p in paths if p.name != "model_config.py"]
    return out[:limit] if limit else out


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """`(start offset, end offset, string)` of every token with text (comments included)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.string and tok.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
                begin = starts[tok.start[0] - 1] + tok.start[1]
                end = starts[tok.end[0] - 1] + tok.end[1]
                out.append((begin, end, tok.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _token_mutant(rng: random.Random, text: str, kind: str) -> str:
    tokens = _tokens(text)
    if len(tokens) < 2:
        return text
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        i = rng.randrange(len(tokens) - 1)
        begin, end, string = tokens[i]
        if kind == "delete":
            text = text[:begin] + text[end:]
        elif kind == "duplicate":
            text = text[:end] + " " + string + text[end:]
        else:
            b2, e2, s2 = tokens[i + 1]
            text = text[:begin] + s2 + text[end:b2] + string + text[e2:]
        tokens = _tokens(text) or tokens
    return text


def _nesting(rng: random.Random, text: str) -> str:
    depth = rng.choice((50, 200, 1000, 5000, 100_000))
    shape = rng.choice(("paren", "list", "if", "unary", "binop"))
    if shape == "paren":
        deep = "(" * depth + "64" + ")" * depth
    elif shape == "list":
        deep = "[" * depth + "64" + "]" * depth
    elif shape == "unary":
        deep = "-" * (depth - depth % 2) + "64"
    elif shape == "binop":
        deep = " + ".join(["1"] * depth)
    else:
        lines = ["import pypto.language as pl", "", "", "@pl.jit", "def k(a: pl.Tensor[[64, 64], pl.FP32]):"]
        for level in range(min(depth, 3000)):
            lines.append("    " * (level + 1) + "if a:")
        lines.append("    " * (min(depth, 3000) + 1) + "pass")
        return "\n".join(lines) + "\n"
    return text.replace("64", deep, 1) if "64" in text else deep


def _literal(rng: random.Random, text: str) -> str:
    huge = rng.choice(("9" * rng.choice((20, 400, 5000, 100_000)), "10**100", "2**64", "-2**63", "1e308", "1e999",
                       "0x" + "f" * 64, "10**10**10", "float('nan')", "-0", "0", "-1", "(1 << 200)", "9" * 4301))
    numbers = [t for t in _tokens(text) if t[2].isdigit()]
    if not numbers:
        return text + f"\nX = {huge}\n"
    begin, end, _ = rng.choice(numbers)
    return text[:begin] + huge + text[end:]


_UNICODE_NAMES = ("ä", "ßeta", "𝔞𝔠𝔠", "ア", "x\u200b", "a\u202eb", "ﬁ", "Ω", "_\u0301", "ℌ", "ⅸ", "𐀀")


def _unicode(rng: random.Random, text: str) -> str:
    names = sorted({t[2] for t in _tokens(text) if t[2].isidentifier() and t[2] not in ("pl", "import", "def")})
    if not names:
        return text
    old = rng.choice(names)
    new = rng.choice(_UNICODE_NAMES)
    return text.replace(old, new)


def _random_bytes(rng: random.Random) -> bytes:
    kind = rng.random()
    size = rng.choice((0, 1, 3, 100, 2000, 20_000))
    if kind < 0.3:
        return bytes(rng.randrange(256) for _ in range(size))
    if kind < 0.6:
        alphabet = "()[]{}:=,.+-*/@#'\"\\\n\t pl.matmul_acc if for in range def return 0123456789"
        return "".join(rng.choice(alphabet) for _ in range(size)).encode()
    if kind < 0.8:
        return b"\xef\xbb\xbf" + bytes(rng.randrange(128) for _ in range(size))  # a BOM and ASCII noise
    return ("import os\nos.system('touch " + SENTINEL + "')\nopen('" + SENTINEL + "', 'w').write('x')\n"
            "import pypto.language as pl\n__import__('os').system('touch " + SENTINEL + "')\n").encode()


_ODD_NAMES = ("a b.py", "tab\there.py", "new\nline.py", " lead.py", "ünï.py", "-dash.py", "--no-cache.py",
              "semi;colon.py", "quote'.py", 'dq".py', "star*.py", "x" * 200 + ".py", "$(touch x).py")


def make_inputs(seed: int, count: int) -> list[Input]:
    """*count* hostile inputs, seeded: the kinds in turn, each from a corpus kernel or from nothing."""
    return list(iter_inputs(seed, count))


def iter_inputs(seed: int, count: int) -> Iterator[Input]:
    """`make_inputs`, one at a time (a long run never holds them all)."""
    rng = random.Random(seed)
    texts = corpus_texts()
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        base_name, base = rng.choice(texts)
        name = f"h{i:05d}_{kind}.py"
        if kind in ("delete", "duplicate", "swap"):
            yield Input(name, kind, _token_mutant(rng, base, kind).encode())
        elif kind == "bytes":
            yield Input(name, kind, _random_bytes(rng))
        elif kind == "nesting":
            yield Input(name, kind, _nesting(rng, base).encode())
        elif kind == "literal":
            yield Input(name, kind, _literal(rng, base).encode())
        elif kind == "unicode":
            yield Input(name, kind, _unicode(rng, base).encode())
        elif kind == "name":
            yield Input(f"h{i:05d}_{rng.choice(_ODD_NAMES)}", kind, base.encode())
        else:
            yield Input(name, kind, None, rng.choice(("fifo", "loop", "dangling", "dir", "device")))


# ---------------------------------------------------------------------------------------------- running


def _materialise(directory: Path, inputs: list[Input]) -> None:
    (directory / "model_config.py").write_bytes((CORPUS / "model_config.py").read_bytes())
    for item in inputs:
        path = directory / item.name
        if item.data is not None:
            path.write_bytes(item.data)
        elif item.special == "fifo":
            os.mkfifo(path)
        elif item.special == "loop":
            path.symlink_to(path)
        elif item.special == "dangling":
            path.symlink_to(directory / "nowhere" / "x.py")
        elif item.special == "dir":
            path.mkdir()
        else:
            path.symlink_to("/dev/zero" if os.path.exists("/dev/zero") else "/dev/null")


def _expected(item: Input) -> bool:
    """Whether the report must list this input (a directory named `*.py` is walked, not a file)."""
    return item.special != "dir"


def run_batch(inputs: list[Input], deadline: float, sim: bool = False, extra: tuple[str, ...] = ()) -> dict:
    """Check one batch with the CLI, under *deadline* seconds; the judgement of every input."""
    with tempfile.TemporaryDirectory(prefix="pv hostile\t") as scratch:
        directory = Path(scratch) / "in put"
        directory.mkdir()
        _materialise(directory, inputs)
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(scratch) / "cache")}
        command = [sys.executable, "-m", "pypto_verify.cli", "check", str(directory), "--format", "json",
                   "--jobs", "1", "--timeout", str(max(deadline / 2, 5)), *(() if sim else ("--no-sim",)), *extra]
        began = time.monotonic()
        try:
            done = subprocess.run(command, capture_output=True, text=True, errors="replace", env=env,
                                  timeout=deadline, cwd=scratch)
        except subprocess.TimeoutExpired:
            return {"seconds": time.monotonic() - began, "failure": "hang", "detail": f"past {deadline:g} s"}
        seconds = time.monotonic() - began
        executed = (Path(scratch) / SENTINEL).exists() or (directory / SENTINEL).exists()
        if executed:
            return {"seconds": seconds, "failure": "executed", "detail": "a planted side effect ran"}
        if "Traceback" in done.stderr or done.returncode not in (0, 1, 2, 3):
            return {"seconds": seconds, "failure": "traceback", "detail": done.stderr[-3000:],
                    "status": done.returncode}
        try:
            report = json.loads(done.stdout)
        except ValueError:
            return {"seconds": seconds, "failure": "traceback", "detail": "no JSON report: " + done.stdout[-500:]}
        return {"seconds": seconds, **judge(directory, inputs, report)}


def judge(directory: Path, inputs: list[Input], report: dict) -> dict:
    """Every expected input is in the report, with a verdict, a located PV000, or no kernel at all."""
    files = {f["path"]: f for f in report["files"]}
    findings: dict[str, list[dict]] = {}
    for finding in report["findings"]:
        findings.setdefault(finding["path"], []).append(finding)
    outcomes: dict[str, str] = {}
    lost, internal = [], []
    for item in inputs:
        if not _expected(item):
            continue
        path = str(directory / item.name)
        if path not in files:
            lost.append(item.name)
            continue
        mine = findings.get(path, [])
        internal += [{"input": item.name, "kind": item.kind, "message": f["message"]} for f in mine
                     if f["rule"] == "PV999"]
        if files[path]["kernels"]:
            outcomes[item.name] = "verdict"
        elif any(f["rule"] == "PV000" and f["line"] >= 1 and f["col"] >= 1 for f in mine):
            outcomes[item.name] = "pv000"
        elif not mine:
            outcomes[item.name] = "no-kernel"
        else:
            outcomes[item.name] = "other:" + ",".join(sorted({f["rule"] for f in mine}))
    return {"outcomes": outcomes, "lost": lost, "internal": internal}


def fuzz(count: int, seed: int, batch: int, deadline: float, sim_every: int = 0, progress: bool = True,
         journal: Path | None = None) -> Tally:
    """*count* inputs in batches of *batch*; the tally of outcomes and failures."""
    inputs = iter_inputs(seed, count)
    tally = Tally()
    began = time.monotonic()
    for start in range(0, count, batch):
        chunk = list(itertools.islice(inputs, batch))
        sim = bool(sim_every) and (start // batch) % sim_every == 0
        result = run_batch(chunk, deadline, sim=sim)
        tally.batches += 1
        tally.inputs += len(chunk)
        tally.slowest_batch = max(tally.slowest_batch, result["seconds"])
        for item in chunk:
            tally.kinds[item.kind] = tally.kinds.get(item.kind, 0) + 1
        if "failure" in result:
            tally.failures.append({"batch": start // batch, "first": chunk[0].name, **result})
        else:
            for outcome in result["outcomes"].values():
                tally.outcomes[outcome] = tally.outcomes.get(outcome, 0) + 1
            if result["lost"]:
                tally.failures.append({"batch": start // batch, "failure": "lost", "detail": result["lost"]})
            tally.internal += result["internal"]
        if journal is not None:
            with journal.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"batch": start // batch, **{k: v for k, v in result.items()
                                                                   if k != "outcomes"}}) + "\n")
        if progress:
            elapsed = time.monotonic() - began
            sys.stderr.write(f"\r{tally.inputs}/{count} inputs, {len(tally.failures)} failures, "
                             f"{len(tally.internal)} PV999, {elapsed:.0f} s")
            sys.stderr.flush()
    tally.seconds = time.monotonic() - began
    if progress:
        sys.stderr.write("\n")
    return tally


def summary(tally: Tally) -> dict:
    return {"inputs": tally.inputs, "batches": tally.batches, "seconds": round(tally.seconds, 1),
            "slowest_batch_seconds": round(tally.slowest_batch, 1), "kinds": dict(sorted(tally.kinds.items())),
            "outcomes": dict(sorted(tally.outcomes.items())), "failures": tally.failures,
            "pv999": tally.internal}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=100, help="inputs per CLI run (one directory)")
    parser.add_argument("--deadline", type=float, default=600.0, help="seconds one batch may take")
    parser.add_argument("--sim-every", type=int, default=0, help="simulate every Nth batch (0: never)")
    parser.add_argument("--out", type=Path, help="write the summary as JSON here")
    parser.add_argument("--journal", type=Path, help="append one line per batch here")
    args = parser.parse_args(argv)
    tally = fuzz(args.inputs, args.seed, args.batch, args.deadline, args.sim_every, journal=args.journal)
    result = summary(tally)
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k not in ("failures", "pv999")}, indent=1))
    print(f"{len(tally.failures)} failures, {len(tally.internal)} PV999")
    return 1 if tally.failures or tally.internal else 0


if __name__ == "__main__":
    sys.exit(main())
