"""Tests for katas/copy_semantics.py.

Sharing is checked on the memory itself (storage byte ranges, `numpy.shares_memory`) and by
writing to one side and reading the other; "the same object" is checked with `is`. Every call
to the kata goes through `call`, which turns an exception or a warning into a message.

The cpu tier uses the `meta` device as "another device", and simulates machines with 0 to 8
GPUs (tests.support.fake_gpus, never allocating on them) to ask `move` for devices that do not
exist. The cuda tier moves tensors to the
GPU and back, and checks that a GPU tensor moved to "cuda" comes back as the same object.
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dojo import harness
from tests.strategies import (
    DTYPES,
    cpu_spellings,
    device_spellings,
    gpu_counts,
    make_tensor,
    missing_devices,
    shapes,
    tensors,
    views,
)
from tests.support import (
    Say,
    describe,
    fake_gpus,
    names_the_device,
    plain_repr,
    quotes,
    recorded_warnings,
    same_device,
)

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

NUMPY_DTYPES = tuple(d for d in DTYPES if d != torch.bfloat16)  # numpy has no bfloat16

# Drawing views is slow (about 15 ms each on a busy runner); these keep the file near 15 s.
# They scale with the profile: 50 and 20 examples under `dev`, 1000 and 400 under `thorough`.
SOME = settings(max_examples=settings().max_examples // 2)  # meets every view kind and dtype
FEW = settings(max_examples=settings().max_examples // 5)  # hardly depends on the tensor drawn


# --- what the tests draw ----------------------------------------------------------------------


@plain_repr
@dataclass
class Subject:
    """`x`, a view of (or the same as) `base`; both share `base`'s storage."""

    kind: str
    base: torch.Tensor
    x: torch.Tensor

    def __str__(self) -> str:
        grad = ", requiring grad" if self.x.requires_grad else ""
        what = "a contiguous tensor" if self.kind == "contiguous" else f"a {self.kind} view"
        return f"x = {what} of {self.x.dtype}, shape {tuple(self.x.shape)}{grad}"


@st.composite
def subjects(draw, *, device="cpu", dtype=None, floating_only=False, requires_grad=None) -> Subject:
    """A tensor or view from tests.strategies.views; floating ones may require grad (drawn,
    unless `requires_grad` says)."""
    kind, x = draw(views(device=device, dtype=dtype, floating_only=floating_only))
    base = x if x._base is None else x._base
    grad = draw(st.booleans()) if requires_grad is None else requires_grad
    if base.dtype.is_floating_point and grad:
        base = base.detach().requires_grad_()
        x = (
            base
            if kind == "contiguous"
            else base.as_strided(x.size(), x.stride(), x.storage_offset())
        )
    return Subject(kind, base, x)


def storages_overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """The oracle: do the byte ranges of the two storages overlap (on one device that has
    memory: not meta)?"""
    if a.device != b.device or a.device.type == "meta":
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    return (
        sa.data_ptr() < sb.data_ptr() + sb.nbytes() and sb.data_ptr() < sa.data_ptr() + sa.nbytes()
    )


def array_overlaps(array: np.ndarray, t: torch.Tensor) -> bool:
    """Does the numpy array use any byte of the CPU tensor `t`'s storage?"""
    if t.device.type != "cpu" or array.size == 0:
        return False
    low, high = np.lib.array_utils.byte_bounds(array)
    s = t.untyped_storage()
    return low < s.data_ptr() + s.nbytes() and s.data_ptr() < high


def bump(t) -> None:
    """Change every element of a tensor or array in place (call under torch.no_grad())."""
    if isinstance(t, np.ndarray):
        if t.dtype == np.bool_:
            np.logical_not(t, out=t)
        else:
            t += 1
    elif t.dtype == torch.bool:
        t.logical_not_()
    else:
        t.add_(1)


def numpy_values(x: torch.Tensor) -> np.ndarray:
    """The oracle for to_numpy: x's values in numpy (bfloat16 read as float32)."""
    t = x.detach().cpu()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


# --- shares_memory ----------------------------------------------------------------------------


def check_shares(kata, a, b, text: str, want: bool, why: str, hint: int = 1) -> None:
    got = say.call(f"shares_memory({text})", kata.shares_memory, a, b, hint=hint)
    assert got is want, say(
        f"shares_memory({text})", f"returned {got!r}; expected {want}: {why}", hint=hint
    )


