"""Times CUDA calls with the GPU's own clock: two `torch.cuda.Event(enable_timing=True)`
recorded on the timed device's stream around each call, read with `elapsed_time` (milliseconds)
once the end event has completed; no host clock and no `synchronize` on CUDA. On the CPU it
reads `time.perf_counter()`. The median is computed by hand from the sorted times.
"""

from __future__ import annotations

import time

import torch


def _device(call, fns, device, warmup, repeats):
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"{call}: repeats must be an int of at least 1, got {repeats!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"{call}: warmup must be an int of 0 or more, got {warmup!r}")
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"{call}: device {device!r} is not a device") from None
    if parsed.type == "cpu":
        return parsed
    if parsed.type != "cuda" or not torch.cuda.is_available():
        raise ValueError(f"{call}: device {device!r} is not available here")
    index = torch.cuda.current_device() if parsed.index is None else parsed.index
    if index >= torch.cuda.device_count():
        raise ValueError(f"{call}: device {device!r}: no such GPU")
    return torch.device("cuda", index)


def _once(fn, device):
    if device.type == "cpu":
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    stream = torch.cuda.current_stream(device)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record(stream)
    fn()
    end.record(stream)
    end.synchronize()
    return start.elapsed_time(end) / 1000.0


def _median(times):
    ordered = sorted(times)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def time_op(fn, *, device, warmup=3, repeats=10):
    device = _device("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    times = [_once(fn, device) for _ in range(repeats)]
    return {
        "median_s": float(_median(times)),
        "min_s": float(min(times)),
        "max_s": float(max(times)),
        "repeats": repeats,
    }


def speedup(fn_a, fn_b, *, device, warmup=3, repeats=10):
    device = _device("speedup", (fn_a, fn_b), device, warmup, repeats)
    for _ in range(warmup):
        fn_a()
        fn_b()
    times = {"fn_a": [], "fn_b": []}
    for _ in range(repeats):
        times["fn_a"].append(_once(fn_a, device))
        times["fn_b"].append(_once(fn_b, device))
    medians = {name: _median(t) for name, t in times.items()}
    for name, median in medians.items():
        if median <= 0:
            raise ValueError(f"speedup: {name} took 0 s, too fast for the clock to measure")
    return float(medians["fn_a"] / medians["fn_b"])
