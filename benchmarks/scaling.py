"""Strong and weak scaling of every method over JAX devices (CPU devices here; GPUs/TPUs where available).

Each case runs in a fresh process that exposes ``--max-devices`` CPU devices (``jax_num_cpu_devices``) and times,
interleaved, ``fit`` with ``devices=1, 2, 4, ...`` (warm: one untimed fit per device count first), checks that the
predictions agree with ``devices=1``, and for weak scaling grows the rows with the device count. The PU forest case
also times scikit-learn's ``ExtraTreesClassifier(n_jobs=-1)`` on the same rows, side by side.

    python -m benchmarks.scaling [--cases forest adapu resvm twohnc nnpu] [--max-devices 2] [--repeats 3]
                                 [--device cpu|gpu] [--out scaling.md] [--xla-flags FLAGS]

Strong-scaling efficiency = t(1) / (k * t(k)); weak-scaling efficiency = t(1, n) / t(k, k n).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

from benchmarks._common import RESULTS, child_env, data_dir, header

CHILD = r"""
import json, sys, time
spec = json.loads(sys.argv[1])
import jax
if spec["device"] == "cpu":
    jax.config.update("jax_num_cpu_devices", spec["max_devices"])
from pujax.compilation import enable_compilation_cache
enable_compilation_cache()
import numpy as np
sys.path.insert(0, spec["repo"])
from benchmarks.scaling import CASES
make, fit_kwargs, weak_ok = CASES[spec["case"]]
counts = [k for k in (1, 2, 4, 8, 16) if k <= len(jax.devices())]
out = {"counts": counts, "strong": {}, "weak": {}, "agreement": {}, "anchor": None}
X, s, Xte, est_factory, anchor = make(spec["data_dir"], 1)
preds = {}
for k in counts:  # warm-up: compile every device count once
    preds[k] = np.asarray(est_factory(devices=k).fit(X, s).predict(Xte))
for k in counts:
    out["agreement"][k] = float(np.mean(preds[k] == preds[1]))
times = {k: [] for k in counts}
anchor_times = []
for _ in range(spec["repeats"]):
    for k in counts:
        est = est_factory(devices=k)
        t0 = time.perf_counter(); est.fit(X, s); times[k].append(time.perf_counter() - t0)
    if anchor is not None:
        t0 = time.perf_counter(); anchor(); anchor_times.append(time.perf_counter() - t0)
out["strong"] = {k: float(np.median(v)) for k, v in times.items()}
if anchor_times:
    out["anchor"] = float(np.median(anchor_times))
if weak_ok:
    for k in counts:
        Xk, sk, _, fk, _ = make(spec["data_dir"], k)
        fk(devices=k).fit(Xk, sk)
        ts = []
        for _ in range(spec["repeats"]):
            est = fk(devices=k)
            t0 = time.perf_counter(); est.fit(Xk, sk); ts.append(time.perf_counter() - t0)
        out["weak"][k] = float(np.median(ts))
