"""RESVM / bagging SVM / CWSVM benchmark (Claesen et al. 2015, Tables 3-4) and speed vs scikit-learn's SVC.

Run: ``python -m benchmarks.resvm [--quick] [--reps R] [--cv K] [--grid paper|small|wide] [--device cpu|gpu]``.
Writes ``benchmarks/results/resvm.md`` (``resvm_accuracy.md`` with ``--skip-speed``, or ``--out``).

Accuracy: per repetition a training set is drawn in the paper's setting (Table 1 sizes and contamination, via
``pujax.data.synthetic.make_label_noise_setting``); one set of CV folds is shared by the three methods and each is
tuned with the paper's protocol (``pu_grid_search``: k-fold CV over a grid scored by pu_score, eq. 7; refit on all);
the test score is the area under the PR curve, both as the trapezoidal area of the authors' ``evaluate.py`` and as
average precision, of the eq. 5 decision values. Speed: 50 RBF base models on (100 P + 1000 U) x 54 covtype
resamples, pujax (one batched solve) vs 50 ``sklearn.svm.SVC`` fits; then the 50-model decision function on 20,000
rows. Timings interleaved, best of a few repeats.
"""
from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import platform
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAPER_PU = {  # Table 3, 95% CIs of mean AUPR (%): CWSVM, BAG, RESVM
    "synthetic": ("96.9-98.4", "97.9-98.6", "98.2-98.5"),
    "cancer": ("98.2-98.5", "87.5-98.4", "96.1-98.1"),
    "covtype": ("65.2-67.9", "70.2-72.2", "71.4-73.0"),
    "mnist 0": ("74.1-77.8", "90.5-93.3", "94.6-95.5"),
    "mnist 3": ("54.6-60.2", "74.5-80.3", "83.6-86.2"),
    "mnist 8": ("34.8-38.8", "63.5-69.1", "72.2-74.8"),
}
PAPER_SEMI = {  # Table 4
    "synthetic": ("83.6-90.0", "91.9-94.9", "96.4-97.4"),
    "cancer": ("62.5-80.2", "91.1-96.7", "96.2-97.6"),
    "covtype": ("58.1-61.8", "61.2-64.2", "60.4-65.7"),
    "mnist 0": ("59.9-64.1", "72.8-81.1", "91.4-93.4"),
    "mnist 3": ("43.8-47.6", "59.9-66.0", "78.1-81.1"),
    "mnist 8": ("29.7-33.9", "48.3-55.3", "68.0-71.0"),
}
METHODS = ("CWSVM", "BAG", "RESVM")


def data_dir():
    return pathlib.Path(os.environ.get("PUJAX_DATA", ROOT.parent / "shared" / "data"))


def load_pools(names):
    """(X_pool_train, y_pool_train, X_pool_test, y_pool_test, kernel, contamination, n_P, n_U, n_test) per set."""
    import pujax.datasets as ds

    out = {}
    for name in names:
        if name == "synthetic":
            out[name] = dict(gen=True, kernel="rbf", c=0.3, nP=100, nU=200)
        elif name == "cancer":
            X, y = ds.load("breast_cancer_original", data_dir=data_dir())
            X = (X - X.min(0)) / np.maximum(X.max(0) - X.min(0), 1e-12)
            out[name] = dict(X=X, y=y, kernel="rbf", c=0.3, nP=50, nU=200, n_test=(100, 100))
        elif name == "covtype":
            # Documented choice: every column min-max scaled to [0, 1] over all rows of the sample, the transform
            # of LIBSVM's covtype.binary.scale (the 10 numeric columns land in [0, 1], the 44 indicators stay 0/1);
            # no standardisation. Positive = cover type 2 (Lodgepole Pine) = label "1" of LIBSVM's covtype.binary,
            # the positive label hard-coded in the authors' evaluate.py (and resvm.py's default pos=1).
            X, y = ds.load("covtype_sample", data_dir=data_dir())
            X = (X - X.min(0)) / np.maximum(X.max(0) - X.min(0), 1e-12)
            out[name] = dict(X=X, y=y, kernel="rbf", c=0.3, nP=100, nU=1000, n_test=(2000, 2000))
        elif name.startswith("mnist"):
            digit = int(name.split()[1])
            z = np.load(data_dir() / "mnist" / "mnist.npz")
            Xtr = z["x_train"].reshape(-1, 784).astype(np.float32) / 255.0
            Xte = z["x_test"].reshape(-1, 784).astype(np.float32) / 255.0
            out[name] = dict(X=Xtr, y=(z["y_train"] == digit).astype(np.int32), Xte=Xte,
                             yte=(z["y_test"] == digit).astype(np.int32), kernel="linear", c=0.1, nP=50, nU=2000)
    return out


