"""DataLoaders: worker processes on the CPU, and `pin_memory` feeding a small model on a GPU.

Kata 4 (pinned DataLoader) builds the loader the PyTorch examples use; these measure what its
two options buy. One call of a case is one full epoch, as a training loop sees it.

Workers are forked only while CUDA is not initialised in this process; after that (on a GPU
host, in `loader_pinning`) they are spawned, and kept alive across epochs
(`persistent_workers`), so the spawn happens during warm-up and is not timed.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import replace

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from benchmarks.report import bars
from benchmarks.timing import Plan, compare, cuda_sync, faster, ratio


class Rows(Dataset):
    """Items already in memory: indexing a tensor is all the work there is."""

    def __init__(self, n: int, width: int = 64) -> None:
        self.x = torch.randn(n, width)
        self.y = torch.arange(n) % 10

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        return self.x[i], self.y[i]


class SlowRows(Rows):
    """Items that take `delay` seconds to load, like reading a file (a sleep stands in)."""

    def __init__(self, n: int, delay: float, width: int = 64) -> None:
        super().__init__(n, width)
        self.delay = delay

    def __getitem__(self, i: int):
        time.sleep(self.delay)
        return super().__getitem__(i)


class Images(Dataset):
    """Small images and labels in CPU memory, the shape of a CIFAR batch."""

    def __init__(self, n: int, side: int = 32) -> None:
        self.x = torch.randn(n, 3, side, side)
        self.y = torch.randint(0, 10, (n,))

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        return self.x[i], self.y[i]


def _context(workers: int) -> str | None:
    """Fork while CUDA is untouched; spawn once it is initialised (a forked CUDA is broken)."""
    if workers == 0:
        return None
    return "spawn" if torch.cuda.is_initialized() else "fork"


def _epoch(loader: DataLoader) -> int:
    n = 0
    for x, _ in loader:
        n += len(x)
    return n


WORKER_CASES = {
    "num_workers=0": {"num_workers": 0},
    "num_workers=2": {"num_workers": 2},
    "num_workers=2, persistent": {"num_workers": 2, "persistent_workers": True},
}


def loader_workers(
    plan: Plan,
    *,
    items: int | None = None,
    slow_items: int | None = None,
    delay: float = 0.002,
    batch: int = 32,
) -> dict:
    """One epoch with num_workers=0, =2 (new workers every epoch, the default) and =2 with
    persistent workers (started once), for in-memory items and for slow-to-load items."""
    items = items or plan.pick(128, 2048)
    slow_items = slow_items or plan.pick(16, 128)
    # An epoch is long: one warm-up (none in smoke mode) is enough, and starts the persistent
    # workers; calibration then runs one more untimed epoch per case.
    # In smoke mode two samples are enough to run the code; each new-worker epoch forks twice.
    plan = replace(plan, warmup=plan.pick(0, 1), repeats=plan.pick(2, plan.repeats))
    rows = []
    for label, dataset in (
        ("in memory", Rows(items)),
        (f"{delay * 1000:g} ms per item", SlowRows(slow_items, delay)),
    ):
        loaders = {
            name: DataLoader(
                dataset,
                batch_size=batch,
                multiprocessing_context=_context(kwargs["num_workers"]),
                **kwargs,
            )
            for name, kwargs in WORKER_CASES.items()
        }
        counts = {name: _epoch(dl) for name, dl in loaders.items()}
        assert set(counts.values()) == {len(dataset)}, counts
        stats = compare({name: lambda dl=dl: _epoch(dl) for name, dl in loaders.items()}, plan)
        base = stats["num_workers=0"]
        rows.append(
            {
                "dataset": label,
                "items": len(dataset),
                "batch": batch,
                "cases": {k: s.as_dict() for k, s in stats.items()},
                "speedup": {k: ratio(base, s) for k, s in stats.items() if k != "num_workers=0"},
            }
        )
        del loaders  # persistent workers end here
    fast, slow = (r["speedup"] for r in rows)
    return {
        "unit": "seconds per epoch",
        "rows": rows,
        "cpu_threads": torch.get_num_threads(),
        "headline": (
            f"against num_workers=0, an epoch with 2 workers is {faster(fast['num_workers=2'])} "
            f"({faster(fast['num_workers=2, persistent'])} if persistent) for items in memory, "
            f"and {faster(slow['num_workers=2'])} ({faster(slow['num_workers=2, persistent'])}) "
            f"for items that take {delay * 1000:g} ms each to load"
        ),
    }


def _small_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(4),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 10),
    )


def loader_pinning(
    plan: Plan,
    device: torch.device | str = "cuda",
    *,
    items: int | None = None,
    batch: int = 256,
    workers: int = 2,
) -> dict:
    """Train a small CNN for an epoch, fed by a DataLoader with and without pin_memory.

    With pinning the batches arrive in page-locked memory and move with `non_blocking=True`;
    without, they move from pageable memory, which the copy waits for.
    """
    device = torch.device(device)
    items = items or plan.pick(256, 8192)
    dataset = Images(items)
    sync = cuda_sync(device)
    with warnings.catch_warnings():
        # Without an accelerator (the CPU test of this code) pin_memory=True only warns.
        warnings.filterwarnings("ignore", message=".*pin_memory.*", category=UserWarning)
        loaders = {
            f"pin_memory={pin}": DataLoader(
                dataset,
                batch_size=batch,
                shuffle=True,
                num_workers=workers,
                pin_memory=pin,
                persistent_workers=workers > 0,
                multiprocessing_context="spawn" if workers else None,
            )
            for pin in (False, True)
        }

    models = {}
    for name in loaders:
        model = _small_model().to(device)
        models[name] = (model, torch.optim.SGD(model.parameters(), lr=0.01))

    def train_epoch(name: str) -> None:
        model, opt = models[name]
        non_blocking = loaders[name].pin_memory  # pinned batches can move asynchronously
        for x, y in loaders[name]:
            x = x.to(device, non_blocking=non_blocking)
            y = y.to(device, non_blocking=non_blocking)
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pin_memory.*", category=UserWarning)
        stats = compare(
            {name: lambda name=name: train_epoch(name) for name in loaders}, plan, sync=sync
        )
    row = {
        "items": items,
        "batch": batch,
        "batch_bytes": batch * dataset.x[0].numel() * 4,
        "workers": workers,
        "cases": {k: s.as_dict() for k, s in stats.items()},
        "speedup_pinned": ratio(stats["pin_memory=False"], stats["pin_memory=True"]),
    }
    return {
        "unit": "seconds per epoch",
        "device": str(device),
        "rows": [row],
        "headline": (
            f"an epoch with pin_memory=True and non_blocking copies is "
            f"{faster(row['speedup_pinned'])} than with pageable batches"
        ),
    }


def plot_loader_workers(ax, result: dict) -> None:
    bars(
        ax,
        result,
        group=lambda r: f"{r['dataset']} ({r['items']} items)",
        title="DataLoader: num_workers 0 vs 2",
        ylabel="seconds per epoch (median, min-max)",
    )


def plot_loader_pinning(ax, result: dict) -> None:
    bars(
        ax,
        result,
        group=lambda r: f"{r['items']} images, batch {r['batch']}",
        title="DataLoader feeding a CNN: pin_memory",
        ylabel="seconds per epoch (median, min-max)",
    )
