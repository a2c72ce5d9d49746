"""CPU: what is free and what copies. `view` against a `reshape` that must copy, and
`x.to(x.device)` (the same object) against `x.to(x.device, copy=True)`.

Kata 7 (view vs reshape) and kata 2 (copy semantics) teach these rules; here is their price.
Each size is a float32 tensor of that many bytes, square where it can be.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from benchmarks.report import lines
from benchmarks.timing import Plan, compare, human_bytes, log_slope, ratio

# Bytes of float32 data: 4 KiB to 64 MiB by factors of 4 (full), a few KiB (smoke).
FULL_SIZES = [4096 * 4**k for k in range(8)]
SMOKE_SIZES = [1024, 4096, 16384]


def _square(nbytes: int) -> torch.Tensor:
    n = nbytes // 4
    rows = 1 << ((n.bit_length() - 1) // 2)
    return torch.randn(rows, n // rows)


def _shares(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _slopes(rows: list[dict], cases: Sequence[str]) -> dict[str, float]:
    """Log-log slope per case over the upper half of the sizes, where fixed costs fade."""
    upper = rows[len(rows) // 2 :] if len(rows) >= 4 else rows
    if len(upper) < 2:
        return {}
    xs = [r["bytes"] for r in upper]
    return {c: round(log_slope(xs, [r["cases"][c]["median"] for r in upper]), 3) for c in cases}


def view_reshape(plan: Plan, *, sizes: Sequence[int] | None = None) -> dict:
    """`x.view(n)` vs `x.reshape(n)` (contiguous: a view) vs `x.t().reshape(n)` (must copy)."""
    sizes = list(sizes or plan.pick(SMOKE_SIZES, FULL_SIZES))
    rows = []
    for nbytes in sizes:
        x = _square(nbytes)
        xt = x.t()  # not contiguous: no view of it can be flat
        n = x.numel()
        checks = {
            "view shares storage": _shares(x.view(n), x),
            "reshape of contiguous shares storage": _shares(x.reshape(n), x),
            "reshape of transposed shares storage": _shares(xt.reshape(n), x),
        }
        stats = compare(
            {
                "view": lambda x=x, n=n: x.view(n),
                "reshape (a view)": lambda x=x, n=n: x.reshape(n),
                "reshape (copies)": lambda xt=xt, n=n: xt.reshape(n),
            },
            plan,
        )
        rows.append(
            {
                "bytes": nbytes,
                "shape": list(x.shape),
                "cases": {k: s.as_dict() for k, s in stats.items()},
                "copy_over_view": ratio(stats["reshape (copies)"], stats["view"]),
                "checks": checks,
            }
        )
    slopes = _slopes(rows, ["view", "reshape (copies)"])
    last = rows[-1]
    headline = (
        f"at {human_bytes(last['bytes'])} a reshape that copies takes "
        f"{last['copy_over_view']:.0f}x as long as a view"
    )
    if slopes:
        headline += (
            f"; log-log slope {slopes['view']:.2f} for view (O(1)) and "
            f"{slopes['reshape (copies)']:.2f} for the copy (O(n))"
        )
    return {
        "unit": "seconds per call",
        "rows": rows,
        "slopes": slopes,
        "headline": headline,
    }


def same_device_to(plan: Plan, *, sizes: Sequence[int] | None = None) -> dict:
    """`x.to(x.device)` returns x itself; `copy=True` always copies."""
    sizes = list(sizes or plan.pick(SMOKE_SIZES, FULL_SIZES))
    rows = []
    for nbytes in sizes:
        x = _square(nbytes)
        d = x.device
        checks = {
            "to(x.device) is x": x.to(d) is x,
            "copy=True shares storage": _shares(x.to(d, copy=True), x),
        }
        stats = compare(
            {
                "x.to(x.device)": lambda x=x, d=d: x.to(d),
                "x.to(x.device, copy=True)": lambda x=x, d=d: x.to(d, copy=True),
            },
            plan,
        )
        rows.append(
            {
                "bytes": nbytes,
                "cases": {k: s.as_dict() for k, s in stats.items()},
                "copy_over_same": ratio(
                    stats["x.to(x.device, copy=True)"], stats["x.to(x.device)"]
                ),
                "checks": checks,
            }
        )
    slopes = _slopes(rows, ["x.to(x.device)", "x.to(x.device, copy=True)"])
    last = rows[-1]
    return {
        "unit": "seconds per call",
        "rows": rows,
        "slopes": slopes,
        "headline": (
            f"at {human_bytes(last['bytes'])} copy=True takes {last['copy_over_same']:.0f}x as "
            "long as x.to(x.device), which returns x itself"
        ),
    }


def plot_view_reshape(ax, result: dict) -> None:
    lines(
        ax,
        result,
        x=lambda r: r["bytes"],
        cases=["view", "reshape (a view)", "reshape (copies)"],
        title="view vs a reshape that copies",
        xlabel="tensor size",
        bytes_axis=True,
    )


def plot_same_device_to(ax, result: dict) -> None:
    lines(
        ax,
        result,
        x=lambda r: r["bytes"],
        cases=["x.to(x.device)", "x.to(x.device, copy=True)"],
        title="x.to(x.device) vs copy=True",
        xlabel="tensor size",
        bytes_axis=True,
    )
