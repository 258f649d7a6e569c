"""``python -m pujax``: the demo run on bundled real data.

Loads breast cancer (scikit-learn) and mushroom (bundled UCI copy), builds the papers' case-control PU splits
(train/test 80/20; P = a random quarter of the training positives, U = all training rows), fits every pujax
classifier with default settings (except, to keep the demo short: RESVM 20 models, 2-HNC k = 10 and 101 lambdas),
plus a naive baseline (unlabeled as negative) and the fully supervised oracle, and prints accuracy, F1, ROC-AUC and
fit time on the test rows. RESVM gets the prior like the other methods (the threshold of its eq. 6 then makes the
predicted positive share of the unlabeled rows equal the prior) and its penalty C and positive weight are chosen as
in its paper, by 3-fold CV of pu_score on the PU training data; no hyper-parameter is tuned on test labels.
Options: ``--datasets``, ``--seed``, ``--methods``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class _PUTunedSVM(ClassifierMixin, BaseEstimator):
    """A pujax SVM with parameters chosen by the paper's protocol (pu_score CV on the PU data, refit on all rows)."""

    def __init__(self, estimator=None, param_grid=None, cv=3, random_state=None):
        self.estimator, self.param_grid, self.cv, self.random_state = estimator, param_grid, cv, random_state

    def fit(self, X, s):
        from pujax.svm import pu_grid_search

        self.best_estimator_ = pu_grid_search(self.estimator, self.param_grid, X, s, cv=self.cv,
                                              random_state=self.random_state).best_estimator_
        return self

    def predict(self, X):
        return self.best_estimator_.predict(X)

    def decision_function(self, X):
        return self.best_estimator_.decision_function(X)


def _methods(prior: float, seed: int, n: int):
    """(name, kind, factory) for every method; kind "pn" fits on true labels, "pu" on (X, s)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from pujax.boosting import AdaPUClassifier
    from pujax.graph import TwoHNC
    from pujax.neural import NNPUClassifier
    from pujax.svm import RESVMClassifier
    from pujax.trees import PUExtraTreesClassifier

    return [
        ("oracle: logistic (PN)", "pn", lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))),
        ("naive: logistic (U as N)", "pu",
         lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))),
        ("nnPU linear (Kiryo+17)", "pu", lambda: make_pipeline(StandardScaler(), NNPUClassifier(
            model="linear", prior=prior, epochs=200, batch_size=n, random_state=seed))),
        ("PU ET (Wilton+22)", "pu", lambda: PUExtraTreesClassifier(prior=prior, random_state=seed)),
        ("Ada-PU (Zhao+)", "pu", lambda: AdaPUClassifier(prior=prior, random_state=seed)),
        ("RESVM (Claesen+15)", "pu", lambda: _PUTunedSVM(
            RESVMClassifier(n_estimators=20, prior=prior, random_state=seed),
            {"C": [0.1, 1.0], "w_pos": [1.0, 4.0]}, 3, seed)),
        ("2-HNC (Hochbaum+)", "pu", lambda: TwoHNC(
            prior=prior, n_neighbors=10, lambdas=np.linspace(0.0, 0.5, 101), random_state=seed)),
    ]


def _split(X, y, seed, labeled_share=0.25):
    from sklearn.model_selection import train_test_split

    from pujax.data import make_case_control

    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
    n_labeled = max(5, int(labeled_share * y_tr.sum()))
    X_pu, s, prior, y_pu = make_case_control(seed, X_tr, y_tr, n_labeled, return_y=True)
    return X_tr, y_tr, X_pu, s, prior, X_te, y_te


def _scores(model, X):
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X), dtype=np.float64)
    return np.asarray(model.predict_proba(X))[:, 1]


def run(datasets=("breast_cancer", "mushroom"), seed=0, only=None, stream=print):
    from pujax import metrics
    from pujax.datasets import load

    rows = []
    for name in datasets:
        X, y = load(name)
        X_tr, y_tr, X_pu, s, prior, X_te, y_te = _split(X, y, seed)
        stream(f"\n{name}: {X.shape[0]} rows x {X.shape[1]} features; train {len(y_tr)} "
               f"(P = {int(s.sum())} labeled positives, U = {len(y_tr)} rows, prior = {prior:.3f}), test {len(y_te)}")
        stream(f"{'method':28s} {'accuracy':>9s} {'F1':>7s} {'AUC':>7s} {'fit s':>7s}")
        for label, kind, factory in _methods(prior, seed, len(s)):
            if only and not any(o.lower() in label.lower() for o in only):
                continue
            model = factory()
            t0 = time.perf_counter()
            if kind == "pn":
                model.fit(X_tr, y_tr)
            else:
                model.fit(X_pu, s)
            fit_s = time.perf_counter() - t0
            pred = np.asarray(model.predict(X_te)).astype(int)
            acc = float(metrics.accuracy(y_te, pred))
            f1 = float(metrics.f1_score(y_te, pred))
            auc = float(metrics.roc_auc(y_te, _scores(model, X_te)))
            rows.append((name, label, acc, f1, auc, fit_s))
            stream(f"{label:28s} {100 * acc:8.2f}% {100 * f1:6.2f}% {100 * auc:6.2f}% {fit_s:7.2f}")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m pujax", description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["breast_cancer", "mushroom"],
                        help="bundled or PUJAX_DATA data sets (default: breast_cancer mushroom)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", nargs="*", default=None, help="substrings of method names to run")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not use JAX's persistent compilation cache (pujax.enable_compilation_cache)")
    args = parser.parse_args(argv)
    if not args.no_cache:
        from pujax.compilation import enable_compilation_cache

        print(f"compilation cache: {enable_compilation_cache()}")
    import jax

    t0 = time.perf_counter()
    print(f"pujax demo on {jax.devices()[0].platform.upper()} ({jax.device_count()} device(s))")
    run(args.datasets, args.seed, args.methods)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s (fit times include JIT compilation)")


if __name__ == "__main__":
    main()
