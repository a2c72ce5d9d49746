"""Hypothesis strategies shared by every kata: shapes, dtypes, devices, tensors and views."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
INT_DTYPES = (torch.int64, torch.int32, torch.int16, torch.uint8)
DTYPES = (*FLOAT_DTYPES, *INT_DTYPES, torch.bool)

gpu_counts = st.integers(min_value=0, max_value=8)
"""How many GPUs a simulated machine has."""


def shapes(*, min_dims: int = 0, max_dims: int = 4, min_side: int = 0, max_side: int = 5):
    """Tensor shapes, e.g. (), (3,), (2, 0, 4)."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(
        tuple
    )


def dtypes(*, floating_only: bool = False):
    return st.sampled_from(FLOAT_DTYPES if floating_only else DTYPES)


def cpu_spellings():
    """The ways to spell the CPU device: "cpu", "cpu:0", torch.device("cpu"), ..."""
    return st.sampled_from(["cpu", "cpu:0", torch.device("cpu"), torch.device("cpu", 0)])


def device_spellings(device: torch.device):
    """Ways to spell `device` that all mean it (for cuda: with and without index 0)."""
    if device.type == "cpu":
        return cpu_spellings()
    index = device.index or 0
    options = [f"cuda:{index}", torch.device("cuda", index)]
    if index == 0:
        options += ["cuda", torch.device("cuda")]
    return st.sampled_from(options)


def make_tensor(shape, dtype: torch.dtype, seed: int, device="cpu") -> torch.Tensor:
    """A deterministic tensor with varied values (so copies and views are told apart)."""
    gen = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        t = torch.randint(0, 2, shape, generator=gen).bool()
    elif dtype.is_floating_point:
        t = torch.randn(shape, generator=gen).to(dtype)
    else:
        t = torch.randint(0, 100, shape, generator=gen).to(dtype)
    return t.to(device)


@st.composite
def tensors(draw, *, shape=None, dtype=None, device="cpu", floating_only=False):
    """A contiguous tensor with drawn values; its shape (a tuple, a strategy such as
    `shapes(min_dims=1)`, or None for any) and dtype are drawn unless given."""
    if shape is None:
        shape = shapes()
    if isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    dtype = draw(dtypes(floating_only=floating_only)) if dtype is None else dtype
    seed = draw(st.integers(0, 2**32 - 1))
    return make_tensor(shape, dtype, seed, device)


VIEW_KINDS = ("contiguous", "transposed", "permuted", "sliced", "stepped", "expanded")


@st.composite
def views(draw, *, kinds=VIEW_KINDS, dtype=None, device="cpu", floating_only=False):
    """(kind, view): a tensor made by one of VIEW_KINDS; all but "contiguous" and some slices
    are non-contiguous. The view shares storage with a base it keeps alive via `._base`."""
    kind = draw(st.sampled_from(kinds))
    base = draw(
        tensors(
            shape=draw(shapes(min_dims=2, max_dims=4, min_side=2, max_side=5)),
            dtype=dtype,
            device=device,
            floating_only=floating_only,
        )
    )
    if kind == "contiguous":
        view = base
    elif kind == "transposed":
        view = base.transpose(0, base.dim() - 1)
    elif kind == "permuted":
        perm = draw(st.permutations(range(base.dim())))
        view = base.permute(*perm)
    elif kind == "sliced":
        start = draw(st.integers(0, base.shape[-1] - 1))
        view = base[..., start:]
    elif kind == "stepped":
        view = base[..., ::2]
    else:  # expanded: a size-1 dim broadcast without copying (stride 0)
        view = base[:, :1].expand(-1, draw(st.integers(2, 4)), *base.shape[2:])
    return kind, view


@st.composite
def missing_devices(draw, n: int):
    """A device (a str or a torch.device) that does not exist on a machine with `n` GPUs: a GPU
    beyond the count, an accelerator this machine has no backend for, or a second CPU."""
    kind = draw(st.sampled_from(["cuda", "cuda", "mps", "xpu", "cpu", "meta"]))
    if kind == "cuda":
        index = draw(st.integers(n, n + 8))
        text = "cuda" if index == 0 and draw(st.booleans()) else f"cuda:{index}"
    elif kind in ("cpu", "meta"):
        text = f"{kind}:{draw(st.integers(1, 8))}"
    else:
        text = draw(st.sampled_from([kind, f"{kind}:0", f"{kind}:1"]))
    return torch.device(text) if draw(st.booleans()) else text
