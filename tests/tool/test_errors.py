"""The error index (dojo/errors.toml, dojo/errors.py): every entry is well formed, every CPU
example really raises or warns a message the entry recognises, and `find` puts the right entry
first for its own message, for a pasted traceback and for PyTorch's other wordings of it."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap

import pytest

from dojo import catalogue, errors

ENTRIES = errors.load()
by_entry = pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
RUNNABLE = [e for e in ENTRIES if e.reproduce is not None]


def test_the_index_has_the_errors_learners_meet():
    phrases = " | ".join(e.phrase for e in ENTRIES)
    for must in [
        "Expected all tensors to be on the same device",
        "different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_",
        "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)",
        "mat1 and mat2 must have the same dtype",
        "view size is not compatible with input tensor's size and stride",
        "a leaf Variable that requires grad is being used in an in-place operation",
        "one of the variables needed for gradient computation has been modified by an inplace",
        "Attempting to deserialize object on a CUDA device",
        "Torch not compiled with CUDA enabled",
        "Can't call numpy() on Tensor that requires grad",
        "'pin_memory' argument is set as true but no accelerator is found",
        "CUDA out of memory",
        "Cannot copy out of meta tensor",
        "Cannot access accelerator device when none is available",
    ]:
        assert must in phrases, f"dojo/errors.toml has no entry whose phrase holds {must!r}"


@by_entry
def test_entry_is_well_formed(entry):
    names = {k.name for k in catalogue.katas()}
    for name in (entry.kata, *entry.also):
        assert name in names, f"{entry.id}: kata {name!r} is not in dojo/catalogue.toml"
    assert errors.normalize(entry.phrase) in errors.normalize(entry.message), (
        f"{entry.id}: the phrase must be part of the message"
    )
    assert entry.matches(entry.phrase), f"{entry.id}: its patterns miss its own phrase"
    assert entry.matches(entry.message), f"{entry.id}: its patterns miss its own message"
    if entry.reproduce is None:
        assert entry.source and "/" in entry.source.split()[0], (
            f"{entry.id}: a CUDA-only entry cites the PyTorch file that builds the message"
        )
    else:
        compile(entry.reproduce, f"{entry.id}.reproduce", "exec")


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ('[[entry]]\nid = "x"\n', "missing fields"),
        (
            '[[entry]]\nid = "Bad Id"\ntopic = "t"\nphrase = "p"\nmessage = "p"\nkind = "error"\n'
            'exception = "E"\npatterns = ["p"]\nkata = "k"\nmeans = "m."\nfix = "f."\n'
            'source = "a/b.cpp"\n',
            "id must be",
        ),
        (
            '[[entry]]\nid = "x"\ntopic = "t"\nphrase = "p"\nmessage = "p"\nkind = "error"\n'
            'exception = "E"\npatterns = ["("]\nkata = "k"\nmeans = "m."\nfix = "f."\n'
            'source = "a/b.cpp"\n',
            "does not compile",
        ),
        (
            '[[entry]]\nid = "x"\ntopic = "t"\nphrase = "p"\nmessage = "p"\nkind = "error"\n'
            'exception = "E"\npatterns = ["p"]\nkata = "k"\nmeans = "m."\nfix = "f."\n',
            "either `reproduce`",
        ),
    ],
    ids=["missing", "bad-id", "bad-pattern", "no-source-no-example"],
)
def test_a_malformed_index_is_refused_naming_the_entry(tmp_path, toml, problem):
    path = tmp_path / "errors.toml"
    path.write_text(toml)
    with pytest.raises(ValueError, match=problem) as info:
        errors.load.__wrapped__(path)
    assert "entry 1" in str(info.value)


@pytest.mark.parametrize("entry", RUNNABLE, ids=[e.id for e in RUNNABLE])
def test_cpu_example_raises_what_the_entry_recognises(entry):
    reason = errors.unmet(entry.requires)
    if reason:
        pytest.skip(f"{entry.id} only fails without it: {reason}")
    outcome = errors.reproduce(entry)
    assert outcome.kind == entry.kind, (
        f"{entry.id}: its example should {'raise' if entry.kind == 'error' else 'warn'}, "
        f"but it gave {outcome}"
    )
    assert outcome.exception == entry.exception.rpartition(".")[2], (
        f"{entry.id}: torch {'raised' if entry.kind == 'error' else 'warned'} "
        f"{outcome.exception}, the entry says {entry.exception}"
    )
    assert entry.matches(outcome.text), f"{entry.id}: its patterns miss {outcome.text!r}"
    assert errors.find(outcome.text)[0] is entry, (
        f"{entry.id}: find() ranks {[e.id for e in errors.find(outcome.text)]} for {outcome.text!r}"
    )


FRESH = [e for e in RUNNABLE if e.fresh_process]


@pytest.mark.parametrize("entry", FRESH, ids=[e.id for e in FRESH])
def test_a_once_per_process_message_is_found_after_this_process_has_shown_it(entry):
    # A fork of a process that has shown the message cannot show it again; reproduce() must
    # notice and start a new interpreter (the site's build may have shown it on another page).
    reason = errors.unmet(entry.requires)
    if reason:
        pytest.skip(f"{entry.id} only fails without it: {reason}")
    errors._run_here(entry.reproduce)
    assert errors._matching(entry, errors._run_here(entry.reproduce)) is None, (
        f"{entry.id}: shown twice in one process, so it needs no `fresh_process = true`"
    )
    outcome = errors.reproduce(entry)
    assert outcome.kind == entry.kind and entry.matches(outcome.text), outcome


@pytest.mark.skipif(not FRESH, reason="no entry needs a fresh process")
def test_a_fork_shows_a_once_per_process_message_that_its_parent_has_not_shown():
    # The fast path the site's build takes: no new interpreter, so no second torch import.
    from dojo import runner

    if not runner.use_fork():
        pytest.skip("reproduce() does not fork on this machine (see dojo.runner.use_fork)")
    script = (
        "import sys\n"
        "from dojo import errors\n"
        "entry = errors.get(sys.argv[1])\n"
        "print(errors._matching(entry, errors._run_forked(entry.reproduce)))\n"
    )
    for entry in FRESH:
        done = subprocess.run(
            [sys.executable, "-c", script, entry.id],
            cwd=catalogue.ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() != "None", f"{entry.id}: the forked child did not show it"


@by_entry
def test_find_puts_the_entry_first_for_its_message_and_phrase(entry):
    for text in (entry.message, entry.phrase, f"{entry.exception}: {entry.message}"):
        found = [e.id for e in errors.find(text)]
        assert found and found[0] == entry.id, f"find({text!r}) gave {found}, not {entry.id} first"


def traceback_of(entry) -> str:
    """The entry's message as a terminal shows it: at the end of a traceback, wrapped."""
    last = textwrap.fill(f"{entry.exception}: {entry.message}", width=80, break_long_words=False)
    return (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 41, in <module>\n'
        "    loss = step(model, batch)\n"
        '  File "/home/me/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py", '
        "line 1775, in _wrapped_call_impl\n"
        "    return self._call_impl(*args, **kwargs)\n"
        f"{last}\n"
    )


