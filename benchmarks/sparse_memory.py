"""Peak memory of fitting on a large sparse TF-IDF-like matrix (issue 46): sparse input is never densified.

    python -m benchmarks.sparse_memory                     # 100,000 x 50,000, 0.1 % non-zeros
    python -m benchmarks.sparse_memory --rows 10000 --estimators elkan-noto

The matrix (:func:`tfidf_like`): ``rows`` documents of 50 distinct terms each (0.1 % of 50,000 columns), log-scaled
term weights, rows of unit norm, a positive class whose documents draw a fifth of their terms from 500 topic
terms; case-control PU labels (10 % of the positives labeled, the labeled rows appended to all rows). Its dense
float32 copy would take rows x 50,000 x 4 bytes (20 GB at 100,000 rows). Each estimator is fitted in a child process
of its own; the peak resident memory of the fit is ``VmHWM`` of ``/proc/self/status``, reset to the current size just
before the fit, so it counts the imports and the data (the resident size before the fit, in its own column) plus what
the fit adds. The test ``tests/test_sparse.py`` runs the same children on 10,000 rows (``-m slow``: on 100,000).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import time

import numpy as np

try:
    from benchmarks._common import RESULTS, header
except ImportError:  # run as a script: python benchmarks/sparse_memory.py
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from benchmarks._common import RESULTS, header

ESTIMATORS = ("elkan-noto", "two-step-spy", "bagging-lr", "nnpu-linear", "estimate-prior")
N_FEATURES = 50_000
TERMS_PER_ROW = 50


def tfidf_like(rows: int, seed: int = 0):
    """``(X, s, y)``: a CSR float32 TF-IDF-like matrix (module docstring), PU labels and true labels."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    y = rng.random(rows) < 0.3
    cols = rng.integers(0, N_FEATURES, (rows, TERMS_PER_ROW))
    topic = rng.integers(0, 500, (rows, TERMS_PER_ROW // 5))
    cols[y, : TERMS_PER_ROW // 5] = topic[y]
    vals = (1.0 + np.log1p(rng.poisson(1.0, cols.shape))).astype(np.float32)
    X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, rows * TERMS_PER_ROW + 1, TERMS_PER_ROW)),
                      shape=(rows, N_FEATURES))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.csr_matrix(sp.diags(1.0 / norms).astype(np.float32) @ X, dtype=np.float32)
    pos = np.flatnonzero(y)
    lab = rng.choice(pos, size=max(2, pos.size // 10), replace=False)
    X_pu = sp.vstack([X[lab], X], format="csr")
    s = np.r_[np.ones(lab.size, np.int32), np.zeros(rows, np.int32)]
    return X_pu, s, np.r_[np.ones(lab.size, np.int32), y.astype(np.int32)]


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _fit(name: str, X, s):
    from sklearn.linear_model import LogisticRegression

    import pujax

    if name == "estimate-prior":
        return pujax.estimate_prior(X, s, random_state=0)
    est = {"elkan-noto": lambda: pujax.ElkanNotoClassifier(random_state=0),
           "two-step-spy": lambda: pujax.TwoStepClassifier(random_state=0),
           "bagging-lr": lambda: pujax.PUBaggingClassifier(LogisticRegression(max_iter=1000), n_estimators=10,
                                                             random_state=0),
           "nnpu-linear": lambda: pujax.NNPULinearClassifier(prior=0.3, random_state=0)}[name]()
    return est.fit(X, s)


def measure(name: str, rows: int) -> dict:
    """Fit one estimator in this process; its peak resident memory and time."""
    import sklearn.linear_model  # noqa: F401  (the imports count in the resident size before the fit)

    import pujax  # noqa: F401

    X, s, _ = tfidf_like(rows)
    before = _status_mb("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:  # reset the peak (VmHWM) to the current resident size
        f.write("5")
    t0 = time.perf_counter()
    _fit(name, X, s)
    return dict(estimator=name, rows=int(X.shape[0]), nnz=int(X.nnz), sparse_mb=(X.data.nbytes + X.indices.nbytes
                + X.indptr.nbytes) / 2**20, dense_mb=X.shape[0] * X.shape[1] * 4 / 2**20, rss_before_mb=before,
                peak_mb=_status_mb("VmHWM"), fit_s=time.perf_counter() - t0)


def measure_child(name: str, rows: int, timeout: int = 3600) -> dict:
    """:func:`measure` in a fresh child process."""
    cmd = [sys.executable, "-m", "benchmarks.sparse_memory", "--worker", json.dumps([name, rows])]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                         cwd=pathlib.Path(__file__).resolve().parents[1])
    for line in reversed(out.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError(f"{name}: the child failed: {out.stderr.strip()[-2000:]}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--estimators", default=",".join(ESTIMATORS))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(RESULTS / "sparse_memory.md"))
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(*json.loads(args.worker))), flush=True)
        return
    results = []
    for name in args.estimators.split(","):
        r = measure_child(name, args.rows)
        print(json.dumps(r), flush=True)
        results.append(r)
    r0 = results[0]
    lines = [header("Peak memory of fits on a sparse TF-IDF-like matrix (issue 46)").rstrip(), "",
             __doc__.split("\n\n", 1)[1].split("\n\n")[0].strip(), "",
             f"Matrix: {r0['rows']:,} x {N_FEATURES:,} rows (labeled copies included), {r0['nnz']:,} non-zeros: "
             f"{r0['sparse_mb']:.0f} MB as CSR float32, {r0['dense_mb']:,.0f} MB as a dense float32 array.", "",
             "| estimator | resident before fit (MB) | peak during fit (MB) | fit (s) |", "| --- | --- | --- | --- |"]
    lines += [f"| {r['estimator']} | {r['rss_before_mb']:.0f} | {r['peak_mb']:.0f} | {r['fit_s']:.1f} |"
              for r in results]
    lines += ["", "Fit times were taken on a shared machine (other jobs running): orders of magnitude only.", ""]
    pathlib.Path(args.out).write_text("\n".join(lines))


if __name__ == "__main__":
    main()
