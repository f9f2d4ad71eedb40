"""Source mutants of correct corpus kernels: each a small, named change to one accumulator site.

Input: a kernel file (any Form 1 / Form 2 corpus file) and the name of one of its kernels. Output: `Mutant`s —
the text of a *trimmed* copy of the file (only that kernel is kept, with the module's constants, imports and
helpers) with one or more mutations applied, and, for each mutation, its kind, the statement before and after.
Files are parsed with `ast` and written back with `ast.unparse`; nothing is imported or executed.

A *site* is found by walking the kernel's `FunctionDef` (`ast.walk` order, so a deep copy of the tree finds
the same node at the same index). The kinds (each with its variants) are:

| kind | where | what |
|---|---|---|
| `cond` | an `if` with a fresh matmul in one arm and a `matmul_acc` in the other | the seed test changed: `kb % 2 == 0`, `kb >= 0`, `kb <= 0`, `kb == 0 + 1`, negated, `True`, `False`, commuted |
| `arm_swap` | same | the two arms exchanged |
| `drop_seed` | same | the seed arm replaced by a copy of the accumulate arm |
| `acc_to_fresh` | any `matmul_acc` | becomes `matmul` (its accumulator and `init_cond` dropped) |
| `fresh_to_acc` | any assigned `matmul` / `matmul_bias` | becomes `matmul_acc` on the assigned name (or the other arm's accumulator) |
| `init` | a `matmul_acc` with `init_cond` | the predicate changed (same variants as `cond`), or dropped |
| `loop` | a K loop (`pl.range / pipeline / unroll`, `range`) holding a `matmul_acc`, whose variable reaches a matmul operand's K offset | start or stop ± one step, step 0, doubled, halved (variants `nested_...` when another K loop encloses it or sits inside it) |
| `loop_mn` | a loop holding a `matmul_acc` whose variable reaches no K offset (output tiles) | the same changes |
| `loop_equiv` | same | `pl.range` ↔ `pl.pipeline(stage=2)`, `pl.unroll` → `pl.range`, stage + 1 (meaning-preserving) |
| `slice_shift` | a GM window read by a matmul operand, with a loop-dependent bound | shifted by ± its own extent (K dimension: `slice_shift_k`, others `slice_shift_mn`) |
| `drain_drop` | a GM write, after a K loop, of a value derived from an accumulator | removed (variant `acc` when it stores the accumulator itself, through a `cast` / `reshape` at most; `derived` when a vector op computed the stored value from it) |
| `drain_shift` | same | its offset shifted (a slice by its extent, an `assemble` / `store` offset by 16; same variants) |
| `bias_drop` | any `matmul_bias` | becomes `matmul` (its bias operand dropped; the bias load stays) |
| `operand_swap` | any matmul | its two operands exchanged |
| `b_trans_flip` | any matmul | `b_trans=True` added or removed |
| `acc_rename_target` | an assigned `matmul_acc` | its result renamed (`acc` → `acc_fz`) |
| `acc_rename_operand` | a `matmul_acc` | its accumulator operand replaced by another accumulator of the kernel |

A higher-order mutant applies several, one after the other, each chosen among the sites of the previous result.
"""

from __future__ import annotations

import ast
import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

FRESH = frozenset({"matmul", "matmul_bias"})
ACC = "matmul_acc"
MATMULS = FRESH | {ACC}
LOOPS = frozenset({"range", "pipeline", "unroll"})
DRAINS = frozenset({"assemble", "store"})
COND_VARIANTS = ("mod2", "ge", "le", "eq_plus1", "negate", "true", "false", "commute")
NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
MIRRORED = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


# ---------------------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Candidate:
    """One mutation of one site: `kind` (the table above), `variant`, and the site's index in walk order."""

    kind: str
    variant: str
    node: int

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.variant}" if self.variant else self.kind


@dataclass(frozen=True)
class Applied:
    """A mutation as applied: what it was and the statement it changed, before and after."""

    kind: str
    variant: str
    before: str
    after: str


@dataclass(frozen=True)
class Mutant:
    """A mutated kernel file: its text, the kernel it targets, and the mutations applied in order."""

    source: str
    """The corpus file it was made from."""
    kernel: str
    """The kernel's name as findings give it (`Program.function` or `function`)."""
    function: str
    text: str
    mutations: tuple[Applied, ...]
    line: int = 0
    """The line (1-based, in `text`) of the first mutated statement, 0 when it was removed."""

    @property
    def kind(self) -> str:
        """The mutation kind (`kind_a+kind_b` for a higher-order mutant)."""
        return "+".join(m.kind for m in self.mutations)


@dataclass
class KernelSource:
    """A corpus kernel ready to mutate: the trimmed module and where its function sits in it."""

    source: str
    kernel: str
    function: str
    tree: ast.Module
    fn_index: tuple[int, ...]
    """Path from the module to the `FunctionDef`: body indices (one for a free function, two in a class)."""
    siblings: tuple[str, ...] = field(default=())
    """Sibling modules the file imports (`model_config`), to be copied beside the mutant."""

    def function_node(self, tree: ast.Module) -> ast.FunctionDef:
        node: ast.AST = tree
        for index in self.fn_index:
            node = node.body[index]  # type: ignore[attr-defined]
        assert isinstance(node, ast.FunctionDef)
        return node

    def text(self) -> str:
        return ast.unparse(self.tree) + "\n"


