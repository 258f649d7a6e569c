"""pujax beside pulearn (0.2, BSD-3) on the shared tabular sets, with the same splits (issue 23).

    python -m benchmarks.peers                 # breast_cancer, vote, ionosphere, german, spambase, mushroom
    python -m benchmarks.peers --quick         # the first four sets, one seed
    python -m benchmarks.peers --sets ionosphere --methods "Elkan-Noto,Elkan-Noto (cv=5)" --seeds 5 --out PATH

Protocol per set and seed: a stratified 70/30 train/test split, features standardised on the training part, SCAR
labels on the training part (``pujax.data.make_censoring``, label frequency 0.5); accuracy and F1 against the true
labels of the test part. Counterparts, configured alike:

* Elkan-Noto: ``ElkanNotoClassifier`` / ``ElkanotoPuClassifier`` around ``LogisticRegression(max_iter=1000)``,
  hold-out ratio 0.1; and the weighted variants (``weighted=True`` / ``WeightedElkanotoPuClassifier``); also
  pujax's cross-fitted label frequency (``cv=5``) beside pulearn's hold-out;
* bagging PU: ``PUBaggingClassifier`` / ``BaggingPuClassifier``, 100 ``DecisionTreeClassifier`` bags of as many
  unlabeled rows as there are labeled positives, ``n_jobs=-1``; 100 decision stumps: pujax's
  ``DecisionStumpClassifier()`` (all bags in one program) / scikit-learn's ``DecisionTreeClassifier(max_depth=1)``
  (``n_jobs=-1``), the same model; and 50 RBF SVM bags: pujax's ``CWSVMClassifier()`` (all bags in one batched
  solve) / scikit-learn's ``SVC()`` (libsvm, ``n_jobs=-1``), both ``C = 1``, ``gamma="scale"``;
* nnPU: ``NNPULinearClassifier`` (its defaults: L-BFGS, full batch, ``C`` by 3-fold cross-validation of the
  zero-one uPU risk on the training part) / pulearn ``NNPUClassifier`` (its defaults: 1,000 gradient steps),
  with the true positive fraction of the unlabeled rows as the prior.

Fit times: "first" is the first fit of that estimator on that set in the process (compilation included for pujax's
jit-compiled learner), "warm" a second fit on the same data; pulearn has no compilation, one time is given.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

try:
    from benchmarks._common import RESULTS, data_dir, header, load_average
except ImportError:  # run as a script: python benchmarks/peers.py
    import pathlib

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from benchmarks._common import RESULTS, data_dir, header, load_average

SETS = ["breast_cancer", "vote", "ionosphere", "german", "spambase", "mushroom"]


def _pairs(train):
    import pulearn
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    from pujax.boosting import DecisionStumpClassifier
    from pujax.meta import ElkanNotoClassifier, NNPULinearClassifier, PUBaggingClassifier
    from pujax.svm import CWSVMClassifier

    lr = LogisticRegression(max_iter=1000)
    n_l, n_u = int(train.s.sum()), int((train.s == 0).sum())
    return {
        "Elkan-Noto": (lambda: ElkanNotoClassifier(lr, hold_out_ratio=0.1, random_state=0),
                       lambda: pulearn.ElkanotoPuClassifier(lr, hold_out_ratio=0.1, random_state=0)),
        "Elkan-Noto (cv=5)": (lambda: ElkanNotoClassifier(lr, cv=5, random_state=0),
                              lambda: pulearn.ElkanotoPuClassifier(lr, hold_out_ratio=0.1, random_state=0)),
        "Elkan-Noto weighted": (lambda: ElkanNotoClassifier(lr, hold_out_ratio=0.1, weighted=True, random_state=0),
                                lambda: pulearn.WeightedElkanotoPuClassifier(lr, labeled=n_l, unlabeled=n_u,
                                                                             hold_out_ratio=0.1, random_state=0)),
        "bagging PU (100 trees)": (
            lambda: PUBaggingClassifier(DecisionTreeClassifier(), n_estimators=100, n_jobs=-1, random_state=0),
            lambda: pulearn.BaggingPuClassifier(DecisionTreeClassifier(), n_estimators=100, max_samples=n_l,
                                                n_jobs=-1, random_state=0)),
        "bagging PU (100 stumps)": (
            lambda: PUBaggingClassifier(DecisionStumpClassifier(), n_estimators=100, random_state=0),
            lambda: pulearn.BaggingPuClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=100,
                                                max_samples=n_l, n_jobs=-1, random_state=0)),
        "bagging PU (50 SVMs)": (
            lambda: PUBaggingClassifier(CWSVMClassifier(), n_estimators=50, random_state=0),
            lambda: pulearn.BaggingPuClassifier(SVC(), n_estimators=50, max_samples=n_l, n_jobs=-1, random_state=0)),
        "nnPU linear": (lambda: NNPULinearClassifier(prior=train.prior, random_state=0),
                        lambda: pulearn.NNPUClassifier(prior=train.prior, random_state=0)),
    }


def _timed_fit(make, X, s):
    model = make()
    t = time.perf_counter()
    model.fit(X, s)
    return model, time.perf_counter() - t


def _scores(model, X, y):
    from sklearn.metrics import accuracy_score, f1_score

    pred = (np.asarray(model.predict(X)) == 1).astype(int)
    return accuracy_score(y, pred), f1_score(y, pred, zero_division=0.0)


def run_set(name: str, seed: int, methods=None):
    """Rows ``(set, method, seed, pujax acc, pulearn acc, pujax F1, pulearn F1, first s, warm s, pulearn s)``."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    import pujax

    X, y = pujax.datasets.load(name, data_dir=data_dir())
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    scaler = StandardScaler().fit(X_tr)
    X_tr, X_te = scaler.transform(X_tr).astype(np.float32), scaler.transform(X_te).astype(np.float32)
    train = pujax.data.make_censoring(seed, X_tr, y_tr, labeled_fraction=0.5)
    rows = []
    for method, (ours, theirs) in _pairs(train).items():
        if methods is not None and method not in methods:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m_ours, t_first = _timed_fit(ours, train.X, train.s)
            _, t_warm = _timed_fit(ours, train.X, train.s)
            m_theirs, t_theirs = _timed_fit(theirs, train.X, train.s)
            acc_o, f1_o = _scores(m_ours, X_te, y_te)
            acc_t, f1_t = _scores(m_theirs, X_te, y_te)
        rows.append((name, method, seed, acc_o, acc_t, f1_o, f1_t, t_first, t_warm, t_theirs))
        print(f"{name:14s} {method:24s} seed {seed}: acc {acc_o:.3f} vs {acc_t:.3f}, F1 {f1_o:.3f} vs {f1_t:.3f}, "
              f"fit {t_first:.2f}/{t_warm:.2f} s vs {t_theirs:.2f} s", flush=True)
    return rows


