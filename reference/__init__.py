"""Reference solutions: the same public API as `katas/`, and every kata test passes against them."""
