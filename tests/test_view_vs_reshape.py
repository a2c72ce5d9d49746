"""Tests for katas/view_vs_reshape.py.

Inputs are contiguous, transposed, permuted, sliced, stepped and expanded tensors
(tests.strategies.views), plus a few layouts drawn here: every other row of a batch, one row
broadcast to a batch, 1-d, channels_last, and views that happen to be contiguous.

The oracle for "a view is possible" is plainly `x.view(shape)` succeeding; values are checked
against `x.reshape(shape)`, sharing against the storage pointer, and writes against `x`.
center_rows_ is checked on `x` itself after the call (its storage pointer, its version counter,
its values against a float64 oracle, and the rest of the memory it shares), so a write that
went into a copy is seen as an unchanged `x`. The property tests take the `device` fixture, so
the cuda tier runs the same bodies on a GPU. There the same answers hold: whether `reshape` can
view is decided from sizes and strides alone (`computeStride` in
aten/src/ATen/native/TensorShape.cpp, `reshape_symint`), with no device branch for strided
tensors.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import FLOAT_DTYPES, VIEW_KINDS, make_tensor, shapes, views
from tests.support import Say, describe, recorded_warnings

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

MARK = -1  # make_tensor's integers are 0..99, so a written -1 is always a change


# --- inputs -----------------------------------------------------------------------------------

EXTRA_KINDS = (
    "rows stepped",  # x[::2]: every other sample of a batch; view(N, -1) still works
    "rows expanded",  # one sample broadcast to a batch: stride 0 on dim 0
    "1-d",
    "channels_last",
    "row sliced",  # x[k:]: a view, and contiguous
    "unsqueezed",  # a view, and contiguous
    "size-1 transposed",  # (1, n).t(): odd strides, yet contiguous
)


@st.composite
def extra_views(draw, *, kinds=EXTRA_KINDS, dtype=None, device="cpu"):
    """(kind, tensor) for layouts that tests.strategies.views does not draw."""
    kind = draw(st.sampled_from(kinds))
    dtype = dtype or draw(st.sampled_from([torch.float32, torch.float16, torch.int64, torch.bool]))
    seed = draw(st.integers(0, 2**32 - 1))
    dims = {"1-d": (1, 1), "channels_last": (4, 4), "size-1 transposed": (2, 2)}.get(kind, (1, 4))
    shape = draw(shapes(min_dims=dims[0], max_dims=dims[1], min_side=2, max_side=5))
    if kind == "size-1 transposed":
        shape = (1, shape[1])
    base = make_tensor(shape, dtype, seed, device)
    if kind == "rows stepped":
        return kind, base[:: draw(st.integers(2, 3))]
    if kind == "rows expanded":
        return kind, base[:1].expand(draw(st.integers(2, 4)), *base.shape[1:])
    if kind == "1-d":
        return kind, base[:: draw(st.integers(1, 2))]
    if kind == "channels_last":
        return kind, base.to(memory_format=torch.channels_last)
    if kind == "row sliced":
        return kind, base[draw(st.integers(1, base.shape[0] - 1)) :]
    if kind == "unsqueezed":
        return kind, base.unsqueeze(draw(st.integers(0, base.dim())))
    return kind, base.t()


def inputs(*, dtype=None, device="cpu"):
    """(kind, x): every layout this file tests, on `device`."""
    return views(dtype=dtype, device=device) | extra_views(dtype=dtype, device=device)


def contiguous_inputs(*, device="cpu"):
    """(kind, x) with x.is_contiguous(), some of them views with unusual strides."""
    kinds = ("row sliced", "unsqueezed", "size-1 transposed", "1-d")
    return (
        views(kinds=("contiguous", "sliced"), device=device)
        | extra_views(kinds=kinds, device=device)
    ).filter(lambda case: case[1].is_contiguous())


def non_contiguous_inputs(*, dtype=None, device="cpu"):
    """(kind, x) with x.is_contiguous() False."""
    kinds = ("rows stepped", "rows expanded", "channels_last", "1-d")
    return (
        views(kinds=VIEW_KINDS[1:], dtype=dtype, device=device)
        | extra_views(kinds=kinds, dtype=dtype, device=device)
    ).filter(lambda case: not case[1].is_contiguous())


def prime_factors(n: int) -> list[int]:
    factors, p = [], 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors


@st.composite
def target_shapes(draw, shape: tuple[int, ...]):
    """A shape with as many elements as `shape`: flattened, refactored, with 1s inserted, one
    dim split or two neighbours merged; sometimes one entry is -1."""
    numel = math.prod(shape)
    move = draw(st.sampled_from(["flat", "refactor", "insert ones", "split", "merge"]))
    if move == "flat":
        new = [numel]
    elif move == "refactor":
        factors = draw(st.permutations(prime_factors(numel)))
        cuts = sorted(draw(st.sets(st.integers(1, max(len(factors) - 1, 1)), max_size=3)))
        bounds = [0, *[c for c in cuts if c < len(factors)], len(factors)]
        new = [math.prod(factors[a:b]) for a, b in itertools.pairwise(bounds)]
    elif move == "insert ones":
        new = list(shape)
        for _ in range(draw(st.integers(1, 2))):
            new.insert(draw(st.integers(0, len(new))), 1)
    elif move == "split":
        i = draw(st.integers(0, len(shape) - 1))
        d = draw(st.sampled_from([d for d in range(1, shape[i] + 1) if shape[i] % d == 0]))
        new = [*shape[:i], d, shape[i] // d, *shape[i + 1 :]]
    else:
        if len(shape) < 2:
            new = [numel]
        else:
            i = draw(st.integers(0, len(shape) - 2))
            new = [*shape[:i], shape[i] * shape[i + 1], *shape[i + 2 :]]
    if numel and draw(st.booleans()):
        new[draw(st.integers(0, len(new) - 1))] = -1
    return tuple(new)


@st.composite
def bad_shapes(draw, shape: tuple[int, ...]):
    """A shape that cannot hold a tensor of `shape` (which has at least one element)."""
    numel = math.prod(shape)
    return draw(
        st.sampled_from(
            [(numel + 1,), (*shape, 2), (numel // shape[0], shape[0] + 1), (-1, -1), (-2, numel)]
        )
    )


# --- oracles and helpers ----------------------------------------------------------------------


def shares(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def can_view(x: torch.Tensor, shape) -> bool:
    """The plain oracle: a view is possible exactly when `view` succeeds."""
    try:
        x.view(shape)
    except RuntimeError:
        return False
    return True


def not_contiguity(x: torch.Tensor) -> str:
    """For a view missed on a non-contiguous x: the principle the miss broke."""
    if x.is_contiguous():
        return ""
    return (
        " (x.is_contiguous() is False, yet a view exists: whether one does depends on the "
        "strides of the dimensions being merged or split, not on contiguity)"
    )


def about(kind: str, x: torch.Tensor) -> str:
    return f"x ({kind}, shape {tuple(x.shape)}, strides {x.stride()}, {x.dtype})"


def rows_of(x: torch.Tensor) -> tuple[int, int]:
    return x.shape[0], math.prod(x.shape[1:])


def unravel(k: int, shape) -> tuple[int, ...]:
    index = []
    for size in reversed(shape):
        index.append(k % size)
        k //= size
    return tuple(reversed(index))


def names_shape(message: str, shape) -> bool:
    """Does the message give this shape, written any usual way: (2, 3), [2, 3], 2x3, 2 × 3?"""
    sizes = r"\s*(?:,|x|×|\*)\s*".join(re.escape(str(s)) for s in shape)
    return re.search(rf"(?<![\d-]){sizes}(?!\d)", message) is not None


# Ways to say that a shape is (): "()", "torch.Size([])", "0-d", "zero-dimensional", "scalar"...
ZERO_D = re.compile(
    r"\(\)|\[\]|scalar|\b(?:0|zero|no)[- ]?d(?:im|\b)|\bn?dim\w*(?:\(\))?\s*(?:==|=|is|of)\s*0\b",
    re.IGNORECASE,
)


def check_tensor(
    what: str, got, want: torch.Tensor, hint: int, of: str = "the reshape of x"
) -> None:
    """`got` is `want`, which is `of` (for the message)."""
    assert isinstance(got, torch.Tensor), say(
        what, f"returned a {type(got).__name__}; expected a tensor", hint=hint
    )
    assert got.shape == want.shape, say(
        what, f"returned shape {tuple(got.shape)}; expected {tuple(want.shape)}", hint=hint
    )
    assert got.dtype == want.dtype and got.device == want.device, say(
        what,
        f"returned a {got.dtype} tensor on {got.device}; expected {want.dtype} on {want.device}",
        hint=hint,
    )
    assert torch.equal(got, want), say(
        what, f"returned the right shape but other values than {of}", hint=hint
    )


# --- center_rows_ -----------------------------------------------------------------------------


def writable_inputs(*, dtype, device="cpu"):
    """(kind, x) for every layout above but the expanded ones, which cannot be written in place."""
    return views(kinds=VIEW_KINDS[:-1], dtype=dtype, device=device) | extra_views(
        kinds=tuple(k for k in EXTRA_KINDS if k != "rows expanded"), dtype=dtype, device=device
    )


def centred(x: torch.Tensor) -> torch.Tensor:
    """The oracle, in float64: each row x[i] minus the mean of its elements."""
    n, w = rows_of(x)
    x64 = x.double()
    return x64 - x64.reshape(n, w).mean(dim=1).view(n, *[1] * (x.dim() - 1))


def close(got: torch.Tensor, want: torch.Tensor, like: torch.Tensor) -> bool:
    """Within a few roundings of `like`'s dtype at the size of its values."""
    scale = like.double().abs().max().item() if like.numel() else 0.0
    tol = 8 * torch.finfo(like.dtype).eps * max(1.0, scale)
    return bool(((got.double() - want).abs() <= tol).all())


