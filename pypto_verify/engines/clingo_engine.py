"""The embedded engine: translates a checked Soufflé-subset `Program` to ASP and evaluates it with clingo.

Input: a `Program` (souffle_lang.py) and a facts directory of Soufflé TSV files. Output: the `.output`
relations as sorted typed rows. Spec: ARCHITECTURE.md "Engines".

clingo accepts programs Soufflé rejects (it computes stable models of unstratified programs and inverts
arithmetic to bind variables), so this module checks stratification and safety itself, with Soufflé's
rules, before anything reaches clingo. Aggregates are translated so that they count and sum over exactly
the tuples Soufflé's evaluation visits (see `_aggregate_keys`).

Naming: relation `r` becomes predicate `r_<r>` and variable `x` becomes `V<x>`, with `_` written as
`__` and `?` as `_Q`, so distinct Soufflé names stay distinct. Fresh variables are `W<n>` (aggregate
wildcards) and `A<n>` (aggregate results); they cannot collide with `V...`.
"""

from __future__ import annotations

import functools
import multiprocessing
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pypto_verify.engines.souffle_lang import (
    Aggregate,
    Arith,
    Atom,
    BodyLiteral,
    Compare,
    EngineError,
    EngineTimeout,
    Kind,
    Loc,
    Negate,
    Negation,
    Number,
    Program,
    Row,
    Rule,
    Symbol,
    Term,
    Var,
    Wildcard,
    all_vars,
    literal_terms,
    term_vars,
    walk_atoms,
)

# NOTE: clingo numbers are 32-bit and its arithmetic wraps silently; Soufflé's are 64-bit here.
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True, slots=True)
class Predicate:
    """How one Soufflé relation appears in the ASP program."""

    relation: str
    asp_name: str
    kinds: tuple[Kind, ...]


@dataclass(frozen=True, slots=True)
class Translation:
    """The ASP rules of a program (facts files are added per run) and its input and output predicates."""

    asp: str
    inputs: tuple[Predicate, ...]
    outputs: tuple[Predicate, ...]
    read: frozenset[str]
    """The input relations some rule reads or the program outputs: no other input can change an output."""


def translate(program: Program) -> Translation:
    """Check stratification and safety, then render the rules (and the program's own facts) as ASP."""
    check_stratification(program)
    for rule in program.rules:
        check_safety(rule)
    lines = [_rule_text(rule, program) for rule in program.rules]
    outputs = tuple(_predicate(program, name) for name in program.outputs)
    lines.extend(f"#show {p.asp_name}/{len(p.kinds)}." for p in outputs)
    inputs = tuple(_predicate(program, name) for name in program.inputs)
    read = {atom.relation for rule in program.rules for atom, _, _ in walk_atoms(rule.body)}
    return Translation("\n".join(lines) + "\n", inputs, outputs, frozenset(read | set(program.outputs)))


def run(translation: Translation, facts_dir: Path, *, timeout: float) -> dict[str, list[Row]]:
    """Evaluate the program on the facts in `facts_dir`; `{output relation: sorted rows}`."""
    facts = facts_text(translation, facts_dir)
    return solve(translation, facts, timeout=timeout)


# --------------------------------------------------------------------------------- stratification


def check_stratification(program: Program) -> None:
    """Reject negation or aggregation inside a recursive cycle (Soufflé's stratification condition)."""
    edges: dict[str, list[tuple[str, str, Loc]]] = {name: [] for name in program.relations}
    for rule in program.rules:
        for atom, negated, in_aggregate in walk_atoms(rule.body):
            how = "negation" if negated else "an aggregate" if in_aggregate else ""
            for head in rule.heads:
                edges[head.relation].append((atom.relation, how, atom.loc))
    component = _strongly_connected_components(edges)
    for source, targets in edges.items():
        for target, how, loc in targets:
            if how and component[source] == component[target]:
                cycle = [source, *_path(edges, target, source, component)]
                raise EngineError(
                    f"`{source}` depends on `{target}` through {how} inside the recursive cycle "
                    f"{' -> '.join(cycle)}; the program is not stratified",
                    loc,
                )


