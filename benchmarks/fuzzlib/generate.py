"""Random K reductions, correct and defective, whose oracle is the plain matmul of their inputs.

Two generators, both seeded by a `random.Random`:

- `tile_program` (Form 2, tile level, no MemRefs: the tool lowers it with its own pipeline). One K loop
  (`pl.range`, `pl.pipeline(stage=F)`, `pl.unroll`, by block index or by element offset, random block size and
  trip count), or a peeled seed before a loop from block 1, or a fully unrolled straight chain; one to three
  accumulators in the loop (one `lhs`, one `rhs` and one output each), seeded by an if-phi
  (`if kb == 0: matmul / else: matmul_acc`, with the arms' `yield_`) or by `init_cond`; the seed test is drawn among
  meaning-preserving spellings (`kb == 0`, `kb < 1`, `0 == kb`, `kb <= 0`).
- `lowered_program` (Form 3, checked as given): the shape the compiler prints after MemoryReuse — whole operands
  loaded into Mat, an explicit loop of step `F * block` whose body is F clones (extract to Left / Right, one
  predicated `matmul_acc` or an if-phi per accumulator, the carry threaded clone to clone), literal tail clones for
  the remainder, then the stores. Every value carries a window chosen at random: Left / Right windows distinct,
  shared by every clone, or drawn from a small pool; accumulators on their own window, sharing one, or
  overlapping by half; and the clones' statements in order or with every extract hoisted before the MADs.

Each program is correct as drawn, then with probability `defect_rate` gets one planted change (its name is
recorded, but only the oracle decides whether the result is wrong): loop start / stop / step off by a block,
a seed predicate that resets too often or never, arms swapped, no seed, one accumulator accumulating into
another's chain, the lhs window off by a block, a store dropped or shifted, (Form 3) one value of a chain put
on another window, a clone's predicate copied from the first clone, a missing tail.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from pypto_verify.ir import DType, MemSpace
from pypto_verify.target import TARGETS

from .judge import MatmulOutput

PL_DTYPE = {DType.FP32: "pl.FP32", DType.BF16: "pl.BF16", DType.INT8: "pl.INT8", DType.INT32: "pl.INT32"}

SEED_SPELLINGS = ("{v} == {z}", "{v} < {z} + {b}", "{z} == {v}", "{v} <= {z}")
"""Meaning-preserving spellings of "the first block" ({v} the loop variable, {z} its start, {b} its step)."""

FORM2_DEFECTS = ("start_late", "start_early", "stop_short", "stop_long", "step_double", "pred_mod2", "pred_ge",
                 "pred_one", "pred_true", "pred_false", "arm_swap", "no_seed", "cross_acc", "lhs_shift",
                 "no_store", "store_shift")
FORM3_DEFECTS = ("start_late", "stop_short", "stop_long", "pred_clone", "pred_ge", "pred_one", "no_seed",
                 "divergent_value", "no_tail", "no_store", "cross_acc")


@dataclass
class Generated:
    """A generated program: its text, the function to judge, its matmul oracle and what was drawn."""

    text: str
    function: str
    oracle: tuple[MatmulOutput, ...]
    meta: dict = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return f"{self.meta['form']}:{self.meta['defect'] or 'none'}"


def coverage(blocks: list[int], trips: int) -> str:
    """How the K blocks a program accumulates (in order) cover the `trips` blocks of K: `full`, `subrange` (a
    contiguous run of whole blocks, each once), `gapped`, `repeated`, `beyond` (a block outside K), `empty`."""
    if any(b < 0 or b >= trips for b in blocks):
        return "beyond"
    if len(set(blocks)) < len(blocks):
        return "repeated"
    if sorted(blocks) == list(range(trips)):
        return "full"
    if not blocks:
        return "empty"
    if sorted(blocks) == list(range(min(blocks), max(blocks) + 1)):
        return "subrange"
    return "gapped"


def _acc_dtype(dtype: DType) -> DType:
    return DType.INT32 if dtype is DType.INT8 else DType.FP32


# ---------------------------------------------------------------------------------------------- Form 2


def tile_program(rng: random.Random, defect_rate: float = 0.5) -> Generated:
    """A random tile-level (Form 2) K reduction (module docstring)."""
    dtype = rng.choice([DType.FP32, DType.BF16, DType.INT8])
    acc = _acc_dtype(dtype)
    m, n = rng.choice([16, 32, 64]), rng.choice([16, 32, 64])
    block = rng.choice([16, 32, 64, 128])
    trips = rng.randint(1, 6)
    k = block * trips
    naccs = rng.choice([1, 1, 2, 3])
    shape = rng.choice(["loop", "loop", "loop", "peel", "unrolled"])
    seeding = rng.choice(["ifphi", "init_cond"]) if shape == "loop" else "peel"
    kind = rng.choice(["range", "pipeline", "unroll"]) if shape != "unrolled" else "straight"
    by_offset = rng.random() < 0.5
    stage = rng.randint(2, 4)
    spelling = rng.choice(SEED_SPELLINGS)
    defect = ""
    if rng.random() < defect_rate:
        options = [d for d in FORM2_DEFECTS
                   if not (d in ("arm_swap",) and seeding != "ifphi")
                   and not (d.startswith("pred_") and seeding not in ("ifphi", "init_cond"))
                   and not (d == "cross_acc" and naccs < 2)
                   and not (shape == "unrolled" and d in ("start_early", "step_double"))]
        defect = rng.choice(options)
    meta = {"form": "form2", "dtype": dtype.name, "m": m, "n": n, "k": k, "block": block, "trips": trips,
            "accumulators": naccs, "shape": shape, "seeding": seeding, "loop": kind, "by_offset": by_offset,
            "stage": stage if kind == "pipeline" else 0, "spelling": spelling, "defect": defect}

    dt, at = PL_DTYPE[dtype], PL_DTYPE[acc]
    names = [f"c{i}" for i in range(naccs)]
    params = [f"a: pl.Tensor[[{m}, {k}], {dt}]"]
    params += [f"b{i}: pl.Tensor[[{k}, {n}], {dt}]" for i in range(naccs)]
    params += [f"out{i}: pl.Out[pl.Tensor[[{m}, {n}], {at}]]" for i in range(naccs)]
    lines = ["import pypto.language as pl", "", "", "@pl.program", "class Generated:",
             "    @pl.function(type=pl.FunctionType.InCore)",
             f"    def main(self, {', '.join(params)}) -> pl.Tensor[[{m}, {n}], {at}]:"]
    body: list[str] = []

    def emit(depth: int, text: str) -> None:
        body.append("    " * (depth + 2) + text)

    def loads(depth: int, offset: str, suffix: str = "") -> None:
        a_offset = f"{offset} + {block}" if defect == "lhs_shift" else offset
        emit(depth, f"ta{suffix} = pl.tile.load(a, [0, {a_offset}], [{m}, {block}], target_memory=pl.Mem.Mat)")
        for i in range(naccs):
            emit(depth, f"tb{i}{suffix} = pl.tile.load(b{i}, [{offset}, 0], [{block}, {n}], target_memory=pl.Mem.Mat)")

    def acc_operand(i: int, carried: list[str]) -> str:
        return carried[0] if defect == "cross_acc" and i == naccs - 1 else carried[i]

    # loop domain, by block index or by element offset
    unit = block if by_offset else 1
    start_blocks, stop_blocks, step_blocks = 0, trips, 1
    if shape == "peel":
        start_blocks = 1
    if defect == "start_late":
        start_blocks += 1
    elif defect == "start_early":
        start_blocks -= 1
    if defect == "stop_short":
        stop_blocks -= 1
    elif defect == "stop_long":
        stop_blocks += 1
    if defect == "step_double":
        step_blocks = 2
    var = "ko" if by_offset else "kb"
    offset = var if by_offset else f"{var} * {block}"
    seed_test = spelling.format(v=var, z=0, b=unit)
    if defect == "pred_mod2":
        seed_test = f"{var} % {2 * unit} == 0"
    elif defect == "pred_ge":
        seed_test = f"{var} >= 0"
    elif defect == "pred_one":
        seed_test = f"{var} == {unit}"
    elif defect == "pred_true":
        seed_test = "True"
    elif defect == "pred_false":
        seed_test = "False"

    if shape == "unrolled":
        blocks = list(range(start_blocks, stop_blocks))
    elif shape == "peel":
        blocks = [0, *range(start_blocks, stop_blocks, step_blocks)]
    else:
        blocks = list(range(start_blocks, stop_blocks, step_blocks))
    meta["blocks"] = blocks
    meta["coverage"] = coverage(blocks, trips)
    if shape == "unrolled":
        last = stop_blocks
        first = start_blocks
        prev = {}
        for j in range(first, last):
            loads(0, str(j * block), f"_{j}")
            for i in range(naccs):
                if j == first and defect != "no_seed":
                    emit(0, f"{names[i]}_{j} = pl.tile.matmul(ta_{j}, tb{i}_{j})")
                else:
                    if j == first:
                        emit(0, f"{names[i]}_init = pl.tile.create([{m}, {n}], dtype={at}, target_memory=pl.Mem.Acc)")
                        prev[i] = f"{names[i]}_init"
                    source = prev[0] if defect == "cross_acc" and i == naccs - 1 and 0 in prev else prev[i]
                    emit(0, f"{names[i]}_{j} = pl.tile.matmul_acc({source}, ta_{j}, tb{i}_{j})")
                prev[i] = f"{names[i]}_{j}"
        finals = [prev.get(i, "") for i in range(naccs)]
        if not all(finals):  # no block at all: a created, never written accumulator is drained
            for i in range(naccs):
                emit(0, f"{names[i]}_init = pl.tile.create([{m}, {n}], dtype={at}, target_memory=pl.Mem.Acc)")
            finals = [f"{names[i]}_init" for i in range(naccs)]
    else:
        inits = []
        if shape == "peel":
            loads(0, "0", "_0")
            for i in range(naccs):
                if defect == "no_seed":
                    emit(0, f"{names[i]}_init = pl.tile.create([{m}, {n}], dtype={at}, target_memory=pl.Mem.Acc)")
                    emit(0, f"{names[i]}_first = pl.tile.matmul_acc({names[i]}_init, ta_0, tb{i}_0)")
                else:
                    emit(0, f"{names[i]}_first = pl.tile.matmul(ta_0, tb{i}_0)")
                inits.append(f"{names[i]}_first")
        else:
            for i in range(naccs):
                emit(0, f"{names[i]}_init = pl.tile.create([{m}, {n}], dtype={at}, target_memory=pl.Mem.Acc)")
                inits.append(f"{names[i]}_init")
        carried = [f"{x}_iter" for x in names]
        loop_fn = {"range": "pl.range", "pipeline": "pl.pipeline", "unroll": "pl.unroll"}[kind]
        extra = f", stage={stage}" if kind == "pipeline" else ""
        emit(0, f"for {var}, ({', '.join(carried)},) in {loop_fn}({start_blocks * unit}, {stop_blocks * unit}, "
                f"{step_blocks * unit}, init_values=({', '.join(inits)},){extra}):")
        loads(1, offset)
        if seeding == "ifphi":
            fresh_arm = [f"f{i} = pl.tile.matmul(ta, tb{i})" for i in range(naccs)]
            if defect == "no_seed":
                fresh_arm = [f"f{i} = pl.tile.matmul_acc({acc_operand(i, carried)}, ta, tb{i})" for i in range(naccs)]
            fresh_arm.append(f"{', '.join(f'p{i}' for i in range(naccs))} = pl.yield_({', '.join(f'f{i}' for i in range(naccs))})")
            acc_arm = [f"s{i} = pl.tile.matmul_acc({acc_operand(i, carried)}, ta, tb{i})" for i in range(naccs)]
            acc_arm.append(f"{', '.join(f'p{i}' for i in range(naccs))} = pl.yield_({', '.join(f's{i}' for i in range(naccs))})")
            if defect == "arm_swap":
                fresh_arm, acc_arm = acc_arm, fresh_arm
            emit(1, f"if {seed_test}:")
            for line in fresh_arm:
                emit(2, line)
            emit(1, "else:")
            for line in acc_arm:
                emit(2, line)
            yielded = [f"p{i}" for i in range(naccs)]
        elif seeding == "init_cond":
            cond = "" if defect == "no_seed" else f", init_cond=({seed_test})"
            for i in range(naccs):
                emit(1, f"s{i} = pl.tile.matmul_acc({acc_operand(i, carried)}, ta, tb{i}{cond})")
            yielded = [f"s{i}" for i in range(naccs)]
        else:  # peel: a uniform matmul_acc body
            for i in range(naccs):
                emit(1, f"s{i} = pl.tile.matmul_acc({acc_operand(i, carried)}, ta, tb{i})")
            yielded = [f"s{i}" for i in range(naccs)]
        emit(1, f"{', '.join(names)} = pl.yield_({', '.join(yielded)})")
        finals = names
    dropped = rng.randrange(naccs) if defect == "no_store" else -1
    for i in range(naccs):
        if i == dropped:
            continue
        where = f"[0, {16 if defect == 'store_shift' and i == 0 else 0}]"
        emit(0, f"out{i} = pl.tile.store({finals[i]}, {where}, out{i})")
    emit(0, "return out0")
    text = "\n".join(lines + body) + "\n"
    oracle = tuple(MatmulOutput(f"out{i}", "a", f"b{i}") for i in range(naccs))
    return Generated(text, "main", oracle, meta)


# ---------------------------------------------------------------------------------------------- Form 3


class _Windows:
    """The allocations of a Form 3 program and the windows handed out in them."""

    def __init__(self, target: str) -> None:
        self.target = TARGETS[target]
        self.allocs: list[tuple[str, str, int]] = []
        self.count = 0

    def alloc(self, space: MemSpace, size: int) -> str:
        name = f"mem_{space.value.lower()}_{self.count}"
        self.count += 1
        self.allocs.append((name, space.value, size))
        return name

    def size(self, shape: tuple[int, int], dtype: DType, space: MemSpace) -> int:
        return self.target.tile_bytes(shape, dtype, space)


def _tile(shape: tuple[int, int], dtype: DType, base: str, offset: int, size: int, space: MemSpace) -> str:
    return (f"pl.Tile[[{shape[0]}, {shape[1]}], {PL_DTYPE[dtype]}, pl.MemRef({base}, pl.const({offset}, pl.INT64), "
            f"{size}), pl.Mem.{space.value}]")


def lowered_program(rng: random.Random, defect_rate: float = 0.5, target: str = "a2a3") -> Generated:
    """A random lowered (Form 3) K reduction with random window assignments (module docstring)."""
    dtype = rng.choice([DType.FP32, DType.INT8])
    acc = _acc_dtype(dtype)
    m, n = rng.choice([16, 32, 64]), rng.choice([16, 32, 64])
    block = rng.choice([16, 32, 64])
    trips = rng.randint(1, 7)
    k = block * trips
    naccs = rng.choice([1, 1, 2, 3])
    clones = rng.randint(1, 3)
    seeding = rng.choice(["init_cond", "init_cond", "ifphi"])
    operand_windows = rng.choice(["distinct", "shared", "pool"])
    acc_windows = rng.choice(["own", "own", "own", "shared", "overlap"]) if naccs > 1 else "own"
    order = rng.choice(["in_order", "in_order", "hoisted"])
    defect = ""
    if rng.random() < defect_rate:
        options = [d for d in FORM3_DEFECTS if not (d == "cross_acc" and naccs < 2)
                   and not (d == "pred_clone" and clones < 2) and not (d == "no_tail" and trips % clones == 0)]
        defect = rng.choice(options)
    meta = {"form": "form3", "dtype": dtype.name, "m": m, "n": n, "k": k, "block": block, "trips": trips,
            "accumulators": naccs, "clones": clones, "seeding": seeding, "operand_windows": operand_windows,
            "acc_windows": acc_windows, "order": order, "defect": defect}

    win = _Windows(target)
    dt, at = PL_DTYPE[dtype], PL_DTYPE[acc]
    ddr = 0

    def tensor(shape: tuple[int, int], d: DType) -> str:
        nonlocal ddr
        size = shape[0] * shape[1] * d.bytes
        text = f"pl.Tensor[[{shape[0]}, {shape[1]}], {PL_DTYPE[d]}, pl.MemRef(\"mem_ddr_{ddr}\", pl.const(0, pl.INT64), {size})]"
        ddr += 1
        return text

    params = [f"a: {tensor((m, k), dtype)}"]
    params += [f"b{i}: {tensor((k, n), dtype)}" for i in range(naccs)]
    out_types = [tensor((m, n), acc) for _ in range(naccs)]
    params += [f"out{i}: pl.Out[{out_types[i]}]" for i in range(naccs)]
    body: list[str] = []

    def emit(depth: int, text: str) -> None:
        body.append("    " * (depth + 2) + text)

    # Mat: whole operands
    a_size = win.size((m, k), dtype, MemSpace.Mat)
    a_base = win.alloc(MemSpace.Mat, a_size)
    b_sizes = [win.size((k, n), dtype, MemSpace.Mat) for _ in range(naccs)]
    b_bases = [win.alloc(MemSpace.Mat, s) for s in b_sizes]
    # Acc windows
    acc_size = win.size((m, n), acc, MemSpace.Acc)
    if acc_windows == "own":
        acc_win = [(win.alloc(MemSpace.Acc, acc_size), 0) for _ in range(naccs)]
    elif acc_windows == "shared":
        base = win.alloc(MemSpace.Acc, acc_size)
        acc_win = [(base, 0)] * naccs
    else:  # overlap: each accumulator half a window after the previous one
        step = (acc_size // 2 + 511) // 512 * 512
        base = win.alloc(MemSpace.Acc, acc_size + step * (naccs - 1))
        acc_win = [(base, i * step) for i in range(naccs)]
    stray = win.alloc(MemSpace.Acc, acc_size) if defect == "divergent_value" else ""
    # Left / Right windows
    left_size = win.size((m, block), dtype, MemSpace.Left)
    right_size = win.size((block, n), dtype, MemSpace.Right)
    pools: dict[MemSpace, list[str]] = {MemSpace.Left: [], MemSpace.Right: []}

    def operand_window(space: MemSpace, size: int) -> str:
        pool = pools[space]
        if operand_windows == "shared" and pool:
            return pool[0]
        if operand_windows == "pool" and len(pool) >= 2:
            return rng.choice(pool)
        pool.append(win.alloc(space, size))
        return pool[-1]

    def acc_tile(i: int) -> str:
        base, offset = acc_win[i]
        return _tile((m, n), acc, base, offset, acc_size, MemSpace.Acc)

    emit(0, f"a_mat: {_tile((m, k), dtype, a_base, 0, a_size, MemSpace.Mat)} = "
            f"pl.tile.load(a, [0, 0], [{m}, {k}], [{m}, {k}], target_memory=pl.Mem.Mat)")
    for i in range(naccs):
        emit(0, f"b{i}_mat: {_tile((k, n), dtype, b_bases[i], 0, b_sizes[i], MemSpace.Mat)} = "
                f"pl.tile.load(b{i}, [0, 0], [{k}, {n}], [{k}, {n}], target_memory=pl.Mem.Mat)")
    for i in range(naccs):
        emit(0, f"c{i}_init: {acc_tile(i)} = pl.tile.create([{m}, {n}], dtype={at}, target_memory=pl.Mem.Acc)")

    # the domain, in elements
    start, stop = 0, k
    if defect == "start_late":
        start += block
    if defect == "stop_short":
        stop -= block
    elif defect == "stop_long":
        stop += block
    total = max(0, (stop - start + block - 1) // block) if stop > start else 0
    main_trips = total // clones
    tail = total - main_trips * clones
    if defect == "no_tail":
        tail = 0
    counter = [0]
    divergent_at = rng.randrange(max(1, clones)) if defect == "divergent_value" else -1
    divergent_acc = rng.randrange(naccs)

    def seed_test(offset: str, j: int) -> str:
        if defect == "pred_clone" and j > 0:
            offset = offset.split(" + ")[0]  # the first clone's offset: every clone resets on block 0
        if defect == "pred_ge":
            return f"{offset} >= 0"
        if defect == "pred_one":
            return f"{offset} == {block}"
        return f"{offset} == 0"

    def clone(depth: int, offset: str, j: int, prev: list[str]) -> list[str]:
        """One K block at element *offset* (an expression): extracts, then one MAD per accumulator."""
        c = counter[0]
        counter[0] += 1
        extracts = [f"sa_{c}: {_tile((m, block), dtype, operand_window(MemSpace.Left, left_size), 0, left_size, MemSpace.Left)}"
                    f" = pl.tile.extract(a_mat, 0, {offset}, [{m}, {block}], target_memory=pl.Mem.Left)"]
        for i in range(naccs):
            extracts.append(
                f"sb{i}_{c}: {_tile((block, n), dtype, operand_window(MemSpace.Right, right_size), 0, right_size, MemSpace.Right)}"
                f" = pl.tile.extract(b{i}_mat, {offset}, 0, [{block}, {n}], target_memory=pl.Mem.Right)")
        mads: list[list[str]] = []
        out = []
        for i in range(naccs):
            source = prev[0] if defect == "cross_acc" and i == naccs - 1 else prev[i]
            name = f"c{i}_{c}"
            tile = acc_tile(i)
            if j == divergent_at and i == divergent_acc and depth == 1:
                tile = _tile((m, n), acc, stray, 0, acc_size, MemSpace.Acc)
            test = seed_test(offset, j)
            if seeding == "ifphi":
                fresh = f"pl.tile.matmul_acc({source}, sa_{c}, sb{i}_{c})" if defect == "no_seed" else \
                    f"pl.tile.matmul(sa_{c}, sb{i}_{c})"
                mads.append([f"if {test}:",
                             f"    f{i}_{c}: {acc_tile(i)} = {fresh}",
                             f"    {name}: {tile} = pl.yield_(f{i}_{c})",
                             "else:",
                             f"    g{i}_{c}: {acc_tile(i)} = pl.tile.matmul_acc({source}, sa_{c}, sb{i}_{c})",
                             f"    {name}: {tile} = pl.yield_(g{i}_{c})"])
            else:
                cond = "" if defect == "no_seed" else f", {test}"
                mads.append([f"{name}: {tile} = pl.tile.matmul_acc({source}, sa_{c}, sb{i}_{c}{cond})"])
            out.append(name)
        if order == "hoisted":
            pending.extend(extracts)
            held.append(mads)
        else:
            for line in extracts:
                emit(depth, line)
            for group in mads:
                for line in group:
                    emit(depth, line)
        return out

    pending: list[str] = []
    held: list[list[list[str]]] = []

    def flush(depth: int) -> None:
        for line in pending:
            emit(depth, line)
        for mads in held:
            for group in mads:
                for line in group:
                    emit(depth, line)
        pending.clear()
        held.clear()

    current = [f"c{i}_init" for i in range(naccs)]
    if main_trips > 0:
        iters = [f"c{i}_iter" for i in range(naccs)]
        emit(0, f"for ko, ({', '.join(iters)},) in pl.range({start}, {start + main_trips * clones * block}, "
                f"{clones * block}, init_values=({', '.join(current)},)):")
        prev = iters
        for j in range(clones):
            prev = clone(1, "ko" if j == 0 else f"ko + {j * block}", j, prev)
        flush(1)
        results = [f"c{i}_out" for i in range(naccs)]
        if naccs == 1:
            emit(1, f"{results[0]}: {acc_tile(0)} = pl.yield_({prev[0]})")
        else:
            emit(1, f"{', '.join(results)} = pl.yield_({', '.join(prev)})")
        current = results
    blocks = [(start + j * block) // block for j in range(main_trips * clones + tail)]
    meta["blocks"] = blocks
    meta["coverage"] = coverage(blocks, trips)
    for t in range(tail):
        offset = start + (main_trips * clones + t) * block
        current = clone(0, str(offset), t, current)
    flush(0)
    dropped = rng.randrange(naccs) if defect == "no_store" else -1
    for i in range(naccs):
        if i == dropped:
            continue
        emit(0, f"out{i}_v1: {out_types[i]} = pl.tile.store({current[i]}, [0, 0], out{i})")
    emit(0, "return out0")
    header = ["import pypto.language as pl", "", "", "@pl.program", "class Generated:",
              "    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)",
              f"    def main({', '.join(params)}) -> pl.Tensor[[{m}, {n}], {at}]:"]
    allocs = [f"        {name}: pl.Ptr = pl.tile.alloc(pl.Mem.{space}, {size})" for name, space, size in win.allocs]
    text = "\n".join(header + allocs + body) + "\n"
    oracle = tuple(MatmulOutput(f"out{i}", "a", f"b{i}") for i in range(naccs))
    return Generated(text, "main", oracle, meta)


def program(rng: random.Random, defect_rate: float = 0.5, target: str = "a2a3") -> Generated:
    """One generated program: Form 3 or Form 2, half and half."""
    if rng.random() < 0.5:
        return lowered_program(rng, defect_rate, target)
    return tile_program(rng, defect_rate)
