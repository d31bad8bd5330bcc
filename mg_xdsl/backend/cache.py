"""The on-disk cache of compiled programs that makes a repeated ``mgc run`` fast, and a
second process's ``mg_xdsl.compile`` of the same source.

Compiling even a tiny program takes most of a second, most of it importing xDSL and running
its passes, while loading and running the finished machine code takes a few milliseconds.
So ``mgc run`` keeps the object code it compiles, and a later run of the same program loads
it instead: a cache hit imports only llvmlite, ctypes and the run-time printer (never xDSL)
and takes about a tenth of a second in all. The Python API (``mg_xdsl.api``) keeps the
libraries it compiles here too, by the same rules (its key and bypasses: ``api._open_cache``),
and loads them the same way.

The key. An entry is found by the SHA-256 of everything that decides the code:

- the source bytes;
- the compiler: a hash of every ``.py`` and ``.c`` file of the ``mg_xdsl`` package actually
  imported, so editing any compiler file (or running a mutated copy of the compiler, as the
  mutation tests do) never finds code that an older compiler made;
- the xDSL and llvmlite (hence LLVM) versions;
- the host: LLVM's target triple, CPU name and CPU features, since the code is compiled for
  exactly this processor, and its cache sizes, which shape the matrix product's blocks;
- the options that change the code (``--opt``, ``--reference``, ``--backend``; for
  ``--backend mlir`` also which ``mlir-opt``/``mlir-translate`` binaries ran; the API's
  ``optimise`` and ``cpu``), the program's path as given, which a failed run-time check's
  report names, and the directory its relative ``load``/``save`` paths are read from; and,
  for the API, that the entry is a library (its defs with their guards, no ``@main``).

An entry. One file, ``KEY.mgo`` (KEY in hex), holding a header -- a magic string with the
format version, the key again, the length and the SHA-256 of the payload -- and then the
payload: the front end's warnings (their length, then a JSON list of the lines), which a hit
prints again since the front end does not run then,
and the object code, the program with the run-time library and the thread pool linked in,
exactly as ``jit.ObjectEngine`` loads it. A library's entry (``pack_library``) is the same
but for its JSON, an object holding the warnings and a description of each def (its
parameters' and results' shapes and element types: what the API makes each def's wrapper
of, so that a hit runs no front end, and the sizes of its objects), and for its object
code, the defs and their guards with the run-time library, in one object or two (its
thread-pool bodies compiled apart: ``parallel_codegen``), which ``jit.SharedPoolEngine``
loads (the process's one thread pool runs its loops). An entry whose header does not check out (a truncated or otherwise
damaged file, a file from another format version) or whose JSON is not what the reader
expects counts as a miss; the recompiled program then replaces it.

Where. ``$MGC_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/mg-xdsl``, else
``~/.cache/mg-xdsl``; created private to the user (mode 0700), because what is in it gets
executed. Entries are written to a temporary file in the same directory and renamed into
place (``os.replace``), so concurrent ``mgc`` processes never see half an entry. After a
store, when the cache holds more than ``MAX_BYTES`` or ``MAX_ENTRIES``, the least recently
used entries (a hit refreshes an entry's modification time) are deleted until it is back
under three quarters of both (a process counts its own stores for ``RESCAN_S`` after it
looked, instead of looking at every entry again after each). Only ``*.mgo`` files and this
module's own temporary files are ever deleted, whatever directory the cache is pointed at.

Failure is never an error. A cache directory that cannot be created, read or written just
means that the program is compiled, as without the cache; ``mgc run --time`` says why (a
library's ``_cache_outcome``, in the API).

Bypass: ``MGC_NO_CACHE=1`` or ``mgc run --no-cache`` neither read nor write the cache, nor
does ``MGC_KEEP`` (its intermediate files need a full compilation). GPU programs and
libraries are never cached: their kernels are compiled and loaded onto the device (or its
emulator) through Python callbacks at every compilation.
"""

import hashlib
import importlib.util
import itertools
import json
import os
import struct
import time
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path

import llvmlite  # (the package alone, for its version: not LLVM)

# The first bytes of every entry; the last two are the entry format's version
# (2: the payload starts with the program's warnings).
MAGIC = b"MGCOBJ\x00\x02"
# magic, key (32 bytes), payload length, payload SHA-256 (32 bytes)
HEADER = struct.Struct("<8s32sQ32s")
# The payload's first field: the length of the warnings' text.
WARNINGS_LENGTH = struct.Struct("<Q")
SUFFIX = ".mgo"
TEMP_SUFFIX = ".tmp"

