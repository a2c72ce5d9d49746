"""TOML for every Python the tool runs on: the standard library's `tomllib` (3.11+), else
`tomli`, the same parser as a package.

On Python 3.10, tomli is where the tool runs: nox requires it below 3.11 (the noxfile reads
pyproject.toml in nox's own process), `nox -s tests-cuda` puts it in the overlay it prepares
for an env that lacks it (dojo/cuda_env.py), and pip ships a copy (pip 21.2 and later), which
the doctor and the first hop of `python -m katas` use in an env that has nothing else.
Importing this module never fails; reading, with no parser at all, raises `NoReader`.
"""

from __future__ import annotations

import sys
from typing import IO, Any

try:
    import tomllib as _parser
except ModuleNotFoundError:  # Python 3.10
    try:
        import tomli as _parser
    except ModuleNotFoundError:
        try:
            from pip._vendor import tomli as _parser  # pip's own copy: the same parser
        except ImportError:
            _parser = None


class NoReader(ImportError):
    """This Python reads no TOML: no tomllib, no tomli."""


def _parser_or_say_so():
    if _parser is None:
        version = ".".join(map(str, sys.version_info[:2]))
        raise NoReader(
            f"Python {version} ({sys.executable}) has no TOML reader: tomllib comes with Python "
            f"3.11; here, install tomli (`{sys.executable} -m pip install tomli`) or use "
            "Python 3.11 or newer"
        )
    return _parser


def load(f: IO[bytes]) -> dict[str, Any]:
    return _parser_or_say_so().load(f)


def loads(text: str) -> dict[str, Any]:
    return _parser_or_say_so().loads(text)
