"""What setting up costs a learner and CI: `python -m benchmarks.setup [--full] [--ci]`.

Side by side in one run, for each venv backend nox can use (uv, and venv with pip), on fresh
clones of this repository with the package caches already warm:
- **first verdict**: from `git clone` to the first `python -m katas check` verdict, through
  `nox -s learn -- check device_selection` (what a learner's first command costs);
- with `--full`, also **nox**: the duration of the README's `nox`, and **.nox size**: the disk
  that `.nox/` holds afterwards, every default session and `learn` having run once (`du`, which
  counts a file hardlinked from uv's cache once), in the first round only, for the backends in
  `--full-backends` (uv by default: a full round with pip takes another quarter of an hour);
- with `--ci`, also **.ci/run**: CI's whole run on one more fresh clone, as CI starts it.
Rounds alternate the backends (A B, B A, ...) and report medians, so a busy machine slows both
alike. Prints a table and writes JSON (`--out`, default docs/benchmarks/setup.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "benchmarks" / "setup.json"
BACKENDS = {"uv": "uv", "pip": "venv"}


def _nox() -> list[str]:
    found = shutil.which("nox")
    return [found] if found else [sys.executable, "-m", "nox"]


def _du(path: Path) -> int:
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def _clone(dest: Path) -> None:
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True)


def ci_round(env: dict) -> dict:
    """`.ci/run` on a fresh clone: its duration, and whether it passed."""
    with tempfile.TemporaryDirectory(prefix="setup-ci-") as tmp:
        clone = Path(tmp) / "repo"
        _clone(clone)
        start = time.perf_counter()
        run = subprocess.run(
            ["bash", ".ci/run"], cwd=clone, env=env, capture_output=True, text=True
        )
        took = round(time.perf_counter() - start, 1)
        if run.returncode:
            print(f".ci/run failed:\n{(run.stdout + run.stderr)[-3000:]}", flush=True)
        return {"ci_s": took, "ci_ok": run.returncode == 0}


def one_round(backend: str, full: bool, env: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"setup-{backend}-") as tmp:
        clone = Path(tmp) / "repo"
        start = time.perf_counter()
        _clone(clone)
        nox = [*_nox(), "--default-venv-backend", BACKENDS[backend]]
        check = subprocess.run(
            [*nox, "-s", "learn", "--", "check", "device_selection"],
            cwd=clone, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        verdict = time.perf_counter() - start
        if "device_selection" not in check.stdout:
            raise RuntimeError(f"no verdict from nox -s learn ({backend}):\n{check.stdout[-2000:]}")
        result = {"first_verdict_s": round(verdict, 1)}
        if full:
            start = time.perf_counter()
            run = subprocess.run(nox, cwd=clone, env=env, capture_output=True, text=True)
            result["nox_s"] = round(time.perf_counter() - start, 1)
            result["nox_ok"] = run.returncode == 0
            if run.returncode:
                print(f"nox failed ({backend}):\n{(run.stdout + run.stderr)[-6000:]}", flush=True)
            result["nox_dir_bytes"] = _du(clone / ".nox")
        return result


LABELS = {
    "first_verdict_s": "fresh clone to first verdict (s)",
    "nox_s": "`nox` (s)",
    "nox_dir_bytes": "`.nox/` afterwards (GB)",
    "ci_s": "`.ci/run` (s)",
}


def table(data: dict) -> str:
    """The committed figures as a markdown table, one column per backend (for the site)."""
    backends = list(data["median"])
    rows = [
        "| measure | " + " | ".join(f"nox on {b}" for b in backends) + " |",
        "| --- |" + " --- |" * len(backends),
    ]
    for key, label in LABELS.items():
        if not any(key in data["median"][b] for b in backends):
            continue
        cells = []
        for b in backends:
            value = data["median"][b].get(key)
            if value is None:
                cells.append("not measured")
            else:
                cells.append(f"{value / 1e9:.2f}" if key.endswith("bytes") else f"{value:.1f}")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    note = (
        f"\n\nMedians of {data['rounds']} rounds, backends alternated, on {data['cores']} cores "
        f"(load {data['load_1min']} at the end), package caches warm."
    )
    if data.get("full"):
        note += " `nox` and `.nox/`: the first round only" + (
            "; `.ci/run`: one run on a clone of its own." if data.get("ci") else "."
        )
    return "\n".join(rows) + note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.setup", description=__doc__)
    parser.add_argument("--full", action="store_true", help="also nox's duration and .nox size")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default="uv,pip", help="comma-separated: uv, pip")
    parser.add_argument(
        "--full-backends", default="uv", help="the backends --full measures (comma-separated)"
    )
    parser.add_argument("--ci", action="store_true", help="also time .ci/run on a fresh clone")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    backends = [b for b in args.backends.split(",") if b]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NOX_", "KATAS_REEXEC"))}
    env |= {"CI": "true", "NO_MKDOCS_2_WARNING": "1"}
    runs: dict[str, list[dict]] = {b: [] for b in backends}
    for r in range(args.rounds):
        order = backends if r % 2 == 0 else backends[::-1]
        for backend in order:
            full = args.full and r == 0 and backend in args.full_backends.split(",")
            runs[backend].append(one_round(backend, full, env))
            print(f"round {r + 1}, {backend}: {runs[backend][-1]}", flush=True)
    if args.ci:
        runs.setdefault("uv", []).append(ci_round(env))
        print(f".ci/run: {runs['uv'][-1]}", flush=True)
    summary = {}
    for backend, results in runs.items():
        keys = dict.fromkeys(k for r in results for k, v in r.items() if type(v) in (int, float))
        summary[backend] = {
            key: statistics.median(r[key] for r in results if key in r) for key in keys
        }
    load = os.getloadavg()[0]
    data = {"rounds": args.rounds, "full": args.full, "ci": args.ci, "load_1min": round(load, 1),
            "cores": os.cpu_count(), "median": summary, "runs": runs}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"\nmedians of {args.rounds} rounds, {os.cpu_count()} cores, load {load:.1f}:")
    for backend, values in summary.items():
        shown = ", ".join(
            f"{k} {v / 1e9:.2f} GB" if k.endswith("bytes") else f"{k} {v:.1f}"
            for k, v in values.items()
        )
        print(f"  {backend}: {shown}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
