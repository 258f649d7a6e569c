r"""DEDPUL: Ivanov, *DEDPUL: Difference-of-Estimated-Densities-based Positive-Unlabeled Learning*, ICMLA 2020.

A P-vs-U classifier gives cross-fitted predictions :math:`y(x)` = probability that a row is unlabeled
(:math:`1 - g(x)`, :math:`g \approx P(s=1 \mid x)`). On the logit scale, Gaussian kernel density estimates of the
predictions of the unlabeled rows (bandwidth factor ``bw_mix`` times their standard deviation, as scipy's
``gaussian_kde``) and of the labeled rows (``bw_pos``) give the density ratio
:math:`r(x) = f_p(y(x)) / f_u(y(x))` at the unlabeled rows (Alg. 1, steps 1-3). It is clipped at 50, smoothed by a
centred rolling median of 11 values, made non-increasing in :math:`y` below the mid-point of the two classes' mean
predictions, smoothed again by a rolling median of :math:`2\lfloor m/20 \rfloor + 1` values (m evaluation rows),
and sorted (the ratio becomes a non-increasing function of :math:`y`). The proportion of negatives
:math:`\alpha` in U makes the posteriors :math:`p(n \mid x) = \max(0, 1 - (1-\alpha) r(x))` average to
:math:`\alpha` (Alg. 1, step 4): the
fixed-point iteration :math:`\alpha \leftarrow \overline{p(n \mid x)}` from 0 ("converge" estimate) and, on a grid
of step 0.001, the :math:`\alpha` of largest second difference of :math:`\overline{p(n \mid x)} - \alpha` among those
with a difference below 0.05 ("non-converge" estimate), combined by the rule of the author's code; the estimate is
:math:`\theta = 1 - \alpha`. No EM step on the classifier is used (the "dedpul" estimate, not "EM-DEDPUL").

Implementation: the two densities are computed on a grid of 2048 points from linearly binned scores (binned KDE,
the Gaussian kernel applied by FFT convolution) and interpolated; the unlabeled rows used as evaluation points are
a random subsample of at most ``max_samples``; every step is a jit-compiled JAX function on scores padded to bucket
sizes, and the bootstrap (held-out P and U scores resampled) runs the whole chain for all resamples in one batched
program.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import bucket_size, jit, pad_rows
from pujax.devices import device_mesh, to_host
from pujax.prior._common import batch_size, map_resamples, row_counts
from pujax.random import host_fold_in

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = ["dedpul_estimate"]

_GRID = 2048
_CLIP = 50.0
_STEP = 0.001
_MAX_DIFF = 0.05
_TOL = 1e-5


def _logit(y):
    return jnp.log((y + 1e-7) / (1.0 - y + 1e-5))


def _kde_on_grid(t, w, bw, grid):
    """Gaussian KDE of values ``t`` with integer weights ``w`` (kernel sd = ``bw`` x the weighted, unbiased sd of
    ``t``), by linear binning onto ``grid``; returns the density at the grid points."""
    n = jnp.sum(w)
    mean = jnp.sum(w * t) / n
    sd = jnp.sqrt(jnp.sum(w * (t - mean) ** 2) / jnp.maximum(n - 1.0, 1.0))
    h = jnp.maximum(bw * sd, 1e-6)
    step = grid[1] - grid[0]
    pos = jnp.clip((t - grid[0]) / step, 0.0, grid.shape[0] - 1.000001)
    i = jnp.floor(pos).astype(jnp.int32)
    f = pos - i
    G = grid.shape[0]
    counts = jnp.zeros_like(grid).at[i].add(w * (1.0 - f)).at[i + 1].add(w * f)
    lags = (jnp.arange(2 * G, dtype=grid.dtype) - G) * step / h  # kernel at every grid lag, then FFT convolution
    kern = jnp.fft.rfft(jnp.fft.ifftshift(jnp.exp(-0.5 * lags * lags)))
    dens = jnp.fft.irfft(jnp.fft.rfft(counts, 2 * G) * kern, 2 * G)[:G]
    return jnp.maximum(dens, 0.0) / (n * h * jnp.sqrt(2.0 * jnp.pi))


def _rolling_median(x, k):
    """Centred rolling median of window ``2k + 1``, the window shrinking symmetrically at both ends."""
    n = x.shape[0]
    offs = jnp.arange(-k, k + 1)
    idx = jnp.arange(n)[:, None] + offs[None, :]
    half = jnp.minimum(k, jnp.minimum(jnp.arange(n), n - 1 - jnp.arange(n)))[:, None]
    vals = x[jnp.clip(idx, 0, n - 1)]
    vals = jnp.where(offs[None, :] < -half, -jnp.inf, jnp.where(offs[None, :] > half, jnp.inf, vals))
    return jnp.sort(vals, axis=1)[:, k]


def _ratio(y_eval, t_u, w_u, t_p, w_p, grid, bw_mix, bw_pos, threshold, k):
    """Post-processed density ratio f_p / f_u at the sorted evaluation predictions ``y_eval`` (sorted result)."""
    t_eval = _logit(y_eval)
    jac = y_eval * (1.0 - y_eval) + 1e-5
    f_u = jnp.interp(t_eval, grid, _kde_on_grid(t_u, w_u, bw_mix, grid)) / jac
    f_p = jnp.interp(t_eval, grid, _kde_on_grid(t_p, w_p, bw_pos, grid)) / jac
    r = _rolling_median(jnp.minimum(f_p / (f_u + 1e-5), _CLIP), 5)
    low = y_eval <= threshold  # a prefix: y_eval is sorted
    rev_max = jax.lax.cummax(jnp.where(low, r, -jnp.inf)[::-1])[::-1]
    r = jnp.where(low, rev_max, r)
    return jnp.sort(_rolling_median(r, k))


def _alpha(r):
    """Proportion of negatives in U from the ratio ``r`` (the author's converge / non-converge rule)."""
    def mean_post(a):
        return jnp.mean(jnp.maximum(1.0 - r * (1.0 - a), 0.0))

    def cond(state):
        a, i, done = state
        return (~done) & (i < 1000)

    def body(state):
        a, i, _ = state
        m = mean_post(a)
        stop = (jnp.abs(m - a) < _TOL) | (jnp.min(1.0 - r * (1.0 - a)) > 0)
        return jnp.where(stop, a, m), i + 1, stop

    a_conv, _, _ = jax.lax.while_loop(cond, body, (jnp.zeros((), r.dtype), 0, False))
    grid = jnp.arange(int(round(1.0 / _STEP)), dtype=r.dtype) * _STEP
    errors = jax.vmap(mean_post)(grid) - grid
    ok = errors[1:-1] < _MAX_DIFF
    dd = jnp.where(ok, jnp.diff(errors, n=2), -jnp.inf)
    a_nonconv = jnp.where(jnp.any(ok), grid[1:-1][jnp.argmax(dd)], a_conv)
    keep = (a_nonconv >= a_conv) | ((jnp.sum(errors < 0) > 1) & (a_conv < 1.0 - _STEP))
    return jnp.where(keep, a_conv, a_nonconv), a_conv, a_nonconv


@partial(jit, "heavy", static_argnames=("k",))
def _dedpul_point(y_eval, y_u, w_u, y_p, w_p, grid, bw_mix, bw_pos, threshold, k):
    r = _ratio(y_eval, _logit(y_u), w_u, _logit(y_p), w_p, grid, bw_mix, bw_pos, threshold, k)
    a, a_conv, a_nonconv = _alpha(r)
    return 1.0 - a, 1.0 - a_conv, 1.0 - a_nonconv


@partial(jit, "heavy", static_argnames=("n_eval", "k", "n_bootstrap", "batch", "mesh"))
def _dedpul_boot(key, y_u, y_p, n_u, n_p, grid, bw_mix, bw_pos, n_eval, k, n_bootstrap, batch, mesh):
    """Bootstrap of the first ``n_u`` / ``n_p`` entries of the padded ``y_u`` / ``y_p``."""
    t_u, t_p = _logit(y_u), _logit(y_p)
    dt = y_u.dtype

    def one(key_b):
        ku, kp, ke = jax.random.split(key_b, 3)
        w_u = row_counts(ku, y_u.shape[0], n_u, dt)
        w_p = row_counts(kp, y_p.shape[0], n_p, dt)
        y_eval = jnp.sort(y_u[jax.random.choice(ke, y_u.shape[0], (n_eval,), p=w_u / n_u)])
        threshold = 0.5 * (jnp.sum(w_u * y_u) / n_u + jnp.sum(w_p * y_p) / n_p)
        r = _ratio(y_eval, t_u, w_u, t_p, w_p, grid, bw_mix, bw_pos, threshold, k)
        return 1.0 - _alpha(r)[0]

    return map_resamples(one, key, n_bootstrap, batch, mesh)


def dedpul_estimate(g_p: ArrayLike, g_u: ArrayLike, *, bw_mix: float = 0.05, bw_pos: float = 0.1,
                    max_samples: int = 2000, random_state: int = 0, key: jax.Array | None = None,
                    n_bootstrap: int = 0, devices: DevicesLike = None) -> dict:
    """DEDPUL estimate of the positive fraction of U from held-out probabilities ``g ~ P(s=1|x)``.

    Parameters
    ----------
    g_p, g_u : 1-D arrays
        Held-out probabilities of the labeled and of the unlabeled rows.
    bw_mix, bw_pos : float, default=0.05, 0.1
        KDE bandwidth factors of the unlabeled and labeled predictions (the author's defaults).
    max_samples : int, default=2000
        Unlabeled rows at which the density ratio is evaluated (a random subsample when there are more).
    random_state : int, default=0
        Seed of that subsample.
    key : JAX PRNG key or None
        Key of the bootstrap (needed when ``n_bootstrap > 0``).
    n_bootstrap : int, default=0
        Bootstrap resamples of the held-out P and U predictions.
    devices : None, int, list of jax.Device or jax.sharding.Mesh, default=None
        Where the bootstrap resamples run (split over the devices; :mod:`pujax.devices`).

    Returns
    -------
    dict
        ``prior`` (theta = 1 - alpha), ``prior_converge``, ``prior_nonconverge`` and, with a bootstrap,
        ``bootstrap`` (array of shape (n_bootstrap,)).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.prior.dedpul import dedpul_estimate
    >>> rng = np.random.default_rng(0)
    >>> z = np.r_[rng.normal(1.5, 1, 600), rng.normal(1.5, 1, 800), rng.normal(-1.5, 1, 1200)]
    >>> g = 1 / (1 + np.exp(-z))                    # P(s=1|x) of 600 labeled rows, then 2000 unlabeled (40 % P)
    >>> out = dedpul_estimate(g[:600], g[600:])
    >>> 0.3 < out["prior"] < 0.5
    True
    """
    dt = jnp.result_type(float)
    y_p = np.clip(1.0 - np.ravel(np.asarray(g_p, np.float64)), 0.0, 1.0)
    y_u = np.clip(1.0 - np.ravel(np.asarray(g_u, np.float64)), 0.0, 1.0)
    rng = np.random.default_rng(random_state)
    n_eval = min(int(max_samples), y_u.size)
    y_eval = np.sort(y_u if y_u.size <= n_eval else rng.choice(y_u, n_eval, replace=False))
    t_all = np.log((np.r_[y_u, y_p] + 1e-7) / (1.0 - np.r_[y_u, y_p] + 1e-5))
    margin = 5.0 * max(bw_mix, bw_pos) * max(float(np.std(t_all)), 1e-3) + 1e-3
    grid = jnp.linspace(t_all.min() - margin, t_all.max() + margin, _GRID, dtype=dt)
    threshold = 0.5 * (y_u.mean() + y_p.mean())
    k = n_eval // 20
    # scores padded to bucket sizes with zero weight: data of similar sizes reuse the compiled programs
    (yu_pad, wu), (yp_pad, wp) = (pad_rows(bucket_size(y.size), y, (y > -1).astype(np.float64), fill=[0.5, 0.0])
                                  for y in (y_u, y_p))
    yu_pad, wu, yp_pad, wp = (jnp.asarray(a, dt) for a in (yu_pad, wu, yp_pad, wp))
    theta, conv, nonconv = _dedpul_point(jnp.asarray(y_eval, dt), yu_pad, wu, yp_pad, wp, grid, bw_mix, bw_pos,
                                         threshold, k)
    out = dict(prior=float(theta), prior_converge=float(conv), prior_nonconverge=float(nonconv))
    if n_bootstrap:
        batch = batch_size(n_bootstrap, n_eval * (2 * k + 12) + 16 * _GRID)
        out["bootstrap"] = to_host(_dedpul_boot(key, yu_pad, yp_pad, y_u.size, y_p.size, grid, bw_mix, bw_pos,
                                                n_eval, k, n_bootstrap, batch, device_mesh(devices)))
    return out


def _run(ctx, *, n_folds, n_jobs, bw_mix, bw_pos, max_samples):
    out = dedpul_estimate(ctx.scores[ctx.s == 1], ctx.scores[ctx.s == 0], bw_mix=bw_mix, bw_pos=bw_pos,
                          max_samples=max_samples, random_state=ctx.seed, key=host_fold_in(ctx.key, 2),
                          n_bootstrap=ctx.n_bootstrap, devices=ctx.devices)
    diag = dict(bw_mix=bw_mix, bw_pos=bw_pos, prior_converge=out["prior_converge"],
                prior_nonconverge=out["prior_nonconverge"], n_eval=int(min(max_samples, ctx.n_u)))
    return out["prior"], out["bootstrap"], None, diag


def _method():
    from pujax.prior._registry import SCORE_OPTIONS, Method, opt_float, opt_int

    options = dict(SCORE_OPTIONS, bw_mix=(0.05, opt_float(0.0, None)), bw_pos=(0.1, opt_float(0.0, None)),
                   max_samples=(2000, opt_int(10)))
    return Method("dedpul", options, _run, scores="proba", reference="Ivanov 2020, Algorithm 1")
