"""The synthetic 2-D data set and the three label-noise settings of Claesen et al. 2015 (RESVM), §4.1-4.2.

Positives ~ N(0, I_2); negatives = a point drawn uniformly on the circle of radius 4 centred at the origin plus
N(0, I_2) noise. Settings (Table 1 contamination c, 30% for synthetic):

* ``"supervised"``: no contamination in P or U (U is the negative class);
* ``"pu"``: a fraction c of U are positives, P clean;
* ``"semi-supervised"``: a fraction c of P are negatives and a fraction c of U are positives (equal contamination).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from pujax.random import as_key
from pujax.validation import check_float, check_in, check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["make_circle_data", "make_label_noise_setting", "LABEL_NOISE_SETTINGS"]

LABEL_NOISE_SETTINGS = ("supervised", "pu", "semi-supervised")


def make_circle_data(key: jax.Array | int, n_pos: int, n_neg: int, radius: float = 4.0,
                     noise: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n_pos`` positives from N(0, I) and ``n_neg`` negatives on a noisy circle of radius ``radius``.

    Returns ``(X, y)``: float32 (n_pos + n_neg, 2) and int32 labels (1 = positive), positives first.
    """
    n_pos = check_int(n_pos, "n_pos", low=0)
    n_neg = check_int(n_neg, "n_neg", low=0)
    if n_pos + n_neg == 0:
        raise ValueError("n_pos + n_neg must be >= 1.")
    radius = check_float(radius, "radius", 0.0, np.inf)
    noise = check_float(noise, "noise", 0.0, np.inf, closed="left")
    k1, k2, k3 = jax.random.split(as_key(key), 3)
    pos = jax.random.normal(k1, (n_pos, 2))
    theta = jax.random.uniform(k2, (n_neg,), minval=0.0, maxval=2.0 * jnp.pi)
    neg = radius * jnp.stack([jnp.cos(theta), jnp.sin(theta)], axis=1) + noise * jax.random.normal(k3, (n_neg, 2))
    X = np.asarray(jnp.concatenate([pos, neg]), np.float32)
    y = np.concatenate([np.ones(n_pos, np.int32), np.zeros(n_neg, np.int32)])
    return X, y


def make_label_noise_setting(key: jax.Array | int, X: ArrayLike, y: ArrayLike, setting: str, n_pos: int, n_unl: int,
                             contamination: float = 0.3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training set of one of the paper's three settings drawn from a labelled pool ``(X, y)``.

    ``setting`` in ``("supervised", "pu", "semi-supervised")``; ``contamination`` is the fraction of mislabeled
    rows in U (pu) or in both P and U (semi-supervised). Returns ``(X_train, s, y_train)`` with the ``n_pos``
    labeled rows first (via :func:`pujax.data.contaminate`).
    """
    from pujax.data.splits import contaminate

    check_in(setting, "setting", LABEL_NOISE_SETTINGS)
    c = check_float(contamination, "contamination", 0.0, 1.0, closed="left")
    cp = c if setting == "semi-supervised" else 0.0
    cu = 0.0 if setting == "supervised" else c
    return contaminate(key, X, y, n_pos, n_unl, pos_contamination=cp, unl_contamination=cu)