@SOME
@given(s=subjects())
def test_shares_memory_sees_views_of_one_tensor(kata, s):
    why = f"{s}, and base is the tensor it views, so they use one storage"
    check_shares(kata, s.base, s.x, "base, x", True, why)
    check_shares(kata, s.x, s.base, "x, base", True, why)
    check_shares(kata, s.x, s.x, "x, x", True, "a tensor shares memory with itself")
    check_shares(
        kata, s.x.detach(), s.base, "x.detach(), base", True, "detach() shares memory with x"
    )


@SOME
@given(data=st.data())
def test_shares_memory_sees_slices_that_start_elsewhere(kata, data):
    x = data.draw(
        tensors(shape=shapes(min_dims=1, min_side=2)),
        label="x",
    )
    k = data.draw(st.integers(1, x.shape[0] - 1), label="k")
    why = f"x[{k}:] starts {k} rows into x's storage, but it is the same storage"
    check_shares(kata, x, x[k:], f"x, x[{k}:]", True, why)
    check_shares(kata, x[:k], x[k:], f"x[:{k}], x[{k}:]", True, "both slices use x's storage")


@SOME
@given(
    a=tensors(),
    b=tensors(),
)
def test_shares_memory_is_false_for_separate_tensors(kata, a, b):
    empty = " (a tensor with no elements has an empty storage, which holds no memory)"
    why = "clone() copies into new memory" + (empty if a.numel() == 0 else "")
    check_shares(kata, a, a.clone(), "a, a.clone()", False, why)
    why = f"a {tuple(a.shape)} and b {tuple(b.shape)} were made separately"
    if a.numel() == 0 or b.numel() == 0:
        why += empty
    check_shares(kata, a, b, "a, b", False, why)


@FEW
@given(n=st.integers(1, 8), dtype=st.sampled_from([np.float32, np.float64, np.int64, np.uint8]))
def test_shares_memory_sees_two_tensors_made_from_one_array(kata, n, dtype):
    a = np.arange(n, dtype=dtype)
    t1, t2 = torch.from_numpy(a), torch.from_numpy(a)
    check_shares(
        kata, t1, t2, "t1, t2", True, "t1 and t2 are both torch.from_numpy(a) of one array"
    )
    check_shares(
        kata, t1, torch.from_numpy(a.copy()), "t1, t3", False, "t3 is torch.from_numpy(a.copy())"
    )


@FEW
@given(
    n=st.integers(2, 12),
    bounds=st.lists(st.integers(0, 12), min_size=4, max_size=4),
    dtype=st.sampled_from([np.float32, np.float64, np.int16, np.uint8]),
)
def test_shares_memory_sees_storages_that_overlap_from_different_starts(kata, n, bounds, dtype):
    """`torch.from_numpy` of a slice makes a storage that starts where the slice does: two
    slices of one array are two storages, which may overlap without starting together."""
    i, j, k, m = (min(b, n) for b in bounds)
    i, j = min(i, j), max(i, j)
    k, m = min(k, m), max(k, m)
    a = np.arange(n, dtype=dtype)
    t1, t2 = torch.from_numpy(a[i:j]), torch.from_numpy(a[k:m])
    want = i < j and k < m and i < m and k < j  # both non-empty, and the ranges overlap
    if want:
        why = (
            f"elements {max(i, k)} to {min(j, m) - 1} of a are in both. torch.from_numpy of a "
            "slice makes a storage that starts where the slice starts, so these are two "
            "storages, starting at different addresses, over the same bytes"
        )
    elif i == j or k == m:
        why = "a slice with no elements has an empty storage, which holds no memory"
    else:
        why = f"a[{i}:{j}] and a[{k}:{m}] have no element in common"
    first, second = f"torch.from_numpy(a[{i}:{j}])", f"torch.from_numpy(a[{k}:{m}])"
    of = f" for a of {n} elements"
    # Hint 3 asks whether the byte ranges overlap; hint 1's "a slice starts elsewhere in the
    # same storage" does not help a learner who compares where two storages start.
    check_shares(kata, t1, t2, f"{first}, {second}{of}", want, why, hint=3)
    check_shares(kata, t2, t1, f"{second}, {first}{of}", want, why, hint=3)


@FEW
@given(a=tensors(device="meta"), b=tensors(device="meta"))
def test_shares_memory_is_false_on_meta(kata, a, b):
    why = "a meta tensor has a shape and a dtype but no memory, so it shares memory with nothing"
    check_shares(kata, a, b, "a, b on meta", False, why)
    check_shares(kata, a, a, "a, a on meta", False, why)
    if a.numel() > 1:
        check_shares(kata, a, a.view(-1)[1:], "a, a.view(-1)[1:] on meta", False, why)


