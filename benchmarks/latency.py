"""First-fit latency of every estimator: compilation included, warm refit, refit on a new row count.

Each estimator runs in a fresh Python process (nothing compiled yet; JAX's backend initialised before the clock
starts) on the breast-cancer PU set of ``python -m pujax``: the demo's 80 % training split (455 rows x 30) as U plus
50 labeled positives (case-control), 505 rows. Per estimator it records the first fit, a warm refit on the same rows,
a refit on the first 450 rows (another row count), the number of XLA compilations of each (``count_compilations``)
and the first ``predict`` on 114 test rows. The persistent compilation cache is off unless ``--cache DIR`` is given
(then a second run of the benchmark shows what a restarted runtime pays). ``--mnist`` adds the compile time of the
single-seed MNIST nnPU training programs (initial state and epochs; Kiryo et al.'s MLP, 61,000 x 784 rows, batch
30000, 100 epochs; compile time does not depend on the values, so zeros of that shape stand in for the images).

    python -m benchmarks.latency [--estimators NAME ...] [--cache DIR] [--mnist] [--out latency.md] [--xla-flags F]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from benchmarks._common import RESULTS, child_env, header

# estimator name -> constructor arguments (the true prior is passed where the method takes one; "auto" rows
# measure the prior estimation too)
ESTIMATORS = {
    "PUExtraTreesClassifier": {"prior": "true"},
    "PUExtraTreesClassifier(prior='auto')": {"prior": "auto"},
    "AdaPUClassifier": {"prior": "true"},
    "RESVMClassifier": {"prior": "true"},
    "NNPUClassifier": {"prior": "true"},
    "TwoHNC": {"prior": "true"},
    "TwoHNC(feature_weights=None)": {"prior": "true", "feature_weights": None},
}

# targets of the latency issue (seconds): first fit
TARGETS = {"PUExtraTreesClassifier": 1.0, "AdaPUClassifier": 1.0, "RESVMClassifier": 1.0, "NNPUClassifier": 1.5,
           "TwoHNC": 2.0}

CHILD = r"""
import json, sys, time
spec = json.loads(sys.argv[1])
if spec.get("cache"):
    from pujax.compilation import enable_compilation_cache
    enable_compilation_cache(spec["cache"])
import jax, numpy as np
jax.devices()
from sklearn.model_selection import train_test_split
import pujax
from pujax.compilation import count_compilations
from pujax.data import make_case_control
from pujax.datasets import load
X, y = load("breast_cancer")
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
X_pu, s, prior = make_case_control(0, X_tr, y_tr, 50)
X_pu, s = np.asarray(X_pu), np.asarray(s)
name = spec["name"].split("(")[0]
kwargs = dict(spec["kwargs"])
if kwargs.get("prior") == "true":
    kwargs["prior"] = float(prior)
est = getattr(pujax, name)(random_state=0, **kwargs)
out = {}
def timed(label, fn):
    with count_compilations() as c:
        t0 = time.perf_counter()
        fn()
        out[label] = time.perf_counter() - t0
    out[label + "_compilations"] = c.count
timed("first_fit", lambda: est.fit(X_pu, s))
timed("first_predict", lambda: est.predict(X_te))
timed("warm_refit", lambda: est.fit(X_pu, s))
keep = np.r_[np.flatnonzero(s == 1)[:45], np.flatnonzero(s == 0)[:405]]
timed("refit_450", lambda: est.fit(X_pu[keep], s[keep]))
out["accuracy"] = float(np.mean(est.predict(X_te) == y_te))
print("RESULT " + json.dumps(out))
"""


MNIST_CHILD = r"""
import json, time
import jax
import numpy as np
jax.devices()
from pujax.neural.train import _get_compiled, batch_layout, make_config, pad_for_training
cfg = make_config(batch_size=30000, n_features=784)
X = np.zeros((61000, 784), np.float32)
s = np.zeros(61000, np.int32)
s[:1000] = 1
Xp, sp, n = pad_for_training(cfg, X, s)
k = batch_layout(n, cfg.batch_size)[0]
key = jax.random.PRNGKey(0)
init, epochs = _get_compiled("init", cfg, 0), _get_compiled("epochs", cfg, 100, k)  # the two programs of a fit
t0 = time.perf_counter()
lowered = [init.lower(key, Xp), epochs.lower(init.eval_shape(key, Xp), Xp, sp, np.float32(0.5), None, None,
                                             np.int32(n), None)]
