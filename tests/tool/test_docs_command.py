"""`python -m katas docs`: the site served from the venv the learner already has, on a port it
checks first, by a server that stops with it, at a kata's page or, once done, its discussion."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dojo import catalogue as _catalogue
from dojo import cli

pytestmark = pytest.mark.cpu


class _Served:
    """Stands in for the server: records its command, ends at once."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], dict]] = []

    def __call__(self, command, **kwargs):
        self.calls.append((command, kwargs))
        served = self

        class Server:
            pid = 0

            def wait(self, timeout=None):
                return 0

            def poll(self):
                return 0

        served.server = Server()
        return served.server


@pytest.fixture
def served(monkeypatch) -> _Served:
    fake = _Served()
    monkeypatch.setattr(subprocess, "Popen", fake)
    return fake


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_docs_serves_the_site_from_this_venv_and_names_the_page(served, capsys):
    port = _free_port()
    assert cli.main(["docs", "view", "--port", str(port)]) == 0
    (command, kwargs), = served.calls  # fmt: skip
    assert command[:4] == [sys.executable, "-m", "mkdocs", "serve"], command
    assert f"127.0.0.1:{port}" in command, "the site is served on this machine only"
    assert kwargs["cwd"] == cli.ROOT
    assert f"http://127.0.0.1:{port}/katas/view_vs_reshape/" in capsys.readouterr().out


def test_the_message_promises_no_build_time(served, capsys):
    """A first build took 36 s, later ones 10 to 16 s, on one machine: no figure holds."""
    cli.main(["docs", "--port", str(_free_port())])
    out = capsys.readouterr().out
    assert "about 10 s" not in out and "Serving on" in out, out


def test_discussion_serves_the_site_at_the_katas_discussion(served, capsys, monkeypatch, tmp_path):
    """The URL of a kata's discussion (SPEC-25 §1), whether or not its page is built."""
    page = tmp_path / "docs" / "discussions" / "view_vs_reshape.md"
    page.parent.mkdir(parents=True)
    page.write_text("# a discussion\n")
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    port = _free_port()
    assert cli.main(["docs", "view", "--discussion", "--port", str(port)]) == 0
    assert f"http://127.0.0.1:{port}/discussions/view_vs_reshape/" in capsys.readouterr().out


def test_discussion_without_a_kata_or_a_page_says_so(served, capsys, monkeypatch, tmp_path):
    assert cli.main(["docs", "--discussion"]) == 2
    assert "NAME --discussion" in capsys.readouterr().err
    monkeypatch.setattr(cli, "ROOT", tmp_path)  # a checkout without the discussion page
    assert cli.main(["docs", "view", "--discussion"]) == 1
    err = capsys.readouterr().err
    assert "docs/discussions/view_vs_reshape.md" in err and "Traceback" not in err, err
    assert served.calls == []


def test_docs_without_the_site_tools_says_how_to_get_them(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mkdocs" else real(name, *a)
    )
    assert cli.main(["docs"]) == 1
    err = capsys.readouterr().err
    assert "nox -s learn" in err and "Traceback" not in err


def test_docs_with_an_unknown_kata_suggests_one(monkeypatch, capsys):
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("served anyway"))
    assert cli.main(["docs", "view_vs_reshpe"]) == 2
    assert "view_vs_reshape" in capsys.readouterr().err


