"""Snapshots with `clone().detach()` (the other order), normalises both devices to
`(type, index)` pairs with `torch.accelerator` for the current index, converts with
`Tensor.numpy(force=True)` when a conversion is needed, decides which numpy dtypes torch holds
by their kind, and copies from numpy with `np.ascontiguousarray` + `torch.from_numpy`.
"""

from __future__ import annotations

import numpy as np
import torch


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    for name, t in (("a", a), ("b", b)):
        if not torch.is_tensor(t):
            raise TypeError(f"shares_memory: {name} is a {type(t).__name__}, not a tensor")
    if (a.device.type, a.device.index) != (b.device.type, b.device.index) or a.is_meta:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if sa.nbytes() == 0 or sb.nbytes() == 0:
        return False
    start_a, start_b = sa.data_ptr(), sb.data_ptr()
    if start_a <= start_b:
        return start_b < start_a + sa.nbytes()
    return start_a < start_b + sb.nbytes()


def _exists(device: torch.device) -> bool:
    index = 0 if device.index is None else device.index
    if device.type in {"cpu", "meta"}:
        return index == 0
    if not torch.accelerator.is_available():
        return False
    if torch.accelerator.current_accelerator().type != device.type:
        return False
    return index < torch.accelerator.device_count()


def _key(device: torch.device, x: torch.Tensor) -> tuple[str, int]:
    if device.index is not None:
        return device.type, device.index
    if device.type in {"cpu", "meta"} or device.type != x.device.type:
        return device.type, 0
    return device.type, torch.accelerator.current_device_index()


def move(x: torch.Tensor, device) -> torch.Tensor:
    if not torch.is_tensor(x):
        raise TypeError(f"move: x is a {type(x).__name__}, not a tensor")
    if isinstance(device, str):
        try:
            device = torch.device(device)
        except RuntimeError as err:
            raise ValueError(f"move: cannot read the device {str(device)!r}: {err}") from None
    elif not isinstance(device, torch.device):
        raise TypeError(f"move: the device is a {type(device).__name__}")
    if not _exists(device):
        raise ValueError(f"move: {device} is not a device of this process")
    if _key(x.device, x) == _key(device, x):
        return x
    return x.to(device)


def snapshot(x: torch.Tensor) -> torch.Tensor:
    if not torch.is_tensor(x):
        raise TypeError(f"snapshot: x is a {type(x).__name__}, not a tensor")
    return x.clone().detach()


def to_numpy(x: torch.Tensor, *, copy: bool = False) -> np.ndarray:
    if not torch.is_tensor(x):
        raise TypeError(f"to_numpy: x is a {type(x).__name__}, not a tensor")
    if x.device.type == "meta":
        raise ValueError("to_numpy: x is on the meta device and has no values")
    plain = (
        x.device.type == "cpu"
        and x.layout == torch.strided
        and x.dtype not in (torch.bfloat16, torch.complex32)
        and not x.is_conj()
        and not x.is_neg()
    )
    if plain:
        array = x.detach().numpy()
        return array.copy() if copy else array
    if x.dtype == torch.bfloat16:
        x = x.float()
    elif x.dtype == torch.complex32:
        x = x.to(torch.complex64)
    return x.numpy(force=True)  # detach, to the CPU, resolve the bits: a new array


def from_numpy(a: np.ndarray, *, copy: bool = False) -> torch.Tensor:
    if not isinstance(a, np.ndarray):
        raise TypeError(f"from_numpy: a is a {type(a).__name__}, not a numpy.ndarray")
    # bool, ints, uints, floats and complex, but not numpy's extended precision
    if a.dtype.kind not in "biufc" or a.dtype in (np.longdouble, np.clongdouble):
        raise TypeError(f"from_numpy: torch cannot hold numpy's {a.dtype}")
    if copy:
        fresh = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
        if np.shares_memory(fresh, a):
            fresh = fresh.copy()
        return torch.from_numpy(fresh)
    reasons = [
        why
        for bad, why in (
            (any(stride < 0 for stride in a.strides), "a negative stride"),
            (not a.dtype.isnative, "a foreign byte order"),
            (not a.flags.writeable, "a read-only buffer"),
        )
        if bad
    ]
    if reasons:
        raise ValueError(f"from_numpy: cannot share an array with {', '.join(reasons)}; copy=True")
    return torch.from_numpy(a)
