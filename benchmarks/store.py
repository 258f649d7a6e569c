"""Does the executable store earn its keep over JAX's persistent compilation cache? The demo's second run with each.

Runs ``pujax.__main__.run()`` (the demo of ``python -m pujax``) in fresh processes against one cache folder per
setting: ``store`` (``enable_compilation_cache(dir)``: JAX's persistent cache and pujax's executable store) and
``cache`` (``enable_compilation_cache(dir, executables=False)``: JAX's cache only). The first run of each fills its
folder; then the second runs alternate between the settings (``--repeats`` each). It also times the store's key of a
call (the per-call cost of the store, paid by every top-level call of a pujax program while the store is on) against
a plain ``jax.jit`` dispatch of the same arguments. Writes ``benchmarks/results/store.md`` (``--out``; append the
JAX version to compare versions).

    python -m benchmarks.store [--repeats 3] [--out store.md]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

from benchmarks._common import RESULTS, child_env, header

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from pujax.compilation import count_compilations, enable_compilation_cache
enable_compilation_cache(sys.argv[2], executables=sys.argv[1] == "store")
import jax
jax.devices()
from pujax.__main__ import run
t1 = time.perf_counter()
with count_compilations() as c:
    rows = run(stream=lambda *a: None)
t2 = time.perf_counter()
print("RESULT " + json.dumps({"run": t2 - t1, "setup": t1 - t0, "compilations": c.count,
                              "accuracy": [round(r[2], 4) for r in rows]}))
"""

KEY_CHILD = r"""
import json, time
import jax, jax.numpy as jnp, numpy as np
from pujax._compile.store import CallKey
from pujax.trees import kernels
fun = kernels.route_and_histogram
key = CallKey(fun.__wrapped__, fun._jit_kwargs)
args = (jnp.zeros((128, 5, 256), jnp.int32), jnp.zeros(20000, jnp.uint8), jnp.zeros(4000, jnp.uint8),
        jnp.zeros(4096, jnp.int32), jnp.zeros(4096, jnp.int32), jnp.zeros(128, jnp.int32), jnp.zeros(128, jnp.int32),
        jnp.zeros((128, 2), jnp.int32), jnp.zeros((128, 5), jnp.int32))
kw = dict(n_bins=256, shift=0, n=4000)
plain = jax.jit(lambda *a: a[1].sum())
plain(*args).block_until_ready()
key((), args, kw)
n = 3000
t = time.perf_counter()
for _ in range(n):
    key((), args, kw)
t_key = (time.perf_counter() - t) / n
t = time.perf_counter()
for _ in range(n):
    plain(*args)
t_plain = (time.perf_counter() - t) / n
print("RESULT " + json.dumps({"key_us": t_key * 1e6, "dispatch_us": t_plain * 1e6}))
"""


def _child(script: str, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=child_env(""))
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not line:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(line[-1][7:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="store.md")
    args = parser.parse_args(argv)
    import jax

    folders = {s: tempfile.mkdtemp(prefix=f"pujax-{s}-") for s in ("store", "cache")}
    first = {s: _child(CHILD, s, folders[s]) for s in folders}
    second = {s: [] for s in folders}
    for _ in range(args.repeats):
        for s in folders:
            second[s].append(_child(CHILD, s, folders[s]))
            print(s, f"{second[s][-1]['run']:.2f} s", flush=True)
    key = _child(KEY_CHILD)
    lines = [header(f"Executable store vs JAX's persistent cache (JAX {jax.__version__})"), "",
             "The demo (`pujax.__main__.run()`, every method on breast cancer and mushroom) in fresh processes; "
             "second runs alternate between the settings. Seconds of `run()` (the processes' imports and cache "
             "set-up before it are not counted).", "",
             "| setting | first run (s) | compilations | second runs (s) | compilations in a second run |",
             "| --- | --- | --- | --- | --- |"]
    for s, label in (("store", "JAX's cache + executable store"), ("cache", "JAX's cache only")):
        runs = ", ".join(f"{r['run']:.2f}" for r in second[s])
        lines.append(f"| {label} | {first[s]['run']:.2f} | {first[s]['compilations']} | {runs} | "
                     f"{second[s][0]['compilations']} |")
    same = all(r["accuracy"] == first["store"]["accuracy"] for s in folders for r in second[s] + [first[s]])
    lines += ["", f"Same accuracies in every run: {same}.", "",
              f"The store's key of one call of a tree-engine pass (9 arrays, 3 static arguments): "
              f"{key['key_us']:.1f} us; a plain `jax.jit` dispatch of the same arguments: {key['dispatch_us']:.1f} us."]
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / args.out
    with open(path, "a") as f:
        f.write("\n".join(lines) + "\n\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
