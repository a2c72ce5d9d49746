"""Check the environment for `nox -s tests-cuda`: `python -m dojo.cuda_env REQ...`.

Prints one `tests-cuda: ...` line and exits 3 when torch is missing or sees no CUDA device;
otherwise prints the requirements among REQ that are not installed, one a line.
"""

from __future__ import annotations

import importlib.metadata
import sys


def main(requirements: list[str]) -> int:
    try:
        import torch
    except ImportError:
        print(f"tests-cuda: {sys.executable} has no torch; activate the env with your CUDA torch")
        return 3
    if not torch.cuda.is_available():
        print(
            f"tests-cuda: torch {torch.__version__} in {sys.executable} sees no CUDA device "
            "(torch.cuda.is_available() is False); run it on a GPU host"
        )
        return 3
    for req in requirements:
        try:
            importlib.metadata.version(req.partition("==")[0])
        except importlib.metadata.PackageNotFoundError:
            print(req)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
