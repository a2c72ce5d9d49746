"""The error index (dojo/errors.toml, dojo/errors.py): every entry is well formed, every CPU
example really raises or warns a message the entry recognises, and `find` puts the right entry
first for its own message, for a pasted traceback and for PyTorch's other wordings of it."""

from __future__ import annotations

import io
import os
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
        "None of the inputs have requires_grad=True",
        "GradScaler is enabled, but CUDA is not available",
        "Attempting to unscale FP16 gradients",
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
            "conv-weight-on-cpu",  # the input is on the GPU: the model was left behind
        ),
        (
            "Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should "
            "be the same",
            "conv-input-bias-dtype",
        ),
        ("Input type (double) and bias type (float) should be the same", "conv-input-bias-dtype"),
        (
            "Input type (CUDAFloatType) and weight type (CPUFloatType) should be the same",
            "conv-weight-on-cpu",
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
    assert f"python -m katas docs {kata.name} --discussion" in out, "the served discussion page"
    assert "docs/katas/" not in out and ".md" not in out.split("More:")[0], "no raw page"
    assert f"python -m katas check {kata.name}" in out
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
    page = errors.markdown(run=False, prefix="../")
    for entry in ENTRIES:
        heading = f"### {errors._heading_text(entry.phrase)} {{#{entry.id}}}"
        assert heading in page, f"no heading for {entry.id}"
        # The built site's URL of the kata page, from /troubleshooting/: MkDocs never rewrites
        # links in a markdown-exec block's output, so `katas/x.md` would stay a 404.
        assert f"](../discussions/{entry.kata}/#the-ideas)" in page
        assert f"python -m katas check {entry.kata}" in page
        assert "then check your solution" not in page.lower()
    topics = list(dict.fromkeys(e.topic for e in ENTRIES))
    assert [
        line[3:].rsplit(" {#", 1)[0] for line in page.splitlines() if line.startswith("## ")
    ] == [errors._heading_text(t) for t in topics]
    source = (errors.ROOT / errors.PAGE).read_text()
    assert 'errors.markdown(prefix="../", index=False)' in source and 'exec="on"' in source
    assert "errors.index_markdown()" in source
    # The index links to `#topic-...`: an exec block without idprefix="" would prefix the ids.
    assert source.count('exec="on" idprefix=""') == source.count('exec="on"')


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


# --- real pastes ----------------------------------------------------------------------------------

CORPUS = errors.ROOT / "tests" / "data" / "errors" / "real.toml"


def _corpus() -> list[dict]:
    import tomllib

    with open(CORPUS, "rb") as f:
        pastes = tomllib.load(f)["paste"]
    for n, paste in enumerate(pastes, start=1):
        assert set(paste) == {"text", "expect", "source"}, f"{CORPUS.name} paste {n}: {paste}"
        assert paste["source"].strip(), f"{CORPUS.name} paste {n} says not where it is from"
    return pastes


def test_the_corpus_names_only_entries_that_exist():
    ids = {e.id for e in ENTRIES}
    for paste in _corpus():
        assert paste["expect"] in ids | {""}, f"{paste['expect']!r} is no entry ({paste['source']})"


def test_the_index_explains_real_pastes(capsys):
    """Every real paste of the corpus: explained by the right entry (the first `find` gives), and
    no entry for the unrelated ones. The rate is printed; 9 in 10 is the floor, and no false
    match on an unrelated error is allowed at all."""
    related = [p for p in _corpus() if p["expect"]]
    unrelated = [p for p in _corpus() if not p["expect"]]
    wrong, missed, false = [], [], []
    for paste in related:
        found = [e.id for e in errors.find(paste["text"])]
        if not found:
            missed.append(paste)
        elif found[0] != paste["expect"]:
            wrong.append((paste, found[0]))
    for paste in unrelated:
        if errors.find(paste["text"]):
            false.append((paste, errors.find(paste["text"])[0].id))
    right = len(related) - len(wrong) - len(missed)
    report = (
        f"error index on {CORPUS.name}: {right} of {len(related)} real pastes explained "
        f"correctly ({right / len(related):.0%}), {len(wrong)} by the wrong entry, {len(missed)} "
        f"not recognised; {len(false)} false matches on {len(unrelated)} unrelated errors"
    )
    details = [f"  missed: {p['text'][:90]!r} ({p['source']})" for p in missed]
    details += [f"  wrong: {p['text'][:90]!r} -> {got}, not {p['expect']}" for p, got in wrong]
    details += [f"  false: {p['text'][:90]!r} -> {got}" for p, got in false]
    with capsys.disabled():
        print("\n" + "\n".join([report, *details]))
    assert right >= 0.9 * len(related) and not false, "\n".join([report, *details])


# --- what an answer says ------------------------------------------------------------------------


@by_entry
def test_an_answer_keeps_the_fix_apart_from_checking_a_kata(entry, capsys):
    assert "check your solution" not in entry.fix.lower(), f"{entry.id}: the fix is for your code"
    # --fix: the fix itself, whatever this clone's progress (a lesson's fix waits otherwise)
    assert errors.main(["--fix", entry.message]) == 0
    out = capsys.readouterr().out
    fix = out.split("Fix:", 1)[1].split("\n\n", 1)[0]
    assert "python -m katas check" not in fix, f"{entry.id}: the kata check is inside the fix"
    assert f"\nTo check your solution of that kata: python -m katas check {entry.kata}\n" in out
    assert (errors.DOCTOR in out) == entry.doctor, f"{entry.id}: doctor={entry.doctor}"


def test_where_the_machine_is_the_cause_the_answer_sends_to_doctor():
    machine = [e for e in ENTRIES if e.topic == "Setting up a GPU machine"]
    assert {e.id for e in machine} >= {
        "driver-too-old",
        "no-nvidia-driver",
        "no-kernel-image",
        "capability-not-compatible",
        "invalid-device-ordinal",
    }
    assert all(e.doctor for e in machine), [e.id for e in machine if not e.doctor]


def test_the_driver_entry_gives_the_floor_of_the_default_wheel_and_the_way_around_it():
    entry = errors.get("driver-too-old")
    assert "CUDA 13.0" in entry.means and "580" in entry.means
    assert "580" in entry.fix and "download.pytorch.org/whl/cu" in entry.fix


def test_the_out_of_memory_fix_agrees_with_the_sync_points_kata():
    # kata 10 teaches to keep loss.detach() on the device and read it once; never loss.item()
    fix = errors.get("cuda-out-of-memory").fix
    assert "loss.detach()" in fix and "loss.item()" not in fix


def test_the_same_device_entry_covers_two_gpus_and_the_model_left_behind():
    means = errors.get("same-device").means
    assert "two GPUs" in means and "cuda:1" in means and "the model is the one left behind" in means
    found = errors.find(
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:1 and cuda:0!"
    )
    assert found[0].id == "same-device"


def test_each_direction_of_the_conv_device_mismatch_has_its_own_title():
    gpu_input = errors.find(
        "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) "
        "should be the same"
    )[0]
    cpu_input = errors.find(
        "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
        "should be the same"
    )[0]
    assert gpu_input.phrase.startswith("Input type (torch.cuda.FloatTensor)")
    assert "the model was not" in gpu_input.means
    assert cpu_input.phrase.startswith("Input type (torch.FloatTensor)")
    assert "the batch was not" in cpu_input.means


# --- pasted tracebacks ----------------------------------------------------------------------------

SM_120 = (
    "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:287: UserWarning:\n"
    "NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current "
    "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 "
    "sm_70 sm_75 sm_80 sm_86 sm_90.\n"
    "  warnings.warn(\n"
)


def test_a_traceback_is_answered_from_its_last_error():
    # The warning printed earlier matches a longer stretch of its entry than the error does of
    # its own: read as one text, the warning would win.
    text = SM_120 + traceback_of(errors.get("invalid-device-ordinal"))
    assert errors._ranked(text)[0].id == "capability-not-compatible"
    assert errors.find(text)[0].id == "invalid-device-ordinal"
    assert errors.find(SM_120)[0].id == "capability-not-compatible"


def test_a_chained_traceback_is_answered_from_its_first_error():
    first = traceback_of(errors.get("cuda-out-of-memory"))
    then = (
        "\nDuring handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 50, in <module>\n'
        "    y = model(x)\n"
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling "
        "`cublasCreate(handle)`\n"
    )
    cause = (
        "\nThe above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 60, in <module>\n'
        "RuntimeError: step 3 failed\n"
    )
    assert errors.find(first + then)[0].id == "cuda-out-of-memory"
    assert errors.find(first + cause)[0].id == "cuda-out-of-memory"
    assert errors.last_error(first + cause).startswith("torch.OutOfMemoryError: CUDA out of")


def test_a_dataloader_traceback_is_answered_from_the_original_error():
    text = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 9, in <module>\n'
        "    for x, y in loader:\n"
        "RuntimeError: Caught RuntimeError in pin memory thread for device 0.\n"
        "Original Traceback (most recent call last):\n"
        '  File ".../torch/utils/data/_utils/pin_memory.py", line 37, in do_one_step\n'
        "    data = pin_memory(data, device)\n"
        "RuntimeError: cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned\n"
    )
    assert errors.find(text)[0].id == "only-dense-cpu-tensors-pinned"
    assert errors.find(text.rsplit("Original", 1)[0])[0].id == "pin-memory-thread"


