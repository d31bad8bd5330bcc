"""One training step of an MLP (softmax cross-entropy, the gradients, plain SGD), timed in
the same run in mg (a compiled def that takes ``value_and_grad``, through the Python API),
JAX (``jit`` of ``value_and_grad`` and the update) and NumPy (backpropagation written by
hand), every result checked equal, at 1 and 2 threads (each in a process of its own, bound
to that many cores: MG_NUM_THREADS, the BLAS's threads and XLA's see the same machine).

    python benchmarks/training_step.py                 both networks, 1 and 2 threads
    python benchmarks/training_step.py --threads 1 --reps 51

The networks: the digits example's (64-128-10, batch 128, examples/25_digits_mlp.mg) and a
larger one (784-512-10, batch 256, random data). Medians of alternating calls; the ratios
are the others' time over mg's (above 1: mg is faster). Needs jax[cpu] and threadpoolctl
(``pip install -e '.[bench]'``; the test extra has both too).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import machine  # noqa: E402

NETWORKS = {"digits 64-128-10, batch 128": (64, 128, 10, 128), "784-512-10, batch 256": (784, 512, 10, 256)}
LR = 0.5

STEP = """
def loss(w1: tensor[{i}x{h}], b1: tensor[{h}], w2: tensor[{h}x{o}], b2: tensor[{o}],
         x: tensor[{n}x{i}], y: tensor[{n}x{o}]) -> tensor[]:
    let z = relu(x @ w1 + b1) @ w2 + b2
    let m = max(z, axes=[1], keepdims=true)
    let log_total = m + log(sum(exp(z - m), axes=[1], keepdims=true))
    return -sum(y * (z - log_total)) / {n}

def step(w1: tensor[{i}x{h}], b1: tensor[{h}], w2: tensor[{h}x{o}], b2: tensor[{o}], x: tensor[{n}x{i}], y: tensor[{n}x{o}]) -> (tensor[], tensor[{i}x{h}], tensor[{h}], tensor[{h}x{o}], tensor[{o}]):
    let l, g1, gb1, g2, gb2 = value_and_grad(loss(w1, b1, w2, b2, x, y), wrt=[w1, b1, w2, b2])
    return l, w1 - {lr} * g1, b1 - {lr} * gb1, w2 - {lr} * g2, b2 - {lr} * gb2
"""


def numpy_step(w1, b1, w2, b2, x, y):
    """The same step, its backward pass written out by hand."""
    import numpy as np

    a = x @ w1 + b1
    h = np.maximum(a, 0.0)
    z = h @ w2 + b2
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    total = e.sum(axis=1, keepdims=True)
    n = x.shape[0]
    value = -np.sum(y * (z - m - np.log(total))) / n
    dz = (e / total * y.sum(axis=1, keepdims=True) - y) / n
    dh = (dz @ w2.T) * (a > 0)
    return value, w1 - LR * (x.T @ dh), b1 - LR * dh.sum(0), w2 - LR * (h.T @ dz), b2 - LR * dz.sum(0)


def child(threads: int, reps: int) -> dict:
    """Time every network here (this process is bound to ``threads`` cores)."""
    import jax
    import numpy as np
    from threadpoolctl import threadpool_limits

    import mg_xdsl

    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def jax_loss(w1, b1, w2, b2, x, y):
        z = jnp.maximum(x @ w1 + b1, 0.0) @ w2 + b2
        m = jnp.max(z, axis=1, keepdims=True)
        return -jnp.sum(y * (z - m - jnp.log(jnp.sum(jnp.exp(z - m), axis=1, keepdims=True)))) / x.shape[0]

    @jax.jit
    def jax_step(w1, b1, w2, b2, x, y):
        value, (g1, gb1, g2, gb2) = jax.value_and_grad(jax_loss, argnums=(0, 1, 2, 3))(w1, b1, w2, b2, x, y)
        return value, w1 - LR * g1, b1 - LR * gb1, w2 - LR * g2, b2 - LR * gb2

    results = {}
    for name, (i, h, o, n) in NETWORKS.items():
        rng = np.random.default_rng(0)
        args = [rng.normal(scale=0.1, size=(i, h)), np.zeros(h), rng.normal(scale=0.1, size=(h, o)), np.zeros(o)]
        args += [rng.random((n, i)), np.eye(o)[rng.integers(0, o, size=n)]]
        lib = mg_xdsl.compile(STEP.format(i=i, h=h, o=o, n=n, lr=LR))
        sides = {
            "mg": lambda: lib.step(*args),
            "JAX": lambda: [a.block_until_ready() for a in jax_step(*args)],
            "NumPy": lambda: numpy_step(*args),
        }
        with threadpool_limits(threads):
            want = numpy_step(*args)
            for side in ("mg", "JAX"):
                got = sides[side]()
                for g, w in zip(got, want, strict=True):
                    np.testing.assert_allclose(np.asarray(g), w, rtol=1e-9, atol=1e-12, err_msg=f"{name}: {side}")
            times = {side: [] for side in sides}
            for _ in range(reps):  # alternating, so a slow moment hits all three alike
                for side, call in sides.items():
                    start = time.perf_counter()
                    call()
                    times[side].append(time.perf_counter() - start)
        results[name] = {side: statistics.median(t) for side, t in times.items()}
    return results


def measure(thread_counts: list[int], reps: int, log=lambda message: None) -> list[dict]:
    """One row per network and thread count: the median seconds of each side. Each thread
    count runs in a child process bound to that many cores; ``RuntimeError`` if one fails
    (a result that differs from NumPy's is a failure)."""
    rows = []
    for threads in thread_counts:
        log(f"training_step: measuring at {threads} thread(s)...")
        cores = sorted(os.sched_getaffinity(0))[:threads]
        env = machine.child_env(threads)  # (OpenBLAS's idle workers sleep at once: see there)
        command = ["taskset", "-c", ",".join(map(str, cores)), sys.executable, __file__]
        p = subprocess.run([*command, "--child", str(threads), "--reps", str(reps)], env=env, capture_output=True)
        if p.returncode != 0:
            raise RuntimeError(f"the {threads}-thread run failed:\n{p.stderr.decode()[-3000:]}")
        for name, seconds in json.loads(p.stdout.decode().splitlines()[-1]).items():
            rows.append({"network": name, "threads": threads, "seconds": seconds})
    return rows


def markdown(rows: list[dict], reps: int) -> str:
    """The rows as a table: each side's median and the others' time over mg's."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.machine import _cpu_model

    lines = [
        f"CPU: {_cpu_model()}, {os.cpu_count()} cores; f64; medians of {reps} alternating calls; "
        "ratios above 1: mg is faster",
        "",
        "| network | threads | mg | JAX | NumPy | JAX / mg | NumPy / mg |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        t = row["seconds"]
        us = {side: f"{1e6 * s:.0f} us" for side, s in t.items()}
        lines.append(
            f"| {row['network']} | {row['threads']} | {us['mg']} | {us['JAX']} | {us['NumPy']} "
            f"| {t['JAX'] / t['mg']:.2f} | {t['NumPy'] / t['mg']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--reps", type=int, default=31)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.reps)))
        return 0
    try:
        rows = measure(args.threads, args.reps)
    except RuntimeError as e:
        print(f"training_step.py: {e}", file=sys.stderr)
        return 1
    print(markdown(rows, args.reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
