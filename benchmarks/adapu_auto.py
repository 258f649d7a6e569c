"""Ada-PU's label-free β rule (``learning_rate="auto"``, cross-fitted PU 0-1 risk) on random splits.

Breast cancer: per seed a stratified random 80/20 split of scikit-learn's 569 rows, P = 10 random training
positives (benign), U = all training rows, prior = training positive fraction, 100 rounds; and the fixed split of
``benchmarks/adapu.py`` (seeds 0..4 of its labeled draw). Mushroom and spambase (shared PMLB copies, positive =
poisonous / spam): the same random-split protocol with P = 100 training positives. UNSW-NB15: the protocol
of ``benchmarks/adapu.py`` (random 80/20 split, P = 1,000 training attacks). Accuracy on the test rows of the
rule's β (``N_SELECTION_REPEATS`` partitions into ``N_SELECTION_FOLDS`` folds), of the rule with a single partition,
and of every fixed β of the grid. Writes ``benchmarks/results/adapu_auto.md``.

    python benchmarks/adapu_auto.py [--seeds 10] [--fixed-seeds 5] [--pmlb-seeds 10] [--unsw-seeds 2]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import header  # noqa: E402
from benchmarks.adapu import breast_cancer_runs, load, pu_split, unsw_runs  # noqa: E402

NOTE = ("`auto`: `AdaPUClassifier(learning_rate=\"auto\")`, the β of `LEARNING_RATES` with the smallest held-out "
        "unbiased PU 0-1 risk (eq. (6)) averaged over `N_SELECTION_REPEATS` independent partitions into "
        "`N_SELECTION_FOLDS` folds; `auto, 1 x 2 folds`: the same rule on the first partition only. How the rule "
        "was chosen (on held-out PU risks, no test labels): `adapu_rule_study.md`. Fixed-β rows are separate fits "
        "on all rows.")


def breast_cancer_random_runs(n):
    from sklearn.datasets import load_breast_cancer

    X0, y0 = load_breast_cancer(return_X_y=True)
    return random_split_runs(X0, y0, n, 10)


def random_split_runs(X0, y0, n, n_p):
    """Per seed: a stratified random 80/20 split, P = n_p random training positives, U = all training rows."""
    from sklearn.model_selection import train_test_split

    runs = []
    for seed in range(n):
        Xtr, Xte, ytr, yte = train_test_split(X0, y0, test_size=0.2, random_state=seed, stratify=y0)
        X, s = pu_split(np.random.default_rng(seed), Xtr, ytr, n_p)
        runs.append(dict(seed=seed, X=X, s=s, Xte=Xte, yte=yte, prior=float(ytr.mean())))
    return runs


def evaluate(runs, log):
    from pujax import AdaPUClassifier
    from pujax.boosting import adapu
    from pujax.boosting.adapu import LEARNING_RATES

    auto, chosen, fixed = [], [], {b: [] for b in LEARNING_RATES}
    one, chosen_one = [], []
    repeats = adapu.N_SELECTION_REPEATS
    for r in runs:
        t = time.perf_counter()
        est = AdaPUClassifier(prior=r["prior"], random_state=r["seed"]).fit(r["X"], r["s"])
        auto.append(np.mean(est.predict(r["Xte"]) == r["yte"]))
        chosen.append(est.learning_rate_)
        t_auto = time.perf_counter() - t
        try:  # the rule with a single partition (its first one)
            adapu.N_SELECTION_REPEATS = 1
            e1 = AdaPUClassifier(prior=r["prior"], random_state=r["seed"]).fit(r["X"], r["s"])
        finally:
            adapu.N_SELECTION_REPEATS = repeats
        one.append(np.mean(e1.predict(r["Xte"]) == r["yte"]))
        chosen_one.append(e1.learning_rate_)
        for b in LEARNING_RATES:
            e = AdaPUClassifier(prior=r["prior"], learning_rate=b, random_state=r["seed"]).fit(r["X"], r["s"])
            fixed[b].append(np.mean(e.predict(r["Xte"]) == r["yte"]))
        log(f"  seed {r['seed']}: auto β={est.learning_rate_:g} acc {100 * auto[-1]:.2f}, one partition "
            f"β={e1.learning_rate_:g} acc {100 * one[-1]:.2f} (auto fit {t_auto:.1f} s; "
            f"{time.perf_counter() - t:.1f} s incl. the other fits)")
    return auto, chosen, one, chosen_one, fixed


def table(name, auto, chosen, one, chosen_one, fixed, paper):
    from pujax.boosting.adapu import N_SELECTION_FOLDS, N_SELECTION_REPEATS

    f = lambda a: f"{100 * np.mean(a):.2f} ({100 * np.std(a):.2f})"  # noqa: E731
    c = lambda ch: ", ".join(f"{x:g}" for x in ch)  # noqa: E731
    lines = [f"## {name}", "", f"{len(auto)} runs; accuracy % mean (std). Paper (Table 2): {paper}.", "",
             "| β | accuracy |", "|---|---|",
             f"| auto, {N_SELECTION_REPEATS} x {N_SELECTION_FOLDS} folds (chosen: {c(chosen)}) | {f(auto)} |",
             f"| auto, 1 x {N_SELECTION_FOLDS} folds (chosen: {c(chosen_one)}) | {f(one)} |"]
    lines += [f"| {b:g} | {f(a)} |" for b, a in fixed.items()]
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--unsw-seeds", type=int, default=2)
    ap.add_argument("--fixed-seeds", type=int, default=5)
    ap.add_argument("--pmlb-seeds", type=int, default=10, help="random splits of mushroom and spambase")
    args = ap.parse_args()
    lines = header("Ada-PU: the label-free β rule on random splits").splitlines() + ["", NOTE, ""]
    print("breast cancer", flush=True)
    lines += table("Breast cancer, random 80/20 splits, 10 labeled positives",
                   *evaluate(breast_cancer_random_runs(args.seeds), print), "92.21 (3.02)")
    if args.fixed_seeds:
        print("breast cancer, fixed split", flush=True)
        runs, _ = breast_cancer_runs(args.fixed_seeds)
        lines += table("Breast cancer, the reference code's fixed split (train rows 0..454, test the last 114), "
                       "10 labeled positives", *evaluate(runs, print), "92.21 (3.02); the reference code's README "
                       "96.49")
    for name in ("mushroom", "spambase") if args.pmlb_seeds else ():
        print(name, flush=True)
        X0, y0 = load(name)
        lines += table(f"{name.capitalize()}, random 80/20 splits, 100 labeled positives",
                       *evaluate(random_split_runs(X0, y0, args.pmlb_seeds, 100), print), "not in the paper")
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
