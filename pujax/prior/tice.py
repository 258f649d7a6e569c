r"""TIcE: Bekker & Davis, *Estimating the class prior in positive and unlabeled data through decision tree
induction*, AAAI 2018.

For any subset S of the data, SCAR gives :math:`c \ge L_S/|S|` in expectation, with the one-sided finite-sample
lower bound :math:`\hat c_S = L_S/|S| - \sqrt{c(1-c)(1-\delta)/(\delta |S|)}` and
:math:`\delta = \max(0.025, 1/(1+0.004\,|S_{\text{root}}|))`. A greedy tree (split criterion max-bepp,
:math:`\max_{\text{child}} L/(|S|+k)`, features split into 4 intervals) is grown on one fold and the bound is
evaluated on the other folds; :math:`\hat c` is the largest bound found, averaged over folds, and the procedure is
repeated with the new :math:`c` in the bound. :math:`\theta` by (C2). Features are cut at their global quartiles
(the paper cuts min-max-normalised features at 0.25/0.5/0.75; quartiles coincide for uniform features and do not
leave empty intervals on skewed ones). The bootstrap resamples rows and re-evaluates the bound on the best subsets
found by the tree search.
"""
from __future__ import annotations

import heapq
from functools import partial
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

from pujax._compile import jit
from pujax.devices import device_mesh, to_host
from pujax.linalg import matmul
from pujax.preprocessing import duplicate_groups
from pujax.prior._common import (
    batch_size,
    bucket,
    c_to_prior,
    is_concrete,
    map_resamples,
    pad,
    prior_from_label_frequency,
    row_counts,
    seed_from,
)
from pujax.prior._scores import MAX_GROUP, stratified_folds
from pujax.validation import SPARSE_FORMATS, check_X_s

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

    from pujax._typing import RandomStateLike

__all__ = ["tice_lower_bound", "tice_label_frequency"]


def tice_lower_bound(n_labeled: ArrayLike, n_total: int, c_prior: float, delta: float, min_size: int = 1) -> Any:
    """TIcE lower bound on the label frequency from a subset: ``L/T - sqrt(c(1-c)(1-delta)/(delta T))``.

    ``n_labeled`` = L labeled rows among ``n_total`` = T rows of the subset, ``c_prior`` the current estimate of c
    used in the variance term, ``delta`` the confidence parameter (``delta = 1`` gives L/T). Subsets with
    ``T < min_size`` give 0. Elementwise, jit-able.
    """
    xp = jnp if not (is_concrete(n_labeled) and is_concrete(n_total)) else np
    L = xp.asarray(n_labeled, dtype=float) if xp is np else jnp.asarray(n_labeled)
    T = xp.asarray(n_total, dtype=float) if xp is np else jnp.asarray(n_total)
    safe_T = xp.where(T > 0, T, 1.0)
    bound = L / safe_T - xp.sqrt(c_prior * (1.0 - c_prior) * (1.0 - delta) / (delta * safe_T))
    return xp.where(T < max(min_size, 1), 0.0, bound)


def _pick_delta(n):
    return max(0.025, 1.0 / (1.0 + 0.004 * n))


def _sorted_column_value(neg, n_zero, pos, k):
    """Element ``k`` (array) of the sorted column made of the sorted ``neg`` values, ``n_zero`` zeros and the sorted
    ``pos`` values."""
    k = np.asarray(k)
    out = np.zeros(k.shape)
    lo, hi = k < neg.size, k >= neg.size + n_zero
    out[lo] = neg[k[lo]]
    out[hi] = pos[k[hi] - neg.size - n_zero]
    return out


