"""Parser of the PTO-AS text subset (docs/pto-subset.md) into a small frozen AST.

Input: the MLIR-style text `emit/pto.py` writes (and the PyPTO compiler's own
`main.pto`, a superset whose `loc(...)` suffixes and `// comments` are skipped). Output: a
`Module` of `Func`s whose bodies are tuples of `Op`. Anything outside the subset is a `SimError`
with `rule == ""` and the 1-based line of the offending token, e.g. `line 12: unknown instruction
pto.tfoo`. No MLIR library is used: a regex scanner (one match per token; a `!type<...>` or
`#attr<...>` nested at most one level deep is one match, deeper ones go to a character scanner)
feeds a recursive-descent parser with one routine per op form. Types are parsed once per spelling.

AST conventions: SSA names are kept without their `%`. An `Op` has positional `operands` (for
`ins(...) outs(...)` instructions: the ins), keyword operand groups `named` (`outs`, `addr`,
`valid_row`, `valid_col`, `shape`, `strides`, `offsets`, `sizes`), `attributes` (the `{...}`
dict plus the op's literal parts: `value` of `arith.constant`, `predicate` of `arith.cmpi`,
`iv` of `scf.for`), `types` in source order and `regions` (`scf.for`: one, `scf.if`: one or two).

Decision beyond the spec: `arith.constant` also accepts a float literal typed `f32`/`f16`/`bf16`
(the scalar operand of `pto.tmuls` / `pto.tadds` / `pto.texpands` needs one), decimal or MLIR
hexadecimal (the bit pattern, e.g. `0x3F800000 : f32`, the only spelling of an infinity).
"""

from __future__ import annotations

import re
import struct
from bisect import bisect_right
from dataclasses import dataclass
from typing import Final, Iterator, NamedTuple

from .errors import SimError

SCALAR_TYPES: Final[frozenset[str]] = frozenset(
    {"f32", "f16", "bf16", "i8", "i32", "i64", "i1", "index"})
ELEMENT_TYPES: Final[frozenset[str]] = frozenset(
    {"f32", "f16", "bf16", "i8", "i16", "i32", "i64", "i1", "ui8", "ui16", "ui32"})
ARITH_BINARY: Final[frozenset[str]] = frozenset(
    f"arith.{name}" for name in
    ("addi", "subi", "muli", "divsi", "remsi", "maxsi", "minsi", "andi", "ori", "xori"))
CMPI_PREDICATES: Final[frozenset[str]] = frozenset({"eq", "ne", "slt", "sle", "sgt", "sge"})
CMPF_PREDICATES: Final[frozenset[str]] = frozenset({"oeq", "one", "olt", "ole", "ogt", "oge"})
"""The ordered float predicates PyPTO's codegen emits: false when either operand is a NaN."""
EXPAND_KINDS: Final[tuple[str, ...]] = ("add", "sub", "mul", "div", "max", "min")
INS_OUTS_OPS: Final[frozenset[str]] = frozenset(
    f"pto.{name}" for name in
    ("tload", "tstore", "textract", "tmov", "tmatmul", "tmatmul.acc", "tmatmul.bias",
     "tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "texp", "trelu", "tmuls", "tadds", "tcvt",
     "trecip", "trsqrt", "tsqrt", "tlog", "tabs", "tsubs", "tdivs", "tmaxs", "tmins", "tfmods", "texpands",
     "trowsum", "trowmax", "trowmin", "tcolsum", "tcolmax", "tcolmin",
     "trowexpand", "tcolexpand", "ttrans", "tci", "tgather", "tfillpad", "tconcat", "tsort32", "tmrgsort", "tsetval", "tcmps", "tcmp", "tsel", *(f"trowexpand{kind}" for kind in EXPAND_KINDS),
     *(f"tcolexpand{kind}" for kind in EXPAND_KINDS)))
TILE_SPACES: Final[frozenset[str]] = frozenset({"mat", "left", "right", "acc", "bias", "vec"})