def whole_storage(x: torch.Tensor) -> torch.Tensor:
    """Every element of the memory x uses, x's own and the others, as a 1-d tensor."""
    return torch.empty(0, dtype=x.dtype, device=x.device).set_(x.untyped_storage())


# torch's message when `view` finds no strides for the new shape
VIEW_REFUSED = "view size is not compatible with input tensor's size and stride"


def no_row_view(x: torch.Tensor) -> str:
    """For an x that has no (N, W) view: why a write through a reshape of it misses x. Asked
    before the call, of the x the learner is given."""
    n, w = rows_of(x)
    if can_view(x, (n, w)):
        return ""
    return (
        f"x has no view of shape ({n}, {w}) here (x.view({n}, {w}) raises for its strides), "
        f"so a reshape of x to ({n}, {w}) is a copy, and a write into a copy never reaches x"
    )


def center(kata, what: str, x: torch.Tensor, *, hint: int, expected: str = "x itself, centred"):
    """Call center_rows_(x); an exception or a warning fails with a message for the learner,
    which says, when a `view` raised, that x has no such view here."""
    reason = no_row_view(x)
    with recorded_warnings() as caught:
        try:
            got = kata.center_rows_(x)
        except Exception as err:
            if say.unwritten(err):
                raise
            problem = f"raised {type(err).__name__}: {err}; expected {expected}"
            if isinstance(err, RuntimeError) and VIEW_REFUSED in str(err) and reason:
                problem += f". A view raised: {reason}"
                hint = 1
            pytest.fail(say(what, problem, hint=hint), pytrace=False)
    if caught:
        problem = f"warned {caught[0].category.__name__}: {caught[0].message}; expected no warning"
        pytest.fail(say(what, problem, hint=hint), pytrace=False)
    return got


