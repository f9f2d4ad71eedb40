"""Every production of PyPTO's own IR printer, read by the Form 3 reader (issue 13).

Grammar source: hw-native-sys/pypto at commit e2d0f78ae6d709c0d6ee345a48db2c3d621a4b09 (Aug 21 2026),
  src/ir/transforms/python_printer.cpp   (IRPythonPrinter: types, expressions, statements, functions, programs)
  include/pypto/ir/function.h            (FunctionType / Level / Role spellings)
  include/pypto/core/dtype.h             (DataTypeToString), src/ir/memref.cpp (MemorySpaceToString),
  src/ir/type.cpp                        (TensorLayout / TileLayout spellings), include/pypto/ir/comm.h (AtomicType)
Not testable as a production: InlineStmt (a verbatim text body the printer pastes as is). Known not-Python
output of the printer: `a xor b` (see test_xor_is_a_syntax_error).
The snippets below are written here in the printer's style (4-space indent, annotated SSA assignments,
`pl.` prefix); none is copied from the compiler's sources or tests.

The grammar, production by production with the printer function of each: docs/form3-grammar.md.

Production -> test
  program header comment, `import pypto.language as pl`, `@pl.program class`  -> test_program_header_and_class
  the dump after `ruff format` (wrapped lines, double quotes, `n**2`)          -> test_ruff_formatted_dump_reads_as_the_raw_one
  a function printed alone (no class, no `self`)                               -> test_function_printed_outside_a_program
  `from pypto import language as <prefix>` (a non-`pl` prefix)                 -> test_other_prefix_import
  module-level `N = pl.dynamic("N")` dims                                      -> test_dynamic_dims_declared_at_module_level
  a `pl.dynamic` that is also a parameter (valid-shape symbols)                -> test_valid_shape_symbol_declared_and_passed
  bare `@pl.function` (FunctionType.Opaque)                                    -> test_bare_function_decorator
  `type=pl.FunctionType.<Opaque|Orchestration|InCore|AIC|AIV>`                 -> test_modelled_function_types
  `type=pl.FunctionType.<Group|Spmd|Inline|Graph>`                             -> test_unmodelled_function_types_warn
  `level=pl.Level.<X>`, `role=pl.Role.<X>`                                     -> test_level_and_role
  `auto_scope=False`, `external_source="..."`                                  -> test_auto_scope_and_external_source
  SubWorker method without `self`                                              -> test_level_and_role
  params `pl.InOut[T]` / `pl.Out[T]`, `-> T`, `-> tuple[T, T]`                 -> test_param_directions_and_returns
  `pl.func_attr({...})` prologue (every attr-value codec)                      -> test_func_attr_prologue
  abstract body `...`, empty body `pass`                                       -> test_abstract_and_empty_bodies
  `pl.Scalar[pl.<DTYPE>]` (every DataTypeToString spelling)                    -> test_scalar_dtypes,
                                                           test_scalar_dtypes_outside_the_model_are_left_open
  `pl.Tensor[[dims], dt]`, composite dims `pl.const(v, pl.INDEX) + n`          -> test_tensor_and_composite_dims
  `pl.Tensor[..., pl.TensorView(valid_shape=, stride=, layout=, pad=)]`         -> test_tensor_view_forms
  `pl.Tensor[..., pl.TensorView()]`                                             -> test_tensor_view_forms
  `pl.Tensor[..., pl.TensorView(...), pl.MemRef("mem_ddr_0", 0, N)]`           -> test_tensor_view_with_ddr_memref
  `pld.DistributedTensor[...]`                                                 -> test_frontend_form23 (existing)
  `pl.Array[N, dt]`                                                            -> test_unmodelled_types_left_open
  `pl.Tile[[dims], dt, MemRef, pl.Mem.<X>, pl.TileView(...)]` (every field)    -> test_tile_annotation_forms
  `pl.Tile[..., pl.TileView()]`, each memory space spelling                    -> test_tile_annotation_forms,
                                                                                 test_tile_in_ddr
  `pl.Tile[[dims], dt(, MemRef)(, pl.TileView(...))]` with no memory space     -> test_tile_annotation_without_memory_space
  `pl.Mem.Unknown` (PV000), dtype `pl.UnknownType` (left open)                 -> test_unknown_memory_space_and_dtype
  `pl.Mem.<LeftScale|RightScale|ScalarLocal>` (not modelled: PV000)            -> test_tile_memory_spaces_outside_the_model
  `pl.Tuple[()]`, `pl.Tuple[T, T]`                                             -> test_pl_tuple_types
  `pl.Ptr`, `pl.MemRefType`, `pld.WindowBufferType`, `pld.CommCtxType`,
    `pl.PrefetchAsyncContext`, `pl.AsyncEvent`, `pl.AsyncSession`, `pl.UnknownType` -> test_unmodelled_types_left_open
  MemRef: quoted / bare base, `pl.const(o, pl.INT64)` offset, `slots=N`, `[k]` -> test_memref_forms
  MemRef with a runtime slot index, pinned one-argument `pl.MemRef("b")`       -> test_memref_forms_not_modelled
  MemRef with an expression byte offset (PV000)                                -> test_memref_at_a_runtime_offset_is_not_modelled
  `pl.tensor.alloc(pl.Mem.DDR, n)`                                            -> test_tensor_alloc
  names disambiguated by the printer (`i`, `i_1`)                              -> test_disambiguated_names
  `00_frontend.py`: a variable reassigned in a loop before ConvertToSSA        -> test_frontend_dump_before_ssa
  literals: bare int, `pl.const(int|float, dt)`, floats (`4.0`, `1e-07`), bools -> test_literals
  `nan` / `inf`, `<name>__FREE_VAR` (malformed IR: PV000)                     -> test_non_finite_floats_and_free_vars_are_undefined_names
  binary `+ - * // % / **`, compare, `and`/`or`, `not`, unary `-`              -> test_scalar_operators
  bitwise `& | ^ << >>`, `~`                                                   -> test_bitwise_operators_are_opaque
  `xor` (printed as a word: not Python)                                        -> test_xor_is_a_syntax_error
  `pl.min(a, b)`, `pl.max(a, b)`, `abs(a)`, `pl.cast(a, pl.DT)`                 -> test_min_max_abs_cast
  op calls `pl.tile.X(...)` / `pl.tensor.X` / `pl.system.X` / `pld.X`,
    keyword arguments of every kwarg codec, `attrs={...}`                      -> test_op_calls_and_kwarg_codecs
  keyword-named ops `pl.tile.and_(...)`                                        -> test_op_calls_and_kwarg_codecs
  `pld.tile.X(...)`, `pld.tile._remote_load_with_physical_tail_padding(...)`    -> test_pld_calls
  `pl.array.X` / `pl.builtin.tensor.X` / `pl.dist.X` / `pl.prefetch.X` ops      -> test_other_op_namespaces
  special call forms: full / reinterpret_view / syncall / gather_row / mgather /
    alloc / task_dummy                                                          -> test_special_call_forms
  `self.f(args, device=..., attrs={"arg_directions": [pl.adir.X], ...})`       -> test_cross_function_calls
  `pl.submit(self.f, ..., deps=, dumps=, allow_early_resolve=, predicate=)`,
    `pl.spmd_submit(self.f, ..., core_num=, sync_start=True)`                  -> test_submit_forms
  list `[a, b]` (MakeTuple), `t[0]` (TupleGetItem)                            -> test_make_tuple_and_get_item
  `x: T = v` and concise `x = v`                                              -> test_annotated_and_concise_assign
  `if`/`else` with `v: T = pl.yield_(...)`, `a, b = pl.yield_(...)`, no else   -> test_if_forms
  `for i in pl.<range|unroll|parallel|pipeline>(stop | start, stop | start, stop, step)` -> test_for_kinds_and_bounds
  `for i, (a,) in pl.range(..., init_values=(x,), attrs={...})`, `stage=`      -> test_for_iter_args_and_attrs
  `while cond:`                                                                -> test_while_loops_are_not_modelled
  `for (a,) in pl.while_(init_values=(x,)):` + `pl.cond(c)`                   -> test_while_loops_are_not_modelled
  either, running a tile or tensor op (PV000)                                  -> test_while_loop_running_data_ops_is_not_modelled
  `pl.yield_()` ending a body that carries nothing                             -> test_empty_yield_statement
  `break`, `continue`                                                          -> test_break_and_continue
  `with pl.at(level=pl.Level.CORE_GROUP, optimizations=[...], name_hint=, deps=,
    no_dep_args=, dumps=, allow_early_resolve=, windowize=) as tid:`          -> test_at_scopes
  `with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):`               -> test_at_scopes
  `with pl.cluster(...)`, `with pl.scope()`, `with pl.scope(mode=pl.ScopeMode.MANUAL)` -> test_cluster_and_runtime_scopes
  `with pl.scope():` wrapping a loop body whose yield follows it               -> test_runtime_scope_inside_loop_keeps_yield
  `with pl.scope():` that is a whole loop body or `if` arm, yield inside it    -> test_runtime_scope_that_is_a_whole_body_holds_its_yield
  `with pl.spmd(n, ...) [as tid]:`, `for i in pl.spmd(n, ...):`               -> test_spmd_scopes
  `for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.X):`                       -> test_split_aiv_region
  `# leading comment`, `# pld.comm_domain: ...`                               -> test_comments
  eval statement `pl.system.sync_set(...)`, `return a, b`, bare `return`      -> test_eval_and_return
"""

