"""Your katas. Fill in one file at a time, in catalogue order (`python -m katas list`).

This package must not import torch: `python -m katas` and the docs read the catalogue through it.
"""
