"""The GPU host's commands (issue 28): which code the cuda tier checks, and `dojo.gpu_run`, the
one command for a GPU host's first real run (tested here without a GPU)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest
import torch

from dojo import catalogue as _catalogue
from dojo import cuda_env, gpu_run, runner

ROOT = _catalogue.ROOT


def test_the_last_impl_wins_so_tests_cuda_can_check_your_katas():
    """`nox -s tests-cuda -- --impl katas` appends to the session's `--impl reference`: the
    docs say the last one wins. Here `--impl stubs` after it: the stub's tests are not written."""
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
            "--impl", "reference", "-m", "cpu", "--impl", "stubs", "-x",
            "tests/test_copy_semantics.py",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "KATAS_HYPOTHESIS_PROFILE": "quick"},
    )  # fmt: skip
    assert done.returncode == 1 and "not written yet" in done.stdout, done.stdout[-2000:]


def test_check_runs_every_tier_so_a_gpu_host_runs_the_cuda_tests_of_your_kata():
    """`python -m katas check NAME` selects no tier: where torch sees a GPU, the cuda tests run."""
    args = runner.pytest_args(["copy_semantics"])
    assert "-m" not in args and "--impl" in args and args[args.index("--impl") + 1] == "katas"


# --- python3 -m dojo.gpu_run --------------------------------------------------------------------


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: no stop")
def test_without_a_gpu_it_stops_in_one_line_and_leaves_nothing(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "dojo.gpu_run", "--out", str(tmp_path / "out")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.count("\n") == 1 and done.stdout.startswith("gpu_run: torch "), done.stdout
    assert "sees no CUDA device" in done.stdout and "run it on a GPU host" in done.stdout
    assert not (tmp_path / "out").exists()


def seen_host(**changes) -> dict:
    """What the probe reports on a GPU host (a simulated one)."""
    return {
        "python": "/opt/torch/.venv/bin/python3", "version": "3.12.3", "missing": [],
        "tools": {"pytest": "9.2.0", "hypothesis": "6.170.15", "numpy": "2.5.2"},
        "torch": "2.11.0+cu130", "torch_cuda": "13.0", "available": True, "driver": "580.159.04",
        "header": ["torch 2.11.0+cu130, built for CUDA 13.0", "driver: 580.159.04",
                   "GPU 0: NVIDIA H100 80GB HBM3, sm_90, 79.2 GiB, 132 SMs"],
        "gpus": [{"name": "NVIDIA H100 80GB HBM3", "capability": [9, 0], "memory": 85e9,
                  "sms": 132}],
        "cudnn": 91300, **changes,
    }  # fmt: skip


def test_a_missing_tool_stops_in_one_line_that_says_how_to_prepare_the_folder(tmp_path):
    seen = seen_host(missing=["pytest 8.3.5 is too old (the test settings ...): installing x"])
    with pytest.raises(gpu_run.Stop) as stop:
        gpu_run.check_host(seen, tmp_path / "tools")
    line = str(stop.value)
    assert "\n" not in line and "pytest 8.3.5 is too old" in line and "is not there" in line
    assert "--prepare --python-version 3.12" in line
    with pytest.raises(gpu_run.Stop, match="has no torch"):
        gpu_run.check_host(seen_host(torch=None), tmp_path)
    gpu_run.check_host(seen_host(), tmp_path)  # a GPU and the tools: no stop


def test_the_tools_folder_is_the_one_tests_cuda_fills(tmp_path, monkeypatch):
    monkeypatch.delenv(cuda_env.TOOLS_DIR, raising=False)
    assert gpu_run.tools_dir(None) == cuda_env.overlay_dir({})
    assert gpu_run.tools_dir(tmp_path, "3.12") == tmp_path / "cpython312-linux-x86_64"
    command = gpu_run.prepare_command(tmp_path / "t", "3.12", without=("numpy",))
    assert "--python-version" in command and "3.12" in command and "--only-binary=:all:" in command
    assert not any(r.startswith("numpy") for r in command) and "pytest==9.2.0" in command
    with pytest.raises(ValueError, match="--without nump"):
        gpu_run.prepare_command(tmp_path, "3.12", without=("nump",))


def write_fake_run(work: Path, *, stopped: str | None = None) -> None:
    """The files a run leaves in its folder: three passes, a failure, two skips with one reason
    and one with another."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "machine.txt").write_text(
        "host: gpu-1\ntorch 2.11.0+cu130, built for CUDA 13.0\nGPU 0: NVIDIA H100 80GB HBM3\n"
        "\nnvidia-smi:\n| NVIDIA-SMI 580.159.04 |\n"
    )
    (work / "junit.xml").write_text(textwrap.dedent("""\
        <?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
        <testcase classname="tests.test_memory" name="test_a[cuda]" time="0.5"/>
        <testcase classname="tests.test_memory" name="test_b" time="12.25"/>
        <testcase classname="tests.test_timing" name="test_c[cuda]" time="3.0"/>
        <testcase classname="tests.test_timing" name="test_d[cuda]" time="1.0">
          <failure message="timing.measure(...) returned 0.0 ms; expected more">long text</failure>
        </testcase>
        <testcase classname="tests.test_data_parallel" name="test_e[cuda]" time="0">
          <skipped message="needs two or more CUDA devices">x</skipped></testcase>
        <testcase classname="tests.test_copy_semantics" name="test_f[cuda]" time="0">
          <skipped message="needs two or more CUDA devices">x</skipped></testcase>
        <testcase classname="tests.test_distributed" name="test_g[cuda]" time="0">
          <skipped type="pytest.skip" message="nccl is not available">x</skipped></testcase>
        </testsuite></testsuites>
        """))  # fmt: skip
    (work / "results.json").write_text(json.dumps({
        "experiments": {"h2d_bandwidth": {"headline": "at 1 GiB: 25.1 GB/s pinned", "seconds": 9}},
        "skipped": [{"name": "autocast_matmul", "reason": "no time left within the run's limit"}],
        "failed": [{"name": "item_logging", "error": "RuntimeError: boom"}],
    }))  # fmt: skip
    run = {"limit": 300, "pytest_exit": 1, "seconds": 281.0}
    if stopped:
        run["stopped"] = stopped
    (work / "run.json").write_text(json.dumps(run))


def test_the_summary_is_built_from_a_runs_files(tmp_path):
    write_fake_run(tmp_path)
    text = gpu_run.summarize(tmp_path)
    assert "3 passed, 1 failed, 3 skipped of 7; pytest exit status 1" in text, text
    assert "FAILED `tests/test_timing.py::test_d[cuda]`: timing.measure(...) returned" in text
    assert "- 2 × needs two or more CUDA devices" in text and "- 1 × nccl is not available" in text
    slow = text.split("Slowest tests:")[1].split("**Benchmarks**")[0]
    assert slow.index("test_b") < slow.index("test_c") < slow.index("test_d") < slow.index("test_a")
    assert "`tests/test_data_parallel.py::test_e[cuda]`" not in slow  # skipped: not timed
    assert "h2d_bandwidth: at 1 GiB: 25.1 GB/s pinned (9 s)" in text
    assert "autocast_matmul: skipped, no time left" in text
    assert "item_logging: FAILED, RuntimeError: boom" in text
    assert "GPU 0: NVIDIA H100 80GB HBM3" in text and "NVIDIA-SMI" not in text
    assert "Stopped at the time limit" not in text and "281 s of a 300 s limit" in text


def test_a_run_cut_short_says_so_and_what_it_lacks(tmp_path):
    write_fake_run(tmp_path, stopped="the cuda tier, in or after tests/test_x.py::test_hangs")
    (tmp_path / "junit.xml").unlink()
    (tmp_path / "results.json").unlink()
    text = gpu_run.summarize(tmp_path)
    assert "Stopped at the time limit** (the cuda tier, in or after tests/test_x.py" in text
    assert "No JUnit file" in text and "- not run" in text


@pytest.mark.parametrize("ignores_sigint", [False, True])
def test_a_hung_child_is_stopped_at_its_time(tmp_path, monkeypatch, ignores_sigint):
    """SIGINT at the time (pytest then still writes its files), and SIGKILL to its process
    group GRACE seconds later, for a child that ignores SIGINT (it inherits SIG_IGN from here,
    as Python does too). The child is `sleep`, not a Python: a SIGINT that lands while an
    interpreter is still starting ends it with status 1, not by the signal, and under load the
    SIGINT at time 0 did land there."""
    monkeypatch.setattr(gpu_run, "GRACE", 1)
    # Each case sets its own: the one this process was started with may be SIG_IGN (a
    # background job of a script), which the child would inherit.
    handler = signal.SIG_IGN if ignores_sigint else signal.default_int_handler
    before = signal.signal(signal.SIGINT, handler)
    try:
        status, stopped = gpu_run._run_bounded(
            ["sleep", "120"],
            env=dict(os.environ), log=tmp_path / "log", until=0, echo=False,
        )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, before)
    assert stopped
    assert status == (-signal.SIGKILL if ignores_sigint else -signal.SIGINT), status


def test_output_is_logged_as_it_comes_not_by_lines(tmp_path):
    """pytest -v writes a test's name and its outcome only after it has run: a hung test's name
    has no newline after it, and must still reach the log."""
    code = "print('tests/test_x.py::test_hangs ', end='', flush=True)"
    status, stopped = gpu_run._run_bounded(
        [sys.executable, "-c", code], env=dict(os.environ), log=tmp_path / "log",
        until=float("inf"), echo=False,
    )  # fmt: skip
    assert (status, stopped) == (0, False)
    assert (tmp_path / "log").read_text() == "tests/test_x.py::test_hangs "


def test_a_whole_run_on_a_simulated_gpu_leaves_an_archive_and_a_summary(tmp_path, monkeypatch):
    """The probe says there is a GPU; the cuda tier is a small test file of its own; the one
    benchmark is a CPU experiment at smoke size. Two files come out."""
    tests = tmp_path / "test_tiny.py"
    tests.write_text(
        "import pytest\n\ndef test_passes():\n    pass\n\n"
        "@pytest.mark.skip(reason='needs two or more CUDA devices')\ndef test_two():\n    pass\n"
    )
    monkeypatch.setattr(gpu_run, "probe", lambda python, env, until: seen_host())
    monkeypatch.setattr(
        gpu_run,
        "pytest_command",
        lambda python, work, workers: [
            python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
            "--rootdir", str(tmp_path), "-c", os.devnull, str(tests),
            "--junitxml", str(work / "junit.xml"),
        ],
    )  # fmt: skip
    monkeypatch.setattr(gpu_run, "gpu_experiments", lambda: ["same_device_to"])
    out = tmp_path / "out"
    args = argparse.Namespace(
        out=out, tools=tmp_path / "none", time_limit=240, bench="smoke", workers=1
    )
    assert gpu_run.run(args) == 0
    files = sorted(p.name for p in out.iterdir())
    assert len(files) == 2 and files[1] == "summary.md", files
    assert files[0].startswith("gpu-run-NVIDIA-H100-80GB-HBM3-") and files[0].endswith(".tar.gz")
    with tarfile.open(out / files[0]) as tar:
        names = {Path(n).name for n in tar.getnames()}
        machine = tar.extractfile(f"{files[0].removesuffix('.tar.gz')}/machine.txt").read()
    assert {"machine.txt", "machine.json", "junit.xml", "pytest.log", "results.json"} <= names
    assert {"run.json", "summary.md"} <= names
    summary = (out / "summary.md").read_text()
    assert "1 passed, 0 failed, 1 skipped of 2; pytest exit status 0" in summary, summary
    assert "- 1 × needs two or more CUDA devices" in summary
    assert "same_device_to: " in summary and "FAILED" not in summary
    assert "torch: 2.11.0+cu130 (not the pin, torch==2.13.0" in machine.decode()


@pytest.mark.parametrize("started_ignoring_sigint", [False, True])
def test_a_hanging_cuda_tier_is_stopped_and_the_run_still_leaves_its_files(
    tmp_path, monkeypatch, started_ignoring_sigint
):
    """A test that never ends: at its time pytest gets SIGINT, still writes its JUnit file,
    and the summary says where the run stopped; exit status 4. Also when the run was started
    with SIGINT ignored (`nohup`, a background job of a script), which its pytest would
    otherwise inherit; the run leaves SIGINT as it found it."""
    (tmp_path / "tests").mkdir()
    tests = tmp_path / "tests" / "test_tiny.py"
    tests.write_text(
        "import time\n\ndef test_passes():\n    pass\n\ndef test_hangs():\n    time.sleep(600)\n"
    )
    monkeypatch.setattr(gpu_run, "probe", lambda python, env, until: seen_host())
    monkeypatch.setattr(
        gpu_run,
        "pytest_command",
        lambda python, work, workers: [
            python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-v",
            "--rootdir", str(tmp_path), "-c", os.devnull, str(tests),
            "--junitxml", str(work / "junit.xml"),
        ],
    )  # fmt: skip
    monkeypatch.setattr(gpu_run, "MARGIN", 5)
    monkeypatch.setattr(gpu_run, "GRACE", 5)
    out = tmp_path / "out"
    args = argparse.Namespace(
        out=out, tools=tmp_path / "none", time_limit=45, bench="none", workers=1
    )
    start = signal.SIG_IGN if started_ignoring_sigint else signal.default_int_handler
    before = signal.signal(signal.SIGINT, start)
    try:
        assert gpu_run.run(args) == 4
        assert signal.getsignal(signal.SIGINT) == start
    finally:
        signal.signal(signal.SIGINT, before)
    summary = (out / "summary.md").read_text()
    assert "Stopped at the time limit** (the cuda tier, in or after " in summary, summary
    assert "tests/test_tiny.py::test_hangs" in summary
    assert "1 passed, 0 failed, 0 skipped of 1" in summary, summary  # JUnit written on SIGINT


def test_the_benchmarks_the_page_promises_run_first_and_every_gpu_experiment_runs():
    from benchmarks import EXPERIMENTS

    names = gpu_run.gpu_experiments()
    assert names[:2] == ["h2d_bandwidth", "item_logging"]
    assert sorted(names) == sorted(e.name for e in EXPERIMENTS if e.needs_cuda and e.default)


# --- the Benchmarks page: GPU figures only when measured ---------------------------------------


def test_without_a_committed_gpu_run_the_page_says_none_was_measured(tmp_path):
    from benchmarks import gpu_runs

    text = gpu_runs.section(tmp_path)
    assert "No GPU figure has been measured yet" in text
    assert "GB/s" not in text and "Measured on" not in text, "no figure where none was measured"


def test_a_committed_gpu_run_shows_its_figures_naming_gpu_driver_torch_and_the_link(tmp_path):
    from benchmarks import gpu_runs

    folder = tmp_path / "gpu-run-NVIDIA-H100-80GB-HBM3-20261127-0300"
    folder.mkdir()
    (folder / "machine.json").write_text(json.dumps(seen_host()))
    modes = ("pageable", "pinned", "pinned, non_blocking")
    rows = [
        {"bytes": 4096, "gb_per_s": dict(zip(modes, (0.51, 1.25, 2), strict=True))},
        {"bytes": 2**30, "gb_per_s": dict(zip(modes, (9.8, 25.3, 25.4), strict=True))},
    ]
    (folder / "results.json").write_text(json.dumps({
        "experiments": {
            "h2d_bandwidth": {"headline": "at 1 GiB: ...", "rows": rows,
                              "link": {"gen": 5, "width": 16, "gb_per_s": 63.0, "source": "x"}},
            "item_logging": {"headline": "logging the loss on the device is 3.1x faster"},
        },
        "skipped": [{"name": "peak_memory", "reason": "no time left within the run's limit"}],
        "failed": [],
    }))  # fmt: skip
    text = gpu_runs.section(tmp_path)
    assert "NVIDIA H100 80GB HBM3 (sm_90), driver 580.159.04, torch 2.11.0+cu130" in text
    assert "PCIe gen 5 x16: 63.0 GB/s per direction" in text
    assert "| 1 GiB | 9.80 | 25.30 | 25.40 | 63.0 |" in text
    assert "| `item_logging` | logging the loss on the device is 3.1x faster |" in text
    assert "| `peak_memory` | not measured: no time left" in text
    (folder / "machine.json").unlink()  # half a run is no run
    assert "No GPU figure has been measured yet" in gpu_runs.section(tmp_path)


def test_the_pages_count_of_skipped_experiments_comes_from_the_data():
    from benchmarks import gpu_runs

    seven = {"skipped": [{"name": f"e{i}", "reason": "r"} for i in range(7)]}
    assert "the 7 GPU experiments are listed as skipped" in gpu_runs.skipped_sentence(seven)
    assert "1 GPU experiment is listed" in gpu_runs.skipped_sentence(
        {"skipped": seven["skipped"][:1]}
    )
    assert gpu_runs.skipped_sentence({"skipped": []}) == "Every experiment ran on this machine."


# --- the notebook for learners without a GPU ----------------------------------------------------


def test_the_committed_notebook_is_the_generated_one():
    from dojo import notebook

    assert notebook.PATH.read_text() == notebook.text(""), "run python -m dojo.notebook write"
    cells = json.loads(notebook.PATH.read_text())["cells"]
    written = next(c for c in cells if "".join(c["source"]).startswith("%%writefile"))
    kata = _catalogue.get(notebook.KATA)
    from dojo import source

    assert "".join(written["source"]).split("\n", 1)[1] == source.stub_text(kata)


def test_open_in_colab_only_for_a_known_github_address(monkeypatch):
    from dojo import notebook

    assert notebook.colab_url("") is None
    assert notebook.colab_url("https://gitlab.com/a/b") is None
    assert notebook.colab_url("https://github.com/a/katas") == (
        "https://colab.research.google.com/github/a/katas/blob/main/notebooks/gpu-katas.ipynb"
    )
    monkeypatch.setenv("KATAS_REPO_URL", "https://github.com/a/katas.git/")
    assert notebook.repo_url() == "https://github.com/a/katas"
    assert "REPO_URL = 'https://github.com/a/katas'" in notebook.text(notebook.repo_url())


def test_the_notebook_says_what_differs_from_the_pin():
    from dojo import notebook

    assert notebook.torch_notes("2.13.0+cu130") == [
        "torch 2.13.0+cu130 is the pinned release: every page was checked against it."
    ]
    older = " ".join(notebook.torch_notes("2.11.0+cu130"))
    assert "not the pinned 2.13.0" in older and "expected scalar type Long but found Int" in older
    newer = " ".join(notebook.torch_notes("2.15.0+cu132"))
    assert "mm: mat1 and mat2" in newer and "newer than" not in newer
    assert "newer than" in " ".join(notebook.torch_notes("9.0.0"))
    assert "older than any release" in " ".join(notebook.torch_notes("2.5.1+cu121"))


def test_the_cuda_tier_command_runs_only_its_tier_with_a_junit_file_and_durations(tmp_path):
    command = gpu_run.pytest_command("python3", tmp_path)
    for part in (["-m", "cuda"], ["--impl", "reference"], ["-p", "_hypothesis_pytestplugin"]):
        assert any(command[i : i + 2] == part for i in range(len(command))), part
    assert "--require-cuda" in command and "--durations=0" in command and "-n" not in command
    assert command[command.index("--junitxml") + 1] == str(tmp_path / "junit.xml")
    assert gpu_run.pytest_command("python3", tmp_path, 4)[-4:] == ["-p", "xdist.plugin", "-n", "4"]
