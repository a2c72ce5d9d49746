"""A learner's first attempt, written from the kata page and the stub alone, before any check
(issue 25's measurement, kept as written): it asks each backend's module for is_available() and
device_count(), and reads CUDA_VISIBLE_DEVICES entry by entry with a strict digits-only match.
"""

from __future__ import annotations

import torch


def _requested(requested: object) -> torch.device:
    """`requested` (a str or a `torch.device`) as a `torch.device`: a ValueError quoting a string
    torch cannot parse, a TypeError for anything else. Whether the device exists is not asked."""
    if isinstance(requested, torch.device):
        return requested
    if not isinstance(requested, str):
        raise TypeError(
            f"pick_device({requested!r}): expected a str, a torch.device or None, "
            f"not {type(requested).__name__}"
        )
    try:
        return torch.device(requested)
    except RuntimeError:
        raise ValueError(
            f"pick_device({requested!r}): not a device torch understands; "
            "try 'cpu', 'cuda' or 'cuda:1'"
        ) from None


def try_gpu(i: int = 0) -> torch.device:
    """The GPU `cuda:i` when this process can use it, otherwise the CPU.

    A negative `i` raises ValueError; an `i` that is not an int raises TypeError (these checks
    are written for you).

    >>> try_gpu(0)   # on a laptop without a GPU
    device(type='cpu')
    """
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"try_gpu(i={i!r}): i must be an int, not {type(i).__name__}")
    if i < 0:
        raise ValueError(f"try_gpu(i={i}): a GPU index cannot be negative")
    if torch.cuda.is_available() and i < torch.cuda.device_count():
        return torch.device("cuda", i)
    return torch.device("cpu")


def try_all_gpus() -> list[torch.device]:
    """Every GPU this process can use, in order (`[cuda:0, ..., cuda:n-1]`), or `[cpu]` when
    there is none, so that the caller always has somewhere to run."""
    if torch.cuda.is_available():
        n = torch.cuda.device_count()
        if n > 0:
            return [torch.device("cuda", i) for i in range(n)]
    return [torch.device("cpu")]


def pick_device(
    requested: str | torch.device | None = None, *, disable_cuda: bool = False
) -> torch.device:
    """Turn a request (say, a `--device` flag) into a `torch.device` that exists here.

    `None` asks for the best there is: `cuda:0` when this process can use a GPU and
    `disable_cuda` (say, a `--disable-cuda` flag) is false, else the CPU.

    A request (a string or a `torch.device`) comes back as that `torch.device` (a bare `cuda`
    may come back with the current GPU's index) when it exists:
    - `cpu` and `meta`, with no index or index 0, exist on every machine;
    - an accelerator (`cuda`, `mps`, `xpu`, ...) exists when its backend is available in this
      process and the index is below its device count (no index means the current one);
      with `disable_cuda`, no `cuda` device exists.

    A request that does not exist raises ValueError naming the request and what exists; a
    string torch cannot parse raises ValueError quoting it; a request of any other type (an int
    too) raises TypeError. (Parsing the request, with those two errors, is written for you.)
    """
    cuda_ok = (not disable_cuda) and torch.cuda.is_available() and torch.cuda.device_count() > 0
    if requested is None:
        return torch.device("cuda", 0) if cuda_ok else torch.device("cpu")
    device = _requested(requested)

    if device.type in ("cpu", "meta"):
        if device.index is None or device.index == 0:
            return device
        raise ValueError(
            f"pick_device({requested!r}): there is only one {device.type} device "
            f"({device.type} or {device.type}:0); exists here: {_existing(disable_cuda)}"
        )

    if device.type == "cuda":
        if not cuda_ok:
            why = "CUDA is disabled" if disable_cuda else "this process has no usable CUDA GPU"
            raise ValueError(
                f"pick_device({requested!r}): {why}; exists here: {_existing(disable_cuda)}"
            )
        count = torch.cuda.device_count()
        if device.index is None:
            return torch.device("cuda", torch.cuda.current_device())
        if device.index < count:
            return device
        raise ValueError(
            f"pick_device({requested!r}): this process sees {count} GPU(s); "
            f"exists here: {_existing(disable_cuda)}"
        )

    # some other accelerator: mps, xpu, ...
    backend = getattr(torch, device.type, None)
    available = False
    count = 0
    if backend is not None and hasattr(backend, "is_available"):
        try:
            available = bool(backend.is_available())
            if available:
                count = int(backend.device_count()) if hasattr(backend, "device_count") else 1
        except Exception:
            available = False
    if available and (device.index is None or device.index < count):
        return device
    raise ValueError(
        f"pick_device({requested!r}): no such device in this process; "
        f"exists here: {_existing(disable_cuda)}"
    )


def _existing(disable_cuda: bool) -> str:
    """A short list of the devices that exist here, for error messages."""
    names = ["cpu", "meta"]
    if not disable_cuda and torch.cuda.is_available():
        names += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    for name in ("mps", "xpu"):
        backend = getattr(torch, name, None)
        try:
            if backend is not None and backend.is_available():
                n = backend.device_count() if hasattr(backend, "device_count") else 1
                names += [f"{name}:{i}" for i in range(n)]
        except Exception:
            pass
    return ", ".join(names)


def physical_gpu_id(logical: int, visible: str | None) -> int:
    """The physical id of the in-process GPU `cuda:logical` under `CUDA_VISIBLE_DEVICES`.

    `visible` is the variable's value: `None` when it is unset (every GPU, in order), or
    comma-separated physical ids such as `"2,0"` (then `cuda:0` is physical GPU 2), where an
    entry is digits with optional spaces around them. A value that is empty, holds any other
    entry (`"1.5"`, `"+1"`, a GPU UUID) or lists an id twice, a `logical` beyond the GPUs it
    makes visible, and a negative `logical` all raise ValueError. (The check of `logical`, and
    the answer when the variable is unset, are written for you.)
    """
    if isinstance(logical, bool) or not isinstance(logical, int) or logical < 0:
        raise ValueError(f"physical_gpu_id: logical index {logical!r} must be an int >= 0")
    if visible is None:
        return logical
    if visible.strip() == "":
        raise ValueError("physical_gpu_id: CUDA_VISIBLE_DEVICES is empty, so no GPU is visible")
    ids = []
    for entry in visible.split(","):
        e = entry.strip()
        if not e.isdigit():
            raise ValueError(
                f"physical_gpu_id: CUDA_VISIBLE_DEVICES={visible!r} has a bad entry {entry!r}; "
                "expected comma-separated GPU ids like '2,0'"
            )
        gpu = int(e)
        if gpu in ids:
            raise ValueError(
                f"physical_gpu_id: CUDA_VISIBLE_DEVICES={visible!r} lists GPU {gpu} twice"
            )
        ids.append(gpu)
    if logical >= len(ids):
        raise ValueError(
            f"physical_gpu_id: cuda:{logical} does not exist; CUDA_VISIBLE_DEVICES={visible!r} "
            f"makes {len(ids)} GPU(s) visible"
        )
    return ids[logical]