@FEW
@given(data=st.data())
def test_shares_memory_never_across_devices(kata, device, data):
    """On CUDA, `x.to("cpu")` is a copy in host memory (`Tensor.to`: "Otherwise, the returned tensor
    is a copy of self", torch/_tensor_docs.py), so a GPU tensor and its CPU copy never share."""
    x = data.draw(
        tensors(shape=shapes(min_dims=1, min_side=2), device=device),
        label="x",
    )
    other = torch.device("meta") if device.type == "cpu" else torch.device("cpu")
    check_shares(kata, x, x[1:], "x, x[1:]", True, f"both use x's storage on {device}")
    check_shares(
        kata,
        x,
        x.to(other),
        f"x, x.to({str(other)!r})",
        False,
        f"x is on {device}, the copy on {other}",
    )


# --- move -------------------------------------------------------------------------------------


@SOME
@given(data=st.data())
def test_move_returns_x_itself_when_already_there(kata, device, data):
    """On CUDA, every spelling drawn names x's own GPU: a bare "cuda" means the current GPU
    (`ensure_has_index`, aten/src/ATen/native/TensorConversions.cpp), and `to` returns self when
    device and dtype already match (`to_will_alias`, same file)."""
    s = data.draw(subjects(device=device), label="x")
    spelling = data.draw(device_spellings(device), label="device")
    text = f"move(x, {spelling!r})"
    got = say.call(text, kata.move, s.x, spelling, hint=2)
    if got is not s.x:
        what = (
            "a copy"
            if not (isinstance(got, torch.Tensor) and storages_overlap(got, s.x))
            else "a new tensor"
        )
        named = torch.device(spelling)
        names = ""
        if named != s.x.device:  # one device, two names: torch compares the names
            names = (
                f". One device has several names, and torch compares names: "
                f"torch.device({str(named)!r}) == x.device ({str(s.x.device)!r}) is False"
            )
        pytest.fail(
            say(
                text,
                f"returned {what}, not x itself; with {s} on {s.x.device}, "
                f"{spelling!r} names the device x is on, so nothing should change{names}",
                hint=2,
            ),
            pytrace=False,
        )


@FEW
@given(s=subjects(), spelling=st.sampled_from(["meta", torch.device("meta"), "meta:0"]))
def test_move_to_another_device_makes_a_tensor_there(kata, s, spelling):
    text = f"move(x, {spelling!r})"
    got = say.call(text, kata.move, s.x, spelling, hint=3)
    assert isinstance(got, torch.Tensor) and got.device.type == "meta", say(
        text, f"returned {describe(got)}; expected a tensor on the meta device ({s})", hint=3
    )
    assert got.shape == s.x.shape and got.dtype == s.x.dtype, say(
        text,
        f"returned shape {tuple(got.shape)}, {got.dtype}; expected {tuple(s.x.shape)}, "
        f"{s.x.dtype}: a move changes the device only",
        hint=3,
    )
    assert s.x.device.type == "cpu", say(text, "moved x itself; x must stay on the CPU", hint=3)


@SOME
@given(data=st.data())
def test_move_there_and_back(kata, device, data):
    """On CUDA, a real trip: `Tensor.to` copies across devices (torch/_tensor_docs.py), so both
    moves make new tensors and the one back owns new host memory."""
    x = data.draw(
        tensors(),
        label="x",
    )
    text = f"move(x, {str(device)!r})"
    there = say.call(text, kata.move, x, device, hint=3)
    assert isinstance(there, torch.Tensor) and same_device(there.device, device), say(
        text, f"returned {describe(there)}; expected a tensor on {device}", hint=3
    )
    assert there.dtype == x.dtype and torch.equal(there.cpu(), x), say(
        text, "returned a tensor with other values or dtype than x", hint=3
    )
    again = say.call(f"move(y, {str(device)!r})", kata.move, there, device, hint=3)
    assert again is there, say(
        f"move(y, {str(device)!r})",
        f"returned a new tensor; y = move(x, {str(device)!r}) is already there",
        hint=3,
    )
    back = say.call("move(y, 'cpu')", kata.move, there, "cpu", hint=3)
    assert isinstance(back, torch.Tensor) and back.device.type == "cpu", say(
        "move(y, 'cpu')", f"returned {describe(back)}; expected a CPU tensor", hint=3
    )
    assert back.dtype == x.dtype and torch.equal(back, x), say(
        "move(y, 'cpu')", "came back with other values or dtype than x", hint=3
    )
    if device.type == "cpu":  # x never left: both moves must hand back x itself
        assert there is x and back is x, say(
            "move(x, 'cpu')", "returned a new tensor; x is on the CPU already", hint=3
        )
    else:  # a real trip: new tensors, and the one back is a copy of x, not x
        assert there is not x and back is not x and not storages_overlap(back, x), say(
            "move(move(x, 'cuda'), 'cpu')", "gave back x's own memory; expected a copy", hint=3
        )


