"""The set-up benchmark's report (`python -m benchmarks.setup`); running it takes minutes and
fresh clones, so it is run by hand and its figures committed (docs/benchmarks/setup.json)."""

from __future__ import annotations

import json

import pytest

from benchmarks import setup

pytestmark = pytest.mark.cpu


def test_the_table_shows_each_measure_for_each_backend():
    data = {
        "rounds": 3,
        "cores": 2,
        "load_1min": 1.5,
        "median": {
            "uv": {"first_verdict_s": 9.0, "nox_s": 250.0, "nox_dir_bytes": 1.2e9},
            "pip": {"first_verdict_s": 50.0, "nox_s": 500.0, "nox_dir_bytes": 5.8e9},
        },
    }
    text = setup.table(data)
    assert "| fresh clone to first verdict (s) | 9.0 | 50.0 |" in text
    assert "| `.nox/` afterwards (GB) | 1.20 | 5.80 |" in text
    assert "Medians of 3 rounds" in text


def test_a_quick_run_shows_only_what_it_measured():
    median = {"uv": {"first_verdict_s": 8.0}, "pip": {"first_verdict_s": 40.0}}
    data = {"rounds": 1, "cores": 2, "load_1min": 0.5, "median": median}
    text = setup.table(data)
    assert "first verdict" in text and "nox/" not in text


def test_a_measure_taken_for_one_backend_only_says_so_for_the_other():
    median = {"uv": {"first_verdict_s": 8.0, "nox_s": 300.0}, "pip": {"first_verdict_s": 40.0}}
    text = setup.table({"rounds": 1, "cores": 2, "load_1min": 0.5, "median": median})
    assert "| `nox` (s) | 300.0 | not measured |" in text


def test_committed_figures_if_any_are_readable():
    if not setup.OUT.is_file():
        pytest.skip("no committed set-up figures yet (python -m benchmarks.setup)")
    data = json.loads(setup.OUT.read_text())
    assert {"uv", "pip"} <= set(data["median"]), data["median"].keys()
    assert setup.table(data)


def test_ci_and_the_full_round_are_shown_and_said_to_be_one_round():
    median = {"uv": {"first_verdict_s": 8.0, "nox_s": 240.0, "ci_s": 320.0}, "pip": {}}
    data = {"rounds": 3, "cores": 2, "load_1min": 0.5, "full": True, "ci": True, "median": median}
    text = setup.table(data)
    assert "| `.ci/run` (s) | 320.0 | not measured |" in text
    assert "the first round only; `.ci/run`: one run" in text
