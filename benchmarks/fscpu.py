"""FSCPU benchmark (Uchikoshi & Akimoto 2025): speed against scikit-learn's GaussianMixture, Table 1 (FSR on the
artificial data of section 5.2.1) and the Table 3 protocol (downstream AUC on Spambase and Ionosphere).

Run: ``python -m benchmarks.fscpu [--quick] [--parts speed,table1,signal,table3] [--device cpu|gpu]`` (or
``python benchmarks/fscpu.py``); writes ``benchmarks/results/fscpu.md``.

Protocols
---------
* Preprocessing as the paper: min-max scaling (fit on the training rows); FSCPU with its defaults except where
  stated: K = 10 mixture components, T = 3000 steps, eta = 1/(2d), eps = 1/d, two candidates per step, diagonal
  covariances, EM max_iter = 100, tol = 1e-3, reg_covar = 1e-6, k-means initialisation (greedy k-means++, Lloyd
  <= 300 iterations, tol 1e-4).
* Speed: Spambase, random 75 % training split, 3 % of the training spam labeled; one search T = 3000 selecting
  29 of 57 features (``FSCPU(29).fit``, wall time including compilation). Anchor: the same search (same IGO
  update and REPAIR, numpy) whose objective uses ``sklearn.mixture.GaussianMixture`` with the same settings
  (``covariance_type``, ``max_iter``, ``tol``, ``reg_covar``, ``init_params="kmeans"``), timed on 20 steps
  (before and after the pujax run, best of the two; BLAS limited to 1 thread, which was faster on this shared
  machine) and extrapolated to 3000 steps. pujax memoises the objective by mask (``cache_size``); the table also
  gives the anchor's time for the same number of GMM fits (what the same memo table would save it).
* Table 1: the 8 cluster-assumption conditions (and, unless --quick, the 2 others); per condition, n_runs data sets
  generated with different seeds (the paper's baselines vary between runs, so its five runs are five data sets),
  one FSCPU search on each (``--covariance``, ``--max-em-iter``). Baselines as the paper:
  SelectKBest(chi2), Lasso(alpha=5e-5) (top-25 |w|), RFE(RandomForestClassifier(100 trees)) (step 1; step 5 in
  --quick). FSR = |selected n relevant| / 25.
* Signal: how well the objective f(phi) of one GMM setting orders random masks by their number of relevant
  features (``part_signal``), a cheap check of a setting before its Table 1 searches.
* Table 3: per run a random 75/25 split, min-max on the training rows, labels s = a random 3 % (Spambase) / 10 %
  (Ionosphere) of the training positives; select half the features rounded up (29 / 17) on (X_train, s); downstream
  classifier ``HistGradientBoostingClassifier(max_iter=100)`` (offline stand-in for the paper's LightGBM with 100
  trees) trained on (X_train[:, sel], s), AUC on the test rows against the true labels; 3 runs; FSCPU with
  ``--covariance`` and ``--max-em-iter``, the baselines unless ``--no-baselines``.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

if __package__ in (None, ""):  # python benchmarks/fscpu.py
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks._common import RESULTS, data_dir, header, load_average, select_device, steal_since_start

# Paper, Table 1 (mean FSR), conditions in the order of pujax.feature_selection.TABLE1_CONDITIONS.
PAPER_T1_BASELINES = {
    "K-Best": [.82, .78, .87, .86, .67, .66, .79, .76, .42, .35],
    "Lasso": [.86, .86, .83, .84, .78, .78, .75, .76, .66, .62],
    "DT-RFE": [.74, .83, .78, .80, .54, .59, .62, .63, 1.0, .89],
    "semi-JMI": [.97, .98, .89, .94, .70, .69, .71, .79, .93, .57],
}
# Paper, Table 3 (mean AUC).
PAPER_T3 = {
    "spambase": {"FSCPU": .844, "FSCPU-MI": .874, "K-Best": .866, "Lasso": .869, "DT-RFE": .841, "semi-JMI": .757},
    "ionosphere": {"FSCPU": .797, "FSCPU-MI": .749, "K-Best": .832, "Lasso": .834, "DT-RFE": .787, "semi-JMI": .821},
}
T3_RATES = {"spambase": 0.03, "ionosphere": 0.10}


# ------------------------------------------------------------------------------------------------ helpers
def minmax_fit(X):
    lo, hi = X.min(0), X.max(0)
    rng = np.where(hi > lo, hi - lo, 1.0)
    return lambda Z: np.clip((Z - lo) / rng, 0.0, None)  # chi2 needs non-negative features


def baseline_supports(Xs, s, k, seed, rfe_step=1, methods=("K-Best", "Lasso", "DT-RFE", "semi-JMI")):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.feature_selection import RFE, SelectKBest, chi2
    from sklearn.linear_model import Lasso

    from pujax.feature_selection import discretize, pairwise_mi, semi_jmi_select

    out = {}
    d = Xs.shape[1]
    if "K-Best" in methods:
        out["K-Best"] = SelectKBest(chi2, k=k).fit(Xs, s).get_support()
    if "Lasso" in methods:
        w = Lasso(alpha=5e-5, max_iter=5000).fit(Xs, s).coef_
        sup = np.zeros(d, bool)
        sup[np.argsort(-np.abs(w), kind="stable")[:k]] = True
        out["Lasso"] = sup
    if "DT-RFE" in methods:
        rf = RandomForestClassifier(100, random_state=seed, n_jobs=1)
        out["DT-RFE"] = RFE(rf, n_features_to_select=k, step=rfe_step).fit(Xs, s).get_support()
    if "semi-JMI" in methods:
        M = np.asarray(pairwise_mi(discretize(Xs.astype(np.float32), 5), s.astype(np.float32), 5))
        sup = np.zeros(d, bool)
        sup[semi_jmi_select(M, k)] = True
        out["semi-JMI"] = sup
    return out


# ------------------------------------------------------------------------------------------------ sklearn anchor
def _np_repair(rng, m, theta, budget):
    """Algorithm 3 with unit costs, numpy (sequential categorical draws)."""
    m = m.copy()
    while m.sum() > budget:
        w = m * (1 - theta)
        m[rng.choice(len(m), p=w / w.sum())] = 0
    while m.sum() < budget and (m == 0).any():
        w = (1 - m) * theta
        m[rng.choice(len(m), p=w / w.sum())] = 1
    return m


def _np_objective(labels, s, K):
    a = np.bincount(labels, weights=s, minlength=K)
    c = np.bincount(labels, minlength=K).astype(float)
    ratio = np.where(c > 0, a / np.maximum(c, 1), -1)
    o = np.argsort(-ratio, kind="stable")
    A, C = np.cumsum(a[o]), np.cumsum(c[o])
    return float(np.max(np.where(C > 0, A * A / (s.sum() * np.maximum(C, 1)), 0)))


def sklearn_search_steps(Xs, s, budget, n_steps, seed, covariance_type="diag", K=10):
    """The FSCPU search with the objective evaluated by sklearn's GaussianMixture; returns (wall, CPU) s per step."""
    from sklearn.mixture import GaussianMixture
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(seed)
    d = Xs.shape[1]
    theta = np.full(d, budget / d)
    eta, eps = 1 / (2 * d), 1 / d
    t0, c0 = time.perf_counter(), time.process_time()
    with threadpool_limits(1):
        for _ in range(n_steps):
            ms = [_np_repair(rng, (rng.random(d) < theta).astype(float), theta, budget) for _ in range(2)]
            fs = []
            for m in ms:
                gm = GaussianMixture(K, covariance_type=covariance_type, max_iter=100, tol=1e-3, reg_covar=1e-6,
                                     init_params="kmeans", random_state=int(rng.integers(2**31)))
                fs.append(_np_objective(gm.fit_predict(Xs[:, m > 0]), s, K))
            theta = np.clip(theta + eta * np.sign(fs[0] - fs[1]) * (ms[0] - ms[1]), eps, 1 - eps)
    return (time.perf_counter() - t0) / n_steps, (time.process_time() - c0) / n_steps


