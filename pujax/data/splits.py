r"""PU training sets from fully labeled data: case-control, censoring and contamination (DESIGN §1).

All functions are deterministic given the JAX key (an int seed is accepted too) and return numpy arrays
(:func:`make_case_control` and :func:`make_censoring` also take a scipy sparse ``X`` (CSR / CSC) and return it
sparse).

* :func:`make_case_control` -- the seed papers' protocol: P = ``n_labeled`` random positives, U = *all* rows
  (so U may contain copies of the P rows); ``X_train = concat(X_P, X)``, ``s = concat(ones, zeros)``,
  ``prior = mean(y)``, the positive fraction of the population U is drawn from.
* :func:`make_censoring` -- each positive is labeled with probability ``c`` (single-training-set scenario);
  the prior returned is the positive fraction among the *unlabeled* rows, which is what an estimator fitted on
  ``(X, s)`` needs (``pi_U = pi (1 - c) / (1 - pi c)``).
* :func:`contaminate` -- RESVM's settings (Claesen et al. 2015, §4.1): ``n_pos`` labeled rows of which a
  fraction are true negatives (false positives) and ``n_unl`` unlabeled rows of which a fraction are true
  positives; contamination 0 in P gives the PU setting, equal contamination in both the semi-supervised one.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import jax
import numpy as np
import scipy.sparse as sp

from pujax._compile import jit
from pujax.random import as_key, host_split
from pujax.validation import SPARSE_FORMATS, check_binary_labels, check_float, check_int, check_X

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["PUSplit", "make_case_control", "make_censoring", "contaminate"]


class PUSplit(NamedTuple):
    """A PU training set: features ``X``, PU labels ``s`` (1 = labeled) and the class prior to fit with."""

    X: np.ndarray
    s: np.ndarray
    prior: float


def _xy(X, y, accept_sparse=False):
    X = check_X(X, accept_sparse=accept_sparse)
    y = check_binary_labels(y, name="y", n_samples=X.shape[0])
    return X, y


@partial(jit, "metric", rows="candidates", static_argnames=("k", "replace"))
def _draw(key, candidates, *, k: int, replace: bool):
    return jax.random.choice(key, candidates, shape=(k,), replace=replace)


def _choice(key, candidates: np.ndarray, k: int, replace: bool = False) -> np.ndarray:
    """``jax.random.choice`` of ``k`` candidates, as one program (eager, its pieces compiled one by one)."""
    return np.asarray(_draw(key, candidates, k=int(k), replace=bool(replace)))


def make_case_control(key: jax.Array | int, X: ArrayLike, y: ArrayLike, n_labeled: int,
                      return_y: bool = False) -> PUSplit | tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    r"""Case-control PU split: ``n_labeled`` random positives as P, all rows as U (the papers' protocol).

    Parameters
    ----------
    key : JAX PRNG key or int
        Seed of the draw.
    X : array-like of shape (n, d)
        Features.
    y : array-like of shape (n,)
        True labels in {0, 1} (bool and {-1, +1} accepted).
    n_labeled : int
        Labeled positives, drawn without replacement from the positives.
    return_y : bool, default=False
        Also return ``y_train``, the true labels of the rows of ``X_train`` (ones for P, ``y`` for U).

    Returns
    -------
    PUSplit or tuple
        ``PUSplit(X_train, s, prior)`` (or ``(X_train, s, prior, y_train)``) with ``X_train = concat(X[P], X)``,
        ``s = concat(ones(n_labeled), zeros(n))`` and ``prior = mean(y)``.

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.data import make_case_control
    >>> X, y = np.arange(20.0).reshape(10, 2), np.array([1, 0] * 5)
    >>> X_train, s, prior = make_case_control(0, X, y, n_labeled=2)
    >>> X_train.shape, s.tolist(), prior
    ((12, 2), [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.5)
    """
    X, y = _xy(X, y, accept_sparse=SPARSE_FORMATS)
    n_labeled = check_int(n_labeled, "n_labeled")
    pos = np.flatnonzero(y == 1)
    if n_labeled > pos.size:
        raise ValueError(f"n_labeled={n_labeled} exceeds the number of positives in y ({pos.size}).")
    if pos.size == y.size:
        raise ValueError("y has no negative; the case-control protocol needs a population with both classes.")
    idx = _choice(as_key(key), pos, n_labeled)
    X_train = sp.vstack([X[idx], X], format=X.format) if sp.issparse(X) else np.concatenate([X[idx], X])
    s = np.concatenate([np.ones(n_labeled, np.int32), np.zeros(X.shape[0], np.int32)])
    prior = float(y.mean())
    if return_y:
        return X_train, s, prior, np.concatenate([np.ones(n_labeled, np.int32), y])
    return PUSplit(X_train, s, prior)


def make_censoring(key: jax.Array | int, X: ArrayLike, y: ArrayLike, labeled_fraction: float) -> PUSplit:
    r"""Censoring PU labels: each positive is labeled independently with probability ``labeled_fraction`` (c).

    Parameters
    ----------
    key : JAX PRNG key or int
        Seed of the draw.
    X : array-like of shape (n, d)
        Features (returned unchanged, as float32).
    y : array-like of shape (n,)
        True labels in {0, 1} (bool and {-1, +1} accepted).
    labeled_fraction : float in (0, 1]
        The label frequency c = P(s = 1 | y = 1).

    Returns
    -------
    PUSplit
        ``PUSplit(X, s, prior_u)`` where ``prior_u`` is the positive fraction among the unlabeled rows, the prior to
        pass to an estimator fitted on ``(X, s)``.

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.data import make_censoring
    >>> X, y = np.zeros((1000, 1)), np.array([1, 0] * 500)
    >>> X_c, s, prior_u = make_censoring(0, X, y, labeled_fraction=0.5)
    >>> bool(s[y == 0].sum() == 0), bool(0.25 < prior_u < 0.42)  # pi (1 - c) / (1 - pi c) = 1/3
    (True, True)
    """
    X, y = _xy(X, y, accept_sparse=SPARSE_FORMATS)
    c = check_float(labeled_fraction, "labeled_fraction", 0.0, 1.0, closed="right")
    draw = np.asarray(jax.random.uniform(as_key(key), (y.size,)))
    s = ((y == 1) & (draw < c)).astype(np.int32)
    if s.sum() == 0:
        raise ValueError("no positive was labeled; increase labeled_fraction or use more positives.")
    unl = s == 0
    if not unl.any():
        raise ValueError("every row was labeled (all rows positive and c = 1); there is no unlabeled data.")
    prior_u = float(y[unl].mean())
    if prior_u <= 0.0:
        raise ValueError("the unlabeled rows contain no positive (c = 1); there is nothing to learn in PU terms.")
    return PUSplit(X, s, prior_u)


def contaminate(key: jax.Array | int, X: ArrayLike, y: ArrayLike, n_pos: int, n_unl: int,
                pos_contamination: float = 0.0,
                unl_contamination: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Draw a (possibly contaminated) PU training set as in the RESVM paper's settings (Claesen et al. 2015, §4.1).

    ``n_pos`` labeled rows: ``round(pos_contamination * n_pos)`` true negatives, the rest true positives;
    ``n_unl`` unlabeled rows: ``round(unl_contamination * n_unl)`` true positives, the rest true negatives. All
    rows are distinct rows of ``X``. Supervised: both 0; PU: ``pos_contamination=0``; semi-supervised: equal.

    Parameters
    ----------
    key : JAX PRNG key or int
        Seed of the draw.
    X : array-like of shape (n, d)
        Features.
    y : array-like of shape (n,)
        True labels in {0, 1}.
    n_pos, n_unl : int
        Sizes of the labeled and the unlabeled set.
    pos_contamination, unl_contamination : float in [0, 1), default=0.0
        Fraction of true negatives among the labeled rows and of true positives among the unlabeled rows.

    Returns
    -------
    tuple of ndarray
        ``(X_train, s, y_train)`` with the labeled rows first.

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.data import contaminate
    >>> X, y = np.arange(200.0).reshape(100, 2), np.array([1, 0] * 50)
    >>> X_train, s, y_train = contaminate(0, X, y, n_pos=10, n_unl=20, unl_contamination=0.25)
    >>> int(s.sum()), int(y_train[s == 0].sum())  # 10 labeled; 5 of the 20 unlabeled rows are positives
    (10, 5)
    """
    X, y = _xy(X, y)
    n_pos = check_int(n_pos, "n_pos")
    n_unl = check_int(n_unl, "n_unl")
    cp = check_float(pos_contamination, "pos_contamination", 0.0, 1.0, closed="left")
    cu = check_float(unl_contamination, "unl_contamination", 0.0, 1.0, closed="left")
    n_fp = int(round(cp * n_pos))
    n_up = int(round(cu * n_unl))
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    need_pos, need_neg = (n_pos - n_fp) + n_up, n_fp + (n_unl - n_up)
    if need_pos > pos.size or need_neg > neg.size:
        raise ValueError(
            f"not enough rows: need {need_pos} positives and {need_neg} negatives, y has {pos.size} and {neg.size}."
        )
    k1, k2 = host_split(as_key(key))
    p_idx = _choice(k1, pos, need_pos)
    n_idx = _choice(k2, neg, need_neg)
    lab = np.concatenate([p_idx[: n_pos - n_fp], n_idx[:n_fp]])
    unl = np.concatenate([p_idx[n_pos - n_fp:], n_idx[n_fp:]])
    rows = np.concatenate([lab, unl])
    s = np.concatenate([np.ones(n_pos, np.int32), np.zeros(n_unl, np.int32)])
    return X[rows], s, y[rows].astype(np.int32)
