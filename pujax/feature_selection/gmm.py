"""Masked Gaussian-mixture EM in JAX: cluster the rows of ``X`` restricted to a feature mask.

This is the clustering step of FSCPU's objective (Uchikoshi & Akimoto 2025, Algorithm 1, lines 3-4: "split
D_L^phi U D_U^phi in K clusters"). The paper used ``sklearn.mixture.GaussianMixture`` with its defaults (full
covariance, k-means initialisation, ``tol=1e-3``, ``max_iter=100``, ``reg_covar=1e-6``); this module re-derives the
same EM in pure JAX so that it can be jit-compiled and ``vmap``-ed over many feature masks and random keys.

Masking ("unselected features contribute nothing")
    The data are given on a *compact* column layout ``Xc`` (``n x p``) with a column-validity vector ``valid``
    (``p``, 1 = the column is a selected feature, 0 = padding). Padding columns must hold zeros; every statistic
    ignores them exactly: their means are 0, their variances are replaced by 1 (diagonal) or their rows/columns of
    the covariance by the identity (full, tied), and the ``log(2 pi)`` constant counts valid columns only. Hence
    the fit on ``(Xc, valid)`` equals the fit on the valid columns alone (same initial responsibilities), which
    :func:`compact_columns` exploits: a mask over ``d`` features becomes a fixed-width ``n x p`` gather, so a batch
    of masks with at most ``p`` selected features costs ``p`` (not ``d``) columns each.

Steps (scikit-learn's order, so that the results match ``GaussianMixture`` given the same initialisation):
    1. initial responsibilities: hard labels of k-means (greedy k-means++ seeding + Lloyd iterations);
    2. parameters from the responsibilities (M-step);
    3. repeat E-step / M-step until the change of the mean log-likelihood is below ``tol`` or ``max_iter``;
    4. final E-step: labels = argmax of the responsibilities.
All loops are ``lax`` loops with static shapes; under ``vmap`` a ``while_loop`` runs until every batch member has
converged (members that converged earlier keep their state).
"""
from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from pujax._compile import jit
from pujax.linalg import HIGHEST, gram, matmul

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = [
    "COVARIANCE_TYPES",
    "compact_columns",
    "kmeans_plusplus",
    "kmeans",
    "gmm_m_step",
    "gmm_log_resp",
    "gmm_em",
    "gmm_fit_predict",
    "masked_gmm_labels",
]

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _eps(dtype):
    return jnp.finfo(dtype).eps


def compact_columns(X: ArrayLike, mask: ArrayLike, width: int) -> tuple[jax.Array, jax.Array]:
    """Gather the selected columns of ``X`` into a fixed ``width``: returns ``(Xc, valid)``.

    ``mask`` is a 0/1 vector over the ``d`` features; its ones are taken in increasing column order and padded
    with zero columns (``valid = 0``) up to ``width``. If the mask has more than ``width`` ones, only the first
    ``width`` are kept (callers size ``width`` to the largest feasible selection). Jit- and vmap-able.
    """
    mask = jnp.asarray(mask)
    d = X.shape[1]
    on = mask > 0
    # stable order: selected columns first, in increasing index order
    order = jnp.argsort(jnp.where(on, 0, 1) * d + jnp.arange(d))
    idx = order[:width] if width <= d else jnp.concatenate([order, jnp.zeros(width - d, order.dtype)])
    valid = on[idx]
    if width > d:
        valid = valid & (jnp.arange(width) < d)
    Xc = jnp.where(valid[None, :], X[:, idx], 0.0).astype(X.dtype)
    return Xc, valid.astype(X.dtype)


# Internally rows are on the last axis ("transposed" layout, (features, n) and (k, n)): on XLA:CPU the products
# (k x p) @ (p x n) and (k x n) @ (n x p) are several times faster than (n x p) @ (p x k) for small k.


