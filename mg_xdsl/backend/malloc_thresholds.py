"""glibc's malloc thresholds, fixed where its moving ones end, so that the buffers compiled
code frees (at the end of a call, of a loop's iteration) are reused by the next call or
iteration instead of being given back to the system.

Compiled code allocates its intermediate buffers and frees them after their last use, over
and over. glibc serves a block below its mmap threshold from its heap, a threshold that
grows with the blocks freed (to 32 MiB on 64-bit), but it gives the top of the heap back to
the system whenever more than twice that threshold is free there: freeing attention's 2 MiB
buffers (8 x 256 x 256 f32) passes 4 MiB, and the next call faults their pages in again,
4 KiB at a time. Measured on Zen 3, one thread, 2026-12-06: attention through the Python
API 4.0-4.4 ms a call, 2.4-2.6 ms with the thresholds fixed (992 page faults a call, 0);
``mgc run examples/25_digits_mlp.mg`` (from the cache) 0.56 s, 0.31 s (73992 page faults,
5792). With the thresholds fixed at ``MMAP_THRESHOLD`` and ``TRIM_THRESHOLD``, up to 64 MiB
of freed memory stays in the process for the next use (larger buffers are mapped on their
own, with huge pages: ``runtime_ir``).

That is the whole process's malloc (in Python, NumPy's temporaries too). The Python API and
``mgc run`` call ``settle`` once; executables do the same in ``main`` (``runtime.c``, given
the values by ``c_defines``). ``MG_MALLOC=system`` leaves malloc as it is; elsewhere than
glibc nothing is changed.
"""

import ctypes
import os
from functools import cache

MMAP_THRESHOLD = 32 << 20  # where glibc's own moving threshold stops (64-bit)
TRIM_THRESHOLD = 64 << 20  # twice that, as glibc's moving one would be
# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


@cache
def settle() -> None:
    """Fix the thresholds, once a process (see the module docstring)."""
    if os.environ.get("MG_MALLOC") == "system" or not _glibc():
        return
    libc = ctypes.CDLL(None)
    libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)


def _glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (ValueError, OSError, AttributeError):  # (not a name this system knows; no confstr)
        return False


def c_defines() -> list[str]:
    """The C compiler's definitions that give ``runtime.c``'s ``main`` the thresholds."""
    return [f"-DMG_MMAP_THRESHOLD={MMAP_THRESHOLD}", f"-DMG_TRIM_THRESHOLD={TRIM_THRESHOLD}"]