def _strongly_connected_components(edges: dict[str, list[tuple[str, str, Loc]]]) -> dict[str, int]:
    """Tarjan's algorithm, iterative so deep dependency chains cannot hit the recursion limit."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    component: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = edges[node]
            if child < len(targets):
                work.append((node, child + 1))
                target = targets[child][0]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            for target, _, _ in targets:
                if target in on_stack:
                    low[node] = min(low[node], low[target])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = index[node]
                    if member == node:
                        break
    return component


def _path(edges: dict[str, list[tuple[str, str, Loc]]], start: str, goal: str, component: dict[str, int]) -> list[str]:
    """Shortest dependency path start -> ... -> goal inside one component (breadth first)."""
    previous: dict[str, str | None] = {start: None}
    queue = [start]
    for node in queue:
        if node == goal:
            break
        for target, _, _ in edges[node]:
            if target not in previous and component[target] == component[start]:
                previous[target] = node
                queue.append(target)
    path: list[str] = []
    step: str | None = goal
    while step is not None:
        path.append(step)
        step = previous[step]
    return path[::-1]


# ----------------------------------------------------------------------------------------- safety


def check_safety(rule: Rule) -> None:
    """Every variable must be grounded the way Soufflé grounds it, or the rule is rejected."""
    bound = _grounded(rule.body, frozenset())
    _check_body(rule.body, bound, rule)
    for head in rule.heads:
        for arg in head.args:
            for var in term_vars(arg):
                _require(var, bound, rule, "in the head")


@dataclass(frozen=True, slots=True)
class AggregateScope:
    """Soufflé's scoping of one aggregate's variables (ast/analysis/Aggregate.cpp)."""

    injected: frozenset[str]
    """Grounded outside the aggregate (not counting its own result) and not in its target: a join."""
    local: frozenset[str]
    """Everything else; a local name that is also used outside is a different variable (renamed)."""


def aggregate_scope(rule: Rule, aggregate: Aggregate) -> AggregateScope:
    """Split an aggregate's variables into injected and local ones; reject aggregate witnesses."""
    inside = {var.name for var in all_vars(aggregate)}
    target = {var.name for var in all_vars(aggregate.target)} if aggregate.target is not None else set()
    outer = outer_names(rule)
    grounded_with_result = _grounded(rule.body, frozenset())
    grounded_without_result = _grounded(rule.body, frozenset(), excluded=aggregate)
    for var in all_vars(aggregate):
        if var.name in outer and var.name not in grounded_with_result:
            # Soufflé rejects such "witnesses" for count/sum and gives min/max a witness semantics.
            raise EngineError(
                f"variable `{var.name}` is grounded only inside an aggregate but used outside it (rule at line "
                f"{rule.loc.line}); aggregate witnesses are outside the supported Soufflé subset",
                var.loc,
            )
    injected = frozenset(name for name in inside if name in grounded_without_result and name not in target)
    return AggregateScope(injected, frozenset(inside - injected))


def outer_names(rule: Rule) -> set[str]:
    """Names of the variables a rule uses outside its aggregates (clingo's "global" variables)."""
    names = {var.name for head in rule.heads for arg in head.args for var in term_vars(arg)}
    for literal in rule.body:
        for term in literal_terms(literal):
            names.update(var.name for var in term_vars(term))
    return names


def _grounded(
    body: tuple[BodyLiteral, ...], outer: frozenset[str], excluded: Aggregate | None = None
) -> set[str]:
    """Variables grounded by positive atoms' plain arguments and by `x = e` with `e` grounded.

    Any aggregate is a grounded value (its own variables are checked separately), except `excluded`.
    """
    bound = set(outer)
    for literal in body:
        if isinstance(literal, Atom):
            bound.update(arg.name for arg in literal.args if isinstance(arg, Var))
    changed = True
    while changed:
        changed = False
        for literal in body:
            if not isinstance(literal, Compare) or literal.op != "=":
                continue
            for side, other in ((literal.left, literal.right), (literal.right, literal.left)):
                if (isinstance(side, Var) and side.name not in bound and _is_grounded(other, bound)
                        and not any(inner is excluded for inner in _aggregates(other))):
                    bound.add(side.name)
                    changed = True
    return bound


