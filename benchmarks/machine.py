"""What machine a run was on: CPU, cores, torch and its build, GPUs and their PCIe links, Python.

CUDA is touched as late and as little as possible: `cuda_devices()` counts GPUs through
`torch.cuda.device_count()`, which asks NVML and so does not initialise CUDA in this process
(its docstring, torch/cuda/__init__.py: "will NOT poison fork if NVML discovery succeeds"), so
the DataLoader benchmarks can still fork their workers afterwards. `gpus()` reads device
properties, which initialises CUDA: call it after every experiment that forks.
`cuda_start_error()` asks, in a child process, whether CUDA starts at all: NVML can count a GPU
that CUDA cannot use (a driver too old for torch's CUDA).
"""

from __future__ import annotations

import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Per lane and direction, after line encoding (8b/10b up to gen 2, 128b/130b for gens 3-5,
# FLIT mode's 242/256 for gen 6), before packet overhead: the ceiling a copy can approach.
# (PCI-SIG: 2.5, 5, 8, 16, 32 and 64 GT/s per lane for gens 1-6.)
_GT_PER_S = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
_ENCODING = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130, 6: 242 / 256}


THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUDA_VISIBLE_DEVICES")


def link_gb_per_s(gen: int, width: int) -> float:
    """One direction of a PCIe link, in GB/s (10**9 bytes): gen 4 x16 gives 31.5."""
    if gen not in _GT_PER_S:
        raise ValueError(f"unknown PCIe generation {gen!r}")
    return _GT_PER_S[gen] * _ENCODING[gen] / 8 * width


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def torch_build() -> dict[str, object]:
    import torch

    config = torch.__config__.show()
    blas = re.search(r"BLAS_INFO=(\w+)", config)
    return {
        "version": torch.__version__,
        "git": (torch.version.git_version or "")[:12],
        "cuda": torch.version.cuda,  # None on a CPU-only build
        "hip": torch.version.hip,
        "blas": blas.group(1) if blas else "unknown",
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
        # Set by hand to calm a shared machine, say: the page shows them beside the figures.
        "env": {k: os.environ[k] for k in THREAD_VARS if k in os.environ},
    }


def cuda_devices() -> int:
    """How many CUDA devices torch sees, without initialising CUDA (see the module docstring)."""
    import torch

    return torch.cuda.device_count()


# Run in a child process: starting CUDA here would keep this process from forking DataLoader
# workers afterwards. It starts CUDA and reads each device's properties, as `gpus()` will.
_CUDA_START = """
import sys, warnings
import torch
warnings.simplefilter("ignore")
try:
    torch.cuda.init()
    for i in range(torch.cuda.device_count()):
        torch.cuda.get_device_properties(i)
except Exception as err:
    print(f"{type(err).__name__}: {err}".strip().splitlines()[0])
    sys.exit(3)
"""