# ------------------------------------------------------------------------------------------------ parts
def spambase_split(seed, rate=0.03):
    from pujax.datasets import load

    X, y = load("spambase", data_dir=data_dir())
    return pu_split(X.astype(np.float64), y, rate, seed)


def pu_split(X, y, rate, seed):
    rng = np.random.default_rng(seed)
    n = len(y)
    perm = rng.permutation(n)
    n_tr = int(round(0.75 * n))
    tr, te = perm[:n_tr], perm[n_tr:]
    pos = np.flatnonzero(y[tr] == 1)
    s = np.zeros(n_tr, int)
    s[rng.choice(pos, max(1, int(round(rate * pos.size))), replace=False)] = 1
    scale = minmax_fit(X[tr])
    return scale(X[tr]), s, scale(X[te]), y[te], y[tr]


SPEED_SETTING = dict(covariance_type="diag", max_em_iter=100)
"""The speed protocol's GMM setting (that of its scikit-learn anchor), whatever FSCPU's defaults."""


def _timed_fit(Xtr, s, **kw):
    from pujax.feature_selection import FSCPU

    t0, c0 = time.perf_counter(), time.process_time()
    sel = FSCPU(29, random_state=0, **kw).fit(Xtr, s)
    return sel, time.perf_counter() - t0, time.process_time() - c0


