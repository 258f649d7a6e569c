"""PU learning on text: 20 Newsgroups, TF-IDF (sparse), pujax against pulearn and the naive / oracle logistic models
(issue 46).

    python -m benchmarks.text                                   # every task, 10 % and 30 % labeled, every method
    python -m benchmarks.text --tasks med-vs-space --rates 0.1 --methods naive,spy,pulearn-bagging-lr
    python -m benchmarks.text --report                          # rewrite text.md from text.json only

Data: the 20 Newsgroups "bydate" documents (``pujax.datasets.text.load_news20_texts``; headers kept), TF-IDF fitted on
the 11,314 training documents (scikit-learn's ``TfidfVectorizer(sublinear_tf=True, stop_words="english",
max_features=50_000)``, float32 CSR, rows of unit norm) and a ``TruncatedSVD(300)`` of it for the methods that need
dense input. Tasks: a topic against the rest of the corpus (``comp``, ``rec``, ``sci``) and one group against
another (``sci.med`` vs ``sci.space``, ``rec.autos`` vs ``rec.motorcycles``: the training documents of the two
groups only). Labels, case-control (the papers' protocol, ``pujax.data.make_case_control``): ``rate`` of the
task's training positives drawn at random as the labeled set P, all the task's training documents as the unlabeled
set U; evaluation on the task's test documents with their true labels (accuracy, F1 of the positive class, ROC AUC
of the positive-class score).

Methods: every pujax classifier, with its defaults, on the sparse TF-IDF matrix when it takes sparse input (its
scikit-learn tag) and on the SVD projection otherwise; pulearn's Elkan-Noto and bagging (logistic base, and bagging's
default tree base) on the same matrices (pulearn's Elkan-Noto, which fails on sparse input, also on the SVD projection:
``@svd300``); references: logistic regression fitted on the PU labels as if they were negatives ("naive") and on the
true labels of the training documents ("oracle"). Every fit runs in a child process of its own (``--worker``); the
table gives the resident memory before the fit (imports, data) and the peak during fit and prediction (``VmHWM`` of
``/proc/self/status``, reset to the current size just before the fit). Results accumulate in ``text.json`` (a rerun
skips the runs it holds; ``--force`` redoes them) and ``text.md`` is written from it.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

try:
    from benchmarks._common import RESULTS, data_dir, header, load_average
except ImportError:  # run as a script: python benchmarks/text.py
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from benchmarks._common import RESULTS, data_dir, header, load_average

TASKS = {  # name -> (positive groups, groups kept or None for the whole corpus)
    "comp-vs-rest": (lambda g: g.startswith("comp."), None),
    "rec-vs-rest": (lambda g: g.startswith("rec."), None),
    "sci-vs-rest": (lambda g: g.startswith("sci."), None),
    "med-vs-space": (lambda g: g == "sci.med", ("sci.med", "sci.space")),
    "autos-vs-motorcycles": (lambda g: g == "rec.autos", ("rec.autos", "rec.motorcycles")),
}
RATES = (0.1, 0.3)
METHODS = (
    "naive", "oracle",
    "elkan-noto", "elkan-noto-weighted", "spy", "rocchio", "spy-iterate", "bagging-tree", "bagging-lr", "sar-em",
    "nnpu-linear", "cwsvm", "bagging-svm", "resvm", "pu-et", "ada-pu",
    "two-hnc", "nnpu", "vpu",
    "pulearn-elkan-noto-lr", "pulearn-bagging-lr", "pulearn-bagging-tree", "pulearn-elkan-noto-lr@svd300",
)
REFERENCES = ("naive", "oracle")
PULEARN = ("pulearn-elkan-noto-lr", "pulearn-bagging-lr", "pulearn-bagging-tree", "pulearn-elkan-noto-lr@svd300")
CACHE = pathlib.Path(os.environ.get("PUJAX_CACHE", pathlib.Path.home() / ".cache" / "pujax")) / "news20_text_v1.npz"
JSON = RESULTS / "text.json"
TIMEOUT_S = 3600


# ------------------------------------------------------------------------------------------------------ features
def features():
    """``(X_train, X_test, Z_train, Z_test, g_train, g_test)``: TF-IDF (CSR float32), its SVD(300), group names;
    built once and cached."""
    import scipy.sparse as sp

    if CACHE.is_file():
        f = np.load(CACHE, allow_pickle=False)
        Xtr = sp.csr_matrix((f["tr_data"], f["tr_indices"], f["tr_indptr"]), shape=tuple(f["tr_shape"]))
        Xte = sp.csr_matrix((f["te_data"], f["te_indices"], f["te_indptr"]), shape=tuple(f["te_shape"]))
        return Xtr, Xte, f["Z_train"], f["Z_test"], f["g_train"], f["g_test"]
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    from pujax.datasets.text import load_news20_texts

    t_train, g_train = load_news20_texts(data_dir(), "train")
    t_test, g_test = load_news20_texts(data_dir(), "test")
    vec = TfidfVectorizer(sublinear_tf=True, stop_words="english", max_features=50_000, dtype=np.float32)
    Xtr, Xte = vec.fit_transform(t_train).tocsr(), vec.transform(t_test).tocsr()
    svd = TruncatedSVD(300, algorithm="randomized", random_state=0).fit(Xtr)
    Ztr, Zte = svd.transform(Xtr).astype(np.float32), svd.transform(Xte).astype(np.float32)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    np.savez(CACHE, tr_data=Xtr.data, tr_indices=Xtr.indices, tr_indptr=Xtr.indptr, tr_shape=Xtr.shape,
             te_data=Xte.data, te_indices=Xte.indices, te_indptr=Xte.indptr, te_shape=Xte.shape, Z_train=Ztr,
             Z_test=Zte, g_train=g_train.astype(str), g_test=g_test.astype(str))
    return Xtr, Xte, Ztr, Zte, g_train.astype(str), g_test.astype(str)


def task_data(task: str, rate: float, seed: int = 0):
    """The PU training set of a task: ``dict`` with sparse and dense training / test matrices, ``s``, the true
    labels of the training rows and of the test rows, and the prior of U."""
    from pujax.data import make_case_control

    Xtr, Xte, Ztr, Zte, gtr, gte = features()
    positive, kept = TASKS[task]
    rows_tr = np.ones(len(gtr), bool) if kept is None else np.isin(gtr, kept)
    rows_te = np.ones(len(gte), bool) if kept is None else np.isin(gte, kept)
    y_tr = np.array([positive(g) for g in gtr[rows_tr]], np.int32)
    y_te = np.array([positive(g) for g in gte[rows_te]], np.int32)
    n_lab = max(2, int(round(rate * y_tr.sum())))
    # the rows' indices travel as a feature column: the same draw of P for the sparse and the dense matrices
    idx = np.arange(y_tr.size, dtype=np.float32)[:, None]
    X_idx, s, prior, y_pu = make_case_control(seed, idx, y_tr, n_labeled=n_lab, return_y=True)
    order = X_idx[:, 0].astype(np.int64)
    X, Z = Xtr[np.flatnonzero(rows_tr)], Ztr[rows_tr]
    return dict(X=X[order], Z=Z[order], s=s, y_pu=y_pu, X_orig=X, Z_orig=Z, y_orig=y_tr, prior=prior,
                X_test=Xte[np.flatnonzero(rows_te)], Z_test=Zte[rows_te], y_test=y_te, n_labeled=n_lab)


# ------------------------------------------------------------------------------------------------------ methods
def make(name: str):
    """The estimator of a method (unfitted)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    import pujax

    lr = lambda: LogisticRegression(max_iter=1000)  # noqa: E731
    if name in REFERENCES:
        return lr()
    if name.startswith("pulearn-"):
        from pulearn import BaggingPuClassifier, ElkanotoPuClassifier

        name = name.split("@")[0]
        return {"pulearn-elkan-noto-lr": lambda: ElkanotoPuClassifier(lr(), hold_out_ratio=0.1, random_state=0),
                "pulearn-bagging-lr": lambda: BaggingPuClassifier(lr(), n_estimators=100, random_state=0),
                "pulearn-bagging-tree": lambda: BaggingPuClassifier(random_state=0)}[name]()
    table = {
        "elkan-noto": lambda: pujax.ElkanNotoClassifier(random_state=0),
        "elkan-noto-weighted": lambda: pujax.ElkanNotoClassifier(weighted=True, random_state=0),
        "spy": lambda: pujax.TwoStepClassifier(negatives="spy", random_state=0),
        "rocchio": lambda: pujax.TwoStepClassifier(negatives="rocchio", random_state=0),
        "spy-iterate": lambda: pujax.TwoStepClassifier(negatives="spy", iterate=5, random_state=0),
        "bagging-tree": lambda: pujax.PUBaggingClassifier(DecisionTreeClassifier(), random_state=0),
        "bagging-lr": lambda: pujax.PUBaggingClassifier(lr(), random_state=0),
        "sar-em": lambda: pujax.SAREMClassifier(),
        "nnpu-linear": lambda: pujax.NNPULinearClassifier(random_state=0),
        "cwsvm": lambda: pujax.CWSVMClassifier(),
        "bagging-svm": lambda: pujax.BaggingSVMClassifier(random_state=0),
        "resvm": lambda: pujax.RESVMClassifier(random_state=0),
        "pu-et": lambda: pujax.PUExtraTreesClassifier(random_state=0),
        "ada-pu": lambda: pujax.AdaPUClassifier(random_state=0),
        "two-hnc": lambda: pujax.TwoHNC(),
        "nnpu": lambda: pujax.NNPUClassifier(random_state=0),
        "vpu": lambda: pujax.VPUClassifier(random_state=0),
    }
    return table[name]()