def kmeans_plusplus(key, X, n_clusters, n_local_trials=None):
    """Greedy k-means++ seeding (Arthur & Vassilvitskii 2007, with ``2 + log k`` local trials as scikit-learn).

    Returns ``(n_clusters, p)`` centers chosen among the rows of ``X``.
    """
    n = X.shape[0]
    if n_local_trials is None:
        n_local_trials = 2 + int(math.log(n_clusters))
    XT = X.T
    x_sq = jnp.sum(X * X, axis=1)
    key, sub = jax.random.split(key)
    first = jax.random.randint(sub, (), 0, n)
    centers = jnp.zeros((n_clusters, X.shape[1]), X.dtype).at[0].set(X[first])
    closest = jnp.maximum(x_sq - 2.0 * matmul(X[first], XT) + x_sq[first], 0.0)

    def body(c, carry):
        centers, closest, key = carry
        key, sub = jax.random.split(key)
        pot = jnp.sum(closest)
        cum = jnp.cumsum(closest)
        r = jax.random.uniform(sub, (n_local_trials,), X.dtype) * pot
        cand = jnp.clip(jnp.searchsorted(cum, r), 0, n - 1)
        cx = X[cand]  # (trials, p)
        d_cand = jnp.maximum(x_sq[None, :] - 2.0 * matmul(cx, XT) + x_sq[cand][:, None], 0.0)
        d_new = jnp.minimum(closest[None, :], d_cand)
        best = jnp.argmin(jnp.sum(d_new, axis=1))
        centers = centers.at[c].set(cx[best])
        return centers, d_new[best], key

    centers, _, _ = lax.fori_loop(1, n_clusters, body, (centers, closest, key))
    return centers


def _first_argmin_rows(dist, n_clusters):
    """``argmin`` over axis 0 of a (k, n) array (first index on ties) as two plain min-reductions.

    Equal to ``jnp.argmin(dist, axis=0)`` for finite inputs; on XLA:CPU a variadic (value, index) reduction costs
    several times more than two ordinary ones, and this runs in every Lloyd iteration.
    """
    mn = jnp.min(dist, axis=0)
    ks = lax.broadcasted_iota(jnp.int32, dist.shape, 0)
    return jnp.min(jnp.where(dist == mn[None, :], ks, n_clusters), axis=0)


