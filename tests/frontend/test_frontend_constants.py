"""Static evaluation of module constants and sibling-module imports (never importing anything)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from pypto_verify import ir
from pypto_verify.frontend import read_file, read_source
from pypto_verify.frontend.constants import Dynamic, Loader, PlPath, Unknown


def scope_of(text: str, path: Path | None = None):
    path = path or Path("/nonexistent/kernel.py")
    return Loader().module_scope(path, ast.parse(textwrap.dedent(text)))


def test_integer_float_and_tuple_constants():
    scope = scope_of("""
        M, N, K = 128, 256, 1024
        TK = K // 4
        SMALL = min(M, N) - max(1, 2)
        HEAD_DIM = 128
        SCALE = 1.0 / (HEAD_DIM ** 0.5)
        SIZES = tuple(2 ** i for i in range(4))
        NAME = f"k{TK}"
    """)
    assert [scope.lookup(n) for n in ("M", "N", "K", "TK", "SMALL")] == [128, 256, 1024, 256, 126]
    assert scope.lookup("SCALE") == pytest.approx(0.08838834764831845)
    assert scope.lookup("SIZES") == (1, 2, 4, 8)
    assert scope.lookup("NAME") == "k256"


def test_dataclass_instances_properties_and_replace():
    scope = scope_of("""
        from dataclasses import dataclass, replace, field

        @dataclass(frozen=True)
        class Cfg:
            hidden: int
            heads: int = 4
            extra: tuple = field(default=(1, 2))

            @property
            def head_dim(self) -> int:
                return self.hidden // self.heads

        BASE = Cfg(hidden=1024)
        BIG = replace(BASE, heads=8)
        PRESETS = {c.heads: c for c in (BASE, BIG)}
    """)
    assert scope.lookup("BASE").values == {"hidden": 1024, "heads": 4, "extra": (1, 2)}
    evaluator = scope.evaluator
    tree = ast.parse("PRESETS[8].head_dim", mode="eval").body
    assert evaluator.eval(tree, scope) == 128


def test_environment_defaults_and_argv_functions_are_static():
    scope = scope_of("""
        import os
        import sys

        def pick():
            chosen = os.environ.get("VARIANT", "pro")
            rest = [sys.argv[0]]
            i = 1
            while i < len(sys.argv):
                rest.append(sys.argv[i])
                i += 1
            return chosen.strip().upper()

        MAX_SEQ = int(os.environ.get("MAX_SEQ", "4096"))
        VARIANT = pick()
    """)
    assert scope.lookup("MAX_SEQ") == 4096
    assert scope.lookup("VARIANT") == "PRO"


def test_pl_paths_and_dynamic_dimensions():
    scope = scope_of("""
        import pypto.language as pl
        import pypto.language.distributed as pld
        DT = pl.BF16
        B = pl.dynamic("B")
    """)
    assert scope.lookup("pl") == PlPath("") and scope.lookup("pld") == PlPath("distributed")
    assert scope.lookup("DT") == PlPath("BF16")
    assert scope.lookup("B") == Dynamic("B")


def test_what_is_not_static_is_unknown_with_a_reason():
    scope = scope_of("""
        import torch
        X = torch.zeros(4)
        Y = X + 1
        Z = open("f").read()
        BIG = 10 ** 100000
    """)
    for name in ("X", "Y", "Z", "BIG"):
        assert isinstance(scope.raw(name), Unknown)
    assert "outside what is read statically" in scope.raw("Y").reason


def test_runaway_module_code_is_bounded():
    scope = scope_of("""
        def spin():
            n = 0
            while True:
                n += 1
            return n

        N = spin()
        M = 3
    """)
    assert isinstance(scope.raw("N"), Unknown) and scope.lookup("M") == 3


def test_sibling_modules_resolve_statically(tmp_path):
    (tmp_path / "config.py").write_text("HIDDEN = 512\nTILE = HIDDEN // 4\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "dims.py").write_text("ROWS = 16\n")
    kernel = tmp_path / "kernel.py"
    kernel.write_text(textwrap.dedent("""
        import pypto.language as pl
        import config as cfg
        from config import HIDDEN
        from pkg.dims import ROWS
        from .config import TILE

        @pl.jit
        def k(x: pl.Tensor[[ROWS, HIDDEN], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, cfg.TILE], pl.FP32]]):
            y[:, :] = x[:, 0:TILE]
            return y
    """))
    result = read_file(kernel)
    assert result.errors == ()
    fn = next(fn for _, fn in result.module.functions())
    assert fn.params[0].type.shape == (ir.Const(16), ir.Const(512))
    assert fn.params[1].type.shape == (ir.Const(16), ir.Const(128))


def test_missing_sibling_is_an_error_only_where_a_kernel_uses_it(tmp_path):
    kernel = tmp_path / "kernel.py"
    kernel.write_text(textwrap.dedent("""
        import pypto.language as pl
        from gone import TILE
        import gone_too as g

        @pl.jit
        def unaffected(x: pl.Tensor[[16, 64], pl.FP32]):
            return x

        @pl.jit
        def uses(x: pl.Tensor[[16, g.N], pl.FP32]):
            return x
    """))
    result = read_file(kernel)
    assert [fn.name for _, fn in result.module.functions()] == ["unaffected"]
    assert [e.message for e in result.errors] == [
        "`g.N`; module `gone_too` was not found (no `gone_too.py` or `gone_too/__init__.py` beside the kernel file)"]


def test_sibling_modules_are_never_executed(tmp_path):
    (tmp_path / "config.py").write_text(textwrap.dedent("""
        import os
        os.system("touch " + __file__ + ".ran")
        open(__file__ + ".opened", "w").write("x")
        TILE = 64
    """))
    kernel = tmp_path / "kernel.py"
    kernel.write_text("import pypto.language as pl\nfrom config import TILE\n\n@pl.jit\n"
                      "def k(x: pl.Tensor[[16, TILE], pl.FP32]):\n    return x\n")
    result = read_file(kernel)
    assert result.errors == ()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["config.py", "kernel.py"]


def test_circular_sibling_imports_do_not_loop(tmp_path):
    (tmp_path / "a.py").write_text("from b import Y\nX = 1\n")
    (tmp_path / "b.py").write_text("from a import X\nY = X + 1\n")
    kernel = tmp_path / "kernel.py"
    kernel.write_text("import pypto.language as pl\nfrom a import X\n\n@pl.jit\n"
                      "def k(x: pl.Tensor[[16, 64], pl.FP32]):\n    return x\n")
    assert read_file(kernel).errors == ()


def test_non_static_module_name_in_a_kernel_is_symbolic_with_a_warning():
    result = read_source(textwrap.dedent("""
        import pypto.language as pl
        import torch
        N = torch.get_num_threads()

        @pl.jit
        def k(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
            for i in pl.range(N):
                y[:, :] = x
            return y
    """), "k.py")
    assert result.errors == ()
    assert [w.message for w in result.warnings] == [
        "module name `N`; not a static constant (`torch.get_num_threads` is outside what is read statically); "
        "treated as a symbolic value"]
    loop = next(fn for _, fn in result.module.functions()).body[0]
    assert loop.stop == ir.Call("dynamic", (ir.Const("N"),))


CONFIG = '''
    from dataclasses import dataclass
    import pypto.language as pl
    import torch


    @dataclass(frozen=True)
    class Dims:
        """Dynamic dimensions."""

        batch: object
        rows: object


    @dataclass(frozen=True)
    class Model:
        hidden: int
        heads: int = 8

        @property
        def head_dim(self) -> int:
            return self.hidden // self.heads


    class Open:
        def __getattr__(self, name):
            return 16


    class Grows:
        def set_width(self, w):
            self.width = w


    class Derived(torch.nn.Module):
        pass


    DIMS = Dims(batch=pl.dynamic("B"), rows=pl.dynamic("R"))
    MODEL = Model(hidden=512)
'''


@pytest.mark.parametrize("expr, error", [
    ("D.user_batch", "`D.user_batch`; class `Dims` (config.py:8) has no field or attribute `user_batch`: importing "
                     "this file raises AttributeError (`N` is read by a kernel at line 10)"),
    ("M.batch", "`M.batch`; class `Model` (config.py:16) has no field or attribute `batch`: importing this file "
                "raises AttributeError (`N` is read by a kernel at line 10)"),
    ("M.head_dim", None),  # a property: 64
    ("Model.heads", None),  # a class attribute with a default
    ("O.rows", None),  # `__getattr__` answers any name: not a closed class
    ("Grows().width", None),  # a method adds attributes at run time
    ("Derived.width", None),  # a base we cannot read
])
def test_an_attribute_a_closed_class_lacks_is_an_error_at_the_access(tmp_path, expr, error):
    """`D.user_batch` of pypto-lib's `qwen3_14b/decode_tq_draft.py` (issue 13): the config dataclass has no
    such field, so importing the file raises AttributeError. That is a PV000 at the access that names the
    class, its file and the field, never a symbolic dimension."""
    (tmp_path / "config.py").write_text(textwrap.dedent(CONFIG))
    kernel = tmp_path / "kernel.py"
    kernel.write_text(textwrap.dedent(f"""
        import pypto.language as pl
        from config import DIMS as D, MODEL as M, Model, Open, Grows, Derived
        O = Open()
        N = {expr}

        @pl.jit
        def k(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                for i in pl.range(N):
                    y[:, :] = x
            return y
    """))
    result = read_file(kernel)
    if error is None:
        assert result.errors == ()
        return
    assert [e.message for e in result.errors] == [error]
    assert [(e.span.path, e.span.line, e.span.col) for e in result.errors] == [(str(kernel), 5, 5)]


def test_an_import_error_names_its_file_as_the_run_was_given_it(tmp_path, monkeypatch):
    """A relative kernel path stays relative in the error, for the kernel's own access and for one in a
    sibling module (pypto-lib's `decode_ssn_draft.py:55` was reported under an absolute path)."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "config.py").write_text(textwrap.dedent(CONFIG) + "\nBATCH = MODEL.batch\n")
    body = """
        import pypto.language as pl
        from config import MODEL as M, BATCH
        N = {expr}

        @pl.jit
        def k(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                for i in pl.range(N):
                    y[:, :] = x
            return y
    """
    (folder / "own.py").write_text(textwrap.dedent(body.format(expr="M.batch")))
    (folder / "sibling.py").write_text(textwrap.dedent(body.format(expr="BATCH")))
    monkeypatch.chdir(tmp_path)
    (own,) = read_file("models/own.py").errors
    assert (own.span.path, own.span.line) == ("models/own.py", 4)
    (sibling,) = read_file("models/sibling.py").errors
    assert sibling.span.path == "models/config.py"
    assert sibling.message.endswith("(`N` is read by a kernel at models/sibling.py:9:27)"), sibling.message
