"""The harness every kata's tests run on (a plugin, loaded by the root conftest.py).

- `--impl katas|reference|stubs` picks the package under test (default: `katas`, your own
  code; `stubs` is the stubs generated from the references, in memory: dojo/source.py);
  `--impl-file PATH` loads one file instead (the mistake corpus uses it).
- The `kata` fixture is the module under test; tests call functions through it. A name set or
  patched on it is set in the module too, so the kata's code sees it however it imported
  the name; `patched(owner, attr, fake)` patches a library (`torch.cuda.device_count`) and
  every name a kata bound to it (`from torch.cuda import device_count`).
- The `device` fixture runs a test once on cpu (marked `cpu`) and once on cuda (marked `cuda`,
  skipped with "needs a CUDA device" unless `--require-cuda`, which makes that an error).
- Every test ends up marked `cpu` or `cuda`, never both, never neither.
- Global torch state (default dtype and device, grad mode, anomaly mode) is restored after
  every test.
- Hypothesis profiles: `dev` (default), `ci`, `thorough`, `quick` (the learner tool's first pass);
  pick one with KATAS_HYPOTHESIS_PROFILE.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import importlib.util
import inspect
import os
import re
import shutil
import sys
import tempfile
import traceback
import types
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
import torch
from hypothesis import Phase, settings

from dojo import catalogue as _catalogue
from dojo.runner import share_cores

PROFILE_VAR = "KATAS_HYPOTHESIS_PROFILE"
# No "explain" phase: its "lines always run by failing cases" report is noise for learners.
PHASES = [p for p in Phase if p is not Phase.explain]
COMMON = {"deadline": None, "report_multiple_bugs": False, "phases": PHASES}
settings.register_profile("dev", **COMMON)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **COMMON)
settings.register_profile("thorough", max_examples=2000, **COMMON)
# `check` and `watch` answer first with a quick pass, then confirm with `dev`.
settings.register_profile("quick", max_examples=8, **COMMON)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("katas")
    group.addoption(
        "--impl",
        choices=("katas", "reference", "stubs"),
        default="katas",
        help="which package to test: your katas (default), the reference solutions, or the "
        "pristine stubs generated from them",
    )
    group.addoption(
        "--impl-file",
        type=Path,
        default=None,
        help="test this one file in place of the kata module (used by the mistake corpus)",
    )
    group.addoption(
        "--require-cuda",
        action="store_true",
        help="treat a missing CUDA device as an error instead of skipping the cuda tier",
    )


def pytest_configure(config: pytest.Config) -> None:
    profile = os.environ.get(PROFILE_VAR, "dev")
    if profile not in ("dev", "ci", "thorough", "quick"):
        raise pytest.UsageError(f"{PROFILE_VAR}={profile!r}: expected dev, ci, thorough or quick")
    settings.load_profile(profile)
    # An xdist worker runs beside the others: its share of torch's threads, not one per core.
    if os.environ.get("PYTEST_XDIST_WORKER"):
        share_cores(int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    impl_file = config.getoption("impl_file")
    if impl_file is not None and not impl_file.is_file():
        raise pytest.UsageError(f"--impl-file {impl_file}: no such file")


# --- choosing what is tested ------------------------------------------------------------------


_loaded: dict[tuple[str, str], object] = {}
_broken: dict[tuple[str, str], str] = {}  # import problems, reported once per kata


class Unwritten(pytest.skip.Exception):
    """The stub's own NotImplementedError, carried out of the test at once.

    A skip-type exception, so hypothesis re-raises it without shrinking or formatting a
    traceback, and `except Exception` in a test cannot swallow it. `pytest_runtest_makereport`
    turns it back into a failure that reads "not written yet".
    """

    def __init__(self, kata: _catalogue.Kata, err: NotImplementedError) -> None:
        super().__init__(f"NotImplementedError: {err} (not written yet: katas/{kata.name}.py)")
        self.kata = kata


class _Guarded:
    """A kata function that reports the stub's NotImplementedError as `Unwritten`.

    Pickles as the bare function, so it can still be sent to DataLoader workers or ranks.
    """

    def __init__(self, kata: _catalogue.Kata, function) -> None:
        functools.update_wrapper(self, function)
        self._kata, self._function = kata, function

    def __call__(self, *args, **kwargs):
        try:
            return self._function(*args, **kwargs)
        except NotImplementedError as err:
            if self._kata.unwritten(err):
                raise Unwritten(self._kata, err) from None
            raise

    def __reduce__(self):
        # `_bare(function)`: the function itself pickles by reference (module and name), and
        # `_bare` gives it back as it is. (A module object cannot be pickled, so no reference to
        # the kata module itself can appear here.)
        return _bare, (self._function,)


def _bare(function):
    """What an unpickled `_Guarded` becomes: the kata's own function."""
    return function