@FEW
@given(s=subjects(), spelling=cpu_spellings())
def test_move_between_cpu_spellings_never_asks_cuda(kata, s, spelling):
    asked: list[str] = []

    def recorder(name):
        def fake(*args, **kwargs):
            asked.append(name)
            return 0

        return fake

    asking = [(torch.cuda, name) for name in ("current_device", "init", "_lazy_init")]
    asking.append((torch.accelerator, "current_device_index"))
    with contextlib.ExitStack() as stack:
        for owner, name in asking:  # however the kata imported them
            stack.enter_context(harness.patched(owner, name, recorder(f"{owner.__name__}.{name}")))
        say.call(f"move(x, {spelling!r})", kata.move, s.x, spelling, hint=3)
    assert not asked, say(
        f"move(x, {spelling!r})",
        f"called {asked[0]}() with x on the CPU; that starts CUDA. Only a CUDA tensor moved to "
        "an index-less 'cuda' needs the current GPU",
        hint=3,
    )


BAD_DEVICES = ["gpu", "GPU", "cuda:x", " cpu", "cpu0", "", "cpu:-1"]


@pytest.mark.given
@FEW
@given(s=subjects(), text=st.sampled_from(BAD_DEVICES))
def test_move_rejects_a_device_it_cannot_parse(kata, s, text):
    with say.raises(ValueError, f"move(x, {text!r})", hint=3) as raised:
        kata.move(s.x, text)
    message = str(raised.value)
    assert quotes(message, text), say(
        f"move(x, {text!r})",
        f"raised ValueError({message!r}), which does not quote the device {text!r} "
        "(between quote marks, as {device!r} in an f-string does)",
        hint=3,
    )


@pytest.mark.given
@FEW
@given(data=st.data(), s=subjects(), n=gpu_counts)
def test_move_refuses_a_device_that_does_not_exist(kata, data, s, n):
    missing = data.draw(missing_devices(n), label="device")
    text = f"move(x, {missing!r}) with {n} GPU(s)"
    before = s.x.detach().clone()
    with fake_gpus(n):
        try:
            got = kata.move(s.x, missing)
        except ValueError as err:
            message = str(err)
        except Exception as err:
            if say.unwritten(err):
                raise
            pytest.fail(
                say(
                    text,
                    f"raised {type(err).__name__}: {err}; expected a ValueError that names "
                    f"{missing}, which does not exist in this process",
                    hint=2,
                ),
                pytrace=False,
            )
        else:
            pytest.fail(
                say(
                    text,
                    f"returned {describe(got)}; {missing} does not exist in this process, so "
                    "expected a ValueError that names it",
                    hint=2,
                ),
                pytrace=False,
            )
    assert names_the_device(message, missing), say(
        text, f"raised ValueError({message!r}), which does not name {missing}", hint=2
    )
    assert s.x.device.type == "cpu" and torch.equal(s.x.detach(), before), say(
        text, "changed x; x must stay as it was", hint=2
    )


NOT_TENSOR_CALLS = {
    "shares_memory([1.0], x)": lambda kata, x: kata.shares_memory([1.0], x),
    "shares_memory(x, numpy array)": lambda kata, x: kata.shares_memory(x, np.arange(3.0)),
    "move([1.0, 2.0], 'cpu')": lambda kata, x: kata.move([1.0, 2.0], "cpu"),
    "move(x, None)": lambda kata, x: kata.move(x, None),
    "move(x, 1.5)": lambda kata, x: kata.move(x, 1.5),
    "move(x, 0)": lambda kata, x: kata.move(x, 0),  # torch.device(0): the current accelerator
    "snapshot(numpy array)": lambda kata, x: kata.snapshot(np.arange(3.0)),
    "snapshot(None)": lambda kata, x: kata.snapshot(None),
}


@pytest.mark.given
@pytest.mark.parametrize("call", NOT_TENSOR_CALLS)
def test_refuses_arguments_of_the_wrong_type(kata, call):
    with say.raises(TypeError, call, hint=3):
        NOT_TENSOR_CALLS[call](kata, torch.arange(3.0))