def check_centred(what: str, x: torch.Tensor, got, before: torch.Tensor, want, reason: str):
    """x, after the call, holds `want` (its centred rows); an unchanged x is explained by
    `reason`, no_row_view(x) as asked before the call."""
    assert x.shape == before.shape, say(
        what, f"changed x's shape to {tuple(x.shape)}; expected {tuple(before.shape)}", hint=3
    )
    if torch.equal(x, before):
        returned = "returned x" if got is x else f"returned {describe(got)}, not x"
        assert close(x, want, before), say(
            what,
            f"{returned}, and x did not change"
            + (f": its rows were centred somewhere else, if at all. {reason}" if reason else ""),
            hint=1 if reason else 3,
        )
    assert x.dtype == before.dtype and close(x, want, before), say(
        what,
        f"changed x{'' if x.dtype == before.dtype else f' (now {x.dtype})'}, but not into its "
        "centred rows, computed in float64: x[i] minus the mean of x[i]'s elements; the "
        "largest difference is "
        f"{(x.double() - want).abs().max().item():.3g}",
        hint=3,
    )


@given(data=st.data())
def test_center_rows_changes_x_itself(kata, device, data):
    dtype = data.draw(st.sampled_from([torch.float32, torch.float64]), label="dtype")
    kind, x = data.draw(writable_inputs(dtype=dtype, device=device), label="x")
    want, before, reason = centred(x), x.clone(), no_row_view(x)
    version, memory = x._version, x.untyped_storage().data_ptr()
    what = f"center_rows_({about(kind, x)})"
    got = center(kata, what, x, hint=3)
    assert x.untyped_storage().data_ptr() == memory, say(
        what,
        "gave x other memory (x.data = ... or x.set_(...)); expected x's own memory to change, "
        "so that every tensor sharing it sees the centred rows",
        hint=3,
    )
    check_centred(what, x, got, before, want, reason)
    assert x._version > version, say(
        what,
        "changed x's values without moving its version counter (x._version), so autograd "
        "cannot see the change (a write through x.data?); expected an in-place change of x",
        hint=3,
    )


