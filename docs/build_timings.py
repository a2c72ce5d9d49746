"""Where the time of `mkdocs build --strict` goes, as a Markdown table (docs/maintainers.md).

    python docs/build_timings.py                        # 5 builds of this tree
    python docs/build_timings.py --runs 7 --baseline ../other-checkout
    python docs/build_timings.py --out docs/benchmarks/build.json  # for the Maintainers page

Run it with the docs environment's Python (`.nox/docs/bin/python` after `nox -s docs`). Each
build is a fresh process, as in CI, so each pays Python's start-up and `import torch`. With
--baseline, builds of the two trees alternate (this, baseline, this, ...), so both see the same
load on a shared machine, and the table shows medians side by side.

The phases are timed by wrapping functions of mkdocs, pymdown-extensions, markdown-exec and
Material in the build process (private names included: a phase whose function moved reads
"n/a" rather than failing the build).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent

ROWS = [
    ("whole build (process wall time)", "wall"),
    ("Python start-up, imports and exit", "startup"),
    ("import torch (first executed block)", "torch"),
    ("executed blocks (all pages, after torch)", "exec"),
    ("syntax highlighting", "highlight"),
    ("rest of Markdown (snippets, hooks, HTML)", "markdown"),
    ("search index", "search"),
    ("theme, nav, files, sitemap", "rest"),
]


def _wrap(owner: object, name: str, key: str, times: Counter, current: list[str]) -> bool:
    """Add the wall time of `owner.name` calls to times[key] (outermost calls only)."""
    original = getattr(owner, name, None)
    if original is None:
        return False
    depth = [0]

    def timed(*args, **kwargs):
        if depth[0]:
            return original(*args, **kwargs)
        depth[0] += 1
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent = time.perf_counter() - start
            times[key] += spent
            if key == "exec" and current:
                times[f"exec:{current[0]}"] += spent
            depth[0] -= 1

    setattr(owner, name, timed)
    return True


def _child(out: Path, site: Path) -> None:
    """One build of the tree in the current directory into `site`; write its phases to `out`."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from markdown_exec._internal.formatters import python as exec_python
    from material.plugins.search import plugin as search
    from mkdocs.__main__ import cli
    from mkdocs.structure import pages
    from pymdownx import highlight

    times: Counter = Counter()
    current: list[str] = []
    wrapped = {
        "exec": _wrap(exec_python, "_run_python", "exec", times, current),
        "highlight": _wrap(highlight.Highlight, "highlight", "highlight", times, current),
        "search": _wrap(search.SearchIndex, "add_entry_from_context", "search", times, current)
        and _wrap(search.SearchIndex, "generate_search_index", "search", times, current),
    }
    render = pages.Page.render

    def page_render(self, *args, **kwargs):
        current[:] = [self.file.src_uri]
        start = time.perf_counter()
        try:
            return render(self, *args, **kwargs)
        finally:
            times["render"] += time.perf_counter() - start

    pages.Page.render = page_render
    # torch is imported here, not by the first block that needs it, so that its cost is a
    # row of its own; the build does the same work either way (one interpreter, one import).
    start = time.perf_counter()
    import torch  # noqa: F401

    times["torch"] = time.perf_counter() - start
    start = time.perf_counter()
    cli(["build", "--strict", "--quiet", "--site-dir", str(site)], standalone_mode=False)
    build = time.perf_counter() - start
    times["build"] = build
    times["markdown"] = times["render"] - times["exec"] - times["highlight"]
    times["rest"] = build - times["render"] - times["search"]
    result = {key: (value if wrapped.get(key, True) else None) for key, value in times.items()}
    out.write_text(json.dumps(result))


def _build(tree: Path) -> dict[str, float | None]:
    with tempfile.TemporaryDirectory() as tmp:
        out, site = Path(tmp) / "times.json", Path(tmp) / "site"
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, str(HERE), "--child", str(out), str(site)], cwd=tree, check=True
        )
        wall = time.perf_counter() - start
        times = json.loads(out.read_text())
    times["wall"] = wall
    # Everything outside the build itself and torch: the interpreter, mkdocs' imports.
    times["startup"] = wall - times["build"] - times["torch"]
    return times


def _median(runs: list[dict], key: str) -> float | None:
    values = [r.get(key) for r in runs]
    if not values or any(v is None for v in values):
        return None
    return statistics.median(values)


def measure(trees: dict[str, Path], runs: int) -> dict:
    """Build each tree `runs` times, alternating; the medians of every phase, per tree."""
    load = os.getloadavg()
    results: dict[str, list[dict]] = {name: [] for name in trees}
    for n in range(runs):
        for name, tree in trees.items():
            results[name].append(_build(tree))
            print(f"run {n + 1}/{runs} {name}: {results[name][-1]['wall']:.1f} s", file=sys.stderr)
    keys = sorted({k for runs_ in results.values() for r in runs_ for k in r})
    return {
        "date": datetime.date.today().isoformat(),
        "cpus": os.cpu_count(),
        "load": [round(x, 2) for x in load],
        "runs": runs,
        "medians": {name: {k: _median(results[name], k) for k in keys} for name in trees},
        "walls": {name: [round(r["wall"], 2) for r in results[name]] for name in trees},
    }


def render(summary: dict, *, least: float = 0.0) -> str:
    """`measure`'s result as a Markdown table; pages whose blocks took under `least` s left out."""
    names = list(summary["medians"])
    medians = summary["medians"]

    def cell(name: str, key: str) -> str:
        value = medians[name].get(key)
        return "n/a" if value is None else f"{value:.1f} s"

    lines = [
        f"| phase (median of {summary['runs']} builds) | " + " | ".join(names) + " |",
        "| --- |" + " ---: |" * len(names),
    ]
    for label, key in ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(n, key) for n in names) + " |")
    pages = sorted(k for k in medians[names[0]] if k.startswith("exec:"))
    for key in pages:
        if max((medians[n].get(key) or 0.0) for n in names) < least:
            continue
        page = key.removeprefix("exec:")
        lines.append(
            f"| ... executed blocks of `{page}` | " + " | ".join(cell(n, key) for n in names) + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="builds per tree (default 5)")
    parser.add_argument("--baseline", type=Path, help="another checkout to alternate with")
    parser.add_argument("--label", default="baseline", help="the baseline's column title")
    parser.add_argument("--child", type=Path, nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help="also write the medians to this JSON file")
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: at least one build is needed")
    trees = {"this tree": ROOT}
    if args.baseline:
        if not (args.baseline / "mkdocs.yml").is_file():
            parser.error(f"--baseline {args.baseline}: no mkdocs.yml there")
        trees[args.label] = args.baseline.resolve()
    summary = measure(trees, args.runs)
    print(render(summary))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1) + "\n")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
