"""The notebook for learners without a GPU: `notebooks/gpu-katas.ipynb` (Colab, Kaggle).

It gets the repository (a clone of its public address where one is known, else an uploaded
zip, else a checkout named by KATAS_CHECKOUT: what CI uses), puts the test tools beside the
runtime's own torch as `nox -s tests-cuda` does (an overlay folder first on PYTHONPATH, never
touching the runtime's packages), lets the learner write a kata in a cell, runs `python -m katas
check` on it, whose cuda tests run wherever torch sees a GPU, and runs the GPU benchmarks the
pages talk about. It says which torch ran, and what differs from the pinned release.

The notebook is generated, as the stubs are: `python -m dojo.notebook write` writes it (with
the address in KATAS_REPO_URL baked in, when set), `check` fails when the file differs,
`execute` runs it with a real Jupyter kernel (nbclient) on this machine, the repository taken
from this checkout, not the network (`nox -s notebook`, in CI).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from dojo import catalogue as _catalogue
from dojo import cuda_env

ROOT = _catalogue.ROOT
PATH = ROOT / "notebooks" / "gpu-katas.ipynb"
KATA = "device_selection"  # the kata the notebook's cell holds: the first one


def repo_url(environ=os.environ) -> str:
    """The repository's public address (the site's KATAS_REPO_URL); "" while it has none."""
    return environ.get("KATAS_REPO_URL", "").strip().removesuffix("/").removesuffix(".git")


def colab_url(url: str) -> str | None:
    """Colab opens notebooks from GitHub: the link for a github.com address, else None."""
    found = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+)", url)
    if not found:
        return None
    owner, repo = found.groups()
    return (
        f"https://colab.research.google.com/github/{owner}/{repo}/blob/main/"
        f"{PATH.relative_to(ROOT).as_posix()}"
    )


def newest_torch() -> str:
    """NEWEST_TORCH from the noxfile (read as text: nox is not installed in a notebook)."""
    found = re.search(r'^NEWEST_TORCH = "([\d.]+)"', (ROOT / "noxfile.py").read_text(), re.M)
    return found.group(1) if found else "?"


def torch_notes(version: str) -> list[str]:
    """What differs, where it matters to the katas, between `version` and the pin."""
    have = cuda_env.version_tuple(version)[:2]
    pin = cuda_env.version_tuple(cuda_env.TORCH_PIN)[:2]
    newest = cuda_env.version_tuple(newest_torch())[:2]
    if have == pin:
        return [f"torch {version} is the pinned release: every page was checked against it."]
    notes = [
        f"torch {version} is not the pinned {cuda_env.TORCH_PIN}: the pages' outputs were made "
        f"with the pin; the tests are checked on 2.11 to {newest_torch()}."
    ]
    if have < (2, 11):
        notes.append("It is older than any release the tests are checked on: expect surprises.")
    if have > newest:
        notes.append(f"It is newer than {newest_torch()}, the newest release checked.")
    if have < (2, 13):
        notes.append(
            "An int32 target for cross_entropy reads 'expected scalar type Long but found Int' "
            "(2.13: 'expected target dtype to be Long or Byte, but got Int'); mismatch_errors "
            "classifies both."
        )
    if have >= (2, 15):
        notes.append(
            "Shape errors start with the op's name ('mm: mat1 and mat2 shapes cannot be "
            "multiplied'; 'addmm: ...' from nn.Linear); mismatch_errors classifies both."
        )
    return notes


# --- the cells --------------------------------------------------------------------------------

INTRO = """# PyTorch GPU Katas on a free GPU

The katas run on any laptop, but their **cuda tier** (the tests marked `cuda`) needs an NVIDIA
GPU. This notebook runs them on the GPU of a hosted notebook: in Colab, *Runtime → Change runtime
type → GPU* (T4) first; in Kaggle, *Settings → Accelerator → GPU*.

It uses the runtime's own torch, which is usually not the release the katas pin: the second cell
says which ran and what differs. Nothing here changes the runtime's packages: the test tools go
into a folder of their own, first on `PYTHONPATH`, as `nox -s tests-cuda` does on a GPU host."""

GET_REPO = """import os, pathlib, shutil, subprocess, sys, zipfile

REPO_URL = {url!r}  # the repository's public address ("" while it has none)
HERE = pathlib.Path(os.environ.get("KATAS_NOTEBOOK_DIR") or
                    ("/content" if pathlib.Path("/content").is_dir() else ".")).resolve()
REPO = HERE / "pytorch-gpu-katas"
CHECKOUT = os.environ.get("KATAS_CHECKOUT", "")  # a checkout on this machine (CI sets it)

if (REPO / "dojo").is_dir():
    print(f"using {{REPO}} as it is")
elif CHECKOUT:
    shutil.copytree(CHECKOUT, REPO, ignore=shutil.ignore_patterns(
        ".git", ".nox", "site", "__pycache__", ".hypothesis", ".katas-*", "bench-results"))
    print(f"copied the checkout {{CHECKOUT}} to {{REPO}}")
elif REPO_URL:
    subprocess.run(["git", "clone", "--depth", "1", REPO_URL, str(REPO)], check=True)
else:
    zips = sorted(HERE.glob("*.zip"))
    if not zips:
        raise SystemExit(
            "No copy of the repository. Upload one as a zip (Files pane, on the left), made "
            "with: git archive --format=zip --prefix=pytorch-gpu-katas/ -o pytorch-gpu-katas.zip "
            "HEAD ; then run this cell again.")
    with zipfile.ZipFile(zips[-1]) as archive:
        archive.extractall(HERE / "unpacked")
    found = next(p.parent for p in (HERE / "unpacked").rglob("dojo") if p.is_dir())
    shutil.move(str(found), REPO)
    print(f"unpacked {{zips[-1].name}} to {{REPO}}")
