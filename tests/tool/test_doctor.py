"""`python -m katas doctor` (dojo/doctor.py), checked on a CPU with fakes.

The machine is described by a `cuda_env.Host` built by hand (a GPU host, an old GPU, a CPU-only
torch next to an NVIDIA driver...), or, end to end, by PATH holding a fake `nvidia-smi` and by
the environment. Nothing here starts CUDA.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dojo import catalogue as _catalogue
from dojo import cuda_env, doctor

ROOT = _catalogue.ROOT
ARCH_2_13 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]  # the cu130 wheel's


def gpu(index: int, name: str = "NVIDIA A100-SXM4-40GB", cap=(8, 0)) -> cuda_env.Gpu:
    return cuda_env.Gpu(index, name, cap, 40 * 2**30, 108)


def gpu_host(n: int = 2, cap=(8, 0), **kw) -> cuda_env.Host:
    fields = {
        "torch": "2.13.0+cu130",
        "torch_cuda": "13.0",
        "available": n > 0,
        "gpus": [gpu(i, cap=cap) for i in range(n)],
        "arch_list": ARCH_2_13,
        "driver": "580.65.06",
        "nvidia_smi": "/usr/bin/nvidia-smi",
    }
    return cuda_env.Host(**(fields | kw))


def findings(host: cuda_env.Host, environ: dict[str, str] | None = None) -> doctor.Findings:
    environ = environ or {}
    found = doctor.Findings(
        host,
        doctor.read_visible(environ.get("CUDA_VISIBLE_DEVICES")),
        misses=doctor.near_misses(environ),
    )
    found.pinned, found.pinned_ok = ("works", True) if host.available else ("no GPU", None)
    found.old_gpus = [g for g in host.gpus if doctor.runs_on(g.capability, host.arch_list) is False]
    return found


def advice_text(host, environ=None) -> str:
    return " ".join(doctor.advice(findings(host, environ)))


# --- CUDA_VISIBLE_DEVICES ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "ids", "problem"),
    [
        (None, None, None),
        ("", [], None),
        ("  ", [], None),
        ("0,1", [0, 1], None),
        (" 2 , 0 ", [2, 0], None),
        ("0,gpu1", None, "'gpu1' is not"),
        ("0,1,0", None, "GPU 0 is listed twice"),
        ("-1", None, "'-1' is not"),
        ("1.5", None, "'1.5' is not"),
        ("0,", None, "'' is not"),
        ("GPU-8f3c1a2b", None, "UUIDs"),
    ],
)
def test_read_visible_follows_kata_1s_rules(value, ids, problem):
    got = doctor.read_visible(value)
    assert got.ids == ids
    assert (got.problem is None) if problem is None else (problem in got.problem), got.problem


@pytest.mark.parametrize(
    ("value", "torch_reads"),
    [("0,1.5,2", [0, 1, 2]), ("1gpu2,2", [1, 2]), ("0,gpu1", [0]), ("0,1,0", [])],
)
def test_torch_reading_is_torchs_own_parser_and_leaves_the_env_alone(value, torch_reads):
    before = os.environ.get("CUDA_VISIBLE_DEVICES")
    assert doctor.torch_reading(value) == torch_reads  # as in torch/cuda/__init__.py's strtoul
    assert os.environ.get("CUDA_VISIBLE_DEVICES") == before


@pytest.mark.parametrize(
    "name",
    [
        "CUDA_VISIBLE_DEVICE",
        "cuda_visible_devices",
        "CUDA_VISABLE_DEVICES",
        "CUDA_VISIBLE_DEVICE_",
        "VISIBLE_DEVICES",
        "CUDA_DEVICES",
        "CUDA_DEVICE_ORDERS",
    ],
)
def test_near_misses_are_found(name):
    assert [n for n, _ in doctor.near_misses({name: "1"})] == [name]


@pytest.mark.parametrize(
    "name",
    [
        "CUDA_VISIBLE_DEVICES",
        "CUDA_DEVICE_ORDER",
        "HIP_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES",
        "CUDA_LAUNCH_BLOCKING",
        "CUDA_DEVICE_MAX_CONNECTIONS",
        "CUDA_HOME",
        "PATH",
    ],
)
def test_real_names_are_not_near_misses(name):
    assert doctor.near_misses({name: "1"}) == []


# --- kernels ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cap", "runs"),
    [((6, 0), False), ((7, 0), False), ((7, 5), True), ((8, 6), True), ((12, 0), True)],
)
def test_runs_on_compares_the_capability_with_the_builds_kernels(cap, runs):
    assert doctor.runs_on(cap, ARCH_2_13) is runs
    assert doctor.runs_on(cap, []) is None  # a CPU-only build lists no arch


# --- advice -----------------------------------------------------------------------------------


def test_a_healthy_gpu_host_has_nothing_to_fix():
    text = doctor.render(findings(gpu_host(2)))
    assert "Nothing to fix. Run the cuda tier: nox -s tests-cuda." in text
    assert "cuda       runs here" in text and "multi_gpu  runs here" in text
    assert "cuda:1" in text and "NVIDIA A100-SXM4-40GB, sm_80, 40.0 GiB" in text
    for kata in _catalogue.katas():
        assert f"{kata.name}" in text


def test_one_gpu_skips_the_multi_gpu_tests_and_says_so():
    text = doctor.render(findings(gpu_host(1)))
    multi = {
        k.name: sum(len(t.cases) for t in cuda_env.cuda_tests(k) if t.multi_gpu)
        for k in _catalogue.katas()
    }
    assert "multi_gpu  skipped here (needs 2+ GPUs)" in text
    for kata in _catalogue.katas():
        if multi[kata.name]:
            n = sum(len(t.cases) for t in cuda_env.cuda_tests(kata))  # pytest's count
            assert f"{n - multi[kata.name]} run, {multi[kata.name]} skipped" in text, text
    assert "The multi_gpu tests need a second GPU." in text


@pytest.mark.parametrize(
    ("cap", "words"),
    [
        ((8, 0), "cuda:0: bfloat16"),
        ((9, 0), "cuda:0: bfloat16"),
        ((7, 5), "cuda:0: float16 with a GradScaler (sm_75 only emulates bfloat16)"),
    ],
)
def test_mixed_precision_says_which_16_bit_type_each_device_trains_in(cap, words):
    text = doctor.mixed_precision_line(gpu_host(1, cap=cap))
    assert text.startswith("cpu: bfloat16; ") and words in text, text
    assert "mixed precision" in doctor.render(findings(gpu_host(1, cap=cap)))


def test_mixed_precision_without_a_gpu_is_the_cpu_alone():
    host = gpu_host(0, torch="2.13.0+cpu", torch_cuda=None, arch_list=[])
    assert doctor.mixed_precision_line(host) == "cpu: bfloat16"
    assert doctor.mixed_precision_line(gpu_host(0, torch=None)) == "needs torch"


def test_a_cpu_only_torch_next_to_an_nvidia_driver_is_called_out():
    host = gpu_host(0, torch="2.13.0+cpu", torch_cuda=None, arch_list=[])
    text = advice_text(host)
    assert "CPU-only build" in text and "/usr/bin/nvidia-smi" in text
    assert "--index-url https://download.pytorch.org/whl/cuXYZ" in text and "cu130" in text


def test_a_gpu_older_than_the_wheel_is_called_out_with_the_builds_that_fit():
    text = advice_text(gpu_host(1, cap=(6, 0)))
    assert "GPU 0" in text and "sm_60" in text and "older than every kernel" in text
    assert "--index-url https://download.pytorch.org/whl/cu126" in text  # 12.6 keeps sm_60


def test_a_cuda_torch_without_a_driver_says_where_gpus_come_from():
    text = advice_text(gpu_host(0, nvidia_smi=None, driver=None))
    assert "nvidia-smi is not on PATH" in text and "srun --gres=gpu:1" in text


def test_a_cuda_torch_that_sees_no_gpu_next_to_a_driver_points_at_the_usual_causes():
    text = advice_text(gpu_host(0))
    assert "sees no GPU" in text and "CUDA_VISIBLE_DEVICES" in text and "13.0" in text


@pytest.mark.parametrize(
    ("driver", "torch_cuda", "floor", "fix"),
    [
        (
            "535.104.05",
            "13.0",
            580,
            "--index-url https://download.pytorch.org/whl/cu129 (or cu126)",
        ),
        ("575.57.08", "13.0", 580, "/whl/cu129 (or cu126)"),
        ("470.256.02", "13.0", 580, "no CUDA build of torch 2.13.0 runs on driver 470"),
        ("470.256.02", "12.6", 525, "no CUDA build"),
    ],
    ids=["535", "575", "470", "470 with cu126"],
)
def test_a_driver_older_than_the_wheels_cuda_says_the_floor_and_the_fix(
    driver, torch_cuda, floor, fix
):
    """The default PyPI wheel of 2.13 is the CUDA 13.0 build: it needs driver 580 or newer."""
    host = gpu_host(0, driver=driver, torch_cuda=torch_cuda, torch=f"2.13.0+cu{torch_cuda[:2]}0")
    tips = doctor.advice(findings(host))
    text = " ".join(tips)
    assert f"needs driver {floor} or newer" in text and f"The NVIDIA driver is {driver}" in text
    assert fix in text, text
    assert "sees no GPU" not in text, "the driver is the cause: no generic guess next to it"
    rendered = " ".join(doctor.render(findings(host), katas=[]).split())
    assert f"{driver} (nvidia-smi: /usr/bin/nvidia-smi); too old for torch's CUDA" in rendered


@pytest.mark.parametrize(
    ("driver", "torch_cuda"),
    [("580.65.06", "13.0"), ("590.1", "13.0"), ("535.104.05", "12.6"), (None, "13.0")],
)
def test_a_driver_new_enough_or_unknown_is_not_called_too_old(driver, torch_cuda):
    text = advice_text(gpu_host(0, driver=driver, torch_cuda=torch_cuda))
    assert "needs driver" not in text, text


def test_simulated_old_driver_end_to_end(tmp_path):
    """A fake nvidia-smi reporting driver 535 and torch as the CUDA 13.0 build (this CPU build,
    with torch.version.cuda set): what a GPU host with an old driver sees."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 535.104.05\n")
    smi.chmod(0o755)
    code = (
        "import sys, torch\ntorch.version.cuda = '13.0'\n"
        "torch.cuda.is_available = lambda: False\n"
        "from dojo import doctor\nsys.exit(doctor.main())"
    )
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = run_doctor(tmp_path, env=env, code=code)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "needs driver 580 or newer" in out and "535.104.05" in out, out
    assert "/whl/cu129 (or cu126)" in out, out


