"""Obligations: one builder per SMT rule (PV101-PV105), each an `Obligation` — data, not a check.

Owns: what each rule of L0C_RULES.md ("Z3 obligations") asks of a site, as an SMT query over one step
index `n` (`encode.ChainEncoding`): the assumptions (the domain of `n`, the context of the site), the
violation (satisfiable exactly when the rule fails at step `n`), the witnesses read back from a model,
and how to explain a model to the user in the names they wrote. `solver.discharge` decides them.

The rules, for a lowered site L and (when there is a source) the source site S it came from, both
flattened into steps 0 .. N-1 (the source refined to the lowering's L0 blocks, `sites.refine`):

- PV101 predication-is-phi: for every step both run, L initialises exactly where S does.
- PV102 initialise-first: no step of L accumulates into an undefined accumulator — the first step, and
  the first after a create (zero-trip and one-trip loops, split-K slices that start at a runtime
  `k_base`, pipelined main loops with a literal or runtime remainder are all steps of the one index).
  Induction: if no step accumulates on undefined, every step's input is defined, because each step
  writes the accumulator and only a create undefines it.
- PV103 no-lost-partial-sums: no step of L initialises while the value of the step before it was never
  drained (a drain right before step `n` starts a new output tile), and the last value is drained. S
  resetting there too is no excuse: it only changes whose line the message names.
- PV104 bias-once: in a biased chain, the bias is added on exactly the first step of each output tile
  (the first step, and the first after a drain or a create): not twice, and not never.
- PV105 reduction-equivalence: L and S run the same number of steps; with `mm` / `add` uninterpreted the
  value after step 0 is equal from the common initial value (one-trip case), the value after step n is
  equal whenever the value before it was (induction step, for a free `Tile` value), and drains lie at
  the same positions. Zero trips: equal counts make both drain the initial value. A MAD operand whose
  block is not identified (`encode.StepTemplate.untraced`) leaves the value cases inconclusive, naming it.

- PV106 reduction-coverage: between resets, consecutive steps read adjacent K blocks of both operands,
  and a constant-bounds reduction does not stop a partial block short of the K extent
  (`reduction_coverage`). An operand whose K blocks are not known is proved covered only where every MAD
  initialises (one product per output tile), else inconclusive.

Form 3 input has no source: PV101 and PV105 do not apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pypto_verify import rules
from pypto_verify.ir import Expr, Span, replace
from pypto_verify.rules import Rule

from pypto_verify.smt import encode as E
from pypto_verify.smt import sites as S

Explain = Callable[[dict[str, int | bool]], tuple[str, dict[str, int | str], Span | None]]


@dataclass(frozen=True)
class Obligation:
    """One SMT query: the rule fails on the site iff `assumptions` and `violation` are satisfiable."""

    rule: Rule
    site: str
    case: str
    """Which part of the rule (`count`, `first`, `step`, `drains` for PV105; "" otherwise)."""
    assumptions: tuple[E.Term, ...]
    violation: E.Term
    witnesses: tuple[tuple[str, E.Term], ...]
    """Named terms read back from a model: the step index, the templates, loop variables, symbols."""
    approximations: tuple[str, ...]
    """What the encoding over-approximates: a model then proves nothing (inconclusive, not refuted)."""
    span: Span
    explain: Explain
    """From witness values to (message, counterexample in the user's names, span of the offending op)."""
    proved: str
    """One sentence saying what holds when the violation is unsatisfiable."""
    function: str = ""
    unposed: str = ""
    """Why the obligation could not be posed (an unsupported site, no source chain): it is then
    inconclusive with this reason and never sent to the solver."""
    conditions: tuple[str, ...] = ()
    """The run-time inputs the violation may depend on (values read from tensors, dynamic dimensions,
    scalar parameters): a model then shows the obligation holds only for some of their values
    (`Verdict.CONDITIONAL`), since the kernel's caller may keep them in range."""


N = E.const(E.MARK + "n")
"""The normalised step index shared by both sides of a query."""
UNDEF = E.const(E.MARK + "undef", E.TILE)
"""The contents of a freshly created accumulator."""
PREV = E.const(E.MARK + "prev", E.TILE)
"""The accumulator before step `n` (induction hypothesis: equal on both sides)."""
INIT = E.const(E.MARK + "init", E.TILE)
"""The value an externally defined chain starts from."""


class Side:
    """One site encoded for one query (`encode.ChainEncoding`) with the names its witnesses use."""

    def __init__(self, site: S.AccSite, tag: str, symbols: E.Symbols) -> None:
        self.site = site
        self.tag = tag
        self.chain = E.ChainEncoding(site, N, symbols, tag)

    @property
    def ok(self) -> bool:
        return not self.chain.unsupported

    def witnesses(self) -> list[tuple[str, E.Term]]:
        out: list[tuple[str, E.Term]] = [(f"{self.tag}.tpl", self.chain.template_at()), (f"{self.tag}.N", self.chain.total)]
        for step in self.chain.steps:
            for depth, (_, value) in enumerate(step.loop_values):
                out.append((f"{self.tag}{step.index}.{depth}", value))
            if step.sub_block is not None:
                out.append((f"{self.tag}{step.index}.#", step.sub_block))
        return out

    def step(self, values: dict[str, int | bool]) -> E.StepTemplate | None:
        """The template running at the model's `n`, if any."""
        index = values.get(f"{self.tag}.tpl", 0)
        return self.chain.steps[index - 1] if isinstance(index, int) and index > 0 else None

    def where(self, values: dict[str, int | bool]) -> tuple[list[tuple[str, int]], E.StepTemplate | None]:
        """The user's loop variables at the model's step, outermost first."""
        step = self.step(values)
        if step is None:
            return [], None
        out = []
        for depth, (name, _) in enumerate(step.loop_values):
            value = values.get(f"{self.tag}{step.index}.{depth}")
            if isinstance(value, int) and not isinstance(value, bool):
                out.append((name, value))
        block = values.get(f"{self.tag}{step.index}.#")
        if step.sub_block is not None and isinstance(block, int):
            out.append(("l0_block", block))  # which L0 block of the source MAD's K block
        if step.copy is not None and self.tag == "l":
            out.append(("copy", step.copy[0]))  # which pipeline copy of the op in its loop body
        return out, step


def _symbols(site: S.AccSite, tag: str) -> E.Symbols:
    return E.Symbols(site.scalars, tag, names=dict(site.context_names), offsets=dict(site.context_offsets),
                     values=dict(site.context_values), exprs=dict(site.context_exprs))


_SIDES: dict[tuple[int, str], tuple[S.AccSite, Side]] = {}
"""The sites encoded for the obligations being built (`site_obligations` poses up to eight queries on
one site: it encodes each side once). Keyed by identity; the site is kept so the id stays its own."""


def _side(site: S.AccSite, tag: str) -> Side:
    """*site* encoded as side *tag* (memoised, see `_SIDES`)."""
    key = (id(site), tag)
    hit = _SIDES.get(key)
    if hit is not None and hit[0] is site:
        return hit[1]
    if len(_SIDES) > 64:
        _SIDES.clear()
    side = Side(site, tag, _symbols(site, tag))
    _SIDES[key] = (site, side)
    return side


def _free_assumptions(*symbol_sets: E.Symbols) -> list[E.Term]:
    """Runtime scalars and context variables are indices: nonnegative.
    NOTE: a precondition of every verdict (a kernel is only meaningful for nonnegative offsets and
    extents); it keeps counterexamples in the values a kernel can see."""
    names: dict[str, E.Term] = {}
    for symbols in symbol_sets:
        names.update(symbols.free)
    return [E.le(E.ZERO, t) for _, t in sorted(names.items())]


def _free_witnesses(*symbol_sets: E.Symbols) -> list[tuple[str, E.Term]]:
    names: dict[str, E.Term] = {}
    for symbols in symbol_sets:
        names.update(symbols.free)
    return [(f"sym.{name}", t) for name, t in sorted(names.items())]


def _approximations(*sides: Side) -> tuple[str, ...]:
    out: list[str] = []
    for side in sides:
        for a in (*side.chain.symbols.approximations, *side.chain.approximations):
            if a not in out:
                out.append(a)
    return tuple(out)


def _assignments(pairs: list[tuple[str, int]]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in pairs)


def _symbol_values(values: dict[str, int | bool], sides: tuple[Side, ...]) -> list[tuple[str, int]]:
    """The free symbols a counterexample depends on (those the sites mention), as name = value."""
    out = []
    seen: set[str] = set()
    for side in sides:
        for name in sorted(side.chain.symbols.free):
            value = values.get(f"sym.{name}")
            if name not in seen and isinstance(value, int) and not isinstance(value, bool):
                seen.add(name)
                out.append((name, value))
    return out


def _counterexample(where: list[tuple[str, int]], symbols: list[tuple[str, int]], **extra: int | str) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    for name, value in (*where, *symbols):
        out.setdefault(name, value)
    out.update(extra)
    return out


def _at_text(where: list[tuple[str, int]], symbols: list[tuple[str, int]]) -> str:
    shown = list(where)
    names = {n for n, _ in where}
    shown += [(n, v) for n, v in symbols if n not in names]
    return f"at {_assignments(shown)}" if shown else "on the straight-line step"


def _reset_text(step: E.StepTemplate) -> str:
    """How the user wrote the choice between initialising and accumulating at this MAD."""
    mad = step.mad
    if mad.kind == "acc" and mad.init_cond is not None:
        return f"init_cond ({S.expr_text(mad.init_cond)})"
    if step.guards:
        branch, arm = step.guards[-1]
        if arm:
            return f"the `if {S.expr_text(branch.cond)}`"
        return f"`{_op_name(mad.op)}` in the else arm of `if {S.expr_text(branch.cond)}`"
    return f"`{_op_name(mad.op)}`"


def _op_name(op: str) -> str:
    return op.split(".", 1)[-1]


def _behaviour(reset: bool, bias: bool = False) -> str:
    if bias:
        return "initialises with the bias"
    return "initialises" if reset else "accumulates"


def _base(site: S.AccSite, *sides: Side) -> list[E.Term]:
    out: list[E.Term] = []
    for side in sides:
        out += side.chain.assumptions
    return out


def _data_dependence(side: Side, what: str, exprs: tuple[Expr | None, ...]) -> tuple[str, ...]:
    """A condition when *exprs* (the conditions or offsets an intent obligation is about) depend on values
    read at run time: a model then picks values the kernel may never see, so it refutes nothing (the
    obligation is conditional on them, `Verdict.CONDITIONAL`)."""
    names = S.runtime_inputs(side.site.scalars, exprs)
    if not names:
        return ()
    listed = ", ".join(f"`{n}`" for n in names)
    return (f"{what} depend on {listed}, read at run time",)


def _inapplicable(rule: Rule, site: S.AccSite, reason: str) -> Obligation:
    """An obligation that cannot be posed: it is reported inconclusive with *reason* (never passed)."""
    def explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        return reason, {}, None
    return Obligation(rule, site.id, "", (), E.TRUE, (), (), site.span, explain, "", site.function, unposed=reason)


# ---------------------------------------------------------------------------------------------- PV101


def predication_is_phi(lowered: S.AccSite, source: S.AccSite) -> Obligation:
    """PV101: on every step both chains run, the lowered MAD initialises exactly where the source's
    MAD (its `if` arm, its `init_cond`) initialises."""
    low, src = _side(lowered, "l"), _side(source, "s")
    sym_l, sym_s = low.chain.symbols, src.chain.symbols
    if not (low.ok and src.ok):
        return _inapplicable(rules.PREDICATION_IS_PHI, lowered, low.chain.unsupported or src.chain.unsupported)
    assumptions = [*_base(lowered, low, src), E.le(E.ZERO, N), E.lt(N, low.chain.total), E.lt(N, src.chain.total)]
    violation = E.ne(low.chain.reset_at(), src.chain.reset_at())
    witnesses = [("n", N), *low.witnesses(), *src.witnesses()]
    witnesses.append(("l.reset", low.chain.reset_at()))
    assumptions += _free_assumptions(sym_l, sym_s)
    witnesses += _free_witnesses(sym_l, sym_s)

    def explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        where, src_step = src.where(values)
        low_where, low_step = low.where(values)
        symbols = _symbol_values(values, (src, low))
        lowered_resets = bool(values.get("l.reset"))
        line = f" (line {low_step.mad.span.line})" if low_step is not None else ""
        cond = _reset_text(src_step) if src_step is not None else "the source"
        message = (f"{_at_text(where or low_where, symbols)} the lowered MAD{line} {_behaviour(lowered_resets)} where "
                   f"{cond} {'accumulates' if lowered_resets else 'initialises'}")
        cx = _counterexample(where or low_where, symbols, lowered=_behaviour(lowered_resets),
                             source=_behaviour(not lowered_resets))
        return message, cx, low_step.mad.span if low_step is not None else None

    return Obligation(rules.PREDICATION_IS_PHI, lowered.id, "", tuple(assumptions), violation, tuple(witnesses),
                      _approximations(low, src), lowered.span, explain,
                      "the lowered predicate initialises exactly where the source does", lowered.function)


# ---------------------------------------------------------------------------------------------- PV102


def initialise_first(lowered: S.AccSite, source: S.AccSite | None = None) -> Obligation:
    """PV102: the first step of the chain, and the first after each create, initialises it."""
    low = _side(lowered, "l")
    src = _side(source, "s") if source is not None else None
    if not low.ok:
        return _inapplicable(rules.INITIALISE_FIRST, lowered, low.chain.unsupported)
    paired = src if src is not None and src.ok else None
    sides = (low,) if paired is None else (low, paired)
    undefined = E.or_(low.chain.create_at(), E.eq(N, E.ZERO) if lowered.initial == "undefined" else E.FALSE)
    assumptions = [*_base(lowered, *sides), E.le(E.ZERO, N), E.lt(N, low.chain.total)]
    violation = E.and_(E.not_(low.chain.reset_at()), undefined)
    witnesses = [("n", N), ("created", low.chain.create_at())]
    if paired is not None:
        witnesses.append(("s.reset", paired.chain.reset_at()))
    for side in sides:
        witnesses += side.witnesses()
    symbol_sets = [side.chain.symbols for side in sides]
    assumptions += _free_assumptions(*symbol_sets)
    witnesses += _free_witnesses(*symbol_sets)

    def explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        low_where, low_step = low.where(values)
        where, src_step = (paired.where(values) if paired is not None else ([], None))
        # the user's predicate when the source accumulates there too (their kernel is wrong), else the
        # lowered one (the lowering is)
        shown_step = src_step if src_step is not None and not values.get("s.reset") else low_step
        symbols = _symbol_values(values, sides)
        at = _at_text(where or low_where, symbols)
        created = bool(values.get("created")) and values.get("n", 0) != 0
        moment = "after the accumulator is created again" if created else "on the first iteration"
        if shown_step is None:
            message = f"{at} the MAD accumulates into an uninitialised L0C window"
        elif shown_step.mad.kind == "acc" and shown_step.mad.init_cond is not None:
            message = (f"{_reset_text(shown_step)} does not initialise the accumulator {moment}: {at} the MAD "
                       "accumulates into an uninitialised L0C window")
        else:
            line = shown_step.mad.span.line
            message = (f"the first MAD executed on `{lowered.name}` {moment} accumulates: {at} line {line} runs "
                       f"`{_op_name(shown_step.mad.op)}` into an uninitialised L0C window")
        cx = _counterexample(where or low_where, symbols, lowered="accumulates", expected="initialises")
        return message, cx, low_step.mad.span if low_step is not None else None

    return Obligation(rules.INITIALISE_FIRST, lowered.id, "", tuple(assumptions), violation, tuple(witnesses),
                      _approximations(*sides), lowered.span, explain,
                      "the first MAD (and the first after each create) initialises the accumulator",
                      lowered.function)


# ---------------------------------------------------------------------------------------------- PV103


def no_lost_partial_sums(lowered: S.AccSite, source: S.AccSite | None = None) -> tuple[Obligation, ...]:
    """PV103: no step initialises while the previous step's value was never drained (`reset`), and the
    chain's last value is drained (`end`) — in the lowering and so in the source alike: a source that
    resets undrained partial sums is a kernel bug, not an excuse (L0C_RULES.md). With a source, the
    message names the source's condition when it resets there too."""
    low = _side(lowered, "l")
    src = _side(source, "s") if source is not None and _side(source, "s").ok else None
    rule = rules.NO_LOST_PARTIAL_SUMS
    if not low.ok:
        return (_inapplicable(rule, lowered, low.chain.unsupported),)
    sides = (low,) if src is None else (low, src)
    symbol_sets = [side.chain.symbols for side in sides]
    base = [*_base(lowered, *sides), *_free_assumptions(*symbol_sets)]
    witnesses = [("n", N)]
    for side in sides:
        witnesses += side.witnesses()
    if src is not None:
        witnesses.append(("s.reset", E.and_(E.lt(N, src.chain.total), src.chain.reset_at())))
    witnesses += _free_witnesses(*symbol_sets)

    def reset_explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        low_where, low_step = low.where(values)
        src_resets = src is not None and bool(values.get("s.reset"))
        where, src_step = (src.where(values) if src is not None else ([], None))
        symbols = _symbol_values(values, sides)
        at = _at_text(where or low_where, symbols)
        shown = src_step if src_resets and src_step is not None else low_step
        line = f" (line {shown.mad.span.line})" if shown is not None else ""
        how = f" by {_reset_text(shown)}" if shown is not None else ""
        whose = "the kernel's" if src_resets else "the lowered"
        message = (f"{at} {whose} MAD{line} re-initialises `{lowered.name}`{how} and discards the partial sums "
                   "accumulated since its last initialisation, which were never drained")
        cx = _counterexample(where or low_where, symbols, lowered="initialises", drained="no",
                             **({"source": "initialises" if src_resets else "accumulates"} if src is not None else {}))
        return message, cx, shown.mad.span if shown is not None else None

    def end_explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        symbols = _symbol_values(values, sides)
        at = f"with {_assignments(symbols)} " if symbols else ""
        message = (f"{at}the partial sums of `{lowered.name}` after its last MAD are never drained: no store, "
                   "assemble or move reads the accumulator after the reduction")
        return message, _counterexample([], symbols, drained="no"), None

    conditions = tuple(c for side in sides for step in side.chain.steps
                       for c in (step.mad.init_cond, *(b.cond for b, _ in step.guards)))
    reset = Obligation(rule, lowered.id, "reset", (*base, E.le(E.ONE, N), E.lt(N, low.chain.total)),
                       E.and_(low.chain.reset_at(), E.not_(low.chain.drain_at())), tuple(witnesses),
                       _approximations(*sides), lowered.span, reset_explain,
                       "every re-initialisation follows a drain", lowered.function,
                       conditions=_data_dependence(low, "the conditions that re-initialise it", conditions))
    # a drain in a MAD-free loop after the reduction happens in any iteration of it: one in its domain
    # is chosen (the loop's items all lie at one step position)
    some_iteration = [E.or_(E.and_(E.le(E.ZERO, i), E.lt(i, trips)), E.le(trips, E.ZERO))
                      for i, trips in low.chain.unknown_iterations]
    end = Obligation(rule, lowered.id, "end", (*base, *some_iteration, E.eq(N, low.chain.total), E.le(E.ONE, N)),
                     E.not_(low.chain.drain_at()), (("n", N), *_free_witnesses(*symbol_sets)),
                     _approximations(*sides), lowered.span, end_explain,
                     "the last partial sums are drained", lowered.function)
    return reset, end


# ---------------------------------------------------------------------------------------------- PV106


def _closed(term: E.Term) -> bool:
    """*term* is a function of the step index alone: no free symbol, no runtime read."""
    stack, seen = [term], set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.head == "app" or (t.head == "const" and not str(t.value).startswith(E.MARK)):
            return False
        stack.extend(t.args)
    return True


def _tracked(side: Side) -> tuple[str, ...]:
    """The operands (`lhs`, `rhs`) whose K block every step of *side* reads from a root of known shape."""
    steps = side.chain.steps
    if not steps:
        return ()
    tracked = [o for o in ("lhs", "rhs") if all(any(b.operand == o for b in s.k_blocks) for s in steps)]
    # an operand computed in the K loop (`pl.cast(x[:, k0 : k0 + K])`) is a block of one tensor only if
    # every step reads one instance of it: with an operand read from a tensor there is nothing to ask
    plain = [o for o in tracked if not any(_block_of(s, o).computed for s in steps)]
    return tuple(plain or tracked)


def _computed(side: Side, operands: tuple[str, ...]) -> tuple[str, ...]:
    """The *operands* some step of *side* reads from an op computed in the K loop (`KBlock.computed`)."""
    return tuple(o for o in operands if any(_block_of(s, o).computed for s in side.chain.steps))


def _computed_reason(lowered: S.AccSite, side: Side, operands: tuple[str, ...]) -> str:
    """Why the coverage of *operands*, computed in the K loop, is not decided when two steps of one
    reduction read different instances of the op."""
    roots = sorted({_block_of(s, o).root for s in side.chain.steps for o in operands})
    listed = ", ".join(f"`{r}`" for r in roots)
    return (f"the operands of `{lowered.name}`'s MADs are computed in the kernel inside the K loop ({listed}), one "
            "result per K block: a block of such a result is a block of its operand only for an elementwise op "
            "(not for a reduction or an op that changes the shape), and which ops are elementwise is not "
            "modelled, so which K blocks the reduction covers is not known")


def _block_of(step: E.StepTemplate, operand: str) -> E.KBlock:
    return next(b for b in step.k_blocks if b.operand == operand)


def _block_term(side: Side, operand: str, part: Callable[[E.KBlock], E.Term]) -> E.Term:
    """*part* of *operand*'s K block at the step running at `n`."""
    return _select(side, lambda step: part(_block_of(step, operand)))


def _plane_offset(d: int) -> Callable[[E.KBlock], E.Term]:
    """The block's offset in the d-th of its root's other dimensions (0 past its rank)."""
    return lambda block: block.plane[d] if d < len(block.plane) else E.ZERO


def _instance_arg(i: int) -> Callable[[E.KBlock], E.Term]:
    """The i-th argument of the instance of the computed root a block is of (0 past its arity)."""
    return lambda block: block.instance[i] if i < len(block.instance) else E.ZERO


def _select(side: Side, value: Callable[[E.StepTemplate], E.Term]) -> E.Term:
    """The term *value* gives for the step template running at `n` (0 when none runs)."""
    out = E.ZERO
    for s in reversed(side.chain.steps):
        out = E.ite(s.at, value(s), out)
    return out


def _untraced_reason(lowered: S.AccSite, *steps: E.StepTemplate, only: tuple[str, ...] = ("lhs", "rhs", "bias")) -> str:
    """Why the blocks a MAD of *steps* reads in its *only* operands are not known: the first such MAD in
    source order, its operand, and why that operand is not traced ("" when every one is traced)."""
    words = {"lhs": "left operand", "rhs": "right operand", "bias": "bias"}
    for step in steps:  # the source's steps first, in program order: their words are the user's
        for operand, why in step.untraced:
            if operand in only:
                return (f"the {words[operand]} of the MAD at line {step.mad.span.line} (`{lowered.name}`) is not traced "
                        f"to a GM tensor or buffer: {why}; which blocks it reads is not known")
        if step.approximate and only == ("lhs", "rhs", "bias"):
            return (f"the operands of the MAD at line {step.mad.span.line} (`{lowered.name}`) are not traced to a GM "
                    "tensor or buffer; which blocks they read is not known")
    return ""


def _untraced_coverage(rule: Rule, lowered: S.AccSite, side: Side, reason: str = "") -> Obligation:
    """Coverage of a chain some of whose operands are not traced to a root (*reason* says which and why).
    What holds without their blocks: when no step continues a segment (every MAD initialises, no L0 block
    of one source MAD follows another), each output tile is one product, whose K block is the MAD's own
    operand block: there is no sequence of blocks to skip or repeat in. A step that accumulates adds a
    block of the untraced operand whose position is not known, so any model is inconclusive (an
    approximation), never a refutation, and the obligation is proved only when no such step exists."""
    reason = reason or (f"the operands of `{lowered.name}`'s MADs are computed in the kernel by ops whose K blocks "
                        "are not modelled")
    chain = side.chain

    def explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        return reason, {}, None

    return Obligation(rule, lowered.id, "untraced",
                      (*_base(lowered, side), *_free_assumptions(side.chain.symbols), E.le(E.ONE, N),
                       E.lt(N, chain.total)),
                      E.not_(E.or_(chain.reset_at(), chain.create_at(), *(  # an L0 block of one source MAD
                          E.and_(s.at, E.le(E.ONE, s.sub_block)) for s in chain.steps if s.sub_block is not None))),
                      (("n", N),), (reason,), lowered.span,
                      explain, "every MAD initialises: each output tile is one product", lowered.function)


def reduction_coverage(lowered: S.AccSite, source: S.AccSite | None = None) -> tuple[Obligation, ...]:
    """PV106: the K blocks accumulated between a chain's initialisation and its end cover the reduction
    once. Posed on the chain the user wrote (the source site; the lowered one for Form 3 input): PV105
    proves the lowering accumulates the same blocks in the same order.

    Segments: a run of steps with no re-initialisation, create, or change of operand tensors between
    them (a chain may add products of several tensor pairs, `x @ w + h @ b`: each is a segment).
    - `adjacent`: inside a segment each step reads, in both operands, the K block right after the one
      the step before read: no block twice, none skipped, and the operands advance together.
    - `remainder`: where a K loop's range is a function of the step index alone (constant bounds), its
      segment does not stop short of the operand's K extent by less than one block: a K remainder that
      no block reaches. A loop that deliberately covers a sub-range (the tail of a concatenated input,
      one head of a packed tensor, a split-K slice) is not a defect, so only a partial block is.
    Reading past the extent is PV107's (in-bounds)."""
    rule = rules.REDUCTION_COVERAGE
    side = _side(source, "s") if source is not None else _side(lowered, "l")
    if not side.ok:
        return (_inapplicable(rule, lowered, side.chain.unsupported),)
    operands = _tracked(side)
    if not side.chain.steps:
        return ()
    if not operands:
        return (_untraced_coverage(rule, lowered, side),)
    # an operand not checked below (no K block on some step, or computed in the K loop beside one read
    # from a tensor): the checks below are about the operands they read only, so a reduction that skips or
    # repeats a block of the other is caught only by `untraced`, proved when every MAD initialises
    unchecked = tuple(o for o in ("lhs", "rhs") if o not in operands)
    untraced: tuple[Obligation, ...] = ()
    if unchecked:
        computed_off = _computed(side, tuple(o for o in unchecked if all(
            any(b.operand == o for b in s.k_blocks) for s in side.chain.steps)))
        why = _untraced_reason(lowered, *side.chain.steps, only=unchecked) or (
            _computed_reason(lowered, side, computed_off) if computed_off else
            f"the {' and '.join(unchecked)} operand of `{lowered.name}`'s MADs is not read from a root whose K axis "
            "the model knows on every step; which K blocks it reads is not known")
        untraced = (_untraced_coverage(rule, lowered, side, why),)
    computed = _computed(side, operands)
    chain = side.chain
    at_prev = E.substituter({N: E.sub(N, E.ONE)})  # one memo: the terms below share most of their subterms
    nxt = {N: E.add(N, E.ONE)}
    roots = {o: sorted({_block_of(s, o).root for s in chain.steps}) for o in operands}
    offset = {o: _block_term(side, o, lambda b: b.offset) for o in operands}
    width = {o: _block_term(side, o, lambda b: b.width) for o in operands}
    extent = {o: _block_term(side, o, lambda b: E.lit(b.extent if b.extent is not None else 0)) for o in operands}
    # the instance of a computed operand each step reads, one term per position of the op's arguments
    arity = {o: max(len(_block_of(s, o).instance) for s in chain.steps) for o in computed}
    instance = {o: [_block_term(side, o, _instance_arg(i)) for i in range(arity[o])] for o in computed}
    other_instance = E.or_(*(E.ne(t, at_prev(t)) for o in computed for t in instance[o]))
    root_id = {o: _block_term(side, o, lambda b: E.lit(roots[b.operand].index(b.root))) for o in operands}
    planes = {o: max(len(_block_of(s, o).plane) for s in chain.steps) for o in operands}
    plane = {o: [_block_term(side, o, _plane_offset(d)) for d in range(planes[o])] for o in operands}
    axis = {o: _block_term(side, o, lambda b: E.lit(b.dim)) for o in operands}
    # a new segment starts at step n (n >= 1): a reset, a create, other operand tensors
    boundary = E.or_(chain.reset_at(), chain.create_at(),
                     *(E.ne(root_id[o], at_prev(root_id[o])) for o in operands))
    # a step on another plane of a blocked layout (`w[kb, :, :]`) is no neighbour along K; but no step of
    # one output tile's reduction moves an operand along its output axis (M of the left, N of the right)
    same_plane = {o: E.and_(*(E.eq(p, at_prev(p)) for p in plane[o])) for o in operands}
    turned = {o: E.ne(axis[o], at_prev(axis[o])) for o in operands}
    output = {o: _block_term(side, o, lambda b: b.out_offset if b.out_offset is not None else E.ZERO)
              for o in operands}
    shifted = {o: E.ne(output[o], at_prev(output[o])) for o in operands}
    symbol_sets = [side.chain.symbols]
    base = [*_base(lowered, side), *_free_assumptions(*symbol_sets)]
    out: list[Obligation] = []
    approximations = _approximations(side)
    conditions = _data_dependence(side, "the K offsets", tuple(
        x for s in chain.steps for operand in (s.mad.lhs, s.mad.rhs) if operand is not None
        for x in (*operand.offsets, *operand.root_args)))
    witnesses = [("n", N), *side.witnesses(), *_free_witnesses(*symbol_sets)]
    for o in operands:
        witnesses += [(f"{o}.off", offset[o]), (f"{o}.width", width[o]), (f"{o}.extent", extent[o]),
                      (f"{o}.prev_end", at_prev(E.add(offset[o], width[o]))),
                      (f"{o}.root", root_id[o]), (f"{o}.turned", turned[o]), (f"{o}.same_plane", same_plane[o]),
                      (f"{o}.shifted", shifted[o])]

    def operand_text(values: dict[str, int | bool], o: str) -> tuple[str, int, int, int, int]:
        root = roots[o][int(values.get(f"{o}.root", 0)) % len(roots[o])]
        off, w = int(values.get(f"{o}.off", 0)), int(values.get(f"{o}.width", 0))
        return root, off, off + w, int(values.get(f"{o}.extent", 0)), int(values.get(f"{o}.prev_end", 0))

    def adjacent_explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        where, step = side.where(values)
        at = _at_text(where, _symbol_values(values, (side,)))
        line = f" (line {step.mad.span.line})" if step is not None else ""
        parts: list[str] = []
        cx_extra: dict[str, int | str] = {}
        for o in operands:
            root, lo, hi, _, before = operand_text(values, o)
            if values.get(f"{o}.turned"):
                parts.append(f"its {o} reads `{root}` along another axis than the step before (a transpose "
                             "lost or added): that axis is not the reduction's")
                cx_extra[f"{o}_axis"] = "changed"
                continue
            if values.get(f"{o}.shifted"):
                axis_name = "M" if o == "lhs" else "N"
                parts.append(f"its {o} moves along its output axis {axis_name} in `{root}` within one reduction: "
                             "products of different output tiles are added into one accumulator")
                cx_extra[f"{o}_output_axis"] = "moved"
                continue
            if not values.get(f"{o}.same_plane", True):
                continue
            if lo == before:
                continue
            what = (f"K [{before}, {lo}) of `{root}` is never accumulated" if lo > before
                    else f"K [{lo}, {min(before, hi)}) of `{root}` is accumulated twice")
            parts.append(f"its {o} reads K block [{lo}, {hi}) of `{root}` where the step before ended at "
                         f"{before}: {what}")
            cx_extra[f"{o}_block"] = f"[{lo}, {hi})"
            cx_extra[f"{o}_previous_end"] = before
        message = f"{at} the MAD{line} on `{lowered.name}`: " + ("; ".join(parts) or "reads a K block out of order")
        cx = _counterexample(where, _symbol_values(values, (side,)), **cx_extra)
        return message, cx, step.mad.span if step is not None else None

    adjacent = E.or_(*(E.or_(turned[o], shifted[o],
                             E.and_(same_plane[o], E.ne(offset[o], at_prev(E.add(offset[o], width[o])))))
                       for o in operands))
    # steps that read two instances of a computed operand are the `instances` query's (below)
    out.append(Obligation(rule, lowered.id, "adjacent", (*base, E.le(E.ONE, N), E.lt(N, chain.total),
                                                         E.not_(boundary), E.not_(other_instance)),
                          adjacent, tuple(witnesses), approximations, lowered.span, adjacent_explain,
                          "consecutive MADs read adjacent K blocks of both operands", lowered.function,
                          conditions=conditions))
    if computed:
        reason = _computed_reason(lowered, side, computed)

        def instance_explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
            return reason, {}, None

        # a model proves nothing (an elementwise op's blocks might still cover K): inconclusive, its reason
        out.append(Obligation(rule, lowered.id, "instances", (*base, E.le(E.ONE, N), E.lt(N, chain.total),
                                                              E.not_(boundary)),
                              other_instance, (("n", N),), (*approximations, reason), lowered.span,
                              instance_explain, "every MAD of a reduction reads one result of the ops computing "
                              "its operands", lowered.function))

    closed = [s for s in chain.steps if all(_closed(_block_of(s, o).offset) and _block_of(s, o).extent is not None
                                            and not _block_of(s, o).computed for o in operands)]
    if closed and _closed(chain.total):
        def remainder_explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
            where, step = side.where(values)
            at = _at_text(where, _symbol_values(values, (side,)))
            parts: list[str] = []
            cx_extra: dict[str, int | str] = {}
            for o in operands:
                root, lo, hi, ext, _ = operand_text(values, o)
                if hi < ext:
                    parts.append(f"K [{hi}, {ext}) of `{root}` (K extent {ext}) is never accumulated")
                    cx_extra[f"{o}_missing"] = f"[{hi}, {ext})"
            line = f" (line {step.mad.span.line})" if step is not None else ""
            message = (f"{at} the last MAD{line} of `{lowered.name}`'s reduction ends short of the K extent by less "
                       "than one block: " + "; ".join(parts))
            return message, _counterexample(where, _symbol_values(values, (side,)), **cx_extra), \
                step.mad.span if step is not None else None

        last = E.and_(E.le(E.ONE, N), E.not_(boundary),  # the last step of a segment of two steps or more
                      E.or_(E.eq(N, E.sub(chain.total, E.ONE)), E.substitute(boundary, nxt)))
        short = E.or_(*(E.and_(E.lt(E.add(offset[o], width[o]), extent[o]),
                               E.lt(E.sub(extent[o], E.add(offset[o], width[o])), width[o])) for o in operands))
        out.append(Obligation(rule, lowered.id, "remainder",
                              (*base, E.lt(N, chain.total), last, E.or_(*(s.at for s in closed))),
                              short, tuple(witnesses), approximations, lowered.span, remainder_explain,
                              "no reduction stops short of its operands' K extent by a partial block",
                              lowered.function, conditions=conditions))
    return (*out, *untraced)


# ---------------------------------------------------------------------------------------------- PV104


def bias_once(lowered: S.AccSite) -> Obligation:
    """PV104: a biased chain adds the bias on the first step of each output tile and on no other."""
    low = _side(lowered, "l")
    sym_l = low.chain.symbols
    if not low.ok:
        return _inapplicable(rules.BIAS_ONCE, lowered, low.chain.unsupported)
    first = E.or_(E.eq(N, E.ZERO), low.chain.drain_at(), low.chain.create_at())
    assumptions = [*_base(lowered, low), E.le(E.ZERO, N), E.lt(N, low.chain.total)]
    violation = E.ne(low.chain.bias_at(), first)
    witnesses = [("n", N), ("first", first), ("bias", low.chain.bias_at()), *low.witnesses()]
    assumptions += _free_assumptions(sym_l)
    witnesses += _free_witnesses(sym_l)

    def explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        where, step = low.where(values)
        symbols = _symbol_values(values, (low,))
        at = _at_text(where, symbols)
        if values.get("bias"):
            message = f"{at} the bias is added again in an output tile that already has it"
        else:
            message = f"{at} an output tile of `{lowered.name}` starts without adding the bias"
        cx = _counterexample(where, symbols, bias="added" if values.get("bias") else "missing",
                             first_step_of_tile="yes" if values.get("first") else "no")
        return message, cx, step.mad.span if step is not None else None

    return Obligation(rules.BIAS_ONCE, lowered.id, "", tuple(assumptions), violation, tuple(witnesses),
                      _approximations(low), lowered.span, explain,
                      "the bias is added exactly once per output tile, on its first step", lowered.function)


# ---------------------------------------------------------------------------------------------- PV105


def reduction_equivalence(lowered: S.AccSite, source: S.AccSite) -> tuple[Obligation, ...]:
    """PV105: the lowered chain computes the source chain's sequence of steps (module docstring):
    equal step counts, equal value after the first step, the induction step, equal drain positions."""
    low, src = _side(lowered, "l"), _side(source, "s")
    sym_l, sym_s = low.chain.symbols, src.chain.symbols
    rule = rules.REDUCTION_EQUIVALENCE
    if not (low.ok and src.ok):
        return (_inapplicable(rule, lowered, low.chain.unsupported or src.chain.unsupported),)
    base = [*_base(lowered, low, src), *_free_assumptions(sym_l, sym_s)]
    symbols = _free_witnesses(sym_l, sym_s)
    approximations = _approximations(low, src)
    # An untraced operand's block is `mm?(n)` / `bias?(n)`, a term of the step index alone: equal on both
    # sides at one n whatever blocks the two steps read, so an unsat would rest on the lowered step n
    # reading the source step n's blocks, which nothing shows; and unequal to a traced block only because
    # the encoding cannot name it, so a model is no refutation either. The value cases are then not posed:
    # inconclusive, with the operand named. The count and drain cases read no operand: posed as always.
    untraced = _untraced_reason(lowered, *src.chain.steps, *low.chain.steps)
    out: list[Obligation] = []
    if untraced:
        out.append(replace(_inapplicable(rule, lowered, untraced), case="value"))

    def count_explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        sv = _symbol_values(values, (src, low))
        n_l, n_s = values.get("l.N"), values.get("s.N")
        where = f"with {_assignments(sv)} " if sv else ""
        message = f"{where}the lowered chain runs {n_l} MADs where the source runs {n_s}"
        return message, _counterexample([], sv, lowered_steps=int(n_l or 0), source_steps=int(n_s or 0)), None

    out.append(Obligation(rule, lowered.id, "count", tuple(base), E.ne(low.chain.total, src.chain.total),
                          (("l.N", low.chain.total), ("s.N", src.chain.total), *symbols), approximations,
                          lowered.span, count_explain, "both chains run the same number of steps",
                          lowered.function))

    def value_explain(case: str) -> Explain:
        def explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
            where, src_step = src.where(values)
            low_where, low_step = low.where(values)
            sv = _symbol_values(values, (src, low))
            at = _at_text(where or low_where, sv)
            line = f" (line {low_step.mad.span.line})" if low_step is not None else ""
            first = " from the same initial value" if case == "first" else " from the same partial sum"
            message = f"{at} the lowered MAD{line} computes a different accumulate step than the source{first}"
            cx = _counterexample(where or low_where, sv, step=int(values.get("n", 0)))
            return message, cx, low_step.mad.span if low_step is not None else None
        return explain

    initial = UNDEF if lowered.initial == "undefined" and source.initial == "undefined" else INIT
    for case, prev, domain in (("first", initial, [E.eq(N, E.ZERO)]), ("step", PREV, [E.le(E.ONE, N)])) * (not untraced):
        before_l = E.ite(low.chain.create_at(), UNDEF, prev)
        before_s = E.ite(src.chain.create_at(), UNDEF, prev)
        assumptions = [*base, *domain, E.lt(N, low.chain.total), E.lt(N, src.chain.total)]
        violation = E.ne(low.chain.value_at(before_l), src.chain.value_at(before_s))
        witnesses = (("n", N), *low.witnesses(), *src.witnesses(), *symbols)
        proved = ("the first step computes the same value" if case == "first"
                  else "each step computes the same value from the same partial sum")
        out.append(Obligation(rule, lowered.id, case, tuple(assumptions), violation, witnesses, approximations,
                              lowered.span, value_explain(case), proved, lowered.function))

    def drain_explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        sv = _symbol_values(values, (src, low))
        n = int(values.get("n", 0))
        lowered_drains = bool(values.get("l.drain"))
        who, other = ("lowered", "source") if lowered_drains else ("source", "lowered")
        message = (f"{'with ' + _assignments(sv) + ' ' if sv else ''}the {who} chain drains `{lowered.name}` after "
                   f"{n} MADs where the {other} does not")
        return message, _counterexample([], sv, after_steps=n, drained_by=who), None

    assumptions = [*base, E.le(E.ZERO, N), E.le(N, low.chain.total), E.le(N, src.chain.total)]
    out.append(Obligation(rule, lowered.id, "drains", tuple(assumptions),
                          E.ne(low.chain.drain_at(), src.chain.drain_at()),
                          (("n", N), ("l.drain", low.chain.drain_at()), *symbols), approximations, lowered.span,
                          drain_explain, "both chains drain at the same steps", lowered.function))
    return tuple(out)


# ---------------------------------------------------------------------------------------------- all


RULE_ORDER = (rules.PREDICATION_IS_PHI, rules.INITIALISE_FIRST, rules.NO_LOST_PARTIAL_SUMS, rules.BIAS_ONCE,
              rules.REDUCTION_EQUIVALENCE, rules.REDUCTION_COVERAGE)


def site_obligations(lowered: S.AccSite, source: S.AccSite | None, *, has_source: bool) -> list[Obligation]:
    """Every obligation of one site. With a source module (*has_source*) but no matched source site,
    PV101 and PV105 are posed as inconclusive (their spec is missing), never skipped."""
    try:
        return _site_obligations(lowered, source, has_source)
    finally:
        _SIDES.clear()


def _site_obligations(lowered: S.AccSite, source: S.AccSite | None, has_source: bool) -> list[Obligation]:
    out: list[Obligation] = []
    if source is not None:
        out.append(predication_is_phi(lowered, source))
    elif has_source:
        out.append(_inapplicable(rules.PREDICATION_IS_PHI, lowered, "no source chain shares a MAD span with it"))
    out.append(initialise_first(lowered, source))
    out.extend(no_lost_partial_sums(lowered, source))
    if lowered.biased or (source is not None and source.biased):
        out.append(bias_once(lowered))
    if source is not None:
        out.extend(reduction_equivalence(lowered, source))
    elif has_source:
        out.append(_inapplicable(rules.REDUCTION_EQUIVALENCE, lowered, "no source chain shares a MAD span with it"))
    out.extend(reduction_coverage(lowered, source))
    return out