def test_an_assertion_printed_before_the_traceback_is_found_when_the_error_is_not():
    text = (
        "/pytorch/aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: "
        "block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "RuntimeError: something else went wrong\n"
    )
    assert errors.find(text)[0].id == "device-side-assert"


def test_an_unknown_message_gets_the_closest_entries_and_where_to_go(capsys):
    text = "RuntimeError: cannot pin memory for this sparse tensor layout"
    assert errors.find(text) == []
    assert errors.main([text]) == 1
    out = capsys.readouterr().out
    assert "closest entries" in out and "only-dense-cpu-tensors-pinned" in out
    assert "python -m katas explain --list" in out and "python -m katas doctor" in out
    assert "dojo/errors.toml" in out  # how a missing message gets in
    assert errors.main(["only-dense-cpu-tensors-pinned"]) == 0  # the id it suggested
    assert errors.get("only-dense-cpu-tensors-pinned").phrase in capsys.readouterr().out


# --- the command ------------------------------------------------------------------------------


def _katas(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "katas", *args],
        cwd=errors.ROOT,
        capture_output=True,
        timeout=120,
        **kwargs,
    )


def test_explain_list_is_an_option_of_explain():
    done = _katas("explain", "--list", text=True)
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == [e.id for e in ENTRIES]


def _into_a_closed_pipe(argv: list[str]) -> subprocess.CompletedProcess:
    """Run `argv` with its stdout a pipe whose reader has gone (`... | head` once head exits)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            argv, cwd=errors.ROOT, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120
        )
    finally:
        os.close(write)


def test_explain_into_head_ends_quietly():
    done = _into_a_closed_pipe([sys.executable, "-m", "katas", "explain", "--list"])
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 0


def test_list_into_head_ends_quietly():
    # `list` checks every kata first; its printing is what is under test, so a stand-in prints.
    script = (
        "import sys\n"
        "from dojo import cli\n"
        "cli.NEEDS_TORCH.discard('list')\n"
        "cli.COMMANDS['list'] = lambda args: print('kata\\n' * 10000) or 0\n"
        "sys.argv = ['katas', 'list']\n"
        "cli.run()\n"
    )
    done = _into_a_closed_pipe([sys.executable, "-c", script])
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 0


def test_explain_reads_stdin_that_is_not_utf8():
    paste = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (caf\xe9)\n"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = _katas("explain", input=paste.encode("latin-1"), env=env)
    assert done.returncode == 0, done.stderr.decode()
    assert b"CUDA out of memory" in done.stdout and b"Traceback" not in done.stderr
    done = _katas("explain", input=b"\xff\xfe no such error \x80\n", env=env)
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr.decode()


# --- the page -----------------------------------------------------------------------------------


def test_every_message_on_the_page_is_in_the_output_box():
    page = errors.markdown(run=False, prefix="../")
    boxed = page.count('<div class="result" markdown="1">\n\n    ```text')
    assert page.count("```text\n") == boxed >= len(ENTRIES)


@by_entry
def test_an_entry_shows_its_heading_and_releases_and_folds_the_rest(entry):
    """Issue 27: a phone scrolls the headings; what an entry says is one tap away."""
    lines = errors.entry_markdown(entry, run=False, prefix="../").splitlines()
    assert lines[0].startswith("### ") and lines[2] == f"**Releases.** {entry.releases}"
    assert lines[4] == f'??? note "{errors.FOLD}"'
    assert all(not line or line.startswith("    ") for line in lines[5:])
    assert entry.releases.strip() and any(ch.isdigit() for ch in entry.releases)


def test_the_page_opens_with_an_index_by_topic_that_fits_one_screen():
    index = errors.index_markdown().splitlines()
    topics = list(dict.fromkeys(e.topic for e in ENTRIES))
    assert len(index) == 2 + len(topics) <= 2 + 15
    assert all(len(row) <= 160 for row in index), max(index, key=len)
    page = errors.markdown(run=False)
    for topic in topics:
        assert f"](#{errors.topic_id(topic)})" in page and f"{{#{errors.topic_id(topic)}}}" in page
    assert page.startswith("\n".join(index))


FAMILIES = [  # issue 17's families: each is measured on real pastes, not on its own patterns
    "same-device",
    "same-device-dispatcher",
    "conv-input-weight-device",
    "conv-weight-on-cpu",
    "indices-device",
    "rnn-device",
    "cuda-out-of-memory",
    "cublas-cudnn-not-initialized",
    "device-side-assert",
    "illegal-memory-access",
    "driver-too-old",
    "no-nvidia-driver",
    "no-kernel-image",
    "capability-not-compatible",
    "invalid-device-ordinal",
    "pin-memory-thread",
    "ddp-unused-parameters",
    "nccl-error",
    "nccl-timeout",
    "address-in-use",
    "no-default-process-group",
    "backward-twice",
    "no-grad-fn",
    # issue 27's families
    "cuda-device-unavailable",
    "cuda-unknown-error",
    "no-cuda-gpus",
    "cudnn-no-algorithm",
    "generator-device",
    "found-dtype",
    "half-on-cpu",
    "bf16-unsupported",
    "ddp-marked-ready-twice",
    "nccl-not-built",
    "nccl-needs-gpu",
    "ddp-no-gradients",
    "dataparallel-attribute",
    "nonscalar-loss",
    "inference-tensor-saved",
    "cannot-pickle-local",
    "not-on-expected-device",
    "dataloader-worker-died",
    # issue 27's C++ and library-status families
    "cudnn-status",
    "cublas-status",
    "library-arch-mismatch",
    "mps-placeholder",
    "restore-location",
    "gradscaler-call-order",
    "gradscaler-no-inf-checks",
    "nvml-init",
    # issue 27's families for torch's Python messages (helper err27c)
    "init-process-group-twice",
    "store-barrier-timeout",
    "backend-not-built",
    "dataloader-conflicting-options",
    "dataloader-needs-workers",
    "too-many-open-files",
    "corrupt-checkpoint",
    "autocast-device-type",
    "barrier-device-unknown",
    "checkpoint-newer-format",
    # none-fits pastes of the blind batches with a recurring cause (helper err27e)
    "shared-memory-object",
    "dataloader-too-many-workers",
    # families for the C++ messages enumerated from PyTorch's sources (helper cpp-triage)
    "gather-cpu-outputs",
    "gather-shape-mismatch",
    "collective-contiguous",
    "destroy-process-group",
    "complex-to-real",
    # the caching allocator's settings (helper c27)
    "alloc-conf-invalid",
    "alloc-conf-deprecated",
]


def test_each_family_has_real_pastes_from_more_than_one_thread():
    sources: dict[str, set[str]] = {}
    for paste in _corpus():
        sources.setdefault(paste["expect"], set()).add(paste["source"].split()[0])
    thin = {family: sources.get(family, set()) for family in FAMILIES}
    thin = {family: found for family, found in thin.items() if len(found) < 2}
    assert not thin, f"families with fewer than two real sources in {CORPUS.name}: {thin}"


# --- issue 27: boilerplate is never evidence; the answer reads the paste -------------------------

BOILERPLATE_LINES = [  # as torch prints them (c10/cuda/CUDAException.cpp), every release since 2.1
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "Exception raised from try_all at /pytorch/aten/src/ATen/native/cudnn/Conv.cpp:692 "
    "(most recent call first):",
]


@pytest.mark.parametrize("line", BOILERPLATE_LINES)
def test_a_line_every_error_of_a_kind_carries_picks_no_entry(line):
    assert errors.find(line) == [], f"{line!r} is boilerplate, yet it picked an entry"


def test_the_cuda_check_tail_does_not_turn_another_error_into_a_device_side_assert():
    # verl-project/verl#3558 (2025): torch 2.x prints the DSA line under every CUDA error
    paste = (
        "RuntimeError: CUDA error: misaligned address\n" + "\n".join(BOILERPLATE_LINES[:2]) + "\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    )
    assert errors.find(paste)[0].id == "illegal-memory-access"
    # and a CUDA error with no family of its own gets the generic one, never another family's
    other = (
        "RuntimeError: CUDA error: operation not permitted when stream is capturing\n"
        + (BOILERPLATE_LINES[3])
    )
    assert [e.id for e in errors.find(other)] == ["cuda-runtime-error"]


def test_a_distributed_runs_rank_prefixes_change_nothing(capsys):
    message = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:1 and cpu!"
    )
    prefixed = "\n".join(
        f"[rank1]: {line}" for line in ["Traceback (most recent call last):", message]
    )
    assert [e.id for e in errors.find(prefixed)] == [e.id for e in errors.find(message)]
    assert errors.main([prefixed]) == 0
    assert "Printed by rank 1 of a distributed run" in " ".join(capsys.readouterr().out.split())


def _case(text: str, capsys) -> str:
    assert errors.main([text]) == 0
    out = capsys.readouterr().out
    assert "In your paste:" in out, out
    return " ".join(out.split("In your paste:", 1)[1].split("\n\n", 1)[0].split())


def test_an_embedding_left_on_the_cpu_is_named_as_the_one_to_move(capsys):
    # smthemex/ComfyUI_YuE#30: the common device (index_select's `self`, the embedding's
    # weight) is the first one named, the argument's own device the second
    # (aten/src/ATen/core/op_registration/adaption.cpp)
    case = _case(
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cpu and cuda:0! (when checking argument for argument index in method "
        "wrapper_CUDA__index_select)",
        capsys,
    )
    assert "index_select got index" in case and "on cuda:0" in case
    assert "its weight) is on the CPU" in case and "Move the model, not the indices" in case


def test_indices_left_on_the_cpu_are_named_as_the_ones_to_move(capsys):
    # pengzhendong/streaming-sensevoice#3
    case = _case(
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cpu! (when checking argument for argument index in method "
        "wrapper_CUDA__index_select)",
        capsys,
    )
    assert "got index" in case and "on the CPU" in case and "to cuda:0 before the call" in case
    assert "Move the model" not in case


def test_a_meta_tensor_is_a_weight_never_loaded_not_an_input_to_move(capsys):
    # huggingface/transformers#32332: device_map="auto" left a parameter on meta
    case = _case(
        "transformers modeling_utils from_pretrained(device_map='auto')\n"
        "RuntimeError: Tensor on device meta is not on the expected device cuda:0!",
        capsys,
    )
    assert "never loaded, not an input to move" in case and 'device_map="auto"' in case


def test_a_state_dict_error_with_module_on_both_sides_is_not_the_prefix_problem(capsys):
    paste = (
        "RuntimeError: Error(s) in loading state_dict for DataParallel:\n"
        '\tMissing key(s) in state_dict: "module.layer6.0.weight".\n'
        '\tUnexpected key(s) in state_dict: "module.layer5.0.weight".'
    )
    assert "unexpected-module-prefix" not in [e.id for e in errors.find(paste)]
    # the same key, the checkpoint's wrapped and the model (so not a DataParallel) not
    one_side = paste.replace('"module.layer6', '"layer5').replace("DataParallel", "ResNet")
    assert errors.find(one_side)[0].id == "unexpected-module-prefix"
    other_way = paste.replace('"module.layer5', '"layer6')
    assert _case(other_way, capsys).startswith("Here the model is the wrapped one")


def test_a_state_dict_error_whose_sides_share_no_key_is_not_the_prefix_problem():
    """One side carries `module.` and the other not, but no key of one side is a key of the
    other with the prefix added or taken away: the prefix is not what keeps them apart (the
    weights under a "state_dict" key, ankitajaiswal00/Try-First#26, a list cut short by the
    paste). A wrapper model whose unexpected keys carry `module.` has them too
    (KexianHust/Structure-Guided-Ranking-Loss#6)."""
    nested = (
        "RuntimeError: Error(s) in loading state_dict for DataParallel: Missing key(s) in "
        'state_dict: "module.conv1.weight", "module.bn1.weight",\n'
        'Unexpected key(s) in state_dict: "state_dict".'
    )
    assert "unexpected-module-prefix" not in [e.id for e in errors.find(nested)]
    assert errors.find(nested.replace('"state_dict".', '"conv1.weight".'))[0].id == (
        "unexpected-module-prefix"
    )
    wrapper = (
        "RuntimeError: Error(s) in loading state_dict for DataParallel:\n\tUnexpected key(s) in "
        'state_dict: "module.encoder.bn1.num_batches_tracked".'
    )
    assert "unexpected-module-prefix" not in [e.id for e in errors.find(wrapper)]
    plain = wrapper.replace("for DataParallel", "for ResNet")
    assert errors.find(plain)[0].id == "unexpected-module-prefix"


def test_a_conv_type_error_says_which_side_is_half_and_where(capsys):
    # the form of aten/src/ATen/native/Convolution.cpp's check, with a half input on the GPU
    case = _case(
        "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type "
        "(torch.cuda.FloatTensor) should be the same",
        capsys,
    )
    assert "The input is float16 on a GPU; the layer's weight is float32 on a GPU" in case
    assert "Same device, different dtypes" in case


def test_a_half_input_to_a_float_conv_is_a_dtype_error_in_each_cpus_wording():
    """Issue 26: on a CPU with AVX512-FP16, oneDNN takes the call and words it "Input type
    (torch.HalfTensor) and weight type (torch.FloatTensor) should be the same or input should
    be a MKLDNN tensor ..."; elsewhere "expected scalar type Half but found Float". The entry's
    example turns oneDNN off, so the page shows one message on every CPU; both wordings, and
    whatever this CPU says with oneDNN on, are answered as a dtype mismatch."""
    import torch
    from torch import nn

    onednn = (
        "RuntimeError: Input type (torch.HalfTensor) and weight type (torch.FloatTensor) should "
        "be the same or input should be a MKLDNN tensor and weight is a dense tensor"
    )
    with pytest.raises(RuntimeError) as here:
        nn.Conv2d(1, 2, 3, bias=False)(torch.ones(1, 1, 5, 5, dtype=torch.float16))
    for text in (
        onednn,
        "RuntimeError: expected scalar type Half but found Float",
        str(here.value),
    ):
        found = errors.find(text)
        assert found and found[0].topic == "dtype mismatches", (text, [e.id for e in found])
    assert "mkldnn.flags(enabled=False)" in errors.get("expected-scalar-type").reproduce


def test_an_entry_links_to_a_section_its_katas_discussion_page_has():
    """The links point at docs/discussions/<kata>.md's "The ideas" (the split of issue 25); the
    heading must exist there, or the link lands at the top of the page."""
    for name in {e.kata for e in ENTRIES} | {n for e in ENTRIES for n in e.also}:
        page = catalogue.get(name).discussion.read_text()
        assert "\n## The ideas\n" in page, f"docs/discussions/{name}.md has no '## The ideas'"


def test_measure_counts_right_wrong_missed_and_claimed(tmp_path, capsys):
    pastes = tmp_path / "pastes.toml"
    pastes.write_text(
        textwrap.dedent(
            """
            [[paste]]
            text = "RuntimeError: No CUDA GPUs are available"
            expect = "no-cuda-gpus"
            source = "right"
            [[paste]]
            text = "RuntimeError: No CUDA GPUs are available"
            expect = "same-device"
            source = "wrong"
            [[paste]]
            text = "ValueError: something else entirely"
            expect = "same-device"
            source = "missed"
            [[paste]]
            text = "RuntimeError: No CUDA GPUs are available"
            expect = ""
            source = "claimed"
            [[paste]]
            text = "ValueError: something else entirely"
            expect = "none-fits"
            source = "declined"
            [[paste]]
            text = "RuntimeError: No CUDA GPUs are available"
            expect = "none-fits"
            source = "answered"
            """
        )
    )
    assert errors.main(["--measure", str(pastes)]) == 1
    out = capsys.readouterr().out
    assert "2 of 5 topic pastes get the right entry first (40%), 2 a wrong one, 1 none" in out
    assert "(1 of the right ones expect none-fits and matched no entry)" in out
    assert "wrong (no-cuda-gpus, not none-fits): answered" in out
    assert "1 of 1 unrelated errors claimed" in out
    assert "wrong (no-cuda-gpus, not same-device): wrong" in out and "claimed (no-cuda-gpus)" in out


def test_a_cublas_status_names_the_product_and_its_dtype(capsys):
    """TORCH_CUDABLAS_CHECK prints the call as written (aten/src/ATen/cuda/Exceptions.h): its
    routine says whether the product is batched, its CUDA_R_* types or its letter the dtype."""
    paste = (  # opendatalab/MinerU#1508, a Tesla M40
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling "
        "`cublasGemmStridedBatchedEx(handle, opa, opb, (int)m, (int)n, (int)k, (void*)&falpha, a, "
        "CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, (int)ldb, strideb, (void*)&fbeta, c, "
        "CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, "
        "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`"
    )
    assert errors.main([paste]) == 0
    said = errors.normalize(capsys.readouterr().out)
    assert "batched matrix product" in said and "in bfloat16" in said
    assert "compute capability 8.0" in said
    sgemm = (
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling "
        "`cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`"
    )
    assert errors.main([sgemm]) == 0
    said = errors.normalize(capsys.readouterr().out)
    assert "a matrix product (Linear, mm, matmul) in float32" in said
    assert "compute capability" not in said.split("What it means")[0]


def test_a_cudnn_status_is_read_by_its_group(capsys):
    assert errors.main(["RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR"]) == 0
    said = errors.normalize(capsys.readouterr().out)
    assert "In your paste: cuDNN returned CUDNN_STATUS_MAPPING_ERROR" in said
    assert errors.main(["cuDNN error: CUDNN_STATUS_NOT_SUPPORTED_SHAPE"]) == 0
    assert "no implementation for these inputs" in errors.normalize(capsys.readouterr().out)


def test_an_issue_title_retyped_with_full_width_punctuation_is_read_as_ascii():
    """A title typed with a Chinese input method (jackaduma/CycleGAN-VC2#10): full-width colon,
    ideographic full stops. `narrow` gives the ASCII the patterns expect; the rest is unchanged."""
    title = (
        "RuntimeError： Attempting todeserialize object on a CUDA device but "
        "torch。cuda.is_available() is False。"
    )
    assert errors.narrow(title) == title.replace("：", ":").replace("。", ".")
    assert errors.find(title)[0].id == "deserialize-on-cuda"
    assert errors.narrow("无法加载") == "无法加载"


def test_a_console_line_wrapped_in_the_middle_of_a_word_is_read_whole():
    """A terminal that wraps a long line puts the break inside a word ("along di" / "mension 0",
    Lightning-AI/pytorch-lightning#5613); the text is also matched with such breaks taken out."""
    warning = (
        "UserWarning: Was asked to gather along dimension 0, but all input tensors were scalars; "
        "will instead unsqueeze and return a vector."
    )
    wrapped = warning.replace("along di", "along di\n")
    assert errors.find(wrapped)[0].id == "gather-scalars"
    assert errors.find(wrapped.replace("di\n", "di \n")) == []  # a space there is two words


def test_an_input_that_overlaps_the_written_to_tensor_is_the_overlap_family():
    """The memory-overlap check's other half (aten/src/ATen/MemoryOverlap.cpp): an input that is
    a view of the tensor written in place, as torch 2.13 raises it on the CPU."""
    import torch

    a = torch.ones(1, 2)
    with pytest.raises(RuntimeError) as raised:
        a -= a[:, :1]
    assert errors.find(str(raised.value))[0].id == "written-to-tensor-overlaps"


# --- the C++ messages of the topic paths (dojo/coverage-cpp-sources.toml) -----------------------

CPP_FAMILIES = [  # each as its source builds it, with the values a run fills in
    # torch/csrc/cuda/comm.cpp, what DataParallel's gather and replicate call
    (
        "Expected all input tensors to be CUDA tensors, but tensor at index 1 has device 'cpu'",
        "gather-cpu-outputs",
    ),
    (
        "Expected all output tensors to be CUDA tensors, but output tensor at index 0 has device "
        "'cpu'",
        "gather-cpu-outputs",
    ),
    (
        "Input tensor at index 1 has invalid shape [2, 37], but expected [2, 40]",
        "gather-shape-mismatch",
    ),
    (
        "Expected all input tensors to have the same number of dimensions, but tensor at "
        "index 1has 3 dimensions, (expected 2)",
        "gather-shape-mismatch",
    ),
    ("All tensors must be on devices[0]: 0", "module-device-ids"),
    # torch/csrc/cuda/nccl.cpp and ProcessGroupNCCL.cpp
    ("NCCL only supports CUDA tensors, but got a tensor on cpu", "nccl-needs-gpu"),
    (
        "NCCL does not support all_reduce with sparse tensors. Please use dense tensors instead.",
        "nccl-needs-gpu",
    ),
    (
        "Attempt to perform collective on tensor not on device passed to init_process_group",
        "nccl-one-device-per-process",
    ),
    (
        "Not able to create/get the NCCL Communicator since the GPU devices are not known",
        "nccl-one-device-per-process",
    ),
    ("Tensors must be non-overlapping and dense", "collective-contiguous"),
    (
        "Detected non-contiguous tensor in P2P operations. It is user responsibility to guarantee "
        "that source and destination tensors have the same contiguity format.",
        "collective-contiguous",
    ),
    # c10/cuda/CUDACachingAllocator.cpp
    (
        "The kernel on this machine does not support the pidfd_open syscall needed to use IPC "
        "for CUDA tensors when expandable_segments:True is set. Consider using "
        "expandable_segments:False via "
        "torch.cuda.memory._set_allocator_settings('expandable_segments:False') for this "
        "allocation.",
        "expandable-segments-ipc",
    ),
    # aten/src/ATen/native/Memory.cpp
    (
        "The argument 'device' of Tensor.pin_memory() is deprecated. Please do not pass this "
        "argument.",
        "pin-memory-device-argument",
    ),
    (
        "The argument 'device' of Tensor.is_pinned() is deprecated. Please do not pass this "
        "argument.",
        "pin-memory-device-argument",
    ),
    # c10/core/TensorImpl.cpp and torch/csrc/autograd/variable.cpp
    (
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
        "inference-tensor-inplace",
    ),
    ("cannot register a hook on a variable that doesn't require gradient", "no-grad-fn"),
    # aten/src/ATen/cuda/CUDAGeneratorImpl.cpp and CUDAContext.cpp
    ("The device_index is invalid.", "invalid-device-ordinal"),
    (
        "device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "
        '"../aten/src/ATen/cuda/CUDAContext.cpp":50, please report a bug to PyTorch. device=1, '
        "num_gpus=1",
        "invalid-device-ordinal",
    ),
    # c10/cuda/CUDACachingAllocator.cpp
    ("Invalid device argument 3: did you call init?", "invalid-device-ordinal"),
    # the caching allocator's settings: c10/core/AllocatorConfig.cpp and .h and
    # c10/cuda/CUDAAllocatorConfig.cpp as 2.15 builds them, then 2.6's wordings
    ("Unrecognized key 'expandable_segments=True' in CUDA allocator config.", "alloc-conf-invalid"),
    ("Unrecognized key 'max_split_size' in Accelerator allocator config.", "alloc-conf-invalid"),
    (
        "Expected 'True' or 'False' at index 2 in ConfigTokenizer but got 'true'",
        "alloc-conf-invalid",
    ),
    ("CachingAllocator option max_split_size_mb too small, must be >= 20", "alloc-conf-invalid"),
    (
        "CachingAllocator option max_non_split_rounding_mb too small, must be >= 20",
        "alloc-conf-invalid",
    ),
    ("garbage_collect_threshold is invalid, set it in (0.0, 1.0)", "alloc-conf-invalid"),
    (
        "For roundups, the divisions has to be power of 2 or 0 to disable roundup ",
        "alloc-conf-invalid",
    ),
    ("For roundups, the intervals have to be power of 2 ", "alloc-conf-invalid"),
    ("per_process_memory_fraction is invalid, set it in [0.0, 1.0]", "alloc-conf-invalid"),
    ("Number of register threads has to be power of 2, got 3", "alloc-conf-invalid"),
    (
        "Number of register threads should be less than or equal to 128, got 256",
        "alloc-conf-invalid",
    ),
    ("Pinned reserve segment size has to be greater than 0", "alloc-conf-invalid"),
    ("Unknown allocator backend, options are native and cudaMallocAsync", "alloc-conf-invalid"),
    ("Unrecognized CachingAllocator option: expandable_segments", "alloc-conf-invalid"),
    ("Expected a single True/False argument for expandable_segments", "alloc-conf-invalid"),
    ("garbage_collect_threshold too small, set it 0.0~1.0", "alloc-conf-invalid"),
    ("garbage_collect_threshold too big, set it 0.0~1.0", "alloc-conf-invalid"),
    ("For roundups, the divisons has to be power of 2 ", "alloc-conf-invalid"),
    ("Error, expecting max_split_size_mb value", "alloc-conf-invalid"),
    (
        "PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead",
        "alloc-conf-deprecated",
    ),
    # torch/csrc/cuda/nccl.cpp, met through DataParallel's replicate in 1.x
    ("inputs must be on unique devices", "device-ids-repeated"),
]


@pytest.mark.parametrize(("text", "expected"), CPP_FAMILIES, ids=[t[:40] for t, _ in CPP_FAMILIES])
def test_a_cpp_message_of_the_topic_sources_finds_its_family(text, expected):
    """The C++ messages that the source extraction added (issue 27) are answered by their
    family, alone and at the end of a traceback."""
    pasted = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 41, in <module>\n'
        "    out = model(batch)\n"
        f"RuntimeError: {text}\n"
    )
    for form in (text, pasted):
        found = [e.id for e in errors.find(form)]
        assert found and found[0] == expected, f"find({form!r}) gave {found}, not {expected}"