def cuda_start_error(timeout: float = 300) -> str | None:
    """Why CUDA cannot start on this machine, or None when it does. NVML can count a GPU that
    CUDA cannot use (a driver older than torch's CUDA needs): only CUDA itself can say, so ask
    it, in a child process (see `_CUDA_START`)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CUDA_START], capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.SubprocessError) as err:
        return f"could not ask CUDA ({type(err).__name__}: {err})"
    if done.returncode == 0:
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


def _pci_address(props) -> tuple[int, int, int] | None:
    try:  # torch/numa/binding.py in 2.13 reads the same three properties
        return props.pci_domain_id, props.pci_bus_id, props.pci_device_id
    except AttributeError:
        return None


# nvidia-smi --help-query-gpu: pcie.link.gen.current is "Deprecated, use
# pcie.link.gen.gpucurrent instead"; older drivers know only the former, so try both.
_GEN_FIELDS = ("pcie.link.gen.gpucurrent", "pcie.link.gen.current")


def _from_nvidia_smi(address: tuple[int, int, int]) -> dict[str, object] | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    for gen_field in _GEN_FIELDS:
        fields = ["pci.bus_id", gen_field, "pcie.link.width.current"]
        fields += ["pcie.link.gen.max", "pcie.link.width.max"]
        try:
            out = subprocess.run(
                [exe, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=20,
                check=True,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        return _parse_nvidia_smi(out, address)
    return None


def _parse_nvidia_smi(out: str, address: tuple[int, int, int]) -> dict[str, object] | None:
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 5:
            continue
        # nvidia-smi writes e.g. 00000000:01:00.0; CUDA's device order need not be nvidia-smi's,
        # so match on the PCI address, not on the index.
        m = re.fullmatch(r"([0-9A-Fa-f]+):([0-9A-Fa-f]+):([0-9A-Fa-f]+)\.\d", parts[0])
        if not m or tuple(int(g, 16) for g in m.groups()) != address:
            continue
        try:
            gen, width, gen_max, width_max = (int(p) for p in parts[1:])
        except ValueError:  # "[N/A]"
            return None
        return {"gen": gen, "width": width, "gen_max": gen_max, "width_max": width_max}
    return None


SYSFS_PCI = Path("/sys/bus/pci/devices")


def _from_sysfs(address: tuple[int, int, int], root: Path = SYSFS_PCI) -> dict[str, object] | None:
    domain, bus, device = address
    folder = root / f"{domain:04x}:{bus:02x}:{device:02x}.0"
    gen_of = {v: k for k, v in _GT_PER_S.items()}
    try:
        speeds = [
            float((folder / f).read_text().split()[0])
            for f in ("current_link_speed", "max_link_speed")
        ]
        widths = [int((folder / f).read_text()) for f in ("current_link_width", "max_link_width")]
        gen, gen_max = (gen_of[s] for s in speeds)
    except (OSError, ValueError, KeyError, IndexError):
        return None
    return {"gen": gen, "width": widths[0], "gen_max": gen_max, "width_max": widths[1]}


def pcie_link(device) -> dict[str, object]:
    """The PCIe link of a CUDA device as the device reports it now, and its bandwidth.

    Read from `nvidia-smi`, else from sysfs; `"gen": "unknown"` when neither answers. A GPU
    drops to a slower link generation when idle, so read this right after the transfers.
    """
    import torch

    unknown: dict[str, object] = {"gen": "unknown", "width": "unknown", "gb_per_s": None}
    device = torch.device(device)
    if device.type != "cuda":
        return {**unknown, "source": f"not a CUDA device ({device.type})"}
    address = _pci_address(torch.cuda.get_device_properties(device))
    if address is None:
        return {**unknown, "source": "torch does not expose the PCI address"}
    for source, read in (("nvidia-smi", _from_nvidia_smi), ("sysfs", _from_sysfs)):
        link = read(address)
        if link:
            return {**link, "gb_per_s": link_gb_per_s(link["gen"], link["width"]), "source": source}
    return {**unknown, "source": "neither nvidia-smi nor sysfs answered"}


def gpus() -> list[dict[str, object]]:
    """Every CUDA device: name, compute capability, memory, PCIe link. Initialises CUDA."""
    import torch

    if cuda_devices() == 0:
        return []
    out = []
    for i in range(torch.cuda.device_count()):
        try:
            props = torch.cuda.get_device_properties(i)
        except Exception as err:  # a record of the machine, never a reason to lose the results
            out.append({"index": i, "error": f"{type(err).__name__}: {err}"})
            continue
        out.append(
            {
                "index": i,
                "name": props.name,
                "capability": f"{props.major}.{props.minor}",
                "memory_gib": round(props.total_memory / 2**30, 1),
                "pcie": pcie_link(torch.device("cuda", i)),
            }
        )
    return out


def load() -> list[float] | None:
    """The 1, 5 and 15 minute load averages: how busy the machine was."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def describe(*, with_gpus: bool) -> dict[str, object]:
    """The machine record written into every result file."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "torch": torch_build(),
        "gpus": gpus() if with_gpus else [],
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.platform(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),  # noqa: UP017
    }
