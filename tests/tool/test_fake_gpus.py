"""The simulated GPUs (tests/support.py `fake_gpus`), which every kata's cpu tier uses: they
answer what a correct solution may ask the machine, refuse a GPU they lack as a real machine
does, and name anything else as a limit of the simulation."""

from __future__ import annotations

import threading

import pytest
import torch

from tests.support import Say, SimulatedGPU, SimulationLimit, fake_gpus, refuse_tensors


def test_they_answer_the_current_device_and_change_it():
    with fake_gpus(3) as machine:
        assert torch.cuda.current_device() == 0 == torch.accelerator.current_device_index()
        torch.cuda.set_device(2)
        assert machine.current == 2 == torch.accelerator.current_device_index()
        torch.accelerator.set_device_index(1)
        assert torch.cuda.current_device() == 1
        with torch.cuda.device(0):
            assert torch.cuda.current_device() == 0
        with torch.accelerator.device_index(2):
            assert torch.cuda.current_device() == 2
        assert torch.cuda.current_device() == 1
        seen = []
        thread = threading.Thread(target=lambda: seen.append(torch.cuda.current_device()))
        thread.start()
        thread.join()
        assert seen == [0]  # CUDA's current device is per host thread


def test_they_refuse_what_torch_refuses():
    with fake_gpus(2):
        with pytest.raises(ValueError, match="specified index"):  # as torch.cuda.set_device does
            torch.cuda.set_device(torch.device("cuda"))
        with pytest.raises(RuntimeError, match="invalid device ordinal"):
            torch.cuda.set_device(5)
        with pytest.raises(AssertionError, match="Invalid device id"):
            torch.cuda.get_device_properties(2)
        with pytest.raises(RuntimeError, match="invalid device ordinal"):
            torch.zeros(1).to("cuda:2")
    with fake_gpus(0):
        with pytest.raises(RuntimeError, match="No CUDA GPUs"):
            torch.cuda.current_device()
        with pytest.raises(RuntimeError, match="No CUDA GPUs"):
            torch.zeros(1, device="cuda")
        assert not torch.cuda.is_bf16_supported()


def test_each_gpu_has_its_own_properties():
    gpus = [SimulatedGPU(name="A100", major=8), SimulatedGPU(name="T4", major=7, minor=5)]
    with fake_gpus(2, gpus=gpus):
        assert torch.cuda.get_device_capability("cuda:1") == (7, 5)
        assert torch.cuda.get_device_name() == "A100"
        assert torch.cuda.is_bf16_supported(including_emulation=False)
        torch.cuda.set_device(1)
        assert not torch.cuda.is_bf16_supported(including_emulation=False)
        assert torch.cuda.get_device_properties(torch.device("cuda")).name == "T4"


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: torch.cuda.synchronize(), "torch.cuda.synchronize"),
        (lambda: torch.cuda.mem_get_info(), "mem_get_info"),
        (lambda: torch.accelerator.synchronize(), "torch.accelerator.synchronize"),
        (lambda: torch.zeros(1, device="cuda:1"), "cuda:1"),
        (lambda: torch.zeros(1).cuda(), "cuda:0"),
        (lambda: torch.cuda.get_device_properties(0).uuid, "uuid"),
    ],
)
def test_a_call_they_cannot_answer_is_named_as_a_limit_of_the_simulation(call, named):
    with fake_gpus(2), pytest.raises(SimulationLimit) as raised:
        call()
    assert named in str(raised.value)
    assert "limit of the tests' simulation, not a mistake in your code" in str(raised.value)
    assert not issubclass(SimulationLimit, Exception)  # `except Exception` cannot hide it


@pytest.mark.parametrize(
    ("call", "index"),
    [
        pytest.param(lambda: torch.zeros(1, device="cuda:1"), 1, id="factory"),
        pytest.param(lambda: torch.zeros(1).to("cuda"), 0, id="to"),
        pytest.param(lambda: torch.ones(2).cuda(1), 1, id="cuda"),
    ],
)
def test_on_tensor_is_told_of_a_tensor_put_on_a_gpu_that_exists(call, index):
    told = []

    def on_tensor(func: str, index: int) -> None:
        told.append(index)
        raise KeyboardInterrupt  # any BaseException, as a test's pytest.fail would be

    with fake_gpus(2, on_tensor=on_tensor), pytest.raises(KeyboardInterrupt):
        call()
    assert told == [index]


def test_on_tensor_is_not_told_of_a_gpu_that_is_not_there():
    told = []
    with fake_gpus(2, on_tensor=lambda f, i: told.append(i)), pytest.raises(RuntimeError):
        torch.zeros(1, device="cuda:2")  # the real error, as on a machine with two GPUs
    assert told == []


def test_refuse_tensors_names_the_outermost_kata_function_on_the_stack():
    refuse = refuse_tensors(Say("tests.test_device_selection"), ("outer", "inner"), "why", hint=1)

    def inner():
        torch.zeros(1, device="cuda:0")

    def outer():
        inner()

    with fake_gpus(1, on_tensor=refuse), pytest.raises(pytest.fail.Exception) as raised:
        outer()
    assert str(raised.value).startswith("device_selection.outer put a tensor on cuda:0 (zeros) why")
