"""Fixtures shared by the tool's tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def four_threads():
    """torch at 4 CPU threads in this process, and the children it forks, whatever this machine
    has; restored afterwards. Thread shares are then the same on every machine."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(4)
    yield
    torch.set_num_threads(before)
