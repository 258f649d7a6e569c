"""PUBaggingClassifier around a pujax base model with ``fit_bags`` (all bags in one batched call) against the same bags
fitted one by one (issue 23).

    python -m benchmarks.bagging                       # CWSVM, stump and SupervisedET bases, breast_cancer, spambase
    python -m benchmarks.bagging --bases cwsvm --sets breast_cancer --bags 50 --out PATH

Per set: SCAR labels (``pujax.data.make_censoring``, label frequency 0.5) on all rows. Bases: RBF
``CWSVMClassifier(C_pos=2)`` and ``DecisionStumpClassifier()`` with bags of as many unlabeled rows as there are
labeled positives (the default), and ``SupervisedET(n_estimators=50)`` with bags of all unlabeled rows
(``max_samples=1.0``, PUBaggingET's setting). "one by one" is the same base class with the ``fit_bags`` and
``positive_proba_bags`` hooks switched off, so the bags are fitted and scored by the joblib loop (``n_jobs=None``: in
sequence); for the stump it is scikit-learn's ``DecisionTreeClassifier(max_depth=1)``, the same model. "first" is the
first fit of that configuration in the process (compilation included), "warm" the best of two more; agreement is the
share of rows on which the two models predict the same label (SupervisedET's batched bags share the bins of all
rows, so they are not the same trees).
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

try:
    from benchmarks._common import RESULTS, data_dir, header, load_average
except ImportError:  # run as a script: python benchmarks/bagging.py
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from benchmarks._common import RESULTS, data_dir, header, load_average


def _times(make, X, s, repeats=3):
    ts, model = [], None
    for _ in range(repeats):
        model = make()
        t0 = time.perf_counter()
        model.fit(X, s)
        ts.append(time.perf_counter() - t0)
    return ts[0], min(ts[1:]), model


def _one_by_one(cls):
    """The same base class without the batched hooks, so PUBaggingClassifier fits and scores its bags one by one."""
    return type("OneByOne", (cls,), {"fit_bags": None, "positive_proba_bags": None})


def _bases():
    """name -> (batched base factory, one-by-one base factory, PUBaggingClassifier's max_samples)."""
    from sklearn.tree import DecisionTreeClassifier

    from pujax.boosting import DecisionStumpClassifier
    from pujax.svm import CWSVMClassifier
    from pujax.trees import SupervisedET

    return {"cwsvm": (lambda: CWSVMClassifier(C_pos=2.0), lambda: _one_by_one(CWSVMClassifier)(C_pos=2.0), None),
            "stump": (DecisionStumpClassifier, lambda: DecisionTreeClassifier(max_depth=1), None),
            "supervised_et": (lambda: SupervisedET(n_estimators=50, random_state=0),
                              lambda: _one_by_one(SupervisedET)(n_estimators=50, random_state=0), 1.0)}


def run(bases, sets, bag_counts):
    """Rows ``(base, set, n, d, bags, batched first, batched warm, loop first, loop warm, agreement, accuracy)``."""
    import pujax
    from pujax.meta import PUBaggingClassifier

    rows = []
    for base_name in bases:
        batched_base, loop_base, max_samples = _bases()[base_name]
        for name in sets:
            X, y = pujax.datasets.load(name, data_dir=data_dir())
            data = pujax.data.make_censoring(0, np.asarray(X, np.float64), y, labeled_fraction=0.5)
            for n_bags in bag_counts:
                def make(base):
                    return lambda: PUBaggingClassifier(base(), n_estimators=n_bags, max_samples=max_samples,
                                                       random_state=0)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    b1, bw, batched = _times(make(batched_base), data.X, data.s)
                    l1, lw, loop = _times(make(loop_base), data.X, data.s)
                pred = batched.predict(data.X)
                rows.append((base_name, name, *X.shape, n_bags, b1, bw, l1, lw,
                             float(np.mean(pred == loop.predict(data.X))), float(np.mean(pred == y))))
                print(rows[-1], flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bases", default="cwsvm,stump,supervised_et")
    parser.add_argument("--sets", default="breast_cancer,spambase")
    parser.add_argument("--bags", default="10,50", help="comma list of n_estimators")
    parser.add_argument("--out", default=str(RESULTS / "bagging.md"))
    args = parser.parse_args(argv)
    head = header("Bagging PU around pujax base models: one batched call vs one fit per bag")
    rows = run(args.bases.split(","), args.sets.split(","), [int(b) for b in args.bags.split(",")])
    lines = [head, f"- load average at end (1/5/15 min): {load_average()}\n", "Protocol: see the docstring of "
             "benchmarks/bagging.py.\n",
             "| base | set | rows x features | bags | batched first s | batched warm s | one by one first s "
             "| one by one warm s | warm speed-up | agreement | accuracy (all rows) |", "|" + " --- |" * 11]
    for base, name, n, d, bags, b1, bw, l1, lw, agree, acc in rows:
        lines.append(f"| {base} | {name} | {n} x {d} | {bags} | {b1:.2f} | {bw:.2f} | {l1:.2f} | {lw:.2f} "
                     f"| {lw / bw:.1f}x | {agree:.4f} | {acc:.3f} |")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
