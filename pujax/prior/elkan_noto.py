r"""Elkan & Noto, *Learning classifiers from only positive and unlabeled data*, KDD 2008, section 2.

With :math:`g(x) \approx P(s=1 \mid x)` and a held-out set V with labeled part :math:`P_V`,
:math:`e_1 = \frac{1}{|P_V|}\sum_{P_V} g`, :math:`e_2 = \sum_{P_V} g / \sum_V g` and :math:`e_3 = \max_V g` all
estimate the label frequency :math:`c` (``variant`` picks one, ``"e1"`` by default as the paper recommends);
:math:`\theta` follows by (C2). The bootstrap resamples rows of the held-out scores.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import jit
from pujax.devices import device_mesh, to_host
from pujax.prior._common import batch_size, bucket, c_to_prior, map_resamples, pad, row_counts
from pujax.validation import check_int, check_pu_labels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = ["elkan_noto_estimates", "elkan_noto_bootstrap"]

VARIANTS = ("e1", "e2", "e3")


def _en_core(g, s, w):
    """(e1, e2, e3, n_l, n_u) for probabilities g, labels s in {0,1}, row weights w (0 = absent / padding)."""
    dt = g.dtype
    sw = s.astype(dt) * w
    n_l = jnp.sum(sw)
    n_u = jnp.sum((1.0 - s.astype(dt)) * w)
    tiny = jnp.asarray(jnp.finfo(dt).tiny, dt)
    e1 = jnp.sum(sw * g) / jnp.maximum(n_l, tiny)                 # mean of g over held-out labeled rows
    e2 = jnp.sum(sw * g) / jnp.maximum(jnp.sum(w * g), tiny)      # sum_P g / sum_V g
    e3 = jnp.max(jnp.where(w > 0, g, -jnp.inf))                   # max_V g
    return e1, e2, e3, n_l, n_u


def _prep_en(g, s):
    dt = np.dtype(jnp.result_type(float))
    g = np.ravel(np.asarray(g, dtype=dt))
    s = check_pu_labels(s, require_both=False)
    if g.shape != s.shape:
        raise ValueError(f"g has {g.shape[0]} values but s has {s.shape[0]}; pass one probability per row.")
    if not np.all(np.isfinite(g)):
        raise ValueError("g contains NaN or infinite values; pass probabilities P(s=1|x) in [0, 1].")
    n = g.shape[0]
    size = bucket(n)
    return pad(g, size, 0.0), pad(s, size, 0), n


@jit("kernel")
def _en_point_jit(g, s, n):
    w = (jnp.arange(g.shape[0]) < n).astype(g.dtype)
    e1, e2, e3, n_l, n_u = _en_core(g, s, w)
    es = jnp.stack([e1, e2, e3])
    return es, c_to_prior(es, n_l, n_u)


def elkan_noto_estimates(g: ArrayLike, s: ArrayLike) -> dict[str, jax.Array]:
    """Elkan & Noto (2008) estimators of the label frequency from held-out probabilities ``g ~ P(s=1|x)``.

    Returns ``(c, prior)``: two length-3 arrays with (e1, e2, e3) and the corresponding unlabeled-row priors by
    (C2), clipped to [0, 1]. ``s`` are the PU labels of the held-out rows.
    """
    g, s, n = _prep_en(g, s)
    return _en_point_jit(g, s, n)


@partial(jit, "kernel", static_argnames=("n_bootstrap", "batch_size", "mesh"))
def _en_boot_jit(key, g, s, n, n_bootstrap, batch_size, mesh):
    size = g.shape[0]

    def one(k):
        w = row_counts(k, size, n, g.dtype)
        e1, e2, e3, n_l, n_u = _en_core(g, s, w)
        return c_to_prior(jnp.stack([e1, e2, e3]), n_l, n_u)

    return map_resamples(one, key, n_bootstrap, batch_size, mesh)


def elkan_noto_bootstrap(key: jax.Array, g: ArrayLike, s: ArrayLike, n_bootstrap: int = 200,
                         devices: DevicesLike = None) -> np.ndarray:
    """Priors (columns e1, e2, e3) on ``n_bootstrap`` row resamples of held-out ``(g, s)``, vmap-ed; the resamples
    are split over ``devices`` (:mod:`pujax.devices`)."""
    n_bootstrap = check_int(n_bootstrap, "n_bootstrap")
    g, s, n = _prep_en(g, s)
    return to_host(_en_boot_jit(key, g, s, n, n_bootstrap, batch_size(n_bootstrap, g.shape[0]), device_mesh(devices)))


def _run(ctx, *, n_folds, n_jobs, variant):
    cs, priors = elkan_noto_estimates(ctx.scores, ctx.s)
    cs, priors = np.asarray(cs), np.asarray(priors)
    j = VARIANTS.index(variant)
    diag = dict(variant=variant, e1=float(cs[0]), e2=float(cs[1]), e3=float(cs[2]),
                prior_e1=float(priors[0]), prior_e2=float(priors[1]), prior_e3=float(priors[2]))
    boot = elkan_noto_bootstrap(ctx.key, ctx.scores, ctx.s, ctx.n_bootstrap, devices=ctx.devices)[:, j]
    return float(priors[j]), boot, None, diag


def _method():
    from pujax.prior._registry import SCORE_OPTIONS, Method, opt_in

    return Method("elkan_noto", dict(SCORE_OPTIONS, variant=("e1", opt_in(VARIANTS))), _run, scores="proba",
                  reference="Elkan & Noto 2008, section 2")
