"""Ada-PU benchmark: accuracy against the paper (Zhao et al., Table 2, §5.6), PN boosting baselines (§5.2.2), and
speed of 100 rounds against scikit-learn's AdaBoost with 100 stumps on the same rows.

Run: ``python -m benchmarks.adapu [--quick] [--device cpu|gpu]`` (or ``python benchmarks/adapu.py``); writes
``benchmarks/results/adapu.md``.

Protocols
---------
* Breast cancer (the Ada-PU reference code): scikit-learn's 569 x 30, positive = benign (sklearn target 1, as the
  reference code takes it: prior 0.591 on the training rows, the paper's 0.59); train = rows 0..454, test = rows
  455..568 (114 rows, 77.2 % benign); P = 10 random benign training rows, U = all 455 training rows.
* UNSW-NB15: the 82,332-row file (the paper used the 175k split, not available offline), one-hot ``proto``,
  ``service``, ``state`` (190 features); positive = attack; per run a random 80/20 split, P = 1,000 random training
  attacks, U = all 65,865 training rows, prior = the attack fraction of the training rows.
* PN baselines (§5.2.2): the same P plus n_n = (π_n / 2π_p)^2 n_p random training negatives (the reference code
  truncates to an int: 1 negative on breast cancer, 167 on UNSW-NB15), scikit-learn AdaBoost (SAMME) and gradient
  boosting with 100 stumps.
* β is not set by the paper ("we tune β to cope with different datasets", §5.6.2).  We report every β of the
  paper's grid, and a label-free choice per run: the β whose model has the smallest non-negative PU estimate of the
  0-1 risk on its own training data, π P_P(ŷ=0) + max(0, P_U(ŷ=1) − π P_P(ŷ=1)).
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

if __package__ in (None, ""):  # python benchmarks/adapu.py
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    __package__ = "benchmarks"

import numpy as np

from benchmarks._common import RESULTS, best_time, data_dir, header, load_average, select_device

PAPER = {  # Table 2 (mean (std) accuracy %, 5 runs); UNSW-NB15 on the 175k split
    "breast_cancer": {"Ada-PU": "92.21 (3.02)", "AdaBoost (PN)": "78.76 (13.02)", "GBDT (PN)": "84.24 (6.89)",
                      "XGBoost (PN)": "76.99 (0.00)", "nnPU-MLP": "87.96 (3.40)", "uPU": "53.09 (3.00)"},
    "unsw_nb15": {"Ada-PU": "76.16 (0.59)", "AdaBoost (PN)": "77.16 (0.42)", "GBDT (PN)": "76.58 (1.26)",
                  "XGBoost (PN)": "77.46 (0.60)", "nnPU-MLP": "72.15 (1.41)", "uPU": "73.36 (1.28)"},
}
BETAS = (0.001, 0.01, 0.1, 0.2, 0.5, 0.7, 0.9, 1.0)  # §5.6.2 grid


# ---------------------------------------------------------------------------------------------------------- data
def load(name, split="all"):
    try:
        from pujax.datasets import load as _load

        return _load(name, data_dir=data_dir(), split=split)
    except ImportError:  # pragma: no cover - before pujax.datasets existed
        from pujax.datasets import tabular

        if name == "breast_cancer":
            return tabular.load_breast_cancer(split=split)
        return tabular.load_unsw_nb15(data_dir() / "unsw_nb15" / "UNSW_NB15_training-set.zip")


def pu_split(rng, Xtr, ytr, n_p):
    """Case-control PU training set: n_p random positives of the training rows + all training rows as U."""
    P = Xtr[rng.choice(np.flatnonzero(ytr == 1), n_p, replace=False)]
    X = np.concatenate([P, Xtr])
    s = np.r_[np.ones(n_p, np.int32), np.zeros(len(Xtr), np.int32)]
    return X, s


def pn_split(rng, Xtr, ytr, n_p, prior):
    """§5.2.2: n_p positives and n_n = (π_n / 2π_p)^2 n_p negatives (int-truncated as in the reference code)."""
    n_n = max(1, int(((1 - prior) / (2 * prior)) ** 2 * n_p))
    pos = rng.choice(np.flatnonzero(ytr == 1), n_p, replace=False)
    neg = rng.choice(np.flatnonzero(ytr == 0), n_n, replace=False)
    return np.concatenate([Xtr[pos], Xtr[neg]]), np.r_[np.ones(n_p), np.zeros(n_n)].astype(int), n_n


def pu_risk01(s, pred, prior):
    """Non-negative PU estimate of the 0-1 risk on the training P/U rows (no true labels used)."""
    p, u = s == 1, s == 0
    rp_plus = prior * np.mean(pred[p] == 0)
    neg = np.mean(pred[u] == 1) - prior * np.mean(pred[p] == 1)
    return rp_plus + max(0.0, neg)


def fmt(accs):
    a = 100 * np.asarray(accs)
    return f"{a.mean():.2f} ({a.std():.2f})"


# ------------------------------------------------------------------------------------------------------ protocols
def breast_cancer_runs(n_runs):
    Xtr, ytr = load("breast_cancer", split="train")
    Xte, yte = load("breast_cancer", split="test")
    prior = float(ytr.mean())
    runs = []
    for seed in range(n_runs):
        rng = np.random.default_rng(seed)
        X, s = pu_split(rng, Xtr, ytr, 10)
        runs.append(dict(seed=seed, X=X, s=s, Xtr=Xtr, ytr=ytr, Xte=Xte, yte=yte, prior=prior))
    return runs, dict(n_train=len(Xtr), n_test=len(Xte), prior=prior, pos_test=float(yte.mean()), n_p=10,
                      n_features=Xtr.shape[1])


def unsw_runs(n_runs):
    X, y = load("unsw_nb15")
    runs = []
    for seed in range(n_runs):
        rng = np.random.default_rng(seed)
        perm = rng.permutation(len(y))
        n_tr = int(0.8 * len(y))
        tr, te = perm[:n_tr], perm[n_tr:]
        Xtr, ytr = X[tr], y[tr]
        prior = float(ytr.mean())
        Xp, s = pu_split(rng, Xtr, ytr, 1000)
        runs.append(dict(seed=seed, X=Xp, s=s, Xtr=Xtr, ytr=ytr, Xte=X[te], yte=y[te], prior=prior))
    return runs, dict(n_train=len(runs[0]["Xtr"]), n_test=len(runs[0]["yte"]), prior=runs[0]["prior"], n_p=1000,
                      n_features=X.shape[1])


def fit_adapu(run, **kw):
    from pujax.boosting import AdaPUClassifier

    clf = AdaPUClassifier(n_estimators=kw.pop("n_estimators", 100), prior=run["prior"], random_state=run["seed"],
                          **kw)
    clf.fit(run["X"], run["s"])
    return clf


def evaluate(clf, run):
    acc = float(np.mean(clf.predict(run["Xte"]) == run["yte"]))
    risk = pu_risk01(run["s"], clf.predict(run["X"]), run["prior"])
    return acc, risk


def beta_table(runs, betas, normalizations=("total", "per_set"), log=print):
    """acc[norm][beta] = list over runs; risk likewise; curves[norm][beta] = staged test accuracy (mean)."""
    acc, risk, rounds, curves = {}, {}, {}, {}
    for norm in normalizations:
        acc[norm], risk[norm], rounds[norm], curves[norm] = {}, {}, {}, {}
        for beta in betas:
            a, r, nr, cv = [], [], [], []
            for run in runs:
                clf = fit_adapu(run, learning_rate=beta, normalization=norm)
                ai, ri = evaluate(clf, run)
                a.append(ai), r.append(ri), nr.append(clf.n_estimators_)
                c = [np.mean((F > 0) == run["yte"]) for F in clf.staged_decision_function(run["Xte"])]
                c += [c[-1] if c else np.mean(run["yte"] == 0)] * (100 - len(c))  # stopped early: curve stays flat
                cv.append(c)
            acc[norm][beta], risk[norm][beta], rounds[norm][beta] = a, r, nr
            curves[norm][beta] = np.mean(cv, axis=0)
            log(f"  {norm:8s} beta={beta:<6} acc {fmt(a)}  rounds {nr}")
    return acc, risk, rounds, curves


def selected_by_risk(acc, risk, betas):
    """Per run, the β with the smallest PU 0-1 risk on the training data; returns (accs, chosen betas)."""
    n_runs = len(next(iter(acc.values())))
    out, chosen = [], []
    for i in range(n_runs):
        b = min(betas, key=lambda beta: (risk[beta][i], -beta))
        out.append(acc[b][i]), chosen.append(b)
    return out, chosen


def pn_baselines(runs, n_p):
    from sklearn.ensemble import AdaBoostClassifier, GradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier

    res = {"AdaBoost (PN)": [], "GBDT (PN)": []}
    n_n = None
    for run in runs:
        rng = np.random.default_rng(1000 + run["seed"])
        X, y, n_n = pn_split(rng, run["Xtr"], run["ytr"], n_p, run["prior"])
        ada = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=100, random_state=run["seed"])
        gb = GradientBoostingClassifier(n_estimators=100, max_depth=1, random_state=run["seed"])
        for name, model in (("AdaBoost (PN)", ada), ("GBDT (PN)", gb)):
            model.fit(X, y)
            res[name].append(float(np.mean(model.predict(run["Xte"]) == run["yte"])))
    return res, n_n


def threshold_strategies(runs, beta, strategies, log=print):
    out = {}
    for label, kw in strategies:
        accs, times = [], []
        for run in runs:
            t0 = time.perf_counter()
            clf = fit_adapu(run, learning_rate=beta, **kw)
            times.append(time.perf_counter() - t0)
            accs.append(evaluate(clf, run)[0])
        out[label] = (accs, float(np.median(times)))
        log(f"  {label:34s} beta={beta}: acc {fmt(accs)}  median fit {np.median(times):.2f}s")
    return out


def speed(run, repeats, sk_repeats, log=print):
    """Warm AdaPUClassifier.fit (100 rounds) vs sklearn AdaBoost with 100 stumps on the same rows, interleaved."""
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    from pujax.boosting import AdaPUClassifier, adapu_fit_many

    X, s = run["X"], run["s"]

    def ours():
        AdaPUClassifier(n_estimators=100, learning_rate=0.1, prior=run["prior"], random_state=0).fit(X, s)

    def sk():
        AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=100, random_state=0).fit(X, s)

    t0 = time.perf_counter()
    ours()
    first = time.perf_counter() - t0
    t_ours, t_sk = [], []
    for i in range(max(repeats, sk_repeats)):
        if i < repeats:
            t_ours.append(best_time(ours, 1))
            log(f"  pujax fit: {t_ours[-1]:.2f}s")
        if i < sk_repeats:
            t_sk.append(best_time(sk, 1))
            log(f"  sklearn AdaBoost(100 stumps): {t_sk[-1]:.2f}s")
    # five seeds in one vmapped call vs five sequential fits (core functions, warm)
    import jax

    keys = jax.random.split(jax.random.PRNGKey(0), 5)

    def many():
        jax.block_until_ready(adapu_fit_many(keys, X, s, run["prior"], 0.1, n_estimators=100))

    many()
    t_many = best_time(many, 1)
    log(f"  pujax adapu_fit_many(5 keys): {t_many:.2f}s")
    return dict(first=first, ours=min(t_ours), ours_all=t_ours, sk=min(t_sk), sk_all=t_sk, many5=t_many,
                n=X.shape[0], d=X.shape[1])


def speed_only(log=print):
    """The issue's speed criterion alone: warm 100-round fit on the UNSW-NB15 training rows vs scikit-learn."""
    runs, info = unsw_runs(1)
    sp = speed(runs[0], repeats=3, sk_repeats=2, log=log)
    lines = [header("Ada-PU speed on UNSW-NB15 (issue 6)"),
             f"Training rows of one 80/20 split: {sp['n']} x {sp['d']} (P = 1,000 attacks + all {info['n_train']} "
             f"training rows as U), 100 rounds, 1 random threshold per feature, beta = 0.1 (fixed: one fit); "
             f"pujax and scikit-learn interleaved in one process, best of the repeats.\n",
             "| model | warm fit (s) | all repeats (s) |", "|---|---|---|",
             f"| pujax AdaPUClassifier(100, learning_rate=0.1) | {sp['ours']:.2f} | "
             f"{', '.join(f'{t:.2f}' for t in sp['ours_all'])} |",
             f"| scikit-learn AdaBoostClassifier(100 stumps) on (X, s) | {sp['sk']:.2f} | "
             f"{', '.join(f'{t:.2f}' for t in sp['sk_all'])} |",
             f"| pujax first fit (includes jit compile) | {sp['first']:.2f} | |",
             f"| pujax adapu_fit_many, 5 seeds in one vmapped call | {sp['many5']:.2f} | |", "",
             f"- 100 rounds <= 5 s warm: {sp['ours']:.2f} s -> {'met' if sp['ours'] <= 5 else 'NOT met'}.",
             f"- <= scikit-learn AdaBoost, same rows, same run: ratio pujax / sklearn {sp['ours'] / sp['sk']:.3f} -> "
             f"{'met' if sp['ours'] <= sp['sk'] else 'NOT met'}.",
             f"- load average at end (1/5/15 min): {load_average()}", ""]
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "adapu_speed.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"wrote {out}")