# --- AST ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ScalarType:
    """`index`, `i64`, `i32`, `i1`, `f32`, ... as the type of a scalar."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class PtrType:
    """`!pto.ptr<DT>`: a GM tensor argument."""

    dtype: str

    def __str__(self) -> str:
        return f"!pto.ptr<{self.dtype}>"


@dataclass(frozen=True, slots=True)
class ViewType:
    """`!pto.tensor_view<?x?xDT>` or `!pto.partition_tensor_view<16x128xDT>` (None for `?`)."""

    shape: tuple[int | None, ...]
    dtype: str
    partition: bool

    def __str__(self) -> str:
        kind = "partition_tensor_view" if self.partition else "tensor_view"
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"!pto.{kind}<{dims}x{self.dtype}>"


@dataclass(frozen=True, slots=True)
class TileType:
    """`!pto.tile_buf<loc=..., dtype=..., rows=..., cols=..., ...>`."""

    loc: str
    dtype: str
    rows: int
    cols: int
    v_row: int | None = None
    v_col: int | None = None
    extra: tuple[tuple[str, str], ...] = ()
    """`blayout`, `slayout`, `fractal`, `pad`: carried, ignored by the simulator."""

    def __str__(self) -> str:
        return f"!pto.tile_buf<loc={self.loc}, dtype={self.dtype}, rows={self.rows}, cols={self.cols}>"


@dataclass(frozen=True, slots=True)
class ArrayType:
    """`!pto.local_array<NxDT>`: an on-core scalar array of N integers."""

    extent: int
    dtype: str

    def __str__(self) -> str:
        return f"!pto.local_array<{self.extent}x{self.dtype}>"


@dataclass(frozen=True, slots=True)
class VectorType:
    """`vector<4xi16>`: the executed-count status of `pto.tmrgsort`'s format 2, its second out (PyPTO's
    `MakeMrgSortCodegenPTO`); the only vector the subset has."""

    extent: int
    dtype: str

    def __str__(self) -> str:
        return f"vector<{self.extent}x{self.dtype}>"


Type = ScalarType | PtrType | ViewType | TileType | ArrayType | VectorType


COMM_OPS: Final = ("pto.comm.tnotify", "pto.comm.twait", "pto.comm.tput")
"""The cross-rank ops without a result (docs/pto-subset.md, "Ranks")."""


@dataclass(frozen=True, slots=True)
class Op:
    """One operation: `results = name operands named attributes : types regions`."""

    name: str
    line: int
    results: tuple[str, ...] = ()
    operands: tuple[str, ...] = ()
    named: tuple[tuple[str, tuple[str, ...]], ...] = ()
    attributes: tuple[tuple[str, object], ...] = ()
    types: tuple[Type, ...] = ()
    regions: tuple[tuple["Op", ...], ...] = ()

    def group(self, key: str) -> tuple[str, ...]:
        """The keyword operand group *key* (empty when absent)."""
        for name, values in self.named:
            if name == key:
                return values
        return ()

    def attr(self, key: str, default: object = None) -> object:
        """The attribute *key*, or *default*."""
        for name, value in self.attributes:
            if name == key:
                return value
        return default


@dataclass(frozen=True, slots=True)
class Arg:
    """A function argument: its name (no `%`) and type (`PtrType` or `ScalarType`)."""

    name: str
    type: PtrType | ScalarType


@dataclass(frozen=True, slots=True)
class Func:
    """`func.func @name(args) attributes {...} { body }`."""

    name: str
    line: int
    args: tuple[Arg, ...]
    body: tuple[Op, ...]
    attributes: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class Module:
    """`module attributes {...} { func* }`."""

    functions: tuple[Func, ...]
    attributes: tuple[tuple[str, object], ...] = ()

    @property
    def target_arch(self) -> str | None:
        """The `pto.target_arch` attribute, if any."""
        value = dict(self.attributes).get("pto.target_arch")
        return value if isinstance(value, str) else None

    def function(self, name: str) -> Func:
        """The function called *name*; SimError when there is none."""
        for func in self.functions:
            if func.name == name:
                return func
        raise SimError(f"no function @{name} in the module")


# --- scanner --------------------------------------------------------------------------------

class Token(NamedTuple):
    """One lexeme (a tuple, interned: a module repeats its lexemes; lines are kept apart)."""

    kind: str
    """`value` (%x), `symbol` (@f), `type` (!...), `hash` (#...), `ident`, `int`, `float`,
    `string`, `punct` or `eof`."""
    text: str


_BRACKET_BODY: Final = r"(?:[^<>\n-]++|->?)"
"""Characters inside `<...>`: `->` does not close the bracket."""
_TOKEN: Final = re.compile(r"""
    (?:[ \t\r\n]++|//[^\n]*+)*+
    (?:
      (?P<value>%[A-Za-z0-9_$.]+)
    | (?P<ident>[A-Za-z_][A-Za-z0-9_.$]*)
    | (?P<type>![A-Za-z_][A-Za-z0-9_.]*+(?:<(?:B|<B*+>)*+>)?+)(?!<)
    | (?P<hash>\#[A-Za-z_][A-Za-z0-9_.]*+(?:<(?:B|<B*+>)*+>)?+)(?!<)
    | (?P<punct>->|[(){}\[\],:=<>?*])
    | (?P<float>-?\d+\.\d*(?:[eE][+-]?\d+)?|-?\d+[eE][+-]?\d+)
    | (?P<int>-?0x[0-9A-Fa-f]+|-?\d+)
    | (?P<symbol>@[A-Za-z0-9_$.]+)
    | (?P<string>"(?:[^"\\\n]|\\.)*")
    | (?P<bang>[!\#])
    | (?P<end>$)
    )
""".replace("B", _BRACKET_BODY), re.VERBOSE)
"""One token after any space and comments. A type / attribute nested deeper than one level of
`<...>` (or malformed) is left to `_scan_bracketed` (the `bang` alternative)."""
_SKIP: Final = re.compile(r"(?:[ \t\r\n]++|//[^\n]*+)*+")
_DOTTED: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NEWLINE: Final = re.compile("\n")


_LEXEME: Final = re.compile(r"""
    [ \t\r]*+
    (
      %[A-Za-z0-9_$.]+
    | [A-Za-z_][A-Za-z0-9_.$]*
    | ![A-Za-z_][A-Za-z0-9_.]*+(?:<(?:B|<B*+>)*+>)?+(?!<)
    | \#[A-Za-z_][A-Za-z0-9_.]*+(?:<(?:B|<B*+>)*+>)?+(?!<)
    | ->|[(){}\[\],:=<>?*]
    | -?\d+\.\d*(?:[eE][+-]?\d+)?|-?\d+[eE][+-]?\d+
    | -?0x[0-9A-Fa-f]+|-?\d+
    | @[A-Za-z0-9_$.]+
    | "(?:[^"\\\n]|\\.)*"
    | \S
    )
""".replace("B", _BRACKET_BODY), re.VERBOSE)
"""`_TOKEN`'s lexemes, one capture group, for `re.findall` over one line; a lone character that
starts no lexeme (a comment's `/` among them) is caught by the last alternative and makes `tokenize`
take the careful path."""


class _Careful(Exception):
    """A lexeme the fast path of `tokenize` does not decide alone."""


class _Interned(dict):
    """Lexeme -> its `Token`, made on first sight."""

    def __missing__(self, lexeme: str) -> Token:
        first = lexeme[0]
        if first in "(){}[],:=<>?*" or lexeme == "->":
            kind = "punct"
        elif first in "%@\"":
            kind = {"%": "value", "@": "symbol", '"': "string"}[first]
        elif first in "!#" and len(lexeme) > 1:
            kind = "type" if first == "!" else "hash"
        elif first.isascii() and (first.isalpha() or first == "_") and lexeme != "loc":
            kind = "ident"
        elif first.isdigit() or (first == "-" and len(lexeme) > 1):
            kind = "float" if "." in lexeme or ("x" not in lexeme and ("e" in lexeme or "E" in lexeme)) else "int"
        else:
            raise _Careful(lexeme)
        token = self[lexeme] = Token(kind, lexeme)
        return token


_TOKENS: Final = _Interned()
_MAX_INTERNED: Final = 1 << 18
"""Distinct lexemes kept across calls (a corpus run reads many modules in one process)."""
EOF_TOKEN: Final = Token("eof", "")


def tokenize(text: str) -> tuple[list[Token], list[int]]:
    """The tokens of *text*, `loc(...)` and comments dropped, ending with an `eof` token, and the
    1-based line of each.

    Line by line with `re.findall`, each lexeme's token looked up (interned) at C speed; a line with
    anything this does not decide alone — a `//` comment, `loc(...)`, a type nested deeper than one
    `<...>`, a character that starts no token — sends the whole text through `_tokenize_carefully`,
    which gives the same tokens (tested) and the scanner's errors.
    """
    tokens: list[Token] = []
    lines: list[int] = []
    if len(_TOKENS) > _MAX_INTERNED:
        _TOKENS.clear()
    findall, lookup = _LEXEME.findall, _TOKENS.__getitem__
    line = 0
    try:
        for line, source in enumerate(text.split("\n"), 1):
            lexemes = findall(source)
            if lexemes:
                tokens.extend(map(lookup, lexemes))
                lines.extend([line] * len(lexemes))
    except _Careful:
        return _tokenize_carefully(text)
    tokens.append(EOF_TOKEN)
    lines.append(line)
    return tokens, lines


def _tokenize_carefully(text: str) -> tuple[list[Token], list[int]]:
    """`tokenize` one token at a time: nested `<...>`, `loc(...)` and the scanner's errors."""
    tokens: list[Token] = []
    lines: list[int] = []
    newlines = [m.start() for m in _NEWLINE.finditer(text)]
    match_at, append = _TOKEN.match, tokens.append
    pos = 0
    while True:
        match = match_at(text, pos)
        if match is None:
            skip = _SKIP.match(text, pos)
            assert skip is not None  # _SKIP matches the empty string
            start = skip.end()
            raise SimError(f"unexpected character {text[start]!r}", bisect_right(newlines, start) + 1)
        kind = match.lastgroup
        assert kind is not None  # every alternative of _TOKEN is a named group
        pos = match.end()
        if kind == "end":
            append(EOF_TOKEN)
            lines.append(bisect_right(newlines, pos) + 1)
            return tokens, lines
        if kind == "bang":
            start = pos - 1
            lexeme = _scan_bracketed(text, start, bisect_right(newlines, start) + 1)
            append(Token("hash" if lexeme[0] == "#" else "type", lexeme))
            lines.append(bisect_right(newlines, start) + 1)
            pos = start + len(lexeme)
            continue
        lexeme = match.group(kind)
        line = bisect_right(newlines, pos - 1) + 1  # a token never spans lines
        if kind == "ident" and lexeme == "loc" and text.startswith("(", pos):
            pos = _scan_loc(text, pos, line)
            continue
        append(Token(kind, lexeme))
        lines.append(line)


def _scan_bracketed(text: str, pos: int, line: int) -> str:
    """`!dialect.name<...>` or `#dialect.name<...>` starting at *pos* (nested `<>` balanced)."""
    name = _DOTTED.match(text, pos + 1)
    if name is None:
        raise SimError(f"expected a name after {text[pos]!r}", line)
    cursor = name.end()
    if not text.startswith("<", cursor):
        return text[pos:cursor]
    depth = 0
    while cursor < len(text):
        char = text[cursor]
        if char == "<":
            depth += 1
        elif char == ">" and text[cursor - 1] != "-":
            depth -= 1
            if depth == 0:
                return text[pos:cursor + 1]
        elif char == "\n":
            break
        cursor += 1
    raise SimError(f"unterminated {text[pos:name.end()]}<...>", line)


def _scan_loc(text: str, pos: int, line: int) -> int:
    """The position just after the `loc(...)` whose `(` is at *pos* (strings and nesting kept)."""
    depth, cursor, in_string = 0, pos, False
    while cursor < len(text):
        char = text[cursor]
        if in_string:
            if char == "\\":
                cursor += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return cursor + 1
        cursor += 1
    raise SimError("unterminated loc(...)", line)


# --- types ----------------------------------------------------------------------------------

_VIEW: Final = re.compile(r"!pto\.(tensor_view|partition_tensor_view)<((?:(?:\?|\d+)x)+)(\w+)>$")
_PTR: Final = re.compile(r"!pto\.ptr<(\w+)>$")
_LOCAL_ARRAY: Final = re.compile(r"!pto\.local_array<(\d+)x(i32|i64)>$")
_TILE: Final = re.compile(r"!pto\.tile_buf<(.*)>$", re.DOTALL)


_TYPES: dict[str, Type] = {}
"""Types already parsed, by spelling (they are immutable; a module repeats few of them)."""


def parse_type(text: str, line: int) -> Type:
    """The `Type` spelled *text* (a `!...` token or a scalar type name)."""
    known = _TYPES.get(text)
    if known is None:
        known = _TYPES[text] = _parse_type(text, line)
    return known


def _parse_type(text: str, line: int) -> Type:
    if text in SCALAR_TYPES:
        return ScalarType(text)
    if match := _PTR.match(text):
        return PtrType(_element(match.group(1), line))
    if match := _LOCAL_ARRAY.match(text):
        if int(match.group(1)) < 1:
            raise SimError(f"{text} holds no element", line)
        return ArrayType(int(match.group(1)), match.group(2))
    if match := _VIEW.match(text):
        dims = tuple(None if d == "?" else int(d) for d in match.group(2).split("x")[:-1])
        return ViewType(dims, _element(match.group(3), line), match.group(1) != "tensor_view")
    if match := _TILE.match(text):
        return _tile_type(match.group(1), line)
    raise SimError(f"unknown type {text}", line)


def _element(name: str, line: int) -> str:
    if name not in ELEMENT_TYPES:
        raise SimError(f"unknown element type {name}", line)
    return name


def _tile_type(body: str, line: int) -> TileType:
    fields: dict[str, str] = {}
    for item in body.split(","):
        key, sep, value = item.partition("=")
        if not sep:
            raise SimError(f"malformed tile_buf field {item.strip()!r}", line)
        fields[key.strip()] = value.strip()
    for required in ("loc", "dtype", "rows", "cols"):
        if required not in fields:
            raise SimError(f"tile_buf has no {required}=", line)
    if fields["loc"] not in TILE_SPACES:
        raise SimError(f"unknown memory space loc={fields['loc']}", line)
    extra = tuple((k, v) for k, v in fields.items()
                  if k not in ("loc", "dtype", "rows", "cols", "v_row", "v_col"))
    return TileType(fields["loc"], _element(fields["dtype"], line), _int_field(fields, "rows", line),
                    _int_field(fields, "cols", line), _optional_dim(fields, "v_row", line),
                    _optional_dim(fields, "v_col", line), extra)


def _int_field(fields: dict[str, str], key: str, line: int) -> int:
    try:
        return int(fields[key])
    except ValueError:
        raise SimError(f"tile_buf {key}={fields[key]} is not an integer", line) from None


def _optional_dim(fields: dict[str, str], key: str, line: int) -> int | None:
    if fields.get(key, "?") == "?":
        return None
    return _int_field(fields, key, line)


# --- parser ---------------------------------------------------------------------------------

def _float_from_bits(bits: int, name: str) -> float:
    """The value of an MLIR hexadecimal float literal (the bit pattern of type *name*)."""
    if name == "f32":
        return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    if name == "f16":
        return struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0]
    return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]


class _Parser:
    """Recursive descent over the token list; one `_parse_<form>` per op form."""

    def __init__(self, text: str) -> None:
        self.tokens, self.lines = tokenize(text)
        self.pos = 0
        self.group_attributes: tuple[tuple[str, object], ...] = ()
        """The `{...}` after the last operand of the `ins(...)` / `outs(...)` being read."""

    # token helpers
    @property
    def peek(self) -> Token:
        return self.tokens[self.pos]

    def next(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind != "eof":
            self.pos += 1
        return token

    def at(self, text: str) -> bool:
        token = self.tokens[self.pos]
        return token.text == text and (token.kind == "punct" or token.kind == "ident")

    def accept(self, text: str) -> bool:
        token = self.tokens[self.pos]
        if token.text == text and (token.kind == "punct" or token.kind == "ident"):
            self.pos += 1
            return True
        return False

    def expect(self, text: str) -> Token:
        token = self.tokens[self.pos]
        if token.text != text or not (token.kind == "punct" or token.kind == "ident"):
            raise self.error(f"expected '{text}'")
        self.pos += 1  # never eof: its text is empty
        return token

    def expect_kind(self, kind: str, what: str) -> Token:
        token = self.tokens[self.pos]
        if token.kind != kind:
            raise self.error(f"expected {what}")
        if kind != "eof":
            self.pos += 1
        return token

    def error(self, message: str) -> SimError:
        token = self.peek
        found = "end of input" if token.kind == "eof" else repr(token.text)
        return SimError(f"{message}, found {found}", self.lines[self.pos])

    def value(self) -> str:
        token = self.tokens[self.pos]
        if token.kind != "value":
            raise self.error("expected an SSA value (%name)")
        self.pos += 1
        return token.text[1:]

    def value_list(self, close: str) -> tuple[str, ...]:
        values: list[str] = []
        if self.at(close):
            return ()
        values.append(self.value())
        while self.accept(","):
            values.append(self.value())
        return tuple(values)

    def type(self) -> Type:
        token = self.peek
        if token.kind == "ident" and token.text == "vector":
            return self.vector_type()
        if token.kind == "type" or (token.kind == "ident" and token.text in SCALAR_TYPES):
            line = self.lines[self.pos]
            self.next()
            return parse_type(token.text, line)
        raise self.error("expected a type")

    def vector_type(self) -> VectorType:
        """`vector<4xi16>` (tokens `vector` `<` `4` `xi16` `>`): the one vector type of the subset."""
        line = self.lines[self.pos]
        self.expect("vector")
        self.expect("<")
        extent = self.expect_kind("int", "a vector extent").text
        element = self.expect_kind("ident", "a vector element type").text
        self.expect(">")
        if (extent, element) != ("4", "xi16"):
            raise SimError(f"vector<{extent}{element}> is not in the subset (vector<4xi16> only)", line)
        return VectorType(4, "i16")

    def type_list(self) -> tuple[Type, ...]:
        types = [self.type()]
        while self.accept(","):
            types.append(self.type())
        return tuple(types)

    # module, functions
    def module(self) -> Module:
        self.expect("module")
        attributes = self.attr_dict() if self.accept("attributes") else ()
        self.expect("{")
        functions: list[Func] = []
        while not self.at("}"):
            functions.append(self.function())
        self.expect("}")
        if self.peek.kind != "eof":
            raise self.error("expected end of input after the module")
        return Module(tuple(functions), attributes)

    def function(self) -> Func:
        line = self.lines[self.pos]
        self.expect("func.func")
        name = self.expect_kind("symbol", "a function name (@name)").text[1:]
        self.expect("(")
        args: list[Arg] = []
        if not self.at(")"):
            args.append(self.argument())
            while self.accept(","):
                args.append(self.argument())
        self.expect(")")
        attributes = self.attr_dict() if self.accept("attributes") else ()
        body = self.block(allow_return=True)
        return Func(name, line, tuple(args), body, attributes)

    def argument(self) -> Arg:
        line = self.lines[self.pos]
        name = self.value()
        self.expect(":")
        arg_type = self.type()
        if not isinstance(arg_type, (PtrType, ScalarType)):
            raise SimError(f"argument %{name} has type {arg_type}, expected !pto.ptr or a scalar",
                           line)
        return Arg(name, arg_type)

    def attr_dict(self) -> tuple[tuple[str, object], ...]:
        self.expect("{")
        entries: list[tuple[str, object]] = []
        while not self.at("}"):
            key = self.expect_kind("ident", "an attribute name").text
            value: object = True
            if self.accept("="):
                value = self.attr_value()
            entries.append((key, value))
            if not self.accept(","):
                break
        self.expect("}")
        return tuple(entries)

    def attr_value(self) -> object:
        token = self.next()
        if token.kind == "string":
            return token.text[1:-1]
        if token.kind == "int":
            return int(token.text, 0)
        if token.kind == "float":
            return float(token.text)
        if token.kind == "ident" and token.text in ("true", "false"):
            return token.text == "true"
        if token.kind in ("hash", "type", "ident"):
            return token.text
        self.pos -= 1
        raise self.error("expected an attribute value")

    # blocks and ops
    def block(self, allow_return: bool = False) -> tuple[Op, ...]:
        self.expect("{")
        ops: list[Op] = []
        while not self.at("}"):
            if self.peek.kind == "eof":
                raise self.error("expected '}'")
            if self.at("return") or self.at("func.return"):
                line = self.lines[self.pos]
                self.next()
                if not allow_return:
                    raise SimError("return outside a function body", line)
                continue
            ops.append(self.op())
        self.expect("}")
        return tuple(ops)

    def op(self) -> Op:
        results: tuple[str, ...] = ()
        if self.peek.kind == "value":
            results = (self.value(),)
            while self.accept(","):  # `%a, %b = scf.for ...`: a loop or an `if` with several results
                results = (*results, self.value())
            self.expect("=")
        token, line = self.peek, self.lines[self.pos]
        if token.kind != "ident":
            raise self.error("expected an instruction")
        name = token.text
        parse = self._form(name)
        if parse is None:
            raise SimError(f"unknown instruction {name}", line)
        self.next()
        op = parse(name, line, results)
        if name in ("scf.for", "scf.if"):
            if len(results) != len(op.types):
                raise SimError(f"{name} has {len(results)} results for {len(op.types)} result types", line)
            return op
        wants_result = name not in INS_OUTS_OPS and name not in ("pto.syncall", "pto.launch", "pto.store_scalar",
                                                                   "scf.yield", "pto.local_array_set", *COMM_OPS)
        if wants_result != bool(results):
            what = "needs a result" if wants_result else "has no result"
            raise SimError(f"{name} {what}", line)
        if len(results) > 1:
            raise SimError(f"{name} has one result, not {len(results)}", line)
        return op

    def _form(self, name: str):
        if name in ARITH_BINARY:
            return self._binary
        if name in INS_OUTS_OPS:
            return self._ins_outs
        return {
            "arith.constant": self._constant,
            "arith.cmpi": self._cmpi,
            "arith.cmpf": self._cmpi,
            "arith.select": self._select,
            "pto.make_tensor_view": self._make_tensor_view,
            "pto.addptr": self._addptr,
            "pto.comm.peer": self._addptr,
            "pto.comm.tnotify": self._comm,
            "pto.comm.twait": self._comm,
            "pto.comm.tput": self._comm,
            "pto.declare_local_array": self._declare_local_array,
            "pto.local_array_set": self._local_array_set,
            "pto.local_array_get": self._local_array_get,
            "pto.partition_view": self._partition_view,
            "pto.alloc_tile": self._alloc_tile,
            "scf.for": self._for,
            "scf.if": self._if,
            "scf.yield": self._yield,
            "pto.get_block_idx": self._launch_query,
            "pto.get_block_num": self._launch_query,
            "arith.index_cast": self._index_cast,
            "arith.fptosi": self._index_cast,
            "pto.syncall": self._syncall,
            "pto.launch": self._launch,
            "pto.tgetval": self._tgetval,
            "pto.store_scalar": self._store_scalar,
            "pto.load_scalar": self._load_scalar,
        }.get(name)

    def _constant(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        token = self.next()
        literal: int | float | bool
        if token.kind == "ident" and token.text == "dense":  # `dense<0> : vector<4xi16>`, tmrgsort's status
            self.expect("<")
            if self.expect_kind("int", "a splat value").text != "0":
                raise SimError("arith.constant dense<...> of other than zero", line)
            self.expect(">")
            self.expect(":")
            vector = self.type()
            if not isinstance(vector, VectorType):
                raise SimError(f"arith.constant dense<0> of type {vector}", line)
            return Op(name, line, results, attributes=(("value", 0),), types=(vector,))
        if token.kind == "int":
            literal = int(token.text, 0)
        elif token.kind == "float":
            literal = float(token.text)
        elif token.kind == "ident" and token.text in ("true", "false"):
            literal = token.text == "true"
        else:
            self.pos -= 1
            raise self.error("expected a constant literal")
        self.expect(":")
        result_type = self.type()
        if not isinstance(result_type, ScalarType):
            raise SimError(f"arith.constant of type {result_type}", line)
        is_float_type = result_type.name in ("f32", "f16", "bf16")
        if isinstance(literal, float) and not is_float_type:
            raise SimError(f"float literal for type {result_type}", line)
        if is_float_type and token.kind == "int" and token.text.startswith("0x"):
            assert isinstance(literal, int)
            literal = _float_from_bits(literal, result_type.name)
        return Op(name, line, results, attributes=(("value", literal),), types=(result_type,))

    def _binary(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        lhs = self.value()
        self.expect(",")
        rhs = self.value()
        self.expect(":")
        return Op(name, line, results, (lhs, rhs), types=(self._scalar_type(line),))

    def _cmpi(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        kind = name.partition(".")[2]
        predicate = self.expect_kind("ident", f"a {kind} predicate").text
        if predicate not in (CMPI_PREDICATES if kind == "cmpi" else CMPF_PREDICATES):
            raise SimError(f"unknown {kind} predicate {predicate}", line)
        self.expect(",")
        lhs = self.value()
        self.expect(",")
        rhs = self.value()
        self.expect(":")
        return Op(name, line, results, (lhs, rhs), attributes=(("predicate", predicate),),
                  types=(self._scalar_type(line),))

    def _select(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        condition = self.value()
        self.expect(",")
        on_true = self.value()
        self.expect(",")
        on_false = self.value()
        self.expect(":")
        return Op(name, line, results, (condition, on_true, on_false),
                  types=(self._scalar_type(line),))

    def _launch_query(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`%b = pto.get_block_idx` / `%n = pto.get_block_num`: no operands, an i64 result."""
        return Op(name, line, results, types=(ScalarType("i64"),))

    def _syncall(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>`."""
        self.expect("(")
        self.expect(")")
        attributes: list[tuple[str, object]] = []
        while self.peek.kind == "ident" and self.peek.text in ("mode", "core_type"):
            key = self.next().text
            self.expect("=")
            attributes.append((key, self.attr_value()))
            if not self.accept(","):
                break
        return Op(name, line, results, attributes=tuple(attributes))

    def _index_cast(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`%r = arith.index_cast %x : i64 to index`; types are (source, result)."""
        source = self.value()
        self.expect(":")
        source_type = self._scalar_type(line)
        self.expect("to")
        return Op(name, line, results, (source,), types=(source_type, self._scalar_type(line)))

    def _tgetval(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`%v = pto.tgetval ins(%tile, %offset : !pto.tile_buf<...>, index) outs : f32`; types are (tile,
        offset, result)."""
        ins, in_types = self._operand_group("ins")
        if len(ins) != 2 or len(in_types) != 2:
            raise SimError(f"{name} takes a tile and a flat offset", line)
        self.expect("outs")
        self.expect(":")
        return Op(name, line, results, ins, types=(*in_types, self._scalar_type(line)))

    def _store_scalar(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`pto.store_scalar %v, %ptr[%offset] : !pto.ptr<T>, T`; operands (value, pointer, offset), types
        (pointer, value)."""
        value = self.value()
        self.expect(",")
        pointer, offset, pointer_type = self._pointer_at(name, "stores", line)
        self.expect(",")
        return Op(name, line, results, (value, pointer, offset), types=(pointer_type, self._scalar_type(line)))

    def _load_scalar(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`%v = pto.load_scalar %ptr[%offset] : !pto.ptr<T> -> T`; operands (pointer, offset), types (pointer,
        result)."""
        pointer, offset, pointer_type = self._pointer_at(name, "loads", line)
        self.expect("->")
        return Op(name, line, results, (pointer, offset), types=(pointer_type, self._scalar_type(line)))

    def _pointer_at(self, name: str, verb: str, line: int) -> tuple[str, str, PtrType]:
        """`%ptr[%offset] : !pto.ptr<T>` of a scalar load or store."""
        pointer = self.value()
        self.expect("[")
        offset = self.value()
        self.expect("]")
        self.expect(":")
        pointer_type = self.type()
        if not isinstance(pointer_type, PtrType):
            raise SimError(f"{name} {verb} through a !pto.ptr, not {pointer_type}", line)
        return pointer, offset, pointer_type

    def _scalar_type(self, line: int) -> ScalarType:
        result_type = self.type()
        if not isinstance(result_type, ScalarType):
            raise SimError(f"expected a scalar type, found {result_type}", line)
        return result_type

    def _bracket_group(self, key: str) -> tuple[str, tuple[str, ...]]:
        self.expect(key)
        self.expect("=")
        self.expect("[")
        values = self.value_list("]")
        self.expect("]")
        return key, values

    def _make_tensor_view(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        source = self.value()
        self.expect(",")
        shape = self._bracket_group("shape")
        self.expect(",")
        strides = self._bracket_group("strides")
        attributes = self.attr_dict() if self.at("{") else ()
        self.expect(":")
        return Op(name, line, results, (source,), (shape, strides), attributes, (self.type(),))

    def _declare_local_array(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`%a = pto.declare_local_array -> !pto.local_array<NxT>`."""
        self.expect("->")
        return Op(name, line, results, types=(self._array_type(line),))

    def _local_array_set(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`pto.local_array_set %a[%i], %v : !pto.local_array<NxT>, T`; operands (array, index, value)."""
        array, index = self._array_element()
        self.expect(",")
        value = self.value()
        self.expect(":")
        array_type = self._array_type(line)
        self.expect(",")
        return Op(name, line, results, (array, index, value), types=(array_type, self._scalar_type(line)))

    def _local_array_get(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`%v = pto.local_array_get %a[%i] : !pto.local_array<NxT> -> T`; operands (array, index)."""
        array, index = self._array_element()
        self.expect(":")
        array_type = self._array_type(line)
        self.expect("->")
        return Op(name, line, results, (array, index), types=(array_type, self._scalar_type(line)))

    def _array_element(self) -> tuple[str, str]:
        array = self.value()
        self.expect("[")
        index = self.value()
        self.expect("]")
        return array, index

    def _array_type(self, line: int) -> ArrayType:
        array_type = self.type()
        if not isinstance(array_type, ArrayType):
            raise SimError(f"expected a !pto.local_array type, found {array_type}", line)
        return array_type

    def _comm(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`pto.comm.tnotify(%view, %value : T, i32) {notifyOp = ...}`, `pto.comm.twait(%view, %expected : T, i32)
        {cmp = ...}`, `pto.comm.tput(%dst, %src : T, T) {atomicType = ...}`: operands, their types, attributes."""
        self.expect("(")
        operands = [self.value()]
        while self.accept(","):
            operands.append(self.value())
        self.expect(":")
        types = [self.type()]
        while self.accept(","):
            types.append(self.type())
        self.expect(")")
        if len(types) != len(operands):
            raise SimError(f"{name} has {len(operands)} operands for {len(types)} types", line)
        attributes = self.attr_dict() if self.at("{") else ()
        return Op(name, line, results, tuple(operands), attributes=attributes, types=tuple(types))

    def _addptr(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`%q = pto.addptr %p, %n : !pto.ptr<T> -> !pto.ptr<T>`; types are (source, result)."""
        source = self.value()
        self.expect(",")
        offset = self.value()
        self.expect(":")
        source_type = self.type()
        self.expect("->")
        result_type = self.type()
        if not isinstance(source_type, PtrType) or source_type != result_type:
            raise SimError(f"{name} takes and returns one !pto.ptr type, not {source_type} -> {result_type}", line)
        return Op(name, line, results, (source, offset), types=(source_type, result_type))

    def _partition_view(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        source = self.value()
        self.expect(",")
        offsets = self._bracket_group("offsets")
        self.expect(",")
        sizes = self._bracket_group("sizes")
        attributes = self.attr_dict() if self.at("{") else ()
        self.expect(":")
        source_type = self.type()
        self.expect("->")
        return Op(name, line, results, (source,), (offsets, sizes), attributes,
                  (source_type, self.type()))

    def _alloc_tile(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        named: list[tuple[str, tuple[str, ...]]] = []
        while self.peek.kind == "ident" and self.peek.text in ("addr", "valid_row", "valid_col"):
            key = self.next().text
            self.expect("=")
            named.append((key, (self.value(),)))
        attributes = self.attr_dict() if self.at("{") else ()
        self.expect(":")
        return Op(name, line, results, (), tuple(named), attributes, (self.type(),))

    def _ins_outs(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        self.group_attributes = ()
        ins, in_types = self._operand_group("ins")
        outs, out_types = self._operand_group("outs")
        attributes = (*self.group_attributes, *(self.attr_dict() if self.at("{") else ()))
        trailing: tuple[Type, ...] = ()
        if self.accept(":"):
            trailing = self.type_list()
        return Op(name, line, results, ins, (("outs", outs),), attributes,
                  in_types + out_types + trailing)

    def _operand_group(self, key: str) -> tuple[tuple[str, ...], tuple[Type, ...]]:
        self.expect(key)
        self.expect("(")
        values = self.value_list(")")
        if self.at("{"):  # `ins(%a, %b, %tmp {exhausted = false} : ...)`: tmrgsort's attribute on its workspace
            self.group_attributes = self.attr_dict()
        types: tuple[Type, ...] = ()
        if self.accept(":"):
            types = self.type_list()
        self.expect(")")
        return values, types

    def _for(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`scf.for %i = %lb to %ub step %st {...}`, or with loop-carried scalars (PyPTO's form):
        `%r = scf.for %i = %lb to %ub step %st iter_args(%a = %init) -> (index) {... scf.yield %v : index}`;
        operands (lb, ub, step, *inits), attribute `iter_args` the carried names, types the carried types."""
        induction = self.value()
        self.expect("=")
        lower = self.value()
        self.expect("to")
        upper = self.value()
        self.expect("step")
        step = self.value()
        if self.accept(":"):
            self.type()
        carried: list[str] = []
        inits: list[str] = []
        types: tuple[Type, ...] = ()
        if self.accept("iter_args"):
            self.expect("(")
            while True:
                carried.append(self.value())
                self.expect("=")
                inits.append(self.value())
                if not self.accept(","):
                    break
            self.expect(")")
            types = self._result_types()
            if len(types) != len(carried):
                raise SimError(f"scf.for carries {len(carried)} values of {len(types)} types", line)
        body = self.block()
        return Op(name, line, results, (lower, upper, step, *inits),
                  attributes=(("iv", induction), ("iter_args", tuple(carried))), types=types, regions=(body,))

    def _result_types(self) -> tuple[Type, ...]:
        """`-> (T, ...)`: the result types of an `scf.for` / `scf.if`."""
        self.expect("->")
        self.expect("(")
        types = self.type_list()
        self.expect(")")
        return types

    def _yield(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`scf.yield %a, %b : index, index`: the values a loop body carries on, or an `if` arm gives its results."""
        values = self.value_list(":") if self.peek.kind == "value" else ()
        types: tuple[Type, ...] = ()
        if values:
            self.expect(":")
            types = self.type_list()
        if len(types) != len(values):
            raise SimError(f"scf.yield of {len(values)} values with {len(types)} types", line)
        return Op(name, line, results, values, types=types)

    def _launch(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`pto.launch %n { ... }`: a step launching the kernel its region is over %n instances."""
        count = self.value()
        return Op(name, line, results, (count,), regions=(self.block(),))

    def _if(self, name: str, line: int, results: tuple[str, ...]) -> Op:
        """`scf.if %c {...} else {...}`, or with scalar results (PyPTO's form):
        `%r = scf.if %c -> (index) {... scf.yield %a : index} else {... scf.yield %b : index}`."""
        condition = self.value()
        types = self._result_types() if self.at("->") else ()
        then_body = self.block()
        regions: tuple[tuple[Op, ...], ...] = (then_body,)
        if self.accept("else"):
            regions = (then_body, self.block())
        return Op(name, line, results, (condition,), types=types, regions=regions)


def parse_pto(text: str) -> Module:
    """The `Module` of PTO-AS *text*; `SimError` (rule "") naming the line of the first error."""
    return _Parser(text).module()


def walk(ops: tuple[Op, ...]) -> Iterator[Op]:
    """Every op of *ops* and of their regions, in source order."""
    for op in ops:
        yield op
        for region in op.regions:
            yield from walk(region)