from __future__ import annotations

import textwrap

import pytest

from pypto_verify import ir
from pypto_verify.frontend import ParseResult, read_source
from pypto_verify.printer import print_module

HEADER = "# pypto.program: P\nimport pypto.language as pl\n\n"


def program(body: str, *, sig: str = "self, x: pl.Tensor[[16, 64], pl.FP32]", ret: str = "",
            decorator: str = "@pl.function(type=pl.FunctionType.InCore)", prelude: str = "") -> str:
    """One printed program `P` with one function `main` whose body is *body* (dedented)."""
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    arrow = f" -> {ret}" if ret else ""
    return (f"{HEADER}{prelude}@pl.program\nclass P:\n    {decorator}\n"
            f"    def main({sig}){arrow}:\n{inner}\n")


def read(text: str) -> ParseResult:
    return read_source(text, "k.py")


def read_ok(text: str) -> ir.Module:
    """The module *text* reads as, without errors; printed by our printer, it reads back the same."""
    result = read(text)
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    return result.module


def main_of(text: str) -> ir.Function:
    return read_ok(text).programs[0].functions[0]


def assert_round_trips(module: ir.Module) -> None:
    """Printed by pypto-verify's own printer, the module reads back to the same IR."""
    again = read(print_module(module))
    assert again.errors == (), [str(e) for e in again.errors]
    assert again.module.programs == module.programs


def warned(result: ParseResult, *parts: str) -> bool:
    return any(all(p in str(w) for p in parts) for w in result.warnings)


def only_error(text: str) -> str:
    result = read(text)
    assert len(result.errors) == 1, [str(e) for e in result.errors]
    return str(result.errors[0])


T16 = "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
LOAD = f"t: {T16} = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)"


# ---------------------------------------------------------------------------------------------- program


def test_program_header_and_class():
    module = read_ok(program(f"{LOAD}\nreturn x", ret="pl.Tensor[[16, 64], pl.FP32]"))
    (prog,) = module.programs
    assert prog.name == "P" and [f.name for f in prog.functions] == ["main"]
    fn = prog.functions[0]
    assert fn.has_self and fn.kind is ir.FunctionKind.INCORE
    assert fn.body[-1] == ir.Return((ir.Var("x"),))


RAW_DUMP = f"""{HEADER}@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.BF16]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.BF16]:
        t: {T16} = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.BF16, mode='round')
        for i, (acc,) in pl.range(0, n ** 2, pl.const(1, pl.INDEX) + pl.const(1, pl.INDEX), init_values=(u,)):
            nxt: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.maximum(acc, acc)
            out: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.yield_(nxt)
        y__ssa_v1: pl.Tensor[[16, 64], pl.BF16] = pl.tile.store(out, [0, 0], y)
        return y__ssa_v1
"""

RUFF_DUMP = f"""# pypto.program: P
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def main(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[16, 64], pl.BF16]],
        n: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[16, 64], pl.BF16]:
        t: {T16} = pl.tile.load(
            x, [0, 0], [16, 64], target_memory=pl.Mem.Vec
        )
        u: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(
            t,
            target_type=pl.BF16,
            mode="round",
        )
        for i, (acc,) in pl.range(
            0, n**2, pl.const(1, pl.INDEX) + pl.const(1, pl.INDEX), init_values=(u,)
        ):
            nxt: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.maximum(acc, acc)
            out: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.yield_(nxt)
        y__ssa_v1: pl.Tensor[[16, 64], pl.BF16] = pl.tile.store(out, [0, 0], y)
        return y__ssa_v1
"""
"""The same program after `ruff format` (pass dumps go through it when ruff is on PATH: python_print's
format callback, pypto/ir/formatter.py): wrapped lines, double quotes, `**` hugged, magic trailing commas."""


def test_ruff_formatted_dump_reads_as_the_raw_one():
    raw, formatted = read_ok(RAW_DUMP), read_ok(RUFF_DUMP)
    assert formatted.programs == raw.programs
    loop = raw.programs[0].functions[0].body[2]
    assert loop.stop == ir.BinOp("**", ir.Var("n"), ir.Const(2)) and loop.step == ir.BinOp("+", ir.Const(1, ir.DType.INDEX), ir.Const(1, ir.DType.INDEX))
    assert raw.programs[0].functions[0].body[1].value.kwarg("mode") == ir.Const("round")


def test_function_printed_outside_a_program():
    """`python_print(function)`: VisitFunction with no program, so no `self` and no class."""
    module = read_ok(f"""import pypto.language as pl

@pl.function(type=pl.FunctionType.InCore)
def main(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    {LOAD}
    return x
""")
    (prog,) = module.programs
    assert prog.name is None and [f.name for f in prog.functions] == ["main"]
    assert not prog.functions[0].has_self and prog.functions[0].kind is ir.FunctionKind.INCORE


def test_other_prefix_import():
    text = program(f"{LOAD}\nreturn x").replace("import pypto.language as pl", "from pypto import language as ir")
    text = text.replace("pl.", "ir.")
    fn = main_of(text)
    assert fn.body[0].type == ir.TileType((ir.Const(16), ir.Const(64)), ir.DType.FP32, ir.MemSpace.Vec)


def test_dynamic_dims_declared_at_module_level():
    text = program("""
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        return x
    """, sig="self, x: pl.Tensor[[M, 64], pl.FP32]", prelude='M = pl.dynamic("M")\n\n')
    fn = main_of(text)
    dim = fn.params[0].type.shape[0]
    assert dim == ir.Call("dynamic", (ir.Const("M"),))