@pytest.mark.cuda
@pytest.mark.multi_gpu
def test_move_reads_bare_cuda_as_the_current_gpu(kata):
    """No CPU twin: only CUDA has a current device for a bare name to mean. `ensure_has_index`
    (aten/src/ATen/native/TensorConversions.cpp) returns a CPU device as it is and gives a bare
    "cuda" the current GPU's index, here cuda:1 under `torch.cuda.device(1)`. With one GPU,
    "cuda" and "cuda:0" cannot be told apart: hence multi_gpu."""
    x0 = torch.arange(4.0, device="cuda:0")
    with torch.cuda.device(1):
        text = "move(x, 'cuda') with x on cuda:0 while cuda:1 is current"
        got = say.call(text, kata.move, x0, "cuda", hint=3)
        assert got.device == torch.device("cuda", 1) and torch.equal(got.cpu(), x0.cpu()), say(
            text, f"returned a tensor on {got.device}; 'cuda' means the current GPU, cuda:1", hint=3
        )
        text = "move(y, 'cuda') with y on cuda:1, the current GPU"
        assert say.call(text, kata.move, got, "cuda", hint=3) is got, say(
            text, "returned a new tensor; y is on the current GPU already", hint=3
        )
        text = "move(x, 'cuda:0') with x on cuda:0 while cuda:1 is current"
        assert say.call(text, kata.move, x0, "cuda:0", hint=3) is x0, say(
            text, "returned a new tensor; x is on cuda:0 already", hint=3
        )


# --- snapshot ---------------------------------------------------------------------------------


@SOME
@given(data=st.data())
def test_snapshot_is_an_equal_copy_with_its_own_memory(kata, device, data):
    s = data.draw(subjects(device=device), label="x")
    snap = say.call("snapshot(x)", kata.snapshot, s.x, hint=1)
    assert isinstance(snap, torch.Tensor) and snap is not s.x, say(
        "snapshot(x)",
        f"returned {'x itself' if snap is s.x else describe(snap)}; expected a new tensor",
        hint=1,
    )
    assert snap.dtype == s.x.dtype and snap.shape == s.x.shape and snap.device == s.x.device, say(
        "snapshot(x)",
        f"returned {snap.dtype}, shape {tuple(snap.shape)} on {snap.device}; expected the same as "
        f"x: {s.x.dtype}, shape {tuple(s.x.shape)} on {s.x.device}",
        hint=1,
    )
    assert torch.equal(snap, s.x.detach()), say(
        "snapshot(x)", f"has other values than x ({s})", hint=1
    )
    assert not storages_overlap(snap, s.base), say(
        "snapshot(x)", f"shares memory with x ({s}); a snapshot must own its memory", hint=1
    )


@FEW
@given(s=subjects(floating_only=True), through=st.sampled_from(["leaf", "x * 2", "x.sum()"]))
def test_snapshot_is_cut_from_the_graph(kata, s, through):
    leaf = s.x.detach().requires_grad_()
    y = {"leaf": lambda: leaf, "x * 2": lambda: leaf * 2, "x.sum()": lambda: leaf.sum()}[through]()
    text = f"snapshot(y) with y = {through} and x requiring grad"
    snap = say.call(text, kata.snapshot, y, hint=1)
    assert isinstance(snap, torch.Tensor) and not snap.requires_grad and snap.grad_fn is None, say(
        text,
        f"returned a tensor with requires_grad={getattr(snap, 'requires_grad', '?')} and "
        f"grad_fn={getattr(snap, 'grad_fn', '?')}; a snapshot must be cut from the graph",
        hint=1,
    )


@SOME
@given(data=st.data())
def test_snapshot_never_sees_later_changes(kata, device, data):
    s = data.draw(subjects(device=device), label="x")
    before = s.x.detach().clone()
    snap = say.call("snapshot(x)", kata.snapshot, s.x, hint=1)
    version = snap._version
    with torch.no_grad():
        bump(s.base)
    assert not torch.equal(s.x.detach(), before), say(  # the test really changed x
        "snapshot(x)", f"left x unchanged by an in-place change ({s}); did it change x?", hint=1
    )
    assert torch.equal(snap, before), say(
        "snapshot(x)", f"changed when x was changed in place afterwards ({s})", hint=1
    )
    assert snap._version == version, say(
        "snapshot(x)",
        f"shares x's version counter: its _version went from {version} to {snap._version} "
        "when x was changed in place",
        hint=2,
    )


@FEW
@given(s=subjects())
def test_snapshot_raises_no_warning(kata, s):
    with recorded_warnings() as caught:
        kata.snapshot(s.x)
    assert not caught, say(
        "snapshot(x)",
        f"warned {caught[0].category.__name__}: {caught[0].message} ({s}); expected no warning",
        hint=2,
    )


