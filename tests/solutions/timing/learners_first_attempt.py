"""A learner's first attempt, written from the kata page and the stub alone, before any check
(issue 25's measurement, kept as written): it times with time.perf_counter_ns, waits for the
device it was given, and alternates which function goes first each round.
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
        if parsed.index is None:  # "cuda" is the current GPU; pin it, so every wait is on it
            parsed = torch.device("cuda", torch.cuda.current_device())
    return parsed


def _wait(target: torch.device) -> None:
    """Block until everything queued on `target` (all its streams) has run; nothing on a CPU."""
    if target.type == "cuda":
        torch.cuda.synchronize(target)


def _time_once(fn: Callable[[], object], target: torch.device) -> float:
    """Seconds that one call of `fn` cost on `target`, including the GPU work it queued."""
    _wait(target)  # earlier work (warm-up, the previous call) must not land in this time
    start = time.perf_counter_ns()  # steady (monotonic), ns resolution, elapsed time
    fn()
    _wait(target)  # the work fn queued may still be running when fn returns
    end = time.perf_counter_ns()
    return (end - start) / 1e9


def _median(times: list[float]) -> float:
    return float(statistics.median(times))  # even count: mean of the two middle ones


def time_op(
    fn: Callable[[], object],
    *,
    device: str | torch.device,
    warmup: int = 3,
    repeats: int = 10,
) -> dict:
    """Time `fn()` on `device`; return `{"median_s": ..., "min_s": ..., "max_s": ...,
    "repeats": repeats}`, the three times as Python floats in seconds.

    `fn` is called `warmup` times untimed, then `repeats` times, each timed on its own; with an
    even number of times, the median is the mean of the two middle ones. Each time is what
    that one call cost: on a CUDA device, all the work the call queued on that device (which
    may finish long after `fn` returns) and none of the work queued before it, the warm-up
    included. Times are elapsed time, read from a steady clock of the highest resolution, or
    from the GPU's own timing events.

    `device` is "cpu" or a CUDA device this machine has ("cuda" is the current one). Raises
    ValueError naming the argument, before `fn` is called at all, for `repeats` below 1,
    `warmup` below 0, or any other device.

    Written for you: those argument checks (`_check`), which also give the device to time on
    with its index (a bare "cuda" is the current GPU).
    """
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    times = [_time_once(fn, target) for _ in range(repeats)]
    return {
        "median_s": _median(times),
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

    Both functions get `warmup` untimed calls before any timed one; then `repeats` timed calls
    of each, every time taken as `time_op` takes it. The timed calls of the two are
    interleaved, so that a machine that speeds up or slows down steadily during the run
    (another job starting, a GPU warming up) affects both alike.

    Arguments are checked as in `time_op`. If either median is 0 s (the function ran faster
    than the clock can tell), raises ValueError naming that function (`fn_a` or `fn_b`):
    a ratio with a zero in it measures the clock, not the functions.

    Written for you: the argument checks (`_check`, as in `time_op`).
    """
    target = _check("speedup", (fn_a, fn_b), device, warmup, repeats)
    for _ in range(warmup):
        fn_a()
    for _ in range(warmup):
        fn_b()
    times_a: list[float] = []
    times_b: list[float] = []
    for i in range(repeats):
        # Interleave, and alternate who goes first (a b, b a, a b, ...), so a steady drift
        # does not always hit the same function one call later.
        if i % 2 == 0:
            times_a.append(_time_once(fn_a, target))
            times_b.append(_time_once(fn_b, target))
        else:
            times_b.append(_time_once(fn_b, target))
            times_a.append(_time_once(fn_a, target))
    median_a = _median(times_a)
    median_b = _median(times_b)
    if median_a == 0:
        raise ValueError(
            "speedup: fn_a's median time is 0 s; it ran faster than the clock can tell"
        )
    if median_b == 0:
        raise ValueError(
            "speedup: fn_b's median time is 0 s; it ran faster than the clock can tell"
        )
    return median_a / median_b
