"""GPU: moving data between host and device, and waiting for it.

- `h2d_bandwidth`: host-to-device copies from pageable memory, from pinned memory, and from
  pinned memory with `non_blocking=True`, from 4 KiB to 1 GiB, as GB/s and as a fraction of
  what the PCIe link can carry.
- `row_transfer`: copying a tensor row by row against copying it whole.
- `item_logging`: reading the loss with `.item()` every step against keeping the log on the
  device and reading it once, over 1,000 small training steps.

Each copies into a destination allocated beforehand (`dst.copy_(src)`, which is what
`src.to(device)` does after allocating), so the figure is the copy, not the allocator.

Every function takes the device as an argument, so its code also runs on the CPU in the tests
(with a stand-in for `pin_memory`, which needs an accelerator); only a CUDA device gives
figures worth reading.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from benchmarks import machine
from benchmarks.report import bars, bytes_ticks
from benchmarks.timing import Plan, compare, cuda_sync, faster, human_bytes, ratio

FULL_SIZES = [4096 * 4**k for k in range(10)]  # 4 KiB .. 1 GiB
SMOKE_SIZES = [4096, 65536]
MODES = ("pageable", "pinned", "pinned, non_blocking")


def _pin(t: torch.Tensor) -> torch.Tensor:
    return t.pin_memory()


def _h2d_one_size(plan: Plan, device: torch.device, nbytes: int, pin, sync) -> dict:
    """One size: its buffers live only as long as this call."""
    pageable = torch.ones(nbytes, dtype=torch.uint8)  # touched, so no page faults while timed
    pinned = pin(pageable)
    dst = torch.empty(nbytes, dtype=torch.uint8, device=device)
    stats = compare(
        {
            "pageable": lambda: dst.copy_(pageable),
            "pinned": lambda: dst.copy_(pinned),
            "pinned, non_blocking": lambda: dst.copy_(pinned, non_blocking=True),
        },
        plan,
        sync=sync,
    )
    return {
        "bytes": nbytes,
        "cases": {k: s.as_dict() for k, s in stats.items()},
        "gb_per_s": {k: nbytes / s.median / 1e9 for k, s in stats.items()},
    }


def h2d_bandwidth(
    plan: Plan,
    device: torch.device | str = "cuda",
    *,
    sizes: Sequence[int] | None = None,
    pin: Callable[[torch.Tensor], torch.Tensor] = _pin,
) -> dict:
    """GB/s of `dst.copy_(src)` for pageable, pinned, and pinned + non_blocking sources."""
    device = torch.device(device)
    sizes = list(sizes or plan.pick(SMOKE_SIZES, FULL_SIZES))
    sync = cuda_sync(device)
    rows, skipped = [], []
    for nbytes in sizes:
        try:
            rows.append(_h2d_one_size(plan, device, nbytes, pin, sync))
        except (RuntimeError, MemoryError) as err:  # torch.OutOfMemoryError is a RuntimeError
            skipped.append({"bytes": nbytes, "reason": f"{type(err).__name__}: {err}"[:200]})
    link = machine.pcie_link(device)  # now, while the link is still awake from the copies
    for row in rows:
        row["fraction_of_link"] = {
            k: (v / link["gb_per_s"] if link["gb_per_s"] else None)
            for k, v in row["gb_per_s"].items()
        }
    if not rows:
        raise RuntimeError(f"h2d_bandwidth: no size fitted: {skipped}")
    last = rows[-1]
    best = max(MODES, key=lambda m: last["gb_per_s"][m])
    if link["gb_per_s"]:
        of_link = (
            f", {last['fraction_of_link'][best]:.0%} of the PCIe gen {link['gen']} "
            f"x{link['width']} link ({link['gb_per_s']:.1f} GB/s)"
        )
    else:
        of_link = f" (PCIe link unknown: {link['source']})"
    rates = ", ".join(f"{m} {last['gb_per_s'][m]:.1f}" for m in MODES)
    return {
        "unit": "GB/s (10**9 bytes per second)",
        "device": str(device),
        "link": link,
        "rows": rows,
        "skipped_sizes": skipped,
        "headline": f"at {human_bytes(last['bytes'])}: {rates} GB/s; best is {best}{of_link}",
    }


def row_transfer(
    plan: Plan,
    device: torch.device | str = "cuda",
    *,
    shapes: Sequence[tuple[int, int]] | None = None,
) -> dict:
    """Copy a (rows, cols) float32 tensor to the device one row at a time, or whole."""
    device = torch.device(device)
    shapes = list(
        shapes or plan.pick([(16, 64), (128, 64)], [(64, 1024), (1024, 1024), (16384, 64)])
    )
    sync = cuda_sync(device)
    rows = []
    for r, c in shapes:
        src = torch.randn(r, c)
        dst = torch.empty(r, c, device=device)

        def per_row(src=src, dst=dst):
            for i in range(len(src)):
                dst[i].copy_(src[i])

        def whole(src=src, dst=dst):
            dst.copy_(src)

        stats = compare({"whole tensor": whole, "row by row": per_row}, plan, sync=sync)
        per_row(src, dst)
        sync()
        rows.append(
            {
                "shape": [r, c],
                "bytes": r * c * 4,
                "cases": {k: s.as_dict() for k, s in stats.items()},
                "rows_over_whole": ratio(stats["row by row"], stats["whole tensor"]),
                "copied_right": bool(torch.equal(dst.cpu(), src)),
            }
        )
    worst = max(rows, key=lambda row: row["rows_over_whole"])
    return {
        "unit": "seconds per copy of the whole tensor",
        "device": str(device),
        "rows": rows,
        "headline": (
            f"row by row is {worst['rows_over_whole']:.0f}x slower than one copy for a "
            f"{worst['shape'][0]}x{worst['shape'][1]} tensor"
        ),
    }


def item_logging(
    plan: Plan, device: torch.device | str = "cuda", *, steps: int | None = None
) -> dict:
    """Steps of a small model with the loss read by `.item()` each step, or logged on device."""
    device = torch.device(device)
    steps = steps or 1000
    torch.manual_seed(0)
    x = torch.randn(32, 64, device=device)
    y = torch.randn(32, 1, device=device)

    def make():
        torch.manual_seed(1)
        model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
        return model, torch.optim.SGD(model.parameters(), lr=1e-3)

    def step(model, opt) -> torch.Tensor:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.detach()

    item_state, device_state = make(), make()

    def with_item() -> list[float]:
        return [step(*item_state).item() for _ in range(steps)]  # waits for the GPU each step

    def on_device() -> list[float]:
        log = torch.empty(steps, device=device)
        for i in range(steps):
            log[i] = step(*device_state)  # queued on the device, no wait
        return log.tolist()  # one wait, one copy

    # Same start, same data: both ways must log the same losses.
    same = with_item() == on_device()
    stats = compare(
        {".item() every step": with_item, "log on device": on_device}, plan, sync=cuda_sync(device)
    )
    slower = ratio(stats[".item() every step"], stats["log on device"])
    return {
        "unit": f"seconds per {steps} steps",
        "device": str(device),
        "steps": steps,
        "rows": [
            {
                "steps": steps,
                "cases": {k: s.as_dict() for k, s in stats.items()},
                "item_over_device": slower,
                "same_losses": same,
            }
        ],
        "headline": (
            f"logging the loss on the device is {faster(slower)} than .item() every step "
            f"({stats['log on device'].median / steps * 1e6:.0f} vs "
            f"{stats['.item() every step'].median / steps * 1e6:.0f} us per step)"
        ),
    }


def plot_h2d_bandwidth(ax, result: dict) -> None:
    xs = [r["bytes"] for r in result["rows"]]
    for mode in MODES:
        ax.plot(xs, [r["gb_per_s"][mode] for r in result["rows"]], marker="o", label=mode)
    link = result["link"]
    if link["gb_per_s"]:
        ax.axhline(
            link["gb_per_s"],
            color="grey",
            ls="--",
            label=f"PCIe gen {link['gen']} x{link['width']}",
        )
    ax.set_xscale("log", base=2)
    bytes_ticks(ax, xs)
    ax.set_xlabel("bytes per copy")
    ax.set_ylabel("GB/s (median)")
    ax.set_title("host to device: pageable vs pinned")
    ax.legend(fontsize="small")


def plot_row_transfer(ax, result: dict) -> None:
    bars(
        ax,
        result,
        group=lambda r: f"{r['shape'][0]}x{r['shape'][1]}",
        title="row by row vs the whole tensor",
        ylabel="seconds per tensor (median, min-max)",
        logy=True,
    )


def plot_item_logging(ax, result: dict) -> None:
    bars(
        ax,
        result,
        group=lambda r: f"{r['steps']} steps",
        title=".item() every step vs a log on the device",
        ylabel="seconds (median, min-max)",
    )
