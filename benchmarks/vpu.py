"""VPU (no prior) against nnPU (true prior) on MNIST even vs odd, on a reduced budget for a small CPU.

Run ``python -m benchmarks.vpu`` (or ``python benchmarks/vpu.py``). Protocol (``benchmarks/neural.py``'s MNIST
setup on a subsample): U = ``--n-unlabeled`` random images of the 60,000 training images, P = 1000 random even
digits of those (case-control: P rows are copied into the training set, U keeps them too), test = the 10,000 test
images, pixels / 255, the d-300-300-300-300-1 MLP (BatchNorm, ReLU) for both methods.

* VPU: ``VPUClassifier`` defaults except ``epochs`` (``--vpu-epochs``) and ``mixup_weight`` (``--mixup-weight``);
  no prior is given.
* nnPU: ``NNPUClassifier`` with the true prior (the even fraction of the U sample), Kiryo et al.'s settings as in
  ``benchmarks/neural.py`` (sigmoid loss, Adam lr 1e-3, weight decay 5e-3, batch size 30000) and ``--nnpu-epochs``.

Both run with ``standardize=False`` (pixels / 255, as the papers). The table goes to ``benchmarks/results/vpu.md``.
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

from benchmarks._common import RESULTS, header  # noqa: E402
from benchmarks.neural import load_mnist  # noqa: E402

MD_PATH = RESULTS / "vpu.md"

# Chen et al. 2020, README of github.com/HC-Feynman/vpu (Tables 2 and 3 of the paper): test accuracy %.
PAPER = {"FashionMNIST": ("92.7", "90.8"), "CIFAR-10": ("89.5", "85.6"), "STL-10": ("79.7", "78.3")}


def make_problem(seed, n_unlabeled, n_labeled=1000):
    X, y, Xt, yt = load_mnist()
    y, yt = (y % 2 == 0).astype(int), (yt % 2 == 0).astype(int)
    rng = np.random.default_rng(seed)
    u = rng.choice(len(X), n_unlabeled, replace=False)
    pos = rng.choice(u[y[u] == 1], n_labeled, replace=False)
    X_pu = np.concatenate([X[pos], X[u]]).astype(np.float32)
    s = np.r_[np.ones(n_labeled, int), np.zeros(n_unlabeled, int)]
    return X_pu, s, float(np.mean(y[u])), Xt.astype(np.float32), yt


def run(args):
    from sklearn.metrics import roc_auc_score

    from pujax.neural import NNPUClassifier, VPUClassifier

    rows = []
    for seed in range(args.seeds):
        X, s, prior, Xt, yt = make_problem(seed, args.n_unlabeled)
        models = {
            "VPU (no prior)": VPUClassifier(epochs=args.vpu_epochs, mixup_weight=args.mixup_weight,
                                            standardize=False, random_state=seed),
            "nnPU (true prior)": NNPUClassifier(prior=prior, epochs=args.nnpu_epochs, standardize=False,
                                                random_state=seed),
        }
        for name, est in models.items():
            t0 = time.perf_counter()
            est.fit(X, s)
            secs = time.perf_counter() - t0
            acc = 100.0 * est.score(Xt, yt)
            auc = 100.0 * roc_auc_score(yt, est.decision_function(Xt))
            rows.append((name, seed, acc, auc, secs))
            print(f"seed {seed} {name}: acc {acc:.2f} auc {auc:.2f} ({secs:.0f} s incl. compile)", flush=True)
    return rows


def render(rows, args) -> str:
    out = [header("VPU vs nnPU on MNIST even / odd (reduced CPU budget)"), "",
           f"- data: U = {args.n_unlabeled} random MNIST training images, P = 1000 random even digits of them, "
           "test = the 10,000 test images, pixels / 255; d-300-300-300-300-1 MLP (BatchNorm, ReLU)",
           f"- VPU: `VPUClassifier(epochs={args.vpu_epochs}, mixup_weight={args.mixup_weight})`, other defaults "
           "(alpha 0.3, batch 500 P + 500 U rows, Adam lr 3e-4 with moments 0.5 / 0.99), no prior",
           f"- nnPU: `NNPUClassifier(prior=<true prior>, epochs={args.nnpu_epochs})` (Kiryo et al.'s settings: "
           "sigmoid loss, Adam lr 1e-3, weight decay 5e-3, batch size 30000)",
           "- budget: reduced to fit in about 10 minutes on a loaded 2-core machine; the papers train far longer "
           "(VPU: 50 epochs of 30 iterations, model selected on a validation KL; nnPU: 100-200 full epochs)", "",
           "| method | seeds | test accuracy % (mean ± sd) | test ROC AUC % | fit seconds (incl. compile) |",
           "| --- | --- | --- | --- | --- |"]
    for name in dict.fromkeys(r[0] for r in rows):
        acc = np.array([r[2] for r in rows if r[0] == name])
        auc = np.array([r[3] for r in rows if r[0] == name])
        secs = np.array([r[4] for r in rows if r[0] == name])
        sd = f" ± {acc.std(ddof=1):.2f}" if len(acc) > 1 else ""
        out.append(f"| {name} | {len(acc)} | {acc.mean():.2f}{sd} | {auc.mean():.2f} | {secs.mean():.0f} |")
    out += ["", "Per seed: " + "; ".join(f"{r[0]} seed {r[1]}: {r[2]:.2f}" for r in rows), "",
            "The paper's numbers (Chen et al. 2020, as listed in the authors' README; no MNIST run there), test "
            "accuracy %: " + "; ".join(f"{k}: VPU {v[0]}, nnPU {v[1]}" for k, v in PAPER.items()) + ". "
            "nnPU on full MNIST even / odd: 93.08 ± 0.46 in the PU ET paper's reproduction "
            "(`benchmarks/results/neural.md`).", ""]
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-unlabeled", type=int, default=20000)
    p.add_argument("--vpu-epochs", type=int, default=15)
    p.add_argument("--nnpu-epochs", type=int, default=60)
    p.add_argument("--mixup-weight", type=float, default=0.03)
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--out", default=str(MD_PATH))
    args = p.parse_args(argv)
    rows = run(args)
    text = render(rows, args)
    pathlib.Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
