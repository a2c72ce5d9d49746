"""The GPU host's commands (issue 28): which code the cuda tier checks, and `dojo.gpu_run`, the
one command for a GPU host's first real run (tested here without a GPU)."""

from __future__ import annotations

import os
import subprocess
import sys

from dojo import catalogue as _catalogue
from dojo import runner

ROOT = _catalogue.ROOT


def test_the_last_impl_wins_so_tests_cuda_can_check_your_katas():
    """`nox -s tests-cuda -- --impl katas` appends to the session's `--impl reference`: the
    docs say the last one wins. Here `--impl stubs` after it: the stub's tests are not written."""
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
            "--impl", "reference", "-m", "cpu", "--impl", "stubs", "-x",
            "tests/test_view_vs_reshape.py",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "KATAS_HYPOTHESIS_PROFILE": "quick"},
    )  # fmt: skip
    assert done.returncode == 1 and "not written yet" in done.stdout, done.stdout[-2000:]


def test_check_runs_every_tier_so_a_gpu_host_runs_the_cuda_tests_of_your_kata():
    """`python -m katas check NAME` selects no tier: where torch sees a GPU, the cuda tests run."""
    args = runner.pytest_args(["copy_semantics"])
    assert "-m" not in args and "--impl" in args and args[args.index("--impl") + 1] == "katas"