class _View(types.ModuleType):
    """The `kata` fixture: the kata module's names, its functions `_Guarded`.

    The kata's functions read their own module's globals, never this view's. So setting or
    deleting a name here (`mock.patch.object(kata, "DataParallel", fake)`,
    `monkeypatch.setattr(kata, "time", fake)`, and their undoing) is done on the kata module
    too: a patch reaches the code under test however it imported the name (`import torch` and
    `torch.nn.DataParallel`, or `from torch.nn import DataParallel`). A `_Guarded` set back is
    set back in the module as the bare function it wraps.
    """

    def __init__(self, kata: _catalogue.Kata, module: types.ModuleType) -> None:
        super().__init__(module.__name__, module.__doc__)
        here = vars(self)
        for name, value in vars(module).items():
            here[name] = _Guarded(kata, value) if inspect.isfunction(value) else value
        here["_View__module"] = module

    def __setattr__(self, name: str, value: object) -> None:
        bare = value._function if isinstance(value, _Guarded) else value
        setattr(self.__module, name, bare)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        in_view, in_module = name in vars(self), hasattr(self.__module, name)
        if not (in_view or in_module):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        if in_module:
            delattr(self.__module, name)
        if in_view:
            super().__delattr__(name)


def _guarded(kata: _catalogue.Kata, module: types.ModuleType) -> types.ModuleType:
    return _View(kata, module)


@contextlib.contextmanager
def patched(owner: object, attr: str, fake: object) -> Iterator[None]:
    """`mock.patch.object(owner, attr, fake)`, and the same for every name that a kata module
    under test bound to the original (`from torch.cuda import device_count` reads
    `torch.cuda.device_count` once, at import, into the kata's own globals): a patch of a
    library reaches the code under test however it imported the name.

    Module globals only (through the `kata` view, which forwards to the module); a default
    argument or a closure holding the original is not reached (timing's tests rebind those
    for its clocks)."""
    original = getattr(owner, attr)
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(owner, attr, fake))
        for view in list(_loaded.values()):
            for name, value in list(vars(view._View__module).items()):
                if value is original:
                    # Through the view when it has the name, so the view reads the fake too.
                    where = view if name in vars(view) else view._View__module
                    stack.enter_context(mock.patch.object(where, name, fake))
        yield


def import_problem(err: BaseException, where: Path) -> str:
    """One plain sentence about why `where` does not import: file, line, what Python said."""
    if isinstance(err, SyntaxError):
        line = f", line {err.lineno}" if err.lineno else ""
        text = f": {err.text.strip()}" if err.text and err.text.strip() else ""
        return f"could not import {where}{line}: {type(err).__name__}: {err.msg}{text}"
    frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename.endswith(str(where))]
    line = f", line {frames[-1].lineno}" if frames else ""
    if isinstance(err, SystemExit):  # argparse's parse_args() at module level, or exit()
        code = "" if err.code is None else repr(err.code)
        return (
            f"could not import {where}{line}: it called sys.exit({code}) while being "
            "imported. Code that reads the command line (argparse's parse_args()) or "
            'exits belongs under `if __name__ == "__main__":`'
        )
    return f"could not import {where}{line}: {type(err).__name__}: {err}"


def _module_name(path: Path, kata: _catalogue.Kata) -> str:
    """The name to load an --impl-file under: its dotted path when it lies in the repository
    (`tests.solutions.distributed.workers`), so that a process it spawns, which imports its
    functions again by module name, can find it; otherwise `_impl_<kata>` (`_importable`)."""
    try:
        parts = path.resolve().relative_to(_catalogue.ROOT).with_suffix("").parts
    except ValueError:
        parts = ()
    name = ".".join(parts)
    if parts and all(p.isidentifier() for p in parts) and name not in sys.modules:
        return name
    return f"_impl_{kata.name}"