def kmeans(key: jax.Array, X: ArrayLike, valid: ArrayLike, n_clusters: int, max_iter: int = 300,
           tol: float = 1e-4) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Lloyd's k-means from greedy k-means++ seeds; returns ``(labels, centers, n_iter)``.

    scikit-learn's stopping rules: stop when the labels did not change in an iteration ("strict convergence") or
    when the total squared center shift is ``<= tol * mean variance of the valid columns``, or after ``max_iter``
    iterations; the labels are the nearest final centers. An empty cluster keeps its previous center.
    """
    dtype = X.dtype
    n = X.shape[0]
    n_valid = jnp.maximum(jnp.sum(valid), 1.0)
    tol_abs = tol * jnp.sum(jnp.var(X, axis=0)) / n_valid
    XT = X.T
    centers0 = kmeans_plusplus(key, X, n_clusters)
    ones = jnp.ones((n,), dtype)

    def assign(C):  # argmin_k ||x - c_k||^2 = argmin_k (||c_k||^2 - 2 c_k . x)
        dist = jnp.sum(C * C, axis=1)[:, None] - 2.0 * matmul(C, XT)  # (k, n)
        return _first_argmin_rows(dist, n_clusters)

    def cond(state):
        _, _, it, same, _ = state
        return (it < max_iter) & (shift_ok(state)) & ~same

    def shift_ok(state):
        return state[1] > tol_abs

    def body(state):
        C, _, it, _, labels_prev = state
        labels = assign(C)
        counts = jax.ops.segment_sum(ones, labels, n_clusters)
        sums = jax.ops.segment_sum(X, labels, n_clusters)
        C_new = jnp.where(counts[:, None] > 0, sums / jnp.maximum(counts, 1.0)[:, None], C)
        shift = jnp.sum((C_new - C) ** 2)
        return C_new, shift, it + 1, jnp.all(labels == labels_prev), labels

    init = (centers0, jnp.asarray(jnp.inf, dtype), jnp.asarray(0, jnp.int32), jnp.asarray(False),
            jnp.full((n,), -1, jnp.int32))
    C, _, n_iter, _, _ = lax.while_loop(cond, body, init)
    return assign(C), C, n_iter


def _data(X, covariance_type):
    """Per-fit constants ``(D, DT, S)``: the products the M-step sums and the E-step weighs, one matmul each.

    diag / spherical: ``D = [X^2, X, 1]`` (n, 2p + 1); full: ``D = [x_a x_b (a <= b), X, 1]`` (n, p(p+1)/2 + p + 1);
    tied: ``D = [X, 1]`` (n, p + 1) and ``S = X^T X`` (p, p), the second moments every M-step reuses (``S`` is None
    for the other types). With D the M-step's weighted moments (second moments, first moments, soft counts N_k) are
    ``resp @ D`` and the E-step's weighted log-densities, constants included, are ``W @ D^T``: the quadratic form
    ``(x - mu)^T Lambda (x - mu)`` expands to ``sum_{a <= b} c_ab x_a x_b - 2 (Lambda mu) . x + mu^T Lambda mu``.
    ``DT`` is D stored transposed for the E-step's product ``(k, q) @ (q, n)``, except for ``full`` (``DT`` is
    None and the E-step contracts D's rows directly): there D is large (n x 465 at p = 29), and inside the EM's
    ``while_loop`` XLA cannot fold a stored transpose into the product, so a second copy would double the memory
    that the two products stream through in every iteration. The columns are centered by the caller
    (:class:`~pujax.feature_selection.FSCPU` centers them), which keeps the float32 cancellation in the expanded
    moments small.
    """
    ones = jnp.ones((X.shape[0], 1), X.dtype)
    if covariance_type == "full":
        a, b = np.triu_indices(X.shape[1])
        return jnp.concatenate([X[:, a] * X[:, b], X, ones], axis=1), None, None
    if covariance_type == "tied":
        D = jnp.concatenate([X, ones], axis=1)
        return D, D.T, matmul(X.T, X)
    D = jnp.concatenate([X * X, X, ones], axis=1)
    return D, D.T, None


def _weigh_rows(W, data):
    """``W @ D^T`` (k, n): the E-step's one product, from the stored transpose where there is one."""
    D, DT, _ = data
    return gram(W, D) if DT is None else matmul(W, DT)


def _precision_factor(cov, valid, reg_covar):
    """Upper-triangular ``P`` with ``P P^T = cov^{-1}`` for a batch of covariances (k, p, p) on the valid columns.

    The padding rows/columns are replaced by the identity and ``reg_covar`` is added to the valid diagonal.
    """
    p = valid.shape[0]
    vv = valid[:, None] * valid[None, :]
    eye = jnp.eye(p, dtype=cov.dtype)
    cov = cov * vv + eye * (reg_covar * valid + (1.0 - valid))[None, :]
    chol = jnp.linalg.cholesky(cov)  # lower, cov = L L^T
    return jnp.swapaxes(_lower_triangular_inverse(chol), 1, 2)