@pytest.mark.given  # the first version already does this: keep it so
@given(data=st.data())
def test_center_rows_returns_x_itself(kata, device, data):
    kind, x = data.draw(writable_inputs(dtype=torch.float32, device=device), label="x")
    what = f"center_rows_({about(kind, x)})"
    got = center(kata, what, x, hint=3)
    assert got is x, say(
        what,
        f"returned {'a new tensor' if isinstance(got, torch.Tensor) else repr(got)}; "
        "expected x itself",
        hint=3,
    )


@given(data=st.data())
def test_center_rows_matches_a_float64_reference(kata, device, data):
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES), label="dtype")
    kind, x = data.draw(writable_inputs(dtype=dtype, device=device), label="x")
    want, before, reason = centred(x), x.clone(), no_row_view(x)
    what = f"center_rows_({about(kind, x)})"
    got = center(kata, what, x, hint=3)
    check_centred(what, x, got, before, want, reason)


@pytest.mark.given  # the first version already does this: keep it so
@given(data=st.data())
def test_center_rows_changes_only_x(kata, device, data):
    slices = views(kinds=("sliced", "stepped"), dtype=torch.float32, device=device) | extra_views(
        kinds=("rows stepped", "row sliced"), dtype=torch.float32, device=device
    )
    kind, x = data.draw(slices, label="x")
    memory = whole_storage(x)
    mine = torch.zeros(memory.shape, dtype=torch.bool, device=device)
    mine.as_strided(x.shape, x.stride(), x.storage_offset()).fill_(True)
    others = memory[~mine].clone()
    what = f"center_rows_({about(kind, x)})"
    center(kata, what, x, hint=3)
    assert torch.equal(memory[~mine], others), say(
        what,
        "changed elements of x's memory that are not x's (x is a slice: the rest of its "
        "base shares that memory); expected only x's own elements to change",
        hint=3,
    )


@pytest.mark.given  # the first version already does this: keep it so
@given(shape=shapes(min_dims=1, max_dims=4, max_side=4), data=st.data())
def test_center_rows_handles_empty_tensors(kata, shape, data):
    zero_at = data.draw(st.integers(0, len(shape) - 1), label="zero at")
    shape = (*shape[:zero_at], 0, *shape[zero_at + 1 :])
    perm = data.draw(st.permutations(range(len(shape))), label="permutation")
    x = torch.zeros(shape).permute(*perm)
    n, w = rows_of(x)
    what = f"center_rows_(x of shape {tuple(x.shape)}: N = {n}, W = {w}, no elements)"
    size, stride = x.shape, x.stride()
    got = center(kata, what, x, hint=4, expected="x itself, as it was")
    assert got is x and x.shape == size and x.stride() == stride, say(
        what, "did not return x as it was; with no elements there is nothing to change", hint=4
    )


REFUSED = {
    "a list": (lambda: [1.0, 2.0], TypeError),
    "torch.tensor(3.0)": (lambda: torch.tensor(3.0), ValueError),
    "torch.arange(6).reshape(2, 3)": (lambda: torch.arange(6).reshape(2, 3), TypeError),
    "torch.ones(2, 3, dtype=torch.bool)": (lambda: torch.ones(2, 3, dtype=torch.bool), TypeError),
    "torch.zeros(1, 3).expand(4, 3)": (lambda: torch.zeros(1, 3).expand(4, 3), ValueError),
    "torch.zeros(2, 1, 3).expand(2, 4, 3)": (
        lambda: torch.zeros(2, 1, 3).expand(2, 4, 3),
        ValueError,
    ),
}


