"""Read `dojo/catalogue.toml`, the one list of katas: their order, titles, hint ladders and
pitfalls."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from dojo import _toml  # tomllib, or tomli on Python 3.10

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = Path(__file__).with_name("catalogue.toml")


@dataclass(frozen=True)
class Hint:
    """One rung of a kata's hint ladder: what it is about (its title) and its text."""

    about: str
    text: str


STUB_KINDS = ("hole", "fix")
"""A stub is a hole to fill (the default) or a program to fix (`# STUB`, dojo/source.py)."""


@dataclass(frozen=True)
class Pitfall:
    """The mistake a learner who has not met the lesson most likely makes first: a file of the
    mistake corpus, and the lesson its failure message teaches; the pitfall's own test (which
    every first attempt of tests/first_attempts/<name>/ must fail), and the kind of stub."""

    mistake: str
    lesson: str
    test: str = ""
    stub: str = "hole"

    def __post_init__(self) -> None:
        if self.stub not in STUB_KINDS:
            raise ValueError(
                f"[kata.pitfall] stub = {self.stub!r}: it is one of {', '.join(STUB_KINDS)}"
            )


HINT_RUNGS = 4
"""Every kata's ladder: 1. the question to ask; 2. the torch feature; 3. the shape of a
solution; 4. close to the code."""


@dataclass(frozen=True)
class Kata:
    number: int
    name: str
    title: str
    summary: str
    hints: tuple[Hint, ...]
    pitfall: Pitfall | None = None
    resolves: tuple[str, ...] = ()
    """The calls and facts that resolve the kata: never on its kata page or in given code."""
    subject: tuple[str, ...] = ()
    """The kata's own subject (`nn.DataParallel`): allowed anywhere, even if it resolves."""
    time_limit: float | None = None  # seconds one check may take; None: the tool's default

    def __repr__(self) -> str:  # short, so a failing self-check does not print every hint
        return f"Kata({self.name!r})"

    @property
    def stub(self) -> Path:
        return ROOT / "katas" / f"{self.name}.py"

    @property
    def reference(self) -> Path:
        return ROOT / "reference" / f"{self.name}.py"

    @property
    def tests(self) -> Path:
        return ROOT / "tests" / f"test_{self.name}.py"

    @property
    def page(self) -> Path:
        """The kata page, read before the attempt: the task, the stub, background."""
        return ROOT / "docs" / "katas" / f"{self.name}.md"

    @property
    def discussion(self) -> Path:
        """The discussion page, read after: ideas, hints, tests, mistakes, solutions."""
        return ROOT / "docs" / "discussions" / f"{self.name}.md"

    @property
    def mistakes(self) -> Path:
        return ROOT / "tests" / "mistakes" / self.name

    @property
    def first_attempts(self) -> Path:
        """Natural first attempts, written from the kata page and the stub: each must fail
        the pitfall's test with its message."""
        return ROOT / "tests" / "first_attempts" / self.name

    @property
    def fix(self) -> bool:
        """Is the stub a program to fix rather than a hole to fill?"""
        return self.pitfall is not None and self.pitfall.stub == "fix"

    @property
    def solutions(self) -> Path:
        """Correct solutions written differently from the reference: all must pass."""
        return ROOT / "tests" / "solutions" / self.name

    def unwritten(self, err: BaseException) -> bool:
        """Is `err` this kata's stub saying "not written yet"? Stubs raise NotImplementedError
        naming the kata first, which tells it from torch's own ("Cannot copy out of meta")."""
        return isinstance(err, NotImplementedError) and str(err).startswith(f"{self.name}: ")

    def hint_ref(self, n: int) -> str:
        """Where a learner reads hint `n`, as said in test failure messages."""
        about = self.hints[n - 1].about if 1 <= n <= len(self.hints) else ""
        title = f', "{about}"' if about else ""  # one level of brackets: learners lost a second
        return f"hint {n}{title}: python -m katas hint {self.name} {n}"


@cache
def katas() -> tuple[Kata, ...]:
    """All katas in catalogue order."""
    with CATALOGUE.open("rb") as f:
        entries = _toml.load(f)["kata"]
    return tuple(
        Kata(
            number=i,
            name=e["name"],
            title=e["title"],
            summary=e["summary"],
            hints=tuple(Hint(about=h["about"], text=h["text"]) for h in e["hints"]),
            pitfall=Pitfall(**e["pitfall"]) if "pitfall" in e else None,
            resolves=tuple(e.get("resolves", ())),
            subject=tuple(e.get("subject", ())),
            time_limit=e.get("time_limit"),
        )
        for i, e in enumerate(entries, start=1)
    )


def of_test(where: str) -> Kata | None:
    """The kata whose tests live at `where`: a module name (`tests.test_<name>`), a path
    (`tests/test_<name>.py`) or a pytest node id; None for any other file."""
    stem = where.split("::", 1)[0].removesuffix(".py").replace("/", ".").rpartition(".")[2]
    if not stem.startswith("test_"):
        return None
    return next((k for k in katas() if k.name == stem.removeprefix("test_")), None)


def get(name: str) -> Kata:
    """The kata called `name`, or an unambiguous prefix of its name (`view` for
    `view_vs_reshape`); otherwise a ValueError that suggests the closest name."""
    names = [k.name for k in katas()]
    if name in names:
        return katas()[names.index(name)]
    starts = [n for n in names if n.startswith(name)] if name else []
    if len(starts) == 1:
        return katas()[names.index(starts[0])]
    if len(starts) > 1:
        raise ValueError(f"{name!r} could be any of {', '.join(starts)}: say which")
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    suggestion = f"Did you mean {close[0]!r}? " if close else ""
    raise ValueError(f"no kata called {name!r}. {suggestion}The katas are: {', '.join(names)}")


def after(name: str) -> Kata | None:
    """The kata that comes after `name` in the catalogue, or None after the last one."""
    number = get(name).number
    return katas()[number] if number < len(katas()) else None
