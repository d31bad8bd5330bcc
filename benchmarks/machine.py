"""The machine's context, recorded with every set of figures: a timing means little
without the CPU, the BLAS kernel NumPy ran and how busy the machine was."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

THREAD_VARS = ("MG_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# OpenBLAS's idle workers spin for 2^28 cycles (~75 ms) after each call before they sleep;
# alternating with NumPy, they would occupy the cores while mg's threads run. A timeout of
# 2^4 cycles makes them sleep at once (NumPy's own times do not suffer: they wake at the
# next call). Numba's OpenMP workers (its threading layer) spin the same way after each
# parallel call unless told to wait passively: at two threads on a 2-core Zen 3 they had
# mg's softmax at 6.2 ms instead of 3.5, its exp of 4M f32 at 3.4 ms instead of 2.0. Each
# set only if the caller has not chosen a value.
QUIET_POOLS = {
    "OPENBLAS_THREAD_TIMEOUT": os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4"),
    "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE"),
}


def child_env(threads: int) -> dict[str, str]:
    """A T-thread child's environment: every runtime's thread count set to T, JAX on the CPU,
    and at T=1 XLA's Eigen pool off (the binding to one core holds it there anyway)."""
    env = {
        **os.environ,
        **{var: str(threads) for var in THREAD_VARS},
        **QUIET_POOLS,
        "NUMBA_NUM_THREADS": str(threads),
        "JAX_PLATFORMS": "cpu",
    }
    if threads == 1:
        env["XLA_FLAGS"] = " ".join([os.environ.get("XLA_FLAGS", ""), "--xla_cpu_multi_thread_eigen=false"]).strip()
    return env


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return platform.processor() or "unknown"


def _memory() -> dict:
    info = {}
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            key, value = line.split(":", 1)
            if key in ("MemTotal", "MemAvailable"):
                info[key] = round(int(value.split()[0]) / 2**20, 1)  # kB -> GiB
    except (OSError, ValueError):
        pass
    return {"total_gib": info.get("MemTotal"), "available_gib": info.get("MemAvailable")}


def _git() -> dict:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()

    try:
        return {
            "commit": git("rev-parse", "HEAD") or None,
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        }
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def blas_info() -> list[dict]:
    """What threadpoolctl sees in this process: library, version, kernel architecture
    (e.g. SkylakeX or Haswell for OpenBLAS), threading layer, current thread count."""
    from threadpoolctl import threadpool_info

    keys = ("user_api", "internal_api", "version", "architecture", "threading_layer", "num_threads")
    return [
        {k: pool.get(k) for k in keys} | {"file": Path(pool.get("filepath", "")).name} for pool in threadpool_info()
    ]


def versions(*packages: str) -> dict[str, str | None]:
    """Installed versions (None: not installed), read without importing the packages."""
    from importlib import metadata

    found: dict[str, str | None] = {}
    for name in packages:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def context(threads: list[int]) -> dict:
    import llvmlite
    import numpy as np

    try:
        from llvmlite import binding

        llvm = ".".join(map(str, binding.llvm_version_info))
    except Exception:  # noqa: BLE001 - informative only
        llvm = None
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "affinity_count": affinity,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "memory": _memory(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "llvmlite": llvmlite.__version__,
        "llvm": llvm,
        "blas": blas_info(),
        "others": versions("jax", "jaxlib", "numba"),
        "threads": threads,
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
        "openblas_env": {k: v for k, v in sorted(os.environ.items()) if k.startswith("OPENBLAS_")},
        "git": _git(),
        "executable": sys.executable,
    }


def describe(ctx: dict) -> list[str]:
    """The context as markdown bullet lines."""
    mem = ctx["memory"]
    blas = (
        "; ".join(
            f"{b['internal_api']} {b['version']} (architecture {b['architecture']}, "
            f"{b['threading_layer']}, {b['file']})"
            for b in ctx["blas"]
            if b["user_api"] == "blas"
        )
        or "none found by threadpoolctl"
    )
    coretype = ctx["openblas_coretype"]
    git = ctx["git"]
    return [
        f"- date: {ctx['date']}  (host {ctx['host']}, load average "
        f"{', '.join(map(str, ctx['load_average']))} at start)",
        f"- CPU: {ctx['cpu_model']}; os.cpu_count {ctx['cpu_count']}, "
        f"affinity {ctx['affinity_count']}; memory {mem['total_gib']} GiB "
        f"({mem['available_gib']} GiB available)",
        f"- Python {ctx['python']}, NumPy {ctx['numpy']}, llvmlite {ctx['llvmlite']} "
        f"(LLVM {ctx['llvm']}), Linux {ctx['kernel']}",
        f"- NumPy's BLAS: {blas}",
        "- JAX and Numba: "
        + ", ".join(f"{name} {version or 'not installed'}" for name, version in ctx.get("others", {}).items()),
        f"- OPENBLAS_CORETYPE: {coretype if coretype else 'not set'}"
        + (
            "  (forces OpenBLAS's Haswell kernels: 9-18% slower matmul on Zen 4 than SkylakeX)"
            if coretype and coretype.lower() == "haswell"
            else ""
        )
        + "".join(f"; {k}={v}" for k, v in ctx["openblas_env"].items() if k != "OPENBLAS_CORETYPE"),
        f"- threads measured: {', '.join(map(str, ctx['threads']))}",
        f"- mg-xdsl commit: {git['commit'] or 'unknown'}" + (" (with uncommitted changes)" if git["dirty"] else ""),
    ]
