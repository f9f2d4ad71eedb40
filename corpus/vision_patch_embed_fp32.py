"""Vision encoder front end in FP32: patch embedding and pooled classifier heads.

``patch_embed`` projects flattened 16x16x3 patches (768 values) of 128-patch tiles
and adds the position embedding; ``pooled_heads`` computes the class logits and the
auxiliary attribute logits of the pooled features in one K loop.
"""

import pypto.language as pl

PATCHES = 256
PATCH_DIM = 768
EMBED = 256
M_TILE = 128
N_TILE = 64
K_TILE = 128
IMAGES = 16
CLS = 64
ATTR = 64


@pl.jit
def patch_embed(
    patches: pl.Tensor[[PATCHES, PATCH_DIM], pl.FP32],
    w_patch: pl.Tensor[[EMBED, PATCH_DIM], pl.FP32],
    pos: pl.Tensor[[PATCHES, EMBED], pl.FP32],
    emb: pl.Out[pl.Tensor[[PATCHES, EMBED], pl.FP32]],
):
    for m0 in pl.parallel(0, PATCHES, M_TILE):
        for n0 in pl.parallel(0, EMBED, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="patch_embed"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.pipeline(PATCH_DIM // K_TILE, stage=2):
                    k0 = kb * K_TILE
                    pa = patches[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wb = w_patch[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    if k0 == 0:
                        acc = pl.matmul(pa, wb, b_trans=True, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, pa, wb, b_trans=True)
                emb[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = pl.add(acc, pos[m0 : m0 + M_TILE, n0 : n0 + N_TILE])
    return emb


@pl.jit
def pooled_heads(
    pooled: pl.Tensor[[IMAGES, EMBED], pl.FP32],
    w_cls: pl.Tensor[[EMBED, CLS], pl.FP32],
    w_attr: pl.Tensor[[EMBED, ATTR], pl.FP32],
    cls_out: pl.Out[pl.Tensor[[IMAGES, CLS], pl.FP32]],
    attr_out: pl.Out[pl.Tensor[[IMAGES, ATTR], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pooled_heads"):
        c_acc = pl.create_tensor([IMAGES, CLS], dtype=pl.FP32)
        a_acc = pl.create_tensor([IMAGES, ATTR], dtype=pl.FP32)
        for kb in pl.pipeline(EMBED // K_TILE, stage=2):
            k0 = kb * K_TILE
            pa = pooled[:, k0 : k0 + K_TILE]
            wc = w_cls[k0 : k0 + K_TILE, :]
            wa = w_attr[k0 : k0 + K_TILE, :]
            if k0 == 0:
                c_acc = pl.matmul(pa, wc)
                a_acc = pl.matmul(pa, wa)
            else:
                c_acc = pl.matmul_acc(c_acc, pa, wc)
                a_acc = pl.matmul_acc(a_acc, pa, wa)
        cls_out[:, :] = c_acc
        attr_out[:, :] = pl.recip(pl.add(pl.exp(pl.neg(a_acc)), 1.0))
    return cls_out, attr_out
