"""Moves with `x.to(device)` and compares the result to decide nothing changed (a copy made
for nothing is dropped only when the device did not change), asks `torch.get_device_module`
whether a backend exists, snapshots with `x.detach().to(copy=True)`, and copies in numpy with
`np.array(a, copy=True)` on the array side only.
"""

from __future__ import annotations

import numpy as np
import torch


def _need(value, kind, name):
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {kind.__name__}, not {type(value).__name__}")


def shares_memory(a, b):
    _need(a, torch.Tensor, "a")
    _need(b, torch.Tensor, "b")
    if a.device != b.device:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if 0 in (sa.data_ptr(), sb.data_ptr()):  # no memory behind it: meta, or nothing allocated
        return False
    lo_a, hi_a = sa.data_ptr(), sa.data_ptr() + sa.nbytes()
    lo_b, hi_b = sb.data_ptr(), sb.data_ptr() + sb.nbytes()
    return not (hi_a <= lo_b or hi_b <= lo_a)


def _available(device: torch.device) -> int:
    if device.type in ("cpu", "meta"):
        return 1
    try:
        backend = torch.get_device_module(device.type)
    except RuntimeError:
        return 0
    return backend.device_count() if backend.is_available() else 0


def _same(a: torch.device, b: torch.device) -> bool:
    if a.type != b.type:
        return False
    if a.type == "cuda":
        # Only x's side can be a real GPU here; a bare "cuda" is the current one.
        ia = torch.cuda.current_device() if a.index is None else a.index
        ib = torch.cuda.current_device() if b.index is None else b.index
        return ia == ib
    return (a.index or 0) == (b.index or 0)


def move(x, device):
    _need(x, torch.Tensor, "x")
    if isinstance(device, str):
        try:
            device = torch.device(device)
        except RuntimeError:
            raise ValueError(f"move(x, {device!r}): unknown device") from None
    _need(device, torch.device, "device")
    if (device.index or 0) >= _available(device):
        raise ValueError(f"move(x, {str(device)!r}): that device does not exist here")
    if _same(x.device, device):
        return x
    return x.to(device)


def snapshot(x):
    _need(x, torch.Tensor, "x")
    return x.detach().to(copy=True)


_WIDEN = {torch.bfloat16: torch.float32, torch.complex32: torch.complex64}


def to_numpy(x, *, copy=False):
    _need(x, torch.Tensor, "x")
    if x.device == torch.device("meta"):
        raise ValueError("to_numpy(x): x is a meta tensor")
    direct = (
        x.device.type == "cpu"
        and x.layout == torch.strided
        and x.dtype not in _WIDEN
        and not (x.is_conj() or x.is_neg())
    )
    t = x.detach()
    if not direct:
        t = t.to_dense() if t.layout != torch.strided else t
        t = t.to("cpu", _WIDEN.get(t.dtype, t.dtype), copy=True).resolve_conj().resolve_neg()
        return t.numpy()
    return t.numpy().copy() if copy else t.numpy()


def from_numpy(a, *, copy=False):
    _need(a, np.ndarray, "a")
    native = a.dtype.newbyteorder("=")
    try:
        torch.from_numpy(np.empty(0, dtype=native))
    except TypeError as err:
        raise TypeError(f"from_numpy: dtype {a.dtype} is not supported ({err})") from None
    if copy:
        return torch.from_numpy(np.array(a, dtype=native, order="K", copy=True))
    shareable = all(s >= 0 for s in a.strides) and a.dtype.isnative and a.flags.writeable
    if not shareable:
        raise ValueError("from_numpy(a): cannot share this array without a copy; pass copy=True")
    return torch.from_numpy(a)