def _is_grounded(term: Term, bound: set[str]) -> bool:
    return all(var.name in bound for var in term_vars(term))


def _check_body(body: tuple[BodyLiteral, ...], bound: set[str], rule: Rule) -> None:
    for literal in body:
        where = "in a negated atom" if isinstance(literal, Negation) else (
            "in an atom argument" if isinstance(literal, Atom) else "in a comparison")
        for term in literal_terms(literal):
            if isinstance(literal, Atom) and isinstance(term, Var | Wildcard):
                continue
            for var in term_vars(term):
                _require(var, bound, rule, where)
            for inner in _aggregates(term):
                _check_aggregate(inner, rule)


def _check_aggregate(aggregate: Aggregate, rule: Rule) -> None:
    scope = aggregate_scope(rule, aggregate)
    inner_bound = _grounded(aggregate.body, scope.injected)
    _check_body(aggregate.body, inner_bound, rule)
    if aggregate.target is not None:
        for var in term_vars(aggregate.target):
            _require(var, inner_bound, rule, f"in the `{aggregate.op}` target")


def _require(var: Var, bound: set[str], rule: Rule, where: str) -> None:
    if var.name not in bound:
        raise EngineError(
            f"ungrounded variable `{var.name}` {where} (rule at line {rule.loc.line}): it must appear in a "
            f"positive body atom or be set by `{var.name} = <expression of grounded variables>`",
            var.loc,
        )


def _aggregates(term: Term) -> list[Aggregate]:
    if isinstance(term, Aggregate):
        return [term]
    if isinstance(term, Arith):
        return _aggregates(term.left) + _aggregates(term.right)
    if isinstance(term, Negate):
        return _aggregates(term.operand)
    return []


# ------------------------------------------------------------------------------------ translation


def mangle(name: str) -> str:
    """An injective spelling of a Soufflé identifier in ASP's identifier alphabet."""
    return name.replace("_", "__").replace("?", "_Q")


def predicate_name(relation: str) -> str:
    return "r_" + mangle(relation)


def _predicate(program: Program, name: str) -> Predicate:
    return Predicate(name, predicate_name(name), program.relations[name].kinds)