def _sparse_quartile_codes(X):
    """:func:`_quartile_codes` of a scipy sparse matrix, column by column from its stored values (numpy's linear
    quantiles of the column with its zeros, without a dense copy); the codes are a dense uint8 matrix."""
    C = sp.csc_matrix(X)
    n, d = C.shape
    codes = np.empty((n, d), dtype=np.uint8)
    h = np.array([0.25, 0.5, 0.75]) * (n - 1)
    k0 = np.floor(h).astype(np.int64)
    for j in range(d):
        rows, v = C.indices[C.indptr[j]:C.indptr[j + 1]], np.asarray(C.data[C.indptr[j]:C.indptr[j + 1]], np.float64)
        v = np.sort(v)
        neg, pos = v[v < 0], v[v > 0]
        n_zero = n - neg.size - pos.size
        lo, hi = _sorted_column_value(neg, n_zero, pos, k0), _sorted_column_value(neg, n_zero, pos,
                                                                                   np.minimum(k0 + 1, n - 1))
        cuts = np.unique(lo + (h - k0) * (hi - lo))
        col_min = min(v[0] if v.size else np.inf, 0.0 if n_zero else np.inf)
        cuts = cuts[cuts > col_min]
        codes[:, j] = np.searchsorted(cuts, 0.0, side="right")
        codes[rows, j] = np.searchsorted(cuts, C.data[C.indptr[j]:C.indptr[j + 1]], side="right")
    return codes


def _quartile_codes(X):
    """Per-feature interval codes in {0, 1, 2, 3}: cut at the (distinct) global quartiles of each feature."""
    if sp.issparse(X):
        return _sparse_quartile_codes(X)
    n, d = X.shape
    codes = np.zeros((n, d), dtype=np.uint8)
    qs = np.quantile(X, [0.25, 0.5, 0.75], axis=0)
    for j in range(d):
        cuts = np.unique(qs[:, j])
        cuts = cuts[cuts > X[:, j].min()]  # a cut at the minimum would leave an empty first interval
        codes[:, j] = np.searchsorted(cuts, X[:, j], side="right").astype(np.uint8)
    return codes


def _tice_fold(codes, s, train_idx, est_idx, c_prior, delta, max_splits, min_size, k_bepp, keep_top):
    """One TIcE tree on ``train_idx``, bound evaluated on ``est_idx``. Returns (c_best, n_splits, top subsets)."""
    d = codes.shape[1]
    offsets = (np.arange(d, dtype=np.int64) * 4)[None, :]
    scale = len(est_idx) / max(len(train_idx), 1)
    L_est_root = float(s[est_idx].sum())
    c_best = L_est_root / max(len(est_idx), 1) if len(est_idx) >= min_size else 0.0
    top = []  # min-heap of (bound, counter, est rows) of the best subsets (bootstrap reuses them)
    counter = 0

    def remember(bound, rows):
        nonlocal counter
        counter += 1
        item = (bound, counter, rows)
        if len(top) < keep_top:
            heapq.heappush(top, item)
        elif bound > top[0][0]:
            heapq.heapreplace(top, item)

    def train_bound(rows):
        T = len(rows)
        L = float(s[rows].sum())
        return float(tice_lower_bound(L, T, c_prior, delta, min_size=1)) if T > 0 else 0.0

    queue = [(-train_bound(train_idx), -float(s[train_idx].sum()), 0, train_idx, est_idx, np.ones(d, bool))]
    tie = 1
    n_splits = 0
    min_labeled = 1.0
    while queue and n_splits < max_splits:
        n_splits += 1
        _, _, _, tr, es, avail = heapq.heappop(queue)
        feats = np.flatnonzero(avail)
        if feats.size == 0:
            continue
        ctr = codes[tr][:, feats].astype(np.int64) + offsets[:, : feats.size]
        T_tr = np.bincount(ctr.ravel(), minlength=4 * feats.size).reshape(feats.size, 4)
        L_tr = np.bincount(ctr.ravel(), weights=np.repeat(s[tr], feats.size).astype(float),
                           minlength=4 * feats.size).reshape(feats.size, 4)
        # a feature is useless when no child can hold enough labeled rows to beat c_best (train counts scaled to
        # the size of the estimate part: the tree is induced from the train fold only)
        useless = L_tr.max(axis=1) * scale < min_labeled
        score = np.where(T_tr > 0, L_tr / (T_tr + k_bepp), 0.0).max(axis=1)  # max-bepp criterion
        score = np.where(useless, -1.0, score)
        b = int(np.argmax(score))
        if score[b] <= 0:
            continue
        f = feats[b]
        es_codes = codes[es, f]
        tr_codes = codes[tr, f]
        if np.unique(es_codes).size < 2:  # fake split: all estimate rows fall in one interval
            continue
        new_avail = avail.copy()
        new_avail[feats[useless]] = False
        new_avail[f] = False
        children = []
        for v in range(4):
            es_child = es[es_codes == v]
            tr_child = tr[tr_codes == v]
            if es_child.size:
                bound = float(tice_lower_bound(float(s[es_child].sum()), es_child.size, c_prior, delta, min_size))
                c_best = max(c_best, bound)
                if es_child.size >= min_size:
                    remember(bound, es_child)
            children.append((tr_child, es_child))
        min_labeled = c_prior * (1 - c_prior) * (1 - delta) / (delta * (1 - c_best) ** 2) if c_best < 1 else np.inf
        for tr_child, es_child in children:
            L_tr_child = float(s[tr_child].sum())
            if L_tr_child * scale <= min_labeled or tr_child.size <= min_size:
                continue
            if L_tr_child == 0 or L_tr_child == tr_child.size:  # pure: nothing left to find
                continue
            heapq.heappush(queue, (-train_bound(tr_child), -L_tr_child, tie, tr_child, es_child, new_avail))
            tie += 1
    return c_best, n_splits, sorted(top, reverse=True)


