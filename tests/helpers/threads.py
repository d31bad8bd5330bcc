"""Running a compiled function at several thread counts."""


def at_one_and_two_threads(function, args, monkeypatch) -> list:
    """``function(*args)`` with ``MG_NUM_THREADS`` 1, then 2 (the run time reads it at every
    parallel loop): the two results, to compare with each other and a reference."""
    results = []
    for threads in ("1", "2"):
        monkeypatch.setenv("MG_NUM_THREADS", threads)
        results.append(function(*args))
    return results