print("RESULT " + json.dumps(out))
"""


def _forest(data, factor):
    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.ensemble import ExtraTreesClassifier

    from pujax.trees import PUExtraTreesClassifier

    n = 20000 * factor
    X, y = make_classification(n_samples=n + 5000, n_features=20, n_informative=10, random_state=0)
    X = X.astype(np.float32)
    Xtr, ytr = X[:n], y[:n]
    rng = np.random.default_rng(0)
    P = Xtr[rng.choice(np.flatnonzero(ytr == 1), 1000 * factor, replace=False)]
    Xpu = np.concatenate([P, Xtr])
    s = np.r_[np.ones(len(P)), np.zeros(n)].astype(np.int64)
    prior = float(ytr.mean())

    def anchor():
        ExtraTreesClassifier(n_estimators=100, n_jobs=-1, random_state=0).fit(Xpu, s)

    return Xpu, s, X[n:], lambda devices: PUExtraTreesClassifier(prior=prior, random_state=0, devices=devices), anchor


def _unsw(data, factor):
    import numpy as np

    from pujax.boosting import AdaPUClassifier
    from pujax.datasets import load

    X, y = load("unsw_nb15", data_dir=data)
    X = np.asarray(X, np.float32)
    rng = np.random.default_rng(0)
    if factor > 1:
        X, y = np.tile(X, (factor, 1)), np.tile(y, factor)
    pos = rng.choice(np.flatnonzero(y == 1), 1000 * factor, replace=False)
    Xpu = np.concatenate([X[pos], X])
    s = np.r_[np.ones(len(pos)), np.zeros(len(X))].astype(np.int64)
    prior = float(y.mean())
    return Xpu, s, X[:5000], lambda devices: AdaPUClassifier(prior=prior, learning_rate=0.1, random_state=0,
                                                             devices=devices), None


def _blobs(n, d, seed=0):
    import numpy as np

    r = np.random.default_rng(seed)
    y = (r.random(n) < 0.4).astype(int)
    X = (r.normal(size=(n, d)) + 1.2 * y[:, None] * (np.arange(d) < d // 2)).astype(np.float32)
    s = ((y == 1) & (r.random(n) < 0.3)).astype(int)
    return X, s


def _resvm(data, factor):
    from pujax.svm import RESVMClassifier

    X, s = _blobs(5000 * factor, 10)
    return X, s, X[:2000], lambda devices: RESVMClassifier(random_state=0, devices=devices), None


def _twohnc(data, factor):
    from pujax.graph import TwoHNC

    X, s = _blobs(5000 * factor, 10)
    return X, s, X[:2000], lambda devices: TwoHNC(prior=0.4, random_state=0, devices=devices), None


def _nnpu(data, factor):
    from pujax.neural import NNPUClassifier

    X, s = _blobs(10000, 50)
    return X, s, X[:2000], lambda devices: NNPUClassifier(prior=0.4, epochs=10, n_seeds=8 * factor,
                                                          random_state=0, devices=devices), None


# case -> (data and estimator factory, fit kwargs, weak scaling meaningful)
CASES = {
    "forest": (_forest, {}, True),
    "adapu": (_unsw, {}, True),
    "resvm": (_resvm, {}, True),
    "twohnc": (_twohnc, {}, False),
    "nnpu": (_nnpu, {}, True),
}


def run_case(case, args):
    import os

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = json.dumps({"case": case, "max_devices": args.max_devices, "repeats": args.repeats,
                       "device": args.device, "data_dir": str(data_dir()), "repo": repo})
    proc = subprocess.run([sys.executable, "-c", CHILD, spec], capture_output=True, text=True, cwd=repo,
                          env=child_env(args.xla_flags))
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not line:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]}
    return json.loads(line[-1][7:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="*", default=list(CASES))
    parser.add_argument("--max-devices", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--out", default="scaling.md")
    parser.add_argument("--xla-flags", default="", help="extra XLA_FLAGS for the child process, e.g. "
                        "'--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1' (one thread per device)")
    args = parser.parse_args(argv)
    lines = [header(f"Scaling over devices ({args.device}, up to {args.max_devices} devices)"),
             f"- XLA_FLAGS added: `{args.xla_flags}`\n" if args.xla_flags else "",
             "| case | devices | strong: fit s | strong efficiency | agreement with 1 device | weak: fit s "
             "(rows x devices) | weak efficiency | anchor s (ratio) |", "|---|---|---|---|---|---|---|---|"]
    for case in args.cases:
        r = run_case(case, args)
        print(case, json.dumps(r), flush=True)
        if "error" in r:
            lines.append(f"| {case} | | error: {r['error']} | | | | | |")
            continue
        t1 = r["strong"]["1"]
        w1 = r["weak"].get("1")
        for k in r["counts"]:
            tk = r["strong"][str(k)]
            wk = r["weak"].get(str(k))
            anchor = r["anchor"]
            lines.append(
                f"| {case} | {k} | {tk:.3f} | {t1 / (k * tk):.2f} | {100 * r['agreement'][str(k)]:.2f} % | "
                f"{'' if wk is None else f'{wk:.3f}'} | {'' if wk is None else f'{w1 / wk:.2f}'} | "
                f"{'' if anchor is None else f'{anchor:.3f} ({tk / anchor:.2f})'} |")
    text = "\n".join(lines) + "\n"
    (RESULTS / args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
