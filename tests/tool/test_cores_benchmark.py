"""The cores benchmark (`python -m benchmarks.cores`): run by hand, figures committed
(docs/benchmarks/cores.json); here its report, and that it never times a run that failed."""

from __future__ import annotations

import json

import pytest

from benchmarks import cores
from dojo import catalogue, runner, verify

pytestmark = pytest.mark.cpu


def test_the_table_shows_both_arms_and_how_they_were_run():
    data = {
        "katas": ["mixed_precision", "memory"],
        "files": 7,
        "parallel": 2,
        "cores": 2,
        "threads": {"default": 2, "shared": 1},
        "rounds": 3,
        "load_1min": 1.9,
        "median": {"default": 11.3, "shared": 6.6},
    }
    text = cores.table(data)
    assert "| 2 (torch's default: one per core) | 11.3 s |" in text
    assert "| 1 (its share: `share_cores`) | 6.6 s |" in text
    assert "7 solution files of mixed_precision, memory, 2 children at a time" in text


def test_committed_figures_are_readable():
    data = json.loads(cores.OUT.read_text())
    assert data["threads"]["shared"] < data["threads"]["default"], data["threads"]
    assert cores.table(data)


def test_a_file_that_fails_stops_the_benchmark_instead_of_being_timed():
    kata = catalogue.get("device_selection")
    mistake = sorted(kata.mistakes.glob("*.py"))[0]
    tests = str(kata.tests.relative_to(catalogue.ROOT))
    names = [f"{tests}::{t}" for t in verify.caught_by(mistake)]
    runner.warm_up()
    with pytest.raises(SystemExit, match="did not pass"):
        cores.corpus_seconds([[f"--impl-file={mistake.relative_to(catalogue.ROOT)}", *names]], 1, 1)
