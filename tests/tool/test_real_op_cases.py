"""The real-op cases of tests/test_mismatch_errors.py, on the pin: a case whose op stops raising
fails the classify tests naming it and the torch that let it through, and META_LETS_THROUGH,
which leaves a case out on one release whose meta device lets it through, cannot go stale.

torch 2.11.0's meta index_add_ returned a meta tensor where 2.13.0 raises, and the classify
tests failed on 2.11 with "this op was expected to raise" without saying which op. Here a
release is simulated by its version string, and an op that stops raising by a patched op."""

from __future__ import annotations

import pytest
import torch

from dojo.coverage import release
from tests import test_mismatch_errors as cases

INDEX_ADD = "index_add_ of a source not moved"


def names(ops) -> list[str]:
    return [what for what, _ in ops]


def index_add_lets_through(self, dim, index, source, **kwargs):
    """index_add_ as torch 2.11.0's meta device runs it on a meta self: no device check."""
    return self


def test_no_case_is_left_out_on_the_pin():
    pin = release(torch.__version__)
    assert not [key for key in cases.META_LETS_THROUGH if key[1] == pin], (
        f"the pin, torch {torch.__version__}, asserts every real-op case"
    )


def test_every_real_op_case_raises_on_the_pin():
    """On the pin nothing is left out, and each op of every list raises."""
    ops = [
        *cases.device_error_ops(cases.META, cases.CPU),
        *cases.dtype_error_ops(cases.CPU),
        *cases.OTHER_ERROR_OPS,
    ]
    quiet = []
    for what, op in ops:
        try:
            op()
        except Exception:
            continue
        quiet.append(what)
    assert not quiet, f"torch {torch.__version__} raises on none of {quiet}"


def test_a_case_that_stops_raising_fails_naming_the_op_and_the_torch(monkeypatch):
    monkeypatch.setattr(torch.Tensor, "index_add_", index_add_lets_through)
    op = dict(cases.device_error_ops(cases.META, cases.CPU))[INDEX_ADD]
    with pytest.raises(pytest.fail.Exception) as failed:
        cases.caught(op, INDEX_ADD)
    assert f"harness: {INDEX_ADD} was expected to raise" in str(failed.value)
    assert f"on torch {torch.__version__}" in str(failed.value)


def test_on_a_release_that_lets_it_through_the_case_is_left_out(monkeypatch):
    monkeypatch.setattr(torch, "__version__", "2.11.0+cu130")
    monkeypatch.setattr(torch.Tensor, "index_add_", index_add_lets_through)
    on_meta = names(cases.device_error_ops(cases.META, cases.CPU))
    monkeypatch.undo()
    pin = names(cases.device_error_ops(cases.META, cases.CPU))
    assert on_meta == [what for what in pin if what != INDEX_ADD]


def test_a_listed_release_whose_op_raises_fails_the_listing(monkeypatch):
    """torch 2.13's index_add_ raises: listed as letting it through, the listing is stale."""
    monkeypatch.setattr(torch, "__version__", "2.11.0+cu130")
    with pytest.raises(pytest.fail.Exception, match="remove the entry") as failed:
        cases.device_error_ops(cases.META, cases.CPU)
    assert "index_add(): self, index and source expected to be in the same device" in str(
        failed.value
    )


def test_the_cuda_case_keeps_it_on_every_release(monkeypatch):
    monkeypatch.setattr(torch, "__version__", "2.11.0+cu130")
    assert INDEX_ADD in names(cases.device_error_ops(torch.device("cuda"), cases.CPU))
