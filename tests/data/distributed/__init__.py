"""Model factories for the distributed kata: picklable, so spawned ranks can receive them."""
