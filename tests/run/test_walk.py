"""The walk and the reads (issue 15, item 1): no symlink loop, FIFO, device, directory or dangling link named
`*.py` stops the run or blocks it — with the cache or without — and a file over `--max-file-size` is one
PV000 naming its size and the limit. Each tree is built in tmp_path; every run has a wall-clock limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hostile import GOOD, check
from pypto_verify.run.inputs import collect_files


def _odd_tree(root: Path) -> Path:
    """A directory holding a clean kernel and every file-system oddity, some named in the kernel's imports."""
    tree = root / "kernels"
    tree.mkdir()
    (tree / "good.py").write_text("from f import X\nfrom x import Y\nimport dangling, zero\n" + GOOD)
    os.mkfifo(tree / "f.py")                      # a FIFO: opening it for reading would block
    (tree / "x.py").mkdir()                       # a directory named like a module
    (tree / "x.py" / "inner.py").write_text(GOOD)
    (tree / "dangling.py").symlink_to(tree / "nowhere.py")
    (tree / "zero.py").symlink_to("/dev/zero")    # a device: an unbounded read
    (tree / "loop_a.py").symlink_to(tree / "loop_b.py")
    (tree / "loop_b.py").symlink_to(tree / "loop_a.py")
    (tree / "sub").mkdir()
    (tree / "sub" / "up").symlink_to(tree, target_is_directory=True)  # a directory loop
    return tree


def test_the_walk_follows_no_symlink_loop_and_lists_no_directory(tmp_path: Path) -> None:
    tree = _odd_tree(tmp_path)
    names = sorted(p.relative_to(tree).as_posix() for p in collect_files([str(tree)]))
    assert names == ["dangling.py", "f.py", "good.py", "loop_a.py", "loop_b.py", "x.py/inner.py", "zero.py"]


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_file_system_oddities_are_located_pv000_and_never_block(tmp_path: Path, cache: bool) -> None:
    tree = _odd_tree(tmp_path)
    done = check(str(tree), "--no-sim", *(() if cache else ("--no-cache",)), cwd=tmp_path, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stdout + done.stderr
    lines = {line.split(": PV000 input-error: ")[0]: line.split(": PV000 input-error: ")[1]
             for line in done.stdout.splitlines() if ": PV000 " in line}
    assert lines == {
        f"{tree}/dangling.py:1:1": "unreadable file; a dangling symlink",
        f"{tree}/f.py:1:1": "not a regular file; it is a FIFO; a kernel file is Python source text",
        f"{tree}/loop_a.py:1:1": "unreadable file; a symlink loop",
        f"{tree}/loop_b.py:1:1": "unreadable file; a symlink loop",
        f"{tree}/zero.py:1:1": "not a regular file; it is a device; a kernel file is Python source text",
    }
    assert "2 kernels (2 verified" in done.stdout  # good.py (its odd imports are unused) and x.py/inner.py


def test_a_file_over_the_size_limit_is_pv000_naming_its_size_and_the_limit(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text(GOOD + "#" * 5000 + "\n")
    (tmp_path / "good.py").write_text(GOOD)
    done = check("big.py", "good.py", "--no-sim", "--max-file-size", "4096", cwd=tmp_path)
    size = (tmp_path / "big.py").stat().st_size
    assert f"big.py:1:1: PV000 input-error: file too large; it has {size} bytes; the limit is 4096 bytes " \
           "(--max-file-size)" in done.stdout
    assert "1 kernel (1 verified" in done.stdout and done.returncode == 2


def test_an_imported_module_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "dims.py").write_text("ROWS = 64\n" + "#" * 5000 + "\n")
    (tmp_path / "kernel.py").write_text("from dims import ROWS\n" + GOOD.replace("[[64, 512]", "[[ROWS, 512]"))
    done = check("kernel.py", "--no-sim", "--max-file-size", "4096", cwd=tmp_path)
    assert "Traceback" not in done.stderr and done.returncode == 2, done.stdout + done.stderr
    assert "kernel.py:6:21: PV000 input-error: name `ROWS`; module `dims` (dims.py) cannot be read: file too large; " \
           "it has 5011 bytes; the limit is 4096 bytes (--max-file-size)" in done.stdout
