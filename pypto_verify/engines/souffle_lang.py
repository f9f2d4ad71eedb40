"""The Soufflé subset both engines share: lexer, parser and declaration/type checks into a frozen AST.

Input: a `.dl` file (with its `#include`s). Output: a checked `Program` whose relations, column kinds,
`.input`/`.output` lists and rules are resolved. Spec: ARCHITECTURE.md "Engines", STYLE.md §8.

Accepted: `.type T <: number|symbol|T2` and `.type T = T2` aliases, `.decl` (several names may share one
attribute list), `.input`/`.output` (optionally with the default `IO=file`, `filename=`, `delimiter="\\t"`
parameters), `#include "file.dl"` (relative to the including file, each file read once), `//` and `/* */`
comments, facts, Horn rules with one or more heads, `!atom`, comparisons `= != < <= > >=`, integer
arithmetic `+ - * / %` and unary `-`, `_`, number and string constants, and the aggregates
`count : {..}`, `sum e : {..}`, `min e : {..}`, `max e : {..}` (or with a single atom instead of braces).

Everything else Soufflé has is rejected with an `EngineError` that carries file:line:col and names the
construct, so a program that passes here means the same thing to Soufflé and to our clingo translation.
Safety (groundedness) and stratification are checked by the translator (`clingo_engine.py`); Soufflé
checks them itself.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from typing import Union

Kind = Literal["number", "symbol"]
Row = tuple[int | str, ...]


class EngineError(Exception):
    """A Datalog program, its facts or an engine run failed; `loc` is set when it is about the program."""

    def __init__(self, message: str, loc: Loc | None = None) -> None:
        self.message = message
        self.loc = loc
        super().__init__(f"{loc}: {message}" if loc is not None else message)


class EngineTimeout(EngineError):
    """An engine run that did not finish within its time limit (a limit, not a failure: PV100)."""


@dataclass(frozen=True, slots=True)
class Loc:
    """A 1-based position in a source file."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


# --------------------------------------------------------------------------------------------- AST


@dataclass(frozen=True, slots=True)
class Var:
    name: str
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Wildcard:
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Number:
    value: int
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Symbol:
    value: str
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Arith:
    """Integer arithmetic `left op right`; `/` truncates toward zero and `%` is C's remainder."""

    op: str  # one of + - * / %
    left: Term
    right: Term
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Negate:
    """Unary minus."""

    operand: Term
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Aggregate:
    """`op target : { body }`; `target` is None exactly for `count`."""

    op: str  # count | sum | min | max
    target: Term | None
    body: tuple[BodyLiteral, ...]
    loc: Loc = field(compare=False)


Term = Union[Var, Wildcard, Number, Symbol, Arith, Negate, Aggregate]


@dataclass(frozen=True, slots=True)
class Atom:
    relation: str
    args: tuple[Term, ...]
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Negation:
    atom: Atom
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Compare:
    op: str  # one of = != < <= > >=
    left: Term
    right: Term
    loc: Loc = field(compare=False)


BodyLiteral = Union[Atom, Negation, Compare]


@dataclass(frozen=True, slots=True)
class Rule:
    """`heads :- body.`; a fact is a rule with one head and an empty body."""

    heads: tuple[Atom, ...]
    body: tuple[BodyLiteral, ...]
    loc: Loc = field(compare=False)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str
    kind: Kind


@dataclass(frozen=True, slots=True)
class Relation:
    name: str
    columns: tuple[Column, ...]
    loc: Loc = field(compare=False)

    @property
    def kinds(self) -> tuple[Kind, ...]:
        return tuple(column.kind for column in self.columns)


@dataclass(frozen=True, slots=True)
class Source:
    """One file of the program, in include order."""

    path: Path
    text: str


@dataclass(frozen=True, slots=True)
class Program:
    """A checked program. `relations` is keyed by name and must not be mutated."""

    relations: dict[str, Relation]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    rules: tuple[Rule, ...]
    sources: tuple[Source, ...]


# Raw top-level items, before declarations are resolved.


@dataclass(frozen=True, slots=True)
class _TypeDecl:
    name: str
    base: str
    loc: Loc