def takes_sparse(method: str, est) -> bool:
    """Whether a method runs on the sparse TF-IDF matrix: a pujax estimator whose scikit-learn tag says it takes
    sparse input, the references, and pulearn's classifiers (run on the same sparse matrices; "@svd300" variants on
    the projection)."""
    if method.endswith("@svd300"):
        return False
    if method in REFERENCES or method.startswith("pulearn-"):
        return True
    return bool(est.__sklearn_tags__().input_tags.sparse)


def _status_mb(field: str) -> float:
    """A ``/proc/self/status`` memory field (``VmRSS``, ``VmHWM``) in MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak() -> None:
    """Reset the peak resident size (``VmHWM``) of this process to its current size (Linux ``clear_refs``)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _score(est, X) -> np.ndarray:
    if hasattr(est, "decision_function") and not type(est).__module__.startswith("pulearn"):
        return np.asarray(est.decision_function(X), np.float64).ravel()
    return np.asarray(est.predict_proba(X), np.float64)[:, 1]


def run_one(task: str, rate: float, method: str, seed: int = 0) -> dict:
    """Fit one method on one task in this process; return its scores, fit time and memory."""
    import warnings

    from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

    d = task_data(task, rate, seed)
    est = make(method)
    sparse = takes_sparse(method, est)
    X, X_test = (d["X"], d["X_test"]) if sparse else (d["Z"], d["Z_test"])
    y = d["s"]
    if method == "oracle":
        X, y = (d["X_orig"] if sparse else d["Z_orig"]), d["y_orig"]
    rss0 = _status_mb("VmRSS")
    _reset_peak()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(X, y)
        fit_s = time.perf_counter() - t0
        pred = (np.asarray(est.predict(X_test)) == 1).astype(np.int32)
        score = _score(est, X_test)
    peak = _status_mb("VmHWM")
    return dict(task=task, rate=rate, method=method, seed=seed, input="tfidf" if sparse else "svd300",
                accuracy=float(accuracy_score(d["y_test"], pred)), f1=float(f1_score(d["y_test"], pred)),
                auc=float(roc_auc_score(d["y_test"], score)), fit_s=fit_s, rss_before_mb=rss0, peak_rss_mb=peak,
                prior_true=float(d["prior"]), prior_used=_prior_used(est), n_labeled=int(d["n_labeled"]),
                n_train=int(X.shape[0]), n_test=int(X_test.shape[0]), n_features=int(X.shape[1]))