def test_valid_shape_symbol_declared_and_passed():
    """After MaterializeValidShapeSymbols a scalar parameter is also named in a tensor parameter's
    `valid_shape`, so the printer declares it `pl.dynamic` as well."""
    result = read(program("""
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.tile.load(x, [0, 0], [16, 64], [rows, 64], target_memory=pl.Mem.Vec)
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[rows, 64], stride=[64, 1], "
             "layout=pl.TensorLayout.ND)], rows: pl.Scalar[pl.INDEX]", prelude='rows = pl.dynamic("rows")\n\n'))
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    fn = result.module.programs[0].functions[0]
    assert fn.params[1].type == ir.ScalarType(ir.DType.INDEX)
    assert fn.body[0].type.valid_shape == (ir.Var("rows"), ir.Const(64))


# ---------------------------------------------------------------------------------------------- functions


def test_bare_function_decorator():
    fn = main_of(program(f"{LOAD}\nreturn x", decorator="@pl.function"))
    assert fn.decorator == "function" and fn.attrs == ()


@pytest.mark.parametrize("name,kind", [
    ("Opaque", ir.FunctionKind.OPAQUE), ("Orchestration", ir.FunctionKind.ORCHESTRATION),
    ("InCore", ir.FunctionKind.INCORE), ("AIC", ir.FunctionKind.AIC), ("AIV", ir.FunctionKind.AIV)])
def test_modelled_function_types(name, kind):
    fn = main_of(program(f"{LOAD}\nreturn x", decorator=f"@pl.function(type=pl.FunctionType.{name})"))
    assert fn.kind is kind and fn.attrs == ()


@pytest.mark.parametrize("name,kind", [
    ("Group", ir.FunctionKind.OPAQUE), ("Spmd", ir.FunctionKind.OPAQUE), ("Inline", ir.FunctionKind.OPAQUE),
    ("Graph", ir.FunctionKind.ORCHESTRATION)])
def test_unmodelled_function_types_warn(name, kind):
    text = program("y: pl.Tensor[[16, 64], pl.FP32] = self.k(x)\nreturn y",
                   decorator=f"@pl.function(type=pl.FunctionType.{name})")
    result = read(text)
    assert result.errors == ()
    assert_round_trips(result.module)
    fn = result.module.programs[0].functions[0]
    assert fn.kind is kind
    assert warned(result, f"pl.FunctionType.{name}", kind.value)


@pytest.mark.parametrize("level", ["AIV", "AIC", "CORE_GROUP", "CHIP_DIE", "CHIP", "HOST", "CLUSTER_0",
                                   "CLUSTER_1", "CLUSTER_2", "GLOBAL"])
def test_level_and_role(level):
    text = program(f"{LOAD}\nreturn x", sig="x: pl.Tensor[[16, 64], pl.FP32]",
                   decorator=f"@pl.function(type=pl.FunctionType.AIV, level=pl.Level.{level}, role=pl.Role.SubWorker)")
    fn = main_of(text)
    assert fn.kind is ir.FunctionKind.AIV and not fn.has_self
    assert fn.attrs == (("level", ir.Sym(f"Level.{level}")), ("role", ir.Sym("Role.SubWorker")))
    fn = main_of(program(f"{LOAD}\nreturn x", decorator="@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)"))
    assert fn.attrs == (("level", ir.Sym("Level.HOST")), ("role", ir.Sym("Role.Orchestrator")))


def test_auto_scope_and_external_source():
    fn = main_of(program(f"{LOAD}\nreturn x",
                         decorator='@pl.function(type=pl.FunctionType.Orchestration, auto_scope=False, '
                                   'external_source="kernels/k.cpp")'))
    assert fn.kind is ir.FunctionKind.ORCHESTRATION
    assert fn.attrs == (("auto_scope", ir.Const(False)), ("external_source", ir.Const("kernels/k.cpp")))


def test_param_directions_and_returns():
    text = program("""
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        y__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], y)
        z__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], z)
        return y__ssa_v1, z__ssa_v1
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], "
             "z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        ret="tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]")
    fn = main_of(text)
    assert [p.direction for p in fn.params] == [ir.Direction.IN, ir.Direction.INOUT, ir.Direction.OUT]
    assert len(fn.return_types) == 2 and all(isinstance(t, ir.TensorType) for t in fn.return_types)


def test_func_attr_prologue():
    text = program("""
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "n": 3, "flag": True, "tag": "a\\"b", "eps": 1e-07, "dt": pl.BF16, "mem": pl.Mem.Acc, "lay": pl.TensorLayout.DN, "tl": pl.TileLayout.col_major, "pad": pl.PadValue.min, "dir": pl.adir.output_existing, "dirs": [pl.adir.input, pl.adir.inout, pl.adir.no_dep, pl.adir.scalar, pl.adir.output], "idx": [0, 2], "vars": [x], "v": x, "e": x})
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        return x
    """)
    result = read(text)
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    fn = result.module.programs[0].functions[0]
    prologue = fn.body[0]
    assert isinstance(prologue, ir.Eval) and prologue.value.op == "func_attr"
    attrs = dict(prologue.value.args[0].items)
    assert attrs["split"] == ir.Sym("SplitMode.UP_DOWN") and attrs["dirs"].items[0] == ir.Sym("adir.input")
    assert attrs["vars"] == ir.ListExpr((ir.Var("x"),)) and attrs["tag"] == ir.Const('a"b')
    assert warned(result, "pl.func_attr", "kept, not checked")
    assert isinstance(fn.body[1], ir.Assign) and fn.body[1].value.op == "tile.load"


def test_abstract_and_empty_bodies():
    text = (f"{HEADER}@pl.program\nclass P:\n"
            "    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)\n"
            "    def cb(x: pl.Tensor[[16, 64], pl.FP32]):\n        ...\n\n"
            "    @pl.function(type=pl.FunctionType.Orchestration)\n"
            "    def nothing(self):\n        pass\n")
    module = read_ok(text)
    assert [(f.name, f.body) for f in module.programs[0].functions] == [("cb", ()), ("nothing", ())]


# ---------------------------------------------------------------------------------------------- types


@pytest.mark.parametrize("dtype", ["BOOL", "INT8", "INT32", "INDEX", "INT64", "FP16", "FP32", "BF16", "INT16",
                                   "UINT8", "UINT16", "UINT32", "UINT64", "FP8E4M3FN", "FP8E5M2", "FP8E8M0",
                                   "HF8", "TASK_ID"])
def test_scalar_dtypes(dtype):
    fn = main_of(program(f"{LOAD}\nreturn x", sig=f"self, x: pl.Tensor[[16, 64], pl.FP32], s: pl.Scalar[pl.{dtype}]"))
    assert fn.params[1].type == ir.ScalarType(ir.DType[dtype])


@pytest.mark.parametrize("dtype", ["INT4", "UINT4", "FP4", "HF4"])
def test_scalar_dtypes_outside_the_model_are_left_open(dtype):
    result = read(program(f"{LOAD}\nreturn x", sig=f"self, x: pl.Tensor[[16, 64], pl.FP32], s: pl.Scalar[pl.{dtype}]"))
    assert result.errors == ()
    assert_round_trips(result.module)
    assert result.module.programs[0].functions[0].params[1].type is None
    assert warned(result, f"pl.{dtype}", "left open")


def test_tensor_and_composite_dims():
    text = program(f"{LOAD}\nreturn x", sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], "
                                            "w: pl.Tensor[[pl.const(16, pl.INDEX) + pl.const(16, pl.INDEX), n * 2], pl.FP16]")
    fn = main_of(text)
    shape = fn.params[2].type.shape
    assert shape[0] == ir.BinOp("+", ir.Const(16, ir.DType.INDEX), ir.Const(16, ir.DType.INDEX))
    assert shape[1] == ir.BinOp("*", ir.Var("n"), ir.Const(2))


