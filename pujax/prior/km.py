r"""KM1 and KM2: Ramaswamy, Scott & Tewari, *Mixture proportion estimation via kernel embedding of distributions*,
ICML 2016.

With the unlabeled rows as the mixture :math:`F` (``N`` rows) and the labeled rows as the component :math:`H`
(``M`` rows), :math:`F = \kappa^* H + (1-\kappa^*) G` and :math:`\kappa^* = \theta`. For :math:`\lambda \ge 1`
the signed measure :math:`\lambda F + (1-\lambda) H` is a distribution exactly when
:math:`\lambda \le \lambda^* = 1/(1-\kappa^*)`. In a Gaussian-kernel RKHS, with the sample points' kernel matrix
:math:`K` and :math:`u_\lambda = \lambda\,a + (1-\lambda)\,b` (:math:`a` uniform on the mixture rows, :math:`b` on
the component rows),

.. math:: \hat d(\lambda) = \min_{v \in \Delta} \sqrt{(u_\lambda - v)^\top K (u_\lambda - v)}

is the distance of the embedding of :math:`\lambda \hat F + (1-\lambda)\hat H` to the convex hull of the sample's
embeddings (the paper's :math:`\mathcal{C}_S`-distance). :math:`\hat d` is convex in :math:`\lambda`, near zero up to
:math:`\lambda^*` and grows linearly after; the gradient-thresholding estimator takes the first :math:`\lambda` where
the slope :math:`(\hat d(\lambda + \epsilon/2) - \hat d(\lambda))\,2/\epsilon` exceeds a threshold, and
:math:`\hat\kappa = (\hat\lambda - 1)/\hat\lambda`. KM1 uses the threshold :math:`1/\sqrt{\min(N, M)}`, KM2
:math:`0.8\,\hat d'(1) + 0.2\,\lVert \hat\mu_F - \hat\mu_H \rVert` with :math:`\hat d'(1)` the slope between
:math:`\lambda = 1` and 1.05 (the choices of the authors' code). The kernel width is the one of
:math:`\{0.1, 0.32, 1, 3.2, 10\} \times` the median pairwise distance that maximises the RKHS distance between the
two samples' embeddings.

Implementation: features are standardised on the pooled subsample; the Gram matrices of the five widths are built
at once; each :math:`\hat d(\lambda)` is a simplex-constrained QP solved by accelerated projected gradient (FISTA,
step :math:`1/(2\lambda_{\max}(HKH))`, :math:`H` the centring matrix, fixed iteration count); the search over
:math:`\lambda \in [1, 8]` evaluates ``n_grid`` values (and their :math:`+\epsilon/2` partners) per round in one
batched solve and keeps the bracket where the slope first exceeds the threshold (``n_grid=1`` is the bisection of
the authors' code). The bootstrap resamples the mixture and component rows of the subsample (the kernel width is
kept) and runs the same search for every resample in one batched program.
"""
from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

from pujax._compile import jit
from pujax.devices import device_mesh, to_host
from pujax.linalg import matmul, sparse_squared_distances, squared_distances
from pujax.preprocessing import standardization, standardize
from pujax.prior._common import map_resamples
from pujax.random import host_fold_in

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = ["km_estimate"]

_WIDTH_FACTORS = np.logspace(-1, 1, 5)
_LAMBDA_MAX = 8.0
_EPSILON = 0.04
_KM2_STEP = 0.05
_KM2_MIX = 0.2


@jit("heavy")
def _sq_dists(Z):
    return squared_distances(Z, Z)


def _standardized_sq_dists(Xm, Xc, dt):
    """Squared distances of the rows of ``[Xm; Xc]`` standardised per feature (a scipy sparse pair scaled without
    centring, which leaves the distances of the centred rows: the products stay sparse)."""
    if sp.issparse(Xm) or sp.issparse(Xc):
        Z = sp.vstack([sp.csr_matrix(Xm, dtype=np.float64), sp.csr_matrix(Xc, dtype=np.float64)], format="csr")
        Z = standardize(Z, *standardization(Z), dtype=np.float64)
        return jnp.asarray(sparse_squared_distances(Z, Z), dt)
    Z = np.vstack([np.asarray(Xm, np.float64), np.asarray(Xc, np.float64)])
    Z = standardize(Z, *standardization(Z), dtype=np.float64)
    return _sq_dists(jnp.asarray(Z, dt))


