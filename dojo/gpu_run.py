"""`python3 -m dojo.gpu_run`: a GPU host's first real run, in one command (docs/gpu-hosts.md).

From the repository's root, with the python that holds the host's CUDA build of torch; no nox,
no network. It:

1. stops in one line when torch sees no CUDA device, or when a test tool is missing or too old
   and no prepared tools folder supplies it (the folder `nox -s tests-cuda` fills for compute
   nodes, `.nox/tests-cuda-tools/<python>-<platform>/`; `--prepare` fills one for another
   machine's Python, on a machine with network);
2. prints and saves the machine: nvidia-smi, the driver, torch with its CUDA and cuDNN, each
   GPU's name, capability and memory, CUDA_VISIBLE_DEVICES, the tools' versions;
3. runs the whole cuda tier against the reference solutions, with each test's duration and a
   JUnit file, then the GPU benchmarks (each in a process of its own, at full size, within what
   time is left);
4. stops itself at `--time-limit` seconds (300 by default), a hung test included: pytest gets
   SIGINT first (it still writes its JUnit file and report), then its process group SIGKILL;
5. leaves two files in `--out` (default $OUT, else ./gpu-run): `gpu-run-<host>-<time>.tar.gz`,
   a folder holding everything (commit it under docs/benchmarks/ for the Benchmarks page), and
   `summary.md`: passed, failed, skipped and why, the slowest tests, the benchmark figures.

`--summarize DIR` rebuilds the summary from a run's folder (an unpacked archive).
Exit status: 0 all passed, 1 a test or benchmark failed, 3 stopped before running (the line
says why), 4 the time limit cut the run short.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

from dojo import catalogue as _catalogue
from dojo import cuda_env

ROOT = _catalogue.ROOT
LIMIT = 300  # seconds, the whole command
BENCH_SHARE = 100  # seconds kept for the benchmarks out of the limit, unless the tests end early
MARGIN = 25  # seconds kept for the summary and the archive, and for pytest to stop on SIGINT
GRACE = 15  # seconds between SIGINT and SIGKILL
UTC = datetime.timezone.utc  # noqa: UP017 (hosts may run Python 3.10)

# Run in a child, with the run's PYTHONPATH: torch and the tools as the tests will see them.
PROBE = r"""
import json, sys
from dojo import cuda_env
out = {"python": sys.executable, "version": sys.version.split()[0]}
plan = cuda_env.plan_tools(cuda_env.requirements())
out["missing"] = plan.notes
out["tools"] = {n: cuda_env.installed_version(n) for n in
                ("pytest", "hypothesis", "numpy", "pytest-xdist", "pyyaml")}
try:
    import torch
except ImportError as err:
    out["torch"] = None
else:
    out["torch"], out["torch_cuda"] = torch.__version__, torch.version.cuda
    out["available"] = torch.cuda.is_available()
    if out["available"]:
        host = cuda_env.probe()
        out["header"] = host.header()
        out["driver"] = host.driver
        out["gpus"] = [
            {"name": g.name, "capability": list(g.capability or ()), "memory": g.memory,
             "sms": g.sms} for g in host.gpus
        ]
        out["cudnn"] = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() \
            else None
