"""The timing tests' simulated GPUs, checked on a CPU: what a tensor made on one reports, and
when reading it back, or copying to it, makes the host wait (`tests/test_timing.py`,
`GPUValue`). A learner's wait written as a read (`torch.zeros(1, device=d).item()`) is judged
by these answers, so they must be the real GPU's."""

from __future__ import annotations

import types

import torch

from tests import test_timing as t


def machine(**kwargs) -> tuple[t.World, object]:
    """A two-GPU world timing cuda:1, with cuda:0 current, and 0.5 s of work queued on cuda:1."""
    world = t.World("cuda", gpus=2, target=1, current=0)
    return world, world.op("work", lambda k, i: 0.5)


def test_a_factory_queues_and_a_read_waits_for_that_gpu():
    world, work = machine()
    with world.installed(types.ModuleType("kata")):
        work()
        x = torch.zeros(1, device="cuda:1")
        assert x.device == torch.device("cuda", 1) and x.is_cuda
        assert world.waited == [], "a factory only queues its work"
        y = x + 1
        assert y.device == torch.device("cuda", 1), "what is computed from it stays on it"
        assert y.item() == 1.0
        assert world.waited == [1] and world.now == world.queues[1]


def test_a_bare_cuda_is_the_current_gpu_and_its_read_waits_for_that_one_only():
    world, work = machine()
    with world.installed(types.ModuleType("kata")):
        work()
        float(torch.ones(2, device="cuda").sum())
        assert world.waited == [0]
        assert world.now < world.queues[1], "cuda:1's work is still queued"


def test_every_read_waits():
    for read in (
        lambda v: v.item(), lambda v: v.tolist(), lambda v: v.cpu(), lambda v: v.to("cpu"),
        lambda v: v.numpy(), lambda v: float(v), lambda v: bool(v), lambda v: f"{v}",
    ):  # fmt: skip
        world, work = machine()
        with world.installed(types.ModuleType("kata")):
            work()
            got = read(torch.zeros((), device="cuda:1"))
            assert world.waited == [1], read
            assert not isinstance(got, t.GPUValue), "what is read is on the host"


def test_a_copy_from_the_host_waits_and_is_a_copy():
    world, work = machine()
    with world.installed(types.ModuleType("kata")):
        work()
        host = torch.zeros(3)
        on_gpu = host.to("cuda:1")
        assert world.waited == [1], "a blocking copy ends in a stream synchronize"
        on_gpu.add_(1)
        assert host.tolist() == [0.0, 0.0, 0.0], "the copy does not share the host's memory"
        assert on_gpu.to("cuda:1") is on_gpu, "a tensor already there is x itself"
        on_gpu.to("cuda:0")
        assert world.waited == [1], "a copy between GPUs does not make the host wait"
        host.to("cuda:1", non_blocking=True)
        assert world.waited == [1], "non_blocking=True: the host does not wait"
        torch.tensor([1.0, 2.0], device="cuda:1")
        assert world.waited == [1, 1]