def _lower_triangular_inverse(L):
    """Inverse of a batch of lower-triangular matrices (k, p, p) by forward substitution, row by row.

    Plain XLA ops (a ``fori_loop`` over the p rows) instead of LAPACK's ``trsm``: under ``shard_map`` on several
    CPU devices, the ``trsm`` custom call followed by the E-step's products deadlocked the in-process collective
    (jax 0.10.2, 2 CPU devices, K = 10, p = 29). Row i of L^{-1} is (e_i - sum_{j<i} L_ij row_j) / L_ii.
    """
    p = L.shape[-1]
    eye = jnp.eye(p, dtype=L.dtype)
    cols = jnp.arange(p)

    def body(i, inv):
        li = jnp.where(cols < i, L[:, i, :], 0.0)  # (k, p): strictly-lower part of row i
        row = (eye[i][None, :] - jnp.einsum("kj,kjc->kc", li, inv, precision=HIGHEST)) / L[:, i, i][:, None]
        return inv.at[:, i, :].set(row)

    return lax.fori_loop(0, p, body, jnp.zeros_like(L))


def _m_step_t(data, valid, resp_t, covariance_type, reg_covar):
    """M-step on responsibilities in (k, n) layout."""
    D, _, S = data
    dtype = D.dtype
    n = D.shape[0]
    p = valid.shape[0]
    if covariance_type == "full":
        a, b = np.triu_indices(p)
        q = a.shape[0]
        sums = matmul(resp_t, D)  # weighted sums of [x_a x_b, x, 1]: one matmul
        nk = sums[:, q + p] + 10.0 * _eps(dtype)
        means = sums[:, q:q + p] / nk[:, None]
        second = jnp.zeros((resp_t.shape[0], p, p), dtype).at[:, a, b].set(sums[:, :q] / nk[:, None])
        second = second + jnp.swapaxes(jnp.triu(second, 1), 1, 2)  # symmetric E[x x^T]
        prec = _precision_factor(second - means[:, :, None] * means[:, None, :], valid, reg_covar)
    elif covariance_type == "tied":
        sums = matmul(resp_t, D)  # weighted sums of [x, 1]
        nk = sums[:, p] + 10.0 * _eps(dtype)
        means = sums[:, :p] / nk[:, None]
        # scikit-learn's tied estimate: (X^T X - sum_k N_k mu_k mu_k^T) / sum_k N_k
        cov = (S - matmul(means.T, nk[:, None] * means)) / jnp.sum(nk)
        prec = _precision_factor(cov[None], valid, reg_covar)[0]
    elif covariance_type in ("diag", "spherical"):
        sums = matmul(resp_t, D)  # weighted sums of [x^2, x, 1]: one matmul
        nk = sums[:, 2 * p] + 10.0 * _eps(dtype)
        means = sums[:, p:2 * p] / nk[:, None]
        var_d = jnp.maximum(sums[:, :p] / nk[:, None] - means * means, 0.0)
        if covariance_type == "diag":
            var = jnp.where(valid[None, :] > 0, var_d + reg_covar, 1.0)
        else:
            n_valid = jnp.maximum(jnp.sum(valid), 1.0)
            var = jnp.sum(var_d * valid[None, :], axis=1) / n_valid + reg_covar
        prec = 1.0 / var
    else:  # pragma: no cover - validated by callers
        raise ValueError(f"covariance_type={covariance_type!r}; choose one of {COVARIANCE_TYPES}.")
    return jnp.log(nk / n), means, prec