# ------------------------------------------------------------------------------------------------------------ main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 runs, fewer β, no exhaustive UNSW run")
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--skip-unsw", action="store_true")
    ap.add_argument("--speed-only", action="store_true",
                    help="only the UNSW-NB15 speed comparison, written to benchmarks/results/adapu_speed.md")
    args = ap.parse_args(argv)
    select_device(args.device)
    log = lambda m: print(m, flush=True)  # noqa: E731
    if args.speed_only:
        return speed_only(log)
    lines = [header("Ada-PU (pujax.boosting) vs the paper and scikit-learn")]
    lines.append("pujax and scikit-learn were timed interleaved in the same run.\n")
    n_runs = 2 if args.quick else 5
    betas = (0.01, 0.1, 1.0) if args.quick else BETAS

    # ----------------------------------------------------------------------------------------- breast cancer
    log("== breast cancer ==")
    runs, info = breast_cancer_runs(n_runs)
    t0 = time.perf_counter()
    acc, risk, rounds, curves = beta_table(runs, betas, log=log)
    sel, chosen = selected_by_risk(acc["total"], risk["total"], betas)
    sel_ps, chosen_ps = selected_by_risk(acc["per_set"], risk["per_set"], betas)
    pn, n_n = pn_baselines(runs, 10)
    strategies = [("1 random threshold, paper range", dict(n_thresholds=1)),
                  ("1 random threshold, extended range", dict(n_thresholds=1, threshold_range="extended")),
                  ("10 random thresholds", dict(n_thresholds=10)),
                  ("exhaustive (every distinct value)", dict(n_thresholds="all"))]
    best_beta = max(betas, key=lambda b: np.mean(acc["total"][b]))
    strat_bc = {b: threshold_strategies(runs, b, strategies, log=log) for b in sorted({0.01, 1.0, best_beta})}
    log(f"breast cancer done in {time.perf_counter() - t0:.0f}s")

    lines.append("## Breast cancer (reference protocol)\n")
    lines.append(
        f"scikit-learn's breast cancer, positive = benign (target 1, as in the Ada-PU reference code); train = rows "
        f"0..{info['n_train'] - 1}, test = the last {info['n_test']} rows ({100 * info['pos_test']:.1f} % benign: "
        f"predicting all positive scores {100 * info['pos_test']:.1f} %); P = 10 random benign training rows, "
        f"U = the {info['n_train']} training rows, prior = {info['prior']:.3f}; {n_runs} runs (seeds 0..{n_runs - 1}: "
        f"P sample and thresholds), 100 rounds, 1 random threshold per feature (paper range) unless stated. "
        f"Accuracy % mean (std).\n"
    )
    lines.append("| method | ours | paper (Table 2) |\n|---|---|---|")
    lines.append(f"| Ada-PU, β chosen per run by the PU 0-1 risk on the training data (no labels; chosen: "
                 f"{chosen}) | {fmt(sel)} | 92.21 (3.02) |")
    lines.append(f"| Ada-PU, β = 0.01 | {fmt(acc['total'][0.01])} | |")
    lines.append(f"| Ada-PU, β = 1 (no shrinkage) | {fmt(acc['total'][1.0])} | |")
    lines.append(f"| Ada-PU, authors' per-set error, β by PU risk (chosen: {chosen_ps}) | {fmt(sel_ps)} | |")
    lines.append(f"| AdaBoost PN, 100 stumps, 10 P + {n_n} N | {fmt(pn['AdaBoost (PN)'])} | 78.76 (13.02) |")
    lines.append(f"| GBDT PN, 100 stumps, 10 P + {n_n} N | {fmt(pn['GBDT (PN)'])} | 84.24 (6.89) |")
    lines.append("| XGBoost PN | not run (not a dependency) | 76.99 (0.00) |")
    lines.append("| nnPU-MLP / uPU | see benchmarks/neural.md | 87.96 (3.40) / 53.09 (3.00) |")
    lines.append("\nThe Ada-PU reference code's README reports 96.49 % on this protocol.\n")
    lines.append("### β ablation (paper §5.6.2, Figure 5)\n")
    lines.append("| β | acc, error / Z (default) | rounds run | acc, authors' per-set error | rounds run |")
    lines.append("|---|---|---|---|---|")
    for b in betas:
        lines.append(f"| {b} | {fmt(acc['total'][b])} | {int(np.mean(rounds['total'][b]))} | "
                     f"{fmt(acc['per_set'][b])} | {int(np.mean(rounds['per_set'][b]))} |")
    lines.append("\nAccuracy after t rounds (mean over runs, error / Z):\n")
    lines.append("| β | " + " | ".join(f"t={t}" for t in (1, 5, 10, 25, 50, 100)) + " |")
    lines.append("|---|" + "---|" * 6)
    for b in betas:
        c = curves["total"][b]
        lines.append(f"| {b} | " + " | ".join(f"{100 * c[t - 1]:.1f}" for t in (1, 5, 10, 25, 50, 100)) + " |")
    lines.append("\n### Random vs exhaustive thresholds (paper §5.6.1)\n")
    lines.append("| thresholds | " + " | ".join(f"β = {b}" for b in strat_bc) + " |")
    lines.append("|---|" + "---|" * len(strat_bc))
    for label, _ in strategies:
        lines.append(f"| {label} | " + " | ".join(fmt(strat_bc[b][label][0]) for b in strat_bc) + " |")
    lines.append("")

    # ----------------------------------------------------------------------------------------------- UNSW-NB15
    if not args.skip_unsw:
        log("== UNSW-NB15 ==")
        t0 = time.perf_counter()
        runs, info = unsw_runs(n_runs)
        sp = speed(runs[0], repeats=3, sk_repeats=1 if args.quick else 2, log=log)
        ubetas = (0.01, 0.1, 1.0) if args.quick else (0.01, 0.05, 0.1, 0.2, 0.5, 1.0)
        uacc, urisk, urounds, ucurves = beta_table(runs, ubetas, normalizations=("total",), log=log)
        usel, uchosen = selected_by_risk(uacc["total"], urisk["total"], ubetas)
        upn, un_n = pn_baselines(runs, 1000)
        ustrat = [("1 random threshold, paper range", dict(n_thresholds=1)),
                  ("1 random threshold, extended range", dict(n_thresholds=1, threshold_range="extended")),
                  ("10 random thresholds", dict(n_thresholds=10))]
        if not args.quick:
            ustrat.append(("exhaustive (every distinct value)", dict(n_thresholds="all")))
        ustrat_res = threshold_strategies(runs[:1], 0.1, ustrat, log=log)
        log(f"UNSW-NB15 done in {time.perf_counter() - t0:.0f}s")

        lines.append("## UNSW-NB15\n")
        lines.append(
            f"The 82,332-row file (the paper used the 175,341-row split), one-hot proto/service/state "
            f"({info['n_features']} features), positive = attack; per run a random 80/20 split "
            f"({info['n_train']} / {info['n_test']} rows), P = 1,000 random training attacks, U = all training "
            f"rows, prior = {info['prior']:.3f} (training attack fraction); {n_runs} runs, 100 rounds.\n"
        )
        lines.append("| method | ours | paper (Table 2, 175k split) |\n|---|---|---|")
        lines.append(f"| Ada-PU, β chosen per run by the PU 0-1 risk (chosen: {uchosen}) | {fmt(usel)} | "
                     f"76.16 (0.59) |")
        for b in ubetas:
            lines.append(f"| Ada-PU, β = {b} | {fmt(uacc['total'][b])} (rounds {int(np.mean(urounds['total'][b]))}) "
                         f"| |")
        lines.append(f"| AdaBoost PN, 100 stumps, 1000 P + {un_n} N | {fmt(upn['AdaBoost (PN)'])} | 77.16 (0.42) |")
        lines.append(f"| GBDT PN, 100 stumps, 1000 P + {un_n} N | {fmt(upn['GBDT (PN)'])} | 76.58 (1.26) |")
        lines.append("| XGBoost PN | not run | 77.46 (0.60) |\n")
        lines.append("Accuracy after t rounds (mean over runs):\n")
        lines.append("| β | " + " | ".join(f"t={t}" for t in (1, 5, 10, 25, 50, 100)) + " |")
        lines.append("|---|" + "---|" * 6)
        for b in ubetas:
            c = ucurves["total"][b]
            lines.append(f"| {b} | " + " | ".join(f"{100 * c[t - 1]:.1f}" for t in (1, 5, 10, 25, 50, 100)) + " |")
        lines.append("\nThreshold strategies (run 0, β = 0.1):\n")
        lines.append("| thresholds | accuracy % | fit time (s) |\n|---|---|---|")
        for label, _ in ustrat:
            a, t = ustrat_res[label]
            lines.append(f"| {label} | {100 * a[0]:.2f} | {t:.2f} |")
        lines.append("\n### Speed: 100 rounds on the UNSW-NB15 PU training rows\n")
        lines.append(
            f"{sp['n']} rows x {sp['d']} features (1,000 P + {sp['n'] - 1000} U); the anchor is scikit-learn's "
            f"`AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=100)` fitted on the same rows "
            f"with s as labels (exhaustive stump search over all features); pujax is `AdaPUClassifier.fit` (host "
            f"feature coding included, jit warm), 1 random threshold per feature. Interleaved; best of the repeats.\n"
        )
        lines.append("| | time (s) | all repeats (s) |\n|---|---|---|")
        lines.append(f"| scikit-learn AdaBoost, 100 stumps | {sp['sk']:.2f} | "
                     f"{', '.join(f'{t:.2f}' for t in sp['sk_all'])} |")
        lines.append(f"| pujax AdaPUClassifier.fit, 100 rounds (warm) | {sp['ours']:.2f} | "
                     f"{', '.join(f'{t:.2f}' for t in sp['ours_all'])} |")
        lines.append(f"| pujax first fit (includes jit compile) | {sp['first']:.2f} | |")
        lines.append(f"| pujax adapu_fit_many, 5 seeds in one vmapped call | {sp['many5']:.2f} | |")
        lines.append(f"\nRatio scikit-learn / pujax (warm): {sp['sk'] / sp['ours']:.1f}x.\n")
        lines.append("### Issue 6 \"done when\" check (from the numbers above)\n")
        lines.append(f"- breast cancer, mean of {n_runs} runs >= 92 %: Ada-PU with label-free β choice {fmt(sel)} -> "
                     f"{'met' if np.mean(sel) >= 0.92 else 'NOT met'} (β = 1 without shrinkage: "
                     f"{fmt(acc['total'][1.0])}).")
        lines.append(f"- UNSW-NB15 >= 76 %: {fmt(usel)} -> {'met' if np.mean(usel) >= 0.76 else 'NOT met'}.")
        lines.append(f"- 100 rounds <= 5 s warm: {sp['ours']:.2f} s -> {'met' if sp['ours'] <= 5 else 'NOT met'} on "
                     f"this shared 2-core machine (load average at the end: {load_average()}).")
        lines.append(f"- <= scikit-learn AdaBoost with 100 stumps, same rows, same run: {sp['ours']:.2f} s vs "
                     f"{sp['sk']:.2f} s -> {'met' if sp['ours'] <= sp['sk'] else 'NOT met'}.")
        lines.append("- β ablation (§5.6.2) and random vs exhaustive thresholds (§5.6.1): reported above.\n")
    lines.append(f"- load average at end (1/5/15 min): {load_average()}\n")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "adapu.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