def table(rows) -> str:
    """Mean over seeds per set and method, as a markdown table."""
    out = ["| set | method | acc pujax | acc pulearn | Δ acc (points) | F1 pujax | F1 pulearn | fit pujax first (s) "
           "| fit pujax warm (s) | fit pulearn (s) |", "|" + " --- |" * 10]
    keys = list(dict.fromkeys((r[0], r[1]) for r in rows))
    for key in keys:
        sel = np.array([r[3:] for r in rows if (r[0], r[1]) == key], dtype=float).mean(0)
        acc_o, acc_t, f1_o, f1_t, t1, t2, tt = sel
        out.append(f"| {key[0]} | {key[1]} | {acc_o:.3f} | {acc_t:.3f} | {100 * (acc_o - acc_t):+.1f} | {f1_o:.3f} "
                   f"| {f1_t:.3f} | {t1:.2f} | {t2:.2f} | {tt:.2f} |")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="four sets, one seed")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--sets", default=None, help="comma list of " + ",".join(SETS) + " (default: all)")
    parser.add_argument("--methods", default=None, help="comma list of method names as in the table (default: all)")
    parser.add_argument("--out", default=str(RESULTS / "peers.md"))
    args = parser.parse_args(argv)
    import pulearn

    sets, seeds = (SETS[:4], 1) if args.quick else (SETS, args.seeds)
    if args.sets:
        sets = [x.strip() for x in args.sets.split(",") if x.strip()]
    methods = None if not args.methods else {x.strip() for x in args.methods.split(",")}
    head = header("pujax beside pulearn")
    rows = [r for name in sets for seed in range(seeds) for r in run_set(name, seed, methods)]
    text = (f"{head}- load average at end (1/5/15 min): {load_average()}\n"
            f"- pulearn {pulearn.__version__}; {seeds} seed(s) per set, means shown\n\n"
            f"Protocol: see the docstring of benchmarks/peers.py.\n\n{table(rows)}\n")
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
