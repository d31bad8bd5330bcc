"""The benchmark suite: ``python benchmarks/run.py --help``."""
