"""`nox -s learn` where a package index is out of reach (a firewall, a proxy, no network): it
says which index, why, and what to run instead, not only uv's raw DNS error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from dojo import indexes

pytestmark = pytest.mark.cpu


def _no_dns(unreachable: set[str]):
    return lambda host: "its name does not resolve: no DNS answer" if host in unreachable else ""


def test_pytorchs_index_out_of_reach_says_so_and_how_to_take_torch_from_pypi():
    words = indexes.install_failed(
        {"UV_TORCH_BACKEND": "cpu"}, reach=_no_dns({"download.pytorch.org"})
    )
    first = words.splitlines()[0]
    assert "download.pytorch.org" in first and "UV_TORCH_BACKEND=cpu" in first, words
    assert "does not resolve" in first
    assert "HTTPS_PROXY" in words
    assert "`env -u UV_TORCH_BACKEND nox -s learn`" in words and "CUDA build" in words


def test_the_cpu_index_set_the_pip_way_is_named_with_both_settings():
    cpu = "https://download.pytorch.org/whl/cpu"
    environ = {"PIP_EXTRA_INDEX_URL": cpu, "UV_EXTRA_INDEX_URL": cpu}  # the noxfile carried it
    words = indexes.install_failed(environ, reach=_no_dns({"download.pytorch.org"}))
    assert "from UV_EXTRA_INDEX_URL" in words
    assert "`env -u UV_EXTRA_INDEX_URL -u PIP_EXTRA_INDEX_URL nox -s learn`" in words, words


def test_pypi_out_of_reach_too_offers_no_pypi_way_round():
    words = indexes.install_failed(
        {"UV_TORCH_BACKEND": "cpu"}, reach=_no_dns({"download.pytorch.org", "pypi.org"})
    )
    assert "pypi.org" in words and "env -u" not in words, words


def test_every_index_answering_points_to_uvs_own_message():
    words = indexes.install_failed({"UV_TORCH_BACKEND": "cpu"}, reach=_no_dns(set()))
    assert "uv's message above" in words and "download.pytorch.org, pypi.org" in words, words


def test_a_named_index_and_find_links_are_read_as_uv_reads_them():
    found = indexes.sources(
        {
            "UV_DEFAULT_INDEX": "https://mirror.example/simple",
            "UV_INDEX": "torch=https://download.pytorch.org/whl/cpu",
            "UV_FIND_LINKS": "https://a.example/wheels,https://b.example/",
        }
    )
    assert [(h, s) for h, _, s in found] == [
        ("mirror.example", "UV_DEFAULT_INDEX"),
        ("download.pytorch.org", "UV_INDEX"),
        ("a.example", "UV_FIND_LINKS"),
        ("b.example", "UV_FIND_LINKS"),
    ]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("uv") is None, reason="checks nox's uv backend")
def test_learn_with_an_index_that_does_not_resolve_says_what_happened(tmp_path):
    """The real session, with an index under .invalid (a name that never resolves, RFC 6761):
    uv's DNS error, then the sentence."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_", "KATAS_", "PYTEST"))
    }
    unreachable = "https://pypi.invalid/simple"
    env.update(UV_INDEX_URL=unreachable, PIP_INDEX_URL=unreachable, UV_HTTP_RETRIES="0")
    result = subprocess.run(
        [sys.executable, "-m", "nox", "-s", "learn", "--envdir", str(tmp_path / "envs")],
        cwd=indexes.__file__.rsplit("/dojo/", 1)[0],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert "pypi.invalid (a package index, from UV_INDEX_URL) cannot be reached" in out, out
    assert "Traceback" not in out