# --- to_numpy ---------------------------------------------------------------------------------


def numpy_expected(x: torch.Tensor) -> str:
    """What to_numpy(x) was expected to do, for a message: the case a dtype makes."""
    if x.dtype == torch.bfloat16:
        return "x's values exactly; numpy has no bfloat16, and every bfloat16 value is a float32"
    return "an array of x's values"


def check_array(text: str, array, x: torch.Tensor, hint: int = 3) -> None:
    want = numpy_values(x)
    assert isinstance(array, np.ndarray), say(
        text, f"returned a {type(array).__name__}; expected a numpy.ndarray", hint=hint
    )
    assert array.shape == want.shape, say(
        text, f"returned shape {array.shape}; expected {want.shape}", hint=hint
    )
    if x.dtype == torch.bfloat16:
        assert array.dtype in (np.float32, np.float64), say(
            text,
            f"returned dtype {array.dtype}; bfloat16 should become a wider float (float32)",
            hint=hint,
        )
    else:
        assert array.dtype == want.dtype, say(
            text,
            f"returned dtype {array.dtype}; expected {want.dtype}, as x.numpy() gives",
            hint=hint,
        )
    assert np.array_equal(array, want), say(text, "returned other values than x has", hint=hint)


@SOME
@given(data=st.data())
def test_to_numpy_gives_the_values_on_any_device(kata, device, data):
    """On CUDA, `Tensor.numpy()` refuses a GPU tensor ("Use Tensor.cpu() to copy the tensor to host
    memory first", torch/csrc/utils/tensor_numpy.cpp, tensor_to_numpy): to_numpy must copy to the
    host first."""
    s = data.draw(subjects(device=device), label="x")
    copy = data.draw(st.booleans(), label="copy")
    text = f"to_numpy(x, copy={copy}) with {s} on {device}"
    array = say.call(text, kata.to_numpy, s.x, copy=copy, hint=3, expected=numpy_expected(s.x))
    check_array(text, array, s.x)


# Both with and without requires_grad, so every seed meets a tensor that requires grad.
@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "requires_grad"])
@SOME
@given(data=st.data())
def test_to_numpy_shares_memory_with_a_cpu_tensor(kata, requires_grad, data):
    dtypes = [d for d in NUMPY_DTYPES if d.is_floating_point or not requires_grad]
    s = data.draw(
        subjects(
            dtype=data.draw(st.sampled_from(dtypes), label="dtype"), requires_grad=requires_grad
        ),
        label="x",
    )
    text = f"to_numpy(x) with {s}"
    array = say.call(text, kata.to_numpy, s.x, hint=3)
    check_array(text, array, s.x)
    assert np.shares_memory(array, s.base.detach().numpy()), say(
        text,
        "returned a copy; x needs no conversion, so with copy=False the array must share x's "
        "memory"
        + (
            "; x requires grad, and leaving the autograd graph costs no copy"
            if requires_grad
            else ""
        ),
        hint=3,
    )


@SOME
@given(data=st.data())
def test_to_numpy_with_copy_never_shares(kata, device, data):
    """On CUDA the array is always a host copy (torch/csrc/utils/tensor_numpy.cpp refuses GPU
    tensors), and it must not change when x changes on the GPU."""
    s = data.draw(subjects(device=device), label="x")
    text = f"to_numpy(x, copy=True) with {s} on {device}"
    array = say.call(text, kata.to_numpy, s.x, copy=True, hint=4, expected=numpy_expected(s.x))
    check_array(text, array, s.x)
    kept = array.copy()
    assert not array_overlaps(array, s.base), say(
        text, "returned an array that uses x's memory; copy=True must copy", hint=4
    )
    with torch.no_grad():
        bump(s.base)
    assert np.array_equal(array, kept), say(
        text, "returned an array that changed when x was changed in place", hint=4
    )


@FEW
@given(s=subjects(dtype=torch.bfloat16), copy=st.booleans())
def test_to_numpy_converts_bfloat16_exactly(kata, s, copy):
    text = f"to_numpy(x, copy={copy}) with {s}"
    array = say.call(text, kata.to_numpy, s.x, copy=copy, hint=3, expected=numpy_expected(s.x))
    check_array(text, array, s.x)