print("GPU_RUN_PROBE " + json.dumps(out))
"""


class Stop(Exception):
    """Stop before running anything: one line says why."""


def say(line: str = "") -> None:
    print(line, flush=True)


# --- the tools folder -------------------------------------------------------------------------


def tools_dir(base: Path | None, version: str | None = None) -> Path:
    """This Python's folder under `base` (default: tests-cuda's overlay), or the folder for
    `version` ("3.12") on linux-x86_64 when preparing for another machine."""
    environ = dict(os.environ)
    if base is not None:
        environ[cuda_env.TOOLS_DIR] = str(base)
    if version is None:
        return cuda_env.overlay_dir(environ)
    root = Path(environ[cuda_env.TOOLS_DIR]) if environ.get(cuda_env.TOOLS_DIR) else None
    return (root or cuda_env.OVERLAY) / f"cpython{version.replace('.', '')}-linux-x86_64"


def prepare_command(
    target: Path, version: str, uv: str | None = None, without: tuple[str, ...] = ()
) -> list[str]:
    """pip (or uv, where this Python has no pip), on a machine with network, filling `target`
    for a Linux x86_64 host's CPython `version`: binary wheels only, nothing built here.
    `without`: packages the host is known to have, new enough (numpy alone is 58 MiB)."""
    unknown = set(without) - {cuda_env.wanted(r)[0] for r in cuda_env.requirements()}
    if unknown:
        raise ValueError(f"--without {sorted(unknown)[0]}: not one of the test tools")
    reqs = [r for r in cuda_env.requirements() if cuda_env.wanted(r)[0] not in without]
    if uv:
        return [
            uv, "pip", "install", "--quiet", "--target", str(target), "--upgrade",
            "--only-binary", ":all:", "--python-version", version,
            "--python-platform", "x86_64-manylinux_2_28", *reqs,
        ]  # fmt: skip
    platforms = [f"manylinux_2_{n}_x86_64" for n in (28, 27, 17)] + ["manylinux2014_x86_64"]
    return [
        sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target),
        "--upgrade", "--only-binary=:all:", "--implementation", "cp",
        "--python-version", version, *(f"--platform={p}" for p in platforms), *reqs,
    ]  # fmt: skip


def prepare(base: Path | None, version: str, without: tuple[str, ...] = ()) -> int:
    target = tools_dir(base, version)
    has_pip = importlib.util.find_spec("pip") is not None
    uv = None if has_pip else shutil.which("uv")
    command = prepare_command(target, version, uv, without)
    say(f"gpu_run: preparing {target} for CPython {version} on Linux x86_64: {' '.join(command)}")
    done = subprocess.run(command, check=False)
    if done.returncode:
        return done.returncode
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    say(f"gpu_run: {target} holds {size / 2**20:.1f} MiB; take its parent folder along")
    return 0


# --- children, bounded ------------------------------------------------------------------------


def _run_bounded(command, *, env, log: Path, until: float, echo: bool = True) -> tuple[int, bool]:
    """Run `command` in its own process group, its output into `log` (and to this terminal),
    until the monotonic time `until`: then SIGINT, and SIGKILL to the group GRACE s later.
    Returns (exit status, whether the time limit stopped it). Output is read as it comes, not
    by lines: pytest -v writes a test's name, and its outcome only once it has run."""
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        fd = proc.stdout.fileno()
        stopped, interrupted_at = False, None
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                now = time.monotonic()
                if interrupted_at is None and now >= until:
                    stopped, interrupted_at = True, now
                    with _quiet():
                        proc.send_signal(signal.SIGINT)
                if interrupted_at is not None and now >= interrupted_at + GRACE:
                    break
                if not sel.select(timeout=0.5):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                sink.write(chunk)
                sink.flush()
                if echo:
                    sys.stdout.buffer.write(chunk)
                    sys.stdout.flush()
        try:
            code = proc.wait(timeout=0 if interrupted_at is not None else GRACE)
        except subprocess.TimeoutExpired:
            with _quiet():
                os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait()
        with _quiet():  # whatever it left behind (a rank, a DataLoader worker)
            os.killpg(proc.pid, signal.SIGKILL)
        proc.stdout.close()
    return code, stopped


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        return kind is not None and issubclass(kind, ProcessLookupError | PermissionError)


# --- the run ----------------------------------------------------------------------------------


def probe(python: str, env: dict[str, str], until: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp, "probe.log")
        code, stopped = _run_bounded(
            [python, "-c", PROBE], env=env, log=log, until=min(until, time.monotonic() + 90),
            echo=False,
        )  # fmt: skip
        text = log.read_text()
    found = [ln for ln in text.splitlines() if ln.startswith("GPU_RUN_PROBE ")]
    if not found:
        why = "it did not answer in 90 s" if stopped else f"exit {code}: {text.strip()[-300:]}"
        raise Stop(f"gpu_run: {python} could not import dojo and torch ({why})")
    return json.loads(found[-1].removeprefix("GPU_RUN_PROBE "))


def check_host(seen: dict, tools: Path) -> None:
    python = seen["python"]
    if seen.get("torch") is None:
        raise Stop(
            f"gpu_run: {python} has no torch; run this with the python that holds the host's "
            "CUDA build of torch"
        )
    if not seen.get("available"):
        build = f"CUDA {seen['torch_cuda']} build" if seen.get("torch_cuda") else "CPU-only build"
        raise Stop(
            f"gpu_run: torch {seen['torch']} ({build}) in {python} sees no CUDA device "
            "(torch.cuda.is_available() is False): nothing to run here; run it on a GPU host"
        )
    if seen["missing"]:
        where = "is not there" if not tools.is_dir() else "does not supply them"
        raise Stop(
            f"gpu_run: {'; '.join(seen['missing'])}; the tools folder {tools} {where}. Prepare "
            f"it on a machine with network (python3 -m dojo.gpu_run --prepare --python-version "
            f"{'.'.join(seen['version'].split('.')[:2])}) and bring it along"
        )