@pytest.mark.given
@pytest.mark.parametrize("what", REFUSED)
def test_center_rows_refuses_what_it_cannot_centre(kata, what):
    make, error = REFUSED[what]
    x = make()
    before = x.clone() if isinstance(x, torch.Tensor) else list(x)
    call = f"center_rows_({what})"
    with say.raises(error, call, hint=3) as raised:
        kata.center_rows_(x)
    assert "center_rows_" in str(raised.value), say(
        call,
        f"raised {error.__name__}({str(raised.value)!r}), which does not name center_rows_",
        hint=3,
    )
    assert torch.equal(x, before) if isinstance(x, torch.Tensor) else x == before, say(
        call, "changed x, then refused it", hint=3
    )


# --- flatten_rows -----------------------------------------------------------------------------


@given(data=st.data())
def test_flatten_rows_matches_reshape(kata, device, data):
    kind, x = data.draw(inputs(device=device), label="x")
    n, w = rows_of(x)
    what = f"flatten_rows({about(kind, x)})"
    got = say.call(
        what, kata.flatten_rows, x, hint=2, expected=f"shape ({n}, {w}); never raise on a layout"
    )
    check_tensor(what, got, x.reshape(n, w), hint=3)


@given(data=st.data())
def test_flatten_rows_views_when_it_can(kata, device, data):
    kind, x = data.draw(inputs(device=device), label="x")
    n, w = rows_of(x)
    what = f"flatten_rows({about(kind, x)})"
    got = say.call(what, kata.flatten_rows, x, hint=2, expected=f"shape ({n}, {w})")
    check_tensor(what, got, x.reshape(n, w), hint=3)
    if can_view(x, (n, w)):
        assert shares(got, x), say(
            what,
            f"returned a copy, but x.view({n}, {w}) works: a view was possible, so the "
            "copy wasted memory and writes to it will not reach x" + not_contiguity(x),
            hint=1,
        )
    else:
        assert not shares(got, x), say(
            what, f"shares storage with x, yet x.view({n}, {w}) is impossible", hint=1
        )


@given(data=st.data())
def test_flatten_rows_writes_reach_x_only_through_a_view(kata, device, data):
    kind, x = data.draw(inputs(dtype=torch.int64, device=device), label="x")
    n, w = rows_of(x)
    i, j = data.draw(st.integers(0, n - 1), label="i"), data.draw(st.integers(0, w - 1), label="j")
    before = x.clone()
    what = f"flatten_rows({about(kind, x)})"
    got = say.call(what, kata.flatten_rows, x, hint=2, expected=f"shape ({n}, {w})")
    check_tensor(what, got, before.reshape(n, w), hint=3)
    got[i, j] = MARK  # one element: allowed even where x is expanded
    if can_view(x, (n, w)):
        assert x.reshape(n, w)[i, j] == MARK, say(
            what,
            f"returned a tensor whose [{i}, {j}] was set to {MARK}, and x did not change; "
            "a view was possible, so writes through the result should reach x",
            hint=1,
        )
    else:
        assert torch.equal(x, before), say(
            what, "returned a tensor whose writes change x, though x cannot be viewed", hint=1
        )


@given(shape=shapes(min_dims=1, max_dims=4, max_side=4), data=st.data())
def test_flatten_rows_handles_empty_tensors(kata, shape, data):
    zero_at = data.draw(st.integers(0, len(shape) - 1), label="zero at")
    shape = (*shape[:zero_at], 0, *shape[zero_at + 1 :])
    perm = data.draw(st.permutations(range(len(shape))), label="permutation")
    x = torch.zeros(shape).permute(*perm)
    n, w = rows_of(x)
    what = f"flatten_rows(x of shape {tuple(x.shape)})"
    got = say.call(
        what,
        kata.flatten_rows,
        x,
        hint=4,
        expected=f"shape ({n}, {w})"
        + (
            ". With no rows, -1 cannot be inferred: any row width fits 0 elements" if n == 0 else ""
        ),
    )
    assert isinstance(got, torch.Tensor) and got.shape == (n, w), say(
        what, f"returned {getattr(got, 'shape', got)!r}; expected shape ({n}, {w})", hint=4
    )


@pytest.mark.given
def test_flatten_rows_rejects_a_0d_tensor(kata):
    x = torch.tensor(3.0)
    with say.raises(ValueError, "flatten_rows(torch.tensor(3.0))", hint=3) as raised:
        kata.flatten_rows(x)
    message = str(raised.value)
    assert ZERO_D.search(message), say(
        "flatten_rows(torch.tensor(3.0))",
        f"raised ValueError({message!r}), which does not say the shape is () (0-d)",
        hint=3,
    )


