r"""Best Bin Estimation (BBE): Garg, Wu, Smola, Balakrishnan & Lipton, *Mixture proportion estimation and PU
learning: a modern approach*, NeurIPS 2021, Algorithm 1.

A P-vs-U classifier is trained; on held-out scores, :math:`\hat q_p(z)`, :math:`\hat q_u(z)` are the fractions of P
and U scores :math:`\ge z`. Because :math:`q_u(z) = \theta q_p(z) + (1-\theta) q_n(z) \ge \theta q_p(z)`, every
ratio :math:`q_u/q_p` is an upper bound on :math:`\theta`, tight for a "top bin" free of negatives. BBE picks

.. math:: \hat z = \arg\min_z \frac{\hat q_u(z)}{\hat q_p(z)} + \frac{1+\gamma}{\hat q_p(z)}
          \Big(\sqrt{\tfrac{\log(4/\delta)}{2 n_p}} + \sqrt{\tfrac{\log(4/\delta)}{2 n_u}}\Big),
          \qquad \hat\theta = \hat q_u(\hat z)/\hat q_p(\hat z)

(the upper confidence bound from the DKW inequality; ``delta = 0.1``, ``gamma = 0.01`` as in the paper).
The bootstrap resamples held-out P and U scores (the threshold is re-selected in every resample).
``interval="dkw"`` gives the DKW upper bound :math:`\min_z (\hat q_u + \epsilon_u)/(\hat q_p - \epsilon_p)`
(valid at level :math:`1-\delta` for any classifier) with the lower bound
:math:`(\hat q_u(\hat z) - \epsilon_u)/(\hat q_p(\hat z) + \epsilon_p)`, valid only when the selected top bin
holds no negatives (the paper's top-bin assumption).
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import jit
from pujax.devices import device_mesh, to_host
from pujax.prior._common import batch_size, bootstrap_counts, bucket, map_resamples
from pujax.validation import check_float, check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = ["bbe_estimate", "bbe_bootstrap", "bbe_from_scores"]


def _bbe_core(values, first, is_p, w, delta, gamma):
    """BBE (Garg et al. 2021, Alg. 1) on pooled held-out scores with row weights. Pure and jit/vmap-able.

    ``values`` are the pooled P and U scores sorted ascending (padding ``-inf`` first), ``first[k]`` the index of
    the first entry equal to ``values[k]`` (``searchsorted(values, values, "left")``), ``is_p`` 1 for P scores,
    ``w`` the weight of each entry (1 for a plain estimate, bootstrap counts for a resample, 0 for padding).
    Every distinct finite value is a candidate threshold z of the top bin {score >= z}.
    Returns (alpha, threshold, q_p, q_u, dkw_upper, dkw_lower) as 0-d arrays.
    """
    dt = w.dtype
    wp = w * is_p
    wu = w - wp
    n_p = jnp.sum(wp)
    n_u = jnp.sum(wu)
    zero = jnp.zeros((1,), dt)
    cp = jnp.concatenate([zero, jnp.cumsum(wp)])
    cu = jnp.concatenate([zero, jnp.cumsum(wu)])
    q_p = (n_p - cp[first]) / n_p            # fraction of P scores >= values[k]
    q_u = (n_u - cu[first]) / n_u
    log_term = jnp.log(jnp.asarray(4.0, dt) / delta)
    eps_p = jnp.sqrt(log_term / (2.0 * n_p))
    eps_u = jnp.sqrt(log_term / (2.0 * n_u))
    valid = (q_p > 0) & jnp.isfinite(values)
    safe_qp = jnp.where(valid, q_p, 1.0)
    big = jnp.asarray(jnp.finfo(dt).max, dt)
    # Algorithm 1, step 3: argmin of the upper confidence bound q_u/q_p + (1 + gamma)/q_p (eps_p + eps_u)
    objective = jnp.where(valid, (q_u + (1.0 + gamma) * (eps_p + eps_u)) / safe_qp, big)
    k = jnp.argmin(objective)
    alpha = jnp.clip(q_u[k] / safe_qp[k], 0.0, 1.0)
    # DKW: with prob >= 1 - delta, q_u <= q_u_hat + eps_u and q_p >= q_p_hat - eps_p for all z simultaneously,
    # and q_u(z)/q_p(z) >= alpha for every z, so the smallest ratio of the bounds is an upper bound on alpha.
    den = q_p - eps_p
    ok = valid & (den > 0)
    upper_z = jnp.where(ok, (q_u + eps_u) / jnp.where(ok, den, 1.0), big)
    dkw_upper = jnp.clip(jnp.min(upper_z), 0.0, 1.0)
    dkw_lower = jnp.clip((q_u[k] - eps_u) / (q_p[k] + eps_p), 0.0, 1.0)
    return alpha, values[k], q_p[k], q_u[k], dkw_upper, dkw_lower


def bbe_from_scores(scores: jax.Array, is_p: jax.Array, w: jax.Array, delta: float = 0.1,
                    gamma: float = 0.01) -> jax.Array:
    """The BBE estimate of the mixture proportion (Garg et al. 2021, Algorithm 1) from pooled P and U scores on the
    device: ``scores`` of every row, ``is_p`` 1 for a P score and 0 for a U score, ``w`` the row weights (0 for
    padding). Pure and jit / vmap-able (a sort of the pooled scores, then :func:`_bbe_core`); the training loop of
    CVIR (:mod:`pujax.neural.rules_label`) calls it after every epoch."""
    dt = jnp.result_type(scores.dtype, jnp.float32)
    values = jnp.where(w > 0, scores.astype(dt), -jnp.inf)
    order = jnp.argsort(values)
    values = values[order]
    first = jnp.searchsorted(values, values, side="left")
    return _bbe_core(values, first, is_p[order].astype(dt), w[order].astype(dt), delta, gamma)[0]


def prep_scores(scores_p, scores_u):
    """Pool, sort and pad P and U scores (host side). Returns (values, first, is_p, w, pos_p, pos_u, n_p, n_u)."""
    sp = np.ravel(np.asarray(scores_p, dtype=np.float64))
    su = np.ravel(np.asarray(scores_u, dtype=np.float64))
    if sp.size == 0 or su.size == 0:
        raise ValueError("BBE needs at least one positive and one unlabeled score.")
    if not (np.all(np.isfinite(sp)) and np.all(np.isfinite(su))):
        raise ValueError("scores contain NaN or infinite values; pass finite classifier scores.")
    n = sp.size + su.size
    size = bucket(n)
    pad = size - n
    values = np.concatenate([np.full(pad, -np.inf), sp, su])
    is_p = np.concatenate([np.zeros(pad), np.ones(sp.size), np.zeros(su.size)])
    order = np.argsort(values, kind="stable")
    values, is_p = values[order], is_p[order]
    first = np.searchsorted(values, values, side="left")
    w = np.isfinite(values).astype(np.float64)
    # positions of the P and U entries (padded with 0; only the first n_p / n_u are used)
    pos_p = np.zeros(size, np.int32)
    pos_u = np.zeros(size, np.int32)
    ip = np.flatnonzero(is_p == 1)
    iu = np.flatnonzero((is_p == 0) & (w > 0))
    pos_p[: ip.size] = ip
    pos_u[: iu.size] = iu
    dt = np.dtype(jnp.result_type(float))
    # jax.device_put: jnp.asarray of a numpy array would compile a small program per shape and dtype
    put = jax.device_put
    return (put(values.astype(dt)), put(first.astype(np.int32)), put(is_p.astype(dt)), put(w.astype(dt)),
            put(pos_p), put(pos_u), sp.size, su.size)


@jit("kernel")
def _bbe_jit(values, first, is_p, w, delta, gamma):
    return _bbe_core(values, first, is_p, w, delta, gamma)


def bbe_estimate(scores_p: ArrayLike, scores_u: ArrayLike, delta: float = 0.1,
                 gamma: float = 0.01) -> dict[str, jax.Array]:
    """Best Bin Estimation (Garg et al. 2021, Algorithm 1) from held-out P-vs-U classifier scores.

    Parameters
    ----------
    scores_p, scores_u : 1-D arrays
        Scores of held-out labeled positives and held-out unlabeled rows (higher = more "labeled"-like).
    delta, gamma : float
        Confidence level and slack of the upper confidence bound (paper defaults 0.1 and 0.01).

    Returns
    -------
    dict of 0-d JAX arrays: ``prior`` (the mixture proportion of P in U, clipped to [0, 1]), ``threshold`` (the
    selected top-bin score z; the top bin is {score >= z}), ``q_p``, ``q_u`` (fractions of P and U scores in the top
    bin), ``dkw_upper`` (DKW upper bound on the proportion, valid at level 1 - delta) and ``dkw_lower`` (valid only
    for a top bin without negatives). Candidate thresholds are all pooled scores. Jit-compiled; inputs are padded
    to a few sizes so that similar sizes share one compilation.
    """
    delta = check_float(delta, "delta", 0.0, 1.0)
    gamma = check_float(gamma, "gamma", 0.0, None, closed="left")
    values, first, is_p, w, _, _, _, _ = prep_scores(scores_p, scores_u)
    out = _bbe_jit(values, first, is_p, w, delta, gamma)
    return dict(zip(("prior", "threshold", "q_p", "q_u", "dkw_upper", "dkw_lower"), out))


def bbe_resample(key, values, first, is_p, pos_p, pos_u, n_p, n_u, delta, gamma):
    """BBE estimate on one bootstrap resample (P and U resampled separately with ``key``)."""
    kp, ku = jax.random.split(key)
    size = values.shape[0]
    w = bootstrap_counts(kp, pos_p, n_p, size, is_p.dtype) + bootstrap_counts(ku, pos_u, n_u, size, is_p.dtype)
    return _bbe_core(values, first, is_p, w, delta, gamma)[0]


@partial(jit, "kernel", static_argnames=("n_bootstrap", "batch_size", "mesh"))
def _bbe_boot_jit(key, values, first, is_p, pos_p, pos_u, n_p, n_u, delta, gamma, n_bootstrap, batch_size, mesh):
    def one(k):
        return bbe_resample(k, values, first, is_p, pos_p, pos_u, n_p, n_u, delta, gamma)

    return map_resamples(one, key, n_bootstrap, batch_size, mesh)


def bbe_bootstrap(key: jax.Array, scores_p: ArrayLike, scores_u: ArrayLike, n_bootstrap: int = 200, delta: float = 0.1,
                  gamma: float = 0.01, devices: DevicesLike = None) -> np.ndarray:
    """BBE estimates on ``n_bootstrap`` resamples (P and U resampled separately), vmap-ed over resamples.

    Resample ``b`` uses ``jax.random.split(key, n_bootstrap)[b]``; the threshold is re-selected in every resample
    among the original pooled scores; the resamples are split over ``devices`` (:mod:`pujax.devices`). Returns a
    1-D array of ``n_bootstrap`` estimates.
    """
    n_bootstrap = check_int(n_bootstrap, "n_bootstrap")
    delta = check_float(delta, "delta", 0.0, 1.0)
    gamma = check_float(gamma, "gamma", 0.0, None, closed="left")
    values, first, is_p, _, pos_p, pos_u, n_p, n_u = prep_scores(scores_p, scores_u)
    return to_host(_bbe_boot_jit(key, values, first, is_p, pos_p, pos_u, n_p, n_u, delta, gamma, n_bootstrap,
                                 batch_size(n_bootstrap, values.shape[0]), device_mesh(devices)))


def _run(ctx, *, n_folds, n_jobs, delta, gamma, interval):
    s, scores = ctx.s, ctx.scores
    sp, su = scores[s == 1], scores[s == 0]
    out = bbe_estimate(sp, su, delta=delta, gamma=gamma)
    diag = dict(delta=delta, gamma=gamma, threshold=float(out["threshold"]), top_bin_q_p=float(out["q_p"]),
                top_bin_q_u=float(out["q_u"]), dkw_upper=float(out["dkw_upper"]),
                dkw_lower_pure_top_bin=float(out["dkw_lower"]))
    if interval == "dkw":
        return float(out["prior"]), None, (float(out["dkw_lower"]), float(out["dkw_upper"])), diag
    boot = bbe_bootstrap(ctx.key, sp, su, ctx.n_bootstrap, delta=delta, gamma=gamma, devices=ctx.devices)
    return float(out["prior"]), boot, None, diag


def _method():
    from pujax.prior._registry import SCORE_OPTIONS, Method, opt_float

    options = dict(SCORE_OPTIONS, delta=(0.1, opt_float(0.0, 1.0)), gamma=(0.01, opt_float(0.0, None, "left")))
    return Method("bbe", options, _run, scores="rank", intervals=("bootstrap", "dkw"),
                  reference="Garg et al. 2021, Alg. 1")
