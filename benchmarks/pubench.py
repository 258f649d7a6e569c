r"""The PU-Bench protocol (Chen et al., ICLR 2026) on pujax's deep PU methods and its tree / boosting / SVM / graph
methods: case-control SCAR data with c = 0.1, model selection by proxy accuracy on held-out PU rows, ten seeds.

Run ``python -m benchmarks.pubench`` (writes ``benchmarks/results/pubench.md`` and ``.json``); ``--sets``,
``--methods``, ``--seeds``, ``--c`` (a label frequency or a comma-separated sweep), ``--quick`` (few epochs: a smoke
run), ``--timing`` (also time one seed against ten, warm programs, per method), ``--out``. The report and its json
are rewritten after every method; a rerun with the same ``--out`` skips the (set, c, method) runs the json holds.

Protocol (PU-Bench's ``datasets_typical`` configuration, adapted where stated):

* data (``pujax.datasets``, folder ``$PUJAX_DATA`` or ``../shared/data``): Spambase (spam positive) and Mushroom
  (edible positive, one-hot) with a stratified 80/20 train/test split (``random_state=0``), 20 Newsgroups
  (alt/comp/misc/rec positive; the bydate train/test split; TF-IDF + TruncatedSVD to 300 dimensions fitted on the
  training documents, PU-Bench uses 384-dimensional sentence embeddings), MNIST (even positive) and CIFAR-10
  (vehicles positive) with their official splits (pixels / 255);
* case-control SCAR: ``round(c * n_pos)`` of the training positives are labeled and the unlabeled set is the whole
  training set (PU-Bench's ``case-control``, c = 0.1); the prior given to the methods that take one is the true
  positive share of the unlabeled rows (as both benchmarks do);
* model selection: 1 % of the labeled and of the unlabeled rows held out (stratified), proxy accuracy
  :math:`2\pi\,TPR_P + TNR_U` after every epoch, each seed keeps its best epoch (PU-Bench's ``val_proxy_acc``
  monitor, without its early stopping: every epoch runs);
* seeds: ten models per (method, set) trained as **one** ``vmap``-ped program (``n_seeds=10``) on one PU draw
  (``random_state=0``): the seeds differ in initialisation, minibatch order and the methods' own draws, not in the
  data (PU-Bench redraws the data per seed). The non-neural methods (PU ET, Ada-PU, RESVM, 2-HNC) are fitted once
  per seed with ``random_state=seed``;
* networks: PU-Bench's MLP for vector data, d-512-256-128-64-1 with ReLU (here without its dropout), Adam, batch
  size 256, standardised features; each method's own defaults otherwise (``pujax.neural``'s estimators take
  PU-Bench's or Wang et al.'s configurations as defaults); nnPU (Kiryo et al.'s rule with gradient ascent,
  :math:`\beta = 0, \gamma = 1`: nnPU-GA) and uPU use PU-Bench's nnPU configuration (40 epochs, Adam 3e-4, weight
  decay 1e-4) with the sigmoid loss; VPU its own defaults (50 epochs, batches of 500 P + 500 U rows) with the authors'
  ``Phi / max Phi > 1/2`` rule and proxy-AUC selection (its proxy accuracy would need its prior estimate from the
  held-out rows, three labeled rows at 1 %);
* metrics on the test split: accuracy, F1 and ROC AUC of every seed's decision values, mean and standard deviation
  over seeds; time: the wall time of the fit of all seeds (compilation included) divided by the number of seeds.

MNIST and CIFAR-10 (``--sets mnist,cifar10``; backbones in ``IMAGE_MODELS``) need a GPU for the protocol's
schedule; ``--quick --subsample N`` runs a short CPU schedule on a subset as evidence that the programs run.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import RESULTS, data_dir, header  # noqa: E402

VECTOR_SETS = ("spambase", "mushroom", "news20")
MLP = {"hidden_sizes": (512, 256, 128, 64), "batch_norm": False}
# backbones of the image sets: Kiryo et al.'s MLP for MNIST (PU-Bench: a LeNet), the 13-layer all-convolutional net
# for CIFAR-10 (PU-Bench's CIFAR-10 CNN without its dropout)
IMAGE_MODELS = {"mnist": ("mlp", {}), "cifar10": ("cnn", {})}
DEEP = ("nnPU", "uPU", "VPU", "PUSB", "PUbN", "Dist-PU", "PULDA", "Count Loss", "PUe", "CVIR", "P3Mix-C",
        "P3Mix-E", "Robust-PU", "HolisticPU", "LBE")
OTHER = ("PU ET", "Ada-PU", "RESVM", "2-HNC")


def load_set(name: str):
    """``(X_train, y_train, X_test, y_test)`` as float32 / int arrays (see the module docstring)."""
    import pujax.datasets as ds

    if name in ("spambase", "mushroom"):
        from sklearn.model_selection import train_test_split

        X, y = ds.load(name, data_dir=data_dir())
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    else:
        Xtr, ytr = ds.load(name, data_dir=data_dir(), split="train")
        Xte, yte = ds.load(name, data_dir=data_dir(), split="test")
        if name in ("mnist", "cifar10"):
            Xtr, Xte = Xtr / 255.0, Xte / 255.0
    return (np.asarray(Xtr, np.float32), np.asarray(ytr, int), np.asarray(Xte, np.float32), np.asarray(yte, int))


def pu_data(X, y, c: float, seed: int = 0):
    """Case-control SCAR: ``round(c * n_pos)`` labeled positives, U = every row; returns ``(X_pu, s, prior)``."""
    from pujax.data import make_case_control

    n_labeled = max(1, int(round(c * int(np.sum(y == 1)))))
    return make_case_control(seed, X, y, n_labeled=n_labeled)


def deep_estimator(name: str, prior: float, n_seeds: int, quick: bool, model="mlp", model_kwargs=None):
    """The estimator of a deep method under the protocol (``quick``: few epochs)."""
    import pujax.neural as N

    shared = dict(model=model, model_kwargs=MLP if model_kwargs is None else model_kwargs, n_seeds=n_seeds,
                  random_state=0, validation_fraction=0.01)
    sel = dict(shared, selection="proxy_accuracy")
    nnpu = dict(sel, epochs=40, batch_size=256, learning_rate=3e-4, weight_decay=1e-4, prior=prior)
    table = {
        "nnPU": lambda: N.NNPUClassifier(**nnpu),
        "uPU": lambda: N.NNPUClassifier(risk="upu", **nnpu),
        "VPU": lambda: N.VPUClassifier(threshold="half", selection="proxy_auc", **shared),
        "PUSB": lambda: N.PUSBClassifier(prior=prior, **sel),
        "PUbN": lambda: N.PUbNClassifier(prior=prior, **sel),
        "Dist-PU": lambda: N.DistPUClassifier(prior=prior, **sel),
        "PULDA": lambda: N.PULDAClassifier(prior=prior, **sel),
        "Count Loss": lambda: N.CountLossClassifier(prior=prior, **sel),
        "PUe": lambda: N.PUeClassifier(prior=prior, **sel),
        "CVIR": lambda: N.CVIRClassifier(**sel),
        "P3Mix-C": lambda: N.P3MixClassifier(variant="C", **sel),
        "P3Mix-E": lambda: N.P3MixClassifier(variant="E", gamma=0.85, entropy_weight=0.5, **sel),
        "Robust-PU": lambda: N.RobustPUClassifier(prior=prior, **sel),
        "HolisticPU": lambda: N.HolisticPUClassifier(**sel),
        "LBE": lambda: N.LBEClassifier(**sel),
    }
    est = table[name]()
    if quick:
        est.set_params(epochs=6, **{k: 2 for k in ("warmup_epochs", "pretrain_epochs") if k in est.get_params()})
        if "top_k" in est.get_params():
            est.set_params(top_k=16)
    return est


def other_estimator(name: str, prior: float, seed: int):
    import pujax

    table = {"PU ET": lambda: pujax.PUExtraTreesClassifier(random_state=seed),
             "Ada-PU": lambda: pujax.AdaPUClassifier(prior=prior, random_state=seed),
             "RESVM": lambda: pujax.RESVMClassifier(random_state=seed),
             "2-HNC": lambda: pujax.TwoHNC(prior=prior)}
    return table[name]()


def scores(d, y):
    """Accuracy, F1 and ROC AUC (%) of decision values ``d`` (> 0: positive) against ``y``."""
    from sklearn.metrics import f1_score, roc_auc_score

    pred = d > 0
    return (100.0 * float(np.mean(pred == (y == 1))), 100.0 * f1_score(y, pred, zero_division=0),
            100.0 * roc_auc_score(y, d))


def run_method(name, data, n_seeds, quick, model=("mlp", None)):
    """Fit one method on one set: per-seed metrics and seconds per seed."""
    Xpu, s, prior, Xte, yte = data
    if name in OTHER:
        rows, t = [], time.perf_counter()
        for seed in range(n_seeds):
            est = other_estimator(name, prior, seed).fit(Xpu, s)
            rows.append(scores(np.asarray(est.decision_function(Xte), np.float64), yte))
        return np.asarray(rows), (time.perf_counter() - t) / n_seeds
    est = deep_estimator(name, prior, n_seeds, quick, *model)
    t = time.perf_counter()
    est.fit(Xpu, s)
    elapsed = time.perf_counter() - t
    rows = [scores(d, yte) for d in est.seed_decision_function(Xte)]
    return np.asarray(rows), elapsed / n_seeds


def time_seeds(name, data, n_seeds, quick, model=("mlp", None)):
    """Warm wall times of a fit with one seed and with ``n_seeds`` (each program compiled by a first fit)."""
    Xpu, s, prior, _, _ = data
    out = {}
    for k in (1, n_seeds):
        est = deep_estimator(name, prior, k, quick, *model)
        est.fit(Xpu, s)
        t = time.perf_counter()
        est.fit(Xpu, s)
        out[k] = time.perf_counter() - t
    return out


def _cell(values):
    return f"{np.mean(values):.1f} ± {np.std(values):.1f}"


def report(results, args, timings):
    lines = [header("PU-Bench protocol on pujax's PU methods"), "",
             f"c = {args.c}, {args.seeds} seeds, held-out 1 % of the PU rows, selection by proxy accuracy; "
             "mean ± sd over seeds of the test accuracy, F1 and ROC AUC (%); seconds per seed = wall time of the "
             "fit of all seeds (compilation included) / seeds. See the docstring of `benchmarks/pubench.py` for the "
             "protocol.", ""]
    for key in sorted({(r["set"], r["c"]) for r in results}):
        lines += [f"## {key[0]}, c = {key[1]}", "", "| method | accuracy | F1 | ROC AUC | s / seed |",
                  "| --- | --- | --- | --- | --- |"]
        for r in results:
            if (r["set"], r["c"]) == key:
                m = np.asarray(r["per_seed"])
                lines.append(f"| {r['method']} | {_cell(m[:, 0])} | {_cell(m[:, 1])} | {_cell(m[:, 2])} | "
                             f"{r['seconds_per_seed']:.2f} |")
        lines.append("")
    if not {"mnist", "cifar10"} & {r["set"] for r in results}:
        lines += ["## MNIST and CIFAR-10", "",
                  "Not in this run: the protocol's schedule on the image sets (MNIST even/odd with Kiryo et al.'s MLP, "
                  "CIFAR-10 vehicles/animals with the 13-layer all-convolutional net) needs a GPU; run "
                  "`python -m benchmarks.pubench --sets mnist,cifar10` on one. `--quick --subsample N` runs a short "
                  "CPU schedule on a subset, evidence that the programs compile and train, not a result.", ""]
    if timings:
        lines += ["## One seed against ten (warm programs, same machine, same run)", "",
                  "| set | method | 1 seed (s) | 10 seeds (s) | ratio |", "| --- | --- | --- | --- | --- |"]
        for t in timings:
            lines.append(f"| {t['set']} | {t['method']} | {t['one']:.2f} | {t['many']:.2f} | "
                         f"{t['many'] / t['one']:.2f} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", default=",".join(VECTOR_SETS))
    p.add_argument("--methods", default=",".join(DEEP + OTHER))
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--c", default="0.1")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--timing", action="store_true")
    p.add_argument("--subsample", type=int, default=0,
                   help="train on this many random training rows and test on a quarter as many (CPU evidence runs)")
    p.add_argument("--out", default=str(RESULTS / "pubench.md"))
    args = p.parse_args(argv)
    out = pathlib.Path(args.out)
    results, timings = [], []
    if out.with_suffix(".json").exists():  # resume: runs already in the json are kept, not redone
        kept = json.loads(out.with_suffix(".json").read_text())
        results, timings = kept["results"], kept["timings"]
    done = {(r["set"], r["c"], r["method"]) for r in results}

    def save():
        out.write_text(report(results, args, timings))
        out.with_suffix(".json").write_text(json.dumps({"results": results, "timings": timings}, indent=1))

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for set_name in args.sets.split(","):
        Xtr, ytr, Xte, yte = load_set(set_name)
        if args.subsample:
            rng = np.random.default_rng(0)
            tr = rng.choice(len(ytr), min(args.subsample, len(ytr)), replace=False)
            te = rng.choice(len(yte), min(args.subsample // 4, len(yte)), replace=False)
            Xtr, ytr, Xte, yte = Xtr[tr], ytr[tr], Xte[te], yte[te]
        model = IMAGE_MODELS.get(set_name, ("mlp", None))
        for c in (float(v) for v in str(args.c).split(",")):
            Xpu, s, prior = pu_data(Xtr, ytr, c)
            data = (Xpu, s, float(prior), Xte, yte)
            for name in methods:
                if (set_name, c, name) in done:
                    continue
                per_seed, sec = run_method(name, data, args.seeds, args.quick, model)
                results.append({"set": set_name, "c": c, "method": name, "per_seed": per_seed.tolist(),
                                "seconds_per_seed": sec})
                print(f"{set_name} c={c} {name}: acc {_cell(per_seed[:, 0])} F1 {_cell(per_seed[:, 1])} "
                      f"AUC {_cell(per_seed[:, 2])} {sec:.2f} s/seed", flush=True)
                if args.timing and name in DEEP:
                    t = time_seeds(name, data, args.seeds, args.quick, model)
                    timings.append({"set": set_name, "method": name, "one": t[1], "many": t[args.seeds]})
                    print(f"  timing 1 seed {t[1]:.2f} s, {args.seeds} seeds {t[args.seeds]:.2f} s", flush=True)
                save()  # after every method: a run cut short keeps what it measured
    save()
    print(out.read_text())


if __name__ == "__main__":
    main()
