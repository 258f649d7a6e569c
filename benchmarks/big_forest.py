"""A PU Extra Trees fit on data that is large for one machine (issue 22): 10 million rows x 50 features by default,
with the fit time and the peak memory (process resident set; on an accelerator also the device's peak bytes).

    python -m benchmarks.big_forest                          # 10M x 50, 10 trees of depth <= 12
    python -m benchmarks.big_forest --rows 1e6 --trees 10 --out PATH
    python -m benchmarks.big_forest --rows 1e6 --trees 100 --max-work 26   # entries per tree batch <= 2^26

Data: standard normal features, y ~ Bernoulli(0.3), the first 10 features shifted by +1 for positives; 20 % of the
positives labeled (SCAR), the prior of the unlabeled rows given. Rows are generated a million at a time straight
into one float32 array (the data itself is reported as "data GiB"). Test accuracy on 100,000 fresh rows.
"""
from __future__ import annotations

import argparse
import resource
import time

import numpy as np

try:
    from benchmarks._common import RESULTS, header, load_average
except ImportError:  # run as a script: python benchmarks/big_forest.py
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from benchmarks._common import RESULTS, header, load_average


def _data(n: int, d: int, seed: int):
    rng = np.random.default_rng(seed)
    X = np.empty((n, d), np.float32)
    y = rng.random(n) < 0.3
    for a in range(0, n, 1_000_000):
        b = min(n, a + 1_000_000)
        X[a:b] = rng.standard_normal((b - a, d), dtype=np.float32)
        X[a:b, :10] += y[a:b, None]
    return X, y


def _peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: kilobytes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--trees", type=int, default=10)
    parser.add_argument("--max-depth", type=int, default=12)
    parser.add_argument("--max-work", type=int, default=None,
                        help="log2 of the tree builder's bound on (tree, row) entries per tree batch (default: the "
                             "library's, pujax.trees.builder.grow_forest's max_work)")
    parser.add_argument("--out", default=str(RESULTS / "big_forest.md"))
    args = parser.parse_args(argv)
    import jax

    from pujax.trees import PUExtraTreesClassifier
    from pujax.trees.builder import MAX_WORK, grow_forest

    if args.max_work is not None:
        grow_forest.__kwdefaults__["max_work"] = 1 << args.max_work
    max_work = grow_forest.__kwdefaults__["max_work"] or MAX_WORK["cpu" if jax.devices()[0].platform == "cpu"
                                                                 else "accelerator"]

    head = header("PU Extra Trees on a large data set: time and peak memory")
    n, d = int(args.rows), args.features
    X, y = _data(n, d, 0)
    rng = np.random.default_rng(1)
    s = (y & (rng.random(n) < 0.2)).astype(np.int64)
    prior = float(y[s == 0].mean())
    rss_data = _peak_rss_gib()
    t0 = time.perf_counter()
    clf = PUExtraTreesClassifier(n_estimators=args.trees, prior=prior, max_depth=args.max_depth, random_state=0)
    clf.fit(X, s)
    fit_s = time.perf_counter() - t0
    X_te, y_te = _data(100_000, d, 2)
    acc = float(np.mean(clf.predict(X_te) == y_te))
    stats = jax.devices()[0].memory_stats() or {}
    device_peak = stats.get("peak_bytes_in_use")
    row = (f"| {n:,} x {d} | {args.trees} | {args.max_depth} | 2^{max_work.bit_length() - 1} | "
           f"{X.nbytes / 2**30:.2f} | {fit_s:.1f} | {acc:.4f} | "
           f"{rss_data:.2f} | {_peak_rss_gib():.2f} | "
           f"{'n/a' if device_peak is None else f'{device_peak / 2**30:.2f}'} |")
    lines = [head, f"- load average at end (1/5/15 min): {load_average()}\n",
             "Protocol: see the docstring of benchmarks/big_forest.py. Peak resident set of the process (on the CPU "
             "backend the devices' memory is the process's).\n",
             "| rows x features | trees | max depth | entries per batch <= | data GiB | fit s | test accuracy | "
             "peak RSS before fit GiB | peak RSS GiB | device peak GiB |", "|" + " --- |" * 10, row]
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