# ---------------------------------------------------------------------------------------------- small helpers


def dotted(node: ast.AST) -> str:
    """`pl.tile.matmul` for an attribute chain, `range` for a name, '' otherwise."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def op_of(node: ast.AST) -> str:
    """The last name of a call's function (`matmul_acc` for `pl.tile.matmul_acc(...)`), '' for a non-call."""
    if not isinstance(node, ast.Call):
        return ""
    name = dotted(node.func)
    return name.rsplit(".", 1)[-1] if name else ""


def is_loop_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = dotted(node.func)
    return name == "range" or (name.startswith("pl.") and name.rsplit(".", 1)[-1] in LOOPS)


def expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def src(node: ast.AST) -> str:
    return ast.unparse(node)


def walk_nodes(fn: ast.FunctionDef) -> list[ast.AST]:
    return list(ast.walk(fn))


def parents(fn: ast.AST) -> dict[int, ast.AST]:
    out: dict[int, ast.AST] = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def enclosing_stmt(node: ast.AST, parent: dict[int, ast.AST]) -> ast.AST:
    while not isinstance(node, ast.stmt) and id(node) in parent:
        node = parent[id(node)]
    return node


def first_line(node: ast.AST) -> str:
    text = src(node)
    return text.splitlines()[0] if text else ""


def contains_op(stmts: list[ast.stmt], names: frozenset[str] | set[str]) -> bool:
    return any(op_of(n) in names for s in stmts for n in ast.walk(s))


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def assigned_names(stmts: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


def assign_value(stmt: ast.AST) -> ast.expr | None:
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return stmt.value
    return None


def assign_target_name(stmt: ast.AST) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id
    return None


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def init_cond_of(call: ast.Call) -> ast.expr | None:
    kw = keyword(call, "init_cond")
    if kw is not None:
        return kw.value
    return call.args[3] if len(call.args) >= 4 else None


def set_init_cond(call: ast.Call, value: ast.expr | None) -> None:
    kw = keyword(call, "init_cond")
    if kw is not None:
        if value is None:
            call.keywords.remove(kw)
        else:
            kw.value = value
    elif len(call.args) >= 4:
        if value is None:
            del call.args[3]
        else:
            call.args[3] = value


def arm_kind(stmts: list[ast.stmt]) -> str:
    """'fresh' (a fresh matmul and no matmul_acc), 'acc' (the reverse), '' otherwise."""
    fresh, acc = contains_op(stmts, FRESH), contains_op(stmts, {ACC})
    if fresh and not acc:
        return "fresh"
    if acc and not fresh:
        return "acc"
    return ""


def first_compare(node: ast.expr) -> ast.Compare | None:
    for n in ast.walk(node):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in OPS:
            return n
    return None


def predicate_variant(test: ast.expr, variant: str) -> ast.expr | None:
    """*test* changed by *variant* (COND_VARIANTS); None when the variant does not apply to it."""
    if variant == "true":
        return ast.Constant(True)
    if variant == "false":
        return ast.Constant(False)
    test = copy.deepcopy(test)
    compare = first_compare(test)
    if compare is None:
        return None
    op = OPS[type(compare.ops[0])]
    left, right = src(compare.left), src(compare.comparators[0])
    if variant == "mod2":
        new = f"({left}) % 2 {op} {right}"
    elif variant == "ge":
        new = f"{left} {'>=' if op == '==' else '<' if op == '!=' else NEGATED[op]} {right}"
    elif variant == "le":
        if op not in ("==", "!="):
            return None
        new = f"{left} {'<=' if op == '==' else '>'} {right}"
    elif variant == "eq_plus1":
        new = f"{left} {op} {right} + 1"
    elif variant == "negate":
        new = f"{left} {NEGATED[op]} {right}"
    elif variant == "commute":
        new = f"{right} {MIRRORED[op]} {left}"
    else:
        raise ValueError(variant)
    replacement = expr(new)
    if compare is test:
        return replacement
    for parent in ast.walk(test):
        for name, value in ast.iter_fields(parent):
            if value is compare:
                setattr(parent, name, replacement)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if item is compare:
                        value[i] = replacement
    return test


def loop_parts(call: ast.Call) -> tuple[str, str, str]:
    """(start, stop, step) of a loop call as source text, with the defaults filled in."""
    args = [src(a) for a in call.args]
    if len(args) == 1:
        return "0", args[0], "1"
    if len(args) == 2:
        return args[0], args[1], "1"
    return args[0], args[1], args[2]


def set_loop_parts(call: ast.Call, start: str, stop: str, step: str) -> None:
    call.args = [expr(start), expr(stop), expr(step)]


# ---------------------------------------------------------------------------------------------- constants


def const_eval(node: ast.AST, env: dict[str, int]) -> int | None:
    """The integer value of a constant expression over *env* (`+ - * // % min max`, parentheses), else None."""
    match node:
        case ast.Constant(value=int() as value) if not isinstance(value, bool):
            return value
        case ast.Name(id=name):
            return env.get(name)
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            value = const_eval(operand, env)
            return None if value is None else -value
        case ast.BinOp(left=left, op=op, right=right):
            a, b = const_eval(left, env), const_eval(right, env)
            if a is None or b is None:
                return None
            if isinstance(op, ast.Add):
                return a + b
            if isinstance(op, ast.Sub):
                return a - b
            if isinstance(op, ast.Mult):
                return a * b
            if isinstance(op, ast.FloorDiv) and b:
                return a // b
            if isinstance(op, ast.Mod) and b:
                return a % b
            return None
        case ast.Call(func=ast.Name(id="min" | "max" as fn), args=args) if args:
            values = [const_eval(a, env) for a in args]
            if any(v is None for v in values):
                return None
            return min(values) if fn == "min" else max(values)  # type: ignore[type-var]
    return None


_CONSTANTS: dict[str, dict[str, int]] = {}


def module_constants(path: str) -> dict[str, int]:
    """The module-level integer constants of the kernel file at *path*, with those it imports from sibling
    modules (`from model_config import X`), evaluated statically as the frontend does (never imported)."""
    if path in _CONSTANTS:
        return _CONSTANTS[path]
    _CONSTANTS[path] = env = {}
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError):
        return env
    here = path.rsplit("/", 1)[0] if "/" in path else "."
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.module.startswith("pypto"):
            sibling = module_constants(f"{here}/{stmt.module.lstrip('.').replace('.', '/')}.py")
            for alias in stmt.names:
                if alias.name in sibling:
                    env[alias.asname or alias.name] = sibling[alias.name]
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = const_eval(stmt.value, env)
            if value is not None:
                env[stmt.targets[0].id] = value
    return env


