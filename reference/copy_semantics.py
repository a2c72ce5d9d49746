"""Copy semantics: know when a tensor is copied, when it is shared, and when you get the very
same object back.

Whenever you "convert" a tensor, one of three things happens: you get the same object back
(nothing to do), a new tensor that shares memory with the old one (change one, and the other
changes too), or a new tensor with memory of its own (a copy). Each function below promises
one of them on purpose; getting the wrong one is a silent bug, or a slow one.
"""

from __future__ import annotations

import numpy as np
import torch

# BEGIN SOLUTION
# dtypes numpy has no equivalent for, and the exact, wider dtype used instead.
_WIDER = {torch.bfloat16: torch.float32, torch.complex32: torch.complex64}
_WIDER.update(
    {getattr(torch, name): torch.float32 for name in dir(torch) if name.startswith("float8_")}
)


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


def _check_tensor(function: str, name: str, value: object) -> None:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{function}: {name} must be a torch.Tensor, not {type(value).__name__}")


def _count(kind: str) -> int:
    """How many devices of the accelerator type `kind` this process can use (0: none)."""
    if kind in ("cpu", "meta"):
        return 1
    if kind == "cuda":
        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None and accelerator.type == kind:
            return torch.accelerator.device_count()
    return 0


def _existing(device: object, call: str) -> torch.device:
    """`device` (a str or a `torch.device`) as a `torch.device` that exists in this process
    (kata 1's question), or the ValueError or TypeError that `move` promises."""
    if isinstance(device, str):
        try:
            target = torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"{call}: not a device torch understands; try 'cpu' or 'cuda:0'"
            ) from None
    elif isinstance(device, torch.device):
        target = device
    else:
        raise TypeError(
            f"{call}: device must be a str or a torch.device, not {type(device).__name__}"
        )
    index, n = target.index or 0, _count(target.type)
    if index >= n:
        names = ", ".join(f"{target.type}:{k}" for k in range(n))
        has = f"{n} {target.type} device(s) ({names})" if n else f"no {target.type} device"
        raise ValueError(
            f"{call}: there is no {target.type}:{index} in this process, which has {has}"
        )
    return target


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when `a` and `b` use the same memory: the storages they view overlap.

    Bad arguments are refused by the given checks; sparse tensors are not asked about.
    """
    _check_tensor("shares_memory(a, b)", "a", a)
    _check_tensor("shares_memory(a, b)", "b", b)
    # BEGIN SOLUTION: decide whether a and b use the same memory
    if a.device != b.device or a.device.type == "meta":  # meta storages have no memory
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if sa.nbytes() == 0 or sb.nbytes() == 0:
        return False
    a0, b0 = sa.data_ptr(), sb.data_ptr()
    # Two byte ranges [start, end) overlap when each starts before the other ends: two storages
    # made from overlapping parts of one buffer (say, a numpy array) start at different places.
    return a0 < b0 + sb.nbytes() and b0 < a0 + sa.nbytes()
    # END SOLUTION


def move(x: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """`x` on `device`: `x` itself when it is already there; else a copy there, with the same
    values and dtype. `x` is never changed, and moving a CPU tensor to the CPU never starts
    CUDA.

    The given checks refuse a device that does not exist here, and bad arguments.
    """
    _check_tensor(f"move(x, {device!r})", "x", x)
    target = _existing(device, f"move(x, {device!r})")
    # BEGIN SOLUTION: x on target
    here = _resolved(x.device, x.device)
    there = _resolved(target, x.device)
    if (here.type, here.index) == (there.type, there.index):
        return x
    return x.to(target)
    # END SOLUTION


def snapshot(x: torch.Tensor) -> torch.Tensor:
    """An independent copy of `x`: equal values, the same dtype, shape and device, and nothing
    done to `x` later shows in it. It is no part of the autograd graph, and taking it raises no
    warning.

    Bad arguments are refused by the given checks.
    """
    _check_tensor("snapshot(x)", "x", x)
    # BEGIN SOLUTION: make the independent copy
    return x.detach().clone()
    # END SOLUTION


def to_numpy(x: torch.Tensor, *, copy: bool = False) -> np.ndarray:
    """`x`'s values, exactly, as a numpy array: for a tensor on any device, of any dtype, that
    may require grad.

    With `copy=False`, the array shares `x`'s memory whenever numpy can view that memory as `x`'s
    values; with `copy=True`, the array owns its memory. It raises no warning.

    The given checks refuse a meta tensor (it holds no values) and bad arguments.
    """
    _check_tensor("to_numpy(x)", "x", x)
    if x.device.type == "meta":
        raise ValueError(f"to_numpy(x): x is on the meta device, which holds no values ({x!r})")
    # BEGIN SOLUTION: decide when the array can share x's memory, and when it must be a copy
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
    """`a` as a CPU tensor with its values, shape and dtype: sharing `a`'s memory with
    `copy=False`, owning a copy with `copy=True`.

    When a tensor cannot safely share `a`'s memory, `copy=False` raises ValueError suggesting
    `copy=True`, which always works. Bad arguments are refused by the given checks.
    """
    if not isinstance(a, np.ndarray):
        hint = " (it is a tensor already)" if isinstance(a, torch.Tensor) else ""
        raise TypeError(f"from_numpy(a): a must be a numpy.ndarray, not {type(a).__name__}{hint}")
    try:  # torch knows bool, ints, floats and complex; not str, object, datetime...
        torch.from_numpy(np.empty(0, dtype=a.dtype.newbyteorder("=")))
    except TypeError:
        raise TypeError(f"from_numpy(a): torch has no dtype for numpy's {a.dtype}") from None
    # BEGIN SOLUTION: decide when the tensor can share a's memory, and when it must copy
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