@by_entry
def test_find_puts_the_entry_first_in_a_pasted_traceback(entry):
    found = [e.id for e in errors.find(traceback_of(entry))]
    assert found and found[0] == entry.id, f"{entry.id}: find(traceback) gave {found}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the dispatcher's form names an argument: more precise than the general entry
        (
            "Expected all tensors to be on the same device, but got index is on cpu, different "
            "from other tensors on cuda:0 (when checking argument in method "
            "wrapper_CUDA__index_select)",
            "same-device-dispatcher",
        ),
        (
            "RuntimeError: Expected all tensors to be on the same device, but found at least two "
            "devices, cuda:0 and cpu! (when checking argument for argument mat1 in method "
            "wrapper_CUDA_addmm)",
            "same-device-dispatcher",
        ),
        (
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:1 and cuda:0!",
            "same-device",
        ),
        (
            "Expected object of device type cuda but got device type cpu for argument #1 'self' "
            "in call to _th_addmm",
            "same-device",
        ),
        ("Tensor on device cpu is not on the expected device cuda:0!", "not-on-expected-device"),
        # one sentence, two mistakes: the types tell a device mismatch from a dtype mismatch
        (
            "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be "
            "the same or input should be a MKLDNN tensor and weight is a dense tensor",
            "conv-input-weight-device",
        ),
        (
            "Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should "
            "be the same",
            "conv-input-bias-dtype",
        ),
        ("Input type (double) and bias type (float) should be the same", "conv-input-bias-dtype"),
        (
            "Input type (CUDAFloatType) and weight type (CPUFloatType) should be the same",
            "conv-input-weight-device",
        ),
        (
            "Input type (CUDAHalfType) and weight type (CUDAFloatType) should be the same",
            "conv-input-bias-dtype",
        ),
        (
            "expected mat1 and mat2 to have the same dtype, but got: float != c10::Half",
            "mat1-mat2-dtype",
        ),
        ("expected scalar type Long but found Int", "target-dtype"),
        ("expected scalar type Double but found Float", "expected-scalar-type"),
        (
            "a view of a leaf Variable that requires grad is being used in an in-place operation.",
            "leaf-in-place",
        ),
        ("can't convert cuda:1 device type tensor to numpy.", "numpy-device"),
        (
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a "
            "total capacity of 23.65 GiB of which 1.02 GiB is free.",
            "cuda-out-of-memory",
        ),
        (
            "Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is "
            "2. Please use torch.load with map_location to map your storages to an existing "
            "device.",
            "deserialize-on-cuda",
        ),
        # colour codes and tabs, as a terminal or a notebook pastes them
        (
            "\x1b[1mWeights only load failed.\x1b[0m\n\tWeightsUnpickler error",
            "weights-only-load-failed",
        ),
    ],
)
def test_find_ranks_the_most_precise_entry_first(text, expected):
    found = [e.id for e in errors.find(text)]
    assert found and found[0] == expected, f"find({text!r}) gave {found}, not {expected} first"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t",
        "hello",
        "SyntaxError: invalid syntax",
        "ModuleNotFoundError: No module named 'torch'",
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x100 and 50x10)",
        "RuntimeError: The size of tensor a (3) must match the size of tensor b (4)",
        "IndexError: index 5 is out of bounds for dimension 0 with size 3",
    ],
)
def test_unknown_text_matches_nothing(text, capsys):
    assert errors.find(text) == []
    if text.strip():
        assert errors.main([text]) == 1
        out = capsys.readouterr().out
        assert "No entry" in out and "--list" in out and errors.PAGE in out


