"""The GPU runs committed under docs/benchmarks/, for the Benchmarks page.

`python3 -m dojo.gpu_run` leaves an archive of one folder, `gpu-run-<GPU>-<time>/`, holding
`results.json` (the GPU experiments, as `python -m benchmarks` writes them) and `machine.json`
(the host as the run read it: GPU, driver, torch, CUDA, cuDNN). Unpacked into docs/benchmarks/
and committed, its figures appear on the page, each run naming where it came from; with none,
the page says that no GPU figure has been measured. Nothing here invents a number.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from benchmarks.report import COMMITTED, _cell
from benchmarks.timing import human_bytes

DIRECTORY = COMMITTED.parent


@dataclass
class Run:
    folder: Path
    results: dict
    machine: dict

    def where(self) -> str:
        """ "NVIDIA H100 80GB HBM3 (sm_90), driver 580.159.04, torch 2.11.0+cu130 (CUDA 13.0)"."""
        gpus = self.machine.get("gpus") or [{}]
        gpu = gpus[0].get("name", "unknown GPU")
        cap = gpus[0].get("capability")
        cap = f" (sm_{cap[0]}{cap[1]})" if cap else ""
        more = f" and {len(gpus) - 1} more" if len(gpus) > 1 else ""
        cuda = self.machine.get("torch_cuda")
        return (
            f"{gpu}{cap}{more}, driver {self.machine.get('driver') or 'unknown'}, torch "
            f"{self.machine.get('torch', '?')}" + (f" (CUDA {cuda})" if cuda else "")
        )


def find(directory: Path = DIRECTORY) -> list[Run]:
    """Every committed run's folder that holds both files, oldest first (by name: the time)."""
    runs = []
    for folder in sorted(directory.glob("gpu-run-*")):
        results, machine = folder / "results.json", folder / "machine.json"
        if results.is_file() and machine.is_file():
            runs.append(
                Run(folder, json.loads(results.read_text()), json.loads(machine.read_text()))
            )
    return runs


def skipped_sentence(data: Mapping) -> str:
    """What the run shown on the page could not run, counted from its own file."""
    skipped = data.get("skipped", [])
    if not skipped:
        return "Every experiment ran on this machine."
    n = len(skipped)
    names = "GPU experiment" + ("s are" if n > 1 else " is")
    return (
        f"This machine had no usable GPU, so {'the ' if n > 1 else ''}{n} {names} listed as "
        "skipped, each with the reason."
    )


def _h2d_table(result: Mapping) -> list[str]:
    link = result.get("link") or {}
    limit = link.get("gb_per_s")
    what = (
        f"PCIe gen {link.get('gen')} x{link.get('width')}: {limit:.1f} GB/s per direction"
        if limit
        else f"PCIe link unknown ({_cell(link.get('source', 'not read'))})"
    )
    modes = list(result["rows"][0]["gb_per_s"]) if result.get("rows") else []
    lines = [
        f"Host-to-device copies, GB/s (10⁹ bytes/s), beside the physical limit: {what}.",
        "",
        "| size | " + " | ".join(modes) + (" | link |" if limit else " |"),
        "| ---: | " + " | ".join("---:" for _ in modes) + (" | ---: |" if limit else " |"),
    ]
    for row in result.get("rows", []):
        cells = [f"{row['gb_per_s'][m]:.2f}" for m in modes]
        lines.append(
            f"| {human_bytes(row['bytes'])} | "
            + " | ".join(cells)
            + (f" | {limit:.1f} |" if limit else " |")
        )
    return lines


def section(directory: Path = DIRECTORY) -> str:
    """The page's GPU figures: one block per committed run, or the plain statement that there
    is none."""
    runs = find(directory)
    if not runs:
        return (
            "**No GPU figure has been measured yet.** Every number on this page comes from a "
            "CPU. The GPU experiments below show their figures here once a GPU host's run is "
            "committed (`python3 -m dojo.gpu_run`, then its folder under `docs/benchmarks/`; "
            "see [GPU hosts](../gpu-hosts/))."
        )
    out = []
    for run in runs:
        exps = run.results.get("experiments", {})
        out += [f"**Measured on {run.where()}** (`docs/benchmarks/{run.folder.name}/`).", ""]
        if "h2d_bandwidth" in exps:
            out += [*_h2d_table(exps["h2d_bandwidth"]), ""]
        out += ["| experiment | result |", "| --- | --- |"]
        out += [f"| `{name}` | {_cell(exp['headline'])} |" for name, exp in exps.items()]
        for skip in run.results.get("skipped", []):
            out.append(f"| `{skip['name']}` | not measured: {_cell(skip['reason'])} |")
        for fail in run.results.get("failed", []):
            out.append(f"| `{fail['name']}` | failed: {_cell(fail['error'])} |")
        out.append("")
    return "\n".join(out)
