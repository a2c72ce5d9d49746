"""The `kata` fixture (dojo/harness.py): a view of the kata module whose functions report the
stub's NotImplementedError as "not written yet". A test that patches a name on the view must
reach the code under test however that code imported the name: `from time import perf_counter`
binds the name in the kata's own module, which its functions read, not in the view.

A library patched with `harness.patched` (`fake_gpus` is) reaches it the same way.

A kata-like file is loaded here the way `--impl-file` loads one (`_load`, then `_guarded`)."""

from __future__ import annotations

import pickle
import sys
import textwrap
import time
import types
from pathlib import Path
from unittest import mock

import pytest

from dojo import catalogue, harness

KATA = catalogue.get("timing")  # any catalogued kata: its name tells "not written yet" apart
MODULE = f"_impl_{KATA.name}"  # where `--impl-file` puts the module it loads

SOURCE = textwrap.dedent(
    f'''
    """A kata written with `from` imports: its functions read this module's globals."""
    from time import perf_counter

    LIMIT = 3


    def now():
        return perf_counter()


    def helper():
        return "real"


    def uses_helper():
        return helper()


    def limit():
        return LIMIT


    def unwritten():
        raise NotImplementedError("{KATA.name}: unwritten")
    '''
)


class _Config:
    """What `_load` reads of a pytest config: `--impl-file FILE`."""

    def __init__(self, impl_file: Path) -> None:
        self.options = {"impl_file": impl_file, "impl": "katas"}

    def getoption(self, name: str):
        return self.options[name]


@pytest.fixture
def loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """(the view, the module the kata's functions run in), loaded as `--impl-file` does."""
    path = tmp_path / "from_imports.py"
    path.write_text(SOURCE)
    monkeypatch.setattr(harness, "_loaded", {})
    monkeypatch.setattr(harness, "_broken", {})
    monkeypatch.setitem(sys.modules, MODULE, None)  # whatever was there comes back afterwards
    monkeypatch.setattr(sys, "path", list(sys.path))  # _load puts a folder first
    view = harness._load(_Config(path), KATA)
    module = sys.modules[MODULE]
    assert view is not module and module.__file__ == str(path)
    return view, module


def test_a_patch_on_the_view_reaches_a_name_bound_by_a_from_import(loaded):
    view, module = loaded
    with mock.patch.object(view, "perf_counter", lambda: 42.0):
        assert view.now() == 42.0, "the kata's function did not see the patched perf_counter"
        assert module.perf_counter() == 42.0
    assert module.perf_counter is time.perf_counter and view.perf_counter is time.perf_counter
    assert view.now() != 42.0


def test_monkeypatch_on_the_view_reaches_the_module_and_is_undone(loaded):
    view, module = loaded
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(view, "LIMIT", 7)
        assert view.limit() == 7 and module.LIMIT == 7
        mp.setattr(view, "EXTRA", "new", raising=False)
        assert module.EXTRA == "new"
        mp.delattr(view, "LIMIT")
        assert not hasattr(module, "LIMIT") and not hasattr(view, "LIMIT")
    assert view.limit() == 3 and module.LIMIT == 3 and view.LIMIT == 3
    assert not hasattr(module, "EXTRA") and not hasattr(view, "EXTRA")
    with pytest.raises(AttributeError):
        del view.NOWHERE


def test_a_kata_function_patched_on_the_view_is_what_its_callers_see(loaded):
    view, module = loaded
    real = module.helper
    with mock.patch.object(view, "helper", lambda: "fake"):
        assert view.uses_helper() == "fake"
        assert view.helper() == "fake"
    # Put back as it was: the module holds its own function, the view the guarded one.
    assert module.helper is real and isinstance(real, types.FunctionType)
    assert isinstance(view.helper, harness._Guarded) and view.helper() == "real"
    assert view.uses_helper() == "real"


def test_the_views_functions_stay_guarded_and_pickle_as_the_bare_function(loaded):
    view, module = loaded
    with pytest.raises(harness.Unwritten, match="not written yet"):
        view.unwritten()
    with mock.patch.object(view, "LIMIT", 0), pytest.raises(harness.Unwritten):
        view.unwritten()
    assert pickle.loads(pickle.dumps(view.helper)) is module.helper
    assert view.helper.__name__ == "helper" and view.helper.__wrapped__ is module.helper


def test_a_library_patch_reaches_the_name_the_kata_imported_from_it(loaded):
    view, module = loaded
    with harness.patched(time, "perf_counter", lambda: 42.0):
        assert time.perf_counter() == 42.0
        assert view.now() == 42.0, "the kata's function did not see the patched time.perf_counter"
        assert view.perf_counter() == 42.0
    assert time.perf_counter is module.perf_counter is view.perf_counter
    assert view.now() != 42.0


@pytest.mark.parametrize(("workers", "threads"), [("2", 2), ("3", 1), ("1", 4), (None, 4)])
def test_an_xdist_worker_takes_its_share_of_torchs_threads(
    four_threads, monkeypatch, workers, threads
):
    """`pytest -n 2` on two cores: each worker would start a thread per core, and their
    OpenMP threads spin while they wait for each other. Outside xdist nothing changes."""
    import torch

    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT"):
        monkeypatch.delenv(name, raising=False)
    if workers:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", workers)
    config = types.SimpleNamespace(getoption=lambda name: None)
    harness.pytest_configure(config)
    assert torch.get_num_threads() == threads


def test_a_spawned_process_imports_a_file_from_outside_the_repository(loaded):
    """distributed's ranks are spawned, and each imports the function it runs by module name:
    a file given with --impl-file from outside the repository must be importable there too
    (it once failed every rank with ModuleNotFoundError: No module named '_impl_...')."""
    import multiprocessing

    _view, module = loaded
    process = multiprocessing.get_context("spawn").Process(target=module.helper)
    process.start()
    process.join(timeout=120)
    assert process.exitcode == 0, (
        f"a spawned process could not run {MODULE}.helper (exit code {process.exitcode}): "
        "it could not import the --impl-file by its module name"
    )