def asp_string(value: str) -> str:
    """An ASP string literal; clingo knows only the escapes `\\\\`, `\\"` and `\\n`."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_ASP_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "\\"}  # clingo's `/` and `\` truncate like C


class _RuleWriter:
    """Renders one rule; aggregates become extra body literals that bind fresh `A<n>` variables."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.outer = outer_names(rule)
        self.fresh = 0
        self.pending: list[str] = []
        self.renames: dict[str, str] = {}  # aggregate-local variables that share a name with an outer one

    def var(self, name: str) -> str:
        return self.renames.get(name) or "V" + mangle(name)

    def new_var(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    def term(self, term: Term, wildcards: dict[int, str] | None = None) -> str:
        if isinstance(term, Var):
            return self.var(term.name)
        if isinstance(term, Wildcard):
            if wildcards is not None and id(term) in wildcards:
                return wildcards[id(term)]
            return "_"
        if isinstance(term, Number):
            _check_range(term.value, term.loc)
            return str(term.value) if term.value >= 0 else f"({term.value})"
        if isinstance(term, Symbol):
            return asp_string(term.value)
        if isinstance(term, Arith):
            return f"({self.term(term.left)}{_ASP_OPS[term.op]}{self.term(term.right)})"
        if isinstance(term, Negate):
            return f"(-{self.term(term.operand)})"
        result = self.new_var("A")
        self.pending.extend(self.aggregate(result, term))
        return result

    def literal(self, literal: BodyLiteral) -> list[str]:
        self.pending = []
        if isinstance(literal, Atom):
            text = self.atom(literal)
        elif isinstance(literal, Negation):
            text = "not " + self.atom(literal.atom)
        elif literal.op == "=" and isinstance(literal.right, Aggregate) and isinstance(literal.left, Var):
            return self.aggregate(self.term(literal.left), literal.right)
        elif literal.op == "=" and isinstance(literal.left, Aggregate) and isinstance(literal.right, Var):
            return self.aggregate(self.term(literal.right), literal.left)
        else:
            left, right = literal.left, literal.right
            if literal.op == "=" and isinstance(right, Var) and not isinstance(left, Var):
                left, right = right, left  # `e = x` binds x: keep the variable on the left
            text = f"{self.term(left)}{literal.op}{self.term(right)}"
        return [*self.pending, text]

    def atom(self, atom: Atom, wildcards: dict[int, str] | None = None) -> str:
        name = predicate_name(atom.relation)
        if not atom.args:
            return name
        return f"{name}({','.join(self.term(arg, wildcards) for arg in atom.args)})"

    def aggregate(self, result: str, aggregate: Aggregate) -> list[str]:
        # Soufflé scopes local variables to the aggregate (UniqueAggregationVariables); clingo would treat
        # a name that also occurs outside as global, so such locals get a fresh name.
        scope = aggregate_scope(self.rule, aggregate)
        self.renames = {name: self.new_var("L") + mangle(name) for name in sorted(scope.local & self.outer)}
        try:
            return self._aggregate(result, aggregate)
        finally:
            self.renames = {}

    def _aggregate(self, result: str, aggregate: Aggregate) -> list[str]:
        keys, wildcards = _aggregate_keys(aggregate, self.new_var, self.var)
        saved, self.pending = self.pending, []
        conditions: list[str] = []
        for literal in aggregate.body:
            if isinstance(literal, Atom):
                conditions.append(self.atom(literal, wildcards))
            elif isinstance(literal, Negation):
                conditions.append("not " + self.atom(literal.atom))
            else:
                conditions.append(f"{self.term(literal.left)}{literal.op}{self.term(literal.right)}")
        self.pending = saved
        condition = ",".join(conditions)
        if aggregate.op == "count":
            return [f"{result}=#count{{{','.join(keys) or '0'}:{condition}}}"]
        assert aggregate.target is not None  # None exactly for `count` (returned above)
        target = self.term(aggregate.target)
        if aggregate.op == "sum":
            return [f"{result}=#sum{{{','.join([target, *keys])}:{condition}}}"]
        # An empty min/max is #sup/#inf in clingo; Soufflé derives no row, so the guard drops it.
        empty = "#sup" if aggregate.op == "min" else "#inf"
        return [f"{result}=#{aggregate.op}{{{target}:{condition}}}", f"{result}!={empty}"]


def _aggregate_keys(aggregate: Aggregate, new_var, var_name) -> tuple[list[str], dict[int, str]]:
    """The tuple an aggregate is taken over, so that clingo's set semantics equals Soufflé's.

    Soufflé evaluates an aggregate whose body has exactly one positive atom (with no repeated variable)
    by scanning that relation: every matching tuple counts, wildcard columns included. Any other body is
    first materialised into a relation over its named variables (ast/transform/MaterializeAggregationQueries),
    so wildcards are projected away. The keys are therefore all named variables, plus fresh variables for
    the single atom's wildcards in the first case.
    """
    names: list[str] = []
    for literal in aggregate.body:
        for term in literal_terms(literal):
            for var in all_vars(term):
                if var.name not in names:
                    names.append(var.name)
    keys = [var_name(name) for name in names]
    wildcards: dict[int, str] = {}
    atoms = [literal for literal in aggregate.body if isinstance(literal, Atom)]
    if len(atoms) == 1:
        occurring = [var.name for arg in atoms[0].args for var in all_vars(arg)]
        if len(occurring) == len(set(occurring)):
            for arg in atoms[0].args:
                if isinstance(arg, Wildcard):
                    wildcards[id(arg)] = new_var("W")
            keys.extend(wildcards.values())
    return keys, wildcards


def _rule_text(rule: Rule, program: Program) -> str:
    writer = _RuleWriter(rule)
    body: list[str] = []
    for literal in rule.body:
        body.extend(writer.literal(literal))
    heads = [writer.atom(head) for head in rule.heads]
    if not body:
        return "\n".join(f"{head}." for head in heads)
    tail = ":-" + ",".join(body) + "."
    return "\n".join(head + tail for head in heads)


def _check_range(value: int, loc: Loc | None, where: str = "") -> None:
    if not INT_MIN <= value <= INT_MAX:
        raise EngineError(f"number {value}{where} does not fit clingo's 32-bit integers", loc)


# ------------------------------------------------------------------------------------------ facts

_INT_RE = re.compile(r"\s*[+-]?[0-9]+")  # std::stoll: leading blanks and a sign, then digits


@functools.lru_cache(maxsize=None)
def _plain_rows(kinds: tuple[Kind, ...]) -> tuple[re.Pattern[str], re.Pattern[str], str]:
    """(all rows, one row, the row's atom arguments as a substitution template) of rows whose numbers are
    canonical integers (no sign but `-`, no leading zero, ≤ 9 digits: inside clingo's 32 bits) and whose
    symbols need no escape: what the exporter writes, checked and translated at C speed."""
    number, symbol = r"(-?(?:0|[1-9][0-9]{0,8}))", r"([A-Za-z0-9_.]*)"
    row = "\t".join(number if kind == "number" else symbol for kind in kinds) + "\n"
    arguments = ",".join(f"\\g<{i}>" if kind == "number" else f'"\\g<{i}>"' for i, kind in enumerate(kinds, 1))
    return re.compile(f"(?:{row})*"), re.compile(row), arguments


def facts_text(translation: Translation, facts_dir: Path) -> str:
    """The input relations' `.facts` files as ASP facts; a missing file is an empty relation."""
    parts: list[str] = []
    for predicate in translation.inputs:
        path = facts_dir / f"{predicate.relation}.facts"
        try:
            data = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError) as error:
            raise EngineError(f"cannot read `{path}`: {error}") from None
        parts.append(_relation_facts(predicate, data, path))
    return "".join(parts)