# --- view_or_copy -----------------------------------------------------------------------------


def draw_case(data, device, dtype=None):
    kind, x = data.draw(inputs(dtype=dtype, device=device), label="x")
    shape = data.draw(target_shapes(tuple(x.shape)), label="shape")
    return x, shape, f"view_or_copy({about(kind, x)}, {shape})"


def unpack(what: str, got) -> tuple[torch.Tensor, bool]:
    assert isinstance(got, tuple) and len(got) == 2, say(
        what, f"returned {type(got).__name__}; expected a tuple (tensor, shares)", hint=3
    )
    assert isinstance(got[0], torch.Tensor), say(
        what, f"returned a {type(got[0]).__name__} as the result; expected a tensor", hint=3
    )
    return got


@given(data=st.data())
def test_view_or_copy_matches_reshape(kata, device, data):
    x, shape, what = draw_case(data, device)
    result, _ = unpack(
        what, say.call(what, kata.view_or_copy, x, shape, hint=2, expected="a result")
    )
    check_tensor(what, result, x.reshape(shape), hint=3)


@given(data=st.data())
def test_view_or_copy_views_when_it_can(kata, device, data):
    x, shape, what = draw_case(data, device)
    result, _ = unpack(
        what, say.call(what, kata.view_or_copy, x, shape, hint=2, expected="a result")
    )
    if can_view(x, shape):
        assert shares(result, x), say(
            what,
            f"returned a copy, but x.view({shape}) works: a view was possible" + not_contiguity(x),
            hint=1,
        )


@given(data=st.data())
def test_view_or_copy_tells_the_truth_about_sharing(kata, device, data):
    x, shape, what = draw_case(data, device)
    result, flag = unpack(
        what, say.call(what, kata.view_or_copy, x, shape, hint=2, expected="a result")
    )
    assert isinstance(flag, bool), say(
        what, f"returned {flag!r} ({type(flag).__name__}) as `shares`; expected a bool", hint=3
    )
    truth = shares(result, x)
    assert flag == truth, say(
        what,
        f"said shares={flag}, but the result {'does' if truth else 'does not'} use x's storage"
        + why_not(x, result, flag),
        hint=1,
    )


def why_not(x: torch.Tensor, result: torch.Tensor, flag: bool) -> str:
    """What a wrong `shares` flag was probably read from, and why that is not sharing."""
    reasons = []
    if flag == x.is_contiguous():
        reasons.append(
            f"x.is_contiguous() is {x.is_contiguous()}, but whether a view exists depends on the "
            "strides of the dimensions being merged or split, not on contiguity: many "
            "non-contiguous tensors can be viewed"
        )
    if result._base is not None and flag == (result._base is x):
        reasons.append(
            "result._base is not x: `_base` names the tensor at the root of a chain of views, "
            "here x's own base, so it cannot tell whether result shares x's memory"
        )
    return f" ({'; or, if read from _base: '.join(reasons)})" if reasons else ""


@given(data=st.data())
def test_view_or_copy_writes_reach_x_only_when_it_says_so(kata, device, data):
    x, shape, what = draw_case(data, device, dtype=torch.int64)
    k = data.draw(st.integers(0, x.numel() - 1), label="element")
    before = x.clone()
    result, flag = unpack(
        what, say.call(what, kata.view_or_copy, x, shape, hint=2, expected="a result")
    )
    index = unravel(k, result.shape)
    result[index] = MARK  # one element: allowed even where x is expanded
    if flag:
        assert x.reshape(-1)[k] == MARK, say(
            what,
            f"said shares=True, but writing {MARK} to result{list(index)} did not change x",
            hint=1,
        )
    else:
        assert torch.equal(x, before), say(
            what, f"said shares=False, but writing to result{list(index)} changed x", hint=1
        )


EMPTY = {
    "torch.empty(0, 3)": lambda: torch.empty(0, 3),
    "torch.empty(0, 3).t()": lambda: torch.empty(0, 3).t(),
    "torch.empty(2, 0, 3).transpose(0, 2)": lambda: torch.empty(2, 0, 3).transpose(0, 2),
}


