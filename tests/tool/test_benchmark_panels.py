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


def _drawn_byte_labels(sizes: list[int]) -> tuple[dict[float, str], list]:
    """A site panel whose x axis is `sizes` bytes: each tick's label, and the drawn labels'
    extents."""
    matplotlib = pytest.importorskip("matplotlib", reason="needs matplotlib (bench group)")
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    with matplotlib.rc_context(report._panel_style()):
        fig, ax = plt.subplots(figsize=report.PANEL_INCHES)
        ax.plot(sizes, [1.0] * len(sizes), marker="o")
        ax.set_xscale("log", base=2)
        report.bytes_ticks(ax, sizes)
        fig.tight_layout()
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ticks = zip(ax.get_xticks(), ax.get_xticklabels(), strict=True)
        labels = {loc: t.get_text() for loc, t in ticks}
        boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
        plt.close(fig)
    return labels, boxes


@pytest.mark.parametrize("count", [8, 10])
def test_a_bytes_axis_labels_its_sizes_up_to_the_largest_and_none_overlap(count):
    """matplotlib's own ticks fell every factor of 8: "32 KiB" ran into "256 KiB" and the
    largest size, 64 MiB, had no label. 8 sizes (views.py's 4 KiB to 64 MiB) are each labelled;
    10 (transfer.py's 4 KiB to 1 GiB), every other one, always the largest."""
    sizes = [4096 * 4**k for k in range(count)]
    labels, boxes = _drawn_byte_labels(sizes)
    assert sorted(labels) == sizes, f"ticks at {sorted(labels)}, not at the sizes measured"
    assert labels[sizes[-1]] in ("64\nMiB", "1\nGiB"), labels
    named = [size for size in sizes if labels[size]]
    assert len(named) == (count if count <= report.BYTES_LABELS else count // 2), labels
    overlaps = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if a.overlaps(b)]
    assert not overlaps, f"labels run into each other: {labels}"
