"""The benchmark suite (issue 6): ``python benchmarks/run.py --help``."""
