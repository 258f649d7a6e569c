r"""Batched soft-margin SVM dual solver with per-sample box bounds (DESIGN §3.5).

Every base model of CWSVM, bagging SVM and RESVM (Claesen et al. 2015, eq. 1) solves the dual

.. math::

    \min_\alpha \tfrac12 \alpha^\top Q \alpha - e^\top \alpha
    \quad\text{s.t.}\quad y^\top\alpha = 0,\; 0 \le \alpha_i \le C_i,\qquad Q_{ij} = y_i y_j K(x_i, x_j),

with a per-sample box bound ``C_i`` (``C_P`` for labeled, ``C_U`` for unlabeled rows, eq. 3). The solver is
sequential minimal optimisation with the second-order working-set selection of Fan, Chen & Lin (JMLR 2005,
"WSS2"): at every step the maximal violating index ``i`` and the ``j`` that maximises the second-order decrease of
the objective are updated analytically. It stops when the maximal KKT violation

.. math::

    m(\alpha) - M(\alpha) = \max_{t \in I_{up}} -y_t\nabla_t f - \min_{t \in I_{low}} -y_t\nabla_t f
    \le \text{tol}

(the same criterion as LIBSVM, whose default ``tol`` is 1e-3). In exact arithmetic this algorithm converges to an
optimum of the dual (Fan et al. 2005, Theorem 3 / Chen, Fan & Lin 2006); the running gradient is recomputed exactly
every ``refresh`` steps and at the end, so that float32 drift cannot fake convergence: the returned ``gap`` is the KKT
violation of the returned ``alpha`` computed from scratch.

Batching. One problem is described by ``idx`` (rows of a shared kernel matrix ``K`` of the whole training set),
labels ``y`` in {-1, +1} and bounds ``C``. Bootstrap resamples are index vectors into the same ``K``, so 50 base
models share one kernel matrix; a padded slot is simply a row with ``C_i = 0`` (it can never leave 0, is never
selected and does not influence the bias). :func:`solve_svm_batch` ``vmap``-s the solver over problems; inside the
``lax.while_loop`` finished problems stay frozen.

Decision function of problem ``k``: ``psi_k(x) = sum_i alpha_ki y_ki K(x_{idx_ki}, x) + b_k``.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp

from pujax._compile import jit
from pujax.linalg import HIGHEST, matmul

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["SVMSolution", "solve_svm", "solve_svm_batch", "kkt_violation", "dual_objective", "coef_matrix"]

_TAU = 1e-12


class SVMSolution(NamedTuple):
    """Result of the dual solve (leading batch axis when batched)."""

    alpha: jax.Array  # (n,) dual variables in [0, C_i]
    bias: jax.Array  # () intercept b of psi(x) = sum alpha_i y_i K(x_i, x) + b
    gap: jax.Array  # () exact maximal KKT violation m(alpha) - M(alpha) at the returned alpha
    n_iter: jax.Array  # () number of SMO steps taken
    converged: jax.Array  # () bool, gap <= tol


def _sets(alpha, y, C):
    pos = y > 0
    up = jnp.where(pos, alpha < C, alpha > 0)
    low = jnp.where(pos, alpha > 0, alpha < C)
    return up, low


def _gap(F, alpha, y, C):
    up, low = _sets(alpha, y, C)
    m = jnp.max(jnp.where(up, F, -jnp.inf))
    M = jnp.min(jnp.where(low, F, jnp.inf))
    return m, M


def _exact_F(K, idx, y, alpha):
    """F_t = -y_t grad_t f = y_t - sum_s alpha_s y_s K_ts, via one matvec with the shared kernel matrix."""
    w = jnp.zeros((K.shape[0],), K.dtype).at[idx].add(alpha * y)
    return y - matmul(K, w)[idx]


def _bias(F, alpha, y, C, m, M):
    free = (alpha > 0) & (alpha < C)
    n_free = jnp.sum(free)
    mean_free = jnp.sum(jnp.where(free, F, 0.0)) / jnp.maximum(n_free, 1)
    mid = 0.5 * (jnp.where(jnp.isfinite(m), m, 0.0) + jnp.where(jnp.isfinite(M), M, 0.0))
    return jnp.where(n_free > 0, mean_free, mid)


def _argmax(v):
    """First index of the maximum (a float-index reduction instead of XLA:CPU's slower variadic argmax reduce)."""
    m = jnp.max(v)
    pos = jnp.arange(v.shape[0], dtype=jnp.float32)
    return jnp.min(jnp.where(v == m, pos, jnp.inf)).astype(jnp.int32), m


def solve_svm(K: ArrayLike, idx: ArrayLike, y: ArrayLike, C: ArrayLike, tol: float = 1e-3, max_iter: int = 100_000,
              refresh: int = 2_000) -> SVMSolution:
    """Solve one SVM dual (see module docstring); pure and ``vmap``-able over ``K`` / ``idx``, ``y``, ``C``.

    Parameters
    ----------
    K : (N, N) kernel matrix of the N distinct training rows; with ``idx=None`` it is this problem's own (n, n)
        kernel matrix (faster rows: no gather inside the loop).
    idx : (n,) int rows of ``K`` forming this problem (repeats allowed, e.g. bootstrap resamples), or None.
    y : (n,) labels in {-1, +1} (float).
    C : (n,) box bounds ``C_i >= 0``; ``C_i = 0`` masks a padded slot out.
    tol : stop when the maximal KKT violation ``m - M <= tol``.
    max_iter : cap on the total number of SMO steps (``converged`` is False if reached).
    refresh : recompute the gradient exactly every ``refresh`` steps (float32 drift control).
    """
    dtype = K.dtype
    y = jnp.asarray(y, dtype)
    C = jnp.asarray(C, dtype)
    tol = jnp.asarray(tol, dtype)
    n = y.shape[0]
    if idx is None:
        idx = jnp.arange(n)
        row = lambda r: K[r]  # noqa: E731
    else:
        row = lambda r: K[idx[r]][idx]  # noqa: E731
    Kd = jnp.diagonal(K)[idx]

    def smo_step(state):
        alpha, F, it, _ = state
        up, low = _sets(alpha, y, C)
        i, m = _argmax(jnp.where(up, F, -jnp.inf))
        M = jnp.min(jnp.where(low, F, jnp.inf))
        active = (m - M) > tol
        Ki = row(i)
        # second-order working-set selection (WSS2): j maximises b^2 / a over violating t in I_low
        b = m - F
        a = Kd[i] + Kd - 2.0 * Ki
        a = jnp.where(a > 0, a, _TAU)
        j, _ = _argmax(jnp.where(low & (b > 0), (b * b) / a, -jnp.inf))
        Kj = row(j)
        # analytic two-variable update along d_i = y_i, d_j = -y_j, clipped to the box
        ub_i = jnp.where(y[i] > 0, C[i] - alpha[i], alpha[i])
        ub_j = jnp.where(y[j] > 0, alpha[j], C[j] - alpha[j])
        ub = jnp.minimum(ub_i, ub_j)
        t = jnp.clip(b[j] / a[j], 0.0, ub)
        t = jnp.where(active & jnp.isfinite(t), t, 0.0)
        hit_i = active & (t >= ub_i)
        hit_j = active & (t >= ub_j)
        new_ai = jnp.where(hit_i, jnp.where(y[i] > 0, C[i], 0.0), alpha[i] + y[i] * t)
        new_aj = jnp.where(hit_j, jnp.where(y[j] > 0, 0.0, C[j]), alpha[j] - y[j] * t)
        alpha = alpha.at[i].set(new_ai).at[j].set(new_aj)
        F = F - t * (Ki - Kj)
        return alpha, F, it + active.astype(it.dtype), m - M

    def inner_cond(state, stop):
        _, _, it, gap = state
        return (gap > tol) & (it < stop)

    def outer_body(state):
        alpha, F, it, gap = state
        stop = jnp.minimum(it + refresh, max_iter)
        alpha, F, it, gap = jax.lax.while_loop(lambda s: inner_cond(s, stop), smo_step, (alpha, F, it, gap))
        F = _exact_F(K, idx, y, alpha)
        m, M = _gap(F, alpha, y, C)
        return alpha, F, it, m - M

    def outer_cond(state):
        _, _, it, gap = state
        return (gap > tol) & (it < max_iter)

    alpha0 = jnp.zeros((n,), dtype)
    F0 = y
    m0, M0 = _gap(F0, alpha0, y, C)
    state = (alpha0, F0, jnp.asarray(0, jnp.int32), (m0 - M0).astype(dtype))
    alpha, F, it, gap = jax.lax.while_loop(outer_cond, outer_body, state)
    m, M = _gap(F, alpha, y, C)
    bias = _bias(F, alpha, y, C, m, M)
    gap = jnp.where(jnp.isfinite(gap), gap, 0.0)  # -inf/inf: an empty I_up or I_low is trivially optimal
    return SVMSolution(alpha, bias, gap, it, gap <= tol)


@partial(jit, "heavy", static_argnames=("max_iter", "refresh"))
def solve_svm_batch(K: ArrayLike, idx: ArrayLike, y: ArrayLike, C: ArrayLike, tol: float = 1e-3,
                    max_iter: int = 100_000, refresh: int = 2_000) -> SVMSolution:
    """Solve a batch of SVM duals at once (``vmap`` of :func:`solve_svm`).

    ``K`` is one shared (N, N) kernel matrix, or a (B, N, N) stack (one per problem, e.g. a gamma grid);
    ``idx``, ``y``, ``C`` are (B, n). With ``idx=None``, ``K`` is a (B, n, n) stack of each problem's own kernel
    matrix (rows are then plain slices: the fastest form when B n^2 fits in memory). Returns an
    :class:`SVMSolution` with a leading axis B.
    """
    if idx is None:  # one dense (n, n) kernel matrix per problem
        fn = jax.vmap(lambda K_, y_, c_: solve_svm(K_, None, y_, c_, tol, max_iter, refresh))
        return fn(K, y, C)
    k_axis = 0 if K.ndim == 3 else None
    fn = jax.vmap(lambda K_, i_, y_, c_: solve_svm(K_, i_, y_, c_, tol, max_iter, refresh), in_axes=(k_axis, 0, 0, 0))
    return fn(K, idx, y, C)


def kkt_violation(K: ArrayLike, idx: ArrayLike, y: ArrayLike, C: ArrayLike, alpha: ArrayLike) -> jax.Array:
    """Exact maximal KKT violation ``m(alpha) - M(alpha)`` of one problem (0 or negative at an exact optimum)."""
    F = _exact_F(K, idx, jnp.asarray(y, K.dtype), alpha)
    m, M = _gap(F, alpha, jnp.asarray(y, K.dtype), jnp.asarray(C, K.dtype))
    return m - M


def dual_objective(K: ArrayLike, idx: ArrayLike, y: ArrayLike, alpha: ArrayLike) -> jax.Array:
    """Dual objective ``1/2 a^T Q a - e^T a`` of one problem (lower is better)."""
    y = jnp.asarray(y, K.dtype)
    w = alpha * y
    Ksub = K[idx][:, idx]
    return 0.5 * jnp.dot(w, matmul(Ksub, w), precision=HIGHEST) - jnp.sum(alpha)


@partial(jit, "heavy", static_argnames=("n_rows",))
def coef_matrix(idx: ArrayLike, y: ArrayLike, alpha: ArrayLike, n_rows: int) -> jax.Array:
    """Fold a batch of solutions onto the distinct training rows: ``W[k, r] = sum_{i: idx_ki = r} alpha_ki y_ki``.

    ``psi_k(x) = K(x, X_train) @ W[k] + b_k`` then predicts all base models with one kernel matrix (dense algebra).
    """
    vals = alpha * jnp.asarray(y, alpha.dtype)
    return jax.vmap(lambda i_, v_: jnp.zeros((n_rows,), alpha.dtype).at[i_].add(v_))(idx, vals)
