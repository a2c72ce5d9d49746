"""What the learner's venv needs, read from pyproject.toml's [dependency-groups] (stdlib only).

`nox -s learn` installs these and writes them to `.nox/learn/katas-requirements.txt`;
`python -m katas` compares that stamp with `stamp()` before it trusts the venv, and nox skips
the slow `pip install` when they match.
"""

from __future__ import annotations

from dojo import _toml  # tomllib, or tomli on Python 3.10
from dojo.catalogue import ROOT

STAMP = "katas-requirements.txt"
LEARN_GROUPS = ("test", "learn")


def group(name: str, groups: dict | None = None) -> list[str]:
    """A dependency group with its `include-group`s expanded (PEP 735)."""
    if groups is None:
        with (ROOT / "pyproject.toml").open("rb") as f:
            groups = _toml.load(f)["dependency-groups"]
    out = []
    for item in groups[name]:
        out += group(item["include-group"], groups) if isinstance(item, dict) else [item]
    return out


def learn() -> list[str]:
    return [req for name in LEARN_GROUPS for req in group(name)]


def stamp() -> str:
    return "\n".join(learn()) + "\n"