MAX_BYTES = 256 * 1024 * 1024
MAX_ENTRIES = 4096
# A temporary file this old was left by a process that died while writing it.
STALE_TEMP_S = 3600
# How long a process trusts its last look at a directory's entries (see ``store``).
RESCAN_S = 10.0
# What a process last saw of each directory: (when, entries, bytes), counting its stores since.
_seen: dict[Path, tuple[float, int, int]] = {}


def no_cache_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``MGC_NO_CACHE`` asks to bypass the cache (any value but empty or ``0``)."""
    return environ.get("MGC_NO_CACHE", "") not in ("", "0")


def default_directory(environ: Mapping[str, str] = os.environ) -> Path | None:
    """``$MGC_CACHE_DIR``, else ``$XDG_CACHE_HOME/mg-xdsl``, else ``~/.cache/mg-xdsl``; None
    when there is no home directory to put it in. (The XDG spec says to ignore a relative
    ``XDG_CACHE_HOME``.)"""
    if environ.get("MGC_CACHE_DIR"):
        return Path(environ["MGC_CACHE_DIR"])
    xdg = environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg, "mg-xdsl")
    try:
        return Path.home() / ".cache" / "mg-xdsl"
    except (RuntimeError, KeyError):  # no HOME and no password-database entry
        return None


def package_files(package_dir: Path) -> list[Path]:
    """The compiler's own files whose contents decide the code: every ``.py`` and ``.c`` file
    under ``package_dir``, in a fixed order."""
    found = []
    for directory, subdirs, files in os.walk(package_dir):
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        found += [Path(directory, f) for f in sorted(files) if f.endswith((".py", ".c"))]
    return found


def files_digest(files: Iterable[Path], root: Path) -> str:
    """SHA-256 over the names (relative to ``root``) and contents of ``files``. Reading them
    all takes about a millisecond, and unlike modification times, contents cannot be
    preserved by a copy that changes them."""
    h = hashlib.sha256()
    for path in files:
        data = path.read_bytes()
        name = path.relative_to(root).as_posix().encode()
        h.update(struct.pack("<QQ", len(name), len(data)) + name + data)
    return h.hexdigest()


@cache
def compiler_version() -> str:
    """A hash of the source of the ``mg_xdsl`` package that this process imported, read once
    a process (10 ms: each key paid it, where the API compiles many programs)."""
    root = Path(__file__).resolve().parent.parent  # (the mg_xdsl package)
    return files_digest(package_files(root), root)


def distribution_version(name: str) -> str:
    """The installed version of the distribution ``name`` (``xdsl``), without importing it.

    ``importlib.metadata`` costs about 35 ms to import, a third of a whole cached run, so
    this reads the name of the ``NAME-VERSION.dist-info`` directory beside the package
    instead, and asks ``importlib.metadata`` only when there is none."""
    spec = importlib.util.find_spec(name)
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            infos = sorted(Path(location).parent.glob(f"{name}-*.dist-info"))
            if len(infos) == 1:
                return infos[0].name.removesuffix(".dist-info")
    from importlib.metadata import PackageNotFoundError, version  # (only now: see above)

    try:
        return f"{name}-{version(name)}"
    except PackageNotFoundError:
        return f"{name} (not installed)"


def key(source: bytes, options: dict[str, object], host: Iterable[str]) -> bytes:
    """The 32-byte key of a program: see the module docstring. ``options`` are the code-changing
    options (name -> value), ``host`` describes the processor (triple, CPU name, features)."""
    parts = [
        MAGIC.hex(),
        compiler_version(),
        distribution_version("xdsl"),
        f"llvmlite-{llvmlite.__version__}",
        *host,
        *(f"{name}={options[name]!r}" for name in sorted(options)),
    ]
    h = hashlib.sha256()
    for part in parts:
        data = part.encode()
        h.update(struct.pack("<Q", len(data)) + data)
    h.update(struct.pack("<Q", len(source)) + source)
    return h.digest()


def tool_identity(path: str | None) -> str:
    """What identifies an external tool's binary cheaply: its path, size and modification
    time (a new version of ``mlir-opt`` is a new file)."""
    if not path:
        return "missing"
    try:
        st = os.stat(path)
    except OSError:
        return f"{path} (unreadable)"
    return f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}"


def _pack(metadata, obj: bytes) -> bytes:
    """A payload: the length of ``metadata``'s JSON, the JSON, then the object code."""
    text = json.dumps(metadata).encode()
    return WARNINGS_LENGTH.pack(len(text)) + text + obj


