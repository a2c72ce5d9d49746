"""The coverage check (dojo/coverage.py): which topic messages of torch and of the CUDA runtime
the error index does not recognise. Topic is where a message comes from, so the check cannot
pass by looking at fewer files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dojo import coverage

ISSUE_PATHS = (  # issue 27 names these; the check must read every one of them
    "torch/cuda",
    "torch/nn/parallel",
    "torch/distributed",
    "torch/utils/data",
    "torch/amp",
)


def test_the_topic_is_every_file_under_the_issues_paths():
    assert set(ISSUE_PATHS) <= set(coverage.TOPIC_PATHS)


def _torch(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code))
    return tmp_path


def test_messages_are_read_from_raises_and_warnings_with_what_is_built_at_run_time(tmp_path):
    site = _torch(
        tmp_path,
        {
            "torch/cuda/__init__.py": """
                import warnings
                def f(n, device):
                    raise RuntimeError(f"Invalid device {device}, only {n} GPUs here")
                def g():
                    warnings.warn("the pool is empty " + "after a reset")
                    raise ValueError("one two")  # two words: not a message a reader pastes
            """,
            "torch/fx/other.py": 'raise RuntimeError("outside the topic paths entirely")\n',
        },
    )
    texts = {m.text for m in coverage.python_messages(site)}
    assert texts == {
        f"Invalid device {coverage.PLACEHOLDER}, only {coverage.PLACEHOLDER} GPUs here",
        "the pool is empty after a reset",
    }


def test_a_new_message_in_a_topic_file_fails_until_it_has_a_family_or_a_reason(tmp_path):
    site = _torch(
        tmp_path,
        {"torch/nn/parallel/new.py": 'raise RuntimeError("a brand new failure of replicas")\n'},
    )
    messages = coverage.python_messages(site)
    report = coverage.check(messages, coverage.LeftOut({}, {}))
    assert [m.text for m in report.missed] == ["a brand new failure of replicas"]
    assert not report.ok
    listed = coverage.LeftOut({}, {"a brand new failure of replicas": "why"})
    assert coverage.check(messages, listed).ok
    by_folder = coverage.LeftOut({"torch/nn/parallel/new.py": "why"}, {})
    assert coverage.check(messages, by_folder).ok


def test_a_listed_message_is_stale_when_gone_only_from_the_release_it_was_listed_from():
    """One list serves the pin and the newest release: a message that 2.15 dropped is no
    stale line on 2.15 when it was listed from 2.13, and is one on 2.13."""
    listed = coverage.LeftOut({}, {"from 2.13": "why", "from 2.15": "why"},
                              {"from 2.13": ("2.13",), "from 2.15": ("2.15",)})  # fmt: skip
    on_newest = coverage.check([], listed, installed="2.15")
    assert on_newest.stale == ["'from 2.15' is no longer a topic message"]
    on_pin = coverage.check([], listed, installed="2.13")
    assert on_pin.stale == ["'from 2.13' is no longer a topic message"]
    assert coverage.release("2.15.0+cu132") == "2.15"
    assert coverage.left_out().releases  # the real list reads its releases


def test_a_message_the_index_recognises_passes_and_its_listing_is_stale(tmp_path):
    text = "Expected all tensors to be on the same device, but found at least two devices"
    site = _torch(tmp_path, {"torch/amp/x.py": f'raise RuntimeError("{text}")\n'})
    messages = coverage.python_messages(site)
    assert coverage.check(messages, coverage.LeftOut({}, {})).ok
    stale = coverage.check(messages, coverage.LeftOut({}, {text: "why"}))
    assert not stale.ok and "recognised now" in stale.stale[0]
    gone = coverage.check([], coverage.LeftOut({}, {"a message torch no longer has": "why"}))
    assert not gone.ok and "no longer" in gone.stale[0]


def test_every_listed_message_and_folder_has_a_reason():
    listed = coverage.left_out()
    assert listed.folders and all(r.strip() for r in listed.folders.values())
    assert all(r.strip() for r in listed.texts.values())
    assert all(f.startswith(coverage.TOPIC_PATHS) for f in listed.folders)


def test_the_installed_torch_has_no_topic_message_the_index_misses(capsys):
    """The check itself, on the torch this suite runs with (its Python messages; the CPU build
    has no CUDA runtime, which CI's compat session checks with the CUDA build)."""
    code = coverage.main([])
    out = capsys.readouterr().out
    assert code == 0, out


def test_the_cuda_runtime_table_is_read_where_one_is_installed():
    import torch

    site = Path(torch.__file__).resolve().parent.parent
    cudart = coverage.find_cudart(site)
    if cudart is None:
        pytest.skip("no libcudart beside torch (the CPU build); CI's compat session has one")
    runtime = coverage.cuda_runtime_messages(cudart)
    texts = {m.text for m in runtime}
    assert "CUDA error: misaligned address" in texts and len(runtime) > 100
    assert coverage.check(runtime, coverage.left_out()).ok