@pytest.mark.parametrize("view", [
    "pl.TensorView()",
    "pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)",
    "pl.TensorView(valid_shape=[8, 64], stride=[64, 1], layout=pl.TensorLayout.ND)",
    "pl.TensorView(stride=[], layout=pl.TensorLayout.DN)",
    "pl.TensorView(stride=[1, 16], layout=pl.TensorLayout.NZ, pad=pl.PadValue.zero)",
    "pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.MX_A_ZZ)",
    "pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.MX_B_NN, pad=pl.PadValue.max)",
])
def test_tensor_view_forms(view):
    result = read(program(f"{LOAD}\nreturn x", sig=f"self, x: pl.Tensor[[16, 64], pl.FP32, {view}]"))
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    assert result.module.programs[0].functions[0].params[0].type == ir.TensorType(
        (ir.Const(16), ir.Const(64)), ir.DType.FP32)


def test_tensor_view_with_ddr_memref():
    """`pl.tensor.view(...)` results: a TensorView and a DDR MemRef, after InitMemRef."""
    text = program("""
        v: pl.Tensor[[8, 128], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND), pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)] = pl.tensor.view(x, [8, 128])
        w: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[1, 16], layout=pl.TensorLayout.DN), pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)] = pl.tensor.view(x, layout=pl.TensorLayout.DN)
        t: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [0, 0], [8, 128], target_memory=pl.Mem.Vec)
        return x
    """, sig='self, x: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 4096)]')
    result = read(text)
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    fn = result.module.programs[0].functions[0]
    assert fn.body[0].type == ir.TensorType((ir.Const(8), ir.Const(128)), ir.DType.FP32,
                                            ir.MemRef("mem_ddr_0", 0, 4096, quoted=True))
    assert fn.body[0].value == ir.Call("tensor.view", (ir.Var("x"), ir.ListExpr((ir.Const(8), ir.Const(128)))))
    assert fn.body[1].value.kwarg("layout") == ir.Sym("TensorLayout.DN")
    assert warned(result, "pl.TensorView(...)", "not modelled; ignored")
    # the view's shape is its shape operand: an annotation that disagrees is still refuted
    wrong = text.replace("v: pl.Tensor[[8, 128]", "v: pl.Tensor[[4, 128]")
    assert "annotation says [4, 128] FP32 tensor but `pl.tensor.view` gives [8, 128] FP32 tensor" in only_error(wrong)


TILE_VIEWS = [
    ("pl.TileView()", None),
    ("pl.TileView(valid_shape=[8, 64])", None),
    ("pl.TileView(valid_shape=[n, 64], blayout=pl.TileLayout.col_major)", None),
    ("pl.TileView(stride=[64, 1], start_offset=pl.const(0, pl.INDEX) + n)", None),
    ("pl.TileView(blayout=pl.TileLayout.none_box, slayout=pl.TileLayout.row_major, fractal=512)", None),
    ("pl.TileView(pad=pl.PadValue.null, compact=pl.CompactMode.normal)", None),
    ("pl.TileView(slayout=pl.TileLayout.col_major, pad=pl.PadValue.zero, compact=pl.CompactMode.null)", None),
]