def test_main_prints_the_message_the_fix_and_the_kata(capsys):
    entry = errors.get("same-device-dispatcher")
    assert errors.main([f"RuntimeError: {entry.message}"]) == 0
    out = capsys.readouterr().out
    kata = catalogue.get(entry.kata)
    assert entry.phrase in errors.normalize(out)
    assert "Fix:" in out and "What it means:" in out
    assert f"docs/katas/{kata.name}.md" in out and f"python -m katas check {kata.name}" in out
    assert f"{errors.PAGE}#{entry.id}" in out
    assert "The text also matches: " in out and "(same-device)" in out  # the general entry


def test_main_reads_a_pasted_traceback_from_standard_input(monkeypatch, capsys):
    entry = errors.get("modified-by-inplace")
    monkeypatch.setattr(sys, "stdin", io.StringIO(traceback_of(entry)))
    assert errors.main([]) == 0
    assert f"python -m katas check {entry.kata}" in capsys.readouterr().out


def test_main_lists_every_entry(capsys):
    assert errors.main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [e.id for e in ENTRIES]


def test_empty_input_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert errors.main([]) == 2
    assert "usage" in capsys.readouterr().err


def test_the_tool_works_without_importing_torch():
    code = (
        "import sys, contextlib, io\n"
        "from dojo import errors\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    errors.main(['--list']); errors.main(['Torch not compiled with CUDA enabled'])\n"
        "    errors.markdown(run=False)\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=errors.ROOT, check=True
    )
    assert done.stdout.strip() == "False", "dojo/errors.py must not import torch to explain"


def test_the_page_renders_every_entry_as_a_heading_with_its_id():
    page = errors.markdown(run=False)
    for entry in ENTRIES:
        heading = f"### {errors._heading_text(entry.phrase)} {{#{entry.id}}}"
        assert heading in page, f"no heading for {entry.id}"
        assert f"](katas/{entry.kata}.md)" in page
    topics = list(dict.fromkeys(e.topic for e in ENTRIES))
    assert [line[3:] for line in page.splitlines() if line.startswith("## ")] == topics
    source = (errors.ROOT / errors.PAGE).read_text()
    assert "errors.markdown()" in source and 'exec="on"' in source


def test_entries_of_a_topic_stay_together(tmp_path):
    entry = (
        '[[entry]]\nid = "{id}"\ntopic = "{topic}"\nphrase = "p"\nmessage = "p"\n'
        'kind = "error"\nexception = "E"\npatterns = ["p"]\nkata = "k"\nmeans = "m."\n'
        'fix = "f."\nsource = "a/b.cpp"\n'
    )
    path = tmp_path / "errors.toml"
    path.write_text(
        "".join(entry.format(id=i, topic=t) for i, t in [("a", "A"), ("b", "B"), ("c", "A")])
    )
    with pytest.raises(ValueError, match="keep the entries of a topic together"):
        errors.load.__wrapped__(path)