def part_speed(quick, lines):
    Xtr, s, _, _, _ = spambase_split(0)
    T = 300 if quick else 3000
    n_sk = 5 if quick else 20
    print(f"[speed] Spambase train {Xtr.shape}, {s.sum()} labeled, T = {T}", flush=True)
    sk1, skc1 = sklearn_search_steps(Xtr, s, 29, n_sk, seed=0)
    print(f"[speed] sklearn: {sk1:.3f} s/step ({skc1:.3f} CPU s/step)", flush=True)
    # a T = 1 fit first: its time is ~ the compilation (the T = 3000 fit compiles its own scan again)
    _, t_c, c_c = _timed_fit(Xtr, s, n_iter=1, **SPEED_SETTING)
    print(f"[speed] pujax T = 1 fit (~compilation): {t_c:.1f} s ({c_c:.1f} CPU s)", flush=True)
    sel, t_pj, c_pj = _timed_fit(Xtr, s, n_iter=T, **SPEED_SETTING)
    n_dev = sel.n_devices_
    if n_dev > 1:  # the same search on one device (its own compilation: another T = 1 fit first)
        _timed_fit(Xtr, s, n_iter=1, devices=1, **SPEED_SETTING)
        sel1, t_1, c_1 = _timed_fit(Xtr, s, n_iter=T, devices=1, **SPEED_SETTING)
        same = bool(np.array_equal(sel1.support_, sel.support_))
        print(f"[speed] pujax devices=1: {t_1:.1f} s ({c_1:.1f} CPU s); same selection: {same}", flush=True)
    skipped = float(np.mean(np.isnan(sel.objective_history_[0, :, 0])))
    hit, fits = sel.cache_hit_rate_, sel.n_gmm_fits_
    print(f"[speed] pujax ({n_dev} device(s)): {t_pj:.1f} s ({c_pj:.1f} CPU s) for T = {T} "
          f"(skipped {skipped:.1%} steps, cache hit rate {hit:.1%}, {fits} GMM fits)", flush=True)
    sk2, skc2 = sklearn_search_steps(Xtr, s, 29, n_sk, seed=1)
    print(f"[speed] sklearn: {sk2:.3f} s/step ({skc2:.3f} CPU s/step)", flush=True)
    sk, skc = min(sk1, sk2), min(skc1, skc2)
    sk_total, skc_total = sk * T, skc * T
    # the anchor with the same memoisation (a dict by mask): its time per GMM fit times pujax's number of fits
    skm_total, skmc_total = sk / 2 * fits, skc / 2 * fits
    # full covariances (the paper's setting): short runs (first steps: no cache hits), per GMM fit
    n_full, n_sk_full = (5, 2) if quick else (20, 5)
    _timed_fit(Xtr, s, n_iter=n_full, covariance_type="full", max_em_iter=100)  # compiles
    self_f, tfn, cfn = _timed_fit(Xtr, s, n_iter=n_full, covariance_type="full", max_em_iter=100)  # no compilation
    fits_f = max(self_f.n_gmm_fits_, 1)
    pf, pfc = tfn / fits_f, cfn / fits_f
    skf, skfc = sklearn_search_steps(Xtr, s, 29, n_sk_full, seed=2, covariance_type="full")
    skf, skfc = skf / 2, skfc / 2
    print(f"[speed] full covariance: pujax {pf:.3f} s/fit ({pfc:.3f} CPU), sklearn {skf:.3f} s/fit "
          f"({skfc:.3f} CPU)", flush=True)
    lines += [
        "## Speed: one search on Spambase (select 29 of 57, 3 % labeled)\n",
        f"Setting: covariance_type='diag', EM max_iter=100, tol=1e-3, reg_covar=1e-6, k-means init (greedy "
        f"k-means++, Lloyd), candidates clustered one after the other (candidate_batching='auto' -> 'map' on CPU), "
        f"objective memoised by mask (cache_size=4096); T = {T}. The sklearn anchor (same search, `GaussianMixture` "
        f"with the same settings, BLAS 1 thread, a fresh fit for every candidate as in the paper) is timed on {n_sk} "
        f"steps before and after the pujax run (best of the two) and extrapolated; the memoised anchor is its time "
        f"per fit times the number of fits pujax ran (what the same cache would save the sklearn search).\n",
        f"| | wall s (T = {T}) | CPU s (process time) | ratio pujax / sklearn (wall, CPU) | paper |",
        "|---|---|---|---|---|",
        f"| sklearn GaussianMixture objective (extrapolated, {sk:.3f} s/step) | {sk_total:.0f} | {skc_total:.0f} "
        f"| | |",
        f"| sklearn, memoised by mask ({fits} fits) | {skm_total:.0f} | {skmc_total:.0f} | | |",
        f"| pujax FSCPU, defaults (devices=None: {n_dev} device(s); jit, incl. compilation) | {t_pj:.1f} | {c_pj:.1f} "
        f"| {t_pj / sk_total:.3f}, "
        f"{c_pj / skc_total:.3f} (memoised anchor: {t_pj / skm_total:.3f}, {c_pj / skmc_total:.3f}) "
        f"| > 7200 s (\"over two hours\", full covariance) |",
        f"| pujax FSCPU, a T = 1 fit (~ compilation, included above) | {t_c:.1f} | {c_c:.1f} | | |",
    ]
    if n_dev > 1:
        lines += [
            f"| pujax FSCPU, devices=1 (one device, incl. compilation) | {t_1:.1f} | {c_1:.1f} | "
            f"{t_1 / sk_total:.3f}, {c_1 / skc_total:.3f} | |",
            "",
            f"The default row splits the two candidates of every step across {n_dev} JAX CPU devices (`devices=None`; "
            f"this benchmark sets `jax_num_cpu_devices` = {n_dev}, `--cpu-devices`); the anchor fits them one after "
            f"the other on one core, as the paper's code. devices=1 selects the same features: {same}.",
        ]
    lines += [
        "",
        f"Cache hit rate {hit:.1%} ({fits} GMM fits for {2 * T} candidates); steps whose two candidates were "
        f"identical (evaluation skipped, zero update): {skipped:.1%}.",
        "",
        f"Full covariances (the paper's setting), per GMM fit (first {n_full} steps, no cache hits yet): pujax "
        f"{pf:.3f} s wall / {pfc:.3f} s CPU, sklearn {skf:.3f} s wall / {skfc:.3f} s CPU ({n_sk_full} steps). "
        f"With the fit count of the diag search above ({fits}; the full-covariance search's own count was not "
        f"measured), a full-covariance search would take ~{pf * fits:.0f} s wall / {pfc * fits:.0f} s CPU here "
        f"(sklearn un-memoised: {skf * 2 * T:.0f} s wall / {skfc * 2 * T:.0f} s CPU).",
        "",
    ]
    return dict(pujax_s=t_pj, sklearn_s=sk_total, ratio=t_pj / sk_total, hit_rate=hit, fits=fits)