def machine_text(seen: dict, tools: Path) -> str:
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi], capture_output=True, text=True, timeout=30)
            nvidia_smi = (out.stdout + out.stderr).rstrip()
        except (OSError, subprocess.SubprocessError) as err:
            nvidia_smi = f"nvidia-smi failed: {err}"
    else:
        nvidia_smi = "nvidia-smi is not on PATH"
    pin = cuda_env.TORCH_PIN
    same = cuda_env.version_tuple(seen["torch"])[:2] == cuda_env.version_tuple(pin)[:2]
    tools_used = ", ".join(f"{k} {v}" for k, v in seen["tools"].items() if v)
    lines = [
        f"host: {socket.gethostname()}, {datetime.datetime.now(UTC):%Y-%m-%d %H:%M UTC}",
        f"repository: {_commit()}",
        *seen["header"],
        f"cuDNN: {seen.get('cudnn') or 'not available'}",
        f"torch: {seen['torch']}"
        + ("" if same else f" (not the pin, torch=={pin}: a failure may come from the version)"),
        f"test tools: {tools_used} (tools folder {tools}{'' if tools.is_dir() else ': none'})",
        "",
        "nvidia-smi:",
        nvidia_smi,
    ]
    return "\n".join(lines) + "\n"


def pytest_command(python: str, work: Path, workers: int = 1) -> list[str]:
    """The cuda tier; `workers` > 1: that many xdist workers, each a CUDA process of its own."""
    parallel = ["-p", "xdist.plugin", "-n", str(workers)] if workers > 1 else []
    return [
        python, "-m", "pytest", "-p", "_hypothesis_pytestplugin",
        "--impl", "reference", "-m", "cuda", "--require-cuda",
        "--ignore", "tests/tool", "-p", "no:cacheprovider", "-v", "-rfEs", "--durations=0",
        "-o", "faulthandler_timeout=60", "--junitxml", str(work / "junit.xml"),
        "--gpu-report", str(work / "gpu-report.txt"), *parallel,
    ]  # fmt: skip


# First, the figures the Benchmarks page promises: pinned against pageable copies, .item() waits.
FIRST = ("h2d_bandwidth", "item_logging")


def gpu_experiments() -> list[str]:
    from benchmarks import EXPERIMENTS

    names = [e.name for e in EXPERIMENTS if e.needs_cuda and e.default]
    return sorted(names, key=lambda n: FIRST.index(n) if n in FIRST else len(FIRST))


def run_benchmarks(python: str, env, work: Path, until: float, mode: str) -> dict:
    """Each GPU experiment in a process of its own, in turn, with what time is left (less 8 s
    for each one still to come); merged into one results file, as `python -m benchmarks`
    writes it."""
    names = gpu_experiments()
    merged: dict = {}
    notes = []
    for i, name in enumerate(names):
        left = until - time.monotonic()
        if left - 8 * (len(names) - i - 1) < 8:
            notes.append({"name": name, "reason": "no time left within the run's limit"})
            continue
        out = work / "bench" / name
        share = left - 8 * (len(names) - i - 1)
        command = [python, "-m", "benchmarks", "--only", name, "--out", str(out)]
        if mode == "smoke":
            command.append("--smoke")
        say(f"gpu_run: benchmark {name} ({share:.0f} s at most)")
        out.parent.mkdir(parents=True, exist_ok=True)
        code, stopped = _run_bounded(
            command, env=env, log=out.parent / f"{name}.log", until=time.monotonic() + share
        )
        results = out / "results.json"
        if stopped or not results.is_file():
            why = (
                f"stopped at its share of the time limit ({share:.0f} s)"
                if stopped
                else (f"exit {code}, no results (see bench/{name}.log)")
            )
            notes.append({"name": name, "reason": why})
            continue
        data = json.loads(results.read_text())
        if not merged:
            merged = {**data, "experiments": {}, "skipped": [], "failed": []}
            merged["command"] = (
                f"python3 -m dojo.gpu_run (python -m benchmarks --only each, {mode})"
            )
        merged["experiments"].update(data["experiments"])
        merged["skipped"] += data["skipped"]
        merged["failed"] += data["failed"]
    if not merged:
        merged = {"schema": 1, "mode": mode, "experiments": {}, "skipped": [], "failed": []}
    merged["skipped"] += notes
    (work / "results.json").write_text(json.dumps(merged, indent=1) + "\n")
    return merged