def tice_label_frequency(X: ArrayLike, s: ArrayLike, n_folds: int = 5, n_iterations: int = 2, max_splits: int = 500,
                         min_size: int = 10, max_bepp: int = 5, delta: float | None = None,
                         random_state: RandomStateLike = None, keep_top: int = 32) -> tuple[float, dict]:
    """TIcE estimate of the label frequency c (Bekker & Davis 2018) on validated ``X``, ``s``.

    Returns ``(c, info)`` where ``info`` holds per-iteration fold estimates, the confidence ``delta`` used, the
    number of splits per fold, and the best subsets of the last iteration (for the bootstrap).
    """
    X, s = check_X_s(X, s, accept_sparse=SPARSE_FORMATS)
    rng = np.random.default_rng(seed_from(random_state))
    codes = _quartile_codes(X)
    folds = stratified_folds(duplicate_groups(X, MAX_GROUP), s, n_folds, rng)
    c_est = 0.5
    its = []
    splits = []
    subsets = []
    deltas = []
    for _ in range(n_iterations):
        cs, sp_it, sub_it, d_it = [], [], [], []
        for f in range(n_folds):
            tr = np.flatnonzero(folds == f)
            es = np.flatnonzero(folds != f)
            dl = float(delta) if delta is not None else _pick_delta(es.size)
            c_f, n_sp, top = _tice_fold(codes, s, tr, es, c_est, dl, max_splits, min_size, max_bepp, keep_top)
            cs.append(float(c_f))
            sp_it.append(int(n_sp))
            sub_it.append((es, [t[2] for t in top]))
            d_it.append(dl)
        # the bound of the whole estimate set uses delta = 1, so c >= L/T always holds for the fold estimate
        c_new = float(np.mean(cs))
        its.append(cs)
        splits.append(sp_it)
        subsets = sub_it
        deltas = d_it
        c_prior_last = c_est
        c_est = min(max(c_new, 1e-12), 1.0)
    info = {"fold_estimates": its, "n_splits": splits, "deltas": deltas, "c_prior_last": c_prior_last,
            "subsets": subsets}
    return c_est, info


