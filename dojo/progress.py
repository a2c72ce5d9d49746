"""Where a learner stands: a pytest plugin that sums up each kata's tests in catalogue order.

With `--impl katas` (the default), a test that fails only because a stub still raises
NotImplementedError gets a one-line report instead of a traceback, and the run ends with a table:
done, in progress or not started, and what to do next.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from dojo import catalogue as _catalogue

_stats: dict[str, dict[str, int]] = defaultdict(
    lambda: {"passed": 0, "failed": 0, "todo": 0, "skipped": 0}
)


def _kata_name(nodeid: str) -> str | None:
    kata = _catalogue.of_test(nodeid)
    return kata.name if kata else None


def _learner_mode(config: pytest.Config) -> bool:
    return config.getoption("impl") == "katas" and config.getoption("impl_file") is None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    excinfo = call.excinfo
    kata = _catalogue.of_test(item.nodeid)
    if report.failed and kata and excinfo is not None and kata.unwritten(excinfo.value):
        report.user_properties.append(("not_implemented", str(excinfo.value)))
        if _learner_mode(item.config):
            report.longrepr = (
                f"NotImplementedError: {excinfo.value} (not written yet: katas/{kata.name}.py)"
            )
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    name = _kata_name(report.nodeid)
    if name is None or not (report.when == "call" or report.outcome != "passed"):
        return
    counts = _stats[name]
    if report.skipped:
        counts["skipped"] += 1
    elif report.failed:
        todo = any(key == "not_implemented" for key, _ in report.user_properties)
        counts["todo" if todo else "failed"] += 1
    else:
        counts["passed"] += 1


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """For learners, a test that only hit an unwritten stub is "not written", not a failure
    with a traceback: the failures section then holds only real mistakes."""
    if (
        _learner_mode(config)
        and report.failed
        and any(key == "not_implemented" for key, _ in report.user_properties)
    ):
        return "not written", "n", "NOT WRITTEN"
    return None


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config):
    """The table comes last, after pytest's own summaries, where a learner looks."""
    try:
        return (yield)
    finally:
        if _learner_mode(config):
            _progress_table(terminalreporter)


def _progress_table(terminalreporter) -> None:
    stats = _stats
    if not stats:
        return
    tr = terminalreporter
    tr.section("your katas")
    next_up = None
    for kata in _catalogue.katas():
        if kata.name not in stats:
            continue
        c = stats[kata.name]
        if c["failed"]:
            state = f"in progress: {c['failed']} failing, {c['todo']} not written"
        elif c["todo"] and c["passed"]:
            state = f"in progress: {c['todo']} tests wait for unwritten functions"
        elif c["todo"]:
            state = "not started"
        else:
            state = "done"
        if state != "done" and next_up is None:
            next_up = kata
        skipped = f" ({c['skipped']} cuda tests skipped)" if c["skipped"] else ""
        tr.write_line(f"{kata.number}. {kata.name:<18} {state}{skipped}")
    if next_up is None:
        tr.write_line("All katas that ran are done. Well done!")
    else:
        tr.write_line("")
        tr.write_line(
            f"Next: katas/{next_up.name}.py ({next_up.title}). Read docs/katas/{next_up.name}.md, "
            f"check it alone with `nox -s learn -- tests/test_{next_up.name}.py`, "
            f"and run `python -m katas hint {next_up.name}` when stuck."
        )
