"""The machine the tests run on: a pytest plugin (loaded by the root conftest.py).

- The session header says what the machine is. On a GPU host it is one block: torch and its
  CUDA, the driver, each GPU (name, capability, memory), `CUDA_VISIBLE_DEVICES`, and the
  warnings CUDA raised when it started; elsewhere it is one line.
- When the cuda tier is selected and torch sees a GPU, CUDA starts once, at session start,
  inside `warnings.catch_warnings(record=True)` (`dojo.cuda_env.probe`): the warnings it raises
  about the machine (a GPU the wheel has no kernels for, NVML, ...) go to the header, not into
  whichever test happens to touch CUDA first.
- In cuda-tier tests, exactly the host warnings of `dojo.cuda_env.HOST_WARNINGS` (matched by
  message, category and module) are ignored; any other warning stays an error where a test
  module says `filterwarnings("error")`. The filters are added inside each test's own warning
  context, after its marks: a module's "error" mark would override an ini or `-W` filter.
- `--gpu-report FILE` writes the header and the results to FILE, for a bug report;
  `nox -s tests-cuda` always writes gpu-report.txt.
"""

from __future__ import annotations

import datetime
import subprocess
import warnings
from pathlib import Path

import pytest

from dojo import catalogue as _catalogue
from dojo import cuda_env

UTC = datetime.timezone.utc  # noqa: UP017 (datetime.UTC is new in 3.11; hosts run 3.10 too)
_HOST = pytest.StashKey[cuda_env.Host]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("katas").addoption(
        "--gpu-report",
        metavar="FILE",
        type=Path,
        default=None,
        help="write the host header and the results to FILE, to attach to a bug report",
    )


def _cuda_tier_selected(config: pytest.Config) -> bool:
    if config.getoption("require_cuda", default=False) or config.getoption("gpu_report"):
        return True
    expr = config.getoption("markexpr", default="") or ""
    return not expr or "cuda" in expr


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("gpu_report")
    if path is not None and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Report(config, path), "dojo-gpu-report")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Start CUDA now, where a GPU is there and the cuda tier will run (never for -m cpu: a
    process that has started CUDA must not fork, and cpu-tier DataLoaders fork workers)."""
    import torch

    if _cuda_tier_selected(session.config) and torch.cuda.is_available():
        session.config.stash[_HOST] = cuda_env.probe()


def _host(config: pytest.Config) -> cuda_env.Host:
    if _HOST not in config.stash:
        config.stash[_HOST] = cuda_env.probe() if _cuda_tier_selected(config) else _light()
    return config.stash[_HOST]


def _light() -> cuda_env.Host:
    """What can be said without starting CUDA."""
    import torch

    return cuda_env.Host(torch=torch.__version__, torch_cuda=torch.version.cuda)


def pytest_report_header(config: pytest.Config) -> list[str]:
    host = _host(config)
    if not (host.available or host.init_error or host.warnings):
        line = f"torch {host.torch} (" + (
            f"built for CUDA {host.torch_cuda})" if host.torch_cuda else "CPU-only build)"
        )
        if not _cuda_tier_selected(config):
            return [line + (": CUDA not started, cpu tier only" if host.torch_cuda else "")]
        return [line + ": no CUDA device, the cuda tier is skipped"]
    return ["cuda tier host:", *(f"  {line}" for line in host.header())]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Inside pytest's warning context for the item (its hook is tryfirst, so it wraps this
    one): host warnings are ignored in cuda-tier tests only."""
    if item.get_closest_marker("cuda") is None:
        return (yield)
    with warnings.catch_warnings():
        cuda_env.ignore_host_warnings()
        return (yield)


# --- the report file --------------------------------------------------------------------------


class _Report:
    """Registered by pytest_configure when --gpu-report is given (on xdist's controller, which
    receives every worker's reports)."""

    def __init__(self, config: pytest.Config, path: Path) -> None:
        self.config, self.path = config, path
        self.collected: list[str] = []
        self.lines: dict[str, list[str]] = {}  # outcome -> one line per test
        self.details: list[str] = []

    @pytest.hookimpl(trylast=True)  # after `-m` has deselected
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.collected = [item.nodeid for item in items]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" and report.passed:
            return
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            outcome, line = "skipped", f"SKIPPED {report.nodeid}: {reason}"
        elif report.failed:
            outcome = "failed" if report.when == "call" else "error"
            line = f"{outcome.upper()} {report.nodeid} (at {report.when})"
            self.details += [f"--- {line}", report.longreprtext.rstrip(), ""]
        else:
            outcome, line = "passed", f"PASSED {report.nodeid}"
        self.lines.setdefault(outcome, []).append(line)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.path.write_text(self.text(int(exitstatus)))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        terminalreporter.write_line(
            f"cuda tier report: {self.path} (attach it to a bug report)", bold=True
        )

    def text(self, exitstatus: int) -> str:
        host = _host(self.config)
        counts = ", ".join(f"{len(v)} {k}" for k, v in self.lines.items()) or "no test ran"
        lines = [
            "PyTorch GPU Katas: cuda tier report (attach this file to a bug report)",
            f"written: {datetime.datetime.now(UTC):%Y-%m-%d %H:%M UTC}",
            f"repository: {_commit()}",
            f"command: pytest {' '.join(self.config.invocation_params.args)}",
            "",
            "== host ==",
            *host.header(),
        ]
        for seen in host.warnings:
            lines += ["", f"-- warning at CUDA start ({seen.category} from {seen.module}):"]
            lines += [seen.message.strip()]
        if self.config.getoption("collectonly"):
            lines += ["", f"== collected {len(self.collected)} tests (--collect-only) =="]
            lines += self.collected
        else:
            lines += ["", f"== results: {counts} (pytest exit status {exitstatus}) =="]
            for outcome in ("failed", "error", "skipped", "passed"):
                lines += self.lines.get(outcome, [])
            if self.details:
                lines += ["", "== failures ==", *self.details]
        return "\n".join(lines) + "\n"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(_catalogue.ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"