@pytest.mark.parametrize("view", [v for v, _ in TILE_VIEWS])
@pytest.mark.parametrize("space", ["Vec", "Mat", "Left", "Right", "Acc", "Bias"])
def test_tile_annotation_forms(view, space):
    text = program(f"""
        mem_1: pl.Ptr = pl.tile.alloc(pl.Mem.{space}, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_1, pl.const(0, pl.INT64), 4096), pl.Mem.{space}, {view}] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.{space})
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]")
    fn = main_of(text)
    t = fn.body[1].type
    assert t.space is ir.MemSpace[space] and t.memref == ir.MemRef("mem_1", 0, 4096)


def test_tile_in_ddr():
    fn = main_of(program("t: pl.Tile[[16, 64], pl.FP32, pl.Mem.DDR] = pl.tile.load(x, [0, 0], [16, 64])\nreturn x"))
    assert fn.body[0].type.space is ir.MemSpace.DDR


@pytest.mark.parametrize("space", ["LeftScale", "RightScale", "ScalarLocal"])
def test_tile_memory_spaces_outside_the_model(space):
    text = program(f"t: pl.Tile[[16, 64], pl.FP32, pl.Mem.{space}] = pl.tile.load(x, [0, 0], [16, 64])\nreturn x")
    assert only_error(text).startswith(
        f"k.py:8:39: PV000 input-error: memory space `pl.Mem.{space}`; a PyPTO memory space pypto-verify does not model")


def test_pl_tuple_types():
    text = program("""
        p: pl.Tuple[pl.Tensor[[16, 64], pl.FP32], pl.Scalar[pl.INDEX]] = self.pair(x)
        e: pl.Tuple[()] = self.none(x)
        return x
    """)
    fn = main_of(text)
    assert fn.body[0].type == ir.TupleType((ir.TensorType((ir.Const(16), ir.Const(64)), ir.DType.FP32),
                                            ir.ScalarType(ir.DType.INDEX)))
    assert fn.body[1].type == ir.TupleType(())


@pytest.mark.parametrize("annotation", ["pl.Array[8, pl.INT32]", "pl.MemRefType", "pld.WindowBufferType",
                                        "pld.CommCtxType", "pl.PrefetchAsyncContext", "pl.AsyncEvent",
                                        "pl.AsyncSession", "pl.UnknownType"])
def test_unmodelled_types_left_open(annotation):
    text = program(f"a: {annotation} = self.make(x)\nreturn x").replace(
        "import pypto.language as pl\n", "import pypto.language as pl\nimport pypto.language.distributed as pld\n")
    result = read(text)
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    fn = result.module.programs[0].functions[0]
    assert fn.body[0].type is None
    ptr = main_of(program("mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)\nreturn x"))
    assert ptr.body[0].type == ir.PtrType()


# ---------------------------------------------------------------------------------------------- memrefs


def test_memref_forms():
    text = program("""
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        b: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(4096, pl.INT64), 4096, slots=2), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(8192, pl.INT64), 4096, slots=2)[1], pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        return x
    """, sig='self, x: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)]')
    fn = main_of(text)
    assert fn.params[0].type.memref == ir.MemRef("mem_ddr_0", 0, 4096, quoted=True)
    tile_param = main_of(program("return x", sig='x: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096), '
                                                 'pl.Mem.Vec, pl.TileView(valid_shape=[8, 64])]'))
    assert tile_param.params[0].type == ir.TileType((ir.Const(16), ir.Const(64)), ir.DType.FP32, ir.MemSpace.Vec,
                                                    ir.MemRef("mem_vec_0", 0, 4096, quoted=True),
                                                    (ir.Const(8), ir.Const(64)))
    assert [s.type.memref for s in fn.body[1:4]] == [
        ir.MemRef("mem_vec_1", 0, 4096), ir.MemRef("mem_vec_1", 4096, 4096, slots=2),
        ir.MemRef("mem_vec_1", 8192, 4096, slots=2, slot=1)]


def test_memref_forms_not_modelled():
    runtime_slot = program("""
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        for i in pl.range(4):
            a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096, slots=2)[i % 2], pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        return x
    """)
    assert "MemRef slot `i % 2`" in only_error(runtime_slot)
    pinned = program("""
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1"), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        return x
    """)
    assert "pinned MemRef `pl.MemRef('mem_vec_1')`; an author-declared allocation" in only_error(pinned)
    pinned_slots = pinned.replace('pl.MemRef("mem_vec_1")', 'pl.MemRef("mem_vec_1", slots=2)[0]')
    assert "pinned MemRef `pl.MemRef('mem_vec_1', slots=2)`" in only_error(pinned_slots)


def test_memref_at_a_runtime_offset_is_not_modelled():
    """PrintMemRef writes the byte offset of a view at a loop-dependent position as an expression."""
    text = program("""
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        for j in pl.range(2):
            s: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, j * 2048, 2048), pl.Mem.Vec] = pl.tile.slice(t, [8, 64], [j * 8, 0])
        return x
    """)
    assert only_error(text).startswith("k.py:11:63: PV000 input-error: MemRef byte offset `j * 2048`; an offset "
                                       "that is not a constant (a view at a run-time position) is not modelled")
    typed = text.replace("j * 2048", "pl.const(2048, pl.INT64) * j")
    assert "MemRef byte offset `pl.const(2048, pl.INT64) * j`" in only_error(typed)


def test_tile_annotation_without_memory_space():
    """Before InferTileMemorySpace a tile prints no `pl.Mem.X`; its MemRef and TileView still print."""
    fn = main_of(program("""
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        t: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[8, 64])] = pl.tile.load(x, [0, 0], [16, 64], [8, 64])
        u: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096)] = pl.tile.exp(t)
        return x
    """))
    assert fn.body[1].type == ir.TileType((ir.Const(16), ir.Const(64)), ir.DType.FP32, None, None,
                                          (ir.Const(8), ir.Const(64)))
    assert fn.body[2].type.space is None and fn.body[2].type.memref == ir.MemRef("mem_vec_1", 0, 4096)


def test_unknown_memory_space_and_dtype():
    """`MemorySpaceToString` and `DataTypeToString` fall back to `Unknown` / `UnknownType`."""
    space = program("t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Unknown] = pl.tile.load(x, [0, 0], [16, 64])\nreturn x")
    assert only_error(space).startswith("k.py:8:39: PV000 input-error: memory space `pl.Mem.Unknown`")
    dtype = read(program(f"{LOAD}\nreturn x", sig="self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16], pl.UnknownType]"))
    assert dtype.errors == () and dtype.module.programs[0].functions[0].params[1].type is None
    assert_round_trips(dtype.module)
    assert warned(dtype, "dtype `pl.UnknownType`", "left open")


def test_tensor_alloc():
    fn = main_of(program("""
        mem_ddr_1: pl.Ptr = pl.tensor.alloc(pl.Mem.DDR, 4096)
        return x
    """))
    assert fn.body[0] == ir.Assign(ir.Var("mem_ddr_1"), ir.Call("tensor.alloc", (ir.Sym("Mem.DDR"), ir.Const(4096))),
                                   ir.PtrType())


# ---------------------------------------------------------------------------------------------- expressions


def test_literals():
    fn = main_of(program("""
        a: pl.Scalar[pl.INDEX] = 7
        b: pl.Scalar[pl.INT64] = pl.const(7, pl.INT64)
        c: pl.Scalar[pl.FP16] = pl.const(0.5, pl.FP16)
        d: pl.Scalar[pl.FP32] = 4.0
        e: pl.Scalar[pl.FP32] = 1e-07
        f: pl.Scalar[pl.BOOL] = True
        g: pl.Scalar[pl.INDEX] = -3
        return x
    """))
    values = [s.value for s in fn.body[:7]]
    assert values[:6] == [ir.Const(7), ir.Const(7, ir.DType.INT64), ir.Const(0.5, ir.DType.FP16), ir.Const(4.0),
                          ir.Const(1e-07), ir.Const(True)]
    assert values[6] == ir.Const(-3)


def test_frontend_dump_before_ssa():
    """`00_frontend.py` precedes ConvertToSSA: one variable assigned in a loop prints under one name, and no
    yield carries it. It reads as the SSA the compiler would build."""
    fn = main_of(program("""
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for ko in pl.range(0, 64, 16):
            c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(c, 1.0)
        y: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c, [0, 0], x)
        return y
    """))
    loop = fn.body[1]
    assert loop.inits == (ir.Var("c"),) and len(loop.iter_args) == 1 and isinstance(loop.body[-1], ir.Yield)
    assert fn.body[2].value.args[0] == loop.return_vars[0]


def test_disambiguated_names():
    """Two variables with one name hint print as `i` and `i_1`: distinct names, kept as printed."""
    fn = main_of(program(f"""
        {LOAD}
        for i, (a,) in pl.range(2, init_values=(t,)):
            a_1: {T16} = pl.tile.exp(a)
            r: {T16} = pl.yield_(a_1)
        for i_1, (a_2,) in pl.range(2, init_values=(r,)):
            a_3: {T16} = pl.tile.exp(a_2)
            r_1: {T16} = pl.yield_(a_3)
        return x
    """))
    first, second = fn.body[1], fn.body[2]
    assert first.loop_var == ir.Var("i") and second.loop_var == ir.Var("i_1")
    assert second.inits == (ir.Var("r"),) and second.return_vars == (ir.Var("r_1"),)


def test_non_finite_floats_and_free_vars_are_undefined_names():
    # `nan` / `inf` (no construction path makes them) and a `__FREE_VAR` use (malformed IR) print as names
    # that nothing defines: a clear PV000, never a value
    assert "undefined name `inf`" in only_error(program("a: pl.Scalar[pl.FP32] = inf\nreturn x"))
    free = program(f"{LOAD}\nu: {T16} = pl.tile.exp(t__FREE_VAR)\nreturn x")
    assert "undefined name `t__FREE_VAR`" in only_error(free)


def test_scalar_operators():
    fn = main_of(program("""
        a: pl.Scalar[pl.INDEX] = n + 1
        b: pl.Scalar[pl.INDEX] = n - 1
        c: pl.Scalar[pl.INDEX] = n * 2
        d: pl.Scalar[pl.INDEX] = n // 2
        e: pl.Scalar[pl.INDEX] = n % 2
        f: pl.Scalar[pl.FP32] = s / 2.0
        g: pl.Scalar[pl.INDEX] = n ** 2
        h: pl.Scalar[pl.BOOL] = n == 0 and n != 1 or not n < 2
        i: pl.Scalar[pl.BOOL] = n <= 3
        j: pl.Scalar[pl.BOOL] = n > 4
        k: pl.Scalar[pl.BOOL] = n >= 5
        m: pl.Scalar[pl.INDEX] = -(n + 1)
        p: pl.Scalar[pl.INDEX] = (n + 1) * (n - 1)
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], s: pl.Scalar[pl.FP32]"))
    n = ir.Var("n")
    assert [s.value.op for s in fn.body[:7]] == ["+", "-", "*", "//", "%", "/", "**"]
    assert fn.body[7].value.op == "or" and fn.body[7].value.operands[1] == ir.UnaryOp("not", ir.Compare("<", n, ir.Const(2)))
    assert [s.value.op for s in fn.body[8:11]] == ["<=", ">", ">="]
    assert fn.body[11].value == ir.UnaryOp("-", ir.BinOp("+", n, ir.Const(1)))
    assert fn.body[12].value == ir.BinOp("*", ir.BinOp("+", n, ir.Const(1)), ir.BinOp("-", n, ir.Const(1)))


