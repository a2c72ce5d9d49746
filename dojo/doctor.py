"""`python -m katas doctor`: what this machine can run, and what to fix first.

It says which Python and torch this is and whether torch is a CUDA build; the GPUs torch sees
(name, capability, memory); whether pinned memory works; which 16-bit type mixed precision
trains in on each device (kata 14); `CUDA_VISIBLE_DEVICES`, read both with
kata 1's strict rules and with torch's own parser; and which tiers, and which katas' cuda tests,
run here. Then advice, when something is off. It exits 0 whenever it could look: it is a
report, not a test. It also runs where torch is missing, and says how to get it.
"""

from __future__ import annotations

import argparse
import difflib
import os
import platform
import re
import sys
import textwrap
import warnings
from dataclasses import dataclass, field

from dojo import catalogue as _catalogue
from dojo import cuda_env

WIDTH = 100
INDEX = "https://download.pytorch.org/whl"

# --- CUDA_VISIBLE_DEVICES ---------------------------------------------------------------------

# Other runtimes' variables that look like CUDA's and are right as they are.
OTHER_VARIABLES = {
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",  # read by the NVIDIA container runtime, not by CUDA
    "GPU_DEVICE_ORDINAL",
    "ZE_AFFINITY_MASK",
}
CUDA_VARIABLES = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")
WRONG_NAMES = {"CUDA_DEVICES", "CUDA_DEVICE", "CUDA_VISIBLE_GPUS", "CUDA_GPUS", "CUDA_VISIBLE"}


def near_misses(names) -> list[tuple[str, str]]:
    """Environment variables that look like a misspelt CUDA_VISIBLE_DEVICES or
    CUDA_DEVICE_ORDER: (the name set, the name CUDA reads). CUDA ignores them silently."""
    found = []
    for name in sorted(names):
        if name in CUDA_VARIABLES or name in OTHER_VARIABLES:
            continue
        for target in CUDA_VARIABLES:
            ratio = difflib.SequenceMatcher(None, name.upper(), target).ratio()
            if ratio >= 0.85 or (name.upper() in WRONG_NAMES and target == CUDA_VARIABLES[0]):
                found.append((name, target))
                break
    return found


@dataclass
class Visible:
    """CUDA_VISIBLE_DEVICES read two ways."""

    value: str | None
    ids: list[int] | None = None  # kata 1's reading, when the value is well formed
    problem: str | None = None  # why kata 1's rules reject it
    torch_reads: list | None = None  # torch's own parser (None: unknown)


def read_visible(value: str | None) -> Visible:
    """Kata 1's rules (reference/device_selection.py, physical_gpu_id), reimplemented: entries
    are comma-separated non-negative integers, spaces around them allowed, none repeated; an
    empty value hides every GPU. GPU-/MIG- UUIDs are valid for CUDA but not for kata 1."""
    seen = Visible(value)
    if value is None:
        return seen
    if value.strip() == "":
        seen.ids = []
        return seen
    if value.strip().startswith(("GPU-", "MIG-")):
        seen.problem = "it lists GPU UUIDs; kata 1's rules take numeric ids only"
        return seen
    ids: list[int] = []
    for entry in value.split(","):
        entry = entry.strip()
        if not re.fullmatch(r"[0-9]+", entry):
            seen.problem = f"entry {entry!r} is not a non-negative GPU id"
            return seen
        if int(entry) in ids:
            seen.problem = f"GPU {int(entry)} is listed twice"
            return seen
        ids.append(int(entry))
    seen.ids = ids
    return seen


def torch_reading(value: str | None) -> list | None:
    """What torch's own parser (torch.cuda._parse_visible_devices, private) makes of `value`."""
    try:
        import torch.cuda
    except ImportError:
        return None
    parse = getattr(torch.cuda, "_parse_visible_devices", None)
    if parse is None:
        return None
    saved = os.environ.get("CUDA_VISIBLE_DEVICES")
    try:
        if value is None:
            os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = value
        return list(parse())
    except Exception:
        return None
    finally:
        if saved is None:
            os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = saved


# --- kernels for each GPU ---------------------------------------------------------------------