def _unpack(payload: bytes) -> tuple[bytes, object]:
    """The object code and the JSON metadata of a payload made by ``_pack`` (ValueError if
    it is not one)."""
    if len(payload) < WARNINGS_LENGTH.size:
        raise ValueError("too short")
    (length,) = WARNINGS_LENGTH.unpack_from(payload)
    end = WARNINGS_LENGTH.size + length
    if end > len(payload):
        raise ValueError("the metadata run past the end")
    return bytes(payload[end:]), json.loads(bytes(payload[WARNINGS_LENGTH.size : end]))


def _lines(warnings: object) -> list[str]:
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise ValueError("the warnings are not a list of lines")
    return warnings


def pack_program(obj: bytes, warnings: Iterable[str]) -> bytes:
    """An entry's payload: the warnings, then the object code. (The path is part of the key,
    so the warnings, which name it, are stored as they are.)"""
    return _pack(list(warnings), obj)


def unpack_program(payload: bytes) -> tuple[bytes, list[str]]:
    """The object code and the warnings of a payload made by ``pack_program`` (ValueError if
    it is not one)."""
    obj, warnings = _unpack(payload)
    return obj, _lines(warnings)


def pack_library(objects: Sequence[bytes], warnings: Iterable[str], functions: list) -> bytes:
    """A Python library's payload (``mg_xdsl.api``): as ``pack_program``'s, but the JSON
    holds an object: the warnings, the defs' descriptions (``functions``: what the API
    makes each def's wrapper of, so that a hit need not run the front end) and the sizes of
    the library's objects (one, or two: ``parallel_codegen``), stored one after the other."""
    sizes = [len(obj) for obj in objects]
    return _pack({"warnings": list(warnings), "functions": functions, "objects": sizes}, b"".join(objects))


def unpack_library(payload: bytes) -> tuple[list[bytes], list[str], list]:
    """The objects, the warnings and the defs' descriptions of a payload made by
    ``pack_library`` (ValueError if it is not one; the descriptions are the API's to check)."""
    data, metadata = _unpack(payload)
    if not isinstance(metadata, dict):
        raise ValueError("the metadata are not an object")
    functions = metadata.get("functions")
    if not isinstance(functions, list):
        raise ValueError("the functions are not a list")
    sizes = metadata.get("objects")
    if not isinstance(sizes, list) or not all(isinstance(n, int) and n > 0 for n in sizes) or sum(sizes) != len(data):
        raise ValueError("the objects' sizes do not match the data")
    starts = itertools.accumulate(sizes, initial=0)
    objects = [data[start : start + size] for start, size in zip(starts, sizes)]
    return objects, _lines(metadata.get("warnings")), functions


