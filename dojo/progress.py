"""Where a learner stands: a pytest plugin that sums up each kata's tests in catalogue order.

It counts, per kata, the tests that pass, fail, wait for an unwritten function ("not written":
the stub's NotImplementedError, turned into a one-line report by the harness) or are skipped,
and keeps the failure messages. `python -m katas check|watch|list` read `snapshot()`; a plain
`pytest` run with `--impl katas` (the default) ends with a table of the same counts.
"""

from __future__ import annotations

import pytest

from dojo import catalogue as _catalogue


def _empty() -> dict:
    return {
        "passed": 0,
        "failed": 0,
        "not_written": 0,
        "skipped": 0,
        "messages": [],
        "unwritten": [],
        "problem": "",
    }


_stats: dict[str, dict] = {}


def snapshot() -> dict[str, dict]:
    """Counts and messages per kata name, for the runner (plain data: it crosses a pipe)."""
    return {name: dict(counts) for name, counts in _stats.items()}


def _learner_mode(config: pytest.Config) -> bool:
    return config.getoption("impl") == "katas" and config.getoption("impl_file") is None


def _not_written(report: pytest.TestReport) -> str | None:
    return next(
        (v for k, v in getattr(report, "user_properties", ()) if k == "not_implemented"), None
    )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    kata = _catalogue.of_test(report.nodeid)
    if kata is None or not (report.when == "call" or report.outcome != "passed"):
        return
    counts = _stats.setdefault(kata.name, _empty())
    if report.skipped:
        counts["skipped"] += 1
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        if "does not import" in reason:
            counts["problem"] = reason.removeprefix("Skipped: ").split(" (reported once")[0]
    elif report.failed:
        unwritten = _not_written(report)
        if unwritten:
            counts["not_written"] += 1
            function = unwritten.removeprefix("NotImplementedError: ").split(" (")[0]
            if function not in counts["unwritten"]:
                counts["unwritten"].append(function)
        else:
            counts["failed"] += 1
            text = report.longreprtext.strip()
            if text.startswith("could not import"):
                counts["problem"] = text.partition(". Fix that first")[0]
            elif text not in counts["messages"]:
                counts["messages"].append(text)
    else:
        counts["passed"] += 1


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """For learners, a test that only hit an unwritten stub is "not written", not a failure
    with a traceback: the failures section then holds only real mistakes."""
    if _learner_mode(config) and report.failed and _not_written(report):
        return "not written", "n", "NOT WRITTEN"
    return None


def state(counts: dict) -> str:
    """done, in progress or not started, from one kata's counts."""
    if counts["problem"]:
        return "does not import"
    if counts["failed"] or (counts["passed"] and counts["not_written"]):
        return "in progress"
    if counts["not_written"]:
        return "not started"
    return "done" if counts["passed"] else "no test ran"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config):
    """The table comes last, after pytest's own summaries, where a learner looks."""
    try:
        return (yield)
    finally:
        if _learner_mode(config) and _stats:
            _progress_table(terminalreporter)


def _progress_table(tr) -> None:
    tr.section("your katas")
    katas = _catalogue.katas()
    for kata in katas:
        if kata.name in _stats:
            c = _stats[kata.name]
            skipped = f" ({c['skipped']} cuda tests skipped)" if c["skipped"] else ""
            tr.write_line(f"{kata.number:>2}. {kata.name:<18} {state(c)}{skipped}")
    ran_undone = [k for k in katas if k.name in _stats and state(_stats[k.name]) != "done"]
    next_up = ran_undone[0] if ran_undone else _catalogue.after(max(_stats, key=_number))
    tr.write_line("")
    if next_up is None:
        tr.write_line("Every kata that ran is done, and it was the last one. Well done!")
    else:
        tr.write_line(
            f"Next: {next_up.number}. {next_up.name} ({next_up.title}): open "
            f"katas/{next_up.name}.py, then `python -m katas check {next_up.name}`."
        )


def _number(name: str) -> int:
    return _catalogue.get(name).number
