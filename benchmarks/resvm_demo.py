"""RESVM against PU ET in the demo protocol of ``python -m pujax`` over several seeds.

Protocol: exactly the demo's (``pujax.__main__``): per seed a stratified 80/20 train/test split, case-control PU
data with a random quarter of the training positives labeled and all training rows unlabeled, the true prior given;
RESVM as the demo builds it (20 base models, parameters chosen by 3-fold CV of pu_score on the PU training data,
refit on all of it), PU ET with its defaults. Accuracy and ROC AUC on the test rows; no parameter sees test labels.

    python -m benchmarks.resvm_demo [--seeds 0 1 2 3 4] [--datasets breast_cancer mushroom] [--label after]
    python -m benchmarks.resvm_demo --defaults   # RESVMClassifier() defaults: majority vote vs prior threshold

Appends a section to ``benchmarks/results/resvm_demo.md`` (``--out``). Runs with whatever ``pujax`` is on the path
(``PYTHONPATH`` selects the code version compared).
"""
from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _machine() -> str:
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} (shared with other jobs: timings are noisy)"


def run(datasets, seeds, methods=("PU ET", "RESVM")):
    """{(dataset, method): [(seed, accuracy, auc, fit_s), ...]} for the demo's factories."""
    from pujax import metrics
    from pujax.__main__ import _methods, _scores, _split
    from pujax.datasets import load

    out = {}
    for name in datasets:
        X, y = load(name)
        for seed in seeds:
            _, _, X_pu, s, prior, X_te, y_te = _split(X, y, seed)
            for label, _, factory in _methods(prior, seed, len(s)):
                method = next((m for m in methods if m in label), None)
                if method is None:
                    continue
                model = factory()
                t = time.perf_counter()
                model.fit(X_pu, s)
                fit_s = time.perf_counter() - t
                acc = float(metrics.accuracy(y_te, np.asarray(model.predict(X_te)).astype(int)))
                auc = float(metrics.roc_auc(y_te, _scores(model, X_te)))
                out.setdefault((name, method), []).append((seed, acc, auc, fit_s))
                print(f"{name} seed {seed} {method}: accuracy {100 * acc:.2f} % AUC {100 * auc:.2f} % "
                      f"fit {fit_s:.1f} s", flush=True)
    return out


def run_defaults(datasets, seeds):
    """``RESVMClassifier(random_state=seed)`` with its defaults on the demo splits, for prior=None (majority vote),
    the true prior and prior="auto": {(dataset, rule): [(seed, accuracy, auc, fit_s), ...]}."""
    from pujax import metrics
    from pujax.__main__ import _split
    from pujax.datasets import load
    from pujax.svm import RESVMClassifier

    out = {}
    for name in datasets:
        X, y = load(name)
        for seed in seeds:
            _, _, X_pu, s, prior, X_te, y_te = _split(X, y, seed)
            for rule, p in (("RESVM() prior=None (vote)", None), ("RESVM() prior=true", prior),
                            ('RESVM() prior="auto"', "auto")):
                t = time.perf_counter()
                est = RESVMClassifier(prior=p, random_state=seed).fit(X_pu, s)
                fit_s = time.perf_counter() - t
                acc = float(metrics.accuracy(y_te, est.predict(X_te)))
                auc = float(metrics.roc_auc(y_te, est.decision_function(X_te)))
                out.setdefault((name, rule), []).append((seed, acc, auc, fit_s))
                print(f"{name} seed {seed} {rule}: accuracy {100 * acc:.2f} %", flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--datasets", nargs="+", default=["breast_cancer", "mushroom"])
    ap.add_argument("--methods", nargs="+", default=["PU ET", "RESVM"])
    ap.add_argument("--label", default="", help="name of the code version in the section title")
    ap.add_argument("--defaults", action="store_true",
                    help="RESVMClassifier() with its defaults, prior None / true / 'auto', instead of the demo's")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "resvm_demo.md"))
    args = ap.parse_args(argv)
    import pujax

    res = run_defaults(args.datasets, args.seeds) if args.defaults else run(args.datasets, args.seeds,
                                                                            tuple(args.methods))
    cmd = "python -m benchmarks.resvm_demo " + " ".join(sys.argv[1:] if argv is None else argv)
    md = [f"## {args.label or 'run'} ({datetime.datetime.now().isoformat(timespec='minutes')})", "",
          f"- pujax: `{pathlib.Path(pujax.__file__).parent}`", f"- machine: {_machine()}",
          f"- command: `{cmd}`", "",
          "| data set | method | " + " | ".join(f"seed {s}" for s in args.seeds) + " | mean accuracy | mean AUC "
          "| mean fit s |", "|---|---|" + "---|" * (len(args.seeds) + 3)]
    for (name, method), rows in res.items():
        acc = np.array([r[1] for r in rows])
        md.append(f"| {name} | {method} | " + " | ".join(f"{100 * a:.2f}" for a in acc)
                  + f" | {100 * acc.mean():.2f} | {100 * np.mean([r[2] for r in rows]):.2f} "
                  f"| {np.mean([r[3] for r in rows]):.1f} |")
    new = not os.path.exists(args.out)
    with open(args.out, "a") as f:
        if new:
            f.write("# RESVM vs PU ET in the demo protocol (`python -m pujax`), several seeds\n\n"
                    + __doc__.split("\n\n")[1].replace("\n", " ") + "\n\n")
        f.write("\n".join(md) + "\n\n")
    print(args.out)


if __name__ == "__main__":
    main()