@pytest.mark.parametrize("expr", ["n & 3", "n | 3", "n ^ 3", "n << 1", "n >> 1", "~n"])
def test_bitwise_operators_are_opaque(expr):
    result = read(program(f"a: pl.Scalar[pl.INDEX] = {expr}\nreturn x",
                          sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]"))
    assert result.errors == ()
    assert_round_trips(result.module)
    value = result.module.programs[0].functions[0].body[0].value
    assert isinstance(value, ir.Call) and value.op.startswith("opaque.") and value.args == (ir.Var("n"),)
    assert warned(result, "not in the kernel language; read as an opaque value")


def test_xor_is_a_syntax_error():
    # the printer spells Xor as the word `xor`, which is not Python: the file cannot be parsed
    error = only_error(program("a: pl.Scalar[pl.BOOL] = p xor q\nreturn x"))
    assert "PV000 input-error: syntax error" in error


def test_min_max_abs_cast():
    text = program("""
        a: pl.Scalar[pl.INDEX] = pl.min(n, 8)
        b: pl.Scalar[pl.INDEX] = pl.max(n, 8)
        c: pl.Scalar[pl.INDEX] = abs(n)
        d: pl.Scalar[pl.INT32] = pl.cast(n, pl.INT32)
        e: pl.Scalar[pl.FP32] = pl.cast(pl.min(n, 4) + 1, pl.FP32)
        f = pl.cast(n, pl.INT64)
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.cast(t, pl.BF16)
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.max(t, t)
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]")
    result = read(text)
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    fn = result.module.programs[0].functions[0]
    n = ir.Var("n")
    assert fn.body[0].value == ir.BinOp("min", n, ir.Const(8))
    assert fn.body[1].value == ir.BinOp("max", n, ir.Const(8))
    assert fn.body[2].value == ir.Call("call.abs", (n,))
    # a scalar cast keeps the one spelling every later stage reads (`tensor.cast`), typed as the scalar it is
    assert fn.body[3].value == ir.Call("tensor.cast", (n, ir.Sym("INT32")))
    assert fn.body[4].value == ir.Call("tensor.cast", (ir.BinOp("+", ir.BinOp("min", n, ir.Const(4)), ir.Const(1)),
                                                      ir.Sym("FP32")))
    assert fn.body[5] == ir.Assign(ir.Var("f"), ir.Call("tensor.cast", (n, ir.Sym("INT64"))))
    # on tiles (and tensors) the same names are the element-wise ops
    assert fn.body[7].value == ir.Call("tile.cast", (ir.Var("t"), ir.Sym("BF16")))
    assert fn.body[8].value == ir.Call("tile.max", (ir.Var("t"), ir.Var("t")))
    unmodelled = read(program("d: pl.Scalar[pl.UINT4] = pl.cast(n, pl.UINT4)\nreturn x",
                              sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]"))
    assert unmodelled.errors == ()
    assert_round_trips(unmodelled.module)
    assign = unmodelled.module.programs[0].functions[0].body[0]
    assert assign.value == ir.Call("tensor.cast", (n, ir.Sym("UINT4"))) and assign.type is None


def test_op_calls_and_kwarg_codecs():
    result = read(program("""
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.BF16, mode='round')
        m = pl.tile.cmp(t, t, cmp_type=0)
        k = pl.tile.and_(m, m)
        q: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.5, attrs={"tag": "x", "level": 2})
        pl.system.sync_set(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.bar_all()
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.adds(x, 1)
        s: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND, pad=pl.PadValue.zero, flag=True, memory=pl.Mem.DDR, tl=pl.TileLayout.row_major)
        y2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], y, atomic=pl.AtomicType.Add)
        y3: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], y2, atomic=pl.AtomicType.None_)
        return y3
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"))
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    body = result.module.programs[0].functions[0].body
    assert body[1].value.kwarg("mode") == ir.Const("round") and body[1].value.kwarg("target_type") == ir.Sym("BF16")
    assert body[3].value.op == "tile.and_"
    assert body[4].value.kwarg("attrs") == ir.DictExpr((("tag", ir.Const("x")), ("level", ir.Const(2))))
    assert body[5] == ir.Eval(ir.Call("system.sync_set", (), (("set_pipe", ir.Sym("PipeType.MTE2")),
                                                             ("wait_pipe", ir.Sym("PipeType.V")),
                                                             ("event_id", ir.Const(0)))))
    assert body[9].value.kwarg("atomic") == ir.Sym("AtomicType.Add")
    assert body[10].value.kwarg("atomic") == ir.Sym("AtomicType.None_")
    assert body[8].value.kwargs[1:] == (("layout", ir.Sym("TensorLayout.ND")), ("pad", ir.Sym("PadValue.zero")),
                                        ("flag", ir.Const(True)), ("memory", ir.Sym("Mem.DDR")),
                                        ("tl", ir.Sym("TileLayout.row_major")))


def test_other_op_namespaces():
    """Registered ops outside `tile.` / `tensor.` / `system.` print under `pl.` the same way; an op
    pypto-verify has no rule for is read as an opaque op, with a warning."""
    result = read(program("""
        a: pl.Array[4, pl.INT32] = pl.array.create(4, pl.INT32)
        b: pl.Scalar[pl.INT32] = pl.array.get_element(a, 0)
        y: pl.Tensor[[16, 64], pl.FP32] = pl.builtin.tensor.allreduce(x, attrs={"dtype": pl.FP32})
        c: pl.PrefetchAsyncContext = pl.prefetch.make_context()
        d: pl.Tensor[[16, 64], pl.FP32] = pl.dist.make_tensor(x)
        return x
    """, decorator="@pl.function(type=pl.FunctionType.Orchestration)"))
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    body = result.module.programs[0].functions[0].body
    assert [s.value.op for s in body[:5]] == ["array.create", "array.get_element", "builtin.tensor.allreduce",
                                              "prefetch.make_context", "dist.make_tensor"]
    assert warned(result, "unknown op `pl.builtin.tensor.allreduce`", "opaque")


def test_pld_calls():
    result = read(program("""
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pld.tile.remote_load(x, 1, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pld.tile._remote_load_with_physical_tail_padding(x, 1, [0, 0], [16, 64])
        return x
    """).replace("import pypto.language as pl\n", "import pypto.language as pl\nimport pypto.language.distributed as pld\n"))
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    body = result.module.programs[0].functions[0].body
    assert body[0].value.op == "distributed.tile.remote_load"


def test_special_call_forms():
    text = program("""
        f: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        g: pl.Tensor[[16, 64], pl.INT32] = pl.tensor.full([16, 64], dtype=pl.INT32, value=-1)
        r: pl.Tensor[[16, 128], pl.FP16] = pl.tensor.reinterpret_view(x, dtype=pl.FP16, shape=[16, 128])
        pl.system.syncall(mode="soft", core_type="mix", gm_workspace=x, used_cores=0)
        i: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.full([16, 1], dtype=pl.INT32, value=0)
        h: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.gather_row(f, i, 0, 16, 64, valid_shape=[16, 64])
        j: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(f, i, scratch=f, valid_shape=[16, 64], coalesce=1)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        tid: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy(deps=[])
        tid2: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy(deps=[tid])
        q: pl.Tile[[16, 128], pl.FP16, pl.Mem.Vec] = pl.tile.reinterpret_view(f, dtype=pl.FP16)
        q2: pl.Tile[[32, 64], pl.FP16, pl.Mem.Vec] = pl.tile.reinterpret_view(f, dtype=pl.FP16, shape=[32, 64])
        return x
    """)
    result = read(text)
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    body = result.module.programs[0].functions[0].body
    assert body[0].value.kwarg("value") == ir.Const(0.0) and body[0].value.kwarg("dtype") == ir.Sym("FP32")
    assert body[1].value.kwarg("value") == ir.Const(-1)
    assert body[7].value == ir.Call("tile.alloc", (ir.Sym("Mem.Vec"), ir.Const(4096)))
    assert body[9].value.kwarg("deps") == ir.ListExpr((ir.Var("tid"),))
    assert body[2].value == ir.Call("tensor.reinterpret_view", (ir.Var("x"),), (
        ("dtype", ir.Sym("FP16")), ("shape", ir.ListExpr((ir.Const(16), ir.Const(128))))))
    # a reinterpret_view's shape is its `shape=` (refuted when the annotation disagrees); without one, left open
    wrong = text.replace("q2: pl.Tile[[32, 64]", "q2: pl.Tile[[16, 128]")
    assert "annotation says [16, 128] FP16 Vec but `pl.tile.reinterpret_view` gives [32, 64] FP16 Vec" in only_error(wrong)


