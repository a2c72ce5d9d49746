"""Benchmarks of the tutorials' headline experiments: `python -m benchmarks` (or `nox -s bench`).

Every figure compares cases measured side by side in one run (see `benchmarks.timing`). A run
writes `results.json` (and `results.png` when matplotlib is installed) to `--out DIR`; what
cannot run on this machine is listed in the JSON as skipped, with the reason.

The registry below is the default set, CPU experiments first: they fork DataLoader workers,
which must happen before anything initialises CUDA in this process.

An experiment is a function `NAME(plan: Plan) -> dict` in its module, returning at least
`"headline"` (one sentence) and `"rows"`; an optional `plot_NAME(ax, result)` draws its panel.
The learner loop's speed is measured apart, by `python -m benchmarks.loop` (it drives the
`python -m katas` commands on a copy of the repository).

Importing this package does not import torch, so `--list` and bad options answer at once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Experiment:
    name: str
    module: str
    title: str
    needs_cuda: bool = False
    default: bool = True

    def plotter(self):
        """Its `plot_NAME(ax, result)`, which draws its panel, or None (imports its module)."""
        import importlib

        return getattr(importlib.import_module(self.module), f"plot_{self.name}", None)


EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment("view_reshape", "benchmarks.views", "view vs a reshape that must copy, over sizes"),
    Experiment(
        "same_device_to", "benchmarks.views", "x.to(x.device) (the same object) vs copy=True"
    ),
    Experiment("loader_workers", "benchmarks.loader", "DataLoader with num_workers 0 vs 2"),
    Experiment(
        "activation_memory",
        "benchmarks.memory",
        "activations kept for backward: plain vs checkpointed blocks vs micro-batches",
    ),
    Experiment(
        "h2d_bandwidth",
        "benchmarks.transfer",
        "host-to-device GB/s: pageable vs pinned vs pinned + non_blocking, 4 KiB to 1 GiB",
        needs_cuda=True,
    ),
    Experiment(
        "row_transfer",
        "benchmarks.transfer",
        "copy to the GPU row by row vs whole",
        needs_cuda=True,
    ),
    Experiment(
        "item_logging",
        "benchmarks.transfer",
        ".item() every step vs an on-device log, 1,000 small steps",
        needs_cuda=True,
    ),
    Experiment(
        "matmul_crossover",
        "benchmarks.matmul",
        "CPU vs GPU matmul over sizes: where the GPU starts to win",
        needs_cuda=True,
    ),
    Experiment(
        "autocast_matmul",
        "benchmarks.amp",
        "matmul in float32 vs under bfloat16 and float16 autocast, over sizes",
        needs_cuda=True,
    ),
    Experiment(
        "loader_pinning",
        "benchmarks.loader",
        "DataLoader with and without pin_memory feeding a small CNN",
        needs_cuda=True,
    ),
    Experiment(
        "peak_memory",
        "benchmarks.memory",
        "peak CUDA memory of one step: plain vs checkpointed blocks vs micro-batches",
        needs_cuda=True,
    ),
)


def available() -> tuple[Experiment, ...]:
    """The experiments `--only` and `--list` know."""
    return EXPERIMENTS
