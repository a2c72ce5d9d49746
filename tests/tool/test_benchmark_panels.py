"""The Benchmarks page's charts: one SVG per experiment, drawn from the committed results."""

from __future__ import annotations

import pytest

from benchmarks import available, report

pytestmark = pytest.mark.cpu


def _plotters() -> dict:
    return report.plotters(available())


def test_committed_panels_are_a_redraw_of_the_committed_results(tmp_path):
    """A new results.json without `python -m benchmarks.report` would leave stale charts."""
    pytest.importorskip("matplotlib", reason="needs matplotlib (the bench dependency group)")
    data = report.load()
    drawn = report.panels(data, _plotters(), tmp_path)
    assert drawn, "the committed run has no experiment with a chart"
    for path in drawn:
        committed = report.COMMITTED.parent / path.name
        assert committed.is_file(), f"{committed} is missing: run python -m benchmarks.report"
        assert committed.read_text() == path.read_text(), (
            f"{committed} is not what the committed results.json draws: "
            "run python -m benchmarks.report"
        )


def test_a_panel_reads_in_both_colour_schemes_and_inline(tmp_path):
    """currentColor ink, no background, text as text, and no line Markdown would misread."""
    pytest.importorskip("matplotlib", reason="needs matplotlib (the bench dependency group)")
    data = report.load()
    name = next(iter(data["experiments"]))
    (path,) = report.panels({**data, "experiments": {name: data["experiments"][name]}},
                            _plotters(), tmp_path)  # fmt: skip
    svg = path.read_text()
    assert svg.startswith("<svg ") and 'role="img"' in svg and "<title>" in svg
    assert "currentColor" in svg and "#010101" not in svg
    assert "<text" in svg, "text drawn as paths cannot be measured or read by a screen reader"
    assert "fill: #ffffff" not in svg and "fill: white" not in svg, "a white box in dark mode"
    assert all(line and not line[0].isspace() for line in svg.splitlines())
