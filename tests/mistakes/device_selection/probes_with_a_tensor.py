"""Finds out whether GPU i exists by putting a tensor on it and catching the error. On a real
machine that answers, but every GPU it tries gets a CUDA context from this process, which holds
some of that GPU's memory until the process ends; the contract asks for an answer that puts
nothing on any GPU. (A learner's first attempt in the eighth measure, which the simulated GPUs
had answered with "a limit of the tests' simulation".)

Caught by: test_try_gpu_gives_that_gpu_only_if_it_exists
"""

import torch

from reference.device_selection import *


def try_gpu(i=0):
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"try_gpu(i={i!r}): i must be an int, not {type(i).__name__}")
    if i < 0:
        raise ValueError(f"try_gpu(i={i}): a GPU index cannot be negative")
    if not torch.cuda.is_available():
        return torch.device("cpu")
    device = torch.device("cuda", i)
    try:
        torch.zeros(1).to(device)
    except RuntimeError:
        return torch.device("cpu")
    return device
