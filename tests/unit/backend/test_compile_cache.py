"""`mgc run`'s on-disk cache of compiled programs (mg_xdsl/backend/cache.py): a repeated run
is a hit and behaves exactly as the first, everything that changes the code changes the
key, the bypasses bypass, and no state of the cache directory can make mgc fail.

Every test gives mgc a cache directory of its own (not the session's of conftest), so that
what it expects to be a miss is one whatever ran before. `--time` says on stderr whether
the code came from the cache ("mgc: cache: hit (...)", "miss...", "off (...)"), before the
program runs, so it is said even when the program aborts."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, mask, mgc
from helpers.examples import check_outcome

from mg_xdsl.backend import cache

EXAMPLE_CASES = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.glob("*.mg"))
RELU = Path("01_relu.mg")
CHECK_FAILS = Path("11_dynamic_no_broadcast.mg")  # exits 134 after a failed run-time check


def run(program, cache_dir, *args: str, env: dict | None = None):
    """`mgc run --time` with ``cache_dir`` as the cache; the process, with the --time lines
    taken out of its stderr (so that check_outcome sees the program's own) and kept in
    ``p.report``, and the cache outcome: "hit", "miss" or "off"."""
    p = mgc("run", "--time", *args, str(program), cwd=EXAMPLES, env={"MGC_CACHE_DIR": str(cache_dir), **(env or {})})
    lines = p.stderr.decode().splitlines(keepends=True)
    assert not any("Traceback" in line for line in lines), "".join(lines)
    p.report = "".join(line for line in lines if line.startswith("mgc: "))
    p.stderr = "".join(line for line in lines if not line.startswith("mgc: ")).encode()
    said = re.search(r"^mgc: cache: (hit|miss|off)\b", p.report, re.MULTILINE)
    assert said, p.report
    return p, said.group(1)


def entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("*.mgo")) if cache_dir.is_dir() else []


def same_behaviour(a: subprocess.CompletedProcess, b: subprocess.CompletedProcess) -> None:
    assert a.returncode == b.returncode
    assert mask(a.stdout.decode()) == mask(b.stdout.decode())
    assert a.stderr == b.stderr


@pytest.mark.parametrize("rel", EXAMPLE_CASES, ids=[str(c) for c in EXAMPLE_CASES])
def test_second_run_is_a_hit_and_prints_the_same(rel, tmp_path):
    first, outcome = run(rel, tmp_path)
    assert outcome == "miss"
    check_outcome(first, rel)
    assert len(entries(tmp_path)) == 1
    second, outcome = run(rel, tmp_path)
    assert outcome == "hit"
    check_outcome(second, rel)
    same_behaviour(first, second)


def test_a_failed_run_time_check_on_a_hit_exits_134_with_the_message(tmp_path):
    first, outcome = run(CHECK_FAILS, tmp_path)
    assert outcome == "miss" and first.returncode in (134, -6)
    second, outcome = run(CHECK_FAILS, tmp_path)
    assert outcome == "hit" and second.returncode in (134, -6)
    assert b"mg.add: operand shapes differ at runtime in dimension 0" in second.stderr
    same_behaviour(first, second)
    check_outcome(second, CHECK_FAILS)


def test_the_same_program_at_another_path_reports_its_own_path(tmp_path):
    """The report of a failed check names the program's path, which is compiled into the
    code: a copy of the program elsewhere must not find the first one's code."""
    source = (EXAMPLES / CHECK_FAILS).read_bytes()
    for name in ("first.mg", "second.mg"):
        (tmp_path / name).write_bytes(source)
    for name in ("first.mg", "second.mg", "first.mg"):
        p = mgc("run", "-w", name, cwd=tmp_path, env={"MGC_CACHE_DIR": str(tmp_path / "cache")})
        assert p.returncode in (134, -6)
        assert p.stderr.decode().splitlines()[1] == f"  at {name}:3: sizes 2 and 1", p.stderr
    assert len(entries(tmp_path / "cache")) == 2


@pytest.mark.parametrize(
    "bypass", [{"env": {"MGC_NO_CACHE": "1"}}, {"args": ("--no-cache",)}], ids=["MGC_NO_CACHE=1", "--no-cache"]
)
def test_bypassing_compiles_and_neither_reads_nor_writes(bypass, tmp_path):
    args, env = bypass.get("args", ()), bypass.get("env")
    p, outcome = run(RELU, tmp_path, *args, env=env)
    assert outcome == "off"
    check_outcome(p, RELU)
    assert entries(tmp_path) == []
    run(RELU, tmp_path)  # now there is an entry, which a bypass must not use
    stored = entries(tmp_path)
    p, outcome = run(RELU, tmp_path, *args, env=env)
    assert outcome == "off" and "front end" in p.report  # compiled again
    check_outcome(p, RELU)
    assert entries(tmp_path) == stored


def test_mgc_keep_compiles_and_does_not_store(tmp_path):
    cache_dir = tmp_path / "cache"
    p, outcome = run(RELU, cache_dir, env={"MGC_KEEP": str(tmp_path / "keep")})
    assert outcome == "off" and "MGC_KEEP" in p.report
    check_outcome(p, RELU)
    assert (tmp_path / "keep" / "01_relu.opt.ll").is_file()
    assert entries(cache_dir) == []


def test_a_changed_source_misses(tmp_path):
    program = tmp_path / "prog.mg"
    program.write_text("print relu([[1, -2]])\n")
    cache_dir = tmp_path / "cache"
    assert run(program, cache_dir)[1] == "miss"
    assert run(program, cache_dir)[1] == "hit"
    program.write_text("print relu([[1, -3]])\n")
    p, outcome = run(program, cache_dir)
    assert outcome == "miss"
    assert "[[1,   0]]" in p.stdout.decode()
    assert len(entries(cache_dir)) == 2


def test_options_that_change_the_code_miss(tmp_path):
    program = EXAMPLES / "07_mlp_layer.mg"
    assert run(program, tmp_path)[1] == "miss"
    for options in (("--opt", "0"), ("--opt", "3"), ("--reference",)):
        p, outcome = run(program, tmp_path, *options)
        assert outcome == "miss", options
        check_outcome(p, Path(program.name))
        assert run(program, tmp_path, *options)[1] == "hit", options
    assert run(program, tmp_path)[1] == "hit"
    assert len(entries(tmp_path)) == 4


@pytest.mark.parametrize("damage", ["truncate", "flip a byte", "empty", "garbage"])
def test_a_damaged_entry_is_recompiled_and_replaced(damage, tmp_path):
    first, _ = run(RELU, tmp_path)
    [entry] = entries(tmp_path)
    data = bytearray(entry.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip a byte":
        data[-7] ^= 0x10
    elif damage == "empty":
        data = bytearray()
    else:
        data = bytearray(b"not an entry at all\n" * 10)
    entry.write_bytes(bytes(data))
    p, outcome = run(RELU, tmp_path)
    assert outcome == "miss"
    check_outcome(p, RELU)
    same_behaviour(first, p)
    assert entries(tmp_path) == [entry]
    assert run(RELU, tmp_path)[1] == "hit"


def test_an_unusable_cache_directory_still_runs_the_program(tmp_path):
    """A cache "directory" below a regular file can be neither read nor created (even by
    root, who may write into a read-only directory)."""
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    p, outcome = run(RELU, blocker / "cache")
    assert outcome == "miss"
    check_outcome(p, RELU)
    p, outcome = run(RELU, blocker / "cache")
    assert outcome == "miss"
    check_outcome(p, RELU)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_cache_directory_still_runs_the_program(tmp_path):
    tmp_path.chmod(0o500)
    try:
        p, outcome = run(RELU, tmp_path)
        assert outcome == "miss"
        check_outcome(p, RELU)
    finally:
        tmp_path.chmod(0o700)


def test_concurrent_runs_share_the_cache_safely(tmp_path):
    """Several processes missing at once each write a temporary file and rename it into
    place: every run prints the right thing, one entry remains and no temporary file."""
    env = {**os.environ, "MGC_CACHE_DIR": str(tmp_path)}
    procs = [
        subprocess.Popen(
            [str(Path(sys.executable).parent / "mgc"), "run", str(RELU)],
            cwd=EXAMPLES,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        check_outcome(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), RELU)
    assert len(entries(tmp_path)) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [entries(tmp_path)[0].name]
    assert run(RELU, tmp_path)[1] == "hit"


# The modules a run imported, printed by the child after running mgc's main in-process.
_IMPORTED = """
import json, sys
from mg_xdsl.tools.mgc import main
status = main(["run", sys.argv[1]])
sys.stdout.flush()
print(json.dumps(sorted(m for m in sys.modules if m == "xdsl" or m.startswith("xdsl."))),
      file=sys.stderr)
"""


def xdsl_modules_imported(cache_dir: Path) -> list[str]:
    p = subprocess.run(
        [sys.executable, "-c", _IMPORTED, str(RELU)],
        cwd=EXAMPLES,
        capture_output=True,
        env={**os.environ, "MGC_CACHE_DIR": str(cache_dir)},
        timeout=120,
    )
    assert p.returncode == 0, p.stderr.decode()
    assert "[[1,   0,   3]," in p.stdout.decode()
    return json.loads(p.stderr.decode().strip().splitlines()[-1])


def test_a_hit_does_not_import_xdsl(tmp_path):
    assert xdsl_modules_imported(tmp_path) != []  # a miss compiles, with xDSL
    assert xdsl_modules_imported(tmp_path) == []


def test_the_compiler_version_changes_with_any_compiler_file(tmp_path):
    """The key's compiler part is a hash of the package's .py and .c files: a faithful copy
    of the package hashes the same, and changing, adding or renaming a file changes it."""
    package = Path(cache.__file__).resolve().parent.parent
    copy = tmp_path / "mg_xdsl"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))

    def version() -> str:
        return cache.files_digest(cache.package_files(copy), copy)

    original = version()
    assert original == cache.compiler_version()
    seen = {original}
    changes = [
        lambda: (copy / "conversions" / "lower_affine.py").write_text(
            (copy / "conversions" / "lower_affine.py").read_text() + "\n# a comment\n"
        ),
        lambda: (copy / "backend" / "runtime.c").write_text(
            (copy / "backend" / "runtime.c").read_text().replace("\n", "\n\n", 1)
        ),
        lambda: (copy / "transforms" / "new_pass.py").write_text(""),
        lambda: (copy / "transforms" / "new_pass.py").rename(copy / "transforms" / "other_pass.py"),
    ]
    for change in changes:
        change()
        now = version()
        assert now not in seen
        seen.add(now)
    (copy / "notes.txt").write_text("not compiler source")
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert version() == now


def test_the_key_covers_source_compiler_options_and_host(monkeypatch):
    host = ("x86_64-unknown-linux-gnu", "znver3", "+avx2,+fma")
    options = {"opt": 2, "optimise": True, "backend": "xdsl"}
    base = cache.key(b"print [[1]]\n", options, host)
    assert len(base) == 32 and cache.key(b"print [[1]]\n", dict(options), host) == base
    assert cache.key(b"print [[2]]\n", options, host) != base
    assert cache.key(b"print [[1]]\n", {**options, "opt": 3}, host) != base
    assert cache.key(b"print [[1]]\n", {**options, "optimise": False}, host) != base
    assert cache.key(b"print [[1]]\n", {**options, "backend": "mlir"}, host) != base
    assert cache.key(b"print [[1]]\n", options, (host[0], "skylake", host[2])) != base
    assert cache.key(b"print [[1]]\n", options, (*host[:2], "+avx2")) != base
    monkeypatch.setattr(cache, "compiler_version", lambda: "another compiler")
    assert cache.key(b"print [[1]]\n", options, host) != base


def test_the_cache_location(tmp_path):
    assert cache.default_directory({"MGC_CACHE_DIR": "/x/y", "XDG_CACHE_HOME": "/z"}) == Path("/x/y")
    assert cache.default_directory({"XDG_CACHE_HOME": "/z"}) == Path("/z/mg-xdsl")
    home = cache.default_directory({"XDG_CACHE_HOME": "relative/ignored"})
    assert home == Path.home() / ".cache" / "mg-xdsl"
    assert cache.no_cache_requested({"MGC_NO_CACHE": "1"})
    assert not cache.no_cache_requested({"MGC_NO_CACHE": "0"})
    assert not cache.no_cache_requested({})


def test_pruning_deletes_the_least_recently_used_entries_only(tmp_path):
    store = cache.ObjectCache(tmp_path)
    keys = [bytes([i]) * 32 for i in range(10)]
    for i, key in enumerate(keys):
        assert store.store(key, b"x" * 100).startswith("stored")
        os.utime(store.path(key), (1000 + i, 1000 + i))
    assert store.load(keys[0])[1].startswith("hit")  # now the most recently used
    foreign = tmp_path / "not_an_entry.txt"
    foreign.write_text("someone else's file")
    store.prune(max_entries=8)
    left = {p.name for p in entries(tmp_path)}
    # down to three quarters of 8: the four oldest go, the entry just used stays
    assert left == {store.path(k).name for k in [keys[0], *keys[5:]]}
    assert foreign.exists()
    store.prune(max_bytes=250)  # entries of 180 bytes: down to 250 * 3/4 bytes, one entry
    assert [p.name for p in entries(tmp_path)] == [store.path(keys[0]).name]


def test_an_entry_keeps_the_warnings(tmp_path):
    """A hit does not run the front end, so the entry holds its warnings (the path, which
    they name, is part of the key)."""
    warnings = ["a/prog.mg:1: warning: first", "a/prog.mg:12: warning: second"]
    payload = cache.pack_program(b"OBJECT", warnings)
    assert cache.unpack_program(payload) == (b"OBJECT", warnings)
    assert cache.unpack_program(cache.pack_program(b"", [])) == (b"", [])
    store = cache.ObjectCache(tmp_path)
    key = bytes(range(32))
    assert store.store_program(key, b"OBJECT", warnings).startswith("stored")
    obj, again, outcome = store.load_program(key)
    assert (obj, again, outcome.split()[0]) == (b"OBJECT", warnings, "hit")


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"\x05\x00",
        cache.WARNINGS_LENGTH.pack(100) + b"[]",
        cache.WARNINGS_LENGTH.pack(2) + b"{}",
        cache.WARNINGS_LENGTH.pack(3) + b"[1]",
    ],
    ids=["empty", "short", "too long", "not a list", "not lines"],
)
def test_a_malformed_payload_is_a_miss(payload, tmp_path):
    store = cache.ObjectCache(tmp_path)
    key = bytes(32)
    store.store(key, payload)  # a valid header around a payload that is not a program
    assert store.load_program(key) == (None, [], "miss: the entry was malformed")


