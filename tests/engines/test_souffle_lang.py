"""The Soufflé-subset parser: every accepted construct, and one test per rejected construct."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_cases import write
from pypto_verify.engines.souffle_lang import (
    Aggregate,
    Arith,
    Atom,
    Compare,
    EngineError,
    Negate,
    Negation,
    Number,
    Symbol,
    Var,
    Wildcard,
    load_program,
    parse_program,
    walk_atoms,
)

# Three lines, so the construct under test always starts on line 4.
PRELUDE = ".decl r(x: number)\n.decl s(x: number)\n.decl t(x: symbol)\n"


def parse(tmp_path: Path, text: str):
    return load_program(write(tmp_path, text))


# ------------------------------------------------------------------------------------ accepted


def test_types_resolve_through_subtypes_and_aliases(tmp_path: Path) -> None:
    program = parse(tmp_path, """
        .type Kernel <: number
        .type Id <: Kernel
        .type Name <: symbol
        .type Label = Name
        .decl v(k: Kernel, i: Id, n: Label, m: number, s: symbol)
    """)
    assert program.relations["v"].kinds == ("number", "number", "symbol", "number", "symbol")
    assert [c.type for c in program.relations["v"].columns] == ["Kernel", "Id", "Label", "number", "symbol"]


def test_types_may_be_used_before_they_are_declared(tmp_path: Path) -> None:
    program = parse(tmp_path, ".decl v(k: Late)\n.type Late <: symbol\n")
    assert program.relations["v"].kinds == ("symbol",)


def test_decl_with_several_names_shares_the_attribute_list(tmp_path: Path) -> None:
    program = parse(tmp_path, ".decl a, b(x: number, y: symbol)\n.decl z()\n")
    assert program.relations["a"].kinds == program.relations["b"].kinds == ("number", "symbol")
    assert program.relations["z"].columns == ()


def test_io_directives_accept_lists_and_default_parameters(tmp_path: Path) -> None:
    program = parse(tmp_path, PRELUDE + """
        .input r, s(IO=file, delimiter="\\t")
        .input t(filename="t.facts")
        .output r(IO=file, filename="r.csv")
        .output r
    """)
    assert program.inputs == ("r", "s", "t")
    assert program.outputs == ("r",)


def test_comments_are_skipped_and_locations_stay_exact(tmp_path: Path) -> None:
    program = parse(tmp_path, PRELUDE + "/* a block\n   comment */ // and a line comment\n  r(1). // trailing\n")
    (fact,) = program.rules
    assert (fact.loc.line, fact.loc.col) == (6, 3)
    assert str(fact.loc) == f"{tmp_path / 'program.dl'}:6:3"


def test_facts_and_constants(tmp_path: Path) -> None:
    program = parse(tmp_path, PRELUDE + 'r(-5). r(0x1F). r(0b101). r(007). t("a b"). t("").\n')
    values = [rule.heads[0].args[0] for rule in program.rules]
    assert [v.value for v in values] == [-5, 31, 5, 7, "a b", ""]
    assert all(rule.body == () for rule in program.rules)


def test_string_escapes_are_decoded_like_souffle(tmp_path: Path) -> None:
    program = parse(tmp_path, PRELUDE + r't("q\"b\\s\tt\nn").' + "\n")
    assert program.rules[0].heads[0].args[0] == Symbol('q"b\\s\tt\nn', loc=None)  # type: ignore[arg-type]


def test_rule_with_several_heads_negation_and_comparisons(tmp_path: Path) -> None:
    program = parse(tmp_path, PRELUDE + "r(x), s(x) :- r(x), !s(x), x = 1, x != 2, x < 3, x <= 4, x > 0, x >= 0.\n")
    (rule,) = program.rules
    assert [head.relation for head in rule.heads] == ["r", "s"]
    assert isinstance(rule.body[0], Atom) and isinstance(rule.body[1], Negation)
    assert [literal.op for literal in rule.body[2:]] == ["=", "!=", "<", "<=", ">", ">="]


def test_arithmetic_precedence_and_associativity(tmp_path: Path) -> None:
    program = parse(tmp_path, PRELUDE + "r(y) :- r(x), y = 1 + x * 2 - -x / 3 % 4.\n")
    expression = program.rules[0].body[1].right
    x = Var("x", loc=None)  # type: ignore[arg-type]
    one, two, three, four = (Number(n, loc=None) for n in (1, 2, 3, 4))  # type: ignore[arg-type]
    # ((1 + (x * 2)) - (((-x) / 3) % 4)): unary minus binds tightest, * / % before + -, all left-associative.
    assert expression == Arith(
        "-",
        Arith("+", one, Arith("*", x, two, loc=None), loc=None),  # type: ignore[arg-type]
        Arith("%", Arith("/", Negate(x, loc=None), three, loc=None), four, loc=None),  # type: ignore[arg-type]
        loc=None,  # type: ignore[arg-type]
    )


def test_wildcards_are_accepted_in_body_atoms(tmp_path: Path) -> None:
    program = parse(tmp_path, ".decl e(a: number, b: number)\n.decl f(a: number)\nf(a) :- e(a, _), !e(_, a).\n")
    assert isinstance(program.rules[0].body[0].args[1], Wildcard)
    assert isinstance(program.rules[0].body[1].atom.args[0], Wildcard)


def test_aggregate_forms(tmp_path: Path) -> None:
    program = parse(tmp_path, PRELUDE + """
        r(n) :- n = count : { s(_) }.
        r(n) :- n = count : s(_).
        r(n) :- n = sum x : { s(x), x > 0 }.
        r(n) :- n = min (x) : { s(x) }.
        r(n) :- n = max x + 1 : s(x).
        r(n) :- r(n), count : { s(_) } > 2.
    """)
    aggregates = [next(t for t in (lit.right for lit in rule.body if isinstance(lit, Compare))
                       if isinstance(t, Aggregate)) if i < 5 else rule.body[1].left
                  for i, rule in enumerate(program.rules)]
    assert [a.op for a in aggregates] == ["count", "count", "sum", "min", "max", "count"]
    assert aggregates[0].target is None and aggregates[2].target == Var("x", loc=None)  # type: ignore[arg-type]
    assert len(aggregates[2].body) == 2
    assert isinstance(aggregates[4].target, Arith)


def test_walk_atoms_reports_negation_and_aggregates(tmp_path: Path) -> None:
    program = parse(tmp_path, PRELUDE + "r(x) :- r(x), !s(x), n = count : { s(y), !r(y) }, n > 0.\n")
    seen = [(atom.relation, negated, inside) for atom, negated, inside in walk_atoms(program.rules[0].body)]
    assert seen == [("r", False, False), ("s", True, False), ("s", False, True), ("r", True, True)]


def test_include_resolves_relative_to_the_including_file_and_reads_each_file_once(tmp_path: Path) -> None:
    write(tmp_path, '#include "lib/rules.dl"\n#include "schema.dl"\n', "main.dl")
    write(tmp_path, ".decl e(a: number)\n", "schema.dl")
    write(tmp_path, '#include "../schema.dl"\n#include "more.dl"\ne(1).\n', "lib/rules.dl")
    write(tmp_path, '#include "../schema.dl"\ne(2).\n', "lib/more.dl")
    program = load_program(tmp_path / "main.dl")
    assert [source.path.relative_to(tmp_path.resolve()).as_posix() for source in program.sources] == [
        "main.dl", "lib/rules.dl", "schema.dl", "lib/more.dl"]
    assert len(program.rules) == 2 and list(program.relations) == ["e"]


def test_parse_program_text_resolves_includes_next_to_its_path(tmp_path: Path) -> None:
    write(tmp_path, ".decl e(a: number)\n", "schema.dl")
    program = parse_program('#include "schema.dl"\ne(1).\n', tmp_path / "virtual.dl")
    assert list(program.relations) == ["e"]


def test_error_message_is_prefixed_with_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, PRELUDE + "r(x) :-\n    s(x), nope(x).\n")
    with pytest.raises(EngineError) as error:
        load_program(path)
    assert str(error.value) == f"{path}:5:11: undefined relation `nope`"


# ------------------------------------------------------------------------------------ rejected

# (id, text placed at line 4, message fragment). Every one must name the construct.
OUTSIDE_SUBSET = [
    ("comp", ".comp C { }", "`.comp` is outside the supported Soufflé subset"),
    ("init", ".init c = C", "`.init` is outside the supported Soufflé subset"),
    ("record_term", "r(x) :- s(x), t([1, 2]).", "record `[...]` is outside"),
    ("record_type", ".type P = [a: number, b: number]", "record type `[...]` is outside"),
    ("adt_type", ".type T = A {x: number} | B {}", "algebraic data type is outside"),
    ("adt_term", "r($A(1)).", "ADT constructor or counter `$` is outside"),
    ("counter", "r($).", "ADT constructor or counter `$` is outside"),
    ("union_type", ".type U = number | symbol", "union type `|` is outside"),
    ("eqrel", ".decl e(a: number, b: number) eqrel", "relation qualifier `eqrel` is outside"),
    ("btree", ".decl e(a: number) btree", "relation qualifier `btree` is outside"),
    ("inline", ".decl e(a: number) inline", "relation qualifier `inline` is outside"),
    ("choice_domain", ".decl c(a: number, b: number) choice-domain a", "`choice-domain` is outside"),
    ("subsumption", "r(x) <= r(y) :- x < y.", "subsumptive rule `<=` is outside"),
    ("define", "#define N 3", "preprocessor directive `#define` is outside"),
    ("ifdef", "#ifdef DEBUG", "preprocessor directive `#ifdef` is outside"),
    ("plan", "r(x) :- s(x). .plan 0:(1)", "query plan `.plan` is outside"),
    ("functor_cat", 't(y) :- t(x), y = cat(x, "a").', "functor `cat` is outside"),
    ("functor_to_string", "t(y) :- r(x), y = to_string(x).", "functor `to_string` is outside"),
    ("functor_to_number", 'r(y) :- t(x), y = to_number(x).', "functor `to_number` is outside"),
    ("functor_strlen", "r(y) :- t(x), y = strlen(x).", "functor `strlen` is outside"),
    ("functor_substr", "t(y) :- t(x), y = substr(x, 0, 1).", "functor `substr` is outside"),
    ("functor_ord", "r(y) :- t(x), y = ord(x).", "functor `ord` is outside"),
    ("functor_autoinc", "r(autoinc()).", "functor `autoinc` is outside"),
    ("functor_min", "r(y) :- r(x), s(z), y = min(x, z).", "functor `min(a, b)` is outside"),
    ("functor_max", "r(y) :- r(x), s(z), y = max(x, z).", "functor `max(a, b)` is outside"),
    ("functor_decl", ".functor f(x: number): number", "`.functor` is outside"),
    ("user_functor", "r(y) :- r(x), y = @f(x).", "user-defined functor `@` is outside"),
    ("pragma", '.pragma "legacy" "true"', "`.pragma` is outside"),
    ("disjunction", "r(x) :- s(x) ; r(x).", "disjunction `;` in a body is outside"),
    ("grouped_body", "r(x) :- (s(x), r(x)).", "parenthesised group of body literals is outside"),
    ("power", "r(y) :- r(x), y = x ^ 2.", "power operator `^` is outside"),
    ("bitwise_and", "r(y) :- r(x), y = x band 1.", "operator `band` is outside"),
    ("bitwise_not", "r(y) :- r(x), y = bnot x.", "operator `bnot` is outside"),
    ("float_constant", "r(y) :- r(x), y = x + 1.5.", "float constant `1.5` is outside"),
    ("unsigned_constant", "r(3u).", "unsigned constant `3u` is outside"),
    ("ip_constant", "r(1.2.3.4).", "IP-address constant `1.2.3.4` is outside"),
    ("unsigned_type", ".decl u(x: unsigned)", "`unsigned` type is outside"),
    ("float_type", ".decl f(x: float)", "`float` type is outside"),
    ("mean", "r(m) :- m = mean x : { s(x) }.", "aggregate `mean` is outside"),
    ("nested_aggregate", "r(n) :- n = count : { s(x), x < max y : { r(y) } }.", "nested aggregate is outside"),
    ("true", "r(1) :- true.", "boolean constraint `true` is outside"),
    ("match", 't(x) :- t(x), match("a.*", x).', "string constraint `match` is outside"),
    ("cast", "r(y) :- t(x), y = as(x, number).", "type cast `as` is outside"),
    ("nil", "r(x) :- s(x), x = nil.", "record constant `nil` is outside"),
    ("printsize", ".printsize r", "`.printsize` is outside"),
    ("limitsize", ".limitsize r(n=3)", "`.limitsize` is outside"),
    ("io_stdout", ".output r(IO=stdout)", "IO parameter `IO=stdout` is outside"),
    ("io_filename", '.input r(filename="other.facts")', 'only the default `r.facts`'),
    ("io_headers", ".input r(headers=true)", "IO parameter `headers=true` is outside"),
    ("dot_include", '.include "x.dl"', "`.include` (use `#include \"file.dl\"`) is outside"),
    ("override", ".override r", "`.override` is outside"),
    ("lattice", ".lattice L<number> { }", "`.lattice` is outside"),
    ("number_type", ".number_type N", "`.number_type` is outside"),
    ("qualified_atom", "r(x) :- c.s(x).", "qualified (component) relation name is outside"),
    ("annotation", '@[doc = "x"] .decl q(x: number)', "annotation `@[...]` is outside"),
    ("negated_constraint", "r(x) :- s(x), !x = 1.", "negation of anything but an atom is outside"),
    ("double_negation", "r(x) :- s(x), !!r(x).", "double negation `!!` is outside"),
    ("lattice_attribute", ".decl l(x: number<>)", "lattice attribute `<>` is outside"),
    ("debug_delta", ".decl d = debug_delta(r)", "`debug_delta` relation is outside"),
    ("aggregate_in_head", "r(count : { s(_) }).", "aggregate in a rule head"),
]


@pytest.mark.parametrize(("text", "fragment"), [case[1:] for case in OUTSIDE_SUBSET],
                         ids=[case[0] for case in OUTSIDE_SUBSET])
def test_construct_outside_the_subset_is_rejected_with_its_location(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path, PRELUDE + text + "\n")
    with pytest.raises(EngineError) as error:
        load_program(path)
    assert fragment in str(error.value)
    assert error.value.loc is not None and error.value.loc.file == str(path) and error.value.loc.line == 4


# (id, text starting at line 4, fragment, line of the error)
INVALID = [
    ("undefined_relation", "r(x) :- nope(x).", "undefined relation `nope`", 4),
    ("arity_mismatch", "r(x) :- s(x, x).", "`s` has 1 columns but is used with 2", 4),
    ("undefined_type", ".decl u(x: Missing)", "undefined type `Missing`", 4),
    ("duplicate_relation", ".decl r(y: number)", "relation `r` is declared twice", 4),
    ("duplicate_attribute", ".decl u(x: number, x: number)", "attribute `x` appears twice", 4),
    ("duplicate_type", ".type A <: number\n.type A <: symbol", "type `A` is declared twice", 5),
    ("cyclic_type", ".type A <: B\n.type B <: A\n.decl u(x: A)", "cyclic type definition A -> B -> A", 5),
    ("io_undeclared", ".output nowhere", "`.output` of undeclared relation `nowhere`", 4),
    ("head_wildcard", "r(_) :- s(_).", "underscore `_` in the head of a rule", 4),
    ("wildcard_in_comparison", "r(x) :- s(x), x != _.", "underscore `_` outside an atom argument", 4),
    ("wildcard_in_arithmetic", "r(x) :- s(x), r(_ + 1).", "underscore `_` outside an atom argument", 4),
    ("symbol_in_number_column", 'r("a").', "a symbol is used where column `x` of `r` is a number", 4),
    ("variable_of_two_kinds", "r(x) :- t(x).", "variable `x` is used both as a number and as a symbol", 4),
    ("symbol_ordering", 't(x) :- t(x), x < "b".', "an operand of `<` is a number", 4),
    ("symbol_arithmetic", "r(y) :- t(x), y = x + 1.", "an operand of `+` is a number", 4),
    ("mixed_equality", "r(x) :- r(x), t(y), x = y.", "`=` compares a number with a symbol", 4),
    ("symbol_sum", "r(n) :- n = sum x : { t(x) }.", "the target of `sum` is a number", 4),
    ("reserved_relation_name", ".decl count(x: number)", "`count` is a reserved word", 4),
    ("reserved_variable_name", "r(input) :- s(input).", "`input` is a reserved word", 4),
    ("unterminated_string", 't("abc).', "unterminated string constant", 4),
    ("unterminated_comment", "/* never closed", "unterminated comment block", 4),
    ("unknown_escape", r't("a\qb").', "unknown escape sequence `\\q`", 4),
    ("count_with_target", "r(n) :- n = count x : { s(x) }.", "`count` takes no target expression", 4),
    ("sum_without_target", "r(n) :- n = sum : { s(x) }.", "`sum` needs a target expression", 4),
    ("missing_include", '#include "nowhere.dl"', "cannot read", 4),
    ("several_heads_without_body", "r(1), s(2).", "expected `:-` after several heads", 4),
    ("missing_dot", "r(1)\ns(2).", "expected `.` at the end of the clause", 5),
    ("unexpected_character", "r(1) :- s(1) ~ 1.", "expected `,` or `.` in the body", 4),
]


@pytest.mark.parametrize(("text", "fragment", "line"), [case[1:] for case in INVALID], ids=[case[0] for case in INVALID])
def test_invalid_program_is_rejected_with_its_location(tmp_path: Path, text: str, fragment: str, line: int) -> None:
    path = write(tmp_path, PRELUDE + text + "\n")
    with pytest.raises(EngineError) as error:
        load_program(path)
    assert fragment in str(error.value)
    assert error.value.loc is not None and error.value.loc.line == line