t1 = time.perf_counter()
lowered[0].compile()  # with the options of the init program's role ("setup")
lowered[1].compile()
t2 = time.perf_counter()
print("RESULT " + json.dumps({"rows": n, "padded": int(Xp.shape[0]), "minibatches": k, "lower": t1 - t0,
                              "compile": t2 - t1}))
"""


def mnist_compile(xla_flags: str = "") -> dict:
    proc = subprocess.run([sys.executable, "-c", MNIST_CHILD], capture_output=True, text=True, env=child_env(xla_flags))
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not line:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    return json.loads(line[-1][7:])


def run_one(name: str, kwargs: dict, cache: str | None, xla_flags: str = "") -> dict:
    spec = json.dumps({"name": name, "kwargs": kwargs, "cache": cache})
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, spec], capture_output=True, text=True, env=child_env(xla_flags))
    wall = time.perf_counter() - t0
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not line:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:200], "process": wall}
    res = json.loads(line[-1][7:])
    res["process"] = wall
    return res


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--estimators", nargs="*", default=list(ESTIMATORS))
    parser.add_argument("--cache", default=None, help="persistent compilation cache directory (default: off)")
    parser.add_argument("--mnist", action="store_true", help="also time the MNIST nnPU program's compilation")
    parser.add_argument("--out", default="latency.md")
    parser.add_argument("--xla-flags", default="", help="extra XLA_FLAGS for the child processes, e.g. "
                        "'--xla_backend_optimization_level=1' (less LLVM optimisation: faster compiles)")
    args = parser.parse_args(argv)
    rows = []
    for name in args.estimators:
        res = run_one(name, ESTIMATORS.get(name, {}), args.cache, args.xla_flags)
        rows.append((name, res))
        print(name, json.dumps(res), flush=True)
    lines = [header("First-fit latency (breast-cancer PU set, 505 x 30, fresh process per estimator)"),
             f"- persistent compilation cache: {args.cache or 'off'}; XLA_FLAGS added: `{args.xla_flags or 'none'}`\n",
             "| estimator | first fit s (programs) | target | warm refit s | refit 450 rows s (programs) | "
             "450-row target (2 x warm + 0.1) | first predict s | test accuracy |",
             "|---|---|---|---|---|---|---|---|"]
    for name, r in rows:
        if "error" in r:
            lines.append(f"| {name} | error: {r['error']} | | | | | | |")
            continue
        target = TARGETS.get(name)
        lines.append(
            f"| {name} | {r['first_fit']:.2f} ({r['first_fit_compilations']}) | "
            f"{'' if target is None else f'<= {target:.1f}'} | {r['warm_refit']:.3f} | "
            f"{r['refit_450']:.3f} ({r['refit_450_compilations']}) | {2 * r['warm_refit'] + 0.1:.3f} | "
            f"{r['first_predict']:.3f} | {100 * r['accuracy']:.1f} % |")
    if args.mnist:
        m = mnist_compile(args.xla_flags)
        print("mnist", json.dumps(m), flush=True)
        lines += ["", "## MNIST nnPU programs (one seed: initial state + 100 epochs; target: compile in <= 10 s)",
                  ""]
        lines.append(f"error: {m['error']}" if "error" in m else
                     f"{m['rows']} rows padded to {m['padded']}, {m['minibatches']} minibatches per epoch: "
                     f"trace + lower {m['lower']:.1f} s, XLA compile {m['compile']:.1f} s, total "
                     f"{m['lower'] + m['compile']:.1f} s.")
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
