"""The coverage check (dojo/coverage.py): which topic messages of torch and of the CUDA runtime
the error index does not recognise. Topic is where a message comes from, so the check cannot
pass by looking at fewer files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dojo import coverage, cpp_messages

ISSUE_PATHS = (  # issue 27 names these; the check must read every one of them
    "torch/cuda",
    "torch/nn/parallel",
    "torch/distributed",
    "torch/utils/data",
    "torch/amp",
)


def test_the_topic_is_every_file_under_the_issues_paths():
    assert set(ISSUE_PATHS) <= set(coverage.TOPIC_PATHS)


def _torch(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code))
    return tmp_path


def test_messages_are_read_from_raises_and_warnings_with_what_is_built_at_run_time(tmp_path):
    site = _torch(
        tmp_path,
        {
            "torch/cuda/__init__.py": """
                import warnings
                def f(n, device):
                    raise RuntimeError(f"Invalid device {device}, only {n} GPUs here")
                def g():
                    warnings.warn("the pool is empty " + "after a reset")
                    raise ValueError("one two")  # two words: not a message a reader pastes
            """,
            "torch/fx/other.py": 'raise RuntimeError("outside the topic paths entirely")\n',
        },
    )
    texts = {m.text for m in coverage.python_messages(site)}
    assert texts == {
        f"Invalid device {coverage.PLACEHOLDER}, only {coverage.PLACEHOLDER} GPUs here",
        "the pool is empty after a reset",
    }


def test_a_new_message_in_a_topic_file_fails_until_it_has_a_family_or_a_reason(tmp_path):
    site = _torch(
        tmp_path,
        {"torch/nn/parallel/new.py": 'raise RuntimeError("a brand new failure of replicas")\n'},
    )
    messages = coverage.python_messages(site)
    report = coverage.check(messages, coverage.LeftOut({}, {}))
    assert [m.text for m in report.missed] == ["a brand new failure of replicas"]
    assert not report.ok
    listed = coverage.LeftOut({}, {"a brand new failure of replicas": "why"})
    assert coverage.check(messages, listed).ok
    by_folder = coverage.LeftOut({"torch/nn/parallel/new.py": "why"}, {})
    assert coverage.check(messages, by_folder).ok


def test_a_listed_message_is_stale_when_gone_only_from_the_release_it_was_listed_from():
    """One list serves the pin and the newest release: a message that 2.15 dropped is no
    stale line on 2.15 when it was listed from 2.13, and is one on 2.13."""
    listed = coverage.LeftOut({}, {"from 2.13": "why", "from 2.15": "why"},
                              {"from 2.13": ("2.13",), "from 2.15": ("2.15",)})  # fmt: skip
    on_newest = coverage.check([], listed, installed="2.15")
    assert on_newest.stale == ["'from 2.15' is no longer a topic message"]
    on_pin = coverage.check([], listed, installed="2.13")
    assert on_pin.stale == ["'from 2.13' is no longer a topic message"]
    assert coverage.release("2.15.0+cu132") == "2.15"
    assert coverage.left_out().releases  # the real list reads its releases


def test_a_message_the_index_recognises_passes_and_its_listing_is_stale(tmp_path):
    text = "Expected all tensors to be on the same device, but found at least two devices"
    site = _torch(tmp_path, {"torch/amp/x.py": f'raise RuntimeError("{text}")\n'})
    messages = coverage.python_messages(site)
    assert coverage.check(messages, coverage.LeftOut({}, {})).ok
    stale = coverage.check(messages, coverage.LeftOut({}, {text: "why"}))
    assert not stale.ok and "recognised now" in stale.stale[0]
    gone = coverage.check([], coverage.LeftOut({}, {"a message torch no longer has": "why"}))
    assert not gone.ok and "no longer" in gone.stale[0]


def test_every_listed_message_and_folder_has_a_reason():
    listed = coverage.left_out()
    assert listed.folders and all(r.strip() for r in listed.folders.values())
    assert all(r.strip() for r in listed.texts.values())
    # a folder left out lies inside a topic path, a Python one or a C++ one, and is not one
    assert all(
        f.startswith(coverage.TOPIC_PATHS) or cpp_messages.in_scope(f) for f in listed.folders
    )
    assert not set(listed.folders) & {*coverage.TOPIC_PATHS, *cpp_messages.CPP_TOPIC_PATHS}
    # by macro: only the internal asserts, each with its reason
    assert set(listed.macros) == {"TORCH_INTERNAL_ASSERT", "TORCH_INTERNAL_ASSERT_DEBUG_ONLY"}
    assert all(r.strip() for r in listed.macros.values())


def test_the_installed_torch_has_no_topic_message_the_index_misses(capsys):
    """The check itself, on the torch this suite runs with (its Python messages; the CPU build
    has no CUDA runtime, which CI's compat session checks with the CUDA build)."""
    code = coverage.main([])
    out = capsys.readouterr().out
    assert code == 0, out


def test_the_cuda_runtime_table_is_read_where_one_is_installed():
    import torch

    site = Path(torch.__file__).resolve().parent.parent
    cudart = coverage.find_cudart(site)
    if cudart is None:
        pytest.skip("no libcudart beside torch (the CPU build); CI's compat session has one")
    runtime = coverage.cuda_runtime_messages(cudart)
    texts = {m.text for m in runtime}
    assert "CUDA error: misaligned address" in texts and len(runtime) > 100
    assert coverage.check(runtime, coverage.left_out()).ok


# --- the C++ messages and the libraries' status tables (issue 27) -------------------------------


def _site() -> Path:
    import torch

    return Path(torch.__file__).resolve().parent.parent


def test_every_listed_cpp_fragment_is_in_the_installed_torchs_library():
    """dojo/coverage-cpp.toml's fragments, looked up in the libraries this torch has (the CPU
    build: libc10.so and libtorch_cpu.so; the CUDA libraries are checked by CI's compat session
    with --require-cuda). A release whose text changed fails here."""
    listed = coverage.cpp_list()
    check = coverage.cpp_messages(_site(), listed)
    assert not check.absent, check.absent
    here = [m for m in listed if m.library not in check.unchecked]
    assert len(here) >= 12, "the device and dtype messages live in libtorch_cpu.so and libc10.so"
    assert {m.library for m in listed} >= {"libtorch_cpu.so", "libc10_cuda.so", "libtorch_cuda.so"}


def test_a_cpp_fragment_missing_from_its_library_is_reported(tmp_path):
    lib = tmp_path / "torch" / "lib"
    lib.mkdir(parents=True)
    (lib / "libtorch_cpu.so").write_bytes(b"\0Expected all tensors to be on the same device\0")
    listed = [
        coverage.CppMessage(
            "Expected all tensors to be on the same device, but found cuda:0 and cpu!",
            ("Expected all tensors to be on the same device", "but found "),
            "libtorch_cpu.so",
            "aten/src/ATen/TensorIterator.cpp",
            "a test",
        ),
        coverage.CppMessage(
            "No CUDA GPUs are available", ("No CUDA GPUs",), "libc10_cuda.so", "x", "y"
        ),
    ]
    check = coverage.cpp_messages(tmp_path, listed)
    assert [a.split(" lacks ")[1].split(" (")[0] for a in check.absent] == ["'but found '"]
    assert check.unchecked == ["libc10_cuda.so"]
    assert [m.text for m in check.messages] == [m.text for m in listed]


def test_a_cpp_entry_whose_fragment_is_not_in_its_text_is_refused(tmp_path):
    path = tmp_path / "cpp.toml"
    path.write_text(
        textwrap.dedent(
            """
            [[message]]
            text = "No CUDA GPUs are available"
            fragments = ["No GPUs"]
            library = "libc10_cuda.so"
            source = "c10/cuda/CUDAFunctions.cpp"
            read = "a test"
            """
        )
    )
    with pytest.raises(ValueError, match="fragment is not in its text"):
        coverage.cpp_list(path)
    path.write_text(path.read_text().replace('read = "a test"', ""))
    with pytest.raises(ValueError, match="no read"):
        coverage.cpp_list(path)


def test_every_listed_cpp_message_is_answered_or_left_out_with_a_reason():
    check = coverage.cpp_messages(_site(), coverage.cpp_list())
    report = coverage.check(check.messages, coverage.left_out(), installed=None)
    assert not report.missed, [m.text for m in report.missed]
    assert not report.generic, [m.text for m, _ in report.generic]


def test_the_library_status_tables_are_read_where_the_cuda_build_is_installed():
    tables = coverage.library_messages(_site())
    if not tables:
        pytest.skip("no cuDNN, cuBLAS or NCCL beside torch (the CPU build); CI's compat has them")
    texts = {m.text for m in tables}
    assert "cuDNN error: CUDNN_STATUS_INTERNAL_ERROR" in texts
    assert any("CUBLAS_STATUS_NOT_SUPPORTED" in t for t in texts)
    assert any("remote process exited or there was a network error" in t for t in texts)
    assert not coverage.check(tables, coverage.left_out()).missed


# --- the C++ messages enumerated from PyTorch's sources (dojo/cpp_messages.py) ---------------

BRIEF_PATHS = (  # the C++ topic paths issue 27's work named; the scope may grow, never shrink
    "c10/cuda/",
    "aten/src/ATen/cuda/",
    "aten/src/ATen/TensorUtils.cpp",
    "aten/src/ATen/native/TensorConversions.cpp",
    "aten/src/ATen/native/Copy.cpp",
    "aten/src/ATen/native/cuda/Copy.cu",
    "aten/src/ATen/native/Memory.cpp",
    "torch/csrc/cuda/",
    "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
    "torch/csrc/distributed/c10d/NCCLUtils.cpp",
    "torch/csrc/distributed/c10d/NCCLUtils.hpp",
    "torch/csrc/autograd/VariableTypeUtils.h",
    "torch/csrc/autograd/saved_variable.cpp",
    "c10/core/Device.cpp",
    "c10/core/DeviceType.cpp",
    "c10/core/TensorImpl.h",
)


def test_the_extractions_scope_is_the_path_list_its_header_names():
    """The committed extraction says which paths it covers; they are the check's paths, every
    file it was read from lies inside them, and every message comes from one of its files."""
    extraction = cpp_messages.committed()
    assert extraction.paths == cpp_messages.CPP_TOPIC_PATHS
    assert set(BRIEF_PATHS) <= set(cpp_messages.CPP_TOPIC_PATHS)
    assert extraction.files and all(cpp_messages.in_scope(p) for p in extraction.files)
    assert all(len(commit) == 40 for commit in extraction.files.values())
    assert {m.path for m in extraction.messages} <= set(extraction.files)
    # text joins the pieces with their runs of whitespace made one space (a piece may end in one
    # or hold a newline), so the longest piece, read the same way, is in it
    assert all(" ".join(m.longest.split()) in m.text for m in extraction.messages)
    assert all(reason.strip() for _, reason in extraction.dropped)
    # what is not extracted yet is named, never silently outside the check: every .cpp/.cu file
    # the path list names is extracted or pending, and pending files lie inside the scope
    named = [p for p in cpp_messages.CPP_TOPIC_PATHS if p.endswith((".cpp", ".cu"))]
    assert set(named) <= set(extraction.files) | set(extraction.pending)
    assert all(cpp_messages.in_scope(p) for p in extraction.pending)
    assert not set(extraction.pending) & set(extraction.files)


def test_the_extractor_joins_literals_and_marks_what_is_built_at_run_time():
    source = textwrap.dedent(
        """\
        #define TORCH_CHECK(cond, ...) something("not a message of the topic")
        void f(int n) {
          TORCH_CHECK(
              n > 0,  // a comment, with "a string" in it
              "Expected a positive "
              "count, but got ", n, " (on ", dev, ")");
          TORCH_INTERNAL_ASSERT(ok, "the allocator lost a block");
          AT_ERROR("no device ", name, " is here");
          TORCH_CHECK(x, "two words");
          TORCH_CHECK(y);
          TORCH_CHECK(z, ERR_TWICE);
        }
        const char* ERR_TWICE =
            "Trying to backward through "
            "the graph twice";
        """
    )
    found = cpp_messages.extract(source, "c10/cuda/X.cpp")
    p = cpp_messages.PLACEHOLDER
    assert [(m.line, m.macro, m.text) for m in found] == [
        (3, "TORCH_CHECK", f"Expected a positive count, but got {p} (on {p})"),
        (7, "TORCH_INTERNAL_ASSERT", "the allocator lost a block"),
        (8, "AT_ERROR", f"no device {p} is here"),
        (11, "TORCH_CHECK", "Trying to backward through the graph twice"),  # a named constant
    ]
    assert found[0].pieces == ("Expected a positive count, but got ", " (on ", ")")
    assert found[0].longest == "Expected a positive count, but got "


def test_an_extracted_message_neither_answered_nor_left_out_fails_the_check(tmp_path):
    site = _torch(
        tmp_path,
        {
            "torch/include/c10/cuda/New.h": """
                TORCH_CHECK(ok, "the zorblax stream refused a frobnicated handle ", h);
                TORCH_INTERNAL_ASSERT(ok, "the zorblax pool lost its handle count");
            """,
            "torch/include/c10/util/Other.h": 'TORCH_CHECK(ok, "outside the topic paths");\n',
        },
    )
    empty = cpp_messages.Extraction(cpp_messages.CPP_TOPIC_PATHS, {}, [])
    sources = coverage.cpp_source_messages(site, empty)
    assert sources.headers == 2 and sources.absent is None  # no CUDA build: pieces not checked
    text = f"the zorblax stream refused a frobnicated handle {coverage.PLACEHOLDER}"
    report = coverage.check(sources.messages, coverage.LeftOut({}, {}))
    assert {m.text for m in report.missed} == {text, "the zorblax pool lost its handle count"}
    assert all(m.source.startswith("c10/cuda/New.h:") for m in report.missed)
    assert not report.ok
    macros = {"TORCH_INTERNAL_ASSERT": "torch's own consistency check"}
    listed = coverage.LeftOut({}, {text: "why"}, macros=macros)
    report = coverage.check(sources.messages, listed)
    assert report.ok and len(report.folder_left) == 1 and len(report.text_left) == 1


def test_an_extracted_message_whose_piece_the_cuda_build_lacks_is_reported(tmp_path):
    lib = tmp_path / "torch" / "lib"
    lib.mkdir(parents=True)
    (lib / "libtorch_cuda.so").write_bytes(b"\0No CUDA GPUs are available\0")
    (lib / "libc10.so").write_bytes(b"\0Invalid device string: '\0")
    messages = [
        cpp_messages.CppSourceMessage(
            "c10/cuda/F.cpp",
            1,
            "TORCH_CHECK",
            "No CUDA GPUs are available",
            ("No CUDA GPUs are available",),
        ),
        cpp_messages.CppSourceMessage(
            "c10/core/Device.cpp",
            2,
            "TORCH_CHECK",
            "Invalid device string: 'cuda:0'",
            ("Invalid device string: '", "'"),
        ),
        cpp_messages.CppSourceMessage(
            "c10/cuda/F.cpp",
            3,
            "TORCH_CHECK",
            "device id must be positive!",
            ("device id must be positive!",),
        ),
    ]
    absent = cpp_messages.absent_pieces(tmp_path, messages)
    assert absent == ["c10/cuda/F.cpp:3 TORCH_CHECK: 'device id must be positive!'"]
    (lib / "libtorch_cuda.so").unlink()
    assert cpp_messages.absent_pieces(tmp_path, messages) is None


def test_the_installed_torchs_headers_give_the_cuda_topic_messages():
    """The headers of the topic paths ship in every build, the CPU one too: the check reads
    them from the installed release, so a new release's header messages are checked as they
    are."""
    sources = coverage.cpp_source_messages(_site())
    texts = {m.text for m in sources.messages}
    assert sources.headers > 50
    assert "Both events must be recorded before calculating elapsed time." in texts
    assert any(
        t.startswith("Inplace update to inference tensor outside InferenceMode") for t in texts
    )
    assert sources.extracted == len(cpp_messages.committed().messages)