@pytest.mark.parametrize(
    ("environ", "words"),
    [
        (
            {"CUDA_VISIBLE_DEVICE": "1"},
            ["CUDA_VISIBLE_DEVICE is set", "export CUDA_VISIBLE_DEVICES"],
        ),
        ({"CUDA_VISIBLE_DEVICES": "0,gpu1"}, ["'gpu1' is not", "silently"]),
        ({"CUDA_VISIBLE_DEVICES": ""}, ["hides every GPU", "unset CUDA_VISIBLE_DEVICES"]),
    ],
)
def test_environment_mistakes_get_advice(environ, words):
    text = advice_text(gpu_host(2), environ)
    for word in words:
        assert word in text, text
    assert "Nothing to fix" not in text


def test_host_warnings_at_cuda_start_are_explained():
    seen = cuda_env.Seen("UserWarning", "torch.cuda", "Found GPU0 Tesla P100 ...", True)
    text = advice_text(gpu_host(1, warnings=[seen]))
    assert "torch warned about this machine" in text and "ignores them in the tests" in text


def test_another_torch_version_is_noted():
    assert "checked against torch==2.13.0" in advice_text(gpu_host(2, torch="2.5.1+cu121"))


# --- end to end -------------------------------------------------------------------------------


def run_doctor(tmp_path: Path, *, env: dict[str, str] | None = None, code: str | None = None):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_")}
    environ |= env or {}
    args = ["-c", code] if code else ["-m", "dojo.doctor"]
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_on_this_cpu_machine_it_exits_0_and_says_the_cuda_tier_is_skipped(tmp_path):
    done = run_doctor(tmp_path)
    assert done.returncode == 0, done.stderr
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert "cuda       skipped here (torch sees no CUDA device)" in done.stdout, done.stdout
    assert "the cuda tier shows as skipped" in done.stdout or "nvidia-smi" in done.stdout
    for kata in _catalogue.katas():
        assert kata.name in done.stdout


def test_fake_nvidia_smi_and_a_misspelt_variable_get_advice(tmp_path):
    import torch

    if torch.version.cuda is not None:
        pytest.skip("needs a CPU-only torch build")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 550.54.15\n")
    smi.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "CUDA_VISIBLE_DEVICE": "1"}
    done = run_doctor(tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "550.54.15" in out, out
    assert "CPU-only build, so no cuda test can run" in out, out
    assert "CUDA_VISIBLE_DEVICE is set, but CUDA reads CUDA_VISIBLE_DEVICES" in out, out


def test_without_torch_it_says_how_to_get_it(tmp_path):
    code = (
        "import sys; sys.modules['torch'] = None\nfrom dojo import doctor\nsys.exit(doctor.main())"
    )
    done = run_doctor(tmp_path, code=code)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "torch not installed in" in out, out
    assert "nox -s learn" in out and "pip install torch==2.13.0" in out, out


def test_it_refuses_arguments_it_does_not_know(capsys):
    with pytest.raises(SystemExit) as info:
        doctor.main(["--frobnicate"])
    assert info.value.code == 2
    assert "unrecognized arguments: --frobnicate" in capsys.readouterr().err