@dataclass(frozen=True, slots=True)
class _RelationDecl:
    names: tuple[tuple[str, Loc], ...]
    columns: tuple[tuple[str, str, Loc], ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class _IODirective:
    kind: str  # input | output
    names: tuple[tuple[str, Loc], ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class _Include:
    path: str
    loc: Loc


_Item = Union[_TypeDecl, _RelationDecl, _IODirective, _Include, Rule]


# ------------------------------------------------------------------------------------------- lexer


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # ident | number | string | directive | hash | punct | eof
    text: str
    loc: Loc
    value: int | str | None = None
    glued: bool = False  # no whitespace or comment between this token and the previous one


_DIRECTIVES = frozenset(
    "decl functor input output printsize limitsize type comp init number_type symbol_type override "
    "pragma plan lattice include once".split()
)

# Words Soufflé's scanner turns into keywords: none of them can name a relation or a variable.
_KEYWORDS = frozenset(
    "autoinc band bor bxor bnot bshl bshr bshru land lor lxor lnot match mean cat ord range strlen "
    "substr stateful contains output input overridable printsize eqrel inline no_inline magic no_magic "
    "brie btree_delete btree min max as nil count sum true false to_float to_number to_string "
    "to_unsigned recursive_iteration_cnt debug_delta __FILE__ __LINE__ __INCL__".split()
)
_FUNCTORS = frozenset(
    "cat ord range strlen substr to_float to_number to_string to_unsigned autoinc stateful "
    "recursive_iteration_cnt".split()
)
_BITWISE = frozenset("band bor bxor bnot bshl bshr bshru land lor lxor lnot".split())
_RELATION_TAGS = frozenset(
    "overridable inline no_inline magic no_magic brie btree_delete btree eqrel input output printsize".split()
)

_TOKEN_RE = re.compile(
    r"""
    (?P<space>[ \t\r\n\v\f]+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<hash>\#[^\n]*)
  | (?P<string>"(?:\\.|[^"\\])*")
  | (?P<open_string>")
  | (?P<ip>[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+)
  | (?P<float>[0-9]+\.[0-9]+)
  | (?P<number>(?:0b[01]+|0x[0-9a-fA-F]+|[0-9]+)u?)
  | (?P<directive>\.[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ident>[_?A-Za-z][_?A-Za-z0-9]*)
  | (?P<punct>:-|<:|<=|>=|!=|::|->|@!|[(),.:;!=<>+\-*/%^{}\[\]|$@&~])
    """,
    re.VERBOSE,
)

_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
            "v": "\v"}


class _Lexer:
    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def loc(self, pos: int) -> Loc:
        line = bisect.bisect_right(self.line_starts, pos)
        return Loc(self.file, line, pos - self.line_starts[line - 1] + 1)

    def tokens(self) -> list[_Token]:
        text, pos, glued = self.text, 0, False
        out: list[_Token] = []
        while pos < len(text):
            match = _TOKEN_RE.match(text, pos)
            if match is None:
                raise EngineError(f"unexpected character `{text[pos]}`", self.loc(pos))
            kind, lexeme, loc = match.lastgroup, match.group(), self.loc(pos)
            assert kind is not None  # every alternative of _TOKEN_RE is a named group
            end = match.end()
            if kind == "space" or kind == "line_comment":
                glued = False
            elif kind == "block_comment":
                close = text.find("*/", end)
                if close < 0:
                    raise EngineError("unterminated comment block, missing `*/`", loc)
                end, glued = close + 2, False
            elif kind == "open_string":
                raise EngineError("unterminated string constant", loc)
            elif kind == "ip":
                raise EngineError(f"IP-address constant `{lexeme}` is outside the supported Soufflé subset", loc)
            elif kind == "float":
                raise EngineError(f"float constant `{lexeme}` is outside the supported Soufflé subset", loc)
            elif kind == "directive" and lexeme[1:] not in _DIRECTIVES:
                # `r(1).s(2).` is two clauses, not a directive `.s`.
                out.append(_Token("punct", ".", loc, glued=glued))
                end, glued = pos + 1, True
            else:
                out.append(self._token(kind, lexeme, loc, glued))
                glued = True
            pos = end
        out.append(_Token("eof", "end of file", self.loc(len(text))))
        return out

    def _token(self, kind: str, lexeme: str, loc: Loc, glued: bool) -> _Token:
        if kind == "number":
            if lexeme.endswith("u"):
                raise EngineError(f"unsigned constant `{lexeme}` is outside the supported Soufflé subset", loc)
            base = 0 if lexeme[:2] in ("0x", "0b") else 10
            return _Token("number", lexeme, loc, int(lexeme, base), glued)
        if kind == "string":
            return _Token("string", lexeme, loc, _unescape(lexeme[1:-1], loc), glued)
        return _Token(kind or "punct", lexeme, loc, None, glued)


def _unescape(body: str, loc: Loc) -> str:
    """Soufflé's string escapes (scanner.ll `lexString`); an unknown escape is an error there too."""
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            escaped = _ESCAPES.get(body[i + 1])
            if escaped is None:
                raise EngineError(f"unknown escape sequence `\\{body[i + 1]}` in string constant", loc)
            out.append(escaped)
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


# ------------------------------------------------------------------------------------------ parser

_COMPARE_OPS = frozenset("= != < <= > >=".split())
_AGGREGATES = frozenset("count sum min max".split())


def _outside(construct: str, loc: Loc) -> EngineError:
    return EngineError(f"{construct} is outside the supported Soufflé subset", loc)


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    # -- token helpers

    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def next(self) -> _Token:
        token = self.peek()
        self.pos = min(self.pos + 1, len(self.tokens) - 1)
        return token

    def at(self, text: str, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token.kind == "punct" and token.text == text

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.next()
            return True
        return False

    def expect(self, text: str, context: str) -> _Token:
        if not self.at(text):
            raise self.unexpected(f"`{text}` {context}")
        return self.next()

    def unexpected(self, wanted: str) -> EngineError:
        token = self.peek()
        shown = token.text if token.kind == "eof" else f"`{token.text}`"
        return EngineError(f"expected {wanted}, found {shown}", token.loc)

    def name(self, what: str) -> _Token:
        token = self.peek()
        if token.kind != "ident" or token.text == "_":
            raise self.unexpected(what)
        if token.text in _KEYWORDS:
            raise EngineError(f"`{token.text}` is a reserved word in Soufflé and cannot be {what}", token.loc)
        return self.next()

    # -- top level

    def items(self) -> list[_Item]:
        items: list[_Item] = []
        while self.peek().kind != "eof":
            token = self.peek()
            if token.kind == "directive":
                items.extend(self.directive())
            elif token.kind == "hash":
                items.append(self.hash_line())
            elif token.kind == "ident":
                items.extend(self.clause())
            elif self.at("@") and self.at("[", 1):
                raise _outside("annotation `@[...]`", token.loc)
            else:
                raise self.unexpected("a declaration, a directive or a clause")
        return items

    def hash_line(self) -> _Include:
        token = self.next()
        match = re.fullmatch(r'#\s*include\s+"([^"]*)"\s*(//.*)?', token.text.rstrip())
        if match:
            return _Include(match.group(1), token.loc)
        word = re.match(r"#\s*([A-Za-z_]*)", token.text)
        name = word.group(1) if word and word.group(1) else token.text.split()[0]
        if name == "include":
            raise EngineError('expected `#include "file.dl"`', token.loc)
        raise _outside(f"preprocessor directive `#{name.lstrip('#')}`", token.loc)

    def directive(self) -> list[_Item]:
        token = self.next()
        word = token.text[1:]
        if word == "type":
            return [self.type_decl(token)]
        if word == "decl":
            return [self.relation_decl(token)]
        if word in ("input", "output"):
            return [self.io_directive(token, word)]
        if word == "include":
            raise _outside('`.include` (use `#include "file.dl"`)', token.loc)
        if word == "plan":
            raise _outside("query plan `.plan`", token.loc)
        raise _outside(f"`{token.text}`", token.loc)

    def type_decl(self, start: _Token) -> _TypeDecl:
        name = self.name("a type name")
        if self.accept("<:"):
            base = self.type_name()
        elif self.accept("="):
            if self.at("["):
                raise _outside("record type `[...]`", self.peek().loc)
            if self.at("$") or (self.peek().kind == "ident" and self.at("{", 1)):
                raise _outside("algebraic data type", self.peek().loc)
            base = self.type_name()
            if self.at("|"):
                raise _outside("union type `|`", self.peek().loc)
        else:
            raise self.unexpected("`<:` or `=` after the type name")
        return _TypeDecl(name.text, base.text, start.loc)

    def type_name(self) -> _Token:
        token = self.peek()
        if token.kind != "ident" or token.text == "_":
            raise self.unexpected("a type name")
        self.next()
        if self.at(".") and self.peek().glued:
            raise _outside("qualified (component) type name", token.loc)
        return token

    def relation_decl(self, start: _Token) -> _RelationDecl:
        names = [self.relation_name()]
        while self.accept(","):
            names.append(self.relation_name())
        if self.at("="):
            raise _outside("`debug_delta` relation", self.peek().loc)
        self.expect("(", "after the relation name")
        columns: list[tuple[str, str, Loc]] = []
        if not self.at(")"):
            while True:
                column = self.name("an attribute name")
                self.expect(":", "after the attribute name")
                type_token = self.type_name()
                if self.at("<") and self.at(">", 1):
                    raise _outside("lattice attribute `<>`", self.peek().loc)
                columns.append((column.text, type_token.text, column.loc))
                if not self.accept(","):
                    break
        self.expect(")", "to close the attribute list")
        self.reject_relation_tags()
        return _RelationDecl(tuple((t.text, t.loc) for t in names), tuple(columns), start.loc)

    def relation_name(self) -> _Token:
        token = self.name("a relation name")
        if self.at(".") and self.peek().glued and self.peek(1).kind == "ident" and self.peek(1).glued:
            raise _outside("qualified (component) relation name", token.loc)
        return token

    def reject_relation_tags(self) -> None:
        token = self.peek()
        if token.kind != "ident":
            return
        if token.text in _RELATION_TAGS:
            raise _outside(f"relation qualifier `{token.text}`", token.loc)
        if token.text == "choice" and self.at("-", 1) and self.peek(2).text == "domain":
            raise _outside("`choice-domain`", token.loc)

    def io_directive(self, start: _Token, kind: str) -> _IODirective:
        names = [self.relation_name()]
        while self.accept(","):
            names.append(self.relation_name())
        if self.accept("("):
            params: list[tuple[_Token, _Token]] = []
            if not self.at(")"):
                while True:
                    key = self.peek()
                    if key.kind != "ident":
                        raise self.unexpected("an IO parameter name")
                    self.next()
                    self.expect("=", "after the IO parameter name")
                    value = self.peek()
                    if value.kind not in ("ident", "string", "number"):
                        raise self.unexpected("an IO parameter value")
                    self.next()
                    params.append((key, value))
                    if not self.accept(","):
                        break
            self.expect(")", "to close the IO parameters")
            for key, value in params:
                _check_io_param(kind, [n.text for n in names], key, value)
        return _IODirective(kind, tuple((t.text, t.loc) for t in names), start.loc)

    # -- clauses

    def clause(self) -> list[Rule]:
        start = self.peek()
        heads = [self.atom()]
        if self.at("<="):
            raise _outside("subsumptive rule `<=`", self.peek().loc)
        while self.accept(","):
            heads.append(self.atom())
        body: tuple[BodyLiteral, ...] = ()
        if self.accept(":-"):
            body = self.body(closing=".")
        elif len(heads) > 1:
            raise self.unexpected("`:-` after several heads")
        self.expect(".", "at the end of the clause")
        return [Rule(tuple(heads), body, start.loc)]

    def body(self, closing: str) -> tuple[BodyLiteral, ...]:
        literals = [self.literal()]
        while True:
            if self.accept(","):
                literals.append(self.literal())
            elif self.at(";"):
                raise _outside("disjunction `;` in a body", self.peek().loc)
            elif self.at(closing):
                return tuple(literals)
            else:
                raise self.unexpected(f"`,` or `{closing}` in the body")

    def literal(self) -> BodyLiteral:
        token = self.peek()
        if self.accept("!"):
            if self.at("!"):
                raise _outside("double negation `!!`", token.loc)
            if not self.at_atom():
                raise _outside("negation of anything but an atom", token.loc)
            return Negation(self.atom(), token.loc)
        if token.kind == "ident" and token.text in ("true", "false"):
            raise _outside(f"boolean constraint `{token.text}`", token.loc)
        if token.kind == "ident" and token.text in ("match", "contains") and self.at("(", 1):
            raise _outside(f"string constraint `{token.text}`", token.loc)
        if self.at_atom():
            return self.atom()
        if self.at("("):
            # `(x + 1) < y` is a constraint; `(a(x) ; b(x))` is a grouped disjunction.
            saved = self.pos
            try:
                return self.comparison()
            except EngineError:
                self.pos = saved
                raise _outside("parenthesised group of body literals", token.loc) from None
        return self.comparison()

    def at_atom(self) -> bool:
        token = self.peek()
        if token.kind != "ident" or token.text == "_" or token.text in _KEYWORDS:
            return False
        if self.at("(", 1):
            return True
        # `a.b(x)`: a component-qualified atom.
        return self.at(".", 1) and self.peek(1).glued and self.peek(2).kind == "ident" and self.peek(2).glued

    def atom(self) -> Atom:
        name = self.relation_name()
        self.expect("(", f"after `{name.text}`")
        args: list[Term] = []
        if not self.at(")"):
            args.append(self.expr())
            while self.accept(","):
                args.append(self.expr())
        self.expect(")", f"to close the arguments of `{name.text}`")
        return Atom(name.text, tuple(args), name.loc)

    def comparison(self) -> Compare:
        left = self.expr()
        token = self.peek()
        if token.kind != "punct" or token.text not in _COMPARE_OPS:
            raise self.unexpected("a comparison operator (= != < <= > >=)")
        self.next()
        return Compare(token.text, left, self.expr(), token.loc)

    # -- terms

    def expr(self) -> Term:
        left = self.product()
        while True:
            token = self.peek()
            if token.kind == "punct" and token.text in ("+", "-"):
                self.next()
                left = Arith(token.text, left, self.product(), token.loc)
            elif token.kind == "ident" and token.text in _BITWISE:
                raise _outside(f"operator `{token.text}`", token.loc)
            else:
                return left

    def product(self) -> Term:
        left = self.unary()
        while True:
            token = self.peek()
            if token.kind == "punct" and token.text in ("*", "/", "%"):
                self.next()
                left = Arith(token.text, left, self.unary(), token.loc)
            else:
                return left

    def unary(self) -> Term:
        token = self.peek()
        if self.accept("-"):
            operand = self.unary()
            if isinstance(operand, Number):
                return Number(-operand.value, token.loc)
            return Negate(operand, token.loc)
        if token.kind == "ident" and token.text in ("bnot", "lnot"):
            raise _outside(f"operator `{token.text}`", token.loc)
        term = self.primary()
        if self.at("^"):
            raise _outside("power operator `^`", self.peek().loc)
        return term

    def primary(self) -> Term:
        token = self.peek()
        if token.kind == "number":
            self.next()
            assert token.value is not None  # the lexer sets a number token's value
            return Number(int(token.value), token.loc)
        if token.kind == "string":
            self.next()
            return Symbol(str(token.value), token.loc)
        if self.accept("("):
            inner = self.expr()
            self.expect(")", "to close the parenthesis")
            return inner
        if token.kind == "punct":
            self.reject_punct_term(token)
            raise self.unexpected("an argument")
        if token.kind != "ident":
            raise self.unexpected("an argument")
        if token.text == "_":
            self.next()
            return Wildcard(token.loc)
        if token.text in _AGGREGATES:
            return self.aggregate()
        self.reject_keyword_term(token)
        self.next()
        if self.at("("):
            raise _outside(f"functor or atom `{token.text}(...)` used as an argument", token.loc)
        return Var(token.text, token.loc)

    def reject_punct_term(self, token: _Token) -> None:
        constructs = {"[": "record `[...]`", "$": "ADT constructor or counter `$`", "@": "user-defined functor `@`"}
        if token.text in constructs:
            raise _outside(constructs[token.text], token.loc)

    def reject_keyword_term(self, token: _Token) -> None:
        if token.text in _FUNCTORS:
            raise _outside(f"functor `{token.text}`", token.loc)
        if token.text == "mean":
            raise _outside("aggregate `mean`", token.loc)
        if token.text == "as":
            raise _outside("type cast `as`", token.loc)
        if token.text == "nil":
            raise _outside("record constant `nil`", token.loc)
        if token.text in _KEYWORDS:
            raise EngineError(f"`{token.text}` is a reserved word in Soufflé and cannot be a variable", token.loc)

    def aggregate(self) -> Aggregate:
        token = self.next()
        op = token.text
        if op in ("min", "max") and self.at("(") and self.paren_has_top_level_comma():
            raise _outside(f"functor `{op}(a, b)`", token.loc)
        target: Term | None = None
        if not self.at(":"):
            target = self.expr()
        self.expect(":", f"after `{op}`" if target is None else f"after the `{op}` target")
        if op == "count" and target is not None:
            raise EngineError("`count` takes no target expression", token.loc)
        if op != "count" and target is None:
            raise EngineError(f"`{op}` needs a target expression, as in `{op} x : {{ ... }}`", token.loc)
        if self.accept("{"):
            body = self.body(closing="}")
            self.expect("}", "to close the aggregate body")
        elif self.at_atom():
            body = (self.atom(),)
        else:
            raise self.unexpected("`{` or an atom after `:`")
        for inner in _walk_body_terms(body):
            if isinstance(inner, Aggregate):
                raise _outside("nested aggregate", inner.loc)
        if target is not None and any(isinstance(t, Aggregate) for t in _walk_term(target)):
            raise _outside("nested aggregate", target.loc)
        return Aggregate(op, target, body, token.loc)

    def paren_has_top_level_comma(self) -> bool:
        depth, ahead = 0, 0
        while True:
            token = self.peek(ahead)
            if token.kind == "eof":
                return False
            if token.kind == "punct" and token.text in "([{":
                depth += 1
            elif token.kind == "punct" and token.text in ")]}":
                depth -= 1
                if depth == 0:
                    return False
            elif token.kind == "punct" and token.text == "," and depth == 1:
                return True
            ahead += 1


def _check_io_param(kind: str, names: list[str], key: _Token, value: _Token) -> None:
    """Only the defaults are accepted, so both engines read and write the same files."""
    text = str(value.value) if value.kind == "string" else value.text
    if key.text == "IO" and text == "file":
        return
    if key.text == "delimiter" and text == "\t":
        return
    if key.text == "filename" and len(names) == 1:
        default = f"{names[0]}.facts" if kind == "input" else f"{names[0]}.csv"
        if text == default:
            return
        raise _outside(f"`filename={value.text}` (only the default `{default}`)", key.loc)
    raise _outside(f"IO parameter `{key.text}={value.text}`", key.loc)


# ------------------------------------------------------------------------------------------ walks


def _walk_term(term: Term):
    yield term
    if isinstance(term, Arith):
        yield from _walk_term(term.left)
        yield from _walk_term(term.right)
    elif isinstance(term, Negate):
        yield from _walk_term(term.operand)
    elif isinstance(term, Aggregate):
        if term.target is not None:
            yield from _walk_term(term.target)
        yield from _walk_body_terms(term.body)


def _walk_body_terms(body: tuple[BodyLiteral, ...]):
    for literal in body:
        if isinstance(literal, Atom):
            for arg in literal.args:
                yield from _walk_term(arg)
        elif isinstance(literal, Negation):
            for arg in literal.atom.args:
                yield from _walk_term(arg)
        else:
            yield from _walk_term(literal.left)
            yield from _walk_term(literal.right)


def walk_atoms(body: tuple[BodyLiteral, ...]):
    """Every atom of a body, including those inside aggregates, as `(atom, negated, in_aggregate)`."""
    for literal in body:
        terms: tuple[Term, ...]
        if isinstance(literal, Atom):
            yield literal, False, False
            terms = literal.args
        elif isinstance(literal, Negation):
            yield literal.atom, True, False
            terms = literal.atom.args
        else:
            terms = (literal.left, literal.right)
        for term in terms:
            for inner in _walk_term(term):
                if isinstance(inner, Aggregate):
                    for atom, negated, _ in walk_atoms(inner.body):
                        yield atom, negated, True


def term_vars(term: Term) -> list[Var]:
    """Variables of a term, outside any aggregate in it."""
    if isinstance(term, Var):
        return [term]
    if isinstance(term, Arith):
        return term_vars(term.left) + term_vars(term.right)
    if isinstance(term, Negate):
        return term_vars(term.operand)
    return []


def all_vars(term: Term) -> list[Var]:
    """Variables of a term, including those inside aggregates."""
    return [t for t in _walk_term(term) if isinstance(t, Var)]


def literal_terms(literal: BodyLiteral) -> tuple[Term, ...]:
    if isinstance(literal, Atom):
        return literal.args
    if isinstance(literal, Negation):
        return literal.atom.args
    return (literal.left, literal.right)


# ----------------------------------------------------------------------------------------- loading


def without_includes(text: str, file: str) -> str:
    """`text` with each `#include` line blanked, for handing an already-flattened program to Soufflé."""
    lexer = _Lexer(text, file)
    chars = list(text)
    for token in lexer.tokens():
        if token.kind == "hash":
            start = lexer.line_starts[token.loc.line - 1] + token.loc.col - 1
            chars[start : start + len(token.text)] = " " * len(token.text)
    return "".join(chars)



def parse_items(text: str, file: str) -> list[_Item]:
    """Parse one file's text into raw items (no include resolution, no checks)."""
    return _Parser(_Lexer(text, file).tokens()).items()


def load_program(path: Path) -> Program:
    """Read `path` and its includes and return the checked program."""
    return _load(path, None)


def parse_program(text: str, path: Path = Path("<string>")) -> Program:
    """Parse program text as if it were the file `path` (includes resolve relative to its folder)."""
    return _load(path, text)


def _load(path: Path, text: str | None) -> Program:
    sources: list[Source] = []
    items: list[_Item] = []
    seen: set[Path] = set()

    def visit(file: Path, file_text: str | None, include_loc: Loc | None) -> None:
        resolved = file.resolve()
        if resolved in seen:
            return
        seen.add(resolved)
        if file_text is None:
            try:
                file_text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                reason = getattr(error, "strerror", None) or str(error)
                raise EngineError(f"cannot read `{file}`: {reason}", include_loc) from None
        sources.append(Source(resolved, file_text))
        for item in parse_items(file_text, str(file)):
            if isinstance(item, _Include):
                visit(file.parent / item.path, None, item.loc)
            else:
                items.append(item)

    visit(path, text, None)
    return _check(items, tuple(sources))


# ------------------------------------------------------------------------------------------ checks


def _check(items: list[_Item], sources: tuple[Source, ...]) -> Program:
    types = _resolve_types([i for i in items if isinstance(i, _TypeDecl)])
    relations: dict[str, Relation] = {}
    for decl in (i for i in items if isinstance(i, _RelationDecl)):
        columns = _resolve_columns(decl, types)
        for name, loc in decl.names:
            if name in relations:
                raise EngineError(f"relation `{name}` is declared twice (first at {relations[name].loc})", loc)
            relations[name] = Relation(name, columns, loc)
    io: dict[str, list[str]] = {"input": [], "output": []}
    for directive in (i for i in items if isinstance(i, _IODirective)):
        for name, loc in directive.names:
            if name not in relations:
                raise EngineError(f"`.{directive.kind}` of undeclared relation `{name}`", loc)
            if name not in io[directive.kind]:
                io[directive.kind].append(name)
    rules = tuple(i for i in items if isinstance(i, Rule))
    for rule in rules:
        _check_rule(rule, relations)
    return Program(relations, tuple(io["input"]), tuple(io["output"]), rules, sources)


def _resolve_types(decls: list[_TypeDecl]) -> dict[str, Kind]:
    by_name: dict[str, _TypeDecl] = {}
    for decl in decls:
        if decl.name in by_name or decl.name in ("number", "symbol"):
            raise EngineError(f"type `{decl.name}` is declared twice", decl.loc)
        by_name[decl.name] = decl
    kinds: dict[str, Kind] = {"number": "number", "symbol": "symbol"}

    def kind_of(name: str, loc: Loc, trail: tuple[str, ...]) -> Kind:
        if name in kinds:
            return kinds[name]
        if name in ("unsigned", "float"):
            raise _outside(f"`{name}` type", loc)
        if name not in by_name:
            raise EngineError(f"undefined type `{name}`", loc)
        if name in trail:
            raise EngineError(f"cyclic type definition {' -> '.join((*trail, name))}", loc)
        decl = by_name[name]
        kinds[name] = kind_of(decl.base, decl.loc, (*trail, name))
        return kinds[name]

    for decl in decls:
        kind_of(decl.name, decl.loc, ())
    return kinds


def _resolve_columns(decl: _RelationDecl, types: dict[str, Kind]) -> tuple[Column, ...]:
    columns: list[Column] = []
    for name, type_name, loc in decl.columns:
        if any(c.name == name for c in columns):
            raise EngineError(f"attribute `{name}` appears twice", loc)
        if type_name in ("unsigned", "float"):
            raise _outside(f"`{type_name}` type", loc)
        if type_name not in types:
            raise EngineError(f"undefined type `{type_name}`", loc)
        columns.append(Column(name, type_name, types[type_name]))
    return tuple(columns)


def _check_rule(rule: Rule, relations: dict[str, Relation]) -> None:
    atoms = [(head, False, False) for head in rule.heads] + list(walk_atoms(rule.body))
    for atom, _, _ in atoms:
        relation = relations.get(atom.relation)
        if relation is None:
            raise EngineError(f"undefined relation `{atom.relation}`", atom.loc)
        if len(atom.args) != len(relation.columns):
            raise EngineError(
                f"`{atom.relation}` has {len(relation.columns)} columns but is used with {len(atom.args)}", atom.loc
            )
    for head in rule.heads:
        for arg in head.args:
            for term in _walk_term(arg):
                if isinstance(term, Wildcard):
                    raise EngineError("underscore `_` in the head of a rule", term.loc)
                if isinstance(term, Aggregate):
                    raise _outside("aggregate in a rule head (bind it in the body: `n = count : {...}`)", term.loc)
    _check_wildcards(rule.body)
    _Typing(relations).check(rule)


def _check_wildcards(body: tuple[BodyLiteral, ...]) -> None:
    """`_` may only be a whole atom argument (Soufflé: "Underscore in binary relation")."""
    for literal in body:
        for term in literal_terms(literal):
            if isinstance(literal, Compare) or not isinstance(term, Wildcard):
                _reject_nested_wildcards(term)


def _reject_nested_wildcards(term: Term) -> None:
    if isinstance(term, Wildcard):
        raise EngineError("underscore `_` outside an atom argument", term.loc)
    if isinstance(term, Arith):
        _reject_nested_wildcards(term.left)
        _reject_nested_wildcards(term.right)
    elif isinstance(term, Negate):
        _reject_nested_wildcards(term.operand)
    elif isinstance(term, Aggregate):
        if term.target is not None:
            _reject_nested_wildcards(term.target)
        _check_wildcards(term.body)


class _Typing:
    """Number/symbol kinds of a rule's variables; Soufflé rejects a program that mixes them."""

    def __init__(self, relations: dict[str, Relation]) -> None:
        self.relations = relations
        self.kinds: dict[str, Kind] = {}

    def check(self, rule: Rule) -> None:
        atoms = [head for head in rule.heads] + [atom for atom, _, _ in walk_atoms(rule.body)]
        for atom in atoms:  # columns first: they fix most variables' kinds
            for arg, column in zip(atom.args, self.relations[atom.relation].columns):
                if isinstance(arg, Var):
                    self.assign(arg, column.kind)
        comparisons = [t for t in _all_literals(rule.body) if isinstance(t, Compare)]
        changed = True
        while changed:  # equalities propagate kinds in both directions
            changed = False
            for comparison in comparisons:
                if comparison.op in ("=", "!="):
                    left, right = self.kind(comparison.left), self.kind(comparison.right)
                    if left is None and right is not None and isinstance(comparison.left, Var):
                        changed |= self.assign(comparison.left, right)
                    if right is None and left is not None and isinstance(comparison.right, Var):
                        changed |= self.assign(comparison.right, left)
        for atom in atoms:
            for arg, column in zip(atom.args, self.relations[atom.relation].columns):
                self.expect(arg, column.kind, f"column `{column.name}` of `{atom.relation}`")
        for comparison in comparisons:
            if comparison.op in ("=", "!="):
                left, right = self.kind(comparison.left), self.kind(comparison.right)
                if left is not None and right is not None and left != right:
                    raise EngineError(f"`{comparison.op}` compares a {left} with a {right}", comparison.loc)
            else:
                self.expect(comparison.left, "number", f"an operand of `{comparison.op}`")
                self.expect(comparison.right, "number", f"an operand of `{comparison.op}`")
        terms = [arg for atom in atoms for arg in atom.args] + [
            side for comparison in comparisons for side in (comparison.left, comparison.right)
        ]
        for term in (inner for top in terms for inner in _walk_term(top)):
            if isinstance(term, Arith):
                self.expect(term.left, "number", f"an operand of `{term.op}`")
                self.expect(term.right, "number", f"an operand of `{term.op}`")
            elif isinstance(term, Negate):
                self.expect(term.operand, "number", "the operand of unary `-`")
            elif isinstance(term, Aggregate) and term.target is not None:
                self.expect(term.target, "number", f"the target of `{term.op}`")

    def assign(self, var: Var, kind: Kind) -> bool:
        known = self.kinds.get(var.name)
        if known is None:
            self.kinds[var.name] = kind
            return True
        if known != kind:
            raise EngineError(f"variable `{var.name}` is used both as a {known} and as a {kind}", var.loc)
        return False

    def kind(self, term: Term) -> Kind | None:
        if isinstance(term, Var):
            return self.kinds.get(term.name)
        if isinstance(term, Symbol):
            return "symbol"
        if isinstance(term, Wildcard):
            return None
        return "number"  # constants, arithmetic and aggregates are numbers

    def expect(self, term: Term, kind: Kind, where: str) -> None:
        if isinstance(term, Wildcard):
            return
        if isinstance(term, Var):
            if self.kinds.setdefault(term.name, kind) != kind:
                raise EngineError(
                    f"variable `{term.name}` is a {self.kinds[term.name]} but {where} is a {kind}", term.loc
                )
            return
        actual = self.kind(term)
        if actual != kind:
            raise EngineError(f"a {actual} is used where {where} is a {kind}", term.loc)


def _all_literals(body: tuple[BodyLiteral, ...]):
    """Body literals, including those inside aggregates."""
    for literal in body:
        yield literal
        for term in literal_terms(literal):
            for inner in _walk_term(term):
                if isinstance(inner, Aggregate):
                    yield from _all_literals(inner.body)
