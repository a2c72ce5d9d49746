"""Turn a results file into tables (for the docs page) and a figure (the PNG beside it).

Stdlib only at import time: the docs build renders the tables without running a benchmark, and
matplotlib is imported only to draw.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "docs" / "benchmarks" / "results.json"


def load(path: Path | str = COMMITTED) -> dict:
    return json.loads(Path(path).read_text())


# --- tables for the page ----------------------------------------------------------------------


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def machine_table(data: Mapping) -> str:
    """A two-column markdown table: what the run ran on."""
    m = data["machine"]
    t = m["torch"]
    build = f"{t['version']} (git {t['git']}), BLAS {t['blas']}, CPU kernels {t['cpu_capability']}"
    build += f", CUDA {t['cuda']}" if t.get("cuda") else ", no CUDA"
    gpus = "; ".join(
        f"{g['name']} (sm {g['capability']}, {g['memory_gib']} GiB, PCIe gen {g['pcie']['gen']} "
        f"x{g['pcie']['width']})"
        for g in m["gpus"]
    )
    load = data.get("load", {})
    rows = [
        ("CPU", m["cpu"]),
        ("cores", f"{m['cores']} ({m['cores_usable']} usable, torch threads: {t['threads']})"),
        *[(f"`{k}`", v) for k, v in t.get("env", {}).items()],
        ("GPU", gpus or "none"),
        ("torch", build),
        ("Python", m["python"]),
        ("OS", m["os"]),
        ("date (UTC)", m["date"]),
        ("mode", data["mode"] + f" ({data['seconds']:.0f} s)"),
    ]
    if load.get("before") and load.get("after"):
        rows.append(
            ("load average (1 min)", f"{load['before'][0]} before, {load['after'][0]} after")
        )
    lines = ["| machine | |", "| --- | --- |"]
    lines += [f"| {_cell(k)} | {_cell(v)} |" for k, v in rows]
    return "\n".join(lines)


def results_table(data: Mapping) -> str:
    """One row per experiment: its headline figure, or why it was skipped."""
    lines = ["| experiment | device | result |", "| --- | --- | --- |"]
    for name, result in data["experiments"].items():
        lines.append(
            f"| `{name}` | {_cell(result.get('device', 'cpu'))} | {_cell(result['headline'])} |"
        )
    for skip in data["skipped"]:
        lines.append(f"| `{skip['name']}` | cuda | skipped: {_cell(skip['reason'])} |")
    return "\n".join(lines)


# --- drawing (matplotlib only from here on) ---------------------------------------------------


def bytes_ticks(ax) -> None:
    """Label a log2 x axis of bytes as 4 KiB, 1 MiB, ... instead of 2^12, 2^20."""
    from matplotlib.ticker import FuncFormatter

    from benchmarks.timing import human_bytes

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human_bytes(v)))


def lines(
    ax,
    result: Mapping,
    *,
    x: Callable[[Mapping], float],
    cases: Iterable[str],
    title: str,
    xlabel: str,
    ylabel: str = "seconds per call (median, IQR band)",
    bytes_axis: bool = False,
) -> None:
    """Median per case over sizes on log-log axes, with the interquartile range as a band."""
    xs = [x(r) for r in result["rows"]]
    for case in cases:
        stats = [r["cases"][case] for r in result["rows"]]
        ax.plot(xs, [s["median"] for s in stats], marker="o", ms=3, label=case)
        ax.fill_between(xs, [s["q1"] for s in stats], [s["q3"] for s in stats], alpha=0.25)
    ax.set_xscale("log", base=2)
    if bytes_axis:
        bytes_ticks(ax)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")


def bars(
    ax,
    result: Mapping,
    *,
    group: Callable[[Mapping], str],
    title: str,
    ylabel: str,
    logy: bool = False,
) -> None:
    """Grouped bars: the median per case and group, with min-max whiskers."""
    rows = result["rows"]
    cases = list(rows[0]["cases"])
    width = 0.8 / len(cases)
    for j, case in enumerate(cases):
        stats = [r["cases"][case] for r in rows]
        xs = [i + (j - (len(cases) - 1) / 2) * width for i in range(len(rows))]
        med = [s["median"] for s in stats]
        err = [[s["median"] - s["min"] for s in stats], [s["max"] - s["median"] for s in stats]]
        ax.bar(xs, med, width, yerr=err, capsize=3, label=case)
    ax.set_xticks(range(len(rows)), [group(r) for r in rows])
    if logy:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")


def _machine_line(data: Mapping) -> str:
    m = data["machine"]
    t = m["torch"]
    gpu = ", ".join(g["name"] for g in m["gpus"]) or "no GPU"
    return (
        f"{m['cpu']}, {m['cores']} cores, {gpu}; torch {t['version']} "
        f"({t['threads']} thread{'s' if t['threads'] != 1 else ''}), {m['python']}; "
        f"{m['date']}; {data['mode']} mode"
    )


def figure(data: Mapping, plotters: Mapping[str, Callable], path: Path) -> Path | None:
    """Draw one panel per experiment that ran and has a plotter; write a PNG to `path`."""
    names = [n for n in data["experiments"] if n in plotters]
    if not names:
        return None
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    cols = min(3, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows + 0.9), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        plotters[name](ax, data["experiments"][name])
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    notes = [_machine_line(data)]
    for reason in dict.fromkeys(s["reason"] for s in data["skipped"]):
        names = ", ".join(s["name"] for s in data["skipped"] if s["reason"] == reason)
        notes.append(f"skipped ({reason}): {names}")
    fig.text(0.01, 0.005, "\n".join(notes), fontsize=8, va="bottom", ha="left", color="0.3")
    fig.tight_layout(rect=(0, 0.06 if rows == 1 else 0.035, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def copy_sizes_table(runs: Mapping[str, Mapping], sizes: Iterable[int]) -> str:
    """`x.to(x.device, copy=True)` medians per run and size: how torch threads changed a copy."""
    from benchmarks.timing import human_bytes

    sizes = list(sizes)
    lines = [
        "| run | " + " | ".join(human_bytes(n) for n in sizes) + " |",
        "| --- |" + " ---: |" * len(sizes),
    ]
    for label, data in runs.items():
        rows = {r["bytes"]: r for r in data["experiments"]["same_device_to"]["rows"]}
        cells = [
            f"{rows[n]['cases']['x.to(x.device, copy=True)']['median'] * 1e6:,.0f} µs"
            for n in sizes
        ]
        lines.append(f"| {_cell(label)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
