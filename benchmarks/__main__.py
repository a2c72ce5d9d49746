"""`python -m benchmarks`: see benchmarks/runner.py."""

import sys

from benchmarks.runner import main

if __name__ == "__main__":
    sys.exit(main())