@pytest.mark.parametrize("what", EMPTY)
@pytest.mark.parametrize("shape", [(-1,), (3, 0), (1, 0, 3)])
def test_view_or_copy_handles_empty_tensors(kata, what, shape):
    """No elements, no memory to share: `shares` may be either, but must be a bool."""
    x = EMPTY[what]()
    call = f"view_or_copy({what}, {shape})"
    result, flag = unpack(
        call, say.call(call, kata.view_or_copy, x, shape, hint=2, expected="a result")
    )
    check_tensor(call, result, x.reshape(shape), hint=3)
    assert isinstance(flag, bool), say(
        call, f"returned {flag!r} ({type(flag).__name__}) as `shares`; expected a bool", hint=3
    )


SPELLINGS = {
    "a list": lambda n: [n],
    "a torch.Size": lambda n: torch.Size([n]),
    "numpy integers": lambda n: (np.int64(n),),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_view_or_copy_takes_any_spelling_of_a_shape(kata, spelling):
    x = torch.arange(12).reshape(3, 4).t()
    shape = SPELLINGS[spelling](12)
    call = f"view_or_copy(x of shape (4, 3), transposed, {shape!r}), the shape as {spelling}"
    result, _ = unpack(
        call, say.call(call, kata.view_or_copy, x, shape, hint=2, expected="a result")
    )
    check_tensor(call, result, x.reshape(12), hint=3)


@pytest.mark.given
@given(data=st.data())
def test_view_or_copy_rejects_a_shape_that_does_not_fit(kata, data):
    kind, x = data.draw(inputs(), label="x")
    shape = data.draw(bad_shapes(tuple(x.shape)), label="shape")
    what = f"view_or_copy({about(kind, x)}, {shape})"
    with say.raises(ValueError, what, hint=3) as raised:
        kata.view_or_copy(x, shape)
    message = str(raised.value)
    for name, s in (("x's shape", tuple(x.shape)), ("the requested shape", shape)):
        assert names_shape(message, s), say(
            what, f"raised ValueError({message!r}), which does not name {name} {s}", hint=3
        )


# --- ensure_contiguous ------------------------------------------------------------------------


@given(data=st.data())
def test_ensure_contiguous_returns_x_itself_when_contiguous(kata, device, data):
    kind, x = data.draw(contiguous_inputs(device=device), label="x")
    what = f"ensure_contiguous({about(kind, x)})"
    got = say.call(what, kata.ensure_contiguous, x, hint=2, expected="x itself")
    check_tensor(what, got, x, hint=2, of="x")
    assert got is x, say(
        what,
        "returned a new tensor"
        + (" (a copy)" if not shares(got, x) else "")
        + "; x is already contiguous, so expected x itself",
        hint=2,
    )


@given(data=st.data())
def test_ensure_contiguous_copies_what_is_not_contiguous(kata, device, data):
    kind, x = data.draw(non_contiguous_inputs(dtype=torch.int64, device=device), label="x")
    before = x.clone()
    what = f"ensure_contiguous({about(kind, x)})"
    got = say.call(what, kata.ensure_contiguous, x, hint=2, expected="a contiguous copy")
    assert isinstance(got, torch.Tensor) and got.is_contiguous(), say(
        what,
        f"returned a tensor with strides {getattr(got, 'stride', lambda: '?')()}, for which "
        "is_contiguous() is False; expected a row-major copy (clone() keeps the strides)",
        hint=2,
    )
    check_tensor(what, got, before, hint=2, of="x")
    got.fill_(MARK)  # a contiguous copy has no overlapping elements, so this is allowed
    assert torch.equal(x, before), say(
        what, "returned a tensor whose writes change x; expected a copy", hint=2
    )


@given(data=st.data())
def test_ensure_contiguous_copies_channels_last(kata, device, data):
    shape = data.draw(shapes(min_dims=4, max_dims=4, min_side=2, max_side=4), label="shape")
    x = make_tensor(shape, torch.float32, 0, device).to(memory_format=torch.channels_last)
    what = f"ensure_contiguous(a channels_last x of shape {tuple(x.shape)})"
    got = say.call(what, kata.ensure_contiguous, x, hint=2, expected="a contiguous copy")
    assert got is not x and got.is_contiguous(), say(
        what,
        "returned a tensor that is not contiguous in the default (row-major) format; "
        "channels_last is a different layout and needs a copy",
        hint=2,
    )
    check_tensor(what, got, x, hint=2, of="x")