@FEW
@given(
    shape=shapes(),
    dtype=st.sampled_from([torch.complex64, torch.complex128]),
    seed=st.integers(0, 2**32 - 1),
    how=st.sampled_from(["z.conj()", "z.conj().imag", "z.conj().t()"]),
    copy=st.booleans(),
)
def test_to_numpy_resolves_conjugate_and_negative_bits(kata, shape, dtype, seed, how, copy):
    gen = torch.Generator().manual_seed(seed)
    z = torch.randn(shape, dtype=dtype, generator=gen)
    if how == "z.conj().t()" and z.dim() > 2:
        how = "z.conj()"
    x = {
        "z.conj()": z.conj,
        "z.conj().imag": lambda: z.conj().imag,
        "z.conj().t()": lambda: z.conj().t(),
    }[how]()
    text = f"to_numpy(x, copy={copy}) with x = {how} (is_conj={x.is_conj()}, is_neg={x.is_neg()})"
    array = say.call(
        text,
        kata.to_numpy,
        x,
        copy=copy,
        hint=3,
        expected=(
            "x's values: x is a lazy conjugate (or negation), a view of z's storage with a "
            "flag that says to conjugate when read, and numpy arrays carry no such flag, so "
            "the array must hold the values the flag gives, in memory of its own"
        ),
    )
    want = x.resolve_conj().resolve_neg().numpy()
    assert isinstance(array, np.ndarray) and array.dtype == want.dtype, say(
        text,
        f"returned {type(array).__name__} {getattr(array, 'dtype', '')}; expected {want.dtype}",
        hint=3,
    )
    assert np.array_equal(array, want), say(
        text, "returned other values than x has (a lazy conjugate or negation was dropped)", hint=3
    )


NOT_TENSORS = [[1.0, 2.0], np.arange(3.0), None, 3.5, "tensor"]


@pytest.mark.given
@pytest.mark.parametrize("value", NOT_TENSORS, ids=lambda v: type(v).__name__)
def test_to_numpy_refuses_what_is_not_a_tensor(kata, value):
    text = f"to_numpy({describe(value)})"
    name = "None" if value is None else type(value).__name__  # "None" names None's type too
    with say.raises(TypeError, text, hint=3) as raised:
        kata.to_numpy(value)
    assert name in str(raised.value), say(
        text,
        f"raised TypeError({str(raised.value)!r}), which does not name its type, {name}",
        hint=3,
    )


@pytest.mark.given
def test_to_numpy_refuses_a_meta_tensor(kata):
    text = "to_numpy(x) with x on the meta device"
    with say.raises(ValueError, text, hint=3):
        try:
            kata.to_numpy(torch.zeros(2, 3, device="meta"))
        except NotImplementedError as err:  # torch's "Cannot copy out of meta tensor"
            if say.unwritten(err):
                raise
            pytest.fail(
                say(text, f"let torch's error escape ({err}); expected ValueError", hint=3),
                pytrace=False,
            )


# --- from_numpy -------------------------------------------------------------------------------

ARRAY_KINDS = ("contiguous", "transposed", "sliced", "stepped", "fortran")


@st.composite
def arrays(draw, *, min_side: int = 1):
    """(kind, base, a): a numpy array `a` that is `base` or a view of it."""
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    shape = draw(shapes(min_dims=1, max_dims=3, min_side=min_side, max_side=5))
    base = make_tensor(shape, dtype, draw(st.integers(0, 2**32 - 1))).numpy().copy()
    kind = draw(st.sampled_from(ARRAY_KINDS))
    a = {
        "contiguous": lambda: base,
        "transposed": lambda: base.T,
        "sliced": lambda: base[..., 1:],
        "stepped": lambda: base[..., ::2],
        "fortran": lambda: np.asfortranarray(base),
    }[kind]()
    if kind == "fortran":
        base = a
    return kind, base, a


def describe_array(kind: str, a: np.ndarray) -> str:
    return f"a = a {kind} {a.dtype} array of shape {a.shape}"


def check_tensor(text: str, t, a: np.ndarray, hint: int = 2) -> None:
    want = torch.from_numpy(np.array(a, dtype=a.dtype.newbyteorder("="), order="C"))
    assert isinstance(t, torch.Tensor) and t.device.type == "cpu", say(
        text, f"returned {describe(t)}; expected a CPU tensor", hint=hint
    )
    assert t.dtype == want.dtype and t.shape == want.shape, say(
        text,
        f"returned {t.dtype}, shape {tuple(t.shape)}; expected {want.dtype}, shape {a.shape}",
        hint=hint,
    )
    assert torch.equal(t, want), say(text, "returned other values than a has", hint=hint)


@SOME
@given(drawn=arrays(min_side=2))
def test_from_numpy_shares_memory_with_the_array(kata, drawn):
    kind, _, a = drawn
    text = f"from_numpy(a) with {describe_array(kind, a)}"
    t = say.call(text, kata.from_numpy, a, hint=2)
    check_tensor(text, t, a)
    assert np.shares_memory(t.numpy(), a), say(
        text, "returned a copy; with copy=False the tensor must share a's memory", hint=2
    )


