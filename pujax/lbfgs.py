r"""L-BFGS in NumPy for a batch of small independent problems (e.g. cross-validation folds times regularisation
strengths of a linear model), with one call of the objective per step for all problems still running.

Each problem has its own two-loop recursion (Nocedal & Wright 2006, Algorithm 7.4), its own backtracking Armijo
line search (quadratic interpolation; after a rejected step, several candidate steps in one call of the objective)
and its own stop (gradient norm below ``tol``, relative decrease below ``ftol``, ``max_iter`` iterations, or no
decrease found); curvature pairs with
:math:`s^\top y \le 10^{-10}\,\lVert s\rVert\,\lVert y\rVert` are skipped, so non-convex objectives keep a
positive definite inverse-Hessian approximation. Nothing is compiled: for objectives of tens to hundreds of
parameters a first solve costs what every later one does.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__ = ["LBFGSResult", "lbfgs_minimize"]

_C1 = 1e-4  # Armijo constant
_MAX_CALLS = 12  # objective calls per line search (the first tries step 1, later ones a ladder)
_LADDER = np.array([1.0, 0.2, 0.04])  # fractions of the interpolated step tried together after a rejection


class LBFGSResult(NamedTuple):
    """Per problem: ``x`` (B, k), ``value`` (B,), ``grad_norm`` (B,) and ``n_iter`` (B,)."""

    x: np.ndarray
    value: np.ndarray
    grad_norm: np.ndarray
    n_iter: np.ndarray


def _direction(g, S, Y, rho, gamma):
    """``-H g`` per problem by the two-loop recursion; memory slot 0 holds the newest pair, ``rho = 0`` marks an
    empty slot."""
    m = rho.shape[1]
    q = g.copy()
    alpha = np.zeros_like(rho)
    for j in range(m):
        alpha[:, j] = rho[:, j] * np.einsum("bk,bk->b", S[:, j], q)
        q -= alpha[:, j, None] * Y[:, j]
    r = gamma[:, None] * q
    for j in reversed(range(m)):
        beta = rho[:, j] * np.einsum("bk,bk->b", Y[:, j], r)
        r += (alpha[:, j] - beta)[:, None] * S[:, j]
    return -r


def _line_search(value_and_grad, x, f, g, d, active):
    """Backtracking from step 1 until ``f(x + t d) <= f + c1 t g^T d`` for every active problem. After a rejected
    step, one call tries a ladder of :data:`_LADDER` steps per problem still searching (the minimiser of the
    quadratic through ``f(0)``, ``f'(0)`` and ``f(t)``, kept in ``[0.1 t, 0.5 t]``, and fixed fractions of it) and
    keeps the largest that passes, so a search takes few calls of the objective."""
    slope = np.einsum("bk,bk->b", g, d)
    t = np.ones_like(f)
    f_new, g_new = f.copy(), g.copy()
    todo = active & (slope < 0)
    ok = np.zeros_like(active)
    ladder = np.ones(1)
    for _ in range(_MAX_CALLS):
        if not todo.any():
            break
        rows = np.flatnonzero(todo)
        steps = t[rows, None] * ladder  # (r, L): the candidates of each problem, largest first
        rep = np.repeat(rows, ladder.size)
        ft, gt = value_and_grad(x[rep] + steps.reshape(-1, 1) * d[rep], rep)
        ft, gt = ft.reshape(rows.size, ladder.size), gt.reshape(rows.size, ladder.size, -1)
        passes = np.isfinite(ft) & (ft <= f[rows, None] + _C1 * steps * slope[rows, None])
        first = np.argmax(passes, axis=1)  # the largest passing step (0 where none passes)
        hit = passes[np.arange(rows.size), first]
        acc = rows[hit]
        t[acc], f_new[acc], g_new[acc] = steps[hit, first[hit]], ft[hit, first[hit]], gt[hit, first[hit]]
        ok[acc] = True
        todo[acc] = False
        # the rest go on from their smallest candidate, through the quadratic interpolation
        miss = ~hit
        t_last, f_last = steps[miss, -1], ft[miss, -1]
        s_m = slope[rows[miss]]
        curv = np.where(np.isfinite(f_last), f_last - f[rows[miss]] - s_m * t_last, np.inf)
        t_quad = -s_m * t_last * t_last / np.maximum(2.0 * curv, 1e-300)
        t[rows[miss]] = np.clip(t_quad, 0.1 * t_last, 0.5 * t_last)
        ladder = _LADDER
    return t, f_new, g_new, ok


def lbfgs_minimize(value_and_grad: Callable, x0, max_iter: int, tol: float, memory: int = 10, ftol: float = 1e-9
                   ) -> LBFGSResult:
    """Minimise ``B`` independent functions from ``x0`` (B, k).

    Parameters
    ----------
    value_and_grad : callable
        ``value_and_grad(X, rows) -> (f (r,), g (r, k))``: values and gradients of the problems ``rows`` (indices
        into the batch; an index may repeat) at the points ``X`` (r, k); only the problems still running are
        evaluated.
    x0 : array of shape (B, k)
        Starting points.
    max_iter : int
        Iterations at most (per problem).
    tol : float
        A problem stops once its gradient norm is below ``tol``, its line search finds no decrease, or a step
        decreases it by at most ``ftol * max(|f|, 1)``.
    memory : int, default=10
        Number of curvature pairs kept per problem.
    ftol : float, default=1e-9
        Relative decrease below which a problem stops (as in scipy's L-BFGS-B).

    Returns
    -------
    LBFGSResult

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.lbfgs import lbfgs_minimize
    >>> def vg(X, rows):  # f(x) = |x - a|^2 + x_0^4 with a = (3, 3) and (1, 1)
    ...     a = np.array([[3.0, 3.0], [1.0, 1.0]])[rows]
    ...     f = np.sum((X - a) ** 2, 1) + X[:, 0] ** 4
    ...     g = 2 * (X - a) + np.c_[4 * X[:, 0] ** 3, np.zeros(len(rows))]
    ...     return f, g
    >>> res = lbfgs_minimize(vg, np.zeros((2, 2)), 100, 1e-8)
    >>> np.round(res.x, 3).tolist()
    [[1.0, 3.0], [0.59, 1.0]]
    """
    x = np.array(x0, dtype=np.float64)
    B, k = x.shape

    def vg(X, rows):
        f, g = value_and_grad(X, rows)
        return np.asarray(f, np.float64), np.asarray(g, np.float64)

    f, g = vg(x, np.arange(B))
    S, Y, rho = np.zeros((B, memory, k)), np.zeros((B, memory, k)), np.zeros((B, memory))
    count = np.zeros(B, np.int64)
    gamma = 1.0 / np.maximum(np.linalg.norm(g, axis=1), 1.0)  # the first step is at most of unit length
    active = np.ones(B, bool)
    for _ in range(int(max_iter)):
        active &= (np.linalg.norm(g, axis=1) >= tol) & np.isfinite(f)
        if not active.any():
            break
        d = _direction(g, S, Y, rho, gamma)
        descent = np.einsum("bk,bk->b", d, g) < 0
        d = np.where(descent[:, None], d, -gamma[:, None] * g)
        t, f_new, g_new, ok = _line_search(vg, x, f, g, d, active)
        s, y = t[:, None] * d, g_new - g
        sy = np.einsum("bk,bk->b", s, y)
        keep = ok & (sy > 1e-10 * np.linalg.norm(s, axis=1) * np.linalg.norm(y, axis=1))
        rows = np.flatnonzero(keep)  # newest pair into slot 0, the oldest one dropped
        S[rows], Y[rows] = np.roll(S[rows], 1, axis=1), np.roll(Y[rows], 1, axis=1)
        rho[rows] = np.roll(rho[rows], 1, axis=1)
        S[rows, 0], Y[rows, 0], rho[rows, 0] = s[rows], y[rows], 1.0 / sy[rows]
        gamma[rows] = sy[rows] / np.maximum(np.einsum("bk,bk->b", y[rows], y[rows]), 1e-300)
        small = ok & (f - f_new <= ftol * np.maximum(np.maximum(np.abs(f), np.abs(f_new)), 1.0))
        x[ok] += s[ok]
        f[ok], g[ok] = f_new[ok], g_new[ok]
        count += active
        active &= ok & ~small
    return LBFGSResult(x, f, np.linalg.norm(g, axis=1), count)