class ObjectCache:
    """The cache in one directory. No method raises for a problem with the directory or an
    entry: ``load`` treats it as a miss and ``store`` returns what went wrong."""

    def __init__(self, directory: Path):
        self.directory = directory

    def path(self, key: bytes) -> Path:
        return self.directory / (key.hex() + SUFFIX)

    def load(self, key: bytes) -> tuple[bytes | None, str]:
        """The object code stored for ``key``, or None; and how it went (``hit``, ``miss``,
        ``miss: the entry was ...``) for ``--time``."""
        path = self.path(key)
        try:
            with open(path, "rb") as f:
                blob = f.read()
        except FileNotFoundError:
            return None, "miss"
        except OSError as e:
            return None, f"miss: cannot read {path}: {e.strerror}"
        problem = self._check(blob, key)
        if problem:
            return None, f"miss: the entry was {problem}"
        try:
            os.utime(path)  # the least recently used entries are the first pruned
        except OSError:
            pass
        return blob[HEADER.size :], f"hit ({path})"

    @staticmethod
    def _check(blob: bytes, key: bytes) -> str | None:
        """What is wrong with an entry's bytes, or None if it holds ``key``'s object code."""
        if len(blob) < HEADER.size:
            return "truncated"
        magic, stored_key, length, digest = HEADER.unpack_from(blob)
        if magic != MAGIC:
            return "of another format"
        if stored_key != key:
            return "for another key"
        payload = memoryview(blob)[HEADER.size :]
        if len(payload) != length:
            return "truncated" if len(payload) < length else "too long"
        if hashlib.sha256(payload).digest() != digest:
            return "corrupt (bad checksum)"
        return None

    def load_program(self, key: bytes) -> tuple[bytes | None, list[str], str]:
        """``load`` for an entry made by ``store_program``: the object code (or None), the
        warnings to print again, and how it went."""
        payload, outcome = self.load(key)
        if payload is None:
            return None, [], outcome
        try:
            obj, warnings = unpack_program(payload)
        except ValueError:  # json's errors are ValueErrors too
            return None, [], "miss: the entry was malformed"
        return obj, warnings, outcome

    def store_program(self, key: bytes, obj: bytes, warnings: Iterable[str]) -> str:
        """``store`` the object code with the front end's warnings."""
        return self.store(key, pack_program(obj, warnings))

    def load_library(self, key: bytes) -> tuple[list[bytes] | None, list[str], list, str]:
        """``load`` for an entry made by ``store_library``: the objects (or None), the
        warnings to issue again, the defs' descriptions, and how it went."""
        payload, outcome = self.load(key)
        if payload is None:
            return None, [], [], outcome
        try:
            objects, warnings, functions = unpack_library(payload)
        except ValueError:  # json's errors are ValueErrors too
            return None, [], [], "miss: the entry was malformed"
        return objects, warnings, functions, outcome

    def store_library(self, key: bytes, objects: Sequence[bytes], warnings: Iterable[str], functions: list) -> str:
        """``store`` a Python library's object code with its warnings and defs."""
        return self.store(key, pack_library(objects, warnings, functions))

    def store(self, key: bytes, data: bytes) -> str:
        """Write ``data`` as ``key``'s entry, atomically, then prune; what happened, for
        ``--time`` (``stored in PATH`` or ``not stored: WHY``)."""
        path = self.path(key)
        header = HEADER.pack(MAGIC, key, len(data), hashlib.sha256(data).digest())
        # Unique among processes and threads; starts with a dot so that it is not an entry.
        temp = self.directory / f".{key.hex()}.{os.getpid()}.{time.time_ns()}{TEMP_SUFFIX}"
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(header)
                    f.write(data)
                os.replace(temp, path)
            except BaseException:
                try:
                    os.unlink(temp)
                except OSError:
                    pass
                raise
        except OSError as e:
            return f"not stored: {e.strerror or e} ({self.directory})"
        self._prune_when_due(HEADER.size + len(data))
        return f"stored in {path}"

    def _prune_when_due(self, added: int) -> None:
        """``prune``, unless this process looked at the directory less than ``RESCAN_S`` ago
        and what it saw then, with what it has stored since, is within the limits. Looking
        stats every entry: up to 4096 of them, some 15 ms, in every compile that stores,
        where a process compiling several programs (a script of the Python API's) would
        look again after each. Another process's stores meanwhile are counted by its own
        looks: the limits hold to within what the processes store in ``RESCAN_S``."""
        now = time.monotonic()
        seen = _seen.get(self.directory)
        if seen is not None and now - seen[0] < RESCAN_S:
            when, count, total = seen
            if count + 1 <= MAX_ENTRIES and total + added <= MAX_BYTES:
                _seen[self.directory] = (when, count + 1, total + added)
                return
        count, total = self.prune()
        _seen[self.directory] = (now, count, total)

    def prune(self, max_bytes: int = MAX_BYTES, max_entries: int = MAX_ENTRIES) -> tuple[int, int]:
        """Delete the least recently used entries while the cache holds more than
        ``max_bytes`` or ``max_entries``, down to three quarters of both (so that not every
        store has to prune), and temporary files left by processes that died. Returns the
        entries and bytes left."""
        entries = []  # (mtime, size, path)
        now = time.time()
        try:
            with os.scandir(self.directory) as it:
                for e in it:
                    try:
                        if e.name.endswith(SUFFIX) and not e.name.startswith("."):
                            st = e.stat(follow_symlinks=False)
                            entries.append((st.st_mtime, st.st_size, e.path))
                        elif e.name.startswith(".") and e.name.endswith(TEMP_SUFFIX):
                            if now - e.stat(follow_symlinks=False).st_mtime > STALE_TEMP_S:
                                os.unlink(e.path)
                    except OSError:
                        pass  # gone meanwhile (another process pruned it), or not ours to touch
        except OSError:
            return 0, 0
        total = sum(size for _, size, _ in entries)
        count = len(entries)
        if total <= max_bytes and count <= max_entries:
            return count, total
        entries.sort()
        for _, size, path in entries:
            if total <= max_bytes * 3 // 4 and count <= max_entries * 3 // 4:
                break
            try:
                os.unlink(path)
            except OSError:
                pass
            total -= size
            count -= 1
        return count, total
