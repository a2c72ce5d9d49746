"""`python -m katas`: the learner's commands (list, check, watch, hint, ...). The tool lives in
dojo/; this file only starts it, so that katas/ holds nothing but your code."""

from dojo.cli import run

run()