def loop_domain(text: str, env: dict[str, int]) -> tuple[int, int, int] | None:
    """(start, stop, step) of the loop in a `for ... in CALL:` text (an `Applied` loop mutation's side), None
    when a bound is not a constant."""
    call = expr(text.removeprefix("for ... in ").rstrip(":"))
    if not isinstance(call, ast.Call):
        return None
    values = [const_eval(expr(t), env) for t in loop_parts(call)]
    if any(v is None for v in values):
        return None
    return values[0], values[1], values[2]  # type: ignore[return-value]


_PEELED: dict[tuple[str, str], set[str]] = {}


def peeled_loops(path: str, function: str) -> set[str]:
    """The loops of kernel *function* in the file at *path* that follow a peeled seed: a fresh matmul assigned,
    before the loop in the same block, to a name the loop's `matmul_acc` accumulates into. Each as the
    `for ... in CALL:` text an `Applied` loop mutation records."""
    key = (path, function)
    if key in _PEELED:
        return _PEELED[key]
    _PEELED[key] = out = set()
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError):
        return out
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function):
        for holder in ast.walk(fn):
            body = getattr(holder, "body", None)
            if not isinstance(body, list):
                continue
            for i, stmt in enumerate(body):
                if not (isinstance(stmt, ast.For) and is_loop_call(stmt.iter)):
                    continue
                accs = {n.args[0].id for n in ast.walk(stmt) if op_of(n) == ACC and isinstance(n, ast.Call)
                        and n.args and isinstance(n.args[0], ast.Name)}
                if any(assign_target_name(b) in accs and op_of(assign_value(b)) in FRESH for b in body[:i]):
                    out.add("for ... in " + src(stmt.iter) + ":")
    return out


def loop_blocks(before: str, after: str, env: dict[str, int]) -> list[float] | None:
    """The iterations a changed loop runs, as block indices of the loop it was (`(v - start) / step`), from the
    `for ... in CALL:` texts of an `Applied` loop mutation; None when a bound is not a constant or the new loop
    never ends."""
    old, new = loop_domain(before, env), loop_domain(after, env)
    if old is None or new is None or old[2] <= 0 or new[2] <= 0:
        return None
    return [(v - old[0]) / old[2] for v in range(*new)]


# ---------------------------------------------------------------------------------------------- the kernel