os.chdir(REPO)
sys.path.insert(0, str(REPO))"""

TOOLS = """import torch
from dojo import cuda_env, notebook

# The test tools this runtime lacks, or has too old, into an overlay folder (never its packages).
overlay = cuda_env.overlay_dir()
if overlay.is_dir():
    sys.path.insert(0, str(overlay))  # what an earlier run installed there counts
plan = cuda_env.plan_tools(cuda_env.requirements(), overlay=str(overlay))
for note in plan.notes:
    print(note)
if plan.install:
    why = cuda_env.install(str(overlay), plan.install)
    if why:
        raise SystemExit(why)
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(overlay), str(REPO), os.environ.get("PYTHONPATH", "")) if p)

gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, GPU: {gpu or 'none'}")
for line in notebook.torch_notes(torch.__version__):
    print(line)
if gpu is None:
    print("No GPU: the cuda tests show as skipped (Colab: Runtime > Change runtime type).")"""

WRITE = """## Write a kata

The next cell is `katas/{kata}.py` as it comes: replace each `raise NotImplementedError(...)`
with your code, then run the cell (it saves the file) and the one after it (it checks it). Its
page explains the ideas: `python -m katas docs {kata}` on your machine, or the site. Another
kata: change the file name and paste its stub (`katas/NAME.py`, in the Files pane)."""

CHECK = """KATA = "{kata}"
done = subprocess.run([sys.executable, "-m", "katas", "check", KATA],
                      capture_output=True, text=True, env=dict(os.environ))
print(done.stdout[-6000:], done.stderr[-2000:])
print("done: every test passed" if done.returncode == 0 else "not done yet (see above)")"""

BENCH_INTRO = """## The numbers the pages talk about

Host-to-device copies from pageable and pinned memory, and a training loop that calls `.item()`
every step against one that keeps its log on the device: measured on this GPU (a minute or two
at full size; without a GPU they are listed as skipped)."""

BENCH = """out = REPO / "bench-results"
command = [sys.executable, "-m", "benchmarks", "--only", "h2d_bandwidth",
           "--only", "item_logging", "--out", str(out)]
subprocess.run(command + ([] if torch.cuda.is_available() else ["--smoke"]), check=False)
from benchmarks import report
print(report.results_table(report.load(out / "results.json")))"""


def _cell(kind: str, text: str, index: int) -> dict:
    lines = text.splitlines(keepends=True)
    cell = {"cell_type": kind, "id": f"cell-{index}", "metadata": {}, "source": lines}
    if kind == "code":
        cell |= {"execution_count": None, "outputs": []}
    return cell


def build(url: str = "") -> dict:
    from dojo import source

    stub = source.stub_text(_catalogue.get(KATA))
    cells = [
        ("markdown", INTRO),
        ("code", GET_REPO.format(url=url)),
        ("code", TOOLS),
        ("markdown", WRITE.format(kata=KATA)),
        ("code", f"%%writefile katas/{KATA}.py\n{stub}"),
        ("code", CHECK.format(kata=KATA)),
        ("markdown", BENCH_INTRO),
        ("code", BENCH),
    ]
    cells = [_cell(kind, source, i) for i, (kind, source) in enumerate(cells)]
    return {
        "cells": cells,
        "metadata": {
            "accelerator": "GPU",
            "colab": {"provenance": []},
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def text(url: str = "") -> str:
    return json.dumps(build(url), indent=1, ensure_ascii=False) + "\n"


def execute(path: Path = PATH, timeout: int = 600) -> int:
    """Run the notebook with a real kernel, in a temporary folder, the repository copied from
    this checkout; fail on the first cell that raises. Prints each code cell's output."""
    import nbclient
    import nbformat

    nb = nbformat.reads(path.read_text(), as_version=4)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ |= {"KATAS_CHECKOUT": str(ROOT), "KATAS_NOTEBOOK_DIR": tmp}
        client = nbclient.NotebookClient(
            nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": tmp}}
        )
        try:
            client.execute()
        except nbclient.exceptions.CellExecutionError as err:
            print(f"dojo.notebook: a cell failed:\n{err}")
            return 1
        finally:
            for i, cell in enumerate(nb.cells):
                for output in cell.get("outputs", []):
                    shown = output.get("text") or output.get("data", {}).get("text/plain", "")
                    print(f"--- cell {i}:\n{''.join(shown)}".rstrip())
        written = Path(tmp, "pytorch-gpu-katas", "katas", f"{KATA}.py")
        if not written.is_file():
            print(f"dojo.notebook: the writing cell left no {written}")
            return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dojo.notebook", description=__doc__)
    parser.add_argument("command", choices=("write", "check", "execute"))
    args = parser.parse_args(argv)
    want = text(repo_url())
    if args.command == "write":
        PATH.parent.mkdir(exist_ok=True)
        PATH.write_text(want)
        print(f"wrote {PATH.relative_to(ROOT)}")
        return 0
    if args.command == "check":
        if not PATH.is_file() or PATH.read_text() != want:
            print(
                f"{PATH.relative_to(ROOT)} differs from what python -m dojo.notebook write makes "
                "(a stub or the notebook's code changed, or KATAS_REPO_URL): run it and commit"
            )
            return 1
        return 0
    return execute()


if __name__ == "__main__":
    sys.exit(main())