def _importable(path: Path, name: str) -> None:
    """Let the processes this one spawns import the file `path` as `name`, as they import a
    kata's functions by module name (distributed's ranks): a folder put first on `sys.path`,
    which spawned processes inherit, holds a link named `name`.py to it (a copy where links
    are refused). The folder goes when this process ends."""
    folder = Path(tempfile.mkdtemp(prefix="katas-impl-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    try:
        (folder / f"{name}.py").symlink_to(path.resolve())
    except OSError:
        shutil.copyfile(path, folder / f"{name}.py")
    sys.path.insert(0, str(folder))


def _load(config: pytest.Config, kata: _catalogue.Kata):
    impl_file = config.getoption("impl_file")
    impl = config.getoption("impl")
    key = (str(impl_file) if impl_file else impl, kata.name)
    if key in _loaded:
        return _loaded[key]
    where = impl_file or Path(impl) / f"{kata.name}.py"
    try:
        if impl == "stubs" and impl_file is None:
            from dojo import source

            module = source.stub_module(kata)
        elif impl_file is not None:
            name = _module_name(impl_file, kata)
            if name == f"_impl_{kata.name}":  # outside the repository: not importable by name
                _importable(impl_file, name)
            spec = importlib.util.spec_from_file_location(name, impl_file)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(f"{impl}.{kata.name}")
    except (Exception, SystemExit) as err:  # a learner's syntax error (or sys.exit()) is
        # reported once, not a traceback dump
        _broken[key] = import_problem(err, Path(where))
    if key in _broken:  # outside the except block, so no "during handling" chain is shown
        pytest.fail(
            f"{_broken[key]}. Fix that first: no test of this kata can run until the file imports.",
            pytrace=False,
        )
    _loaded[key] = _guarded(kata, module)
    return _loaded[key]


@pytest.fixture(scope="module")
def kata(request: pytest.FixtureRequest):
    """The kata module under test: katas/<name>.py, reference/<name>.py or --impl-file."""
    entry = _catalogue.of_test(request.module.__name__)
    if entry is None:
        pytest.fail(f"{request.module.__name__} is not tests/test_<name>.py of a catalogued kata")
    return _load(request.config, entry)


# --- devices and tiers ------------------------------------------------------------------------


@pytest.fixture(
    scope="session",
    params=[
        pytest.param("cpu", marks=pytest.mark.cpu, id="cpu"),
        pytest.param("cuda", marks=pytest.mark.cuda, id="cuda"),
    ],
)
def device(request: pytest.FixtureRequest) -> torch.device:
    """The device a test runs on: the same body runs on cpu and, where there is one, on cuda."""
    return torch.device(request.param)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects, so `-m cpu` sees the added marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    cuda_ok = torch.cuda.is_available()
    n_gpus = torch.cuda.device_count() if cuda_ok else 0
    unmarked_tier = []
    for item in items:
        tiers = {m.name for m in item.iter_markers() if m.name in ("cpu", "cuda")}
        if not tiers and "device" not in item.fixturenames:
            item.add_marker(pytest.mark.cpu)
            tiers = {"cpu"}
        if len(tiers) != 1:
            unmarked_tier.append(f"{item.nodeid} (marked: {sorted(tiers) or 'nothing'})")
            continue
        if "cuda" in tiers and not cuda_ok and not config.getoption("require_cuda"):
            item.add_marker(pytest.mark.skip(reason="needs a CUDA device"))
        # multi_gpu only matters on the cuda tier: its cpu case runs against simulated GPUs.
        if item.get_closest_marker("multi_gpu") and "cuda" in tiers and n_gpus < 2:
            item.add_marker(pytest.mark.skip(reason="needs two or more CUDA devices"))
    if unmarked_tier:
        raise pytest.UsageError(
            "every test must be marked exactly one of cpu or cuda:\n  " + "\n  ".join(unmarked_tier)
        )
    wants_cuda = any(item.get_closest_marker("cuda") for item in items)
    if config.getoption("require_cuda") and not cuda_ok and wants_cuda:
        raise pytest.UsageError(
            f"--require-cuda: torch {torch.__version__} sees no CUDA device "
            "(torch.cuda.is_available() is False)"
        )


# --- what a failure looks like --------------------------------------------------------------


_said_broken: dict[str, str] = {}  # kata name -> its import problem, reported once
# This test's learner messages -> the call each one reports on, and what makes two messages
# one problem when it is not all they say of their calls (see `said`).
_calls: dict[str, tuple[str, str | None]] = {}


def said(message: str, call: str, same: str | None = None) -> None:
    """Note that `message`, a learner message (`tests.support.Say`), begins with the kata
    `call` it reports on. Its report then carries the call apart (`("call", call)` in its
    user_properties), so that `progress` can list one problem met by several calls once: two
    messages that say the same of their calls, or, where `same` is given (an error the test
    does not explain, which is one problem whatever the test expected), the same `same`."""
    _calls[message] = (call, same)


def _example(err: BaseException) -> str:
    """Hypothesis's failing example on one plain line: `n=0, device=cpu; index: 0`. A value the
    test drew as it ran (Hypothesis's "Draw 1 (index): 0") is shown by its label, or as
    `chosen: ...` without one: learners did not know what a "Draw" was."""
    args, draws = "", []
    for note in getattr(err, "__notes__", ()):
        if note.startswith(("Failing test case:", "Falsifying example:")) and "(" in note:
            call = note.split("(", 1)[1].rsplit(")", 1)[0]
            parts = [p.strip().rstrip(",") for p in call.splitlines() if p.strip()]
            parts = [p for p in parts if not p.startswith(("kata=", "data=data("))]
            args = ", ".join(parts)
            args = re.sub(r"device\(type='(\w+)', index=(\d+)\)", r"\1:\2", args)
            args = re.sub(r"device\(type='(\w+)'\)", r"\1", args)
        elif drawn := re.match(r"Draw \d+(?: \((.*?)\))?: ", note):
            draws.append(f"{drawn[1] or 'chosen'}: {note[drawn.end() :]}")
    example = "; ".join(filter(None, [args, *draws]))
    return example if len(example) <= 240 else example[:240] + " …"  # a drawn tensor can be long


def _report(item: pytest.Item, call: pytest.CallInfo, outcome: str, longrepr) -> pytest.TestReport:
    return pytest.TestReport(
        item.nodeid,
        item.location,
        {x: 1 for x in item.keywords},
        outcome,
        longrepr,
        call.when,
        duration=call.duration,
        start=call.start,
        stop=call.stop,
        user_properties=item.user_properties,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Learner-facing failures as plain text, without pytest's traceback and introspection.

    - the stub's "not written yet" (`Unwritten`) is one line, marked `not_implemented`;
    - a kata file that does not import is reported once, its other tests are skipped;
    - a `Say` message (from `assert`, `pytest.fail` or `Say.raises`) is printed as it is, with
      hypothesis's failing example on the next line.
    Anything else (a crash in the learner's code) keeps pytest's usual report.
    """
    kata = _catalogue.of_test(item.nodeid)
    if call.excinfo is None or kata is None:
        return None
    err = call.excinfo.value
    if isinstance(err, Unwritten):
        item.user_properties.append(("not_implemented", err.msg))
        return _report(item, call, "failed", err.msg)
    text = str(err)
    if isinstance(err, pytest.fail.Exception) and text.startswith("could not import"):
        if kata.name in _said_broken:
            path, line, _ = item.location
            reason = f"{_said_broken[kata.name]} (reported once, above)"
            return _report(item, call, "skipped", (path, (line or 0) + 1, reason))
        _said_broken[kata.name] = text.partition(". Fix that first")[0]
        return _report(item, call, "failed", text)
    if isinstance(err, AssertionError | pytest.fail.Exception) and text.startswith(f"{kata.name}."):
        text = text.split("\nassert ", 1)[0]  # the Say message, without pytest's introspection
        if text in _calls:
            called, same = _calls[text]
            item.user_properties.append(("call", called))
            if same is not None:
                item.user_properties.append(("same", same))
        example = _example(err)
        return _report(item, call, "failed", f"{text}\n  example: {example}" if example else text)
    return None


# --- global torch state -----------------------------------------------------------------------


def _torch_state() -> dict[str, object]:
    return {
        "default dtype": torch.get_default_dtype(),
        "default device": torch.get_default_device(),
        "grad mode": torch.is_grad_enabled(),
        "anomaly mode": (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
    }


def _restore(saved: dict[str, object]) -> None:
    torch.set_default_dtype(saved["default dtype"])
    # No default device is not the same as a default of cpu: setting cpu would leave a device
    # context on torch's mode stack, which slows every later torch call.
    device = saved["default device"]
    torch.set_default_device(None if device == torch.device("cpu") else device)
    torch.set_grad_enabled(saved["grad mode"])
    torch.set_anomaly_enabled(*saved["anomaly mode"])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    """Autouse guard around every test (setup, call and teardown): put torch's globals back.

    A hook rather than a fixture, so that hypothesis tests get it too and no test can opt out.
    """
    saved = _torch_state()
    _calls.clear()
    try:
        return (yield)
    finally:
        if _torch_state() != saved:
            _restore(saved)