def load_kernel(path: str, kernel: str, function: str, def_line: int) -> KernelSource:
    """The file at *path* trimmed to the kernel whose `def` is on *def_line*: on the way from the module to it,
    every other kernel (a decorated function or class: other `@pl.jit` functions, other programs, the other
    methods of its program) is dropped; the rest (constants, imports, helpers, factories) is kept."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), filename=path)
    trail = _path_to(tree, def_line)
    if trail is None:
        raise ValueError(f"{path}: no kernel `def` on line {def_line}")
    holder: ast.AST = tree
    fn_index: list[int] = []
    for node in trail:
        body = holder.body  # type: ignore[attr-defined]
        kept = [s for s in body if s is node or not (isinstance(s, (ast.FunctionDef, ast.ClassDef))
                                                     and s.decorator_list)]
        holder.body = kept  # type: ignore[attr-defined]
        fn_index.append(kept.index(node))
        holder = node
    siblings = tuple(sorted({s.module for s in ast.walk(tree) if isinstance(s, ast.ImportFrom) and s.module
                             and not s.module.startswith("pypto")}))
    return KernelSource(path, kernel, function, tree, tuple(fn_index), siblings)


def _path_to(holder: ast.AST, def_line: int) -> list[ast.stmt] | None:
    """The chain of statements (each in its holder's `body`) from *holder* down to the `def` on *def_line*."""
    for stmt in getattr(holder, "body", []):
        if isinstance(stmt, ast.FunctionDef) and stmt.lineno == def_line:
            return [stmt]
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            rest = _path_to(stmt, def_line)
            if rest is not None:
                return [stmt, *rest]
    return None


# ---------------------------------------------------------------------------------------------- sites


def _k_loops(fn: ast.FunctionDef) -> list[ast.For]:
    return [n for n in ast.walk(fn) if isinstance(n, ast.For) and is_loop_call(n.iter)
            and contains_op(n.body, {ACC})]


def _loop_dependent(fn: ast.FunctionDef) -> set[str]:
    """Names that change from one iteration of some loop to the next: loop targets and names assigned in
    a loop body (to a fixpoint through assignments outside loops that read them)."""
    out: set[str] = set()
    for loop in (n for n in ast.walk(fn) if isinstance(n, ast.For)):
        out |= names_in(loop.target)
        out |= assigned_names(loop.body)
    changed = True
    assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign)]
    while changed:
        changed = False
        for a in assigns:
            targets = {t.id for t in a.targets if isinstance(t, ast.Name)}
            if targets - out and names_in(a.value) & out:
                out |= targets
                changed = True
    return out


def _operand_roles(fn: ast.FunctionDef) -> dict[int, int]:
    """For every GM window read that feeds a matmul operand (a subscript, or a `tile.load` / `tile.extract`,
    directly or through one assigned name): its node id -> the index of its reduction (K) dimension."""
    defs: dict[str, ast.expr] = {}
    for n in ast.walk(fn):
        name = assign_target_name(n)
        value = assign_value(n)
        if name and value is not None:
            defs.setdefault(name, value)
    roles: dict[int, int] = {}

    def mark(arg: ast.expr, k_dim: int, seen: int = 0) -> None:
        if isinstance(arg, ast.Name) and arg.id in defs and seen < 3:
            mark(defs[arg.id], k_dim, seen + 1)
        elif isinstance(arg, ast.Subscript) or op_of(arg) in ("load", "extract"):
            roles[id(arg)] = k_dim

    for call in (n for n in ast.walk(fn) if op_of(n) in MATMULS):
        assert isinstance(call, ast.Call)
        lhs, rhs = (call.args[1:3] if op_of(call) == ACC else call.args[0:2]) if len(call.args) >= 2 else (None, None)
        if lhs is None or rhs is None:
            continue
        a_trans = _true_kw(call, "a_trans")
        b_trans = _true_kw(call, "b_trans")
        mark(lhs, -2 if a_trans else -1)
        mark(rhs, -1 if b_trans else -2)
    return roles


def _true_kw(call: ast.Call, name: str) -> bool:
    kw = keyword(call, name)
    return kw is not None and isinstance(kw.value, ast.Constant) and kw.value.value is True


def _window_dims(node: ast.AST) -> list[tuple[int, str, str]]:
    """(dimension, lower, upper) source texts of the shiftable dimensions of a GM window read."""
    out: list[tuple[int, str, str]] = []
    if isinstance(node, ast.Subscript):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for i, e in enumerate(elts):
            if isinstance(e, ast.Slice) and e.lower is not None and e.upper is not None:
                out.append((i - len(elts), src(e.lower), src(e.upper)))
    elif op_of(node) == "load" and isinstance(node, ast.Call) and len(node.args) >= 3 \
            and isinstance(node.args[1], ast.List) and isinstance(node.args[2], ast.List):
        offsets, sizes = node.args[1].elts, node.args[2].elts
        for i, (o, s) in enumerate(zip(offsets, sizes)):
            out.append((i - len(offsets), src(o), f"{src(o)} + {src(s)}"))
    elif op_of(node) == "extract" and isinstance(node, ast.Call) and len(node.args) >= 4 \
            and isinstance(node.args[3], ast.List) and len(node.args[3].elts) == 2:
        for i in range(2):
            o, s = node.args[1 + i], node.args[3].elts[i]
            out.append((i - 2, src(o), f"{src(o)} + {src(s)}"))
    return out