def rows_text(translation: Translation, rows: Mapping[str, Iterable[Row]]) -> str:
    """The input relations given as rows (`{relation: rows}`, a missing one empty) as ASP facts, checked as
    a `.facts` file of the same rows is (`facts_text`), without the file: an input no rule reads is left
    out (`Translation.read`)."""
    parts: list[str] = []
    for predicate in translation.inputs:
        if predicate.relation not in translation.read:
            continue
        data = "".join("\t".join(map(str, row)) + "\n" for row in rows.get(predicate.relation, ()))
        parts.append(_relation_facts(predicate, data, Path(f"{predicate.relation}.facts")))
    return "".join(parts)


def _relation_facts(predicate: Predicate, data: str, path: Path) -> str:
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last row starts no row (ReadStreamCSV uses getline)
    arity = len(predicate.kinds)
    if arity == 0:
        return f"{predicate.asp_name}.\n" if lines else ""
    numbers = [kind == "number" for kind in predicate.kinds]
    rows, row, arguments = _plain_rows(predicate.kinds)
    if rows.fullmatch(data):
        # the common case (_plain_rows): a row of numbers is the atom's arguments as written, and a row
        # with symbols takes their quotes by one substitution
        opening = f"{predicate.asp_name}("
        if all(numbers):
            return opening + f").\n{opening}".join(data.replace("\t", ",").splitlines()) + ").\n" if lines else ""
        return row.sub(f"{opening}{arguments}).\n", data)
    out: list[str] = []
    for lineno, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]
        fields = line.split("\t")
        if len(fields) < arity:
            raise EngineError(f"{path}:{lineno}: expected {arity} tab-separated values, found {len(fields)}")
        values: list[str] = []
        for column, (field, is_number) in enumerate(zip(fields, numbers), 1):
            if is_number:
                if not _INT_RE.fullmatch(field):
                    raise EngineError(f"{path}:{lineno}: column {column} is not a number: `{field}`")
                value = int(field)
                if not INT_MIN <= value <= INT_MAX:
                    raise EngineError(f"{path}:{lineno}: number {value} does not fit clingo's 32-bit integers")
                values.append(str(value))
            else:
                values.append(asp_string(field))
        out.append(f"{predicate.asp_name}({','.join(values)}).\n")
    return "".join(out)


