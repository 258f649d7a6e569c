"""VPU (no prior) against nnPU (true prior) on MNIST even vs odd, with and without VPU's model selection.

Run ``python -m benchmarks.vpu`` (or ``python benchmarks/vpu.py``). Data (``benchmarks/neural.py``'s MNIST setup,
its loader and :func:`benchmarks.neural.case_control`; the folder is ``$PUJAX_DATA``, default
``/work/shared/data``): U = ``--n-unlabeled`` random images of the 60,000 training images (``--full``: all of them),
P = 1000 random even digits of the training images, copied into the training set (case-control), test = the 10,000
test images, pixels / 255, no standardisation. Every method trains ``--seeds`` models at once (``n_seeds``, one
vmapped program) on the same PU sample; the table gives the per-seed test accuracy (each seed's own decision rule).

* VPU: ``VPUClassifier`` (d-300-300-300-300-1 ReLU MLP without BatchNorm, Adam lr ``--vpu-lr`` with moments
  0.5 / 0.99, batches of 500 P + 500 U rows, alpha 0.3, MixUp weight ``--mixup-weight``), no prior, run twice:
  with ``validation_fraction=--validation-fraction`` (the network of the epoch with the lowest variational loss on
  the held-out PU rows, the authors' model selection) and with ``validation_fraction=0`` (last epoch; skipped with
  ``--skip-last-epoch``). Each fitted VPU model is scored with both decision rules: ``threshold="prior"`` (the
  default: the share of held-out unlabeled rows called positive is VPU's own prior estimate ``prior_``,
  ``mean_U Phi / mean_P Phi``) and ``threshold="half"`` (the authors' ``Phi / max Phi > 1/2``), no refit; a
  diagnostic row uses ``mean_U Phi / max Phi`` as the estimate.
* nnPU: ``NNPUClassifier(prior=<true prior>)`` defaults (Kiryo et al.: the same MLP with BatchNorm, sigmoid loss,
  Adam lr 1e-3, weight decay 5e-3, batch size 30000) for ``--nnpu-epochs`` epochs.

``--full`` is the full protocol: all 60,000 training images as U, 5 seeds, nnPU 100 epochs, and VPU with the
authors' FashionMNIST command and loop (``--lam 0.3 --learning-rate 3e-4``, batch 500, 50 epochs of 30 minibatches
each, step size halved every 20 epochs, the held-out loss checked after every epoch). ``--device gpu`` runs on the
first GPU (``JAX_PLATFORMS`` is set before JAX is imported). ``--out PATH``
writes the markdown report to PATH and the raw numbers to PATH with suffix ``.json``; without it the report is only
printed.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Chen et al. 2020, README of github.com/HC-Feynman/vpu (Tables 2 and 3 of the paper): test accuracy %.
PAPER = {"FashionMNIST": ("92.7", "90.8"), "CIFAR-10": ("89.5", "85.6"), "STL-10": ("79.7", "78.3")}
FULL = {"n_unlabeled": 60000, "seeds": 5, "vpu_epochs": 50, "nnpu_epochs": 100, "mixup_weight": 0.3,
        "vpu_lr": 3e-4, "vpu_steps_per_epoch": 30, "vpu_lr_halving": 20}


def make_problem(seed, n_unlabeled, n_labeled=1000):
    """(X_pu, s, prior, X_test, y_test): P = ``n_labeled`` random even digits of the 60,000 training images, U =
    ``n_unlabeled`` random training images (all 60,000: exactly ``benchmarks/neural.py``'s MNIST data)."""
    from benchmarks.neural import case_control, load_mnist

    X, y, Xt, yt = load_mnist()  # y: 1 = even digit
    rng = np.random.default_rng(seed)
    X_pu, s, prior = case_control(rng, X, y, n_labeled)  # P, then U = every training image
    if n_unlabeled < len(X):
        u = np.sort(rng.choice(len(X), n_unlabeled, replace=False))
        X_pu = np.concatenate([X_pu[:n_labeled], X[u]]).astype(np.float32)
        s, prior = s[: n_labeled + n_unlabeled], float(np.mean(y[u] == 1))
    return X_pu, s, prior, Xt.astype(np.float32), np.asarray(yt, int)


def _per_seed(est, Xt, yt, shift=None):
    """Per-seed test accuracy %, ROC AUC % and share of test rows predicted positive % (each seed's own decision
    values, minus ``shift`` per seed when given)."""
    from sklearn.metrics import roc_auc_score

    d = est.seed_decision_function(Xt)
    if shift is not None:
        d = d - np.asarray(shift)[:, None]
    return ([100.0 * float(np.mean((di > 0) == (yt == 1))) for di in d], [100.0 * roc_auc_score(yt, di) for di in d],
            [100.0 * float(np.mean(di > 0)) for di in d])


def run(args):
    from pujax.neural import NNPUClassifier, VPUClassifier

    X, s, prior, Xt, yt = make_problem(args.data_seed, args.n_unlabeled)
    vpu = dict(epochs=args.vpu_epochs, mixup_weight=args.mixup_weight, learning_rate=args.vpu_lr,
               steps_per_epoch=args.vpu_steps_per_epoch, lr_halving_epochs=args.vpu_lr_halving,
               n_seeds=args.seeds, standardize=False, random_state=args.data_seed)
    models = {
        f"VPU, model selection (validation_fraction={args.validation_fraction})":
            VPUClassifier(validation_fraction=args.validation_fraction, **vpu),
        "VPU, last epoch (validation_fraction=0)": None if args.skip_last_epoch else VPUClassifier(
            validation_fraction=0.0, **vpu),
        "nnPU (true prior)": None if args.skip_nnpu else NNPUClassifier(
            prior=prior, epochs=args.nnpu_epochs, n_seeds=args.seeds, standardize=False, random_state=args.data_seed),
    }
    rows = []
    for name, est in models.items():
        if est is None:
            continue
        t0 = time.perf_counter()
        est.fit(X, s)
        secs = time.perf_counter() - t0
        for rule in ("prior", "half") if hasattr(est, "threshold") else (None,):
            if rule is not None:
                est.set_params(threshold=rule)
            label = name if rule is None else f"{name}, threshold={rule!r}"
            rows.append(_row(label, est, Xt, yt, secs if rule != "half" else 0.0))
        if getattr(est, "validation_loss_", None) is not None:
            rows.append(_max_normaliser(est, X, s, Xt, yt, args))
    return rows, {"n_train": int(len(X)), "n_labeled": int(s.sum()), "prior": prior,
                  "test_prior": float(np.mean(yt == 1))}


def _row(name, est, Xt, yt, secs):
    acc, auc, pos = _per_seed(est, Xt, yt)
    row = {"method": name, "acc": acc, "auc": auc, "predicted_positive": pos, "seconds": secs}
    if getattr(est, "validation_loss_", None) is not None:
        row["best_epoch"] = [int(e) for e in est.best_epoch_]
        row["validation_loss"] = np.asarray(est.validation_loss_).round(4).tolist()
    if hasattr(est, "seed_priors_"):
        row["prior_estimate"] = [float(v) for v in est.seed_priors_]
    if hasattr(est, "history_") and "variational" in est.history_:
        row["train_variational_last"] = [float(v) for v in est.history_["variational"][:, -1]]
    print(f"{name}: acc {np.mean(acc):.2f} ± {np.std(acc, ddof=1) if len(acc) > 1 else 0:.2f}, "
          f"auc {np.mean(auc):.2f}, predicted positive {np.mean(pos):.2f} ({secs:.0f} s incl. compile)"
          + (f", best epochs {row['best_epoch']}" if "best_epoch" in row else "")
          + (f", prior estimates {np.round(row['prior_estimate'], 4).tolist()}" if "prior_estimate" in row else ""),
          flush=True)
    return row


def _max_normaliser(est, X, s, Xt, yt, args):
    r"""Diagnostic (not an estimator option): the same fitted VPU networks with the prior estimated as
    :math:`\mathrm{mean}_U \Phi / \max\Phi` (held-out U rows, maximum over the training rows; the class posterior's
    mean under irreducibility) instead of ``prior_`` (:math:`\mathrm{mean}_U \Phi / \mathrm{mean}_P \Phi`), and the
    threshold that calls that share of the held-out U rows positive."""
    from pujax.neural.selection import validation_split

    _, _, _, u_val = validation_split(args.data_seed, s, args.validation_fraction)
    rule = est.threshold
    est.set_params(threshold="half")
    lp_u = est.seed_decision_function(X[u_val]) + est.log_phi_max_[:, None] - np.log(2.0)
    prior = np.minimum(np.exp(lp_u - est.log_phi_max_[:, None]), 1.0).mean(1)
    cut = np.array([np.quantile(lu, 1.0 - pk) for lu, pk in zip(lp_u, prior)])
    acc, auc, pos = _per_seed(est, Xt, yt, shift=cut - est.log_phi_max_ + np.log(2.0))
    est.set_params(threshold=rule)
    print(f"  same networks, prior mean_U Phi / max Phi {np.round(prior, 4).tolist()}: acc {np.mean(acc):.2f}, "
          f"predicted positive {np.mean(pos):.2f}", flush=True)
    return {"method": "same VPU networks, share mean_U Phi / max Phi of held-out U positive (diagnostic)",
            "acc": acc, "auc": auc, "predicted_positive": pos, "seconds": 0.0,
            "prior_estimate": [float(v) for v in prior]}


def render(rows, info, args, head) -> str:
    out = [head, "",
           f"- data: U = {args.n_unlabeled} MNIST training images, P = {info['n_labeled']} random even training "
           f"digits ({info['n_train']} training rows, true prior {info['prior']:.4f}), test = the 10,000 test "
           "images, pixels / 255; PU sample seed " + str(args.data_seed),
           f"- VPU: `VPUClassifier(epochs={args.vpu_epochs}, mixup_weight={args.mixup_weight}, "
           f"learning_rate={args.vpu_lr}, steps_per_epoch={args.vpu_steps_per_epoch}, "
           f"lr_halving_epochs={args.vpu_lr_halving}, n_seeds={args.seeds})`, other defaults (d-300-300-300-300-1 "
           "MLP without BatchNorm, alpha 0.3, batch 500 P + 500 U rows, Adam moments 0.5 / 0.99), no prior",
           f"- nnPU: `NNPUClassifier(prior=<true prior>, epochs={args.nnpu_epochs}, n_seeds={args.seeds})` "
           "(MLP with BatchNorm, sigmoid loss, Adam lr 1e-3, weight decay 5e-3, batch size 30000)", "",
           "| method | seeds | test accuracy % (mean ± sd) | test ROC AUC % | predicted positive % (test: "
           f"{100 * info['test_prior']:.2f}) | fit seconds (all seeds, incl. compile) |",
           "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        acc = np.asarray(r["acc"])
        sd = f" ± {acc.std(ddof=1):.2f}" if len(acc) > 1 else ""
        out.append(f"| {r['method']} | {len(acc)} | {acc.mean():.2f}{sd} | {np.mean(r['auc']):.2f} | "
                   f"{np.mean(r['predicted_positive']):.2f} | "
                   f"{r['seconds']:.0f} |")
    out.append("")
    for r in rows:
        extra = f"; selected epochs (0-based) {r['best_epoch']}" if "best_epoch" in r else ""
        if "prior_estimate" in r:
            extra += "; prior estimates prior_ " + ", ".join(f"{v:.4f}" for v in r["prior_estimate"])
        out.append(f"- {r['method']}: per seed " + ", ".join(f"{a:.2f}" for a in r["acc"]) + extra)
    out += ["", "The paper's numbers (Chen et al. 2020, the authors' README; no MNIST run there), test accuracy %: "
            + "; ".join(f"{k}: VPU {v[0]}, nnPU {v[1]}" for k, v in PAPER.items()) + ".", ""]
    return "\n".join(out)


def _select_device(device):
    """Set ``JAX_PLATFORMS`` before JAX is imported (``gpu`` also fails early when JAX finds no GPU)."""
    if device is None:
        return
    if "jax" in sys.modules:
        raise SystemExit("--device must be chosen before JAX is imported.")
    os.environ["JAX_PLATFORMS"] = {"cpu": "cpu", "gpu": "cuda"}[device]
    import jax

    if device == "gpu" and jax.devices()[0].platform != "gpu":  # pragma: no cover - needs a GPU machine
        raise SystemExit("--device gpu: JAX finds no GPU here (install jax[cuda12]).")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="the full protocol: " + ", ".join(
        f"{k.replace('_', '-')} {v}" for k, v in FULL.items()) + " (explicit flags win)")
    p.add_argument("--device", choices=["cpu", "gpu"], default=None)
    p.add_argument("--n-unlabeled", type=int, default=None, help="default 20000 (--full: 60000)")
    p.add_argument("--vpu-epochs", type=int, default=None, help="default 15 (--full: 50)")
    p.add_argument("--nnpu-epochs", type=int, default=None, help="default 60 (--full: 100)")
    p.add_argument("--mixup-weight", type=float, default=None, help="default 0.03 (--full: 0.3)")
    p.add_argument("--vpu-lr", type=float, default=None, help="default 3e-4")
    p.add_argument("--vpu-steps-per-epoch", type=int, default=None, help="default: one pass over U (--full: 30)")
    p.add_argument("--vpu-lr-halving", type=int, default=None, help="halve VPU's step size every that many epochs "
                   "(default: never; --full: 20)")
    p.add_argument("--validation-fraction", type=float, default=0.1)
    p.add_argument("--skip-last-epoch", action="store_true", help="do not fit VPU with validation_fraction=0")
    p.add_argument("--skip-nnpu", action="store_true", help="do not fit nnPU")
    p.add_argument("--seeds", type=int, default=None, help="default 1 (--full: 5)")
    p.add_argument("--data-seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write the markdown here (and the numbers to its .json sibling)")
    args = p.parse_args(argv)
    base = FULL if args.full else {"n_unlabeled": 20000, "seeds": 1, "vpu_epochs": 15, "nnpu_epochs": 60,
                                   "mixup_weight": 0.03, "vpu_lr": 3e-4}
    for k, v in base.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if args.vpu_steps_per_epoch == 0:  # explicit 0: one pass over U even with --full
        args.vpu_steps_per_epoch = None
    _select_device(args.device)
    from benchmarks._common import header

    title = "VPU vs nnPU on MNIST even / odd" + (" (full protocol)" if args.full else " (reduced budget)")
    head = header(title)  # machine, command, date, load average: taken before the runs
    rows, info = run(args)
    text = render(rows, info, args, head)
    print(text)
    if args.out:
        path = pathlib.Path(args.out)
        path.write_text(text)
        path.with_suffix(".json").write_text(json.dumps({"args": vars(args), "info": info, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
