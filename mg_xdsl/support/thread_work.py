"""How much work a thread should get: shared by ``convert-parallel-loops-to-threads``, which
splits loops by it, and the optimised pipeline, which tells ``convert-linalg-to-affine-loops``
not to make loops parallel that would get no thread. Nothing is imported here, so that loading the
pipeline's definition (``mgc pipeline``, ``mgc --help``) does not load xDSL's dialects."""

THRESHOLD = 1 << 15
"""Innermost iterations a thread should get at least (some tens of microseconds of work)."""


def min_work(per_thread: int) -> int:
    """A loop nest of fewer iterations, all static, is not worth splitting: it stays one loop
    (less than two threads' worth)."""
    return 2 * per_thread


MIN_WORK = min_work(THRESHOLD)
