"""Copy semantics: know when a tensor is copied, when it is shared, and when you get the very
same object back.

Three outcomes are possible whenever you "convert" a tensor: the same object (nothing to do),
a new tensor that shares memory with the old one (a view, `detach()`, `numpy()`), or a new
tensor with its own memory (a copy). Each function below picks one on purpose.
"""

from __future__ import annotations

import numpy as np
import torch

# BEGIN SOLUTION
# dtypes numpy has no equivalent for, and the exact, wider dtype used instead.
_WIDER = {torch.bfloat16: torch.float32, torch.complex32: torch.complex64}
_WIDER.update(
    {
        getattr(torch, name): torch.float32
        for name in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")
        if hasattr(torch, name)
    }
)
# END SOLUTION


# BEGIN SOLUTION
def _check_tensor(function: str, name: str, value: object) -> None:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{function}: {name} must be a torch.Tensor, not {type(value).__name__}")


# END SOLUTION


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when `a` and `b` use the same memory: the same storage, on the same device.

    Compare storages, not `data_ptr()`: a slice starts elsewhere in the same storage. An empty
    storage holds no memory, so it shares nothing.
    """
    # BEGIN SOLUTION
    _check_tensor("shares_memory(a, b)", "a", a)
    _check_tensor("shares_memory(a, b)", "b", b)
    if a.device != b.device:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    a0, b0 = sa.data_ptr(), sb.data_ptr()
    # Two byte ranges [start, end) overlap when each starts before the other ends.
    return a0 < b0 + sb.nbytes() and b0 < a0 + sa.nbytes()
    # END SOLUTION


# BEGIN SOLUTION
def _resolved(device: torch.device, x_device: torch.device) -> torch.device:
    """`device` with its index filled in, asking CUDA only when `x` is on CUDA already."""
    if device.index is not None:
        return device
    if device.type == "cuda" and x_device.type == "cuda":
        return torch.device("cuda", torch.cuda.current_device())
    if device.type in ("cpu", "meta"):
        return torch.device(device.type, 0)
    return device


# END SOLUTION


def move(x: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """Put `x` on `device`: `x` itself when it is already there, else a copy there.

    "cpu", "cpu:0" and torch.device("cpu") all name the one CPU, and "cuda" names the current
    GPU, so compare type and index after filling in the missing index.
    """
    # BEGIN SOLUTION
    _check_tensor(f"move(x, {device!r})", "x", x)
    if isinstance(device, str):
        try:
            target = torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"move(x, {device!r}): not a device torch understands; try 'cpu' or 'cuda:0'"
            ) from None
    elif isinstance(device, torch.device):
        target = device
    else:
        raise TypeError(
            f"move(x, {device!r}): device must be a str or a torch.device, "
            f"not {type(device).__name__}"
        )
    here = _resolved(x.device, x.device)
    there = _resolved(target, x.device)
    if (here.type, here.index) == (there.type, there.index):
        return x
    return x.to(target)
    # END SOLUTION


def snapshot(x: torch.Tensor) -> torch.Tensor:
    """An independent copy of `x`: equal values, same dtype and device, out of the graph.

    `detach()` cuts the graph but shares memory and the version counter; `clone()` owns its
    memory but stays in the graph. Together they give a snapshot.
    """
    # BEGIN SOLUTION
    _check_tensor("snapshot(x)", "x", x)
    return x.detach().clone()
    # END SOLUTION


def to_numpy(x: torch.Tensor, *, copy: bool = False) -> np.ndarray:
    """`x` as a numpy array, for any tensor.

    A strided CPU tensor whose dtype numpy has, without a conjugate or negative bit, needs no
    conversion: with `copy=False` the array shares its memory. Otherwise each step that is
    needed (detach, to the CPU, to a wider dtype, resolve the bits) runs, and copies at most
    once. `copy=True` always gives an array that owns its memory.
    """
    # BEGIN SOLUTION
    _check_tensor("to_numpy(x)", "x", x)
    if x.device.type == "meta":
        raise ValueError(f"to_numpy(x): x is on the meta device, which holds no values ({x!r})")
    t = x.detach()  # free: shares memory, only leaves the graph
    fresh = False  # does `t` own memory that nobody else sees?
    if t.layout != torch.strided:
        t, fresh = t.to_dense(), True
    if t.device.type != "cpu":
        t, fresh = t.cpu(), True
    if t.is_quantized:
        t, fresh = t.dequantize(), True
    if t.dtype in _WIDER:
        t, fresh = t.to(_WIDER[t.dtype]), True
    if t.is_conj():
        t, fresh = t.resolve_conj(), True
    if t.is_neg():
        t, fresh = t.resolve_neg(), True
    array = t.numpy()
    if copy and not fresh:
        array = array.copy()
    return array
    # END SOLUTION


def from_numpy(a: np.ndarray, *, copy: bool = False) -> torch.Tensor:
    """`a` as a CPU tensor: sharing its memory (`copy=False`) or owning a copy (`copy=True`).

    Sharing needs what torch supports: non-negative strides, the machine's byte order and a
    writable array. When one is missing, `copy=False` raises ValueError (as numpy 2 does for
    `np.asarray(a, copy=False)`), and `copy=True` still works.
    """
    # BEGIN SOLUTION
    if not isinstance(a, np.ndarray):
        hint = " (it is a tensor already)" if isinstance(a, torch.Tensor) else ""
        raise TypeError(f"from_numpy(a): a must be a numpy.ndarray, not {type(a).__name__}{hint}")
    try:  # torch knows bool, ints, floats and complex; not str, object, datetime...
        torch.from_numpy(np.empty(0, dtype=a.dtype.newbyteorder("=")))
    except TypeError:
        raise TypeError(f"from_numpy(a): torch has no dtype for numpy's {a.dtype}") from None
    if copy:
        return torch.from_numpy(np.array(a, dtype=a.dtype.newbyteorder("="), copy=True))
    problems = []
    if any(s < 0 for s in a.strides):
        problems.append(f"negative strides {a.strides}")
    if not a.dtype.isnative:
        problems.append(f"byte order {a.dtype.byteorder!r}, not this machine's")
    if not a.flags.writeable:
        problems.append("it is read-only, and a tensor could write to it")
    if problems:
        raise ValueError(
            f"from_numpy(a, copy=False): torch cannot share this array ({'; '.join(problems)}); "
            "pass copy=True"
        )
    return torch.from_numpy(a)
    # END SOLUTION
