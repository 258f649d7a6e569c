r"""Decision stumps of a supervised (PN) fit, many at once: the functional core of
:class:`~pujax.boosting.DecisionStumpClassifier`.

A stump splits on one feature ``f`` at a threshold ``θ`` (rows with ``x_f <= θ`` go left) and predicts in each side
the weighted fraction of positive rows. Among all features and all thresholds between consecutive distinct values,
it takes the split of largest Gini impurity decrease, i.e. the largest

.. math:: \frac{P_L^2 + Q_L^2}{N_L} + \frac{P_R^2 + Q_R^2}{N_R}

(``P``, ``Q``, ``N``: positive, negative and total row weight of a side; scikit-learn's proxy of the decrease), with
scikit-learn's threshold (the midpoint of the two values, float64), ties to the lowest position and feature, and no
split of a pure sample. :func:`stump_fit` fits ``B`` stumps, each on its own row weights (bootstrap counts of a bag,
sample weights), in one program: every feature is sorted once, and per weighting the prefix sums of the weights in
each feature's order give all candidates (``lax.map`` over the weightings, memory ``O(n d)``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from pujax._compile import bucket_size, jit, pad_rows
from pujax.persistence import register_model

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["StumpModel", "stump_fit", "stump_proba"]

_FEATURE_THRESHOLD = 1e-7  # scikit-learn's: sorted values closer than this are not split apart


class StumpModel(NamedTuple):
    """``B`` fitted decision stumps.

    Attributes
    ----------
    feature : (B,) int32, the split feature; -1 where the stump is a single leaf (a pure or unsplittable sample).
    threshold : (B,) float64, rows with ``x_feature <= threshold`` go left.
    proba : (B, 2) float64, the positive-class probability on the left and on the right (equal for a leaf).
    """

    feature: np.ndarray
    threshold: np.ndarray
    proba: np.ndarray


register_model(StumpModel, {"feature": "i[n_stumps]", "threshold": "f[n_stumps]", "proba": "f[n_stumps,2]"})


_SCAN_ROWS = 4096  # from this many rows on, prefix sums are a parallel-prefix scan


def _prefix_sums(a):
    """Cumulative sums over axis 0: a parallel-prefix scan on ``_SCAN_ROWS`` rows or more (about twice as fast as
    ``jnp.cumsum`` there on XLA:CPU), ``jnp.cumsum`` below (its program compiles in a third of the time)."""
    return lax.associative_scan(jnp.add, a, axis=0) if a.shape[0] >= _SCAN_ROWS else jnp.cumsum(a, axis=0)


@jit("kernel")
def _best_splits(X, Y, C):
    """Per weighting ``b``: the best feature, its criterion, the largest value on the left of its split, the smallest
    on the right and the left and total weights (positive, all). ``X`` (n, d) float32, ``Y``/``C`` (B, n)
    positive / total row weights.

    Candidates are the ends of runs of equal values in each feature's sorted order (the next sorted value is larger
    by more than scikit-learn's ``1e-7``) with rows of the sample on both sides. Candidates that split the sample's
    rows the same way have the same criterion, and the first of them (the one ``argmax`` takes) ends the run of the
    largest value on the left; the smallest value on the right is then found for the chosen feature only."""
    n, d = X.shape
    order = jnp.argsort(X, axis=0)
    Xs = jnp.take_along_axis(X, order, axis=0)
    run_end = jnp.concatenate([Xs[1:] > Xs[:-1] + _FEATURE_THRESHOLD, jnp.zeros((1, d), bool)])

    def one(weights):
        y, c = weights[0], weights[1]
        PL, NL = _prefix_sums(y[order]), _prefix_sums(c[order])  # (n, d): left sums in each feature's order
        KL = _prefix_sums((c > 0).astype(jnp.int32)[order])  # rows of the sample on the left, exactly
        PR, NR = PL[-1] - PL, NL[-1] - NL
        QL, QR = NL - PL, NR - PR
        crit = (PL * PL + QL * QL) / jnp.where(NL > 0, NL, 1.0) + (PR * PR + QR * QR) / jnp.where(NR > 0, NR, 1.0)
        crit = jnp.where(run_end & (KL > 0) & (KL < KL[-1]), crit, -jnp.inf)
        r = jnp.argmax(crit, axis=0)  # the first best position of every feature
        best = crit[r, jnp.arange(d)]
        f = jnp.argmax(best)
        lo = Xs[r[f], f]
        hi = jnp.min(jnp.where((c > 0) & (X[:, f] > lo), X[:, f], jnp.inf))
        return f, best[f], lo, hi, PL[r[f], f], NL[r[f], f], PL[-1, 0], NL[-1, 0]

    return lax.map(one, jnp.stack([Y, C], axis=1))


def stump_fit(X: ArrayLike, Y: ArrayLike, C: ArrayLike) -> StumpModel:
    """Fit ``B`` stumps on the rows of ``X`` (n, d), stump ``b`` under the row weights ``C[b]`` (B, n) of which
    ``Y[b]`` is positive (``0 <= Y <= C``; a weight of 0 leaves the row out). Stump ``b`` equals scikit-learn's
    ``DecisionTreeClassifier(max_depth=1)`` fitted with ``sample_weight=C[b]`` on labels ``Y[b] > 0`` (up to the
    float32 criterion deciding near-ties; scikit-learn breaks exact ties between features at random)."""
    X = np.asarray(X, np.float32)
    Y, C = np.atleast_2d(np.asarray(Y, np.float32)), np.atleast_2d(np.asarray(C, np.float32))
    m = bucket_size(X.shape[0])  # padding rows carry no weight
    f, crit, lo, hi, PL, NL, P, N = (np.asarray(a) for a in _best_splits(
        jnp.asarray(pad_rows(m, X)), jnp.asarray(pad_rows(m, Y.T).T), jnp.asarray(pad_rows(m, C.T).T)))
    p_all = np.asarray(P, np.float64) / np.maximum(N, np.finfo(np.float32).tiny)
    split = np.isfinite(crit) & (P > 0) & (P < N)
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        mid = lo / 2.0 + hi / 2.0
        threshold = np.where(split, np.where((mid == hi) | ~np.isfinite(mid), lo, mid), 0.0)
        left = np.where(split, PL / np.where(split, NL, 1.0), p_all)
        right = np.where(split, (P - PL) / np.where(split, N - NL, 1.0), p_all)
    return StumpModel(np.where(split, f, -1).astype(np.int32), threshold.astype(np.float64),
                      np.stack([left, right], axis=1).astype(np.float64))


def stump_proba(model: StumpModel, X: ArrayLike, rows: ArrayLike | None = None) -> np.ndarray:
    """Positive-class probability of every stump, shape (B, n_samples); with ``rows`` (B, m) indices into ``X``,
    stump ``b`` scores only ``X[rows[b]]`` (shape (B, m)). ``X`` is compared in float32, as scikit-learn's trees
    do."""
    X = np.asarray(X, np.float32)
    f = np.maximum(model.feature, 0)
    cols = X[:, f].T if rows is None else X[np.asarray(rows), f[:, None]]
    right = cols > np.asarray(model.threshold)[:, None]
    return np.where(right, model.proba[:, 1, None], model.proba[:, 0, None])