def candidates(fn: ast.FunctionDef) -> list[Candidate]:
    """Every mutation of every site of the kernel *fn*, in walk order."""
    nodes = walk_nodes(fn)
    out: list[Candidate] = []
    k_loops = _k_loops(fn)
    dependent = _loop_dependent(fn)
    roles = _operand_roles(fn)
    accs = _accumulator_names(fn)
    parent = parents(fn)
    loop_roles = _loop_roles(fn, k_loops, roles)
    for i, node in enumerate(nodes):
        if isinstance(node, ast.If):
            kinds = {arm_kind(node.body), arm_kind(node.orelse)}
            if kinds == {"fresh", "acc"}:
                out += [Candidate("cond", v, i) for v in COND_VARIANTS if predicate_variant(node.test, v) is not None]
                out += [Candidate("arm_swap", "", i), Candidate("drop_seed", "", i)]
        if isinstance(node, ast.Call) and op_of(node) in MATMULS:
            op = op_of(node)
            stmt = enclosing_stmt(node, parent)
            if op == ACC:
                out.append(Candidate("acc_to_fresh", "", i))
                cond = init_cond_of(node)
                if cond is not None:
                    out += [Candidate("init", v, i) for v in COND_VARIANTS if v != "commute"
                            and predicate_variant(cond, v) is not None]
                    out.append(Candidate("init", "drop", i))
                if assign_target_name(stmt) is not None and assign_value(stmt) is node:
                    out.append(Candidate("acc_rename_target", "", i))
                if node.args and isinstance(node.args[0], ast.Name):
                    others = [a for a in accs if a not in (node.args[0].id, assign_target_name(stmt))]
                    if others:
                        out.append(Candidate("acc_rename_operand", others[0], i))
            elif assign_target_name(stmt) is not None and assign_value(stmt) is node:
                out.append(Candidate("fresh_to_acc", "", i))
            if op == "matmul_bias" and len(node.args) >= 3:
                out.append(Candidate("bias_drop", "", i))
            if len(node.args) >= (3 if op == ACC else 2):
                out.append(Candidate("operand_swap", "", i))
            out.append(Candidate("b_trans_flip", "", i))
        if isinstance(node, ast.For) and node in k_loops:
            call = node.iter
            assert isinstance(call, ast.Call)
            _, _, step = loop_parts(call)
            role = loop_roles.get(id(node), "k")
            kind = "loop_mn" if role == "mn" else "loop"
            prefix = "nested_" if role == "nested" else ""
            for v in ("start_plus", "start_minus", "stop_plus", "stop_minus", "step_zero", "step_double"):
                out.append(Candidate(kind, prefix + v, i))
            if step != "1":
                out.append(Candidate(kind, prefix + "step_half", i))
            name = dotted(call.func)
            if name.endswith(".range") and keyword(call, "stage") is None:
                out.append(Candidate("loop_equiv", "to_pipeline", i))
            if name.endswith(".pipeline"):
                out += [Candidate("loop_equiv", "to_range", i), Candidate("loop_equiv", "stage_plus", i)]
            if name.endswith(".unroll") or name == "range":
                if keyword(call, "init_values") is None:
                    out.append(Candidate("loop_equiv", "to_range", i))
        if id(node) in roles:
            k_dim = roles[id(node)]
            for dim, lower, upper in _window_dims(node):
                if not (names_in(expr(lower)) | names_in(expr(upper))) & dependent:
                    continue
                kind = "slice_shift_k" if dim == k_dim else "slice_shift_mn"
                out += [Candidate(kind, f"{sign}{dim}", i) for sign in ("+", "-")]
        if isinstance(node, ast.stmt) and _is_drain(node, k_loops, accs, fn):
            what = "acc" if _drained_value_is_acc(node, accs) else "derived"
            if _removable(node, parent):
                out.append(Candidate("drain_drop", what, i))
            if _drain_shift(copy.deepcopy(node)) is not None:
                out.append(Candidate("drain_shift", what, i))
    return out


def _loop_roles(fn: ast.FunctionDef, k_loops: list[ast.For], roles: dict[int, int]) -> dict[int, str]:
    """For each loop holding a `matmul_acc`: `k` when its variable reaches the K offset of a matmul operand and
    no other such loop encloses it or sits inside it (a start / stop change then leaves a contiguous run of
    whole blocks), `nested` when one does, `mn` when its variable reaches no K offset (a loop over output
    tiles, or a repeat)."""
    k_names: set[str] = set()
    for node in ast.walk(fn):
        if id(node) in roles:
            for dim, lower, upper in _window_dims(node):
                if dim == roles[id(node)]:
                    k_names |= names_in(expr(lower)) | names_in(expr(upper))
    assigns = [n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None]

    def reaches_k(loop: ast.For) -> bool:
        target = loop.target.elts[0] if isinstance(loop.target, ast.Tuple) and loop.target.elts else loop.target
        derived = names_in(target)
        for _ in range(6):
            for a in assigns:
                name = assign_target_name(a)
                if name and a.value is not None and names_in(a.value) & derived:
                    derived.add(name)
        return bool(derived & k_names)

    k_role = [loop for loop in k_loops if reaches_k(loop)]
    out: dict[int, str] = {}
    for loop in k_loops:
        if loop not in k_role:
            out[id(loop)] = "mn"
        elif any(other is not loop and (other in ast.walk(loop) or loop in ast.walk(other)) for other in k_role):
            out[id(loop)] = "nested"
        else:
            out[id(loop)] = "k"
    return out