def _weighted_log_prob_t(data, valid, params, covariance_type):
    """log pi_k + log N(x_i | mu_k, Sigma_k) on the valid columns, (k, n) layout, and the mean of a row term.

    Returns ``(wlp, row_mean)``. For ``tied`` the term ``-x_i^T Lambda x_i / 2``, the same for every component,
    is left out of ``wlp`` (it cancels in the responsibilities and the labels) and ``row_mean`` is its mean over
    the rows, ``-tr(Lambda S) / (2 n)``, which the mean log-likelihood adds back; 0 for the other types.
    """
    log_weights, means, prec = params
    D, _, S = data
    dtype = D.dtype
    n_valid = jnp.sum(valid)
    log2pi = jnp.log(2.0 * jnp.pi).astype(dtype)
    zero = jnp.zeros((), dtype)
    if covariance_type == "full":
        p = valid.shape[0]
        a, b = np.triu_indices(p)
        lam = jnp.einsum("kij,klj->kil", prec, prec, precision=HIGHEST)  # precision matrices P P^T
        coef = lam[:, a, b] * jnp.where(a == b, 1.0, 2.0).astype(dtype)  # x^T Lam x = sum_{a<=b} coef_ab x_a x_b
        lam_mu = jnp.einsum("kde,ke->kd", lam, means, precision=HIGHEST)
        log_det = jnp.sum(jnp.log(jnp.diagonal(prec, axis1=1, axis2=2)), axis=1)
        const = log_weights + log_det - 0.5 * (n_valid * log2pi + jnp.sum(means * lam_mu, axis=1))
        W = jnp.concatenate([-0.5 * coef, lam_mu, const[:, None]], axis=1)  # (k, p(p+1)/2 + p + 1)
        return _weigh_rows(W, data), zero
    if covariance_type == "tied":
        lam = matmul(prec, prec.T)
        lam_mu = matmul(means, lam)  # (k, p), lam symmetric
        log_det = jnp.sum(jnp.log(jnp.diagonal(prec)))
        const = log_weights + log_det - 0.5 * (n_valid * log2pi + jnp.sum(means * lam_mu, axis=1))
        W = jnp.concatenate([lam_mu, const[:, None]], axis=1)  # (k, p + 1)
        return _weigh_rows(W, data), -0.5 * jnp.sum(lam * S) / D.shape[0]
    if covariance_type == "spherical":
        prec_d = prec[:, None] * valid[None, :]
        log_det = 0.5 * n_valid * jnp.log(prec)
    else:
        prec_d = prec
        log_det = 0.5 * jnp.sum(jnp.log(prec) * valid[None, :], axis=1)
    # -1/2 sum_j (x_j - mu_j)^2 p_j + const_k = [-p/2, mu p, const_k - 1/2 sum_j mu_j^2 p_j] . [x^2, x, 1]
    const = log_weights + log_det - 0.5 * (n_valid * log2pi + jnp.sum(means * means * prec_d, axis=1))
    W = jnp.concatenate([-0.5 * prec_d, means * prec_d, const[:, None]], axis=1)  # (k, 2p + 1)
    return _weigh_rows(W, data), zero


def _e_step_t(data, valid, params, covariance_type):
    """E-step, (k, n) layout: (mean log-likelihood, responsibilities, weighted log-densities)."""
    wlp, row_mean = _weighted_log_prob_t(data, valid, params, covariance_type)
    top = lax.stop_gradient(jnp.max(wlp, axis=0))
    e = jnp.exp(wlp - top[None, :])
    tot = jnp.sum(e, axis=0)
    lpn = top + jnp.log(tot)  # log-sum-exp over components
    return jnp.mean(lpn) + row_mean, e * (1.0 / tot)[None, :], wlp


def gmm_m_step(X, valid, resp, covariance_type="full", reg_covar=1e-6):
    """M-step: mixture log-weights, means and precision factors from responsibilities ``resp`` (n, k).

    Returns ``(log_weights (k,), means (k, p), prec)`` where ``prec`` is, per covariance type,
    ``full``: ``(k, p, p)`` upper-triangular ``P`` with ``P P^T`` = precision (scikit-learn's ``precisions_cholesky_``),
    ``tied``: one such ``(p, p)`` factor shared by the components, ``diag``: ``(k, p)`` precisions, ``spherical``:
    ``(k,)`` precisions. Padding columns (``valid = 0``) get unit variance (identity rows/columns for ``full`` and
    ``tied``), so they add nothing to the log-density of the zero data they hold.
    """
    return _m_step_t(_data(X, covariance_type), valid, resp.T, covariance_type, reg_covar)


def gmm_log_resp(X, valid, params, covariance_type="full"):
    """E-step: ``(mean log-likelihood, log responsibilities (n, k))``."""
    lb, _, wlp_t = _e_step_t(_data(X, covariance_type), valid, params, covariance_type)
    return lb, (wlp_t - jax.scipy.special.logsumexp(wlp_t, axis=0)[None, :]).T


