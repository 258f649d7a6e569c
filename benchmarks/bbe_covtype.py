"""BBE on covtype (issue 24): per-run diagnostics of why the estimate sits above the true prior.

    python -m benchmarks.bbe_covtype [--seeds 3]     # writes benchmarks/results/bbe_covtype.md

Protocol of benchmarks/prior.py: the shared 10,000-row covtype sample, positive = cover type 2, P = 1000 random
positives, U = all 10,000 rows (true prior = mean(y)). For every run: the BBE estimate with the default classifier
(2-fold cross-fitting), the P-vs-U AUC, the selected top bin and -- with the true labels of U, which BBE never sees
-- the share of negatives in that top bin and the "ranking floor" min_z q_u(z)/q_p(z) computed on the population
fractions (no finite-sample penalty): the smallest value any top-bin estimator can reach with these scores. Then,
once, the purity a *supervised* classifier reaches: the share of negatives among the rows it ranks highest (2-fold
cross-fitted HistGradientBoosting on the true labels), which bounds what any P-vs-U ranking can isolate.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

try:
    from benchmarks._common import RESULTS, data_dir, header
except ImportError:  # run as a script
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from benchmarks._common import RESULTS, data_dir, header


def _top_bin_stats(scores, s, y_true, z):
    """Shares of P / U / U-negatives with score >= z."""
    top = scores >= z
    p, u = s == 1, s == 0
    return top[p].mean(), top[u].mean(), (top & u & (y_true == 0)).sum() / max(1, (top & u).sum())


def _ranking_floor(scores, s, y_true, min_p=0.01):
    """min over thresholds of q_u/q_p with q_p >= min_p (no DKW penalty): the best ratio this ranking allows."""
    sp, su = np.sort(scores[s == 1]), scores[s == 0]
    zs = np.unique(sp[: int(len(sp) * (1 - min_p)) + 1])
    qp = 1.0 - np.searchsorted(sp, zs, side="left") / len(sp)
    su_sorted = np.sort(su)
    qu = 1.0 - np.searchsorted(su_sorted, zs, side="left") / len(su)
    k = int(np.argmin(qu / qp))
    return float(qu[k] / qp[k]), float(qp[k])


def run(seed, X, y, classifier=None, n_folds=2):
    from pujax.data import make_case_control
    from pujax.prior import estimate_prior
    from pujax.prior._scores import cross_fit_scores

    Xtr, s, prior, y_tr = make_case_control(seed, X, y, 1000, return_y=True)
    t0 = time.perf_counter()
    est = estimate_prior(Xtr, s, random_state=seed, classifier=classifier, n_folds=n_folds, n_bootstrap=50)
    dt = time.perf_counter() - t0
    scores, _ = cross_fit_scores(Xtr, s, classifier, n_folds, est.diagnostics["seed"], need_proba=False)
    d = est.diagnostics
    qp, qu, neg = _top_bin_stats(scores, s, y_tr, d["threshold"])
    floor, floor_qp = _ranking_floor(scores, s, y_tr)
    return dict(seed=seed, truth=prior, est=est.prior, err=est.prior - prior, auc=d["pu_auc"], qp=qp, qu=qu,
                neg_share=neg, floor=floor, floor_qp=floor_qp, time=dt, lo=est.interval[0], hi=est.interval[1])


def supervised_purity(X, y, seed=0):
    """Share of negatives among the top 1 % / 5 % / 10 % of rows ranked by a cross-fitted supervised classifier."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import cross_val_predict

    p = cross_val_predict(HistGradientBoostingClassifier(random_state=seed), X, y, cv=2, method="predict_proba")[:, 1]
    order = np.argsort(-p)
    return {q: float(1 - y[order[: int(q * len(y))]].mean()) for q in (0.01, 0.05, 0.10, 0.25)}


