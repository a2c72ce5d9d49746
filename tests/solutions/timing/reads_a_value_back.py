"""A closed-book learner's first attempt (the fifth measure, kept as written), who knew no
torch call that waits for a GPU: it waits by reading a value back from the timed device,
`(marker + 0).item()` on a one-element tensor copied there once. On a real GPU that read waits
for everything queued before it on that GPU's stream; the tests' simulated GPUs answer it the
same way.
"""

from __future__ import annotations

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


def _waiter(target: torch.device) -> Callable[[], None]:
    """A function that returns only once the GPU `target` has run everything queued on it.

    I don't know a torch call that waits for the GPU, so: the queue runs in order, and
    `.item()` has to wait for its value, so queuing a tiny op on `target` and reading it back
    waits for everything queued before it. On the CPU there is nothing to wait for.
    """
    if target.type != "cuda":
        return lambda: None
    marker = torch.zeros(1).to(target)

    def wait() -> None:
        (marker + 0).item()

    return wait


def _time_once(fn: Callable[[], object], wait: Callable[[], None]) -> float:
    wait()  # earlier queued work is not this call's cost
    start = time.perf_counter_ns()  # steady, highest resolution
    fn()
    wait()  # the work fn queued is this call's cost
    return (time.perf_counter_ns() - start) / 1e9


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
    wait = _waiter(target)
    for _ in range(warmup):
        fn()
    wait()
    times = [_time_once(fn, wait) for _ in range(repeats)]
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
    wait = _waiter(target)
    for _ in range(warmup):
        fn_a()
        fn_b()
    wait()
    # Interleave, and swap the order every round (a b, b a, a b, ...), so a steady drift
    # falls on both functions alike instead of on whichever ran second.
    times_a: list[float] = []
    times_b: list[float] = []
    for i in range(repeats):
        if i % 2 == 0:
            times_a.append(_time_once(fn_a, wait))
            times_b.append(_time_once(fn_b, wait))
        else:
            times_b.append(_time_once(fn_b, wait))
            times_a.append(_time_once(fn_a, wait))
    median_a = statistics.median(times_a)
    median_b = statistics.median(times_b)
    for name, median in (("fn_a", median_a), ("fn_b", median_b)):
        if median == 0:
            raise ValueError(
                f"speedup: {name} has a median time of 0 s, faster than the clock can tell; "
                "the ratio would measure the clock"
            )
    return float(median_a / median_b)
