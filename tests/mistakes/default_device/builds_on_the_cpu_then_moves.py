"""Builds the model on the CPU and then calls `.to(device)`: every tensor is allocated and
initialised twice, and on `meta` a 10⁵ × 10⁵ Linear first needs 40 GB of RAM.

Caught by: test_build_on_builds_straight_on_the_device, test_build_on_meta_allocates_nothing
"""

from reference.default_device import *


def build_on(device, factory):
    return factory().to(device)
