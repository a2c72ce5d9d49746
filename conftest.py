"""Load the kata harness. It lives in dojo/harness.py; it is registered here, at the root,
because pytest reads `--impl reference` before it knows the option and would otherwise take
`reference` for a directory of tests and skip tests/ when loading plugins."""

pytest_plugins = ["dojo.harness", "dojo.progress", "dojo.host"]