def test_numpys_complex_warning_is_not_torchs():
    """numpy's ComplexWarning has torch's words; the index answers torch's only."""
    numpy = "ComplexWarning: Casting complex values to real discards the imaginary part"
    assert errors.find(numpy) == []
    torch = "UserWarning: Casting complex values to real discards the imaginary part"
    assert [e.id for e in errors.find(torch)][:1] == ["complex-to-real"]


ALLOCATOR_SETTINGS = [  # PYTORCH_ALLOC_CONF values the installed torch refuses, on any machine
    "expandable_segments:true",  # not True
    "max_split_size_mb:1",  # below 20
    "garbage_collection_threshold:2",  # not in (0, 1)
    "roundup_power2_divisions:3",  # not a power of 2
    "expandable_segments=True",  # '=' for ':' (2.13: an internal assert; 2.15: an unknown key)
    "expandable_segments",  # a key without its value (pytorch/pytorch#186453)
]


@pytest.mark.parametrize("setting", ALLOCATOR_SETTINGS)
def test_allocator_settings_that_torch_refuses_are_answered_by_their_family(setting):
    """The installed torch parses the allocator's settings on a CPU-only machine too: what it
    raises for each malformed value is answered by alloc-conf-invalid."""
    torch = pytest.importorskip("torch")
    with pytest.raises((ValueError, RuntimeError)) as raised:
        torch._C._accelerator_setAllocatorSettings(setting)
    found = [e.id for e in errors.find(f"{type(raised.value).__name__}: {raised.value}")]
    assert found[:1] == ["alloc-conf-invalid"], f"{setting!r}: {raised.value} gave {found}"