@partial(jit, "kernel", static_argnames=("n_folds", "n_bootstrap", "batch_size", "mesh"))
def _tice_boot_jit(key, M, is_root, fold_of, deltas, s, n, c_prior, min_size, n_folds, n_bootstrap, batch_size,
                   mesh):
    size = s.shape[0]
    dt = M.dtype

    def one(k):
        w = row_counts(k, size, n, dt)
        T = matmul(M, w)
        L = matmul(M, w * s)
        d = jnp.where(is_root, 1.0, deltas)
        safe_T = jnp.where(T > 0, T, 1.0)
        bound = L / safe_T - jnp.sqrt(c_prior * (1.0 - c_prior) * (1.0 - d) / (d * safe_T))
        bound = jnp.where(T < min_size, 0.0, bound)
        per_fold = jax.ops.segment_max(bound, fold_of, num_segments=n_folds)  # padding rows have id n_folds
        c = jnp.clip(jnp.mean(per_fold), 1e-12, 1.0)
        n_l = jnp.sum(w * s)
        return c_to_prior(c, n_l, jnp.sum(w) - n_l)

    return map_resamples(one, key, n_bootstrap, batch_size, mesh)


def _tice_bootstrap(key, info, s, n_bootstrap, min_size, devices=None):
    """Bootstrap of the TIcE estimate: rows resampled, bound re-evaluated on the root and best subsets per fold."""
    n = s.shape[0]
    n_folds = len(info["subsets"])
    rows, is_root, fold_of, deltas = [], [], [], []
    for f, (es, tops) in enumerate(info["subsets"]):
        for j, r in enumerate([es] + list(tops)):
            rows.append(r)
            is_root.append(j == 0)
            fold_of.append(f)
            deltas.append(info["deltas"][f])
    n_rows, n_cols = bucket(len(rows)), bucket(n)
    M = np.zeros((n_rows, n_cols), dtype=np.float32)
    for i, r in enumerate(rows):
        M[i, r] = 1.0
    n_pad = n_rows - len(rows)
    dt = np.dtype(jnp.result_type(float))
    put = jax.device_put  # jnp.asarray of host data would compile a small program per shape and dtype
    return to_host(_tice_boot_jit(
        key, put(M.astype(dt)), put(np.array(is_root + [False] * n_pad)),
        put(np.array(fold_of + [n_folds] * n_pad, np.int32)), put(np.array(deltas + [1.0] * n_pad, dt)),
        pad(np.asarray(s, dt), n_cols, 0.0), n, put(np.asarray(info["c_prior_last"], dt)), float(min_size), n_folds,
        n_bootstrap,
        batch_size(n_bootstrap, n_rows + n_cols), device_mesh(devices)))


def _run(ctx, *, n_folds, max_splits, min_size, max_bepp, n_iterations, delta):
    c_hat, info = tice_label_frequency(ctx.X, ctx.s, n_folds=n_folds, n_iterations=n_iterations,
                                       max_splits=max_splits, min_size=min_size, max_bepp=max_bepp, delta=delta,
                                       random_state=ctx.seed)
    raw = float(np.clip(prior_from_label_frequency(c_hat, ctx.n_l, ctx.n_u), 0.0, 1.0))
    diag = dict(c_lower_bound=float(c_hat), fold_estimates=info["fold_estimates"], n_splits=info["n_splits"],
                deltas=info["deltas"], max_bepp=max_bepp, min_size=min_size)
    boot = _tice_bootstrap(ctx.key, info, ctx.s, ctx.n_bootstrap, min_size, ctx.devices)
    return raw, boot, None, diag


def _method():
    from pujax.prior._registry import Method, opt_float, opt_int

    options = {"n_folds": (5, opt_int(2)), "max_splits": (500, opt_int()), "min_size": (10, opt_int()),
               "max_bepp": (5, opt_int(0)), "n_iterations": (2, opt_int()),
               "delta": (None, opt_float(0.0, 1.0, allow_none=True))}
    return Method("tice", options, _run, reference="Bekker & Davis 2018")