def grids(kind, nP, nU, cv, wide=False, gammas=None, grid="small"):
    """Search grids (fold sizes are (cv-1)/cv of the training set). Same C resolution for every method.

    ``grid="small"`` (session-1 default): RESVM n_pos in {fP/5, fP/2} with n_unl = 5 n_pos, w_pos in {1, 4};
    ``grid="wide"`` (or ``wide=True``): w_pos in {1, 3, 6}, three resample sizes plus one ratio-10 size.
    ``grid="paper"``: the hyper-parameters the paper tunes (§4.1) on a grid shaped after its Table 6 optima
    and the pilot draws: linear (mnist) n_pos in {10, 20}, n_unl / n_pos in {2.5, 5} plus (20, 200), C in
    {0.003, 0.01, 0.03, 0.1}; RBF n_pos in {20, 50} (capped at the fold's P), n_unl / n_pos in {5, 10},
    C in {0.3, 3, 30}; w_pos in {1, 4} for both. Bagging SVM
    tunes C and the U-resample size, CWSVM C_U and C_P (as C_U x {1, 10, 100}). ``gammas``: RBF gamma values
    searched by every method (identical resolution, as in the paper).
    """
    if wide:
        grid = "wide"
    fP = int(nP * (cv - 1) / cv)
    fU = int(nU * (cv - 1) / cv)
    extra = {} if not gammas else {"gamma": list(gammas)}
    if grid == "paper":
        ws = [1.0, 4.0]
        if kind == "linear":
            Cs, npos = [0.003, 0.01, 0.03, 0.1], sorted({min(10, fP), min(20, fP)})
            sizes = {(k, min(int(r * k), fU)) for k in npos for r in (2.5, 5.0)} | {(npos[-1], min(10 * npos[-1], fU))}
        else:
            Cs, npos = [0.3, 3.0, 30.0], sorted({min(20, fP), min(50, fP)})
            sizes = {(k, min(int(r * k), fU)) for k in npos for r in (5.0, 10.0)}
        sizes = sorted(sizes)
        resvm = [{"C": Cs, "w_pos": ws, "n_pos": [a], "max_samples": [b], **extra} for a, b in sizes]
        bag = {"C": Cs, "max_samples": sorted({min(m * fP, fU) for m in (1, 2, 4)}), **extra}
        cw = [{"C_unl": [cu], "C_pos": [cu * r for r in (1.0, 10.0, 100.0)], **extra} for cu in Cs]
        return cw, bag, resvm
    Cs = [0.1, 1.0, 10.0] if kind == "rbf" else [0.001, 0.01, 0.1]
    if grid == "small":
        sizes, ws, bag_unl = [max(5, fP // 5), max(10, fP // 2)], [1.0, 4.0], [fP, min(3 * fP, fU)]
    else:
        sizes, ws = [max(5, fP // 5), max(8, fP // 3), max(10, fP // 2)], [1.0, 3.0, 6.0]
        bag_unl = [fP, min(3 * fP, fU), min(6 * fP, fU)]
    resvm = [{"C": Cs, "w_pos": ws, "n_pos": [k], "max_samples": [min(5 * k, fU)], **extra} for k in sizes]
    if grid == "wide":  # one larger U resample (ratio 10) for the largest P resample
        resvm.append({"C": Cs, "w_pos": ws, "n_pos": [sizes[-1]], "max_samples": [min(10 * sizes[-1], fU)], **extra})
    bag = {"C": Cs, "max_samples": sorted(set(bag_unl)), **extra}
    cw = [{"C_unl": [cu], "C_pos": [cu * r for r in (1.0, 10.0, 100.0)], **extra} for cu in Cs]
    return cw, bag, resvm


def pr_auc_trapezoid(y, score):
    """Area under the PR curve by the trapezoidal rule over scikit-learn's PR points -- the definition of the
    authors' ``evaluate.py`` (github.com/claesenm/resvm: ``auc(recall, precision)`` of ``precision_recall_curve``).
    Unlike average precision it interpolates linearly between PR points (incl. the (recall 0, precision 1) end)."""
    from sklearn.metrics import auc, precision_recall_curve

    prec, rec, _ = precision_recall_curve(np.asarray(y), np.asarray(score, np.float64))
    return float(auc(rec, prec))


def run_accuracy(names, settings, reps, cv, n_models, log, on_update=None, results=None, wide=False,
                 gamma_factors=None, grid="small", rep_start=0, methods=METHODS):
    """Repetitions of the paper's protocol; ``results[(setting, name)]`` gets one record per repetition.

    Per repetition: fresh training draw (and test draw where the set has no fixed test split), ONE set of CV folds
    shared by the three methods (paper §4.1), ``pu_grid_search`` per method, refit on the whole training set,
    test AUPR as average precision and as the trapezoidal area (the authors' evaluate.py).
    ``on_update`` is called after every repetition so a cut-off run still leaves its numbers on disk.
    """
    from pujax.data.synthetic import make_circle_data, make_label_noise_setting
    from pujax.metrics import average_precision
    from pujax.svm import BaggingSVMClassifier, CWSVMClassifier, RESVMClassifier, pu_grid_search

    pools = load_pools(names)
    results = {} if results is None else results
    for setting in settings:
        for name in names:
            p = pools[name]
            recs = results.setdefault((setting, name), [])
            t0 = time.time()
            for r in range(rep_start, rep_start + reps):
                tr0 = time.time()
                rng = np.random.default_rng(1000 * r + 7)
                if p.get("gen"):
                    Xpool, ypool = make_circle_data(int(rng.integers(2**31)), 400, 400)
                    Xte, yte = make_circle_data(int(rng.integers(2**31)), 5000, 5000)
                elif "Xte" in p:
                    Xpool, ypool, Xte, yte = p["X"], p["y"], p["Xte"], p["yte"]
                else:
                    # disjoint train pool / test set per repetition
                    pos, neg = np.flatnonzero(p["y"] == 1), np.flatnonzero(p["y"] == 0)
                    tp = rng.choice(pos, p["n_test"][0], replace=False)
                    tn = rng.choice(neg, p["n_test"][1], replace=False)
                    test = np.concatenate([tp, tn])
                    rest = np.setdiff1d(np.arange(len(p["y"])), test)
                    Xpool, ypool, Xte, yte = p["X"][rest], p["y"][rest], p["X"][test], p["y"][test]
                Xtr, s, _ = make_label_noise_setting(int(rng.integers(2**31)), Xpool, ypool, setting, p["nP"],
                                                     p["nU"], p["c"])
                gammas = None
                if gamma_factors and p["kernel"] == "rbf":
                    from pujax.svm.kernels import resolve_gamma, standardize, standardize_stats

                    g0 = resolve_gamma("scale", standardize(Xtr, *standardize_stats(Xtr)))
                    gammas = [g0 * f for f in gamma_factors]
                cw_g, bag_g, resvm_g = grids(p["kernel"], p["nP"], p["nU"], cv, wide, gammas, grid)
                k = p["kernel"]
                fold_seed = int(rng.integers(2**31))  # one set of folds for all methods (paper §4.1)
                rec = {"rep": r}
                for m, est, grd in [("CWSVM", CWSVMClassifier(kernel=k), cw_g),
                                    ("BAG", BaggingSVMClassifier(n_estimators=n_models, kernel=k, prior=None), bag_g),
                                    ("RESVM", RESVMClassifier(n_estimators=n_models, kernel=k, prior=None), resvm_g)]:
                    if m not in methods:  # --methods: the same draws and folds, fewer searches
                        continue
                    res = pu_grid_search(est, grd, Xtr, s, cv=cv, random_state=fold_seed)
                    score = np.asarray(res.best_estimator_.decision_function(Xte))
                    pred = np.asarray(res.best_estimator_.predict(Xte))
                    params = {kk: (round(float(v), 6) if isinstance(v, float) else v)
                              for kk, v in res.best_params_.items()}
                    if "gamma" in params and gammas:
                        best = res.best_params_["gamma"]
                        params["gamma"] = f"{min(gamma_factors, key=lambda f: abs(f * g0 - best)):g}x scale"
                    rec[m] = dict(ap=100 * float(average_precision(np.asarray(yte), score)),
                                  trap=100 * pr_auc_trapezoid(yte, score), params=params,
                                  cv=float(res.best_score_), pos_frac=float(pred.mean()),
                                  edge=_edge(grd, res.best_params_))
                rec["secs"] = time.time() - tr0
                recs.append(rec)
                log(f"[{setting}] {name} rep {r}: " + ", ".join(
                    f"{m} AP {rec[m]['ap']:.1f} / trap {rec[m]['trap']:.1f}" for m in METHODS if m in rec)
                    + f" | RESVM {rec['RESVM']['params']} cv {rec['RESVM']['cv']:.3f} test pos-frac "
                    f"{rec['RESVM']['pos_frac']:.3f} ({rec['secs']:.0f} s, load {os.getloadavg()[0]:.1f})")
                if on_update is not None:
                    on_update()
            log(f"[{setting}] {name}: " + ", ".join(
                f"{m} {np.mean([q[m]['ap'] for q in recs]):.1f}" for m in METHODS if all(m in q for q in recs))
                + f"  ({time.time() - t0:.0f} s, {len(recs)} reps)")
    return results


def _edge(grid, best):
    """Names of the tuned parameters whose chosen value is the smallest or largest value searched for them."""
    vals = {}
    for g in (grid if isinstance(grid, list) else [grid]):
        for k, v in g.items():
            vals.setdefault(k, set()).update(v)
    return [k for k, v in vals.items() if len(v) > 1 and best[k] in (min(v), max(v))]


def run_speed(repeats, log):
    import jax
    from sklearn.svm import SVC

    import pujax.datasets as ds
    from pujax.svm import RESVMClassifier

    X, y = ds.load("covtype_sample", data_dir=data_dir())
    X = (X - X.min(0)) / np.maximum(X.max(0) - X.min(0), 1e-12)
    rng = np.random.default_rng(0)
    P = rng.choice(np.flatnonzero(y == 1), 100, replace=False)
    U = rng.choice(np.setdiff1d(np.arange(len(y)), P), 1000, replace=False)
    Xtr = np.concatenate([X[P], X[U]])
    s = np.r_[np.ones(100, int), np.zeros(1000, int)]
    X20k = X[rng.integers(0, len(X), 20000)]
    est = RESVMClassifier(n_estimators=50, n_pos=100, max_samples=1000, C=1.0, w_pos=1.0, kernel="rbf", prior=None,
                          random_state=0)
    t = time.perf_counter()
    est.fit(Xtr, s)
    first_fit = time.perf_counter() - t
    gamma = est.gamma_
    # the same 50 resamples for sklearn
    from pujax.svm import draw_problems
    from pujax.svm.kernels import standardize

    key = jax.random.PRNGKey(0)  # the key of random_state=0: the estimator's own resamples
    idx, yy, C = draw_problems(key, s, est.ensemble_spec(100, 1000))
    mask = C > 0
    Ztr, Z20k = (standardize(a, est.model_.x_mean, est.model_.x_scale) for a in (Xtr, X20k))  # kernels' view
    svcs = []
    t_jax, t_sk, t_jd, t_sd = [], [], [], []
    est.decision_function(X20k[:10])
    for rep in range(repeats):
        t = time.perf_counter()
        est.fit(Xtr, s)
        t_jax.append(time.perf_counter() - t)
        t = time.perf_counter()
        svcs = [SVC(C=est.C_unl_, kernel="rbf", gamma=gamma, class_weight={1: est.C_pos_ / est.C_unl_, -1: 1.0})
                .fit(Ztr[idx[k][mask[k]]], yy[k][mask[k]]) for k in range(50)]
        t_sk.append(time.perf_counter() - t)
        t = time.perf_counter()
        est.decision_function(X20k)
        t_jd.append(time.perf_counter() - t)
        t = time.perf_counter()
        np.stack([m.decision_function(Z20k) for m in svcs], 1)
        t_sd.append(time.perf_counter() - t)
        log(f"speed rep {rep}: fit jax {t_jax[-1]:.2f}s sklearn {t_sk[-1]:.2f}s | decision jax {t_jd[-1]:.3f}s "
            f"sklearn {t_sd[-1]:.3f}s")
    # agreement of each base model with its sklearn twin (same resample, same C)
    psi = est.base_decision_function(X20k[:2000])
    ref = np.stack([m.decision_function(Z20k[:2000]) for m in svcs], 1)
    agree = float(np.mean(np.sign(psi) == np.sign(ref)))
    corr = float(np.min([np.corrcoef(psi[:, k], ref[:, k])[0, 1] for k in range(50)]))
    return dict(first_fit=first_fit, fit_jax=min(t_jax), fit_sk=min(t_sk), dec_jax=min(t_jd), dec_sk=min(t_sd),
                agree=agree, corr=corr, n_sv=int(est.support_vectors_.shape[0]),
                n_iter=int(est.n_iter_.max()))


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} (shared with other jobs: timings are noisy)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 repetition, 2 datasets, PU setting only")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rep-start", type=int, default=0, help="index of the first repetition (seeds 1000 r + 7)")
    ap.add_argument("--semi-reps", type=int, default=2)
    ap.add_argument("--cv", type=int, default=10, help="CV folds (paper: 10)")
    ap.add_argument("--n-models", type=int, default=50)
    ap.add_argument("--speed-repeats", type=int, default=3)
    ap.add_argument("--datasets", default="synthetic,cancer,covtype,mnist 0,mnist 3,mnist 8")
    ap.add_argument("--skip-accuracy", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--grid", choices=("small", "wide", "paper"), default="paper", help="search grids, see grids()")
    ap.add_argument("--wide-grid", action="store_true", help="same as --grid wide")
    ap.add_argument("--gamma-factors", default="0.5,1,2",
                    help="RBF gamma = factor x 'scale', tuned by CV ('' = gamma fixed to 'scale')")
    ap.add_argument("--methods", default="CWSVM,BAG,RESVM",
                    help="methods to tune and test (the others' table cells read '-'; draws and folds are unchanged)")
    ap.add_argument("--out", default=None,
                    help="results file (default benchmarks/results/resvm.md, or resvm_accuracy.md with --skip-speed)")
    args = ap.parse_args(argv)
    if args.wide_grid:
        args.grid = "wide"
    if args.out is None:
        args.out = str(ROOT / "benchmarks" / "results" / ("resvm_accuracy.md" if args.skip_speed else "resvm.md"))
    args.load_start = ", ".join(f"{x:.2f}" for x in os.getloadavg())

    import jax

    if args.device == "gpu":
        try:
            jax.devices("gpu")
        except RuntimeError:
            sys.exit("--device gpu: no GPU backend is available to jax on this machine (install jax[cuda12]).")
        jax.config.update("jax_platform_name", "gpu")
    else:
        jax.config.update("jax_platform_name", "cpu")

    lines = []

    def log(msg):
        print(msg, flush=True)
        lines.append(msg)

    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    reps, semi_reps, settings = args.reps, args.semi_reps, ["pu", "semi-supervised"]
    if args.quick:
        names, reps, settings = ["synthetic", "mnist 0"], 1, ["pu"]
    speed = None if args.skip_speed else run_speed(1 if args.quick else args.speed_repeats, log)
    acc = {}
    update = lambda: write_md(args, speed, acc, names, echo=False)  # noqa: E731
    update()
    if not args.skip_accuracy:
        gf = [float(f) for f in args.gamma_factors.split(",") if f.strip()] or None
        args.gf = gf
        methods = tuple(m.strip().upper() for m in args.methods.split(",") if m.strip())
        bad = [m for m in methods if m not in METHODS]
        if bad or "RESVM" not in methods:
            sys.exit(f"--methods: choose among {', '.join(METHODS)} and include RESVM (got {args.methods!r}).")
        if reps > 0:
            run_accuracy(names, ["pu"], reps, args.cv, args.n_models, log, update, acc, False, gf, args.grid,
                         args.rep_start, methods)
        if "semi-supervised" in settings and semi_reps > 0:
            run_accuracy(names, ["semi-supervised"], semi_reps, args.cv, args.n_models, log, update, acc, False,
                         gf, args.grid, args.rep_start, methods)
    write_md(args, speed, acc, names)


def _ci(a):
    if a is None:
        return "-"
    a = np.asarray(a, float)
    if len(a) < 2:
        return f"{a.mean():.1f} (1 rep)"
    from scipy import stats

    hw = float(stats.t.ppf(0.975, len(a) - 1) * a.std(ddof=1) / np.sqrt(len(a)))
    return f"{a.mean():.1f} +- {hw:.1f}"


def _vals(recs, method, metric):
    """Per-repetition values of one method, or None when it was not run (``--methods``)."""
    if not all(method in q for q in recs):
        return None
    return [q[method][metric] for q in recs]


def write_md(args, speed, acc, names, echo=True):
    cmd = "python -m benchmarks.resvm " + " ".join(sys.argv[1:])
    md = ["# RESVM, bagging SVM, CWSVM (Claesen et al. 2015)", "",
          f"- machine: {machine()}", f"- command: `{cmd}`",
          f"- date: {datetime.datetime.now().isoformat(timespec='minutes')}",
          f"- load average (1/5/15 min) at start: {args.load_start}; now: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()), ""]
    if speed:
        fr = speed["fit_jax"] / speed["fit_sk"]
        dr = speed["dec_jax"] / speed["dec_sk"]
        md += ["## Speed (same run, interleaved, best of repeats)", "",
               "50 RBF base models, RESVM resamples of (100 P + 1000 U) x 54 covtype features "
               "(n_pos=100, n_unl=1000, C=1, gamma='scale'); anchor = 50 `sklearn.svm.SVC` fits on the same resamples "
               "with the same per-class C (class_weight). Decision function: the 50 base models on 20,000 "
               "covtype rows.",
               "", "| task | scikit-learn (s) | pujax (s) | ratio pujax / sklearn | target |", "|---|---|---|---|---|",
               f"| fit 50 base models | {speed['fit_sk']:.2f} | {speed['fit_jax']:.2f} | {fr:.2f} | <= 1 "
               f"({'met' if fr <= 1 else 'NOT met'}) |",
               f"| decision function, 20,000 rows | {speed['dec_sk']:.3f} | {speed['dec_jax']:.3f} | {dr:.3f} | <= 0.2 "
               f"({'met' if dr <= 0.2 else 'NOT met'}) |", "",
               f"First pujax fit including jit compilation: {speed['first_fit']:.2f} s. Base-model agreement with the "
               f"sklearn twins on 2,000 rows: same sign {100 * speed['agree']:.2f} %, min per-model correlation "
               f"{speed['corr']:.5f}; {speed['n_sv']} distinct support vectors; max SMO steps {speed['n_iter']}.", ""]
    gtxt = ("RBF gamma = " + ",".join(f"{f:g}" for f in getattr(args, "gf", None) or []) + " x 'scale' (tuned)"
            if getattr(args, "gf", None) else "RBF gamma fixed to 'scale'")
    for setting, paper in [("pu", PAPER_PU), ("semi-supervised", PAPER_SEMI)]:
        rows = [(n, acc[(setting, n)]) for n in names if acc.get((setting, n))]
        if not rows:
            continue
        title = "PU setting (paper Table 3)" if setting == "pu" else "Semi-supervised setting (paper Table 4)"
        md += [f"## {title}", "",
               "Mean test area under the PR curve (%) over the repetitions done (n) +- 95% CI half-width (t), beside "
               "the paper's 95% CI of the mean (20 repetitions). Two definitions: **trap** = trapezoidal area under "
               "scikit-learn's PR curve, the definition in the authors' `evaluate.py` (github.com/claesenm/resvm); "
               "**AP** = average precision (step-wise, never above trap). Hyper-parameters tuned per repetition with "
               f"`pu_grid_search` ({args.cv}-fold CV, one fold set shared by the three methods, pu_score eq. 7; "
               f"`--grid {args.grid}` in `benchmarks/resvm.py::grids`; {gtxt}); {args.n_models} base models; "
               "decision values of BAG and RESVM by eq. 5.", "",
               "| data | n | CWSVM trap | BAG trap | RESVM trap | RESVM AP | paper CWSVM | paper BAG | paper RESVM "
               "| RESVM trap vs paper CI | RESVM AP vs paper CI |",
               "|---|---|---|---|---|---|---|---|---|---|---|"]
        for n, recs in rows:
            lo = float(paper[n][2].split("-")[0])
            tr = [q["RESVM"]["trap"] for q in recs]
            apv = [q["RESVM"]["ap"] for q in recs]
            cells = [_ci(_vals(recs, m, "trap")) for m in METHODS] + [_ci(apv)]
            v = lambda a: "inside/above" if np.mean(a) >= lo else "below"  # noqa: E731
            md.append(f"| {n} | {len(recs)} | " + " | ".join(cells) + " | " + " | ".join(paper[n])
                      + f" | {v(tr)} | {v(apv)} |")
        md += ["", "Average precision of all three methods (same runs):", "",
               "| data | CWSVM AP | BAG AP | RESVM AP |", "|---|---|---|---|"]
        for n, recs in rows:
            md.append(f"| {n} | " + " | ".join(_ci(_vals(recs, m, "ap")) for m in METHODS) + " |")
        md += ["", "Per repetition, RESVM: test trap / AP, chosen parameters, best CV pu_score, fraction of test rows "
               "predicted positive, grid edges hit; seconds for the three searches:", ""]
        for n, recs in rows:
            md.append(f"- {n}:")
            for q in recs:
                R = q["RESVM"]
                md.append(f"  - rep {q['rep']}: {R['trap']:.1f} / {R['ap']:.1f}, {R['params']}, cv {R['cv']:.3f}, "
                          f"pos-frac {R['pos_frac']:.3f}, edges {R['edge'] or '-'}; "
                          f"BAG {q.get('BAG', {}).get('params', '-')}; "
                          f"CWSVM {q.get('CWSVM', {}).get('params', '-')}; {q['secs']:.0f} s")
        md += [""]
    md += ["Notes: covtype = the 10,000-row sample in ../shared/data (class 2 = Lodgepole Pine = label 1 of LIBSVM's "
           "covtype.binary = positive), every feature min-max scaled to [0, 1] over the sample "
           "(as covtype.binary.scale; "
           "indicators stay 0/1); "
           "test sets 2,000 P + 2,000 N drawn disjoint from training (paper: 20,000 + 20,000 from the full set). "
           "cancer = the original 699-row Wisconsin set (9 features, missing values as loaded by pujax.datasets; "
           "1 = malignant; paper: LIBSVM's 683-row copy), test 100 + 100. mnist: 50 P + 2,000 U from the training "
           "set, pixel/255, the 10,000-image test set, linear kernel. synthetic: test 5,000 + 5,000. Contamination as "
           "in the paper's Table 1."]
    pathlib.Path(args.out).write_text("\n".join(md) + "\n")
    if echo:
        print("\n".join(md))


if __name__ == "__main__":
    main()
