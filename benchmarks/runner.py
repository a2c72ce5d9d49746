"""`python -m benchmarks [--smoke] [--only NAME]... [--out DIR] [--list]`.

Runs the experiments in registry order, prints each headline as it comes, and writes
`DIR/results.json` and `DIR/results.png`. Exit status: 0 when every selected experiment ran or
was skipped for a stated reason, 1 when one failed, 2 for a bad option.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from pathlib import Path

from benchmarks import Experiment, available

SCHEMA = 1
DEFAULT_OUT = Path("bench-results")
TIMING = (
    "benchmarks/timing.py: cases interleaved in one run (order rotated each round), warm-up "
    "first, each sample = wall time (time.perf_counter) of N back-to-back calls between two "
    "torch.cuda.synchronize() on a GPU, N calibrated so a sample lasts >= min_time; "
    "statistics over samples: median, min, max, quartiles"
)


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not usage + error
        raise UsageError(message)


def _parser(names: list[str]) -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m benchmarks",
        description="Measure the tutorials' headline experiments, side by side, and write "
        "results.json and results.png.",
    )
    p.add_argument("--smoke", action="store_true", help="tiny sizes, a few seconds (CI)")
    p.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        default=[],
        help=f"run only this experiment (repeatable): {', '.join(names)}",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"where to write results.json and results.png (default: {DEFAULT_OUT}/)",
    )
    p.add_argument("--list", action="store_true", help="list the experiments and exit")
    return p


def _select(only: list[str]) -> list[Experiment]:
    known = {e.name: e for e in available()}
    unknown = [n for n in only if n not in known]
    if unknown:
        raise UsageError(f"--only {unknown[0]}: no such experiment; choose from {', '.join(known)}")
    if not only:
        return [e for e in known.values() if e.default]
    return [e for e in known.values() if e.name in only]  # registry order: CPU ones first


def _list() -> int:
    width = max(len(e.name) for e in available())
    for e in available():
        where = "cuda" if e.needs_cuda else "cpu "
        extra = "" if e.default else "  (optional: --only " + e.name + ")"
        print(f"{e.name:<{width}}  {where}  {e.title}{extra}")
    return 0


def _cuda_reason() -> str | None:
    """Why the cuda experiments cannot run here, or None. Does not initialise CUDA in this
    process: NVML counts the devices, and a child process checks that CUDA starts."""
    import torch

    from benchmarks import machine

    if machine.cuda_devices() == 0:
        if torch.version.cuda is None:
            return f"needs a CUDA device: torch {torch.__version__} is built without CUDA"
        return f"needs a CUDA device: torch {torch.__version__} sees none"
    # NVML counted a GPU; CUDA may still not start (a driver older than torch's CUDA needs).
    why = machine.cuda_start_error()
    if why is not None:
        return f"needs a CUDA device that starts: CUDA did not ({why}); see python -m katas doctor"
    return None


def run(
    selected: list[Experiment], plan, out: Path, argv: list[str] | None = None
) -> tuple[dict, int]:
    """Run `selected` with `plan`, write DIR/results.json (+ .png); return (data, failures)."""
    from benchmarks import machine, report

    started = time.perf_counter()
    load_before = machine.load()
    no_cuda = _cuda_reason()
    experiments: dict[str, dict] = {}
    skipped: list[dict[str, str]] = []
    failed: list[dict[str, str]] = []
    plotters = {}
    for exp in selected:
        if exp.needs_cuda and no_cuda:
            skipped.append({"name": exp.name, "reason": no_cuda})
            print(f"{exp.name}: skipped, {no_cuda}", flush=True)
            continue
        print(f"{exp.name}: running ...", flush=True)
        t0 = time.perf_counter()
        try:
            module = importlib.import_module(exp.module)
            result = getattr(module, exp.name)(plan)
        except Exception as err:
            failed.append({"name": exp.name, "error": f"{type(err).__name__}: {err}"})
            traceback.print_exc()
            print(f"{exp.name}: FAILED ({type(err).__name__}: {err})", flush=True)
            continue
        result = {
            "title": exp.title,
            "device": result.get("device", "cpu"),
            "seconds": round(time.perf_counter() - t0, 2),
            **result,
        }
        experiments[exp.name] = result
        if plot := exp.plotter():
            plotters[exp.name] = plot
        print(f"{exp.name}: {result['headline']} ({result['seconds']:.1f} s)", flush=True)
    data = {
        "schema": SCHEMA,
        "mode": "smoke" if plan.smoke else "full",
        "command": " ".join(["python -m benchmarks", *(sys.argv[1:] if argv is None else argv)]),
        # After the experiments: reading GPU properties initialises CUDA (see machine.py).
        "machine": machine.describe(with_gpus=no_cuda is None),
        "load": {"before": load_before, "after": machine.load()},
        "timing": {
            "method": TIMING,
            "repeats": plan.repeats,
            "warmup": plan.warmup,
            "min_time_s": plan.min_time,
        },
        "seconds": round(time.perf_counter() - started, 2),
        "experiments": experiments,
        "skipped": skipped,
        "failed": failed,
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {path}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("no PNG: matplotlib is not installed (`nox -s bench` installs it)")
    else:
        png = report.figure(data, plotters, out / "results.png")
        if png:
            print(f"wrote {png}")
        for panel in report.panels(data, plotters, out):
            print(f"wrote {panel}")
    return data, len(failed)


def main(argv: list[str] | None = None) -> int:
    names = [e.name for e in available()]
    try:
        args = _parser(names).parse_args(argv)
        if args.list:
            return _list()
        selected = _select(args.only)
        if args.out.exists() and not args.out.is_dir():
            raise UsageError(f"--out {args.out}: exists and is not a directory")
    except UsageError as err:
        print(f"python -m benchmarks: {err} (see --help)", file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help
        return int(exit_.code or 0)

    from benchmarks.timing import FULL, SMOKE

    _, failures = run(selected, SMOKE if args.smoke else FULL, args.out, argv)
    return 1 if failures else 0