def part_table1(quick, lines, conditions=None, runs=None, covariance_type="diag", out=None, n_iter=3000,
                rfe_step=None, first_run=0, max_em_iter=100, baselines=True):
    """Table 1: per condition and run one data set, the baselines (unless ``baselines=False``) and one FSCPU search
    (the selector's defaults except ``covariance_type`` and ``max_em_iter``). Runs ``first_run`` .. ``runs - 1``
    of every condition (to resume an interrupted table: run r always uses data seed and FSCPU seed
    1000 * condition + r). The partial table is rewritten to ``out`` after every run."""
    from pujax.feature_selection import FSCPU, TABLE1_CONDITIONS, feature_selection_recall, make_fscpu_synthetic

    n_runs = runs or (2 if quick else 5)
    if not 0 <= first_run < n_runs:
        raise ValueError(f"first_run={first_run} must be in [0, runs={n_runs}): the index of the first run to do.")
    T = n_iter
    conds = conditions if conditions is not None else ([0, 4] if quick else list(range(10)))
    rfe_step = rfe_step or (5 if quick else 1)
    rows = []

    def table():
        tl = [
            f"## Table 1: FSR on the artificial data (T = {T}, covariance_type='{covariance_type}', max_em_iter="
            f"{max_em_iter}, DT-RFE step {rfe_step}; ours (paper))\n",
            "| cluster assumption | labeled | neg. clusters | pos. clusters | runs | FSCPU | K-Best | Lasso | DT-RFE | "
            "semi-JMI | FSCPU wall / CPU s per search |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for ci, c, fsr, base, dts, cps in rows:
            if not fsr:
                continue
            cells = [f"{np.mean(fsr):.2f}±{np.std(fsr):.2f} ({c.paper_fscpu:.2f})"]
            for k in ("K-Best", "Lasso", "DT-RFE", "semi-JMI"):
                cells.append(f"{np.mean(base[k]):.2f} ({PAPER_T1_BASELINES[k][ci]:.2f})" if k in base else
                             f"not run ({PAPER_T1_BASELINES[k][ci]:.2f})")
            tl.append(f"| {'yes' if c.cluster_assumption else 'no'} | {c.labeled_rate:.0%} | "
                      f"{c.n_negative_clusters or '-'} | {c.n_positive_clusters or '-'} | {len(fsr)} | "
                      + " | ".join(cells) + f" | {np.mean(dts):.0f} / {np.mean(cps):.0f} |")
        tl.append("")
        tl.append("Per-run FSCPU FSR: " + "; ".join(
            f"condition {ci}: " + ", ".join(f"{v:.2f}" for v in fsr) for ci, _, fsr, _, _, _ in rows if fsr) + "\n")
        return tl

    for ci in conds:
        c = TABLE1_CONDITIONS[ci]
        fsr, base, dts, cps = [], {}, [], []
        rows.append((ci, c, fsr, base, dts, cps))
        for r in range(first_run, n_runs):
            X, y, s, rel = make_fscpu_synthetic(c.cluster_assumption, c.labeled_rate, c.n_negative_clusters,
                                                c.n_positive_clusters, random_state=1000 * ci + r)
            Xs = minmax_fit(X)(X)
            for k, sup in (baseline_supports(Xs, s, 25, r, rfe_step=rfe_step) if baselines else {}).items():
                base.setdefault(k, []).append(feature_selection_recall(sup, rel))
            t0, c0 = time.perf_counter(), time.process_time()
            sel = FSCPU(25, n_iter=T, covariance_type=covariance_type, max_em_iter=max_em_iter,
                        random_state=1000 * ci + r).fit(X, s)
            dts.append(time.perf_counter() - t0)
            cps.append(time.process_time() - c0)
            fsr.append(feature_selection_recall(sel.get_support(), rel))
            print(f"[table1] condition {ci} run {r}: FSCPU FSR {fsr[-1]:.2f} (mean theta relevant "
                  f"{sel.scores_[rel].mean():.2f}); " + ", ".join(f"{k} {v[-1]:.2f}" for k, v in base.items())
                  + f"; search {dts[-1]:.0f} s wall, {cps[-1]:.0f} s CPU", flush=True)
            if out is not None:
                pathlib.Path(out).write_text("\n".join(lines + table()) + "\n")
    lines += table()
    return rows


def part_signal(lines, conditions=(0,), settings="diag,full,full:20", n_masks=120):
    """How well f(phi) orders masks by their number of relevant features, per GMM setting ("cov" or
    "cov:max_em_iter"), on the data set of run 0 of each Table 1 condition: random masks of 25 features with
    8-17 relevant ones (the search's start, theta = 1/2) and with 17-25 (near its end). Reports the share of mask
    pairs with different relevant counts that f puts in the same order (ties count as wrong) and Spearman's rho."""
    import jax
    import jax.numpy as jnp
    from scipy.stats import spearmanr

    from pujax.feature_selection import TABLE1_CONDITIONS, make_fscpu_synthetic
    from pujax.feature_selection.igo import SearchConfig, make_mask_objective

    lines += ["## Objective signal: f(phi) vs the number of relevant features (random masks of 25)\n",
              f"{n_masks} masks per range, the data set of run 0 (seed 1000 x condition), GMM keys fixed; 'agree' = "
              "share of pairs ordered like their relevant counts.\n",
              "| condition | setting | agree 8-17 relevant | rho 8-17 | agree 17-25 | rho 17-25 | s per mask |",
              "|---|---|---|---|---|---|---|"]
    for ci in conditions:
        c = TABLE1_CONDITIONS[ci]
        X, _, s, rel = make_fscpu_synthetic(c.cluster_assumption, c.labeled_rate, c.n_negative_clusters,
                                            c.n_positive_clusters, random_state=1000 * ci)
        Xs = minmax_fit(X)(X)
        Xj = jnp.asarray(Xs - Xs.mean(axis=0), jnp.float32)
        sj = jnp.asarray(s, jnp.float32)
        irrelevant = np.setdiff1d(np.arange(X.shape[1]), rel)
        rng = np.random.default_rng(0)
        ranges = {}
        for lo, hi in ((8, 17), (17, 25)):
            counts = rng.integers(lo, hi + 1, n_masks)
            masks = np.zeros((n_masks, X.shape[1]), np.float32)
            for m, r in zip(masks, counts):
                m[rng.choice(rel, r, replace=False)] = 1
                m[rng.choice(irrelevant, 25 - r, replace=False)] = 1
            ranges[(lo, hi)] = (jnp.asarray(masks), counts)
        keys = jax.random.split(jax.random.key(1), n_masks)
        for setting in settings.split(","):
            cov, _, it = setting.partition(":")
            config = SearchConfig(width=25, covariance_type=cov, max_iter=int(it or 100))
            f = jax.jit(lambda k, m, config=config: jax.lax.map(
                lambda a: make_mask_objective(Xj, sj, config)(*a), (k, m)))
            cells, t0 = [], time.perf_counter()
            for masks, counts in ranges.values():
                v = np.asarray(f(keys, masks))
                i, j = np.triu_indices(n_masks, 1)
                d = counts[i] - counts[j]
                agree = np.mean(np.sign(v[i] - v[j])[d != 0] == np.sign(d[d != 0]))
                cells += [f"{agree:.3f}", f"{spearmanr(v, counts)[0]:.3f}"]
            per_mask = (time.perf_counter() - t0) / (2 * n_masks)
            lines.append(f"| {ci} | {setting} | " + " | ".join(cells) + f" | {per_mask:.3f} |")
            print(lines[-1], flush=True)
    lines.append("")


def part_table3(quick, lines, runs=None, out=None, rfe_step=None, datasets=("spambase", "ionosphere"),
                covariance_type="diag", max_em_iter=100, baselines=True):
    """Table 3 protocol (FSCPU with ``covariance_type`` and ``max_em_iter``; the baselines unless
    ``baselines=False``); the partial table is rewritten to ``out`` after every run."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score

    from pujax.datasets import load
    from pujax.feature_selection import FSCPU

    n_runs = runs or (1 if quick else 3)
    T = 300 if quick else 3000
    rfe_step = rfe_step or (5 if quick else 1)
    res, times = {}, {}
    methods = ["FSCPU", "K-Best", "Lasso", "DT-RFE", "semi-JMI", "all features"]
    if not baselines:
        methods = ["FSCPU", "all features"]
    setting = f"covariance_type={covariance_type!r}, max_em_iter={max_em_iter}"

    def table():
        tl = [
            f"## Table 3 protocol: downstream AUC (up to {n_runs} runs, T = {T}, FSCPU {setting}, DT-RFE step "
            f"{rfe_step}; ours (paper))\n",
            "HistGradientBoostingClassifier(max_iter=100) is the offline stand-in for the paper's LightGBM (100 "
            "trees).\n",
            "| data set | labeled | runs | " + " | ".join(methods) + " | FSCPU wall / CPU s per search |",
            "|---|---|---|" + "---|" * (len(methods) + 1),
        ]
        for name, per in res.items():
            cells = []
            for m in methods:
                paper = PAPER_T3[name].get(m)
                cells.append(f"{np.mean(per[m]):.3f}±{np.std(per[m]):.3f}" + (f" ({paper:.3f})" if paper else ""))
            tw = np.mean([t[0] for t in times[name]]), np.mean([t[1] for t in times[name]])
            tl.append(f"| {name} | {T3_RATES[name]:.0%} | {len(per['FSCPU'])} | " + " | ".join(cells)
                      + f" | {tw[0]:.0f} / {tw[1]:.0f} |")
        tl.append("")
        return tl

    for name in datasets:
        X, y = load(name, data_dir=data_dir())
        X = X.astype(np.float64)
        k = int(np.ceil(X.shape[1] / 2))
        for r in range(n_runs):
            Xtr, s, Xte, yte, _ = pu_split(X, y, T3_RATES[name], seed=100 + r)
            sups = baseline_supports(Xtr, s, k, r, rfe_step=rfe_step) if baselines else {}
            t0, c0 = time.perf_counter(), time.process_time()
            sups["FSCPU"] = FSCPU(k, n_iter=T, covariance_type=covariance_type, max_em_iter=max_em_iter,
                                  random_state=r).fit(Xtr, s).get_support()
            times.setdefault(name, []).append((time.perf_counter() - t0, time.process_time() - c0))
            sups["all features"] = np.ones(X.shape[1], bool)
            for meth, sup in sups.items():
                clf = HistGradientBoostingClassifier(max_iter=100, random_state=r).fit(Xtr[:, sup], s)
                auc = roc_auc_score(yte, clf.predict_proba(Xte[:, sup])[:, 1])
                res.setdefault(name, {}).setdefault(meth, []).append(auc)
            print(f"[table3] {name} run {r}: " + ", ".join(f"{m} {v[-1]:.3f}" for m, v in res[name].items())
                  + f" (FSCPU search {times[name][-1][0]:.0f} s wall, {times[name][-1][1]:.0f} s CPU)", flush=True)
            if out is not None:
                pathlib.Path(out).write_text("\n".join(lines + table()) + "\n")
    lines += table()
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short run: fewer steps, runs and conditions")
    ap.add_argument("--parts", default="speed,table1,table3")
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--conditions", default=None, help="Table 1 condition indices, e.g. 0,4 (default: all)")
    ap.add_argument("--runs", type=int, default=None, help="Table 1 runs per condition")
    ap.add_argument("--first-run", type=int, default=0,
                    help="Table 1: start at this run index (resume an interrupted table; seeds depend on the index)")
    ap.add_argument("--covariance", default=None, choices=["diag", "full", "tied", "spherical"],
                    help="FSCPU covariance_type (Tables 1, 3; default: FSCPU's)")
    ap.add_argument("--signal-settings", default="diag,tied,spherical,full,full:20",
                    help="signal part: GMM settings, cov or cov:max_em_iter")
    ap.add_argument("--max-em-iter", type=int, default=None, help="FSCPU max_em_iter (Tables 1, 3; default: FSCPU's)")
    ap.add_argument("--no-baselines", action="store_true", help="Tables 1, 3: FSCPU only (no K-Best, Lasso, ...)")
    ap.add_argument("--rfe-step", type=int, default=None, help="DT-RFE features removed per step (Tables 1, 3)")
    ap.add_argument("--t3-runs", type=int, default=None, help="Table 3 runs per data set")
    ap.add_argument("--datasets", default="spambase,ionosphere", help="Table 3 data sets")
    ap.add_argument("--cpu-devices", type=int, default=os.cpu_count() or 1,
                    help="JAX CPU devices (jax_num_cpu_devices); FSCPU's devices=None splits the candidates "
                         "across them")
    ap.add_argument("--out", default=str(RESULTS / "fscpu.md"))
    args = ap.parse_args(argv)
    from pujax.feature_selection import FSCPU

    defaults = FSCPU().get_params()  # Tables 1 and 3 run FSCPU's defaults unless --covariance / --max-em-iter
    args.covariance = args.covariance or defaults["covariance_type"]
    args.max_em_iter = args.max_em_iter or defaults["max_em_iter"]
    if args.cpu_devices > 1:  # expose the cores as JAX CPU devices (before any JAX computation)
        import jax

        jax.config.update("jax_num_cpu_devices", args.cpu_devices)
    select_device(args.device)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    lines = [header("FSCPU benchmark (Uchikoshi & Akimoto 2025)"),
             "The machine is shared with other jobs (see the load averages), so absolute times are inflated and "
             "noisy; anchor and pujax are timed in the same run, and process CPU time is reported beside wall time.\n"]
    if "speed" in parts:
        part_speed(args.quick, lines)
    if "table1" in parts:
        conds = None if args.conditions is None else [int(c) for c in args.conditions.split(",")]
        part_table1(args.quick, lines, conds, args.runs, args.covariance, out=args.out, rfe_step=args.rfe_step,
                    first_run=args.first_run, max_em_iter=args.max_em_iter, baselines=not args.no_baselines)
    if "signal" in parts:
        conds = (0,) if args.conditions is None else [int(c) for c in args.conditions.split(",")]
        part_signal(lines, conds, args.signal_settings)
    if "table3" in parts:
        datasets = tuple(x.strip() for x in args.datasets.split(",") if x.strip())
        part_table3(args.quick, lines, args.t3_runs, out=args.out, rfe_step=args.rfe_step, datasets=datasets,
                    covariance_type=args.covariance, max_em_iter=args.max_em_iter,
                    baselines=not args.no_baselines)
    lines.append(f"- load average at end (1/5/15 min): {load_average()}; host CPU steal during the run: "
                 f"{steal_since_start()}")
    text = "\n".join(lines) + "\n"
    print(text)
    pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