@jit("heavy")
def _kernel(D2, diff):
    """Gram matrix of the width (of five) that maximises the RKHS distance ``sqrt(diff' K diff)``, from the squared
    distances ``D2``."""
    width = jnp.sqrt(jnp.median(D2)) * jnp.asarray(_WIDTH_FACTORS, D2.dtype)
    Ks = jnp.exp(-D2[None] / (2.0 * width[:, None, None] ** 2))
    dist = jnp.sqrt(jnp.maximum(jnp.einsum("i,wij,j->w", diff, Ks, diff), 0.0))
    best = jnp.argmax(dist)
    return Ks[best], width[best], dist[best]


def _project_simplex(x, mask):
    """Euclidean projection of every column of ``x`` onto the simplex of the rows where ``mask`` holds."""
    n = x.shape[0]
    live = jnp.where(mask[:, None], x, -jnp.inf)
    u = -jnp.sort(-live, axis=0)
    fin = jnp.isfinite(u)
    css = jnp.cumsum(jnp.where(fin, u, 0.0), axis=0) - 1.0
    ind = jnp.arange(1, n + 1, dtype=x.dtype)[:, None]
    rho = jnp.maximum(jnp.sum(fin & (u - css / ind > 0), axis=0), 1)
    theta = jnp.take_along_axis(css, (rho - 1)[None, :], axis=0)[0] / rho.astype(x.dtype)
    return jnp.where(mask[:, None], jnp.maximum(x - theta, 0.0), 0.0)


def _distances(K, U, mask, inv_L, n_iter):
    """``min_{v in simplex(mask)} sqrt((u - v)' K (u - v))`` for every column ``u`` of ``U`` (FISTA)."""
    v0 = _project_simplex(U, mask)  # exact at lambda = 1, where u itself is a distribution

    def step(carry, _):
        v, y, t = carry
        v_new = _project_simplex(y - inv_L * (2.0 * matmul(K, y - U)), mask)
        t_new = 0.5 * (1.0 + jnp.sqrt(1.0 + 4.0 * t * t))
        return (v_new, v_new + ((t - 1.0) / t_new) * (v_new - v), t_new), None

    (v, _, _), _ = jax.lax.scan(step, (v0, v0, jnp.asarray(1.0, U.dtype)), None, length=n_iter)
    R = U - v
    return jnp.sqrt(jnp.maximum(jnp.sum(R * matmul(K, R), axis=0), 0.0))


def _search(K, a, b, mask, inv_L, threshold, n_iter, n_grid, n_rounds):
    """Smallest lambda in [1, 8] whose slope of d exceeds ``threshold`` (bracketed to 7 / (n_grid + 1)^rounds)."""
    frac = jnp.arange(1, n_grid + 1, dtype=a.dtype) / (n_grid + 1)

    def one_round(_, bracket):
        lo, hi = bracket
        lam = lo + (hi - lo) * frac
        lams = jnp.concatenate([lam, lam + 0.5 * _EPSILON])
        d = _distances(K, lams * a[:, None] + (1.0 - lams) * b[:, None], mask, inv_L, n_iter)
        above = (d[n_grid:] - d[:n_grid]) * (2.0 / _EPSILON) > threshold
        j = jnp.where(jnp.any(above), jnp.argmax(above), n_grid)
        edges = jnp.concatenate([lo[None], lam, hi[None]])
        return edges[j], edges[j + 1]

    one = jnp.asarray(1.0, a.dtype)
    lo, hi = jax.lax.fori_loop(0, n_rounds, one_round, (one, one * _LAMBDA_MAX))
    return 0.5 * (lo + hi)


