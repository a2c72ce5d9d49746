"""GPU: a matrix multiply in float32 and under autocast in bfloat16 and float16, over sizes.

Kata 14 (mixed precision) runs the forward pass's products in 16 bits; here is what that buys.
Three cases per size n (square float32 matrices, already on the device):
- `float32`: `a @ b` (TF32 tensor cores only if `torch.backends.cuda.matmul.allow_tf32`);
- `bfloat16 autocast`: the same line under `torch.autocast(device.type, dtype=torch.bfloat16)`,
  which casts a and b to bfloat16 (the casts are part of the cost, as in training);
- `float16 autocast`: the same with float16.

Where the GPU computes in the 16-bit type natively (tensor cores), the large products run
several times faster; small ones are dominated by the kernel launches and the casts. On a GPU
older than compute capability 8.0, bfloat16 is only emulated: the table shows what that costs.
The code runs on the CPU too (the tool tests use that), where float16 matmul may have no fast
kernel at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from benchmarks.report import lines
from benchmarks.timing import Plan, compare, cuda_sync, ratio

FULL_SIZES = [64, 128, 256, 512, 1024, 2048, 4096]
SMOKE_SIZES = [16, 32]
CASES = ("float32", "bfloat16 autocast", "float16 autocast")
DTYPES = {"float32": None, "bfloat16 autocast": torch.bfloat16, "float16 autocast": torch.float16}


def _product(a: torch.Tensor, b: torch.Tensor, dtype: torch.dtype | None):
    if dtype is None:
        return lambda: a @ b

    def under_autocast():
        with torch.autocast(a.device.type, dtype=dtype):
            return a @ b

    return under_autocast


def autocast_matmul(
    plan: Plan, device: torch.device | str = "cuda", *, sizes: Sequence[int] | None = None
) -> dict:
    device = torch.device(device)
    sizes = list(sizes or plan.pick(SMOKE_SIZES, FULL_SIZES))
    sync = cuda_sync(device)
    rows = []
    for n in sizes:
        a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
        products = {case: _product(a, b, dtype) for case, dtype in DTYPES.items()}
        checks = {case: str(fn().dtype).removeprefix("torch.") for case, fn in products.items()}
        stats = compare(products, plan, sync=sync)
        rows.append(
            {
                "n": n,
                "cases": {k: s.as_dict() for k, s in stats.items()},
                "tflop_per_s": {k: 2 * n**3 / s.median / 1e12 for k, s in stats.items()},
                "float32_over_bfloat16": ratio(stats["float32"], stats["bfloat16 autocast"]),
                "float32_over_float16": ratio(stats["float32"], stats["float16 autocast"]),
                "checks": {"product dtype": checks},
            }
        )
    last = rows[-1]
    tf32 = torch.backends.cuda.matmul.allow_tf32
    return {
        "unit": "seconds per product",
        "device": str(device),
        "allow_tf32": tf32,
        "rows": rows,
        "headline": (
            f"at n={last['n']}, float32 takes {last['float32_over_bfloat16']:.1f}x as long as a "
            f"bfloat16 autocast product and {last['float32_over_float16']:.1f}x as long as a "
            f"float16 one (allow_tf32={tf32})"
        ),
    }


def plot_autocast_matmul(ax, result: dict) -> None:
    lines(
        ax,
        result,
        x=lambda r: r["n"],
        cases=CASES,
        title=f"matmul under autocast ({result['device']})",
        xlabel="n (n x n, float32 inputs)",
        ylabel="seconds per product (median, IQR band)",
    )
