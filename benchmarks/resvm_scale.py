"""RESVM on 20,000 raw UNSW-NB15 rows: accuracy and fit time of the default resample sizes and alternatives.

Protocol: 20,000 training and 10,000 test rows drawn at random (seed 0) from the UNSW-NB15 training file (raw
features, no scaling outside the estimator); case-control PU split with 30 % of the training positives labeled
(``pujax.data.make_case_control``); ``RESVMClassifier(random_state=0, prior=<true prior>)`` with the default 50
base models and ``n_pos = max_samples = size`` per run ("auto": the defaults of the pujax on the path). Every fit
runs twice; the second (warm) time is reported. Appends a section to ``benchmarks/results/resvm_scale.md``.

    python -m benchmarks.resvm_scale [--sizes auto 500 2000 n_pos=250,max_samples=1000,C=10.0] [--label NAME]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from benchmarks.resvm import machine


def run(sizes, data_dir):
    from pujax import metrics
    from pujax.data import make_case_control
    from pujax.datasets import load
    from pujax.svm import RESVMClassifier

    X, y = load("unsw_nb15", data_dir=data_dir)
    rows = np.random.default_rng(0).permutation(len(y))
    tr, te = rows[:20000], rows[20000:30000]
    X_pu, s, prior = make_case_control(0, X[tr], y[tr], int(0.3 * y[tr].sum()))
    out = []
    for size in sizes:
        if "=" in size:  # "n_pos=250,max_samples=1000,C=10": any RESVMClassifier keywords (numbers)
            kw = {k: float(v) if "." in v else int(v) for k, v in (kv.split("=") for kv in size.split(","))}
        else:
            kw = {} if size == "auto" else dict(n_pos=int(size), max_samples=int(size))
        for _ in range(2):
            est = RESVMClassifier(random_state=0, prior=prior, **kw)
            t = time.perf_counter()
            est.fit(X_pu, s)
            fit_s = time.perf_counter() - t
        t = time.perf_counter()
        pred = est.predict(X[te])
        pred_s = time.perf_counter() - t
        acc = 100 * float(metrics.accuracy(y[te], pred))
        auc = 100 * float(metrics.roc_auc(y[te], est.decision_function(X[te])))
        out.append((f"{size}: ({est.n_pos_}, {est.n_unl_})", acc, auc, fit_s, pred_s,
                    est.model_.support_vectors.shape[0]))
        print(f"size {size}: accuracy {acc:.2f} % AUC {auc:.2f} % fit {fit_s:.1f} s predict {pred_s:.1f} s", flush=True)
    return X_pu.shape, int(s.sum()), prior, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["auto", "500"])
    ap.add_argument("--data-dir", default=os.environ.get("PUJAX_DATA", "/work/shared/data"))
    ap.add_argument("--label", default="", help="name of the code version in the section title")
    args = ap.parse_args(argv)
    import datetime

    import pujax

    shape, n_P, prior, out = run(args.sizes, args.data_dir)
    md = [f"## {args.label or 'run'} ({datetime.datetime.now().isoformat(timespec='minutes')})", "",
          f"pujax: `{os.path.dirname(pujax.__file__)}`. Training set {shape[0]} x {shape[1]} ({n_P} labeled), prior "
          f"{prior:.3f}; 10,000 test rows. Machine: {machine()}.", "",
          "| rows per base model (P, U) | accuracy | ROC AUC | warm fit | predict 10k rows | support vectors |",
          "|---|---|---|---|---|---|"]
    for label, acc, auc, fit_s, pred_s, n_sv in out:
        md.append(f"| {label} | {acc:.2f} % | {auc:.2f} % | {fit_s:.1f} s | {pred_s:.1f} s | {n_sv} |")
    md += ["", f"Command: `python -m benchmarks.resvm_scale --sizes {' '.join(args.sizes)}`", "", ""]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "resvm_scale.md")
    new = not os.path.exists(path) or not open(path).read().startswith("# RESVM on 20,000")
    with open(path, "a") as f:
        if new:
            f.write("# RESVM on 20,000 raw UNSW-NB15 rows\n\n" + __doc__.split("\n\n")[1].replace("\n", " ") + "\n\n")
        f.write("\n".join(md))
    print(path)


if __name__ == "__main__":
    main()
