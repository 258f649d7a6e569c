"""PU Extra Trees on an accelerator, side by side with scikit-learn on the host and XGBoost's random forest on the
same accelerator: first and warm fits, and the warm fit split into device time and host time (issue 43).

    python -m benchmarks.trees_gpu [--dry-run] [--sets mnist,synthetic_1m,covtype_sample] [--out PATH]
    bash benchmarks/gpu.sh trees OUTDIR        # on a GPU machine (PUJAX_DATA with mnist/ and covtype/)

Data (P = 1000 random training positives, U = all training rows, as ``benchmarks/trees.py``): MNIST (61,000 x 784,
test 10,000), a 1,000,000 x 50 ``make_classification`` set (20 informative; test 10,000 fresh rows) and the
covtype sample (9,000 x 54, 80/20 split). ``--dry-run``: the same code on three tiny synthetic sets, on the default
JAX device, so that a CPU-only CI checks the script end to end.

Columns, per set:

* pujax ``PUExtraTreesClassifier(100, nnPU, prior = training class fraction, random_state=0)``: the first fit of
  the process on that set (compilation included) and a warm refit; the warm fit's *device* time is the time spent
  in the tree batches' growth programs (:func:`pujax.trees.builder.grow_batch`: the programs run and the host waits
  for their logs), its *host* time the rest (validation, standardisation, binning, assembly of the forest);
* scikit-learn ``ExtraTreesClassifier(100, n_jobs=-1)`` on the host, fitted on (X, s) (a PN model on the PU labels:
  timing only);
* XGBoost ``XGBRFClassifier(device="cuda", tree_method="hist", n_estimators=100, max_depth=<the deepest pujax
  tree, at most 20>)`` on (X, s), first and warm fit (skipped with a note when xgboost is not installed; on a host
  without a GPU, ``device="cpu"``); cuML's ``RandomForestClassifier`` when ``cuml`` imports.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np

from benchmarks._common import RESULTS, data_dir, header, load_average

SETS = ("mnist", "synthetic_1m", "covtype_sample")


def _pu(X, y, Xte, yte, n_labeled=1000, seed=0):
    rng = np.random.default_rng(seed)
    P = rng.choice(np.flatnonzero(y == 1), n_labeled, replace=False)
    Xpu = np.concatenate([X[P], X]).astype(np.float32)
    s = np.r_[np.ones(n_labeled), np.zeros(len(y))].astype(np.int64)
    return Xpu, s, float(np.mean(y)), np.asarray(Xte, np.float32), np.asarray(yte)


def load(name: str, dry_run: bool):
    """(X_pu, s, prior, X_test, y_test) of one set."""
    from sklearn.datasets import make_classification

    if dry_run:  # tiny synthetic stand-ins, one per set
        n, d = {"mnist": (1500, 30), "synthetic_1m": (3000, 10), "covtype_sample": (800, 12)}[name]
        X, y = make_classification(n_samples=n + 500, n_features=d, n_informative=d // 2, random_state=1)
        return _pu(X[:n], y[:n], X[n:], y[n:], n_labeled=n // 20)
    if name == "synthetic_1m":
        n = 1_000_000
        X, y = make_classification(n_samples=n + 10_000, n_features=50, n_informative=20, random_state=0)
        return _pu(X[:n], y[:n], X[n:], y[n:])
    from pujax.datasets import load as load_set

    if name == "mnist":
        Xtr, ytr = load_set("mnist", data_dir=data_dir(), split="train")
        Xte, yte = load_set("mnist", data_dir=data_dir(), split="test")
        return _pu(np.asarray(Xtr), np.asarray(ytr), Xte, yte)
    X, y = load_set(name, data_dir=data_dir())
    perm = np.random.default_rng(0).permutation(len(y))
    te, tr = perm[:len(y) // 5], perm[len(y) // 5:]
    X, y = np.asarray(X), np.asarray(y)
    return _pu(X[tr], y[tr], X[te], y[te])


class DeviceClock:
    """Wall time during which at least one :func:`pujax.trees.builder.grow_batch` runs (the growth programs and
    their log reads; tree batches that overlap in host threads count once)."""

    def __init__(self):
        from pujax.trees import builder

        self.spans, self._grow = [], builder.grow_batch

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return self._grow(*args, **kwargs)
            finally:
                self.spans.append((t0, time.perf_counter()))

        builder.grow_batch = timed

    @property
    def seconds(self) -> float:
        total, end = 0.0, float("-inf")
        for a, b in sorted(self.spans):
            total += max(0.0, b - max(a, end))
            end = max(end, b)
        return total


def pujax_fits(X, s, prior, Xte, yte) -> dict:
    from pujax.compilation import count_compilations
    from pujax.trees import PUExtraTreesClassifier

    def make():
        return PUExtraTreesClassifier(n_estimators=100, prior=prior, random_state=0)

    clock = DeviceClock()
    with count_compilations() as c:
        t0 = time.perf_counter()
        make().fit(X, s)
        first = time.perf_counter() - t0
    clock.spans.clear()
    t0 = time.perf_counter()
    m = make().fit(X, s)
    warm = time.perf_counter() - t0
    return {"first": first, "compiled": c.count, "warm": warm, "device": clock.seconds,
            "host": warm - clock.seconds, "acc": float(m.score(Xte, yte)), "depth": int(m.tree_depths_.max()),
            "nodes": int(m.forest_.n_nodes)}


def sklearn_fit(X, s) -> float:
    from sklearn.ensemble import ExtraTreesClassifier

    t0 = time.perf_counter()
    ExtraTreesClassifier(n_estimators=100, n_jobs=-1, random_state=0).fit(X, s)
    return time.perf_counter() - t0


def xgboost_fits(X, s, Xte, yte, depth: int, on_gpu: bool) -> dict | str:
    try:
        import xgboost
    except ImportError:
        return "xgboost not installed"
    kw = dict(n_estimators=100, max_depth=min(depth, 20), tree_method="hist", device="cuda" if on_gpu else "cpu",
              random_state=0)
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        m = xgboost.XGBRFClassifier(**kw).fit(X, s)
        times.append(time.perf_counter() - t0)
    return {"first": times[0], "warm": times[1], "acc": float(np.mean(m.predict(Xte) == yte)), "device": kw["device"],
            "max_depth": kw["max_depth"]}


def cuml_fit(X, s) -> float | str:
    try:
        from cuml.ensemble import RandomForestClassifier
    except Exception:  # not installed, or no CUDA
        return "cuml not available"
    t0 = time.perf_counter()
    RandomForestClassifier(n_estimators=100).fit(X, s.astype(np.int32))
    return time.perf_counter() - t0


def _cell(value, fmt="{:.2f}"):
    return value if isinstance(value, str) else fmt.format(value)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="tiny synthetic sets (CI: the same code path)")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--out", default=str(RESULTS / "trees_gpu_stage.md"))
    args = parser.parse_args(argv)
    import jax

    on_gpu = jax.devices()[0].platform == "gpu"
    rows, notes = [], []
    for name in [x.strip() for x in args.sets.split(",") if x.strip()]:
        X, s, prior, Xte, yte = load(name, args.dry_run)
        ours = pujax_fits(X, s, prior, Xte, yte)
        sk = sklearn_fit(X, s)
        xgb = xgboost_fits(X, s, Xte, yte, ours["depth"], on_gpu)
        cu = cuml_fit(X, s) if on_gpu else "no GPU"
        if isinstance(xgb, str):
            notes.append(f"{name}: XGBoost column skipped ({xgb}).")
            xgb = {"first": "-", "warm": "-", "acc": "-"}
        rows.append(f"| {name} | {X.shape[0]:,} x {X.shape[1]} | {ours['depth']} | {_cell(ours['first'])} "
                    f"({ours['compiled']}) | {_cell(ours['warm'])} | {_cell(ours['device'])} | {_cell(ours['host'])} "
                    f"| {_cell(ours['acc'], '{:.4f}')} | {_cell(sk)} | {_cell(xgb['first'])} | {_cell(xgb['warm'])} | "
                    f"{_cell(xgb['acc'], '{:.4f}')} | {_cell(cu)} |")
        print(rows[-1], flush=True)
    lines = [header("PU Extra Trees on an accelerator vs scikit-learn (host) and XGBoost RF (accelerator)"),
             "Protocol: see the docstring of benchmarks/trees_gpu.py" + (" (dry run: tiny synthetic sets)."
                                                                        if args.dry_run else "."), "",
             "| data | rows x features | pujax depth | pujax first fit s (programs compiled) | pujax warm fit s | "
             "of which device s | host s | pujax test acc | sklearn ET n_jobs=-1 s | XGBRF first s | XGBRF warm s | "
             "XGBRF test acc | cuML RF s |", "|" + " --- |" * 13, *rows, "", *[f"- {n}" for n in notes],
             f"- load average at end (1/5/15 min): {load_average()}"]
    text = "\n".join(lines) + "\n"
    pathlib.Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