def supervised_scores(X, y, seed=0):
    """Cross-fitted (2 folds) P(y=1|x) of a HistGradientBoosting trained on the true labels."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import cross_val_predict

    return cross_val_predict(HistGradientBoostingClassifier(random_state=seed), X, y, cv=2,
                             method="predict_proba")[:, 1]


def bbe_on_supervised_ranking(seed, X, y, p_sup):
    """BBE on the same P and U rows as run(seed), scored by the supervised classifier instead of the P-vs-U one."""
    from pujax.data import make_case_control
    from pujax.prior import bbe_estimate

    Xtr, s, prior = make_case_control(seed, X, y, 1000)[:3]
    row = {r.tobytes(): i for i, r in enumerate(np.ascontiguousarray(X))}
    idx = np.array([row[r.tobytes()] for r in np.ascontiguousarray(Xtr[:1000].astype(X.dtype))])
    out = bbe_estimate(p_sup[idx], p_sup)
    return dict(seed=seed, truth=prior, est=float(out["prior"]), q_p=float(out["q_p"]), q_u=float(out["q_u"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    from pujax.datasets import load

    X, y = load("covtype_sample", data_dir=data_dir())
    rows = []
    for seed in range(args.seeds):
        rows.append(run(seed, X, y))
        print(rows[-1], flush=True)
    from sklearn.ensemble import HistGradientBoostingClassifier

    strong = run(0, X, y, classifier=HistGradientBoostingClassifier(max_iter=500, early_stopping=False,
                                                                    random_state=0), n_folds=5)
    print("strong", strong, flush=True)
    purity = supervised_purity(X, y)
    print("supervised purity", purity, flush=True)
    p_sup = supervised_scores(X, y)
    oracle = [bbe_on_supervised_ranking(seed, X, y, p_sup) for seed in range(args.seeds)]
    print("bbe on supervised ranking", oracle, flush=True)
    lines = [header("BBE on covtype: per-run diagnostics (issue 24)"),
             "Data: the shared 10,000-row covtype sample (positive = cover type 2); P = 1,000 random positives, U = "
             "the 10,000 rows, as in benchmarks/prior.py. Times are wall-clock on a loaded machine.", ""]
    lines += ["| run | classifier | true prior | BBE | error | interval | P-vs-U AUC | top bin q_p | top bin q_u | "
              "negatives in top bin (true labels) | ranking floor min q_u/q_p | time s |", "|" + "---|" * 12]
    for name, r in [("default, 2 folds", r) for r in rows] + [("HGB 500 it., no early stop, 5 folds", strong)]:
        lines.append(f"| {r['seed']} | {name} | {r['truth']:.3f} | {r['est']:.3f} | {r['err']:+.3f} | "
                     f"({r['lo']:.3f}, {r['hi']:.3f}) | {r['auc']:.3f} | {r['qp']:.3f} | {r['qu']:.3f} | "
                     f"{r['neg_share']:.2f} | {r['floor']:.3f} (q_p {r['floor_qp']:.2f}) | {r['time']:.0f} |")
    lines += ["", "Supervised ranking (true labels, 2-fold cross-fitted HistGradientBoosting): share of negatives "
              "among the top-ranked rows: " + ", ".join(f"top {int(100 * q)} %: {v:.3f}" for q, v in purity.items())]
    lines += ["", "BBE on the same P and U rows ranked by that supervised classifier (what BBE gives when the ranking "
              "isolates a nearly pure positive region): " + "; ".join(
                  f"run {r['seed']}: {r['est']:.3f} (error {r['est'] - r['truth']:+.3f}, top bin q_p {r['q_p']:.2f})"
                  for r in oracle)]
    err = np.mean([r["err"] for r in rows])
    neg = np.mean([r["neg_share"] for r in rows])
    err_sup = np.mean([r["est"] - r["truth"] for r in oracle])
    lines += ["", "## Reading", "",
              f"- Mean BBE error over the {len(rows)} default runs: {err:+.3f}; the top bin BBE selects holds on "
              f"average {100 * neg:.0f} % negatives among its unlabeled rows (true labels), so q_u/q_p there is "
              "theta + (1 - theta) q_n/q_p, an upper bound that is not tight. BBE's estimate is what Algorithm 1 "
              "defines for these scores: the implementation matches a brute-force numpy BBE (tests/test_prior.py).",
              "- Purer top bins exist only for the few percent of positives ranked highest (ranking floor column), "
              "where the DKW term (1 + gamma)/q_p (eps_p + eps_u) with 1,000 labeled positives outweighs the "
              "smaller ratio, so BBE picks a large bin. A larger P-vs-U classifier (5 folds, 500 iterations, run 0) "
              "does not rank better.",
              f"- With the supervised ranking BBE's mean error is {err_sup:+.3f}: a nearly pure region exists "
              "(supervised purity above), but a classifier trained on P-vs-U labels of this sample does not isolate "
              "it: few rows of cover type 2 lie where no other type does (top bins of either ranking hold "
              "negatives), and the P-vs-U ranking learnt from 1,000 labeled positives is weaker than the supervised "
              "one. The gap is a property of the data and of that ranking, not a defect of the estimator."]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        (RESULTS / "bbe_covtype.md").write_text(text)


if __name__ == "__main__":
    main()