@SOME
@given(drawn=arrays(min_side=0))
def test_from_numpy_with_copy_owns_its_memory(kata, drawn):
    kind, base, a = drawn
    text = f"from_numpy(a, copy=True) with {describe_array(kind, a)}"
    t = say.call(text, kata.from_numpy, a, copy=True, hint=4)
    check_tensor(text, t, a)
    kept = t.clone()
    assert not np.shares_memory(t.numpy(), a), say(
        text, "returned a tensor that uses a's memory; copy=True must copy", hint=4
    )
    bump(base)
    assert torch.equal(t, kept), say(text, "changed when a was changed in place", hint=4)


# Why a tensor cannot share each kind of array's memory as it is (checked on torch 2.13).
UNSHAREABLE = {
    "reversed": "a tensor's strides cannot be negative, and a[::-1] steps backwards",
    "big-endian": "a tensor holds numbers in this machine's byte order only",
    "read-only": (
        "numpy promises nobody writes to it, and a tensor sharing it could (torch.from_numpy "
        "shares it anyway, with a warning)"
    ),
}


@st.composite
def unshareable_arrays(draw):
    kind = draw(st.sampled_from(list(UNSHAREABLE)))
    dtype = draw(
        st.sampled_from(
            NUMPY_DTYPES
            if kind != "big-endian"
            else [torch.float32, torch.float64, torch.int64, torch.int32, torch.int16]
        )
    )
    shape = draw(shapes(min_dims=1, max_dims=3, min_side=2, max_side=5))
    a = make_tensor(shape, dtype, draw(st.integers(0, 2**32 - 1))).numpy().copy()
    if kind == "reversed":
        a = a[::-1]
    elif kind == "big-endian":
        a = a.astype(a.dtype.newbyteorder(">"))
    else:
        a.flags.writeable = False
    return kind, a


@FEW
@given(drawn=unshareable_arrays())
def test_from_numpy_refuses_to_share_what_torch_cannot(kata, drawn):
    kind, a = drawn
    text = f"from_numpy(a) with {describe_array(kind, a)}"
    # torch warns about a read-only array only once per process (TORCH_WARN_ONCE), so ignore
    # that warning here: whether it fires must not decide what this test sees.
    with say.raises(ValueError, text, hint=2) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = kata.from_numpy(a)
        pytest.fail(
            say(
                text,
                f"returned {describe(got)}, but a tensor cannot safely share this array's "
                f"memory: {UNSHAREABLE[kind]}. With copy=False that is a ValueError that "
                "suggests copy=True",
                hint=2,
            ),
            pytrace=False,
        )
    assert "copy" in str(raised.value), say(
        text, f"raised ValueError({str(raised.value)!r}), which does not suggest copy=True", hint=2
    )


@FEW
@given(drawn=unshareable_arrays())
def test_from_numpy_copies_what_torch_cannot_share(kata, drawn):
    kind, a = drawn
    text = f"from_numpy(a, copy=True) with {describe_array(kind, a)}"
    expected = f"a copy: copy=True always works, even where sharing cannot ({UNSHAREABLE[kind]})"
    t = say.call(text, kata.from_numpy, a, copy=True, hint=4, expected=expected)
    check_tensor(text, t, a)


NOT_ARRAYS = [
    [1.0, 2.0],
    torch.arange(3.0),
    np.float64(2.5),
    np.array(["a", "b"]),
    np.array([1, None]),
]


@pytest.mark.given
@pytest.mark.parametrize(
    "value", NOT_ARRAYS, ids=lambda v: f"{type(v).__name__}-{getattr(v, 'dtype', '')}"
)
def test_from_numpy_refuses_what_it_cannot_convert(kata, value):
    text = f"from_numpy({describe(value)})"
    # The dtype may be named as numpy prints it ("<U1", "dtype('O')") or by its name ("str32").
    names = []
    if type(value) is np.ndarray:
        names = [str(value.dtype), value.dtype.name, repr(value.dtype)]
    names = names or [type(value).__name__]
    name = f"its dtype, {names[0]}" if type(value) is np.ndarray else f"its type, {names[0]}"
    with say.raises(TypeError, text, hint=4) as raised:
        kata.from_numpy(value)
    assert any(n in str(raised.value) for n in names), say(
        text, f"raised TypeError({str(raised.value)!r}), which does not name {name}", hint=4
    )
