"""The kata tool: catalogue, learner commands, test harness, progress, verifiers.

Learners never need to open this package; their room is katas/. Nothing here imports
reference/ (only `python -m katas solution` reads it, as text).
"""
