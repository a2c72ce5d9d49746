"""The benchmarks (`python -m benchmarks`): the timing helper against a fake clock, the CLI, a
smoke run in-process, and the GPU experiments' code run on the CPU with tiny sizes.

No test asserts a time: on a shared machine only the fake clock gives exact numbers.
"""

from __future__ import annotations

import importlib
import json
import subprocess
from pathlib import Path

import pytest
import torch

from benchmarks import (
    EXPERIMENTS,
    amp,
    loader,
    machine,
    matmul,
    memory,
    report,
    runner,
    timing,
    transfer,
)
from benchmarks.timing import Plan

ROOT = Path(__file__).resolve().parents[2]
CPU_NAMES = [e.name for e in EXPERIMENTS if not e.needs_cuda]
CUDA_NAMES = [e.name for e in EXPERIMENTS if e.needs_cuda]
HAS_CUDA = torch.cuda.device_count() > 0
TINY = Plan(smoke=True, repeats=2, warmup=0, min_time=0.0)
STATS_KEYS = {"median", "min", "max", "q1", "q3", "n", "number"}


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """No test here reads a time, and two OpenMP threads on a busy 2-core machine can make a
    tiny training step take 50 ms instead of 0.1 ms: one thread keeps these tests quick."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# --- statistics and timing --------------------------------------------------------------------


def test_summarize_gives_median_and_spread():
    s = timing.summarize([3.0, 1.0, 4.0, 100.0, 2.0])
    assert (s.median, s.min, s.max, s.q1, s.q3, s.n) == (3.0, 1.0, 100.0, 2.0, 4.0, 5)
    assert s.iqr == 2.0
    one = timing.summarize([7.0])
    assert (one.median, one.q1, one.q3, one.n) == (7.0, 7.0, 7.0, 1)
    with pytest.raises(ValueError, match="no samples"):
        timing.summarize([])


class FakeDevice:
    """A clock and a queue, like a GPU: work is queued by the cases and done by `sync`."""

    def __init__(self) -> None:
        self.now = 0.0
        self.queued = 0.0
        self.log: list[str] = []

    def clock(self) -> float:
        return self.now

    def sync(self) -> None:
        self.now += self.queued
        self.queued = 0.0

    def case(self, name: str, cost: float):
        def run():
            self.log.append(name)
            self.queued += cost  # returns at once; the time passes at the next sync

        return run


def test_compare_measures_queued_work_per_call_with_a_fake_clock():
    dev = FakeDevice()
    plan = Plan(repeats=4, warmup=2, min_time=5.0, max_number=1000)
    stats = timing.compare(
        {"A": dev.case("A", 1.0), "B": dev.case("B", 3.0)}, plan, sync=dev.sync, clock=dev.clock
    )
    a, b = stats["A"], stats["B"]
    # Exact, because every call costs the same: the helper divides by the calls per sample and
    # counts the queued work only because it synchronises before reading the clock.
    assert (a.median, a.min, a.max, a.n) == (1.0, 1.0, 1.0, 4)
    assert (b.median, b.min, b.max, b.n) == (3.0, 3.0, 3.0, 4)
    assert timing.ratio(b, a) == 3.0
    # Calibrated: 5 calls of A and 2 of B reach min_time=5 (1-2-5 steps).
    assert (a.number, b.number) == (5, 2)
    assert dev.log.count("A") == 2 + (1 + 5) + 4 * 5  # warm-up, calibration, samples
    assert dev.log.count("B") == 2 + (1 + 2) + 4 * 2


def test_compare_interleaves_the_cases_and_rotates_who_goes_first():
    dev = FakeDevice()
    plan = Plan(repeats=4, warmup=0, min_time=0.0)
    timing.compare(
        {"A": dev.case("A", 1.0), "B": dev.case("B", 1.0), "C": dev.case("C", 1.0)},
        plan,
        sync=dev.sync,
        clock=dev.clock,
    )
    samples = dev.log[3:]  # after one calibration call each
    assert "".join(samples) == "ABC" + "BCA" + "CAB" + "ABC"


def test_compare_without_sync_would_miss_queued_work():
    """The fake device is honest: skipping the sync reads a clock that has not moved."""
    dev = FakeDevice()
    stats = timing.compare(
        {"A": dev.case("A", 1.0)}, Plan(repeats=2, warmup=0, min_time=0.0), clock=dev.clock
    )
    assert stats["A"].median == 0.0


def test_log_slope_tells_constant_from_linear():
    xs = [1024, 4096, 16384, 65536]
    assert timing.log_slope(xs, [5e-7] * 4) == pytest.approx(0.0, abs=1e-12)
    assert timing.log_slope(xs, [x * 1e-9 for x in xs]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        timing.log_slope([4, 4], [1, 2])


@pytest.mark.parametrize(
    ("speedup", "said"),
    [(2.5, "2.5x faster"), (40, "40x faster"), (0.25, "4x slower"), (1, "1x faster")],
)
def test_faster_says_ratios_both_ways(speedup, said):
    assert timing.faster(speedup) == said


def test_human_bytes():
    assert [timing.human_bytes(n) for n in (512, 4096, 2**20 * 3, 2**30)] == [
        "512 B",
        "4 KiB",
        "3 MiB",
        "1 GiB",
    ]


# --- PCIe link --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gen", "width", "gb"), [(1, 1, 0.25), (3, 16, 15.75), (4, 16, 31.51), (5, 16, 63.02)]
)
def test_link_bandwidth_per_direction(gen, width, gb):
    assert machine.link_gb_per_s(gen, width) == pytest.approx(gb, abs=0.01)


def test_link_bandwidth_refuses_an_unknown_generation():
    with pytest.raises(ValueError, match="generation"):
        machine.link_gb_per_s(9, 16)


def test_nvidia_smi_row_is_matched_by_pci_address(monkeypatch):
    out = "00000000:17:00.0, 3, 8, 3, 16\n00000000:65:00.0, 4, 16, 4, 16\n"
    monkeypatch.setattr(machine.shutil, "which", lambda _: "/usr/bin/nvidia-smi")
    monkeypatch.setattr(
        machine.subprocess,
        "run",
        lambda *a, **k: subprocess.CompletedProcess(a, 0, stdout=out, stderr=""),
    )
    assert machine._from_nvidia_smi((0, 0x65, 0)) == {
        "gen": 4,
        "width": 16,
        "gen_max": 4,
        "width_max": 16,
    }
    assert machine._from_nvidia_smi((0, 0x17, 0))["width"] == 8
    assert machine._from_nvidia_smi((0, 0x18, 0)) is None


def test_nvidia_smi_falls_back_to_the_deprecated_field(monkeypatch):
    asked = []

    def run(argv, **kwargs):
        asked.append(argv[1])
        if "gpucurrent" in argv[1]:  # an older driver
            raise subprocess.CalledProcessError(2, argv)
        return subprocess.CompletedProcess(argv, 0, stdout="00000000:01:00.0, 3, 16, 3, 16\n")

    monkeypatch.setattr(machine.shutil, "which", lambda _: "/usr/bin/nvidia-smi")
    monkeypatch.setattr(machine.subprocess, "run", run)
    assert machine._from_nvidia_smi((0, 1, 0))["gen"] == 3
    assert ["gpucurrent" in a for a in asked] == [True, False]


def test_nvidia_smi_without_a_number_gives_no_link(monkeypatch):
    monkeypatch.setattr(machine.shutil, "which", lambda _: "/usr/bin/nvidia-smi")
    monkeypatch.setattr(
        machine.subprocess,
        "run",
        lambda *a, **k: subprocess.CompletedProcess(
            a, 0, stdout="00000000:65:00.0, [N/A], 16, 4, 16\n"
        ),
    )
    assert machine._from_nvidia_smi((0, 0x65, 0)) is None


def test_sysfs_link(tmp_path):
    folder = tmp_path / "0000:65:00.0"
    folder.mkdir()
    for name, text in {
        "current_link_speed": "16.0 GT/s PCIe\n",
        "max_link_speed": "32.0 GT/s PCIe\n",
        "current_link_width": "8\n",
        "max_link_width": "16\n",
    }.items():
        (folder / name).write_text(text)
    assert machine._from_sysfs((0, 0x65, 0), root=tmp_path) == {
        "gen": 4,
        "width": 8,
        "gen_max": 5,
        "width_max": 16,
    }
    assert machine._from_sysfs((0, 0x66, 0), root=tmp_path) is None


def test_link_of_a_cpu_device_is_unknown():
    link = machine.pcie_link("cpu")
    assert (link["gen"], link["width"], link["gb_per_s"]) == ("unknown", "unknown", None)


# --- the command line -------------------------------------------------------------------------


def test_only_with_an_unknown_name_is_one_clear_line(capsys):
    assert runner.main(["--only", "view_reshape", "--only", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--only nope" in err and "no such experiment" in err
    assert all(name in err for name in CPU_NAMES + CUDA_NAMES)


@pytest.mark.parametrize("argv", [["--bogus"], ["--only"], ["--smoke", "extra"]])
def test_bad_options_are_one_line(capsys, argv):
    assert runner.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("python -m benchmarks:")


def test_out_must_be_a_directory(tmp_path, capsys):
    file = tmp_path / "f"
    file.write_text("")
    assert runner.main(["--out", str(file)]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_list_names_every_experiment_and_its_device(capsys):
    assert runner.main(["--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    listed = {line.split()[0]: line.split()[1] for line in out}
    assert {n: listed[n] for n in CPU_NAMES} == dict.fromkeys(CPU_NAMES, "cpu")
    assert {n: listed[n] for n in CUDA_NAMES} == dict.fromkeys(CUDA_NAMES, "cuda")


@pytest.mark.parametrize("exp", EXPERIMENTS, ids=lambda e: e.name)
def test_every_experiment_has_its_function_and_its_panel(exp):
    module = importlib.import_module(exp.module)
    assert callable(getattr(module, exp.name)), f"{exp.module} has no {exp.name}()"
    assert callable(getattr(module, f"plot_{exp.name}")), f"{exp.module} has no plot_{exp.name}()"


def test_loop_is_not_required_and_not_in_the_default_set():
    assert "loop" not in [e.name for e in EXPERIMENTS]
    assert all(e.default for e in EXPERIMENTS)


# --- a smoke run, in-process ------------------------------------------------------------------


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> tuple[int, Path, dict]:
    out = tmp_path_factory.mktemp("bench")
    rc = runner.main(["--smoke", "--out", str(out)])
    return rc, out, json.loads((out / "results.json").read_text())


def test_smoke_run_succeeds_and_writes_json(smoke):
    rc, out, data = smoke
    assert rc == 0
    assert {"schema", "mode", "machine", "timing", "experiments", "skipped", "failed"} <= set(data)
    assert data["mode"] == "smoke" and data["failed"] == []
    assert data["command"] == f"python -m benchmarks --smoke --out {out}"
    m = data["machine"]
    assert {"cpu", "cores", "torch", "gpus", "python", "date"} <= set(m)
    assert m["torch"]["version"] == torch.__version__
    assert m["cores"] >= 1 and m["cpu"]


def test_smoke_run_measures_every_cpu_experiment(smoke):
    _, _, data = smoke
    assert set(CPU_NAMES) <= set(data["experiments"])
    for name in CPU_NAMES:
        result = data["experiments"][name]
        assert result["headline"] and result["rows"], name
        for row in result["rows"]:
            for stats in row["cases"].values():
                assert set(stats) == STATS_KEYS
                assert stats["min"] <= stats["q1"] <= stats["median"] <= stats["q3"] <= stats["max"]
                # loader_workers takes 2 samples in smoke mode: its epochs fork workers
                assert stats["n"] == (2 if name == "loader_workers" else timing.SMOKE.repeats)


def test_smoke_run_checks_what_it_times(smoke):
    _, _, data = smoke
    for row in data["experiments"]["view_reshape"]["rows"]:
        assert row["checks"] == {
            "view shares storage": True,
            "reshape of contiguous shares storage": True,
            "reshape of transposed shares storage": False,
        }
    for row in data["experiments"]["same_device_to"]["rows"]:
        assert row["checks"] == {"to(x.device) is x": True, "copy=True shares storage": False}


def test_smoke_run_lists_gpu_experiments_as_skipped_with_a_reason(smoke):
    _, _, data = smoke
    if HAS_CUDA:
        assert data["skipped"] == [] and set(CUDA_NAMES) <= set(data["experiments"])
        return
    assert [s["name"] for s in data["skipped"]] == CUDA_NAMES
    for s in data["skipped"]:
        assert s["reason"].startswith("needs a CUDA device"), s


def test_smoke_run_draws_the_png_when_matplotlib_is_there(smoke):
    _, out, _ = smoke
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not (out / "results.png").exists()
    else:
        assert (out / "results.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_tables_render_the_run(smoke):
    _, _, data = smoke
    table = report.machine_table(data)
    assert f"| CPU | {data['machine']['cpu']} |" in table
    assert torch.__version__ in table
    results = report.results_table(data)
    for name in CPU_NAMES:
        assert f"`{name}`" in results
    if not HAS_CUDA:
        assert results.count("skipped: needs a CUDA device") == len(CUDA_NAMES)


def test_only_a_gpu_experiment_here_is_skipped_not_failed(tmp_path):
    if HAS_CUDA:
        pytest.skip("this machine has a CUDA device")
    assert runner.main(["--smoke", "--only", "row_transfer", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["experiments"] == {}
    assert [s["name"] for s in data["skipped"]] == ["row_transfer"]


# --- NVML sees a GPU, CUDA cannot start (a driver too old for torch's CUDA) --------------------

OLD_DRIVER = (
    "The NVIDIA driver on your system is too old (found version 12080). Please update your GPU "
    "driver by downloading and installing a new version from the URL: "
    "http://www.nvidia.com/Download/index.aspx"
)


def old_driver(monkeypatch):
    """What torch does on such a host: NVML counts one GPU, while starting CUDA, or reading a
    device's properties, raises the driver's RuntimeError (here, and in the child process
    `cuda_start_error` asks)."""
    monkeypatch.setattr(machine, "cuda_devices", lambda: 1)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)

    def refuse(*args, **kwargs):
        raise RuntimeError(OLD_DRIVER)

    monkeypatch.setattr(torch.cuda, "get_device_properties", refuse)
    child = f"import torch\ndef _refuse(*a, **k):\n    raise RuntimeError({OLD_DRIVER!r})\n"
    child += "torch.cuda.init = _refuse\n"
    start = getattr(machine, "_CUDA_START", "")  # absent before the gate asked CUDA itself
    monkeypatch.setattr(machine, "_CUDA_START", child + start, raising=False)


def test_a_gpu_that_nvml_sees_and_cuda_cannot_start_is_skipped_with_why(tmp_path, monkeypatch):
    if HAS_CUDA:
        pytest.skip("this machine has a CUDA device")
    old_driver(monkeypatch)
    argv = ["--smoke", "--only", "row_transfer", "--only", "same_device_to", "--out"]
    assert runner.main([*argv, str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    (skipped,) = data["skipped"]
    assert skipped["name"] == "row_transfer", data["skipped"]
    assert (
        "CUDA did not" in skipped["reason"]
        and "driver on your system is too old" in (skipped["reason"])
    ), skipped
    assert "same_device_to" in data["experiments"], "the CPU experiments still run"
    assert data["failed"] == [] and data["machine"]["gpus"] == []


def test_gpus_records_a_device_whose_properties_cannot_be_read(monkeypatch):
    old_driver(monkeypatch)
    (gpu,) = machine.gpus()
    assert gpu["index"] == 0 and "too old" in gpu["error"], gpu


def test_cuda_start_error_asks_cuda_itself_in_a_child_process():
    why = machine.cuda_start_error()
    if torch.cuda.is_available():
        assert why is None, why
    else:  # this CPU build: torch.cuda.init() raises, in the child, and is reported in one line
        assert why and "\n" not in why, why
    assert not torch.cuda.is_initialized(), "this process must not have started CUDA"


# --- the GPU experiments' code, on the CPU ----------------------------------------------------


def test_h2d_bandwidth_code_path_on_cpu():
    pinned = []

    def fake_pin(t):  # pin_memory() needs an accelerator; record and copy instead
        pinned.append(t.numel())
        return t.clone()

    result = transfer.h2d_bandwidth(TINY, "cpu", sizes=[4096, 16384], pin=fake_pin)
    assert pinned == [4096, 16384]
    assert [r["bytes"] for r in result["rows"]] == [4096, 16384]
    for row in result["rows"]:
        assert set(row["gb_per_s"]) == set(transfer.MODES)
        assert all(v > 0 for v in row["gb_per_s"].values())
        assert set(row["fraction_of_link"].values()) == {None}  # no link on a CPU
    assert "PCIe link unknown" in result["headline"]


def test_row_transfer_code_path_on_cpu():
    result = transfer.row_transfer(TINY, "cpu", shapes=[(8, 4)])
    (row,) = result["rows"]
    assert row["copied_right"] is True and row["bytes"] == 8 * 4 * 4


def test_item_logging_code_path_on_cpu():
    result = transfer.item_logging(TINY, "cpu", steps=3)
    (row,) = result["rows"]
    assert row["same_losses"] is True and row["steps"] == 3


def test_matmul_crossover_code_path_on_cpu():
    result = matmul.matmul_crossover(TINY, "cpu", sizes=[4, 8])
    assert [r["n"] for r in result["rows"]] == [4, 8]
    assert set(result["rows"][0]["cases"]) == set(matmul.CASES)


def test_autocast_matmul_code_path_on_cpu():
    result = amp.autocast_matmul(TINY, "cpu", sizes=[4, 8])
    assert [r["n"] for r in result["rows"]] == [4, 8]
    for row in result["rows"]:
        assert set(row["cases"]) == set(amp.CASES)
        assert row["checks"] == {
            "product dtype": {
                "float32": "float32",
                "bfloat16 autocast": "bfloat16",
                "float16 autocast": "float16",
            }
        }


def test_loader_pinning_code_path_on_cpu():
    result = loader.loader_pinning(TINY, "cpu", items=16, batch=8, workers=0)
    (row,) = result["rows"]
    assert set(row["cases"]) == {"pin_memory=False", "pin_memory=True"}


def test_activation_memory_keeps_less_when_checkpointed_or_micro_batched():
    result = memory.activation_memory(TINY, "cpu", batches=[8, 16], shape=(4, 8, 3))
    for row in result["rows"]:
        kept = row["kept_bytes"]
        # Each of the 3 blocks keeps its input (b x 4 floats), GELU's input and GELU's output
        # (b x 8 each); checkpointed, only the blocks' inputs; one micro-batch, a quarter of
        # the rows, except that its input is a slice whose storage is the whole batch's.
        b = row["batch"]
        assert kept["plain"] == 3 * 4 * b * (4 + 8 + 8)
        assert kept["checkpointed"] == 3 * 4 * b * 4
        assert kept["micro-batches"] == kept["plain"] // 4 + 4 * (b - b // 4) * 4
        assert set(row["cases"]) == set(memory.CASES)


def test_peak_memory_code_path_on_cpu():
    calls = []

    def measure(step):  # the allocator's counters exist only on CUDA: count the calls instead
        step()
        calls.append(1)
        return 100 * len(calls)

    result = memory.peak_memory(TINY, "cpu", batches=[8], shape=(4, 8, 2), measure=measure)
    (row,) = result["rows"]
    assert row["peak_bytes"] == {"plain": 100, "checkpointed": 200, "micro-batches": 300}
    assert len(calls) == 3


def test_every_panel_draws_including_the_gpu_ones(smoke, tmp_path):
    """The GPU experiments' panels, drawn from their CPU code paths: CI never draws them else."""
    pytest.importorskip("matplotlib", reason="needs matplotlib (the bench dependency group)")
    _, _, data = smoke
    experiments = dict(data["experiments"])
    experiments["h2d_bandwidth"] = transfer.h2d_bandwidth(
        TINY, "cpu", sizes=[4096, 16384], pin=torch.Tensor.clone
    )
    experiments["row_transfer"] = transfer.row_transfer(TINY, "cpu", shapes=[(4, 4), (8, 4)])
    experiments["item_logging"] = transfer.item_logging(TINY, "cpu", steps=2)
    experiments["matmul_crossover"] = matmul.matmul_crossover(TINY, "cpu", sizes=[4, 8])
    experiments["autocast_matmul"] = amp.autocast_matmul(TINY, "cpu", sizes=[4, 8])
    experiments["loader_pinning"] = loader.loader_pinning(TINY, "cpu", items=16, batch=8, workers=0)
    experiments["peak_memory"] = memory.peak_memory(
        TINY, "cpu", batches=[8, 16], shape=(4, 8, 2), measure=lambda step: step() or 1024
    )
    plotters = report.plotters(EXPERIMENTS)
    png = report.figure({**data, "experiments": experiments}, plotters, tmp_path / "all.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- the committed results shown on the site --------------------------------------------------


def test_committed_results_are_a_full_run_of_the_default_set():
    data = report.load()
    assert data["mode"] == "full" and data["failed"] == []
    ran_or_skipped = set(data["experiments"]) | {s["name"] for s in data["skipped"]}
    assert ran_or_skipped == {e.name for e in EXPERIMENTS}
    assert (report.COMMITTED.parent / "results.png").is_file()
