"""nnPU's defaults on tabular data against PU Extra Trees: the model-selection setting and the plain defaults.

Run ``python -m benchmarks.nnpu_tabular [--sets german,spambase,...] [--seeds 5]``; writes
``benchmarks/results/nnpu_tabular.md``.

Protocol (per data set and seed): a random stratified 80/20 train/test split; case-control PU data from the
training part (``pujax.data.make_case_control``): P = min(1000, half of its positives) random positives, U = every
training row, ``prior`` = the positive fraction of the training part (passed to every method); test accuracy against
the true labels. Data sets from ``../shared/data`` as a new user reads them (label-encoded categoricals kept as
numbers): German credit (``pmlb/german``, the credit-default-like case: positive = bad credit, 30 %), Spambase,
Mushroom, breast cancer (scikit-learn's copy), covtype's 10k sample (positive = lodgepole pine, class 2), letter
(positive = the vowels) and ionosphere. Methods: ``PUExtraTreesClassifier(prior=prior)`` and
``NNPUClassifier(prior=prior, **setting)`` for the settings named on the command line (``default`` = the class's
defaults; the others override them).
"""
from __future__ import annotations

import argparse
import datetime
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import RESULTS, data_dir, load_average, machine  # noqa: E402

SETTINGS = {
    "default": {},
    "vf0.1": {"validation_fraction": 0.1},
    "vf0": {"validation_fraction": 0.0},
    "vf0.1-e200": {"validation_fraction": 0.1, "epochs": 200},
    "vf0.1-wd1e-4": {"validation_fraction": 0.1, "weight_decay": 1e-4},
}


def _pmlb(name, positive):
    import pandas as pd

    d = pd.read_csv(data_dir() / "pmlb" / name / f"{name}.tsv.gz", sep="\t")
    return d.drop(columns="target").to_numpy(np.float64), positive(d["target"].to_numpy())


def load_set(name):
    """(X, y) with y = 1 for the positive class."""
    if name == "german":
        return _pmlb("german", lambda t: (t == 0).astype(int))  # 0 = bad credit
    if name == "spambase":
        return _pmlb("spambase", lambda t: (t == 1).astype(int))
    if name == "mushroom":
        return _pmlb("mushroom", lambda t: (t == 1).astype(int))
    if name == "ionosphere":
        return _pmlb("ionosphere", lambda t: (t == 1).astype(int))
    if name == "letter":
        return _pmlb("letter", lambda t: np.isin(t, [1, 5, 9, 15, 21]).astype(int))  # A E I O U
    if name == "covtype":
        import pandas as pd

        a = pd.read_csv(data_dir() / "covtype" / "covtype_sample_10k.csv").to_numpy(np.float64)
        return a[:, :54], (a[:, 54] == 2).astype(int)
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        return load_breast_cancer(return_X_y=True)
    raise ValueError(f"unknown set {name!r}")


def run_set(name, seeds, settings, log):
    from sklearn.model_selection import train_test_split

    from pujax import NNPUClassifier, PUExtraTreesClassifier
    from pujax.data import make_case_control

    X, y = load_set(name)
    acc = {m: [] for m in ["PU ET"] + [f"nnPU {s}" for s in settings]}
    for seed in range(seeds):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=seed)
        n_lab = int(min(1000, ytr.sum() // 2))
        X_pu, s, prior = make_case_control(seed, Xtr, ytr, n_lab)
        models = {"PU ET": PUExtraTreesClassifier(prior=prior, random_state=seed)}
        models.update({f"nnPU {k}": NNPUClassifier(prior=prior, random_state=seed, **SETTINGS[k]) for k in settings})
        for m, est in models.items():
            t0 = time.perf_counter()
            a = float(np.mean(est.fit(X_pu, s).predict(Xte) == yte))
            acc[m].append(a)
            log(f"[{name}] seed {seed} {m}: {100 * a:.2f} % ({time.perf_counter() - t0:.1f} s)")
    return X.shape, float(y.mean()), acc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="german,spambase,mushroom,breast_cancer,covtype,ionosphere,letter")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--settings", default="default,vf0.1", help=f"nnPU settings, of {sorted(SETTINGS)}")
    ap.add_argument("--out", default=str(RESULTS / "nnpu_tabular.md"))
    args = ap.parse_args(argv)
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# nnPU on tabular data against PU Extra Trees", "",
             f"- machine: {machine()}",
             f"- command: `python -m benchmarks.nnpu_tabular {' '.join(argv or sys.argv[1:])}`",
             f"- started: {started}; load average at start: {load_average()}", "",
             "Test accuracy % (mean ± sd over the seeds); protocol in the module docstring of "
             "`benchmarks/nnpu_tabular.py`. nnPU settings: " + "; ".join(f"`{k}` = {SETTINGS[k] or 'defaults'}"
                                                                         for k in settings) + ".", "",
             "| set | rows x features | positive share | P | PU ET | " + " | ".join(f"nnPU {k}" for k in settings)
             + " | best nnPU - PU ET |",
             "|---|---|---|---|---|" + "---|" * len(settings) + "---|"]
    log_lines = []

    def log(msg):
        print(msg, flush=True)
        log_lines.append(msg)

    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        shape, share, acc = run_set(name, args.seeds, settings, log)
        n_lab = "min(1000, half the training positives)"
        cells = [f"{100 * np.mean(v):.2f} ± {100 * np.std(v):.2f}" for v in acc.values()]
        gap = max(np.mean(acc[f"nnPU {k}"]) for k in settings) - np.mean(acc["PU ET"])
        lines.append(f"| {name} | {shape[0]} x {shape[1]} | {share:.2f} | {n_lab} | " + " | ".join(cells)
                     + f" | {100 * gap:+.2f} |")
        pathlib.Path(args.out).write_text("\n".join(lines + ["", "Per-run log:", ""] + [f"    {m}" for m in log_lines])
                                          + "\n")
    lines += ["", f"- load average at end: {load_average()}"]
    pathlib.Path(args.out).write_text("\n".join(lines + ["", "Per-run log:", ""] + [f"    {m}" for m in log_lines])
                                      + "\n")


if __name__ == "__main__":
    main()
