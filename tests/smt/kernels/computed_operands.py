"""MADs whose operands the kernel computes before the K loop (issue 13): each is a term of its inputs, read
in K blocks alike by the source and its lowering, so PV105 compares the blocks and PV106 checks they cover K.

`merged_rows` reads both operands through a reshape that merges two dimensions of a GM tensor;
`dynamic_extents` reads tensors with a `pl.dynamic` dimension (the right one along K), in a loop bounded by
`pl.tensor.dim`; `staged_buffer` reads a GM buffer a loop threads through an inline function that assembles
the kernel's input into it (with a second buffer: the loop carries both). Each `*_skips`
twin reads its computed left operand one K block behind the right one (`k0 - TK`): block [0, TK) twice, the
last one never (PV106). `paged_rows` reads the reshaped tensor at a row read from a table inside a pipelined
loop, whose clone re-reads it under a name of its own (`page_1`): the read is a function of its index on
both sides, so the block is traced and proves. An operand computed per K block inside the loop: `../inconclusive/computed_per_block.py`."""
import pypto.language as pl

G, T, K, N, TK = 2, 8, 512, 64, 128
ROWS = pl.dynamic("ROWS")
DEPTH = pl.dynamic("DEPTH")


@pl.jit
def merged_rows(x3: pl.Tensor[[G, T, K], pl.BF16], w3: pl.Tensor[[2, 32, K], pl.BF16],
                y: pl.Out[pl.Tensor[[G * T, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="merged_rows"):
        x = pl.reshape(x3, [G * T, K])
        w = pl.reshape(w3, [N, K])
        acc = pl.matmul(x[:, 0:TK], w[:, 0:TK], b_trans=True, out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + TK], w[:, k0 : k0 + TK], b_trans=True)
        y[:, :] = acc
    return y


@pl.jit
def merged_rows_skips(x3: pl.Tensor[[G, T, K], pl.BF16], w3: pl.Tensor[[2, 32, K], pl.BF16],
                      y: pl.Out[pl.Tensor[[G * T, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="merged_rows_skips"):
        x = pl.reshape(x3, [G * T, K])
        w = pl.reshape(w3, [N, K])
        acc = pl.matmul(x[:, 0:TK], w[:, 0:TK], b_trans=True, out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            acc = pl.matmul_acc(acc, x[:, k0 - TK : k0], w[:, k0 : k0 + TK], b_trans=True)  # expect: PV106
        y[:, :] = acc
    return y


@pl.jit
def dynamic_extents(x: pl.Tensor[[ROWS, K], pl.BF16], w: pl.Tensor[[DEPTH, N], pl.BF16],
                    y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="dynamic_extents"):
        rows = pl.tensor.dim(x, 0)
        for r0 in pl.range(0, rows, 16):
            acc = pl.matmul(x[r0 : r0 + 16, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
            for k0 in pl.range(TK, K, TK):
                acc = pl.matmul_acc(acc, x[r0 : r0 + 16, k0 : k0 + TK], w[k0 : k0 + TK, :])
            y[r0 : r0 + 16, :] = acc
    return y


@pl.jit
def dynamic_extents_skips(x: pl.Tensor[[ROWS, K], pl.BF16], w: pl.Tensor[[DEPTH, N], pl.BF16],
                          y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="dynamic_extents_skips"):
        rows = pl.tensor.dim(x, 0)
        for r0 in pl.range(0, rows, 16):
            acc = pl.matmul(x[r0 : r0 + 16, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
            for k0 in pl.range(TK, K, TK):
                acc = pl.matmul_acc(acc, x[r0 : r0 + 16, k0 - TK : k0], w[k0 : k0 + TK, :])  # expect: PV106
            y[r0 : r0 + 16, :] = acc
    return y


@pl.jit.inline
def _stage(buf: pl.Tensor[[16, K], pl.BF16], scales: pl.Tensor[[16, 4], pl.FP32], x: pl.Tensor[[16, K], pl.FP32],
           c0: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[16, K], pl.BF16], pl.Tensor[[16, 4], pl.FP32]]:
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage"):
        block = x[:, c0 : c0 + TK]
        buf = pl.assemble(buf, pl.cast(block, target_type=pl.BF16), [0, c0])
        scales = pl.assemble(scales, pl.row_max(block), [0, c0 // TK])
    return buf, scales


@pl.jit
def staged_buffer(x: pl.Tensor[[16, K], pl.FP32], w: pl.Tensor[[K, N], pl.BF16],
                  y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    staged = pl.create_tensor([16, K], dtype=pl.BF16)
    scales = pl.create_tensor([16, 4], dtype=pl.FP32)
    for c0 in pl.range(0, K, TK):
        staged, scales = _stage(staged, scales, x, c0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="staged_buffer"):
        acc = pl.matmul(staged[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            acc = pl.matmul_acc(acc, staged[:, k0 : k0 + TK], w[k0 : k0 + TK, :])
        y[:, :] = acc
    return y


@pl.jit
def staged_buffer_skips(x: pl.Tensor[[16, K], pl.FP32], w: pl.Tensor[[K, N], pl.BF16],
                        y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    staged = pl.create_tensor([16, K], dtype=pl.BF16)
    scales = pl.create_tensor([16, 4], dtype=pl.FP32)
    for c0 in pl.range(0, K, TK):
        staged, scales = _stage(staged, scales, x, c0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="staged_buffer_skips"):
        acc = pl.matmul(staged[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            acc = pl.matmul_acc(acc, staged[:, k0 - TK : k0], w[k0 : k0 + TK, :])  # expect: PV106
        y[:, :] = acc
    return y



@pl.jit
def paged_rows(cache3: pl.Tensor[[8, 64, TK], pl.BF16], table: pl.Tensor[[4], pl.INT32],
               q: pl.Tensor[[16, TK], pl.BF16], y: pl.Out[pl.Tensor[[256, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="paged_rows"):
        cache = pl.reshape(cache3, [8 * 64, TK])
        for p in pl.pipeline(0, 4, stage=2):
            page = pl.cast(pl.read(table, [p]), pl.INDEX)
            row = page * 64
            scores = pl.matmul(cache[row : row + 64, :], q, b_trans=True, out_dtype=pl.FP32)
            y[p * 64 : p * 64 + 64, :] = scores
    return y