def runs_on(capability: tuple[int, int], arch_list: list[str]) -> bool | None:
    """Does this torch build have code the GPU can run? torch's own rule (torch/cuda/__init__.py,
    _check_capability), or None when it cannot tell (a CPU-only build lists no arch)."""
    if not arch_list:
        return None
    import torch.cuda

    device_cc = 10 * capability[0] + capability[1]
    extract = getattr(torch.cuda, "_extract_arch_version", None)
    compatible = getattr(torch.cuda, "_code_compatible_with_device", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unknown arch warns; the answer is what counts
        if extract is not None and compatible is not None:
            return any(compatible(device_cc, extract(a)) for a in arch_list)
    codes = [int(re.sub(r"\D", "", a)) for a in arch_list]  # sm_XY runs on X.Y..X.9
    return any(c // 10 == device_cc // 10 and c <= device_cc for c in codes)


def builds_for(capability: tuple[int, int]) -> list[str]:
    """The CUDA variants of this torch release with kernels for the GPU, as torch itself lists
    them when it warns (torch/cuda/__init__.py, PYTORCH_RELEASES_CODE_CC)."""
    import torch.cuda

    table = getattr(torch.cuda, "PYTORCH_RELEASES_CODE_CC", {})
    arch = "aarch64" if platform.machine().lower() == "aarch64" else "x86_64"
    device_cc = 10 * capability[0] + capability[1]
    compatible = getattr(torch.cuda, "_code_compatible_with_device", None)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cuda, by_arch in table.items():
            ccs = by_arch.get(arch, set())
            if compatible is not None and any(compatible(device_cc, cc) for cc in ccs):
                out.append(cuda)
    return out


# The oldest Linux driver each CUDA major version runs on, by CUDA's minor-version compatibility
# (NVIDIA's CUDA release notes, "CUDA Driver": 13.x from 580, 12.x from 525.60.13, 11.x from
# 450.80.02). The default PyPI wheel of torch 2.13 on Linux x86_64 is the CUDA 13.0 build: its
# metadata requires cuda-toolkit==13.0.3, so it needs driver 580 or newer.
DRIVER_FLOORS = {13: 580, 12: 525, 11: 450}


def driver_floor(torch_cuda: str | None) -> int | None:
    """The oldest driver (major version) a torch built for CUDA `torch_cuda` runs on."""
    major = cuda_env.version_tuple(torch_cuda or "")[:1]
    return DRIVER_FLOORS.get(major[0]) if major else None


def driver_major(driver: str | None) -> int | None:
    """`"535.104.05"` → 535; None when nvidia-smi could not say."""
    found = re.match(r"(\d+)\.", driver or "")
    return int(found.group(1)) if found else None


def driver_too_old(host: cuda_env.Host) -> int | None:
    """The driver this torch needs, when the one nvidia-smi reports is older; else None."""
    floor, have = driver_floor(host.torch_cuda), driver_major(host.driver)
    return floor if floor is not None and have is not None and have < floor else None


def cuda_variants() -> list[str]:
    import torch.cuda

    return list(getattr(torch.cuda, "PYTORCH_RELEASES_CODE_CC", {}))


# --- the report -------------------------------------------------------------------------------


@dataclass
class Findings:
    host: cuda_env.Host
    visible: Visible
    misses: list[tuple[str, str]] = field(default_factory=list)
    pinned: str = "not checked"
    pinned_ok: bool | None = None
    old_gpus: list[cuda_env.Gpu] = field(default_factory=list)


def check_pinned(host: cuda_env.Host) -> tuple[str, bool | None]:
    if not host.available:
        return "not available without a GPU (pin_memory() needs an accelerator)", None
    try:
        import torch

        t = torch.empty(1024, pin_memory=True)
        if t.is_pinned():
            return "works (torch.empty(..., pin_memory=True).is_pinned() is True)", True
        return "pin_memory=True gave memory that is not pinned", False
    except Exception as err:
        return f"fails: {type(err).__name__}: {err}", False


def look(environ=None) -> Findings:
    """Gather everything (starts CUDA where there is a GPU)."""
    environ = os.environ if environ is None else environ
    host = cuda_env.probe()
    visible = read_visible(environ.get("CUDA_VISIBLE_DEVICES"))
    if host.torch is not None:
        visible.torch_reads = torch_reading(visible.value)
    found = Findings(host, visible, misses=near_misses(environ))
    found.pinned, found.pinned_ok = check_pinned(host) if host.torch else ("needs torch", None)
    found.old_gpus = [
        g for g in host.gpus if g.capability and runs_on(g.capability, host.arch_list) is False
    ]
    return found


def _torch_line(host: cuda_env.Host) -> str:
    if host.torch is None:
        return f"not installed in {host.executable}"
    if host.torch_cuda is None:
        return f"{host.torch}, a CPU-only build (torch.version.cuda is None)"
    return f"{host.torch}, built for CUDA {host.torch_cuda}"


def _visible_line(v: Visible) -> str:
    if v.value is None:
        return "unset: every GPU is visible"
    if v.ids == []:
        line = f"{v.value!r}: hides every GPU"
    elif v.ids is not None:
        line = f"{v.value!r}: GPUs {v.ids}, seen in this process as cuda:0 to cuda:{len(v.ids) - 1}"
    else:
        line = f"{v.value!r}: kata 1's rules reject it ({v.problem})"
    if v.torch_reads is not None:
        line += f"; torch reads it as {v.torch_reads}"
    return line


def _wrap(text: str, first: str, rest: str) -> list[str]:
    """Wrap at spaces only: paths, versions and commands stay whole, to be copied."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_on_hyphens=False,
        break_long_words=False,
    )


def _gpus_line(host: cuda_env.Host, n_gpus: int) -> str:
    if host.torch is None:
        return "unknown: no torch to ask"
    return f"{n_gpus} visible to torch" if n_gpus else "none visible to torch"


def mixed_precision_line(host: cuda_env.Host) -> str:
    """The 16-bit type kata 14 trains in on each device here: bfloat16 on the CPU and on GPUs
    that compute in it natively (compute capability 8.0, Ampere, and newer); float16, with a
    GradScaler, on older GPUs, where bfloat16 is only emulated (torch.cuda.is_bf16_supported()
    counts emulation unless given including_emulation=False)."""
    if host.torch is None:
        return "needs torch"
    parts = ["cpu: bfloat16"]
    for g in host.gpus if host.available else []:
        if g.capability is None:
            parts.append(f"cuda:{g.index}: unknown (capability not read)")
        elif g.capability >= (8, 0):
            parts.append(f"cuda:{g.index}: bfloat16")
        else:
            cap = f"sm_{g.capability[0]}{g.capability[1]}"
            parts.append(
                f"cuda:{g.index}: float16 with a GradScaler ({cap} only emulates bfloat16)"
            )
    return "; ".join(parts)


def render(found: Findings, katas=None) -> str:
    host, v = found.host, found.visible
    katas = _catalogue.katas() if katas is None else katas
    n_gpus = len(host.gpus) if host.available else 0
    rows = [
        ("python", f"{host.python} ({host.executable})"),
        ("torch", _torch_line(host)),
        (
            "NVIDIA driver",
            f"{host.driver or 'version unknown'} (nvidia-smi: {host.nvidia_smi})"
            + (
                f"; too old for torch's CUDA {host.torch_cuda}, which needs {floor} or newer"
                if (floor := driver_too_old(host))
                else ""
            )
            if host.nvidia_smi
            else "none found (nvidia-smi is not on PATH)",
        ),
        ("GPUs", _gpus_line(host, n_gpus)),
        *((f"  cuda:{g.index}", g.describe().partition(": ")[2]) for g in host.gpus),
        ("pinned memory", found.pinned),
        ("mixed precision", mixed_precision_line(host)),
        ("CUDA_VISIBLE_DEVICES", _visible_line(v)),
        (
            "CUDA_DEVICE_ORDER",
            f"{host.order!r}"
            if host.order is not None
            else "unset: FASTEST_FIRST, so cuda:N may differ from nvidia-smi's GPU N",
        ),
    ]
    out = ["python -m katas doctor: what this machine can run", ""]
    for name, value in rows:
        out += _wrap(value, f"  {name:<22}", " " * 24)
    if host.init_error:
        out.append(f"  {'CUDA start':<22}failed: {host.init_error}")
    for seen in host.warnings:
        out.append(f"  {'warning':<22}{seen.first_line()}")

    cuda_runs = host.available and not host.init_error
    tests = {k.name: cuda_env.cuda_tests(k) for k in katas}

    def count(ts, multi_only=False):  # as pytest counts: each parametrised case is a test
        return sum(len(t.cases) for t in ts if t.multi_gpu or not multi_only)

    total = sum(count(ts) for ts in tests.values())
    multi = sum(count(ts, multi_only=True) for ts in tests.values())
    if host.torch is None:
        cuda_state = "needs torch"
    elif cuda_runs:
        cuda_state = "runs here"
    elif host.available:
        cuda_state = "fails here (CUDA does not start)"
    else:
        cuda_state = "skipped here (torch sees no CUDA device)"
    multi_state = "runs here" if cuda_runs and n_gpus >= 2 else "skipped here (needs 2+ GPUs)"
    out += [
        "",
        "Tiers (nox -s tests-cuda runs the cuda tier)",
        f"  {'cpu':<11}{'runs here' if host.torch else 'needs torch'}: every kata",
        f"  {'cuda':<11}{cuda_state}: {total} tests",
        f"  {'multi_gpu':<11}{multi_state}: {multi} of those tests",
        "",
        "Cuda tests per kata (read from tests/test_<name>.py)",
        f"  {'#':>2}  {'kata':<22}{'cuda':>5}{'multi-GPU':>11}  here",
    ]
    for kata in katas:
        ts = tests[kata.name]
        n, m = count(ts), count(ts, multi_only=True)
        if not cuda_runs:
            here = "skipped" if ts else "-"
        elif m and n_gpus < 2:
            here = f"{n - m} run, {m} skipped"
        else:
            here = "run" if ts else "-"
        out.append(f"  {kata.number:>2}  {kata.name:<22}{n:>5}{m:>11}  {here}")
    out.append(f"  {'':>2}  {'total':<22}{total:>5}{multi:>11}")

    tips = advice(found)
    out += ["", "Advice"]
    for tip in tips:
        out += _wrap(tip, "  - ", "    ")
    return "\n".join(out)


def advice(found: Findings) -> list[str]:
    host, v = found.host, found.visible
    tips = []
    if host.torch is None:
        return [
            f"torch is not installed in {host.executable}. For the katas, `nox -s learn` makes a "
            f"venv with torch=={cuda_env.TORCH_PIN} (a CPU build is enough). For the cuda tier "
            f"on a GPU host, `pip install torch=={cuda_env.TORCH_PIN}` in the env you will "
            "test in: on Linux x86_64 the PyPI wheel is the CUDA 13.0 build."
        ]
    for name, meant in found.misses:
        tips.append(
            f"{name} is set, but CUDA reads {meant}: a misspelt name is ignored without a "
            f"word. Rename it: export {meant}={os.environ.get(name, '')!r} (and unset {name})."
        )
    if v.problem is not None:
        torch_says = f"; torch reads it as {v.torch_reads}" if v.torch_reads is not None else ""
        tips.append(
            f"CUDA_VISIBLE_DEVICES={v.value!r}: {v.problem}{torch_says}. CUDA stops reading at "
            "the first entry it cannot parse, so GPUs go missing silently: list ids such as "
            "0,1."
        )
    elif v.ids == []:
        tips.append(
            f"CUDA_VISIBLE_DEVICES={v.value!r} hides every GPU. Unset it "
            "(unset CUDA_VISIBLE_DEVICES) or list the GPUs to use, e.g. 0,1."
        )
    if host.order is not None and host.order not in ("FASTEST_FIRST", "PCI_BUS_ID"):
        tips.append(
            f"CUDA_DEVICE_ORDER={host.order!r} is neither FASTEST_FIRST nor PCI_BUS_ID; "
            "set PCI_BUS_ID to number GPUs as nvidia-smi does."
        )
    if host.torch_cuda is None and host.nvidia_smi:
        variants = ", ".join(f"cu{c.replace('.', '')}" for c in cuda_variants()) or "cu130"
        tips.append(
            f"This machine has an NVIDIA driver ({host.nvidia_smi}), but torch {host.torch} is a "
            "CPU-only build, so no cuda test can run. In the env you test in, install a CUDA "
            f"build: pip install torch=={cuda_env.TORCH_PIN} --index-url {INDEX}/cuXYZ, with "
            f"cuXYZ one of {variants} (the builds torch lists in torch/cuda/__init__.py), not "
            "newer than the 'CUDA Version' that nvidia-smi prints (the newest its driver "
            "supports)."
        )
    elif floor := driver_too_old(host):
        tips.append(driver_advice(host, floor))
    elif host.torch_cuda and not host.available:
        if host.nvidia_smi:
            tips.append(
                f"torch is a CUDA {host.torch_cuda} build and nvidia-smi is here, but torch sees "
                "no GPU. Check CUDA_VISIBLE_DEVICES (above), that nvidia-smi lists a GPU, and "
                f"that its 'CUDA Version' is at least {host.torch_cuda}; the warnings above say "
                "what CUDA itself reported."
            )
        else:
            tips.append(
                "No NVIDIA driver here (nvidia-smi is not on PATH), so torch sees no GPU. On a "
                "cluster, ask for one (srun --gres=gpu:1 ...); in a container, start it with "
                "the GPUs (docker run --gpus all ...)."
            )
    for gpu in found.old_gpus:
        builds = builds_for(gpu.capability)
        cap = f"sm_{gpu.capability[0]}{gpu.capability[1]}"
        fix = (
            "torch publishes this release for it: "
            + "; ".join(
                f"pip install torch=={host.torch.split('+')[0]} --index-url {INDEX}/"
                f"cu{c.replace('.', '')}"
                for c in builds
            )
            if builds
            else "no build of this release supports it; an older torch release may"
        )
        tips.append(
            f"GPU {gpu.index} ({gpu.name}, {cap}) is older than every kernel in this torch build "
            f"({' '.join(host.arch_list)}): the cuda tests would fail on it. {fix}."
        )
    if found.pinned_ok is False:
        tips.append(
            f"Pinned memory {found.pinned}. The pinned_dataloader kata's cuda tests need it; in "
            "a container, the locked-memory limit (ulimit -l) may be too low."
        )
    if host.init_error and host.available:
        tips.append(f"CUDA did not start ({host.init_error}): the cuda tier would fail here.")
    hosts = [w for w in host.warnings if w.host]
    if hosts:
        tips.append(
            "torch warned about this machine when CUDA started (above). nox -s tests-cuda "
            "reports these in its header and ignores them in the tests; they are not bugs in "
            "your code."
        )
    if cuda_env.version_tuple(host.torch)[:2] != cuda_env.version_tuple(cuda_env.TORCH_PIN)[:2]:
        tips.append(
            f"torch is {host.torch}; the katas are checked against torch=={cuda_env.TORCH_PIN}, "
            "so some results may differ."
        )
    if not tips:
        if host.available and not host.init_error:
            more = "" if len(host.gpus) >= 2 else " The multi_gpu tests need a second GPU."
            tips.append(f"Nothing to fix. Run the cuda tier: nox -s tests-cuda.{more}")
        else:
            tips.append(
                "Nothing to fix for the katas: the cpu tier runs here, and the cuda tier shows "
                "as skipped. To run it, use a GPU host: see docs/gpu-hosts.md."
            )
    return tips


def driver_advice(host: cuda_env.Host, floor: int) -> str:
    """The driver is older than this torch's CUDA needs: update it, or take an older CUDA."""
    have = driver_major(host.driver) or 0
    release = (host.torch or cuda_env.TORCH_PIN).split("+")[0]
    fits = [f"cu{c.replace('.', '')}" for c in cuda_variants() if (driver_floor(c) or 999) <= have]
    if fits:
        others = f" (or {', '.join(fits[:-1])})" if len(fits) > 1 else ""
        fix = (
            f", or install a torch built for an older CUDA that this driver runs: pip install "
            f"torch=={release} --index-url {INDEX}/{fits[-1]}{others}, no newer than the 'CUDA "
            "Version' that nvidia-smi prints"
        )
    else:
        fix = f" (no CUDA build of torch {release} runs on driver {have}; an older torch may)"
    return (
        f"The NVIDIA driver is {host.driver}, but this torch ({host.torch}) is built for CUDA "
        f"{host.torch_cuda}, which needs driver {floor} or newer: CUDA cannot start, and "
        f"torch.cuda.is_available() is False. The default PyPI wheel of torch "
        f"{cuda_env.TORCH_PIN} is the CUDA 13.0 build. Update the driver to {floor} or newer"
        f"{fix}. More: python -m katas explain 'The NVIDIA driver on your system is too old'."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m katas doctor",
        description="Say what this machine can run (tiers, GPUs, pinned memory, "
        "CUDA_VISIBLE_DEVICES) and what to fix.",
    )
    parser.parse_args(argv)
    print(render(look()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