def gmm_em(X: ArrayLike, valid: ArrayLike, resp0: ArrayLike, covariance_type: str = "full", max_iter: int = 100,
           tol: float = 1e-3, reg_covar: float = 1e-6) -> Any:
    """EM from initial responsibilities ``resp0`` (n, k), scikit-learn's loop.

    Returns ``(params, lower_bound, n_iter, converged)``: parameters after the last M-step, the last mean
    log-likelihood, the number of EM iterations run and whether ``|change| < tol`` was reached.
    """
    data = _data(X, covariance_type)
    return _em_t(data, valid, resp0.T, covariance_type, max_iter, tol, reg_covar)


def _em_t(data, valid, resp0_t, covariance_type, max_iter, tol, reg_covar):
    dtype = data[0].dtype
    params0 = _m_step_t(data, valid, resp0_t, covariance_type, reg_covar)

    def cond(state):
        _, _, it, conv = state
        return (it < max_iter) & ~conv

    def body(state):
        params, lb_prev, it, _ = state
        lb, resp_t, _ = _e_step_t(data, valid, params, covariance_type)
        params = _m_step_t(data, valid, resp_t, covariance_type, reg_covar)
        return params, lb, it + 1, jnp.abs(lb - lb_prev) < tol

    init = (params0, jnp.asarray(-jnp.inf, dtype), jnp.asarray(0, jnp.int32), jnp.asarray(False))
    params, lb, n_iter, conv = lax.while_loop(cond, body, init)
    return params, lb, n_iter, conv


@partial(jit, "heavy", static_argnames=("n_clusters", "covariance_type", "max_iter", "kmeans_max_iter"))
def gmm_fit_predict(key: jax.Array, X: ArrayLike, valid: ArrayLike, n_clusters: int = 10, covariance_type: str = "full",
                    max_iter: int = 100, tol: float = 1e-3, reg_covar: float = 1e-6, kmeans_max_iter: int = 300,
                    kmeans_tol: float = 1e-4) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Fit a Gaussian mixture on the valid columns of ``X`` (k-means init) and return hard labels and diagnostics.

    Returns ``(labels (n,) int32, lower_bound, n_iter, ok)``; ``ok`` is false when a numerical failure (non
    finite log-likelihood, e.g. a covariance that lost positive definiteness in float32) occurred -- callers
    treat such a fit as the worst objective value. ``vmap`` over ``key`` and/or ``(X, valid)``.
    """
    labels0, _, _ = kmeans(key, X, valid, n_clusters, kmeans_max_iter, kmeans_tol)
    resp0_t = (labels0[None, :] == jnp.arange(n_clusters)[:, None]).astype(X.dtype)
    data = _data(X, covariance_type)
    params, lb, n_iter, _ = _em_t(data, valid, resp0_t, covariance_type, max_iter, tol, reg_covar)
    lb_final, _, wlp_t = _e_step_t(data, valid, params, covariance_type)
    labels = jnp.argmax(wlp_t, axis=0).astype(jnp.int32)
    ok = jnp.isfinite(lb) & jnp.isfinite(lb_final)
    return labels, lb, n_iter, ok


def masked_gmm_labels(key: jax.Array, X: ArrayLike, mask: ArrayLike, width: int,
                      **gmm_kwargs: Any) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Cluster the rows of ``X`` on the features selected by ``mask`` (a 0/1 vector of length ``d``).

    ``width`` (static) is the number of compact columns (>= the number of selected features). Returns the output
    of :func:`gmm_fit_predict`. Vmap over ``mask`` and ``key`` to evaluate many candidate masks at once.
    """
    Xc, valid = compact_columns(X, mask, width)
    return gmm_fit_predict(key, Xc, valid, **gmm_kwargs)