def test_an_entry_of_the_previous_format_is_a_miss(tmp_path):
    """Format 1 held the object code alone: its entries must not be read as format 2."""
    first, _ = run(RELU, tmp_path)
    [entry] = entries(tmp_path)
    data = bytearray(entry.read_bytes())
    data[: len(cache.MAGIC)] = b"MGCOBJ\x00\x01"
    entry.write_bytes(bytes(data))
    p, outcome = run(RELU, tmp_path)
    assert outcome == "miss" and "of another format" in p.report
    same_behaviour(first, p)


def test_a_process_looks_at_the_entries_again_only_when_due(tmp_path, monkeypatch):
    """Stores in a row look at the directory once (``RESCAN_S``); the stores a process
    counts past the limit, or the time running out, make it look again and prune."""
    store = cache.ObjectCache(tmp_path)
    looks = []
    prune = cache.ObjectCache.prune
    monkeypatch.setattr(cache.ObjectCache, "prune", lambda self, *a: looks.append(1) or prune(self, *a))
    monkeypatch.setattr(cache, "_seen", {})
    for i in range(5):
        store.store(bytes([i]) * 32, b"x" * 100)
    assert len(looks) == 1
    monkeypatch.setattr(cache, "MAX_ENTRIES", 6)  # the sixth store is within it, the seventh past it
    store.store(bytes([5]) * 32, b"x" * 100)
    assert len(looks) == 1
    store.store(bytes([6]) * 32, b"x" * 100)
    assert len(looks) == 2 and len(list(entries(tmp_path))) == 7  # (prune's own limit is the default)
    monkeypatch.setattr(cache, "RESCAN_S", 0.0)
    store.store(bytes([7]) * 32, b"x" * 100)
    assert len(looks) == 3


def test_a_store_past_the_limit_prunes_at_once(tmp_path, monkeypatch):
    store = cache.ObjectCache(tmp_path)
    monkeypatch.setattr(cache, "_seen", {})
    monkeypatch.setattr(cache, "MAX_ENTRIES", 8)
    monkeypatch.setattr(cache.ObjectCache.prune, "__defaults__", (cache.MAX_BYTES, 8))
    for i in range(9):
        store.store(bytes([i]) * 32, b"x" * 100)
    assert len(list(entries(tmp_path))) == 6  # the ninth store: down to three quarters of 8
