"""GPU: matrix multiply on the CPU and on the GPU, over sizes: where does the GPU start to win?

Three cases per size n (square float32 matrices):
- `cpu`: `a @ b` with both on the CPU;
- `gpu`: `a @ b` with both already on the GPU (waiting for the result);
- `gpu, with copies`: copy a and b to the GPU, multiply, copy the result back: what a one-off
  multiply costs when the data lives on the CPU.

Small products lose on the GPU: a kernel launch and a synchronisation cost microseconds, which a
CPU spends on the whole product. The crossover is the first size where the GPU's median wins.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from benchmarks.report import lines
from benchmarks.timing import Plan, compare, cuda_sync, ratio

FULL_SIZES = [16, 32, 64, 128, 256, 512, 1024, 2048]
SMOKE_SIZES = [8, 16, 32]
CASES = ("cpu", "gpu", "gpu, with copies")


def matmul_crossover(
    plan: Plan, device: torch.device | str = "cuda", *, sizes: Sequence[int] | None = None
) -> dict:
    device = torch.device(device)
    sizes = list(sizes or plan.pick(SMOKE_SIZES, FULL_SIZES))
    sync = cuda_sync(device)
    rows = []
    for n in sizes:
        a, b = torch.randn(n, n), torch.randn(n, n)
        ga, gb = a.to(device), b.to(device)
        stats = compare(
            {
                "cpu": lambda a=a, b=b: a @ b,
                "gpu": lambda ga=ga, gb=gb: ga @ gb,
                "gpu, with copies": lambda a=a, b=b: (a.to(device) @ b.to(device)).cpu(),
            },
            plan,
            sync=sync,
        )
        rows.append(
            {
                "n": n,
                "cases": {k: s.as_dict() for k, s in stats.items()},
                "gflop_per_s": {k: 2 * n**3 / s.median / 1e9 for k, s in stats.items()},
                "cpu_over_gpu": ratio(stats["cpu"], stats["gpu"]),
                "cpu_over_gpu_with_copies": ratio(stats["cpu"], stats["gpu, with copies"]),
            }
        )
    crossover = next((r["n"] for r in rows if r["cpu_over_gpu"] > 1), None)
    crossover_copies = next((r["n"] for r in rows if r["cpu_over_gpu_with_copies"] > 1), None)

    def say(n):
        return f"n={n}" if n is not None else f"no size up to n={sizes[-1]}"

    tf32 = torch.backends.cuda.matmul.allow_tf32
    return {
        "unit": "seconds per product",
        "device": str(device),
        "allow_tf32": tf32,
        "rows": rows,
        "crossover_n": crossover,
        "crossover_n_with_copies": crossover_copies,
        "headline": (
            f"the GPU first wins at {say(crossover)} with data on the device, and at "
            f"{say(crossover_copies)} counting the copies; at n={rows[-1]['n']} it is "
            f"{rows[-1]['cpu_over_gpu']:.0f}x faster (float32, allow_tf32={tf32})"
        ),
    }


def plot_matmul_crossover(ax, result: dict) -> None:
    lines(
        ax,
        result,
        x=lambda r: r["n"],
        cases=CASES,
        title="matmul: CPU vs GPU",
        xlabel="n (n x n float32)",
        ylabel="seconds per product (median, IQR band)",
    )
