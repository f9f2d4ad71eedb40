"""Weight absorption for low-rank attention (decode, BF16), per head.

``absorb_q`` maps each head's no-position query part into the KV latent through
``w_uk[h]`` (3-D ``[H, LATENT, NOPE]`` weights, two 256-wide latent halves accumulated
side by side). ``absorb_o`` maps the attention output in latent space back to the
head dim through ``w_uv[h]`` (``[H, HEAD_V, LATENT]``). Both walk K by offset.
"""

import pypto.language as pl

HEADS = 8
ROWS = 16
NOPE = 256
LATENT = 512
HALF_LAT = LATENT // 2
HEAD_V = 128
K_TILE = 128


@pl.jit
def absorb_q(
    q_nope: pl.Tensor[[ROWS, HEADS * NOPE], pl.BF16],
    w_uk: pl.Tensor[[HEADS, LATENT, NOPE], pl.BF16],
    q_lat: pl.Out[pl.Tensor[[ROWS, HEADS * LATENT], pl.FP32]],
):
    for h in pl.spmd(HEADS, name_hint="absorb_q"):
        c_in = h * NOPE
        c_out = h * LATENT
        lo_acc = pl.create_tensor([1, ROWS, HALF_LAT], dtype=pl.FP32)
        hi_acc = pl.create_tensor([1, ROWS, HALF_LAT], dtype=pl.FP32)
        for k0 in pl.pipeline(0, NOPE, K_TILE, stage=2):
            qa = q_nope[:, c_in + k0 : c_in + k0 + K_TILE]
            w_lo = w_uk[h : h + 1, 0:HALF_LAT, k0 : k0 + K_TILE]
            w_hi = w_uk[h : h + 1, HALF_LAT:LATENT, k0 : k0 + K_TILE]
            if k0 == 0:
                lo_acc = pl.matmul(qa, w_lo, b_trans=True, out_dtype=pl.FP32)
                hi_acc = pl.matmul(qa, w_hi, b_trans=True, out_dtype=pl.FP32)
            else:
                lo_acc = pl.matmul_acc(lo_acc, qa, w_lo, b_trans=True)
                hi_acc = pl.matmul_acc(hi_acc, qa, w_hi, b_trans=True)
        q_lat = pl.assemble(q_lat, lo_acc, [0, c_out])
        q_lat = pl.assemble(q_lat, hi_acc, [0, c_out + HALF_LAT])
    return q_lat


@pl.jit
def absorb_o(
    o_lat: pl.Tensor[[ROWS, HEADS * LATENT], pl.BF16],
    w_uv: pl.Tensor[[HEADS, HEAD_V, LATENT], pl.BF16],
    o: pl.Out[pl.Tensor[[ROWS, HEADS * HEAD_V], pl.BF16]],
):
    for h in pl.spmd(HEADS, name_hint="absorb_o"):
        c_in = h * LATENT
        o_acc = pl.create_tensor([1, ROWS, HEAD_V], dtype=pl.FP32)
        for k0 in pl.pipeline(0, LATENT, K_TILE, stage=2):
            la = o_lat[:, c_in + k0 : c_in + k0 + K_TILE]
            wv = w_uv[h : h + 1, :, k0 : k0 + K_TILE]
            if k0 == 0:
                o_acc = pl.matmul(la, wv, b_trans=True, out_dtype=pl.FP32)
            else:
                o_acc = pl.matmul_acc(o_acc, la, wv, b_trans=True)
        o_2d = pl.reshape(o_acc, [ROWS, HEAD_V])
        o[:, h * HEAD_V : (h + 1) * HEAD_V] = pl.cast(o_2d, target_type=pl.BF16)
    return o
