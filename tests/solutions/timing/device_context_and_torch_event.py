"""Makes the timed GPU the current one for the duration (`with torch.cuda.device(device)`), so
that the device-agnostic `torch.Event(enable_timing=True)` records on it and a bare
`torch.cuda.synchronize()` waits for it. On the CPU it reads `timeit.default_timer`. The
statistics come from a tensor of the times (`torch.quantile(t, 0.5)` is the mean of the two
middle values for an even count).
"""

from __future__ import annotations

import contextlib
import timeit

import torch

from reference.timing import _check


def _samples(fns, device, warmup, repeats):
    """Warm up each of `fns`, then time them in turns; a list of times per function."""
    for _ in range(warmup):
        for fn in fns:
            fn()
    samples = [[] for _ in fns]
    context = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    with context:
        for _ in range(repeats):
            for out, fn in zip(samples, fns, strict=True):
                if device.type == "cuda":
                    start, end = torch.Event(enable_timing=True), torch.Event(enable_timing=True)
                    start.record()
                    fn()
                    end.record()
                    torch.cuda.synchronize()
                    out.append(start.elapsed_time(end) * 1e-3)
                else:
                    start = timeit.default_timer()
                    fn()
                    out.append(timeit.default_timer() - start)
    return samples


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    (times,) = _samples([fn], target, warmup, repeats)
    t = torch.tensor(times, dtype=torch.float64)
    return {
        "median_s": torch.quantile(t, 0.5).item(),
        "min_s": t.min().item(),
        "max_s": t.max().item(),
        "repeats": repeats,
    }


def speedup(fn_a, fn_b, *, device, warmup=3, repeats=10):
    target = _check("speedup", (fn_a, fn_b), device, warmup, repeats)
    times_a, times_b = _samples([fn_a, fn_b], target, warmup, repeats)
    median_a = torch.quantile(torch.tensor(times_a, dtype=torch.float64), 0.5).item()
    median_b = torch.quantile(torch.tensor(times_b, dtype=torch.float64), 0.5).item()
    for name, median in (("fn_a", median_a), ("fn_b", median_b)):
        if median == 0:
            raise ValueError(f"speedup: {name}'s median time is 0 s (below the clock's resolution)")
    return median_a / median_b
