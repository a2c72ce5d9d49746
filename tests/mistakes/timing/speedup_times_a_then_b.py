"""Times all of `fn_a` and then all of `fn_b` (two `time_op` runs), so a machine that drifts
during the run credits the drift to one of them.

Caught by: test_speedup_interleaves_and_divides_the_medians
"""

from reference.timing import *


def speedup(fn_a, fn_b, *, device, warmup=3, repeats=10):
    a = time_op(fn_a, device=device, warmup=warmup, repeats=repeats)
    b = time_op(fn_b, device=device, warmup=warmup, repeats=repeats)
    return a["median_s"] / b["median_s"]