def test_an_allocator_setting_in_the_familys_syntax_is_taken():
    """The family's syntax is the one torch takes: `key:value,key:value`."""
    torch = pytest.importorskip("torch")
    torch._C._accelerator_setAllocatorSettings(
        "max_split_size_mb:128,garbage_collection_threshold:0.6"
    )
    assert "max_split_size_mb:128" in torch._C._accelerator_getAllocatorSettings()
    torch._C._accelerator_setAllocatorSettings("")


ALLOCATOR_CASES = [  # the message, and what the answer reads from it
    (
        "Unrecognized key 'expandable_segments=True' in CUDA allocator config.",
        "expandable_segments:True",
    ),
    ("Unrecognized CachingAllocator option: expandable_segments", "newer than this torch"),
    ("Unrecognized CachingAllocator option: cudart", "cudart is not a key this torch knows"),
    ("Expected 'True' or 'False' at index 2 in ConfigTokenizer but got 'true'", "written True"),
    ("CachingAllocator option max_split_size_mb too small, must be >= 20", "at least 20"),
    ("CachingAllocator option max_split_size_mb too small, must be > 20", "more than 20"),
    (
        'i < config_.size() INTERNAL ASSERT FAILED at "/pytorch/c10/core/AllocatorConfig.h":124, '
        "please report a bug to PyTorch. Index out of bounds in ConfigTokenizer",
        "a key without its :value",
    ),
]