# --- the summary ------------------------------------------------------------------------------


def _cases(junit: Path) -> list[dict]:
    if not junit.is_file():
        return []
    try:
        tree = ElementTree.parse(junit)
    except ElementTree.ParseError:
        return []
    cases = []
    for case in tree.iter("testcase"):
        if case.get("name") is None:  # the test a SIGINT interrupted: it has no result
            continue
        name = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
        outcome, why = "passed", ""
        for tag in ("failure", "error", "skipped"):
            found = case.find(tag)
            if found is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                why = (found.get("message") or found.text or "").strip()
                break
        cases.append({"name": name, "outcome": outcome, "why": why,
                      "seconds": float(case.get("time") or 0)})  # fmt: skip
    return cases


def summarize(work: Path) -> str:
    """summary.md, from the files of a run's folder: run.json, machine.txt, junit.xml,
    results.json (any of them may be missing: a run cut short says so)."""
    run = json.loads((work / "run.json").read_text()) if (work / "run.json").is_file() else {}
    machine = (work / "machine.txt").read_text() if (work / "machine.txt").is_file() else ""
    cases = _cases(work / "junit.xml")
    lines = ["# GPU run: the cuda tier and the GPU benchmarks", ""]
    head = machine.split("\nnvidia-smi:", 1)[0].strip()
    lines += ["```", head or "machine: not recorded", "```", ""]
    counts = {k: sum(c["outcome"] == k for c in cases) for k in ("passed", "failed", "error")}
    counts["skipped"] = sum(c["outcome"] == "skipped" for c in cases)
    lines.append(
        "**Tests** (cuda tier, reference solutions): "
        + ", ".join(f"{n} {k}" for k, n in counts.items() if n or k != "error")
        + f" of {len(cases)}"
        + (f"; pytest exit status {run['pytest_exit']}" if "pytest_exit" in run else "")
    )
    if run.get("stopped"):
        lines.append(f"\n**Stopped at the time limit** ({run['stopped']}).")
    if not cases:
        lines.append("\nNo JUnit file: no test result was recorded.")
    for outcome in ("failed", "error"):
        for c in (c for c in cases if c["outcome"] == outcome):
            first = c["why"].splitlines()[0][:300] if c["why"] else ""
            lines.append(f"- {outcome.upper()} `{c['name']}`: {first}")
    reasons: dict[str, int] = {}
    for c in cases:
        if c["outcome"] == "skipped":
            reasons[c["why"]] = reasons.get(c["why"], 0) + 1
    if reasons:
        lines += ["", "Skipped, and why:"]
        lines += [f"- {n} × {why or 'no reason given'}" for why, n in reasons.items()]
    slow = sorted((c for c in cases if c["outcome"] != "skipped"), key=lambda c: -c["seconds"])
    if slow:
        lines += ["", "Slowest tests:"]
        lines += [f"- {c['seconds']:.2f} s `{c['name']}`" for c in slow[:8]]
    lines += ["", "**Benchmarks** (GPU experiments):"]
    results = work / "results.json"
    bench = json.loads(results.read_text()) if results.is_file() else None
    if bench is None:
        lines.append("- not run")
    else:
        for name, exp in bench.get("experiments", {}).items():
            lines.append(f"- {name}: {exp.get('headline', '?')} ({exp.get('seconds', '?')} s)")
        for skip in bench.get("skipped", []):
            lines.append(f"- {skip['name']}: skipped, {skip['reason']}")
        for fail in bench.get("failed", []):
            lines.append(f"- {fail['name']}: FAILED, {fail['error']}")
    if run.get("seconds") is not None:
        lines += ["", f"Whole run: {run['seconds']:.0f} s of a {run.get('limit', LIMIT)} s limit."]
    return "\n".join(lines) + "\n"


# --- the command ------------------------------------------------------------------------------


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True, text=True, timeout=10,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown (no git)"
    return out.stdout.strip() or "unknown (not a git checkout)"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "host"