INCORE_K = f"""    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: {T16} = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        b__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], b)
        return b__ssa_v1
"""
"""The InCore callee of the cross-function and submit tests."""


def test_cross_function_calls():
    module = read_ok(f"""{HEADER}@pl.program
class P:
{INCORE_K}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        c: pl.Tensor[[16, 64], pl.FP32] = self.k(a, b, attrs={{"dump_vars": [a], "arg_directions": [pl.adir.input, pl.adir.output_existing], "dummy_task": True}})
        d: pl.Tensor[[16, 64], pl.FP32] = self.k(a, c, device=0)
        e: pl.Tensor[[16, 64], pl.FP32] = self.k(device=1)
        return d
""")
    main = module.programs[0].functions[1]
    assert main.body[0].value.op == "self.k" and main.body[0].value.args == (ir.Var("a"), ir.Var("b"))
    assert main.body[1].value.kwarg("device") == ir.Const(0)
    assert main.body[2].value.args == ()


def test_submit_forms():
    result = read(f"""{HEADER}@pl.program
class P:
{INCORE_K}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Out[pl.Tensor[[16, 64], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        t1: pl.Scalar[pl.TASK_ID] = pl.submit(self.k, a, b)
        t2: pl.Scalar[pl.TASK_ID] = pl.submit(self.k, a, b, deps=[t1], dumps=[a], allow_early_resolve=True, predicate=(n > 0), attrs={{"arg_directions": [pl.adir.input, pl.adir.output]}})
        t3: pl.Scalar[pl.TASK_ID] = pl.spmd_submit(self.k, a, b, deps=[t2], core_num=8, sync_start=True)
        return
""")
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    main = result.module.programs[0].functions[1]
    self_k = ir.Call("funcref", (ir.Const("self.k"),))
    assert main.body[0].value == ir.Call("tensor.submit", (self_k, ir.Var("a"), ir.Var("b")))
    assert main.body[1].value.kwarg("predicate") == ir.Compare(">", ir.Var("n"), ir.Const(0))
    assert main.body[2].value.op == "tensor.spmd_submit" and main.body[2].value.args[0] == self_k
    assert main.body[1].value.kwarg("deps") == ir.ListExpr((ir.Var("t1"),))
    assert main.body[2].value.kwarg("core_num") == ir.Const(8)
    assert main.body[3] == ir.Return(())


def test_make_tuple_and_get_item():
    fn = main_of(program("""
        p: pl.Tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]] = self.pair(x)
        a: pl.Tensor[[16, 64], pl.FP32] = p[0]
        b: pl.Tensor[[16, 64], pl.FP32] = p[1]
        q: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.concat([a, b])
        return x
    """))
    assert fn.body[1].value == ir.Call("tensor.getitem", (ir.Var("p"), ir.Const(0)))
    assert fn.body[3].value.args[0] == ir.ListExpr((ir.Var("a"), ir.Var("b")))


# ---------------------------------------------------------------------------------------------- statements


def test_annotated_and_concise_assign():
    fn = main_of(program(f"""
        {LOAD}
        u = pl.tile.exp(t)
        return x
    """))
    assert fn.body[0].type is not None and fn.body[1].type is None
    assert fn.body[1] == ir.Assign(ir.Var("u"), ir.Call("tile.exp", (ir.Var("t"),)))