@pytest.mark.parametrize(("message", "said"), ALLOCATOR_CASES, ids=[c[1] for c in ALLOCATOR_CASES])
def test_the_answer_names_the_allocator_setting_torch_refused(message, said, capsys):
    """A refused PYTORCH_ALLOC_CONF value is read from the paste: the key, the value, the bound."""
    assert said in _case(f"RuntimeError: {message}", capsys)


# --- a fix that is a kata's lesson --------------------------------------------------------------

LESSONS = [e for e in ENTRIES if e.lesson]


def test_some_entry_is_a_lesson():
    assert LESSONS, "no entry of the index is marked `lesson = true`; the tests below need one"


@pytest.mark.parametrize("entry", LESSONS, ids=[e.id for e in LESSONS])
def test_explain_leaves_a_lessons_fix_to_the_kata_until_it_is_done(entry, monkeypatch, tmp_path):
    """Pasting the error a kata's first check shows must not hand over the kata: the hint
    ladder is one rung at a time. Once the kata is done, or with --fix, the fix is shown."""
    from dojo import state

    kata = catalogue.get(entry.kata)
    monkeypatch.setattr(state, "STATE", tmp_path / ".katas-state")  # nothing done yet
    fix = textwrap.fill(entry.fix.replace("`", ""), width=10_000)[:40]

    def said(**kwargs) -> str:
        return " ".join(errors.explain(entry, **kwargs).split())

    out = said()
    assert fix not in out, f"explain showed {entry.id}'s fix before {kata.name} was done"
    assert "Fix: not shown yet" in out and f"python -m katas hint {kata.name}" in out
    assert "explain --fix" in out
    assert fix in said(fix=True)
    monkeypatch.setattr(state, "known_done", lambda k, saved=None: k.name == kata.name)
    assert fix in said(), f"explain withheld {entry.id}'s fix after {kata.name} was done"


def test_explain_fix_reaches_the_index():
    entry = LESSONS[0]
    done = _katas("explain", "--fix", entry.message, text=True)
    assert done.returncode == 0, done.stderr
    assert " ".join(entry.fix.replace("`", "").split())[:40] in " ".join(done.stdout.split())


def test_entries_not_lessons_always_show_their_fix(monkeypatch, tmp_path):
    from dojo import state

    monkeypatch.setattr(state, "STATE", tmp_path / ".katas-state")
    entry = next(e for e in ENTRIES if not e.lesson)
    assert not errors.withheld(entry)
    assert "Fix: not shown yet" not in errors.explain(entry)