def _accumulator_names(fn: ast.FunctionDef) -> list[str]:
    """Names bound to a matmul result, a created accumulator or a loop's iter_arg, in walk order."""
    out: list[str] = []
    for n in ast.walk(fn):
        name = assign_target_name(n)
        value = assign_value(n)
        if name and op_of(value) in MATMULS | {"create", "create_tensor"} and name not in out:
            out.append(name)
        if isinstance(n, ast.For) and isinstance(n.target, ast.Tuple) and len(n.target.elts) == 2:
            carried = n.target.elts[1]
            for e in (carried.elts if isinstance(carried, ast.Tuple) else [carried]):
                if isinstance(e, ast.Name) and e.id not in out:
                    out.append(e.id)
    return out


def _is_drain(stmt: ast.stmt, k_loops: list[ast.For], accs: list[str], fn: ast.FunctionDef) -> bool:
    """A GM write (subscript store, `assemble`, `store`) outside every K loop whose value derives from an
    accumulator (through assignments of the kernel)."""
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    gm_store = any(isinstance(t, ast.Subscript) for t in targets) or op_of(stmt.value) in DRAINS
    if not gm_store or stmt.value is None:
        return False
    if any(stmt in ast.walk(loop) for loop in k_loops):
        return False
    derived = set(accs)
    assigns = [n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n is not stmt]
    for _ in range(4):
        for a in assigns:
            name = assign_target_name(a)
            if name and a.value is not None and names_in(a.value) & derived:
                derived.add(name)
    value_names = names_in(stmt.value)
    if op_of(stmt.value) in DRAINS and isinstance(stmt.value, ast.Call) and stmt.value.args:
        value_names -= names_in(stmt.value.args[0]) if op_of(stmt.value) == "assemble" else set()
        if op_of(stmt.value) == "store" and len(stmt.value.args) >= 3:
            value_names -= names_in(stmt.value.args[2])
    return bool(value_names & derived)


def _drained_value_is_acc(stmt: ast.stmt, accs: list[str]) -> bool:
    """The GM write stores an accumulator itself (`y[...] = acc`, `assemble(y, acc, ...)`, `store(acc, ...)`),
    possibly through a `cast` / `reshape` (still the FIXPIPE drain), not a value a vector op derived from it."""
    value = stmt.value  # type: ignore[attr-defined]
    if op_of(value) == "assemble" and len(value.args) >= 2:
        value = value.args[1]
    elif op_of(value) == "store" and value.args:
        value = value.args[0]
    while op_of(value) in ("cast", "reshape") and value.args:
        value = value.args[0]
    return isinstance(value, ast.Name) and value.id in accs


def _removable(stmt: ast.stmt, parent: dict[int, ast.AST]) -> bool:
    holder = parent.get(id(stmt))
    for name in ("body", "orelse"):
        block = getattr(holder, name, None)
        if isinstance(block, list) and stmt in block:
            return len(block) > 1
    return False


