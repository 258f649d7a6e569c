"""Ada-PU's ``learning_rate="auto"`` rules on every tabular set of ``../shared/data`` and breast cancer's splits.

Two label-free rules pick β from ``LEARNING_RATES``: today's (the held-out PU 0-1 risk averaged over
``N_SELECTION_REPEATS`` partitions into ``N_SELECTION_FOLDS`` folds, ``AdaPUClassifier(learning_rate="auto")``)
and the rule it replaced (commit a8b2170; introduced in 0092b3e): the unbiased PU 0-1 risk (eq. (6), at the prior)
of a fit on all rows, scored on those same training rows, ties to the larger β. Both are scored by the test accuracy of
the β they pick, next to every fixed β and the best one (chosen on the test rows).

Protocols (one row of the summary per set and protocol):

* ``labeled30`` (a new user's data): per seed a stratified random 80/20 split; 30 % of the training positives
  labeled at random (s = y AND Bernoulli(0.3), the single-training-set scenario), every training row passed as
  ``(X_train, s)``; ``AdaPUClassifier(random_state=seed)`` with its defaults (``prior="auto"``); the fixed-β fits
  and the earlier rule use the prior that default fit estimated (``prior_``), so the rules differ only in β.
* ``case-control P=10`` (breast cancer, the paper's protocol): stratified random 80/20 splits, P = 10 random
  training positives, U = every training row, the true prior (training positive fraction).

Sets (positive class): breast cancer (scikit-learn's copy; benign), breast_w (PMLB; malignant), German credit
(PMLB ``german``; bad; ``credit_g`` is the same data), ionosphere (good), mushroom (poisonous), spambase (spam),
vote (PMLB; republican; ``house_votes_84`` is the same data), letter (the vowels A E I O U), covtype's 10k sample
(class 2, lodgepole pine) and, with ``--unsw``, UNSW-NB15 (attack; one-hot categoricals).

    python -m benchmarks.adapu_rules_tabular [--seeds 5] [--bc-seeds 10] [--sets ...] [--unsw]
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import RESULTS, data_dir, header  # noqa: E402

SETS = ("breast_cancer", "breast_w", "german", "ionosphere", "mushroom", "spambase", "vote", "letter", "covtype")


def _pmlb(name, positive):
    import pandas as pd

    d = pd.read_csv(data_dir() / "pmlb" / name / f"{name}.tsv.gz", sep="\t")
    return d.drop(columns="target").to_numpy(np.float64), np.isin(d["target"].to_numpy(), positive).astype(int)


def load_set(name):
    """(X, y) with y = 1 for the positive class."""
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        return load_breast_cancer(return_X_y=True)
    if name == "covtype":
        import pandas as pd

        a = pd.read_csv(data_dir() / "covtype" / "covtype_sample_10k.csv").to_numpy(np.float64)
        return a[:, :54], (a[:, 54] == 2).astype(int)
    if name == "unsw":
        import pandas as pd

        d = pd.read_csv(data_dir() / "unsw_nb15" / "UNSW_NB15_training-set.zip", encoding="utf-8-sig")
        X = pd.get_dummies(d.drop(columns=["id", "attack_cat", "label"]), dtype=float).to_numpy()
        return X, d["label"].to_numpy().astype(int)
    positive = {"breast_w": [1], "german": [0], "ionosphere": [1], "mushroom": [1], "spambase": [1], "vote": [1],
                "letter": [1, 5, 9, 15, 21]}[name]
    return _pmlb(name, positive)


def runs(name, protocol, seeds):
    from sklearn.model_selection import train_test_split

    X0, y0 = load_set(name)
    for seed in range(seeds):
        Xtr, Xte, ytr, yte = train_test_split(X0, y0, test_size=0.2, random_state=seed, stratify=y0)
        rng = np.random.default_rng(seed)
        if protocol == "labeled30":
            s = ((ytr == 1) & (rng.random(len(ytr)) < 0.3)).astype(np.int32)
            yield seed, Xtr, s, None, Xte, yte
        else:  # case-control, P = 10
            P = rng.choice(np.flatnonzero(ytr == 1), 10, replace=False)
            X = np.concatenate([Xtr[P], Xtr])
            yield seed, X, np.r_[np.ones(10, np.int32), np.zeros(len(Xtr), np.int32)], float(ytr.mean()), Xte, yte


def evaluate(name, protocol, seeds, log):
    from pujax import AdaPUClassifier
    from pujax.boosting.adapu import LEARNING_RATES
    from pujax.metrics import pu_zero_one_risk

    out = {"today": [], "earlier": [], "fixed": {b: [] for b in LEARNING_RATES}, "pick_today": [], "pick_earlier": []}
    for seed, X, s, prior, Xte, yte in runs(name, protocol, seeds):
        t0 = time.perf_counter()
        auto = AdaPUClassifier(random_state=seed, **({} if prior is None else {"prior": prior})).fit(X, s)
        prior = auto.prior_
        out["today"].append(float(np.mean(auto.predict(Xte) == yte)))
        out["pick_today"].append(LEARNING_RATES.index(auto.learning_rate_))
        risks = {}
        for b in LEARNING_RATES:
            est = AdaPUClassifier(learning_rate=b, prior=prior, random_state=seed).fit(X, s)
            out["fixed"][b].append(float(np.mean(est.predict(Xte) == yte)))
            risks[b] = float(pu_zero_one_risk(s, est.predict(X), prior))
        earlier = min(LEARNING_RATES, key=lambda b: (risks[b], -b))
        out["earlier"].append(out["fixed"][earlier][-1])
        out["pick_earlier"].append(LEARNING_RATES.index(earlier))
        log(f"[{name} {protocol}] seed {seed}: prior {prior:.3f}; today β={auto.learning_rate_:g} "
            f"{100 * out['today'][-1]:.2f} %, earlier β={earlier:g} {100 * out['earlier'][-1]:.2f} %, best fixed "
            f"{100 * max(v[-1] for v in out['fixed'].values()):.2f} % ({time.perf_counter() - t0:.0f} s)")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds per set (labeled30)")
    ap.add_argument("--bc-seeds", type=int, default=10, help="breast cancer case-control splits")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--unsw", action="store_true", help="also UNSW-NB15 (82,332 rows; slow on 2 cores)")
    ap.add_argument("--out", default=str(RESULTS / "adapu_rules_tabular.md"))
    args = ap.parse_args(argv)
    from pujax.boosting.adapu import LEARNING_RATES

    sets = [s.strip() for s in args.sets.split(",") if s.strip()] + (["unsw"] if args.unsw else [])
    jobs = [(n, "labeled30") for n in sets] + [("breast_cancer", "case-control P=10")]
    lines = [header("Ada-PU: today's and the earlier learning_rate='auto' rule on tabular data"),
             __doc__.split("\n\n", 1)[1].split("    python -m")[0].strip(), "",
             f"Test accuracy % (mean over {args.seeds} seeds, {args.bc_seeds} for the case-control rows; in brackets "
             f"the index of the picked β per seed in "
             f"LEARNING_RATES = {LEARNING_RATES}).", "",
             "| set | protocol | today (held-out, 3 x 2 folds) | earlier (training rows) | today - earlier | "
             "best fixed β | " + " | ".join(f"β={b:g}" for b in LEARNING_RATES) + " |",
             "|---|---|---|---|---|---|" + "---|" * len(LEARNING_RATES)]
    log_lines, diffs = [], []

    def log(msg):
        print(msg, flush=True)
        log_lines.append(msg)

    def write(final=False):
        extra = []
        if final and diffs:
            extra = ["", f"Mean of today - earlier over the {len(diffs)} rows: {100 * np.mean(diffs):+.2f} points; "
                         f"today better on {sum(d > 0 for d in diffs)}, worse on {sum(d < 0 for d in diffs)}, equal on "
                         f"{sum(d == 0 for d in diffs)}."]
        text = "\n".join(lines + extra + ["", "Per-run log:", ""] + [f"    {m}" for m in log_lines]) + "\n"
        pathlib.Path(args.out).write_text(text)

    for name, protocol in jobs:
        r = evaluate(name, protocol, args.seeds if protocol == "labeled30" else args.bc_seeds, log)
        today, earlier = np.mean(r["today"]), np.mean(r["earlier"])
        diffs.append(today - earlier)
        best = max(np.mean(v) for v in r["fixed"].values())
        picks = lambda k: "".join(str(i) for i in r[k])  # noqa: E731
        lines.append(f"| {name} | {protocol} | {100 * today:.2f} [{picks('pick_today')}] | {100 * earlier:.2f} "
                     f"[{picks('pick_earlier')}] | {100 * (today - earlier):+.2f} | {100 * best:.2f} | "
                     + " | ".join(f"{100 * np.mean(r['fixed'][b]):.2f}" for b in LEARNING_RATES) + " |")
        write()
    write(final=True)


if __name__ == "__main__":
    main()
