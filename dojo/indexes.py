"""Where `nox -s learn` gets its packages, and whether this machine reaches them (stdlib only:
the noxfile imports it).

When the install stops, uv prints its own error ("dns error: failed to lookup address
information", a timeout, a refused connection). `install_failed` says in words which package
index could not be reached, why, and what to run instead.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping
from urllib.parse import urlparse

PYTORCH = "download.pytorch.org"
PYPI = "pypi.org"
# uv's settings that name where packages come from, and how each separates its URLs
_URL_SETTINGS = {
    "UV_DEFAULT_INDEX": " ",
    "UV_INDEX_URL": " ",
    "UV_INDEX": " ",
    "UV_EXTRA_INDEX_URL": " ",
    "UV_FIND_LINKS": ",",
}


def sources(environ: Mapping[str, str] = os.environ) -> list[tuple[str, str, str]]:
    """(host, what it is, the setting that names it) for every package source these settings
    send uv to, each host once, in order; PyPI's setting is ""."""
    found: list[tuple[str, str, str]] = []
    backend = environ.get("UV_TORCH_BACKEND", "").strip()
    if backend:
        what = f"PyTorch's own package index, where UV_TORCH_BACKEND={backend} sends uv for torch"
        found.append((PYTORCH, what, "UV_TORCH_BACKEND"))
    if not (environ.get("UV_DEFAULT_INDEX") or environ.get("UV_INDEX_URL")):
        found.append((PYPI, "PyPI, the default package index", ""))
    for name, sep in _URL_SETTINGS.items():
        for url in environ.get(name, "").split(sep):
            url = url.strip()
            if "=" in url.split("://", 1)[0]:  # UV_INDEX entries may be named: name=https://...
                url = url.split("=", 1)[1]
            host = urlparse(url).hostname
            if host:
                what = "PyTorch's own package index" if host == PYTORCH else "a package index"
                found.append((host, f"{what}, from {name}", name))
    return found


def reach(host: str, timeout: float = 5.0) -> str:
    """Why `host` does not answer on port 443, in a few words; "" when it does."""
    try:
        address = socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM)[0][4]
    except socket.gaierror:
        return "its name does not resolve: no DNS answer"
    except (OSError, UnicodeError) as err:
        return f"{err}"
    try:
        with socket.create_connection(address[:2], timeout=timeout):
            return ""
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except OSError as err:
        return err.strerror or type(err).__name__


def install_failed(
    environ: Mapping[str, str] = os.environ, reach: Callable[[str], str] = reach
) -> str:
    """What to tell a learner whose `nox -s learn` install stopped: which source could not be
    reached and what to run instead; or, where every source answers, that uv said why."""
    hosts: dict[str, tuple[str, list[str]]] = {}
    for host, what, setting in sources(environ):
        hosts.setdefault(host, (what, []))[1].append(setting)
    failed = {host: why for host in hosts if (why := reach(host))}
    if not failed:
        return (
            "The install stopped; uv's message above says why. The package indexes it uses ("
            + ", ".join(hosts)
            + ") answer from here, so `nox -s learn` again may be all it takes."
        )
    lines = [
        f"The install stopped: {host} ({hosts[host][0]}) cannot be reached from this machine "
        f"({why})."
        for host, why in failed.items()
    ]
    lines.append(
        "A firewall, a proxy or no network stands in the way. Behind a proxy, set "
        "HTTPS_PROXY=http://HOST:PORT (uv reads it) and run `nox -s learn` again."
    )
    if PYTORCH in failed and PYPI in hosts and PYPI not in failed:
        settings = [s for s in hosts[PYTORCH][1] if s]
        for uv_name, pip_name in (("UV_EXTRA_INDEX_URL", "PIP_EXTRA_INDEX_URL"),):
            if uv_name in settings and environ.get(pip_name):
                settings.append(pip_name)  # the noxfile carries pip's setting over to uv's
        unset = " ".join(f"-u {s}" for s in settings)
        lines.append(
            f"PyPI answers: `env {unset} nox -s learn` takes torch from there instead (on "
            "Linux that is the CUDA build, several GB; on macOS and Windows, the CPU one). The "
            "README's 'Set up' compares the two."
        )
    return "\n".join(lines)