def _drain_shift(stmt: ast.stmt) -> ast.stmt | None:
    """*stmt* (a copy) with its GM window moved: a slice by its extent, an offset by 16; None if it has none."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]  # type: ignore[attr-defined]
    for t in targets:
        if isinstance(t, ast.Subscript):
            elts = t.slice.elts if isinstance(t.slice, ast.Tuple) else [t.slice]
            for e in reversed(elts):
                if isinstance(e, ast.Slice) and e.lower is not None and e.upper is not None:
                    lower, upper = src(e.lower), src(e.upper)
                    e.lower, e.upper = expr(upper), expr(f"{upper} + ({upper} - ({lower}))")
                    return stmt
    value = stmt.value  # type: ignore[attr-defined]
    if isinstance(value, ast.Call) and op_of(value) in DRAINS:
        offsets = value.args[2] if op_of(value) == "assemble" and len(value.args) >= 3 else \
            value.args[1] if op_of(value) == "store" and len(value.args) >= 2 else None
        if isinstance(offsets, ast.List) and offsets.elts:
            offsets.elts[-1] = expr(f"{src(offsets.elts[-1])} + 16")
            return stmt
    return None


# ---------------------------------------------------------------------------------------------- applying


def apply(fn: ast.FunctionDef, cand: Candidate) -> Applied:
    """Apply *cand* to *fn* in place (a copy of the kernel's tree); what it changed."""
    nodes = walk_nodes(fn)
    node = nodes[cand.node]
    parent = parents(fn)
    stmt = enclosing_stmt(node, parent)
    before = first_line(stmt) if not isinstance(node, ast.If) else "if " + src(node.test) + ":"
    kind, variant = cand.kind, cand.variant
    after: str
    if kind == "cond":
        assert isinstance(node, ast.If)
        new = predicate_variant(node.test, variant)
        assert new is not None
        node.test = new
        after = "if " + src(node.test) + ":"
    elif kind == "arm_swap":
        assert isinstance(node, ast.If)
        node.body, node.orelse = node.orelse, node.body
        after = f"if {src(node.test)}: <arms swapped>"
    elif kind == "drop_seed":
        assert isinstance(node, ast.If)
        if arm_kind(node.body) == "fresh":
            node.body = copy.deepcopy(node.orelse)
            if len(node.body) == 1 and isinstance(node.body[0], ast.If):  # an elif chain: its first arm
                node.body = copy.deepcopy(node.body[0].body)
        else:
            node.orelse = copy.deepcopy(node.body)
        after = f"if {src(node.test)}: <both arms accumulate>"
    elif kind == "acc_to_fresh":
        assert isinstance(node, ast.Call)
        node.func = _renamed(node.func, "matmul")
        node.args = node.args[1:3]
        node.keywords = [k for k in node.keywords if k.arg != "init_cond"]
        if _needs_out_dtype(fn, node):
            node.keywords.append(ast.keyword("out_dtype", expr("pl.FP32")))
        after = first_line(stmt)
    elif kind == "fresh_to_acc":
        assert isinstance(node, ast.Call)
        target = _acc_operand_for(fn, node, stmt, parent)
        node.func = _renamed(node.func, ACC)
        node.args = [expr(target), *node.args[0:2]]
        node.keywords = [k for k in node.keywords if k.arg not in ("out_dtype",)]
        after = first_line(stmt)
    elif kind == "init":
        assert isinstance(node, ast.Call)
        cond = init_cond_of(node)
        assert cond is not None
        set_init_cond(node, None if variant == "drop" else predicate_variant(cond, variant))
        after = first_line(stmt)
    elif kind == "acc_rename_target":
        if isinstance(stmt, ast.Assign):
            stmt.targets = [ast.Name(stmt.targets[0].id + "_fz", ast.Store())]  # type: ignore[attr-defined]
        elif isinstance(stmt, ast.AnnAssign):
            stmt.target = ast.Name(stmt.target.id + "_fz", ast.Store())  # type: ignore[attr-defined]
        after = first_line(stmt)
    elif kind == "acc_rename_operand":
        assert isinstance(node, ast.Call)
        node.args[0] = ast.Name(variant, ast.Load())
        after = first_line(stmt)
    elif kind == "bias_drop":
        assert isinstance(node, ast.Call)
        node.func = _renamed(node.func, "matmul")
        node.args = node.args[0:2]
        after = first_line(stmt)
    elif kind == "operand_swap":
        assert isinstance(node, ast.Call)
        i = 1 if op_of(node) == ACC else 0
        node.args[i], node.args[i + 1] = node.args[i + 1], node.args[i]
        after = first_line(stmt)
    elif kind == "b_trans_flip":
        assert isinstance(node, ast.Call)
        kw = keyword(node, "b_trans")
        if kw is not None and _true_kw(node, "b_trans"):
            node.keywords.remove(kw)
        elif kw is not None:
            kw.value = ast.Constant(True)
        else:
            node.keywords.append(ast.keyword("b_trans", ast.Constant(True)))
        after = first_line(stmt)
    elif kind in ("loop", "loop_mn"):
        assert isinstance(node, ast.For) and isinstance(node.iter, ast.Call)
        start, stop, step = loop_parts(node.iter)
        variant = variant.removeprefix("nested_")
        new = {"start_plus": (f"{start} + {step}", stop, step), "start_minus": (f"{start} - {step}", stop, step),
               "stop_plus": (start, f"{stop} + {step}", step), "stop_minus": (start, f"{stop} - {step}", step),
               "step_zero": (start, stop, "0"), "step_double": (start, stop, f"2 * {step}"),
               "step_half": (start, stop, f"({step}) // 2")}[variant]
        set_loop_parts(node.iter, *new)
        before, after = "for ... in " + before.split(" in ", 1)[-1], "for ... in " + src(node.iter) + ":"
    elif kind == "loop_equiv":
        assert isinstance(node, ast.For) and isinstance(node.iter, ast.Call)
        call = node.iter
        if variant == "to_pipeline":
            call.func = expr("pl.pipeline")
            call.keywords.append(ast.keyword("stage", ast.Constant(2)))
        elif variant == "to_range":
            call.func = expr("pl.range")
            call.keywords = [k for k in call.keywords if k.arg != "stage"]
        else:
            kw = keyword(call, "stage")
            assert kw is not None
            kw.value = expr(f"{src(kw.value)} + 1")
        before, after = "for ... in " + before.split(" in ", 1)[-1], "for ... in " + src(node.iter) + ":"
    elif kind in ("slice_shift_k", "slice_shift_mn"):
        sign, dim = variant[0], int(variant[1:])
        _shift_window(node, dim, sign)
        after = first_line(stmt)
    elif kind == "drain_drop":
        holder = parent[id(stmt)]
        for name in ("body", "orelse"):
            block = getattr(holder, name, None)
            if isinstance(block, list) and stmt in block:
                block.remove(stmt)  # type: ignore[arg-type]
                break
        after = "<removed>"
    elif kind == "drain_shift":
        shifted = _drain_shift(stmt)  # in place
        assert shifted is not None
        after = first_line(stmt)
    else:
        raise ValueError(kind)
    return Applied(kind, variant, before, after)


def _renamed(func: ast.expr, name: str) -> ast.expr:
    text = dotted(func)
    return expr(text.rsplit(".", 1)[0] + "." + name if "." in text else name)


def _needs_out_dtype(fn: ast.FunctionDef, call: ast.Call) -> bool:
    """A tensor-level matmul on low-precision operands needs `out_dtype=pl.FP32` to keep its dtype (INT8 gives
    INT32 by itself; tile-level matmuls are FP32 already): true when a fresh matmul of the kernel has one."""
    if dotted(call.func).startswith("pl.tile."):
        return False
    return any(op_of(n) in FRESH and keyword(n, "out_dtype") is not None for n in ast.walk(fn)  # type: ignore[arg-type]
               if n is not call)


def _acc_operand_for(fn: ast.FunctionDef, call: ast.Call, stmt: ast.AST, parent: dict[int, ast.AST]) -> str:
    """The accumulator a fresh matmul turned `matmul_acc` accumulates into. In a seed `if`: the operand of the
    other arm's `matmul_acc` that assigns the same name (Form 1), else the one in the same position (Form 2,
    where the arms assign other names and accumulate into iter_args). Elsewhere: the name it is assigned to."""
    node: ast.AST = stmt
    target = assign_target_name(stmt)
    while id(node) in parent:
        node = parent[id(node)]
        if isinstance(node, ast.If):
            fresh = [n for n in ast.walk(node) if op_of(n) in FRESH]
            accs = [n for n in ast.walk(node) if op_of(n) == ACC and isinstance(n, ast.Call) and n.args
                    and isinstance(n.args[0], ast.Name)]
            if not accs:
                break
            for n in accs:
                owner = enclosing_stmt(n, parent)
                if target is not None and assign_target_name(owner) == target:
                    return n.args[0].id  # type: ignore[attr-defined]
            position = next((j for j, n in enumerate(fresh) if n is call), 0)
            return accs[min(position, len(accs) - 1)].args[0].id  # type: ignore[attr-defined]
    assert target is not None
    return target


def _shift_window(node: ast.AST, dim: int, sign: str) -> None:
    if isinstance(node, ast.Subscript):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        e = elts[dim]
        assert isinstance(e, ast.Slice) and e.lower is not None and e.upper is not None
        lower, upper = src(e.lower), src(e.upper)
        if sign == "+":
            e.lower, e.upper = expr(upper), expr(f"{upper} + ({upper} - ({lower}))")
        else:
            e.lower, e.upper = expr(f"{lower} - ({upper} - ({lower}))"), expr(lower)
        return
    assert isinstance(node, ast.Call)
    if op_of(node) == "load":
        offsets, sizes = node.args[1], node.args[2]
        assert isinstance(offsets, ast.List) and isinstance(sizes, ast.List)
        i = len(offsets.elts) + dim
        offsets.elts[i] = expr(f"{src(offsets.elts[i])} {sign} {src(sizes.elts[i])}")
    else:  # extract(src, row, col, [rows, cols])
        shape = node.args[3]
        assert isinstance(shape, ast.List)
        i = 2 + dim
        node.args[1 + i] = expr(f"{src(node.args[1 + i])} {sign} {src(shape.elts[i])}")


# ---------------------------------------------------------------------------------------------- mutants


def make_mutant(kernel: KernelSource, chain: list[Candidate] | None = None, *, rng: random.Random | None = None,
                order: int = 1, first: Candidate | None = None) -> Mutant | None:
    """A mutant of *kernel*: the candidates of *chain* applied in order, or *first* then `order - 1` more
    chosen by *rng* among the sites of each result. None when no candidate applies."""
    tree = copy.deepcopy(kernel.tree)
    applied: list[Applied] = []
    steps = list(chain or ([first] if first else []))
    stmt_index = -1
    try:
        for step in steps:
            if not applied:
                stmt_index = _stmt_index(kernel.function_node(tree), step)
            applied.append(apply(kernel.function_node(tree), step))
        while rng is not None and len(applied) < order:
            options = candidates(kernel.function_node(tree))
            if not options:
                break
            step = rng.choice(options)
            if not applied:
                stmt_index = _stmt_index(kernel.function_node(tree), step)
            applied.append(apply(kernel.function_node(tree), step))
        ast.fix_missing_locations(tree)
        text = ast.unparse(tree) + "\n"
    except (AssertionError, IndexError, ValueError, SyntaxError, AttributeError):
        return None
    if not applied:
        return None
    line = 0
    if applied[0].after != "<removed>" and stmt_index >= 0:
        reparsed = ast.parse(text)
        stmts = [n for n in ast.walk(kernel.function_node(reparsed)) if isinstance(n, ast.stmt)]
        if stmt_index < len(stmts):
            line = stmts[stmt_index].lineno
    return Mutant(kernel.source, kernel.kernel, kernel.function, text, tuple(applied), line)


def _stmt_index(fn: ast.FunctionDef, cand: Candidate) -> int:
    """The index, among the statements of *fn* in walk order, of the statement *cand* changes. Statements
    before it in walk order are no deeper than it, so a mutation inside it leaves the index valid."""
    node = walk_nodes(fn)[cand.node]
    stmt = enclosing_stmt(node, parents(fn))
    stmts = [n for n in ast.walk(fn) if isinstance(n, ast.stmt)]
    return next((i for i, n in enumerate(stmts) if n is stmt), -1)


def first_order(kernel: KernelSource) -> Iterator[Candidate]:
    """Every first-order mutation of *kernel*."""
    yield from candidates(kernel.function_node(kernel.tree))