# ------------------------------------------------------------------------------------------ solve


def solve(translation: Translation, facts: str, *, timeout: float) -> dict[str, list[Row]]:
    """Ground and solve in a forked child so that a runaway grounding can be stopped at `timeout`."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return _solve_here(translation, facts)
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_solve_child, args=(sender, translation, facts), daemon=True)
    child.start()
    sender.close()
    answered = False
    try:
        if not receiver.poll(timeout):
            raise EngineTimeout(f"clingo did not finish within {timeout:g} s")
        try:
            status, payload = receiver.recv()
        except EOFError:
            child.join()
            raise EngineError(f"clingo stopped without an answer (exit code {child.exitcode})") from None
        answered = True
    finally:
        child.join(5.0 if answered else 0.0)
        if child.is_alive():
            child.kill()
            child.join()
        receiver.close()
    if status == "error":
        raise EngineError(payload)
    return payload


def _solve_child(sender, translation: Translation, facts: str) -> None:
    message: tuple[str, object]  # ("ok", relations) or ("error", text)
    try:
        message = ("ok", _solve_here(translation, facts))
    except EngineError as error:
        message = ("error", str(error))
    except BaseException as error:  # our own bug in the child: report it, never hang the parent
        message = ("error", f"clingo run failed: {type(error).__name__}: {error}")
    sender.send(message)
    sender.close()


def _solve_here(translation: Translation, facts: str) -> dict[str, list[Row]]:
    import clingo  # imported late: only this engine needs it

    messages: list[str] = []
    control = clingo.Control(
        ["--warn=none", "--models=1"], logger=lambda _code, text: messages.append(text.strip()), message_limit=20
    )
    try:
        control.add("base", [], translation.asp)
        control.add("base", [], facts)
        control.ground([("base", [])])
    except RuntimeError as error:
        detail = "; ".join(messages) or str(error)
        raise EngineError(f"clingo rejected the translated program: {detail}") from None
    by_name = {p.asp_name: p for p in translation.outputs}
    parsers = {p.asp_name: _row_parser(p.kinds) for p in translation.outputs}
    rows: dict[str, list[Row]] = {p.relation: [] for p in translation.outputs}
    models = 0

    def on_model(model) -> None:
        nonlocal models
        models += 1
        # str() of each symbol and a Python parse is about twice as fast as walking Symbol.arguments.
        for text in map(str, model.symbols(shown=True)):
            open_paren = text.find("(")
            name = text if open_paren < 0 else text[:open_paren]
            rows[by_name[name].relation].append(parsers[name](text[open_paren + 1 : -1]))

    result = control.solve(on_model=on_model)
    if not result.satisfiable or models != 1:
        raise EngineError("clingo found no model; a stratified program always has exactly one")
    return {name: sorted(set(values)) for name, values in rows.items()}


_ASP_TERM = re.compile(r'"((?:[^"\\]|\\.)*)"|(-?[0-9]+)')
_ASP_UNESCAPE = re.compile(r"\\(.)")


def _row_parser(kinds: tuple[Kind, ...]):
    """Parse the argument text of a shown atom (`1,"a\\"b",-3`) into a typed row."""
    if not kinds:
        return lambda _inner: ()
    if all(kind == "number" for kind in kinds):
        return lambda inner: tuple(map(int, inner.split(",")))

    def parse(inner: str) -> Row:
        values: list[int | str] = []
        for string, number in _ASP_TERM.findall(inner):
            if number:
                values.append(int(number))
            elif "\\" in string:
                values.append(_ASP_UNESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), string))
            else:
                values.append(string)
        return tuple(values)

    return parse
