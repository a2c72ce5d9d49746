"""Calls `numpy()` without `detach()` first, which raises `RuntimeError: Can't call numpy() on
Tensor that requires grad`, though detaching is free and shares memory.

Caught by: test_to_numpy_shares_memory_with_a_cpu_tensor
"""

from reference.copy_semantics import *


def to_numpy(x, *, copy=False):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"to_numpy: expected a tensor, not {type(x).__name__}")
    t = x.cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    array = t.resolve_conj().resolve_neg().numpy()
    return array.copy() if copy else array