def test_if_forms():
    fn = main_of(program(f"""
        {LOAD}
        if n == 0:
            a: {T16} = pl.tile.exp(t)
            r: {T16} = pl.yield_(a)
        else:
            b: {T16} = pl.tile.neg(t)
            r: {T16} = pl.yield_(b)
        if n > 1:
            c: {T16} = pl.tile.exp(r)
            d: {T16} = pl.tile.neg(r)
            p, q = pl.yield_(c, d)
        else:
            p, q = pl.yield_(r, t)
        if n > 2:
            pl.system.bar_all()
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]"))
    first, second, third = fn.body[1], fn.body[2], fn.body[3]
    assert first.return_vars == (ir.Var("r"),) and first.return_types[0].space is ir.MemSpace.Vec
    assert second.return_vars == (ir.Var("p"), ir.Var("q")) and second.else_body[-1] == ir.Yield((ir.Var("r"), ir.Var("t")))
    assert third.else_body == () and third.return_vars == ()


@pytest.mark.parametrize("kind", ["range", "unroll", "parallel", "pipeline"])
@pytest.mark.parametrize("bounds,expected", [("4", (0, 4, 1)), ("1, 4", (1, 4, 1)), ("0, 8, 2", (0, 8, 2))])
def test_for_kinds_and_bounds(kind, bounds, expected):
    stage = ", stage=2" if kind == "pipeline" else ""
    fn = main_of(program(f"""
        for i in pl.{kind}({bounds}{stage}):
            pl.system.bar_all()
        return x
    """))
    loop = fn.body[0]
    assert loop.kind is ir.LoopKind(kind)
    assert (loop.start, loop.stop, loop.step) == tuple(ir.Const(v) for v in expected)
    assert loop.stage == (2 if kind == "pipeline" else None)


def test_for_iter_args_and_attrs():
    fn = main_of(program(f"""
        {LOAD}
        for i, (acc,) in pl.range(pl.const(0, pl.INT64), 4, pl.const(1, pl.INT64), init_values=(t,), attrs={{"unroll_hint": 2, "ratio": 0.5, "tag": "k", "on": False}}):
            nxt: {T16} = pl.tile.add(acc, acc)
            out: {T16} = pl.yield_(nxt)
        for j, (a, b) in pl.pipeline(4, stage=2, init_values=(out, t)):
            a2: {T16} = pl.tile.exp(a)
            o1, o2 = pl.yield_(a2, b)
        return x
    """))
    loop = fn.body[1]
    assert loop.start == ir.Const(0, ir.DType.INT64) and loop.step == ir.Const(1, ir.DType.INT64)
    assert loop.iter_args == (ir.IterArg("acc"),) and loop.inits == (ir.Var("t"),)
    assert loop.kwargs == (("attrs", ir.DictExpr((("unroll_hint", ir.Const(2)), ("ratio", ir.Const(0.5)),
                                                  ("tag", ir.Const("k")), ("on", ir.Const(False))))),)
    second = fn.body[2]
    assert second.stage == 2 and second.return_vars == (ir.Var("o1"), ir.Var("o2"))


def test_while_loops_are_not_modelled():
    natural = read(program("""
        while n > 0:
            pl.system.bar_all()
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]"))
    assert natural.errors == () and warned(natural, "`while` loop skipped")
    assert_round_trips(natural.module)
    scalar = read(program("""
        for (k,) in pl.while_(init_values=(0,)):
            pl.cond(k < n)
            k2: pl.Scalar[pl.INDEX] = pl.yield_(k + 1)
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]"))
    assert scalar.errors == () and warned(scalar, "`pl.while_` loop skipped")
    assert_round_trips(scalar.module)
    uses = program("""
        for (k,) in pl.while_(init_values=(0,)):
            pl.cond(k < n)
            k2: pl.Scalar[pl.INDEX] = pl.yield_(k + 1)
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [k2, 0], [16, 64], target_memory=pl.Mem.Vec)
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]")
    assert "read of `k2`; it is assigned by the unsupported `pl.while_` loop" in only_error(uses)


@pytest.mark.parametrize("loop", [
    "for (acc,) in pl.while_(init_values=(t,)):\n    pl.cond(n > 0)",
    "while n > 0:",
])
def test_while_loop_running_data_ops_is_not_modelled(loop):
    """Skipping the loop would drop its loads and stores from every check (an out-of-bounds store in it
    verified): a PV000 naming the op, at the loop."""
    head = textwrap.indent(loop, "        ")
    result = read(f"""{HEADER}@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):
        {LOAD}
{head}
            y2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [4096, 0], x)
            {"acc2: " + T16 + " = pl.yield_(acc)" if "while_" in loop else "pl.system.bar_all()"}
        return x
""")
    (error,) = result.errors
    assert str(error).startswith("k.py:9:9: PV000 input-error: ")
    assert "loop inside kernel `main`; not modelled: it runs `pl.tile.store`" in str(error)


def test_break_and_continue():
    result = read(program("""
        for i in pl.range(4):
            if i == 2:
                break
            else:
                continue
        return x
    """))
    assert result.errors == ()
    assert_round_trips(result.module)
    assert warned(result, "`break` statement skipped") and warned(result, "`continue` statement skipped")


def test_at_scopes():
    fn = main_of(program(f"""
        {LOAD}
        with pl.at(level=pl.Level.CORE_GROUP):
            a: {T16} = pl.tile.exp(t)
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)], name_hint="blk", deps=[t], no_dep_args=[x], dumps=[t], allow_early_resolve=True, windowize=True) as tid:
            b: {T16} = pl.tile.exp(t)
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, name_hint="h") as tid2:
            c: {T16} = pl.tile.exp(t)
        with pl.at(level=pl.Level.CHIP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
            d: {T16} = pl.tile.exp(t)
        return x
    """))
    plain, full, host, chip = fn.body[1:5]
    assert all(isinstance(s, ir.Scope) for s in (plain, full, host, chip))
    assert plain.call == ir.Call("at", (), (("level", ir.Sym("Level.CORE_GROUP")),))
    assert full.call.kwarg("optimizations") == ir.ListExpr((
        ir.Call("split", (ir.Sym("SplitMode.UP_DOWN"),)), ir.Call("cross_core_slot", (), (("slot_num", ir.Const(2)),))))
    assert full.body[0] == ir.Assign(ir.Var("tid"), ir.Call("scope.task_id"), None)
    assert host.call.kwarg("role") == ir.Sym("Role.Orchestrator")


def test_cluster_and_runtime_scopes():
    fn = main_of(program(f"""
        {LOAD}
        with pl.cluster(name_hint="c0"):
            a: {T16} = pl.tile.exp(t)
        with pl.cluster():
            b: {T16} = pl.tile.exp(t)
        with pl.scope():
            c: {T16} = pl.tile.exp(t)
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            d: {T16} = pl.tile.exp(t)
        return x
    """))
    ops_ = [s.call for s in fn.body[1:5]]
    assert [c.op for c in ops_] == ["cluster", "cluster", "scope", "scope"]
    assert ops_[3].kwarg("mode") == ir.Sym("ScopeMode.MANUAL")


def test_runtime_scope_inside_loop_keeps_yield():
    fn = main_of(program(f"""
        {LOAD}
        for i, (acc,) in pl.range(4, init_values=(t,)):
            with pl.scope():
                nxt: {T16} = pl.tile.exp(acc)
            out: {T16} = pl.yield_(nxt)
        return x
    """))
    assert fn.body[1].return_vars == (ir.Var("out"),)


def test_runtime_scope_that_is_a_whole_body_holds_its_yield():
    """MaterializeRuntimeScopes wraps a whole loop body or `if` arm in an AUTO scope, and the printer
    (VisitStmtBody) writes the body's yield inside it: the yield still ends that body."""
    text = program(f"""
        {LOAD}
        for i, (acc,) in pl.range(4, init_values=(t,)):
            with pl.scope():
                nxt: {T16} = pl.tile.exp(acc)
                out: {T16} = pl.yield_(nxt)
        if n > 0:
            with pl.scope():
                a: {T16} = pl.tile.neg(out)
                r: {T16} = pl.yield_(a)
        else:
            r: {T16} = pl.yield_(out)
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]")
    result = read(text)
    assert result.errors == (), [str(e) for e in result.errors]
    assert_round_trips(result.module)
    fn = result.module.programs[0].functions[0]
    loop, branch = fn.body[1], fn.body[2]
    assert loop.return_vars == (ir.Var("out"),) and loop.body[-1] == ir.Yield((ir.Var("nxt"),))
    assert isinstance(loop.body[0], ir.Scope) and loop.body[0].call == ir.Call("scope")
    assert branch.return_vars == (ir.Var("r"),) and isinstance(branch.then_body[0], ir.Scope)
    assert branch.then_body[-1] == ir.Yield((ir.Var("a"),))
    # only a scope that is the whole body carries the yield; anywhere else a yield inside `with` is an error
    shared = text.replace("            with pl.scope():\n                nxt", "            pl.system.bar_all()\n"
                                                                            "            with pl.scope():\n                nxt")
    assert "`pl.yield_` at the end of a `with` body" in only_error(shared)


def test_empty_yield_statement():
    """A loop body or `if` arm that carries nothing ends in an empty YieldStmt, printed `pl.yield_()`."""
    fn = main_of(program("""
        for i in pl.range(4):
            pl.system.bar_all()
            pl.yield_()
        if n > 0:
            pl.system.bar_all()
            pl.yield_()
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]"))
    loop, branch = fn.body[0], fn.body[1]
    assert loop.body == (ir.Eval(ir.Call("system.bar_all")),) and loop.return_vars == ()
    assert branch.then_body == (ir.Eval(ir.Call("system.bar_all")),) and branch.return_vars == ()
    assert "it must be the last statement" in only_error(program("pl.yield_()\npl.system.bar_all()\nreturn x"))


def test_spmd_scopes():
    fn = main_of(program(f"""
        {LOAD}
        with pl.spmd(8, sync_start=True, name_hint="g", optimizations=[pl.split(pl.SplitMode.UP_DOWN)], deps=[t], allow_early_resolve=True, predicate=(n > 0)) as tid:
            b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
            a: {T16} = pl.tile.exp(t)
        for blk in pl.spmd(4, name_hint="h", predicate=(n < 3)):
            c: {T16} = pl.tile.exp(t)
        with pl.spmd(n):
            with pl.at(level=pl.Level.CORE_GROUP):
                d: {T16} = pl.tile.exp(t)
        for blk2 in pl.spmd(2):
            pass
        return x
    """, sig="self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]"))
    loops = fn.body[1:5]
    assert all(isinstance(s, ir.For) and s.kind is ir.LoopKind.SPMD for s in loops)
    assert loops[0].stop == ir.Const(8) and loops[1].stop == ir.Const(4) and loops[2].stop == ir.Var("n")


def test_split_aiv_region():
    result = read(program(f"""
        {LOAD}
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            a: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(t)
        for sub in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            pass
        return x
    """))
    assert result.errors == ()
    assert_round_trips(result.module)
    loop = result.module.programs[0].functions[0].body[1]
    assert loop.stop == ir.Const(2) and dict(loop.kwargs)["iterator"] == ir.Const("split_aiv")
    assert warned(result, "pl.split_aiv")


def test_comments():
    fn = main_of(program(f"""
        # a leading comment the printer keeps
        {LOAD}
        # pld.comm_domain: devices=all, slots=[buf0, buf1]
        u: {T16} = pl.tile.exp(t)
        return x
    """))
    assert [type(s) for s in fn.body] == [ir.Assign, ir.Assign, ir.Return]


def test_eval_and_return():
    fn = main_of(program("""
        pl.system.sync_wait(pipe=pl.PipeType.MTE2, event_id=1)
        return
    """))
    assert isinstance(fn.body[0], ir.Eval) and fn.body[0].value.kwarg("pipe") == ir.Sym("PipeType.MTE2")
    assert fn.body[1] == ir.Return(())