def _km_weights(K, a, b, mask, inv_L, n_iter, n_grid, n_rounds, min_n, variants=(0, 1)):
    """(kappas, dist, km2_threshold) for mixture weights ``a`` and component weights ``b``; ``kappas`` holds the
    estimates of ``variants`` (0: KM1, 1: KM2)."""
    diff = a - b
    dist = jnp.sqrt(jnp.maximum(matmul(matmul(diff, K), diff), 0.0))
    thr2 = jnp.zeros((), a.dtype)
    if 1 in variants:
        lams = jnp.asarray([1.0, 1.0 + _KM2_STEP], a.dtype)
        d = _distances(K, lams * a[:, None] + (1.0 - lams) * b[:, None], mask, inv_L, n_iter)
        thr2 = (1.0 - _KM2_MIX) * (d[1] - d[0]) / _KM2_STEP + _KM2_MIX * dist
    thresholds = jnp.stack([1.0 / jnp.sqrt(jnp.asarray(min_n, a.dtype)), thr2])[jnp.asarray(variants)]
    lam = jax.vmap(lambda t: _search(K, a, b, mask, inv_L, t, n_iter, n_grid, n_rounds))(thresholds)
    return (lam - 1.0) / lam, dist, thr2


@partial(jit, "heavy", static_argnames=("min_n", "n_iter", "n_grid", "n_rounds"))
def _km_point(K, a, b, inv_L, min_n, n_iter, n_grid, n_rounds):
    mask = jnp.ones(a.shape, bool)
    return _km_weights(K, a, b, mask, inv_L, n_iter, n_grid, n_rounds, min_n)


@partial(jit, "heavy",
         static_argnames=("n_mix", "n_bootstrap", "n_iter", "n_grid", "n_rounds", "batch", "variant", "mesh"))
def _km_boot(key, K, inv_L, n_mix, n_bootstrap, n_iter, n_grid, n_rounds, batch, variant, mesh):
    n = K.shape[0]
    n_comp = n - n_mix
    dt = K.dtype

    def one(k):
        km, kc = jax.random.split(k)
        cm = jnp.bincount(jax.random.randint(km, (n_mix,), 0, n_mix), length=n_mix).astype(dt)
        cc = jnp.bincount(jax.random.randint(kc, (n_comp,), 0, n_comp), length=n_comp).astype(dt)
        a = jnp.concatenate([cm / n_mix, jnp.zeros(n_comp, dt)])
        b = jnp.concatenate([jnp.zeros(n_mix, dt), cc / n_comp])
        kappa, _, _ = _km_weights(K, a, b, (a + b) > 0, inv_L, n_iter, n_grid, n_rounds, min(n_mix, n_comp),
                                  (variant,))
        return kappa[0]

    return map_resamples(one, key, n_bootstrap, batch, mesh)


def n_rounds_for(n_grid: int) -> int:
    """Rounds of the search that shrink [1, 8] below the resolution 0.04 of the authors' bisection."""
    return max(1, math.ceil(math.log((_LAMBDA_MAX - 1.0) / _EPSILON) / math.log(n_grid + 1) - 1e-9))


