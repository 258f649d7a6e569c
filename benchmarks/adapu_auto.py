"""Ada-PU's label-free β rule (``learning_rate="auto"``, cross-fitted PU 0-1 risk) on random splits.

Breast cancer: per seed a stratified random 80/20 split of scikit-learn's 569 rows, P = 10 random training
positives (benign), U = all training rows, prior = training positive fraction, 100 rounds; and the fixed split of
``benchmarks/adapu.py`` (seeds 0..4 of its labeled draw). UNSW-NB15: the protocol
of ``benchmarks/adapu.py`` (random 80/20 split, P = 1,000 training attacks). Accuracy on the test rows of the
rule's β and of every fixed β of the grid. Writes ``benchmarks/results/adapu_auto.md``.

    python benchmarks/adapu_auto.py [--seeds 10] [--fixed-seeds 5] [--unsw-seeds 2]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import header  # noqa: E402
from benchmarks.adapu import breast_cancer_runs, pu_split, unsw_runs  # noqa: E402


def breast_cancer_random_runs(n):
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X0, y0 = load_breast_cancer(return_X_y=True)
    runs = []
    for seed in range(n):
        Xtr, Xte, ytr, yte = train_test_split(X0, y0, test_size=0.2, random_state=seed, stratify=y0)
        X, s = pu_split(np.random.default_rng(seed), Xtr, ytr, 10)
        runs.append(dict(seed=seed, X=X, s=s, Xte=Xte, yte=yte, prior=float(ytr.mean())))
    return runs


def evaluate(runs, log):
    from pujax import AdaPUClassifier
    from pujax.boosting.adapu import LEARNING_RATES

    auto, chosen, fixed = [], [], {b: [] for b in LEARNING_RATES}
    for r in runs:
        t = time.perf_counter()
        est = AdaPUClassifier(prior=r["prior"], random_state=r["seed"]).fit(r["X"], r["s"])
        auto.append(np.mean(est.predict(r["Xte"]) == r["yte"]))
        chosen.append(est.learning_rate_)
        for b in LEARNING_RATES:
            e = AdaPUClassifier(prior=r["prior"], learning_rate=b, random_state=r["seed"]).fit(r["X"], r["s"])
            fixed[b].append(np.mean(e.predict(r["Xte"]) == r["yte"]))
        log(f"  seed {r['seed']}: auto β={est.learning_rate_:g} acc {100 * auto[-1]:.2f} "
            f"({time.perf_counter() - t:.1f} s incl. the fixed-β fits)")
    return auto, chosen, fixed


def table(name, auto, chosen, fixed, paper):
    f = lambda a: f"{100 * np.mean(a):.2f} ({100 * np.std(a):.2f})"  # noqa: E731
    lines = [f"## {name}", "", f"{len(auto)} runs; accuracy % mean (std). Paper (Table 2): {paper}.", "",
             "| β | accuracy |", "|---|---|", f"| auto (chosen: {', '.join(f'{c:g}' for c in chosen)}) | {f(auto)} |"]
    lines += [f"| {b:g} | {f(a)} |" for b, a in fixed.items()]
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--unsw-seeds", type=int, default=2)
    ap.add_argument("--fixed-seeds", type=int, default=5)
    args = ap.parse_args()
    lines = header("Ada-PU: the label-free β rule on random splits").splitlines() + [""]
    print("breast cancer", flush=True)
    lines += table("Breast cancer, random 80/20 splits, 10 labeled positives",
                   *evaluate(breast_cancer_random_runs(args.seeds), print), "92.21 (3.02)")
    if args.fixed_seeds:
        print("breast cancer, fixed split", flush=True)
        runs, _ = breast_cancer_runs(args.fixed_seeds)
        lines += table("Breast cancer, the reference code's fixed split (train rows 0..454, test the last 114), "
                       "10 labeled positives", *evaluate(runs, print), "92.21 (3.02); the reference code's README "
                       "96.49")
    if args.unsw_seeds:
        print("UNSW-NB15", flush=True)
        runs, _ = unsw_runs(args.unsw_seeds)
        lines += table("UNSW-NB15, random 80/20 splits, 1,000 labeled attacks", *evaluate(runs, print),
                       "76.16 (0.59)")
    out = Path(__file__).resolve().parent / "results" / "adapu_auto.md"
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
