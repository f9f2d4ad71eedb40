"""Input errors (PV000): one exact diagnostic per problem, the other kernels of the file still read.

Each file in `invalid/` ends with `# expect: LINE:COL MESSAGE` lines (the diagnostics, in order) and an
`# expect-functions:` line (the functions that still parse). Binary and empty inputs, the side-effect
file, the 1 MB kernel and deep nesting are checked here directly.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pypto_verify.frontend import read_file, read_source

INVALID = Path(__file__).parent / "invalid"
COMMENTED = sorted(p.name for p in INVALID.glob("*.py") if b"# expect-functions:" in p.read_bytes())


def _expectations(path: Path) -> tuple[list[str], list[str]]:
    errors: list[str] = []
    functions: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# expect: "):
            errors.append(line[len("# expect: "):])
        elif line.startswith("# expect-functions:"):
            functions = line[len("# expect-functions:"):].split()
    return errors, functions


def test_every_commented_case_is_collected():
    assert {"syntax_error.py", "undefined_name.py", "unsupported_statement.py", "wrong_annotation.py",
            "nonconstant_shape.py", "missing_module.py", "defined_in_loop.py", "side_effects.py"} <= set(COMMENTED)


@pytest.mark.parametrize("name", COMMENTED)
def test_invalid_file_gives_its_exact_diagnostics(name):
    path = INVALID / name
    expected_errors, expected_functions = _expectations(path)
    result = read_file(path)
    got = [f"{e.span.line}:{e.span.col} {e.message}" for e in result.errors]
    assert got == expected_errors
    assert all(e.span.path == str(path) for e in result.errors)
    assert all(str(e).startswith(f"{path}:{e.span.line}:{e.span.col}: PV000 input-error: ") for e in result.errors)
    assert [fn.name for _, fn in result.module.functions()] == expected_functions


def test_wrong_annotation_message_names_both_types():
    result = read_file(INVALID / "wrong_annotation.py")
    assert str(result.errors[0]).endswith(
        "PV000 input-error: type annotation of `c`; annotation says [16, 64] FP32 Acc but "
        "`pl.tile.matmul` gives [16, 128] FP32 Acc")


def test_binary_garbage_is_one_error():
    result = read_file(INVALID / "binary_garbage.py")
    assert [str(e) for e in result.errors] == [
        f"{INVALID / 'binary_garbage.py'}:1:1: PV000 input-error: binary file; it contains NUL bytes; "
        "a kernel file is Python source text"]
    assert result.module.programs == ()


def test_non_utf8_bytes_are_one_error(tmp_path):
    path = tmp_path / "latin1.py"
    path.write_bytes(b"x = '\xe9t\xe9'\n")
    result = read_file(path)
    assert [e.message for e in result.errors] == ["binary file; it is not UTF-8 text (byte 5)"]


def test_empty_file_is_one_error():
    result = read_file(INVALID / "empty.py")
    assert [f"{e.span.line}:{e.span.col} {e.message}" for e in result.errors] == [
        "1:1 empty file; it holds no statements; a kernel file defines `@pl.program` classes or "
        "`@pl.jit` / `@pl.function` functions"]


def test_empty_package_init_is_not_an_error(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    assert read_file(tmp_path / "__init__.py").errors == ()


def test_missing_file_is_one_error(tmp_path):
    result = read_file(tmp_path / "nope.py")
    assert len(result.errors) == 1 and result.errors[0].message.startswith("unreadable file; ")


def test_side_effects_at_import_time_never_happen(tmp_path):
    copy = tmp_path / "side_effects.py"
    shutil.copy(INVALID / "side_effects.py", copy)
    result = read_file(copy)
    assert result.errors == ()
    assert [fn.name for _, fn in result.module.functions()] == ["copy_tile"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["side_effects.py"]
    assert not list(INVALID.glob("side_effects.marker*"))


def test_one_megabyte_kernel_parses_and_the_error_after_it_is_exact(tmp_path):
    lines = ["import pypto.language as pl", "", "", "@pl.jit",
             "def big(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):",
             "    t = x"]
    while sum(len(line) + 1 for line in lines) < 1_000_000:
        lines.append(f"    t = pl.add(t, pl.mul(x, {len(lines)}.0))  # a long line of vector work")
    lines += ["    y[:, :] = t", "    return y", "", "", "@pl.jit",
              "def after(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):",
              "    y[:, :] = pl.add(x, missing)", "    return y"]
    path = tmp_path / "big.py"
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size >= 1_000_000
    result = read_file(path)
    line = len(lines) - 1
    assert [str(e) for e in result.errors] == [
        f"{path}:{line}:25: PV000 input-error: undefined name `missing`; it is not a parameter, a local, "
        "a module constant or an import"]
    (big,) = [fn for _, fn in result.module.functions()]
    assert big.name == "big" and len(big.body) > 10_000


def _deep_blocks(depth: int) -> str:
    lines = ["import pypto.language as pl", "", "", "@pl.jit",
             "def deep(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):",
             "    t = x"]
    for i in range(depth):
        lines.append("    " * (i + 1) + f"for i{i} in pl.range(2):")
    lines.append("    " * (depth + 1) + "t = pl.add(t, x)")
    lines += ["    y[:, :] = t", "    return y"]
    return "\n".join(lines) + "\n"


def test_200_deep_block_nesting_is_one_clean_error():
    result = read_source(_deep_blocks(200), "deep.py")
    # Python's tokenizer stops at 100 indentation levels: one PV000, not a crash
    assert [str(e) for e in result.errors] == [
        "deep.py:106:1: PV000 input-error: syntax error; too many levels of indentation"]


def test_deepest_block_nesting_python_accepts_is_read():
    result = read_source(_deep_blocks(98), "deep.py")
    assert result.errors == ()
    (fn,) = [fn for _, fn in result.module.functions()]
    loop, depth = fn.body[1], 1
    while loop.body and hasattr(loop.body[0], "body"):
        loop, depth = loop.body[0], depth + 1
    assert depth == 98


def test_200_deep_expression_nesting_is_one_error_and_the_other_kernel_parses():
    text = ("import pypto.language as pl\n\n\n@pl.jit\n"
            "def good(x: pl.Tensor[[16, 64], pl.FP32]):\n    return x\n\n\n@pl.jit\n"
            "def deep(x: pl.Tensor[[16, 64], pl.FP32]):\n"
            "    t = " + "pl.exp(" * 199 + "x" + ")" * 199 + "\n    return t\n")
    result = read_source(text, "deep.py")
    assert [str(e) for e in result.errors] == [
        "deep.py:11:709: PV000 input-error: expression nested 100+ levels deep; the kernel language reads "
        "expressions up to 100 levels deep"]
    assert [fn.name for _, fn in result.module.functions()] == ["good"]


def test_nesting_python_itself_rejects_is_one_clean_error():
    text = "import pypto.language as pl\nX = " + " + ".join(["1"] * 5000) + "\n"
    result = read_source(text, "chain.py")
    assert [str(e) for e in result.errors] == [
        "chain.py:1:1: PV000 input-error: source nested too deeply; Python's parser gives up on it"]


def test_recursion_in_our_own_walk_is_a_pv000(monkeypatch):
    from pypto_verify.frontend import reader

    def explode(self, node, top=False):
        raise RecursionError("simulated")

    monkeypatch.setattr(reader.FunctionReader, "_read_stmt", explode)
    result = read_source("import pypto.language as pl\n\n@pl.jit\ndef k(x: pl.Tensor[[4, 4], pl.FP32]):\n"
                         "    return x\n", "r.py")
    assert [str(e) for e in result.errors] == [
        "r.py:4:1: PV000 input-error: function `k`; its statements or expressions are nested too deeply to read"]


def test_errors_come_in_source_order_one_per_kernel():
    result = read_file(INVALID / "unsupported_statement.py")
    lines = [e.span.line for e in result.errors]
    assert lines == sorted(lines) and len(lines) == 5


def test_an_unsupported_statement_names_an_accumulator_made_by_an_aliased_matmul():
    text = (
        "import pypto.language as pl\n"
        "from pypto.language import matmul as mm\n\n\n"
        "@pl.jit\n"
        "def k(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"k\"):\n"
        "        acc = mm(a, b)\n"
        "        while False:\n"
        "            acc = mm(a, b)\n"
        "        y[:, :] = acc\n"
        "    return y\n")
    result = read_source(text, "k.py")
    assert [str(e) for e in result.errors] == [
        "k.py:9:9: PV000 input-error: `while` loop inside kernel `k`; not in the kernel language, and it "
        "touches the accumulator `acc`"]


def test_a_broken_method_unlinks_calls_to_itself_only_in_its_own_program():
    # B.k has an input error: B.run's `self.k(x)` becomes an opaque extern call, A.run's stays a call of A.k
    method = ("    @pl.function(type=pl.FunctionType.InCore)\n"
              "    def k(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
              "        return {body}\n\n"
              "    @pl.function(type=pl.FunctionType.Orchestration)\n"
              "    def run(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
              "        y = self.k(x)\n"
              "        return y\n")
    text = ("import pypto.language as pl\n\n\n@pl.program\nclass A:\n" + method.format(body="x") +
            "\n\n@pl.program\nclass B:\n" + method.format(body="undefined_name"))
    result = read_source(text, "k.py")
    assert len(result.errors) == 1 and "undefined_name" in str(result.errors[0])
    calls = {program.name: [s.value.op for fn in program.functions if fn.name == "run" for s in fn.body
                            if hasattr(s, "value") and hasattr(s.value, "op")]
             for program in result.module.programs}
    assert calls == {"A": ["self.k"], "B": ["extern.self.k"]}
