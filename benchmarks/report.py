"""Turn a results file into tables (for the docs page), a figure (the PNG beside it) and one
SVG panel per experiment (for the site).

Stdlib only at import time: the docs build renders the tables without running a benchmark, and
matplotlib is imported only to draw. `python -m benchmarks.report [RESULTS]` redraws the SVG
panels of a results file (the committed one by default) without measuring anything.
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


# At most this many byte sizes are labelled side by side; past it, every other one.
BYTES_LABELS = 8


def bytes_ticks(ax, sizes: Iterable[float]) -> None:
    """Label a log2 x axis of bytes at the sizes measured, as 4 KiB, 1 MiB, ... instead of
    2^12, 2^20.

    matplotlib's own ticks fell every factor of 8 from the first size: "32 KiB" and "256 KiB"
    ran into each other in a phone's column, and the last size measured, 64 MiB, had none.
    Here every size measured has a tick, each label is the number over its unit (narrow enough
    for 8 side by side in the site's panel), and past BYTES_LABELS sizes every other one is
    labelled, counting back from the largest, so the end of the range always is."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    from benchmarks.timing import human_bytes

    sizes = sorted(set(sizes))
    step = 1 if len(sizes) <= BYTES_LABELS else 2
    labelled = set(sizes[::-1][::step])
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(
        FuncFormatter(lambda v, _: human_bytes(v).replace(" ", "\n") if v in labelled else "")
    )


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
        bytes_ticks(ax, xs)
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
        # Whiskers in the text's colour (matplotlib's default is black: unseen in dark mode).
        ax.bar(xs, med, width, yerr=err, capsize=3, label=case, ecolor=_ink())
    # Group labels wrap, so that two side by side do not run into each other in a phone's
    # column, and the y axis leaves room above the tallest whisker for the legend, so that it
    # covers no bar.
    ax.set_xticks(range(len(rows)), [_wrap(group(r), 16) for r in rows])
    highest = max(r["cases"][case]["max"] for r in rows for case in cases)
    room = 1 + 0.16 * len(cases)
    if logy:
        ax.set_yscale("log")
        lowest = ax.get_ylim()[0]
        ax.set_ylim(lowest, highest * (highest / lowest) ** (room - 1))
    else:
        ax.set_ylim(0, highest * room)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left")


def _ink() -> str:
    import matplotlib

    return matplotlib.rcParams["text.color"]


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


# The site's panels: drawn in currentColor on no background, so an inline SVG takes the page's
# text colour in light and dark mode; text stays text (not paths), at sizes that read at 12 px
# or more in a phone's 358 px column.
PANEL_INCHES = (4.2, 3.4)
PANEL_FONT_PT = 11.5
_INK = "#010101"  # drawn as this, then replaced by currentColor


def _panel_style() -> dict:
    return {
        "svg.fonttype": "none",
        "svg.hashsalt": "pytorch-gpu-katas",  # the same ids every time: a redraw is a no-op
        "font.size": PANEL_FONT_PT,
        "axes.titlesize": PANEL_FONT_PT,
        "axes.labelsize": PANEL_FONT_PT,
        "xtick.labelsize": PANEL_FONT_PT - 1,
        "ytick.labelsize": PANEL_FONT_PT - 1,
        "legend.fontsize": PANEL_FONT_PT - 1,
        "text.color": _INK,
        "axes.labelcolor": _INK,
        "axes.edgecolor": _INK,
        "xtick.color": _INK,
        "ytick.color": _INK,
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.facecolor": "none",
        "legend.framealpha": 0.0,
        "legend.edgecolor": "none",
        # Colours that read on white and on Material's slate.
        "axes.prop_cycle": __import__("cycler").cycler(color=["#1e88e5", "#ff7043", "#43a047"]),
    }


def plotters(experiments: Iterable) -> dict[str, Callable]:
    """Each experiment's panel-drawing function, by name, for those that have one."""
    return {e.name: plot for e in experiments if (plot := e.plotter())}


def panels(data: Mapping, plotters: Mapping[str, Callable], directory: Path) -> list[Path]:
    """One SVG per experiment that ran and has a plotter, written to `directory/<name>.svg`."""
    names = [n for n in data["experiments"] if n in plotters]
    if not names:
        return []
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    with matplotlib.rc_context(_panel_style()):
        for name in names:
            fig, ax = plt.subplots(figsize=PANEL_INCHES)
            plotters[name](ax, data["experiments"][name])
            _plain_log_ticks(ax)
            if legend := ax.get_legend():  # the plotters ask for "small": too small here
                for text in legend.get_texts():
                    text.set_fontsize(PANEL_FONT_PT - 1)
            ax.set_title(_wrap(ax.get_title(), 40))
            ax.set_ylabel(_wrap(ax.get_ylabel(), 32))
            fig.tight_layout()
            path = directory / f"{name}.svg"
            fig.savefig(path, format="svg", metadata={"Date": None})
            plt.close(fig)
            _inline(path, data["experiments"][name].get("title", name))
            written.append(path)
    return written


def _plain_log_ticks(ax) -> None:
    """Log axes labelled 1e-06 rather than 10 to the power -6: matplotlib draws an exponent as
    smaller text, below 12 px in a phone's column."""
    from matplotlib.ticker import FuncFormatter, LogFormatter, NullFormatter

    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log" and isinstance(axis.get_major_formatter(), LogFormatter):
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            axis.set_minor_formatter(NullFormatter())


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) if text else text


def _inline(path: Path, title: str) -> None:
    """Make matplotlib's SVG a figure for a page: no XML prologue, sized by its column,
    currentColor for ink, and a title for screen readers (and the site's diagram checks)."""
    import html
    import re

    svg = path.read_text()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', r"<svg \1", svg, count=1)
    svg = svg.replace(
        "<svg ",
        '<svg role="img" style="display:block;width:100%;max-width:480px;height:auto;'
        'margin:0 auto" ',
        1,
    )
    svg = svg.replace(">", f"><title>{html.escape(title)}</title>", 1)
    svg = svg.replace(_INK, "currentColor")
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, flags=re.S)
    # A page includes it inline: Markdown ends a raw HTML block at a blank line and reads an
    # indented line as code, so no line may be blank or indented.
    lines = (line.strip() for line in svg.splitlines())
    path.write_text("\n".join(line for line in lines if line) + "\n")


def panels_html(data: Mapping, directory: Path = COMMITTED.parent) -> str:
    """The committed SVG panel of every experiment in `data` that has one, for the page."""
    shown = []
    for name in data["experiments"]:
        path = directory / f"{name}.svg"
        if path.is_file():
            shown.append(f'<div class="diagram">\n{path.read_text()}</div>')
    return "\n".join(shown)


def main(argv: list[str] | None = None) -> int:
    """Redraw the SVG panels of a results file (default: the committed one), beside it."""
    import sys

    from benchmarks import available

    args = sys.argv[1:] if argv is None else argv
    results = Path(args[0]) if args else COMMITTED
    for path in panels(load(results), plotters(available()), results.parent):
        print(f"wrote {path}")
    return 0


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


if __name__ == "__main__":
    raise SystemExit(main())