def test_a_port_in_use_gets_one_line_before_any_build(monkeypatch, capsys):
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("built anyway"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["docs", "view", "--port", str(port)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "", "nothing is built or promised"
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert f"port {port} is taken" in err and "--port " in err, err
    other = int(err.rsplit("--port ", 1)[1])
    with socket.socket() as sock:  # the port it suggests is free
        sock.bind(("127.0.0.1", other))


def test_a_port_that_is_no_port_is_refused(monkeypatch, capsys):
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("built anyway"))
    assert cli.main(["docs", "--port", "70000"]) == 2
    assert "no port" in capsys.readouterr().err


def test_the_server_process_keeps_its_traceback_as_python_prints_it():
    """The distributed page starts a process group in the server (markdown-exec runs its
    examples there), and torch's init_process_group then prefixes every later traceback of
    that process with "[rank0]: ", once per group started. docs/hooks.py puts the hook back
    after each page."""
    import torch.distributed as dist

    hooks = _hooks()
    hooks._command = "serve"  # as in `mkdocs serve`: no gc.freeze() in this test process
    before = sys.excepthook
    hooks.on_page_markdown("# a page\n", _Page("katas_not/x.md"), {}, None)
    with _a_group_of_one():
        assert sys.excepthook is not before, "torch no longer wraps the hook: update this test"
    hooks.on_page_content("<p>x</p>", _Page("katas_not/x.md"), {}, None)
    assert sys.excepthook is before
    assert not dist.is_initialized()


class _File:
    def __init__(self, src_uri: str) -> None:
        self.src_uri = src_uri


class _Page:
    def __init__(self, src_uri: str) -> None:
        self.file = _File(src_uri)


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", cli.ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _a_group_of_one():
    import tempfile

    import torch.distributed as dist

    with tempfile.TemporaryDirectory() as tmp:
        dist.init_process_group(
            "gloo", init_method=(Path(tmp) / "rendezvous").as_uri(), rank=0, world_size=1
        )
        try:
            yield
        finally:
            dist.destroy_process_group()


# --- stopped by a signal: the server goes with it ---------------------------------------------

FAKE_SERVER = textwrap.dedent(
    """
    import os, socket, sys, time
    port = int(sys.argv[1])
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen()
    print("serving", os.getpid(), flush=True)
    while True:
        time.sleep(1)
    """
)

DOCS_WITH_A_FAKE_SERVER = textwrap.dedent(
    """
    import sys
    from dojo import cli
    cli._serve_command = lambda address: [
        sys.executable, "-c", sys.argv[2], address.rsplit(":", 1)[1]
    ]
    sys.exit(cli.main(["docs", "--port", sys.argv[1]]))
    """
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _start_docs(port: int) -> tuple[subprocess.Popen, int]:
    """`python -m katas docs` with a stand-in server, started as a service would start it: no
    terminal, a session of its own. Returns it and its server's pid, once the server serves."""
    docs = subprocess.Popen(
        [sys.executable, "-c", DOCS_WITH_A_FAKE_SERVER, str(port), FAKE_SERVER],
        cwd=cli.ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    for line in docs.stdout:
        if line.startswith("serving"):
            return docs, int(line.split()[1])
    docs.wait(60)
    pytest.fail(f"the stand-in server never served: {docs.stderr.read()}")


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_the_server_and_frees_the_port(sig):
    port = _free_port()
    docs, server = _start_docs(port)
    try:
        os.kill(docs.pid, sig)
        code = docs.wait(60)  # it waits for its server before it exits
        assert code == 128 + sig, (code, docs.stderr.read())
        assert not _alive(server), "the server outlived python -m katas docs"
        assert "Traceback" not in docs.stderr.read()
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", port))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(docs.pid, signal.SIGKILL)
        docs.wait(60)


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_even_a_kill_that_no_handler_sees_takes_the_server_down():
    docs, server = _start_docs(_free_port())
    try:
        os.kill(docs.pid, signal.SIGKILL)
        docs.wait(60)
        # The server is sent SIGTERM as its parent dies; wait for that, not for a time.
        _wait_until_gone(server)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(docs.pid, signal.SIGKILL)


def _wait_until_gone(pid: int) -> None:
    import time

    for _ in range(600):  # a hang guard only: it ends as soon as the server is gone
        if not _alive(pid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    pytest.fail("the server outlived a killed python -m katas docs")


def test_readme_says_what_docs_does():
    readme = " ".join((_catalogue.ROOT / "README.md").read_text().split())
    assert "--discussion" in readme
