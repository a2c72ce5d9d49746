"""Tests for katas/device_selection.py.

The cpu tier simulates machines with 0 to 8 GPUs (tests.support.fake_gpus, through `simulated_gpus`)
and never allocates on them: code under test that puts a tensor on one of them to find out
whether it exists fails with a message, since the contract asks for an answer that puts nothing
on any GPU. The cuda tier checks the same things on a real GPU.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from dojo import harness
from tests.strategies import gpu_counts
from tests.support import (
    CUDA_CONTEXT,
    Say,
    fake_gpus,
    names_the_device,
    quotes,
    real_world,
    refuse_tensors,
    torch_rejects,
)

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")


probed = refuse_tensors(
    say,
    ("try_gpu", "try_all_gpus", "pick_device", "physical_gpu_id"),
    "to find out whether that GPU exists. On a real machine that works, and costs: "
    f"{CUDA_CONTEXT}, on every GPU it tries, shared or not. The contract asks for an answer "
    "that puts nothing on any GPU",
    hint=2,
)
"""What `simulated_gpus` says when the code under test puts a tensor on a GPU."""


def simulated_gpus(n: int):
    """A simulated machine with `n` GPUs, on which putting a tensor fails the test (`probed`)."""
    return fake_gpus(n, on_tensor=probed)


def expected_gpu(i: int, n: int) -> torch.device:
    return torch.device("cuda", i) if i < n else torch.device("cpu")


def plain(devices) -> str:
    """A list of devices as a reader writes it: [cuda:0, cuda:1]."""
    if not isinstance(devices, list):
        return repr(devices)
    return (
        "[" + ", ".join(str(d) if isinstance(d, torch.device) else repr(d) for d in devices) + "]"
    )


def check_device(call: str, got, want: torch.device, hint: int) -> None:
    assert isinstance(got, torch.device), say(
        call, f"returned {got!r}, a {type(got).__name__}; expected a torch.device", hint=hint
    )
    assert (got.type, got.index) == (want.type, want.index), say(
        call, f"returned {got}; expected {want}", hint=hint
    )


# --- try_gpu and try_all_gpus -----------------------------------------------------------------


@given(n=gpu_counts, i=st.integers(0, 10))
def test_try_gpu_gives_that_gpu_only_if_it_exists(kata, n, i):
    with simulated_gpus(n):
        got = kata.try_gpu(i)
    check_device(f"try_gpu({i}) with {n} GPU(s)", got, expected_gpu(i, n), hint=1)


@given(n=gpu_counts)
def test_try_gpu_defaults_to_the_first_gpu(kata, n):
    with simulated_gpus(n):
        got = kata.try_gpu()
    check_device(f"try_gpu() with {n} GPU(s)", got, expected_gpu(0, n), hint=1)


@pytest.mark.given
@given(n=gpu_counts, i=st.integers(max_value=-1))
def test_try_gpu_rejects_a_negative_index(kata, n, i):
    with simulated_gpus(n), say.raises(ValueError, f"try_gpu({i})", hint=1):
        kata.try_gpu(i)


@pytest.mark.given
@pytest.mark.parametrize("i", ["0", 1.5, None], ids=repr)
def test_try_gpu_refuses_an_index_that_is_not_an_int(kata, i):
    with simulated_gpus(2), say.raises(TypeError, f"try_gpu({i!r})", hint=1):
        kata.try_gpu(i)


@given(n=gpu_counts)
def test_try_all_gpus_lists_every_gpu_or_the_cpu(kata, n):
    with simulated_gpus(n):
        got = kata.try_all_gpus()
    call = f"try_all_gpus() with {n} GPU(s)"
    want = [torch.device("cuda", k) for k in range(n)] or [torch.device("cpu")]
    assert isinstance(got, list), say(
        call, f"returned a {type(got).__name__}; expected a list", hint=1
    )
    assert len(got) == len(want), say(
        call, f"returned {plain(got)}; expected {plain(want)}", hint=1
    )
    for g, w in zip(got, want, strict=True):
        check_device(call, g, w, hint=1)


# --- pick_device ------------------------------------------------------------------------------


@given(n=gpu_counts, disable=st.booleans())
def test_pick_device_none_gives_the_best_device(kata, n, disable):
    with simulated_gpus(n):
        got = kata.pick_device(None, disable_cuda=disable)
    want = torch.device("cuda", 0) if n and not disable else torch.device("cpu")
    # Hint 2 says whom to ask; only hint 3 says that a disabled CUDA is no choice.
    hint = 3 if disable and n else 2
    check_device(f"pick_device(None, disable_cuda={disable}) with {n} GPU(s)", got, want, hint=hint)


@given(n=gpu_counts, disable=st.booleans(), spelling=st.sampled_from(["cpu", torch.device("cpu")]))
def test_pick_device_accepts_the_cpu(kata, n, disable, spelling):
    call = f"pick_device({spelling!r}, disable_cuda={disable}) with {n} GPU(s)"
    with simulated_gpus(n):
        got = say.call(call, kata.pick_device, spelling, disable_cuda=disable, hint=3)
    check_device(call, got, torch.device("cpu"), hint=3)


@given(data=st.data(), n=st.integers(1, 8), as_device=st.booleans())
def test_pick_device_accepts_an_existing_gpu(kata, data, n, as_device):
    index = data.draw(st.integers(0, n - 1), label="index")
    requested = torch.device("cuda", index) if as_device else f"cuda:{index}"
    call = f"pick_device({requested!r}) with {n} GPU(s)"
    with simulated_gpus(n):
        got = say.call(call, kata.pick_device, requested, hint=3, expected=f"cuda:{index}")
    check_device(call, got, torch.device("cuda", index), hint=3)


@given(data=st.data(), n=st.integers(1, 8), as_device=st.booleans())
def test_pick_device_reads_bare_cuda_as_the_current_gpu(kata, data, n, as_device):
    current = data.draw(st.integers(0, n - 1), label="current device")
    requested = torch.device("cuda") if as_device else "cuda"
    call = f"pick_device({requested!r}) with {n} GPU(s), the current one cuda:{current}"
    with simulated_gpus(n) as machine:
        machine.current = current
        got = say.call(call, kata.pick_device, requested, hint=3, expected=f"cuda:{current}")
    assert isinstance(got, torch.device) and got.type == "cuda", say(
        call, f"returned {got!r}; expected a cuda device", hint=3
    )
    assert got.index in (None, current), say(
        call,
        f"returned {got}; a bare cuda means the current GPU, here cuda:{current} "
        f"(`x.to('cuda')` goes there), so expected cuda or cuda:{current}",
        hint=4,
    )


@given(n=gpu_counts, index=st.none() | st.integers(0, 8), as_device=st.booleans())
def test_pick_device_rejects_cuda_when_disabled(kata, n, index, as_device):
    text = "cuda" if index is None else f"cuda:{index}"
    requested = torch.device(text) if as_device else text
    call = f"pick_device({requested!r}, disable_cuda=True) with {n} GPU(s)"
    with simulated_gpus(n), say.raises(ValueError, call, hint=3):
        kata.pick_device(requested, disable_cuda=True)


def expect_refusal(kata, requested, n: int, *, hint: int, disable_cuda: bool = False, why: str):
    """Call pick_device(requested) on a machine with `n` GPUs; expect a ValueError naming the
    request. Returns the message."""
    flag = ", disable_cuda=True" if disable_cuda else ""
    call = f"pick_device({requested!r}{flag}) with {n} GPU(s)"
    with simulated_gpus(n):
        try:
            got = kata.pick_device(requested, disable_cuda=disable_cuda)
        except ValueError as err:
            message = str(err)
        except Exception as err:
            if say.unwritten(err):
                raise
            pytest.fail(
                say(
                    call,
                    f"raised {type(err).__name__}: {err}; expected ValueError ({why})",
                    hint=hint,
                ),
                pytrace=False,
            )
        else:
            pytest.fail(
                say(
                    call,
                    f"returned {got!r}, but {why}. torch.device() parses the names of every "
                    "device type it knows, on any machine: a name is only a request, and a "
                    "device this process does not have must raise ValueError naming it and "
                    "what exists",
                    hint=hint,
                ),
                pytrace=False,
            )
    # Any wording will do ("cuda:3", "cuda device 3", "index=3"), as long as the index is there.
    assert names_the_device(message, requested), say(
        call,
        f"raised ValueError({message!r}), which does not name the request {requested}",
        hint=hint,
    )
    return message


@given(data=st.data(), n=gpu_counts, extra=st.integers(0, 8), as_device=st.booleans())
def test_pick_device_rejects_a_gpu_that_does_not_exist(kata, data, n, extra, as_device):
    index = n + extra
    requested = torch.device("cuda", index) if as_device else f"cuda:{index}"
    call = f"pick_device({requested!r}) with {n} GPU(s)"
    seen = "no GPU" if n == 0 else f"only {n} GPU(s), cuda:0 to cuda:{n - 1}"
    message = expect_refusal(kata, requested, n, hint=1, why=f"this process sees {seen}")
    # What exists may be said in any words ("2 GPUs", "cuda:0 and cuda:1", "no CUDA device"),
    # so ask only that it be said: on a machine with another number of GPUs the message differs.
    # Compare machines that both have GPUs where possible, so "no such GPU" does not pass.
    others = [m for m in range(1, index + 1) if m != n] or [m for m in range(index) if m != n]
    if not others:  # cuda:0 on a machine with no GPU: no other machine lacks it
        return
    m = data.draw(st.sampled_from(others), label="other GPU count")
    seen_m = "no GPU" if m == 0 else f"only {m} GPU(s), cuda:0 to cuda:{m - 1}"
    other = expect_refusal(kata, requested, m, hint=1, why=f"this process sees {seen_m}")
    assert other != message, say(
        call,
        f"raised ValueError({message!r}), the same message as with {m} GPU(s); it should also "
        f"say what exists here (e.g. how many GPUs, or which)",
        hint=3,
    )


# Device types torch parses that no test machine has: each must be asked about, not assumed.
# (Not "mkldnn": torch.device("mkldnn") warns that the type is deprecated.)
UNAVAILABLE_TYPES = ["mps", "xpu", "mtia", "hpu", "xla", "hip"]


@given(
    n=gpu_counts,
    kind=st.sampled_from(UNAVAILABLE_TYPES),
    index=st.none() | st.integers(0, 3),
    as_device=st.booleans(),
)
def test_pick_device_rejects_an_accelerator_that_is_not_available(kata, n, kind, index, as_device):
    text = kind if index is None else f"{kind}:{index}"
    requested = torch.device(text) if as_device else text
    expect_refusal(
        kata,
        requested,
        n,
        hint=2,
        why=f"this process has no {kind} backend available (only cpu and CUDA, if any)",
    )


@contextlib.contextmanager
def other_accelerator(kind: str, count: int) -> Iterator[None]:
    """A machine without CUDA whose accelerator is `kind` ("mps" or "xpu") with `count` devices,
    as `torch.accelerator` and the backend's own module (`torch.backends.mps`, `torch.mps`,
    `torch.xpu`) answer. Nothing may be put on it: it is asked about, never used."""
    accelerator = torch.device(kind)
    patches = {
        (torch.accelerator, "is_available"): lambda: True,
        (torch.accelerator, "current_accelerator"): lambda check_available=False: accelerator,
        (torch.accelerator, "device_count"): lambda: count,
    }
    if kind == "mps":
        patches[(torch.backends.mps, "is_available")] = lambda: True
        patches[(torch.backends.mps, "is_built")] = lambda: True
        patches[(torch.mps, "device_count")] = lambda: count
    else:
        patches[(torch.xpu, "is_available")] = lambda: True
        patches[(torch.xpu, "device_count")] = lambda: count
    with contextlib.ExitStack() as stack:
        stack.enter_context(fake_gpus(0))
        for (owner, attr), fake in patches.items():
            stack.enter_context(harness.patched(owner, attr, fake))
        yield


@given(
    machine=st.sampled_from([("mps", 1), ("xpu", 1), ("xpu", 3)]),
    index=st.none() | st.integers(0, 3),
    as_device=st.booleans(),
)
def test_pick_device_accepts_another_accelerator_that_is_available(kata, machine, index, as_device):
    kind, count = machine
    text = kind if index is None else f"{kind}:{index}"
    requested = torch.device(text) if as_device else text
    call = f"pick_device({requested!r}) without CUDA, on a machine with {count} {kind} device(s)"
    if (index or 0) >= count:
        with other_accelerator(kind, count), say.raises(ValueError, call, hint=3):
            kata.pick_device(requested)
        return
    with other_accelerator(kind, count):
        got = say.call(call, kata.pick_device, requested, hint=3, expected=f"{text}, which exists")
    assert isinstance(got, torch.device) and got.type == kind, say(
        call,
        f"returned {got!r}; this process has {kind} (torch.accelerator says so, and so does "
        f"the {kind} backend's own module), so expected {text}: a request for a device that "
        "exists comes back, whichever accelerator it is",
        hint=3,
    )
    assert got.index in ((None, 0) if index is None else (index,)), say(
        call, f"returned {got}; expected {text}", hint=3
    )


@given(
    n=gpu_counts,
    kind=st.sampled_from(["cpu", "meta"]),
    index=st.none() | st.just(0),
    as_device=st.booleans(),
)
def test_pick_device_accepts_cpu_and_meta(kata, n, kind, index, as_device):
    text = kind if index is None else f"{kind}:{index}"
    requested = torch.device(text) if as_device else text
    call = f"pick_device({requested!r}) with {n} GPU(s)"
    with simulated_gpus(n):
        got = say.call(call, kata.pick_device, requested, hint=3, expected=f"{text}, which exists")
    check_device(call, got, torch.device(text), hint=3)


@given(n=gpu_counts, kind=st.sampled_from(["cpu", "meta"]), index=st.integers(1, 8))
def test_pick_device_rejects_a_second_cpu(kata, n, kind, index):
    expect_refusal(kata, f"{kind}:{index}", n, hint=3, why=f"there is one {kind} device, {kind}:0")


@pytest.mark.given
@given(
    n=gpu_counts,
    # An int is not a request either, though torch.device(0) reads it as the current accelerator.
    value=st.sampled_from([1.5, b"cuda", ["cpu"], ("cuda", 0), 0, 1]),
)
def test_pick_device_refuses_what_is_not_a_request(kata, n, value):
    with simulated_gpus(n), say.raises(TypeError, f"pick_device({value!r})", hint=3):
        kata.pick_device(value)


BAD_DEVICE_STRINGS = [
    "gpu",
    "GPU",
    "CUDA",
    "cuda:x",
    "cuda:-1",
    " cuda",
    "cuda0",
    "cuda:1 ",
    "",
    "nvidia:0",
    "cuda:99999999999",
    "cuda:0:1",
]


@pytest.mark.given
@given(n=gpu_counts, text=st.sampled_from(BAD_DEVICE_STRINGS) | st.text(max_size=12))
def test_pick_device_rejects_nonsense_with_the_text_quoted(kata, n, text):
    assume(torch_rejects(text))
    call = f"pick_device({text!r})"
    with simulated_gpus(n), say.raises(ValueError, call, hint=3) as raised:
        kata.pick_device(text)
    message = str(raised.value)
    assert quotes(message, text), say(
        call,
        f"raised ValueError({message!r}), which does not quote the text {text!r} "
        "(between quote marks, as {text!r} in an f-string does)",
        hint=3,
    )


# --- physical_gpu_id --------------------------------------------------------------------------

physical_ids = st.lists(st.integers(0, 15), min_size=1, max_size=8, unique=True)
padding = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def visible_values(draw, ids):
    """A CUDA_VISIBLE_DEVICES value listing `ids`, with whitespace (spaces, tabs) around some
    entries."""
    return ",".join(f"{draw(padding)}{i}{draw(padding)}" for i in ids)


@pytest.mark.given
@given(logical=st.integers(0, 64))
def test_physical_gpu_id_is_the_identity_when_unset(kata, logical):
    got = kata.physical_gpu_id(logical, None)
    assert got == logical, say(
        f"physical_gpu_id({logical}, None)", f"returned {got!r}; expected {logical}", hint=3
    )


@given(data=st.data(), ids=physical_ids)
def test_physical_gpu_id_reads_the_list(kata, data, ids):
    visible = data.draw(visible_values(ids), label="visible")
    for logical, physical in enumerate(ids):
        got = say.call(
            f"physical_gpu_id({logical}, {visible!r})",
            kata.physical_gpu_id,
            logical,
            visible,
            hint=3,
            expected=f"{physical}: {visible!r} lists the GPUs {ids}, whitespace around an entry "
            "being allowed",
        )
        assert got == physical, say(
            f"physical_gpu_id({logical}, {visible!r})",
            f"returned {got!r}; expected {physical}",
            hint=3,
        )
    with say.raises(ValueError, f"physical_gpu_id({len(ids)}, {visible!r})", hint=3):
        kata.physical_gpu_id(len(ids), visible)


def expect_misread_refused(kata, logical: int, visible: str, why: str) -> None:
    """physical_gpu_id(logical, visible) must raise ValueError; `why` says what is wrong with
    `visible` when it returns instead."""
    call = f"physical_gpu_id({logical}, {visible!r})"
    with say.raises(ValueError, call, hint=3):
        got = kata.physical_gpu_id(logical, visible)
        pytest.fail(
            say(
                call,
                f"returned {got!r}, but {why}. CUDA reads CUDA_VISIBLE_DEVICES by lenient "
                "rules of its own, so a value that is not a list of distinct GPU ids in digits "
                "must raise ValueError rather than be guessed at",
                hint=3,
            ),
            pytrace=False,
        )


@given(logical=st.integers(0, 8), visible=padding)
def test_physical_gpu_id_sees_no_gpu_in_an_empty_value(kata, logical, visible):
    expect_misread_refused(kata, logical, visible, "a blank value lists no GPU at all")


# Each bad entry, and what is wrong with it (torch reads such a value with its own copy of
# CUDA's rules, _parse_visible_devices in torch/cuda/__init__.py: leading digits, up to the
# first entry without any; checked on 2.13).
BAD_ENTRIES = {  # the most telling first: hypothesis shows the first one an attempt accepts
    "-1": "is negative (torch stops reading the list at it: no GPU from there on is visible)",
    "1.5": "is not a whole number (torch reads its leading digits, as GPU 1)",
    "0x1": "is not written in decimal digits (torch reads its leading digit, as GPU 0)",
    "1 2": "holds two ids with no comma between them (torch reads the first one)",
    "": "is empty (torch stops reading the list at it: no GPU from there on is visible)",
    "x": "is not a GPU id (torch stops reading the list at it: no GPU from there on is visible)",
    "one": "is a word, not a GPU id in digits",
    "GPU-0": "is not a GPU id in digits",
    "+1": "carries a sign: it is not a GPU id in digits, though torch reads it as GPU 1",
}


@given(data=st.data(), ids=physical_ids, bad=st.sampled_from(list(BAD_ENTRIES)))
def test_physical_gpu_id_refuses_a_bad_entry_anywhere(kata, data, ids, bad):
    at = data.draw(st.integers(0, len(ids)), label="position")
    visible = ",".join([str(i) for i in ids[:at]] + [bad] + [str(i) for i in ids[at:]])
    expect_misread_refused(kata, 0, visible, f"its entry {bad!r} {BAD_ENTRIES[bad]}")


@given(data=st.data(), ids=physical_ids)
def test_physical_gpu_id_refuses_a_duplicate(kata, data, ids):
    twice = data.draw(st.sampled_from(ids), label="duplicate")
    visible = ",".join(str(i) for i in [*ids, twice])
    expect_misread_refused(
        kata,
        0,
        visible,
        f"GPU {twice} is listed twice (torch then counts no GPU at all: a repeated id hides "
        "every GPU)",
    )


@pytest.mark.given
@given(logical=st.integers(max_value=-1), visible=st.none() | st.just("0,1"))
def test_physical_gpu_id_refuses_a_negative_index(kata, logical, visible):
    with say.raises(ValueError, f"physical_gpu_id({logical}, {visible!r})", hint=3):
        kata.physical_gpu_id(logical, visible)


# --- on the real machine: the cuda tier, whose bodies also run on cpu -------------------------


def test_chosen_devices_allocate(kata, device):
    """On CUDA, `Tensor.get_device()` is the GPU's ordinal, and -1 on the CPU
    (torch/_tensor_docs.py, get_device)."""
    with real_world(device):
        chosen = [kata.try_gpu(), kata.pick_device(), *kata.try_all_gpus()]
    for d in chosen:
        assert isinstance(d, torch.device) and d.type == device.type, say(
            "try_gpu()/pick_device()/try_all_gpus()",
            f"chose {d!r}; on this machine expected a {device.type} device",
            hint=1,
        )
        t = torch.arange(3, device=d)
        want_index = -1 if device.type == "cpu" else (d.index or 0)
        assert t.get_device() == want_index, say(  # -1 on the CPU, the GPU's index on CUDA
            "try_gpu()/pick_device()/try_all_gpus()",
            f"chose {d}, but a tensor made there reports get_device() == {t.get_device()}; "
            f"expected {want_index}",
            hint=1,
        )


def test_pick_device_default_matches_the_machine(kata, device):
    """On CUDA the best device is a GPU: `torch.cuda.is_available()` is True
    (torch/cuda/__init__.py)."""
    with real_world(device):
        got = kata.pick_device()
    assert isinstance(got, torch.device) and got.type == device.type, say(
        "pick_device()",
        f"returned {got!r} on a machine whose best device is {device.type}",
        hint=2,
    )


def test_disable_cuda_gives_the_cpu(kata, device):
    with real_world(device):
        got = kata.pick_device(disable_cuda=True)
    check_device("pick_device(disable_cuda=True)", got, torch.device("cpu"), hint=3)


def test_try_all_gpus_matches_device_count(kata, device):
    """On CUDA, `torch.cuda.device_count()` counts the GPUs this process sees, after
    CUDA_VISIBLE_DEVICES (torch/cuda/__init__.py, device_count and _parse_visible_devices)."""
    with real_world(device):
        got = kata.try_all_gpus()
        n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    want = [torch.device("cuda", k) for k in range(n)] or [torch.device("cpu")]
    assert got == want, say(
        "try_all_gpus()",
        f"returned {plain(got)}; torch.cuda.device_count() is {n}, so expected {plain(want)}",
        hint=1,
    )
