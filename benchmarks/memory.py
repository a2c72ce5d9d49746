"""Activation memory: what a training step keeps for its backward pass, and what it costs to
keep less. Kata 13 (memory) teaches the three ways to run the same step:

- `plain`: `blocks(x)` on the whole batch, then backward;
- `checkpointed`: each block under `checkpoint(..., use_reentrant=False)`: only the blocks'
  inputs are kept, and each block runs again in the backward pass;
- `micro-batches`: the batch in four micro-batches, each one's loss weighted by its share and
  backpropagated before the next (gradient accumulation): a quarter of the activations at once.

`activation_memory` (CPU, and any device): the bytes the forward pass keeps, counted by
saved-tensor hooks (each storage once, parameters left out), and the time of one step per case.
`peak_memory` (CUDA): what the caching allocator really reached, `torch.cuda.max_memory_allocated`
above what was allocated before the step (weights and their gradients included).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from benchmarks.timing import Plan, compare, cuda_sync, human_bytes, ratio

WIDTH, HIDDEN, DEPTH = 256, 1024, 8
FULL_BATCHES = [64, 256, 1024]
SMOKE_BATCHES = [8, 16]
SMOKE_SHAPE = (16, 32, 3)  # width, hidden, depth
MICRO = 4  # micro-batches per batch
CASES = ("plain", "checkpointed", "micro-batches")


def make_blocks(width: int, hidden: int, depth: int, device) -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(
        *[
            nn.Sequential(nn.Linear(width, hidden), nn.GELU(), nn.Linear(hidden, width))
            for _ in range(depth)
        ]
    ).to(device)


def _checkpointed(blocks: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    for block in blocks:
        x = checkpoint(block, x, use_reentrant=False)
    return x


def steps(blocks: nn.Sequential, x: torch.Tensor) -> dict[str, Callable[[], None]]:
    """One forward and backward pass on `x` per case (gradients accumulate; nothing steps)."""

    def plain():
        blocks(x).square().mean().backward()

    def checkpointed():
        _checkpointed(blocks, x).square().mean().backward()

    def micro_batches():
        n = len(x)
        for part in x.split(max(n // MICRO, 1)):
            (blocks(part).square().mean() * (len(part) / n)).backward()

    return {"plain": plain, "checkpointed": checkpointed, "micro-batches": micro_batches}


def kept_bytes(fn: Callable[[], object], model: nn.Module) -> int:
    """The bytes the forward pass `fn()` saves for backward, each storage once, the model's
    parameters left out (kata 13's `activation_bytes`, written here with torch alone)."""
    own = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept: dict[int, int] = {}

    def pack(t):
        s = t.untyped_storage()
        if s.data_ptr() not in own:
            kept[s.data_ptr()] = s.nbytes()
        return t.detach()  # never t itself: a saved output would then outlive the graph

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return sum(kept.values())


def _forward_only(blocks: nn.Sequential, x: torch.Tensor) -> dict[str, Callable[[], object]]:
    """What each case keeps alive at its worst moment: the forward pass of the whole batch, of
    the checkpointed blocks, and of one micro-batch."""
    part = x[: max(len(x) // MICRO, 1)]
    return {
        "plain": lambda: blocks(x),
        "checkpointed": lambda: _checkpointed(blocks, x),
        "micro-batches": lambda: blocks(part),
    }


def activation_memory(
    plan: Plan,
    device: torch.device | str = "cpu",
    *,
    batches: Sequence[int] | None = None,
    shape: tuple[int, int, int] | None = None,
) -> dict:
    device = torch.device(device)
    batches = list(batches or plan.pick(SMOKE_BATCHES, FULL_BATCHES))
    width, hidden, depth = shape or plan.pick(SMOKE_SHAPE, (WIDTH, HIDDEN, DEPTH))
    blocks = make_blocks(width, hidden, depth, device)
    rows = []
    for batch in batches:
        x = torch.randn(batch, width, device=device)
        kept = {name: kept_bytes(fn, blocks) for name, fn in _forward_only(blocks, x).items()}
        stats = compare(steps(blocks, x), plan, sync=cuda_sync(device))
        rows.append(
            {
                "batch": batch,
                "kept_bytes": kept,
                "cases": {k: s.as_dict() for k, s in stats.items()},
                "checkpointed_over_plain_time": ratio(stats["checkpointed"], stats["plain"]),
                "checkpointed_share_of_bytes": kept["checkpointed"] / kept["plain"],
                "micro_share_of_bytes": kept["micro-batches"] / kept["plain"],
            }
        )
    last = rows[-1]
    headline = (
        f"at batch {last['batch']} ({depth} blocks {width}->{hidden}->{width}) the forward pass "
        f"keeps {human_bytes(last['kept_bytes']['plain'])}; checkpointing each block keeps "
        f"{last['checkpointed_share_of_bytes']:.0%} of that for "
        f"{last['checkpointed_over_plain_time']:.2f}x the step time, and {MICRO} micro-batches "
        f"keep {last['micro_share_of_bytes']:.0%} at a time"
    )
    return {
        "unit": "seconds per step (forward + backward)",
        "device": str(device),
        "shape": {"width": width, "hidden": hidden, "depth": depth, "micro_batches": MICRO},
        "rows": rows,
        "headline": headline,
    }


def _cuda_peak(device: torch.device) -> Callable[[Callable[[], None]], int]:
    def measure(fn: Callable[[], None]) -> int:
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        fn()
        torch.cuda.synchronize(device)
        return torch.cuda.max_memory_allocated(device) - before

    return measure


def peak_memory(
    plan: Plan,
    device: torch.device | str = "cuda",
    *,
    batches: Sequence[int] | None = None,
    shape: tuple[int, int, int] | None = None,
    measure: Callable[[Callable[[], None]], int] | None = None,
) -> dict:
    """Peak allocated memory of one step per case, on CUDA (`measure` replaces the allocator's
    counters, so the code path runs on the CPU in the tests)."""
    device = torch.device(device)
    batches = list(batches or plan.pick(SMOKE_BATCHES, FULL_BATCHES))
    width, hidden, depth = shape or plan.pick(SMOKE_SHAPE, (WIDTH, HIDDEN, DEPTH))
    measure = measure or _cuda_peak(device)
    blocks = make_blocks(width, hidden, depth, device)
    rows = []
    for batch in batches:
        x = torch.randn(batch, width, device=device)
        peaks = {}
        for name, step in steps(blocks, x).items():
            blocks.zero_grad(set_to_none=True)
            step()  # once first: the gradients' own memory is then allocated before measuring
            peaks[name] = measure(step)
        rows.append(
            {
                "batch": batch,
                "peak_bytes": peaks,
                "checkpointed_share": peaks["checkpointed"] / peaks["plain"]
                if peaks["plain"]
                else None,
                "micro_share": peaks["micro-batches"] / peaks["plain"] if peaks["plain"] else None,
            }
        )
    last = rows[-1]
    p = last["peak_bytes"]
    return {
        "unit": "bytes above the allocation before the step",
        "device": str(device),
        "shape": {"width": width, "hidden": hidden, "depth": depth, "micro_batches": MICRO},
        "rows": rows,
        "headline": (
            f"at batch {last['batch']} one step peaks {human_bytes(p['plain'])} above its start; "
            f"checkpointed {human_bytes(p['checkpointed'])}, {MICRO} micro-batches "
            f"{human_bytes(p['micro-batches'])}"
        ),
    }


def _bytes_panel(ax, result: dict, key: str, title: str, ylabel: str) -> None:
    from matplotlib.ticker import FuncFormatter

    xs = [r["batch"] for r in result["rows"]]
    for case in CASES:
        ax.plot(xs, [max(r[key][case], 1) for r in result["rows"]], marker="o", ms=3, label=case)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: human_bytes(v)))
    ax.set_xlabel("batch (rows)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")


def plot_activation_memory(ax, result: dict) -> None:
    _bytes_panel(ax, result, "kept_bytes", "activations kept for backward", "bytes kept")


def plot_peak_memory(ax, result: dict) -> None:
    _bytes_panel(ax, result, "peak_bytes", "peak CUDA memory of one step", "bytes above start")