def km_estimate(X_mixture: ArrayLike, X_component: ArrayLike, *, n_iter: int = 200, n_grid: int = 3,
                key: jax.Array | None = None, n_bootstrap: int = 0, variant: str = "km1",
                devices: DevicesLike = None) -> dict:
    """KM1 and KM2 estimates of the proportion of the component in the mixture (Ramaswamy et al. 2016).

    Parameters
    ----------
    X_mixture : array or scipy sparse matrix of shape (N, d)
        Rows of the mixture (the unlabeled rows).
    X_component : array or scipy sparse matrix of shape (M, d)
        Rows of the component (the labeled positives).
    n_iter : int, default=200
        FISTA iterations of every distance evaluation.
    n_grid : int, default=3
        Values of lambda evaluated together per round of the search (1: bisection).
    key : JAX PRNG key or None
        Key of the bootstrap (needed when ``n_bootstrap > 0``).
    n_bootstrap : int, default=0
        Bootstrap resamples (rows of both samples resampled, the kernel kept).
    variant : {"km1", "km2"}, default="km1"
        The estimator the bootstrap recomputes.
    devices : None, int, list of jax.Device or jax.sharding.Mesh, default=None
        Where the bootstrap resamples run (split over the devices; :mod:`pujax.devices`).

    Returns
    -------
    dict
        ``km1``, ``km2`` (floats), ``kernel_width``, ``rkhs_distance``, ``km2_threshold`` and, with a bootstrap,
        ``bootstrap`` (array of shape (n_bootstrap,), the ``variant`` estimate of each resample).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.prior.km import km_estimate
    >>> rng = np.random.default_rng(0)
    >>> comp = rng.normal(3.0, 1.0, size=(150, 1))
    >>> mix = np.r_[rng.normal(3.0, 1.0, size=(75, 1)), rng.normal(-3.0, 1.0, size=(75, 1))]
    >>> out = km_estimate(mix, comp)
    >>> 0.35 < out["km1"] < 0.65
    True
    """
    n_mix, n_comp = X_mixture.shape[0], X_component.shape[0]
    dt = jnp.result_type(float)
    a = np.r_[np.full(n_mix, 1.0 / n_mix), np.zeros(n_comp)]
    b = np.r_[np.zeros(n_mix), np.full(n_comp, 1.0 / n_comp)]
    K, width, dist = _kernel(_standardized_sq_dists(X_mixture, X_component, dt), jnp.asarray(a - b, dt))
    n = n_mix + n_comp
    Hc = np.eye(n) - 1.0 / n
    lam_max = float(np.linalg.eigvalsh(Hc @ np.asarray(K, np.float64) @ Hc)[-1])
    inv_L = jnp.asarray(1.0 / (2.0 * max(lam_max, 1e-12)), dt)
    n_rounds = n_rounds_for(n_grid)
    kappa, dist, thr2 = _km_point(K, jnp.asarray(a, dt), jnp.asarray(b, dt), inv_L, min(n_mix, n_comp), n_iter,
                                  n_grid, n_rounds)
    out = dict(km1=float(kappa[0]), km2=float(kappa[1]), kernel_width=float(width), rkhs_distance=float(dist),
               km2_threshold=float(thr2))
    if n_bootstrap:
        batch = int(max(1, min(n_bootstrap, 2_000_000 // max(1, n * 4 * n_grid))))
        j = ("km1", "km2").index(variant)
        out["bootstrap"] = to_host(_km_boot(key, K, inv_L, n_mix, n_bootstrap, n_iter, n_grid, n_rounds, batch, j,
                                            device_mesh(devices)))
    return out


def _subsample(rng, n, max_samples):
    return np.sort(rng.choice(n, size=max_samples, replace=False)) if n > max_samples else np.arange(n)


def _run(ctx, *, max_samples, n_iter, n_grid, variant):
    rng = np.random.default_rng(ctx.seed)
    Xu, Xp = ctx.X[ctx.s == 0], ctx.X[ctx.s == 1]
    iu, ip = _subsample(rng, Xu.shape[0], max_samples), _subsample(rng, Xp.shape[0], max_samples)
    out = km_estimate(Xu[iu], Xp[ip], n_iter=n_iter, n_grid=n_grid, key=host_fold_in(ctx.key, 1),
                      n_bootstrap=ctx.n_bootstrap, variant=variant, devices=ctx.devices)
    diag = dict(km1=out["km1"], km2=out["km2"], kernel_width=out["kernel_width"],
                rkhs_distance=out["rkhs_distance"], km2_threshold=out["km2_threshold"],
                n_mixture=int(iu.size), n_component=int(ip.size), n_iter=n_iter, n_grid=n_grid)
    return out[variant], out["bootstrap"], None, diag


def _method(variant):
    from pujax.prior._registry import Method, opt_int

    def run(ctx, **opts):
        return _run(ctx, variant=variant, **opts)

    options = {"max_samples": (250, opt_int(2)), "n_iter": (200, opt_int()), "n_grid": (3, opt_int())}
    return Method(variant, options, run, default_bootstrap=20, reference="Ramaswamy, Scott & Tewari 2016")
