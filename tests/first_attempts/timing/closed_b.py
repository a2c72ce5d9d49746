"""Waits by reading one value of the result back after the call, so the clock starts with work
still queued.

Written from: the kata page and the stub only.
Message: returns as soon as its work is queued

Written by a learner (a student after the 60-minute blitz only, who writes an attempt with the
torch the blitz teaches and the names the page shows, and lets the checker answer) as a first
attempt, before any check, on 2026-11-27; kept as written.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable

import torch


def _check(
    call: str, fns: tuple[object, ...], device: object, warmup: object, repeats: object
) -> torch.device:
    """Refuse bad arguments before anything runs; return the parsed device, with a bare
    "cuda" pinned to the current GPU's index (given: argument checks, not the lesson)."""
    for name, value in (("warmup", warmup), ("repeats", repeats)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{call}: {name} must be an int, not {type(value).__name__}")
    if repeats < 1:
        raise ValueError(f"{call}: repeats={repeats}; it must be at least 1 (one timed call)")
    if warmup < 0:
        raise ValueError(f"{call}: warmup={warmup}; it must be 0 or more")
    for fn in fns:
        if not callable(fn):
            raise TypeError(f"{call}: expected a function to time, got {type(fn).__name__}")
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"{call}: device must be a str or a torch.device, not {device!r}")
    try:
        parsed = torch.device(device)
    except RuntimeError:
        raise ValueError(
            f"{call}: device={device!r} is not a device torch understands; try 'cpu' or 'cuda'"
        ) from None
    if parsed.type not in ("cpu", "cuda"):
        raise ValueError(f"{call}: device={device!r}; this times on 'cpu' or 'cuda' only")
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"{call}: device={device!r}, but torch.cuda.is_available() is False")
        count = torch.cuda.device_count()
        if parsed.index is not None and parsed.index >= count:
            raise ValueError(f"{call}: device={device!r}, but this machine has {count} GPU(s)")
        if parsed.index is None:  # a bare "cuda" means the current GPU: pin its index
            parsed = torch.device("cuda", torch.cuda.current_device())
    return parsed


def time_op(
    fn: Callable[[], object],
    *,
    device: str | torch.device,
    warmup: int = 3,
    repeats: int = 10,
) -> dict:
    """Time `fn()` on `device`; return `{"median_s": ..., "min_s": ..., "max_s": ...,
    "repeats": repeats}`, the three times as Python floats in seconds.

    `fn` is called `warmup` times untimed, then `repeats` times, each timed on its own. Each
    time is what that one call cost, and nothing else: on a GPU, the work the call queued on
    `device`. Times are elapsed time, read from a steady clock of the highest resolution, or
    from the GPU's own timing events.

    Written for you: the argument checks (`_check` refuses bad arguments before `fn` runs),
    which also give the device to time on, with its index.
    """
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        _wait(fn(), target)
    times = [_time_once(fn, target) for _ in range(repeats)]
    return {
        "median_s": float(statistics.median(times)),
        "min_s": float(min(times)),
        "max_s": float(max(times)),
        "repeats": repeats,
    }


def speedup(
    fn_a: Callable[[], object],
    fn_b: Callable[[], object],
    *,
    device: str | torch.device,
    warmup: int = 3,
    repeats: int = 10,
) -> float:
    """How many times faster `fn_b` is than `fn_a`: the median time of `fn_a` over the median
    time of `fn_b`, as a Python float (2.0: `fn_b` takes half the time).

    Both functions get `warmup` untimed calls before any timed one, then `repeats` timed calls
    each, every one timed as `time_op` times it. A machine that speeds up or slows down
    steadily during the run (another job starting, a GPU warming up) tilts neither. A median
    of 0 s (faster than the clock can tell) would make the ratio measure the clock: that
    raises ValueError naming the function (`fn_a` or `fn_b`).

    Written for you: the argument checks (`_check`, as in `time_op`).
    """
    target = _check("speedup", (fn_a, fn_b), device, warmup, repeats)
    for _ in range(warmup):
        _wait(fn_a(), target)
        _wait(fn_b(), target)
    times_a: list[float] = []
    times_b: list[float] = []
    # interleave in A B B A A B B A ... order, so a steady drift falls on both equally
    for i in range(repeats):
        if i % 2 == 0:
            times_a.append(_time_once(fn_a, target))
            times_b.append(_time_once(fn_b, target))
        else:
            times_b.append(_time_once(fn_b, target))
            times_a.append(_time_once(fn_a, target))
    median_a = statistics.median(times_a)
    median_b = statistics.median(times_b)
    for name, median in (("fn_a", median_a), ("fn_b", median_b)):
        if median == 0:
            raise ValueError(
                f"speedup: {name} has a median time of 0 s, faster than the clock can tell; "
                "the ratio would measure the clock, not the code"
            )
    return float(median_a / median_b)


def _wait(result: object, target: torch.device) -> None:
    """Wait until the GPU has really done the work behind `result`.

    Unsure: I don't know a torch call that waits for the GPU's queue. Reading one value back
    to Python with `.item()` has to wait for the work that produced it, so I do that when `fn`
    returns a CUDA tensor. If `fn` returns nothing, I cannot wait.
    """
    if target.type != "cuda":
        return
    tensors = result if isinstance(result, (tuple, list)) else [result]
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.device.type == "cuda" and math.prod(t.shape) > 0:
            torch.flatten(t)[0].item()


def _time_once(fn: Callable[[], object], target: torch.device) -> float:
    """Seconds one call of `fn` costs, waiting for its GPU work (see `_wait`)."""
    start = time.perf_counter_ns()  # steady, highest-resolution elapsed-time clock
    result = fn()
    _wait(result, target)
    return (time.perf_counter_ns() - start) / 1e9
