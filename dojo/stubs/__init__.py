"""Pristine copies of the stubs in katas/: what `python -m katas reset` restores and what the
stub checks run on, whatever state the learner's own files are in."""
