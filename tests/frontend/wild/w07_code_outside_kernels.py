"""Wild construct: code outside kernels — `build_tensor_specs`, a golden function using torch, and
`if __name__ == "__main__":` with argparse — is ignored (and never run)."""

import argparse

import pypto.language as pl
import torch

M = 32
N = 64
K = 256
K_TILE = 64


@pl.jit
def gemm(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32], c: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            if kb == 0:
                acc = pl.matmul(a[:, k0 : k0 + K_TILE], b[k0 : k0 + K_TILE, :])
            else:
                acc = pl.matmul_acc(acc, a[:, k0 : k0 + K_TILE], b[k0 : k0 + K_TILE, :])
        c[:, :] = acc
    return c


def build_tensor_specs(m: int = M, n: int = N, k: int = K):
    from golden import TensorSpec

    return [
        TensorSpec("a", [m, k], torch.float32, init_value=torch.randn),
        TensorSpec("b", [k, n], torch.float32, init_value=torch.randn),
        TensorSpec("c", [m, n], torch.float32, is_output=True),
    ]


def golden_gemm(tensors):
    tensors["c"][:] = tensors["a"] @ tensors["b"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-p", "--platform", default="a2a3sim")
    args = parser.parse_args()
    raise SystemExit(f"no runtime here ({args.platform})")
