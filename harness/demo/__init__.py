"""The shipped demo: a generated workspace and a scripted agent session over it, used by
``harness demo`` and by the context benchmarks."""