def _prior_used(est):
    for name in ("prior_",):
        v = getattr(est, name, None)
        if isinstance(v, (float, int)) and not isinstance(v, bool):
            return float(v)
    return None


def run_child(task: str, rate: float, method: str, seed: int, timeout: int) -> dict:
    """:func:`run_one` in a child process (its own peak memory); a failure or a timeout becomes an ``error``."""
    cmd = [sys.executable, "-m", "benchmarks.text", "--worker", json.dumps([task, rate, method, seed])]
    base = dict(task=task, rate=rate, method=method, seed=seed)
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             cwd=pathlib.Path(__file__).resolve().parents[1])
    except subprocess.TimeoutExpired:
        return {**base, "error": f"timeout after {timeout} s"}
    for line in reversed(out.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
    return {**base, "error": tail[:300]}


# ------------------------------------------------------------------------------------------------------ report
def _load() -> list:
    return json.loads(JSON.read_text()) if JSON.is_file() else []


def _key(r) -> tuple:
    return (r["task"], float(r["rate"]), r["method"], int(r.get("seed", 0)))


def _fmt(v, spec=".3f"):
    return "" if v is None else format(v, spec)


def _setting_table(rows: list) -> list:
    lines = ["| method | input | accuracy | F1 | ROC AUC | prior used | fit (s) | peak RSS (MB) | RSS before fit (MB) "
             "|",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    order = {m: i for i, m in enumerate(METHODS)}
    for r in sorted(rows, key=lambda r: order.get(r["method"], 99)):
        if "error" in r:
            lines.append(f"| {r['method']} | | failed: {r['error']} | | | | | | |")
            continue
        lines.append(f"| {r['method']} | {r['input']} | {r['accuracy']:.3f} | {r['f1']:.3f} | {r['auc']:.3f} | "
                     f"{_fmt(r['prior_used'])} | {r['fit_s']:.1f} | {r['peak_rss_mb']:.0f} | "
                     f"{r['rss_before_mb']:.0f} |")
    return lines


def _means(rows: list, rate: float) -> dict:
    """method -> (mean accuracy, mean F1, mean AUC, tasks) over the tasks run at ``rate`` without error."""
    out = {}
    for m in METHODS:
        ok = [r for r in rows if r["method"] == m and float(r["rate"]) == rate and "error" not in r]
        if ok:
            out[m] = tuple(float(np.mean([r[k] for r in ok])) for k in ("accuracy", "f1", "auc")) + (len(ok),)
    return out


def _summary(rows: list) -> list:
    lines = []
    for rate in RATES:
        means = _means(rows, rate)
        if not means:
            continue
        n_tasks = max(v[3] for v in means.values())
        lines += [f"### Mean over the tasks, {rate:.0%} of the training positives labeled", "",
                  "| method | accuracy | F1 | ROC AUC | tasks |", "| --- | --- | --- | --- | --- |"]
        lines += [f"| {m} | {a:.3f} | {f:.3f} | {u:.3f} | {k} |" for m, (a, f, u, k) in means.items()]
        full = {m: v for m, v in means.items() if v[3] == n_tasks}
        pj = {m: v for m, v in full.items() if m not in REFERENCES + PULEARN}
        pl = {m: v for m, v in full.items() if m in PULEARN}
        lines.append("")
        if pj and pl:
            bj, bl = max(pj, key=lambda m: pj[m][0]), max(pl, key=lambda m: pl[m][0])
            lines.append(f"- best pujax method (mean accuracy over the {n_tasks} tasks): **{bj}** {pj[bj][0]:.3f} "
                         f"(F1 {pj[bj][1]:.3f}); best pulearn method: **{bl}** {pl[bl][0]:.3f} (F1 {pl[bl][1]:.3f}).")
        if "spy" in full and "naive" in full:
            sp_, nv = full["spy"], full["naive"]
            orc = full.get("oracle")
            lines.append(f"- two-step spy: accuracy {sp_[0]:.3f}, F1 {sp_[1]:.3f}; naive logistic model: accuracy "
                         f"{nv[0]:.3f}, F1 {nv[1]:.3f}" + (f"; oracle: accuracy {orc[0]:.3f}, F1 {orc[1]:.3f}."
                                                            if orc else "."))
        lines.append("")
    return lines


def write_report(rows: list, path: pathlib.Path) -> None:
    by_setting = {}
    for r in rows:
        by_setting.setdefault((r["task"], float(r["rate"])), []).append(r)
    lines = [header("PU learning on text: 20 Newsgroups TF-IDF (issue 46)").rstrip(), "",
             __doc__.split("\n\n", 1)[1].strip(), "",
             "Accuracy, F1 and ROC AUC do not depend on the machine's load; fit times and memory were measured on a "
             "shared machine (2 cores, other jobs running): read them as orders of magnitude.", "", "## Summary", ""]
    lines += _summary(rows)
    lines += ["## Every run", ""]
    for (task, rate), rs in sorted(by_setting.items(), key=lambda kv: (list(TASKS).index(kv[0][0]), kv[0][1])):
        ok = [r for r in rs if "error" not in r]
        info = (f" ({ok[0]['n_labeled']} labeled of {ok[0]['n_train']} training rows, prior of U "
                f"{ok[0]['prior_true']:.3f}, {ok[0]['n_test']} test documents)") if ok else ""
        lines += [f"### {task}, {rate:.0%} labeled{info}", ""] + _setting_table(rs) + [""]
    path.write_text("\n".join(lines))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--rates", default=",".join(map(str, RATES)))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=TIMEOUT_S)
    ap.add_argument("--force", action="store_true", help="redo runs text.json already holds")
    ap.add_argument("--report", action="store_true", help="only rewrite text.md from text.json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(RESULTS / "text.md"))
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(run_one(*json.loads(args.worker))), flush=True)
        return
    rows = _load()
    if not args.report:
        features()  # built once, before the children read the cache
        print(f"load average {load_average()}", flush=True)
        done = {_key(r): i for i, r in enumerate(rows)}
        for task in args.tasks.split(","):
            for rate in map(float, args.rates.split(",")):
                for method in args.methods.split(","):
                    k = (task, rate, method, args.seed)
                    if k in done and not args.force and "error" not in rows[done[k]]:
                        continue
                    r = run_child(task, rate, method, args.seed, args.timeout)
                    print(json.dumps(r), flush=True)
                    if k in done:
                        rows[done[k]] = r
                    else:
                        done[k] = len(rows)
                        rows.append(r)
                    JSON.write_text(json.dumps(rows, indent=1))
    write_report(rows, pathlib.Path(args.out))


if __name__ == "__main__":
    main()