def run(args: argparse.Namespace) -> int:
    # A last resort: if this process itself hangs, SIGALRM ends it 5 s after the limit.
    before = signal.signal(signal.SIGALRM, lambda *_: os._exit(4))
    # Started with SIGINT ignored (`nohup`, or `&` in a script without job control), this
    # process would pass that on to pytest, which would then not stop at the time limit's
    # SIGINT and write its files: it would be killed. Its children get SIGINT's default.
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.alarm(int(args.time_limit) + 5)
    try:
        return _run(args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    deadline = started + args.time_limit
    out = Path(args.out or os.environ.get("OUT") or ROOT / "gpu-run").resolve()
    tools = tools_dir(args.tools)
    python = sys.executable
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "KATAS_HYPOTHESIS_PROFILE": os.environ.get("KATAS_HYPOTHESIS_PROFILE", "ci"),
        "PYTHONPATH": os.pathsep.join(
            p
            for p in (str(tools) if tools.is_dir() else "", str(ROOT), os.environ.get("PYTHONPATH"))
            if p
        ),
    }
    try:
        seen = probe(python, env, deadline)
        check_host(seen, tools)
    except Stop as stop:
        say(str(stop))
        return 3
    stamp = datetime.datetime.now(UTC).strftime("%Y%m%d-%H%M")
    gpu = _slug(seen["gpus"][0]["name"] if seen.get("gpus") else "gpu")
    name = f"gpu-run-{gpu}-{stamp}"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp, name)
        work.mkdir()
        text = machine_text(seen, tools)
        (work / "machine.txt").write_text(text)
        (work / "machine.json").write_text(json.dumps(seen, indent=1) + "\n")
        say(text)
        record = {"limit": args.time_limit, "torch": seen["torch"], "pin": cuda_env.TORCH_PIN}
        bench_at = deadline - MARGIN - (BENCH_SHARE if args.bench != "none" else 0)
        say(f"gpu_run: the cuda tier, until {bench_at - time.monotonic():.0f} s from now at most")
        # Only the plugins the tests use: a host's own (pytest-cov, pytest-benchmark, ...) may
        # not work with the tools folder's pytest.
        code, stopped = _run_bounded(
            pytest_command(python, work, args.workers),
            env={**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
            log=work / "pytest.log", until=bench_at,
        )  # fmt: skip
        record["pytest_exit"] = code
        if stopped:  # pytest -v starts a line with each test's id as the test starts
            ids = re.findall(r"^(\S+\.py::\S+)", (work / "pytest.log").read_text(), re.M)
            record["stopped"] = f"the cuda tier, in or after {ids[-1] if ids else '?'}"
        bench = {}
        if args.bench != "none":
            bench = run_benchmarks(python, env, work, deadline - MARGIN, args.bench)
        record["seconds"] = round(time.monotonic() - started, 1)
        (work / "run.json").write_text(json.dumps(record, indent=1) + "\n")
        summary = summarize(work)
        (work / "summary.md").write_text(summary)
        out.mkdir(parents=True, exist_ok=True)
        archive = out / f"{name}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(work, arcname=name)
        (out / "summary.md").write_text(summary)
    say(summary)
    say(
        f"gpu_run: wrote {archive} ({archive.stat().st_size / 2**10:.0f} KiB) "
        f"and {out / 'summary.md'}"
    )
    if record.get("stopped"):
        return 4
    return 0 if code == 0 and not bench.get("failed") else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m dojo.gpu_run", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--out", type=Path, help="where the archive and summary go (default: $OUT, else ./gpu-run)"
    )
    parser.add_argument(
        "--tools",
        type=Path,
        help=f"the tools folder (default: ${cuda_env.TOOLS_DIR}, else .nox/tests-cuda-tools)",
    )
    parser.add_argument(
        "--time-limit", type=float, default=LIMIT, help="seconds for the whole run (default 300)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="run the cuda tier in this many processes (pytest-xdist; default 1)",
    )
    parser.add_argument(
        "--bench",
        choices=("full", "smoke", "none"),
        default="full",
        help="the GPU benchmarks' size (default full)",
    )
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="fill the tools folder for --python-version (needs network), then stop",
    )
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="NAME",
        help="for --prepare: leave out a tool the host has, new enough (numpy: 58 MiB)",
    )
    parser.add_argument(
        "--python-version",
        default="3.12",
        help="the GPU host's Python, for --prepare (default 3.12)",
    )
    parser.add_argument(
        "--summarize",
        type=Path,
        metavar="DIR",
        help="print the summary of a run's folder, then stop",
    )
    args = parser.parse_args(argv)
    if args.summarize:
        say(summarize(args.summarize))
        return 0
    if args.prepare:
        return prepare(args.tools, args.python_version, tuple(args.without))
    if args.time_limit < MARGIN + 30:
        parser.error(f"--time-limit must be at least {MARGIN + 30} s")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
