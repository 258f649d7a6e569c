r"""Classification metrics as jit-able JAX functions, plus PU-only model-selection scores.

Every function takes ``(y_true, y_pred)`` (labels in {0, 1}, or bool / {-1, +1}) or ``(y_true, scores)`` and
returns a scalar JAX array; they agree with :mod:`sklearn.metrics` (binary case, ``zero_division=0``) and work
under ``jax.jit`` and ``jax.vmap`` (e.g. over seeds). Ties in scores are handled as scikit-learn does:
:func:`roc_auc` counts a tied positive/negative pair as 1/2 (Mann-Whitney), :func:`average_precision` treats tied
scores as one threshold.

PU-only scores, computable from PU labels ``s`` (1 = labeled positive) on validation data:

* :func:`pu_score` -- Lee & Liu (2003): ``recall^2 / P(y_hat = 1)``, with recall measured on the labeled
  positives and ``P(y_hat = 1)`` on all rows; proportional to ``precision * recall / P(y = 1)`` in expectation.
* :func:`pu_zero_one_risk` -- the unbiased PU estimate of the 0-1 risk (PU ET eq. (4) with the zero-one loss):
  ``pi P_P(y_hat = 0) + P_U(y_hat = 1) - pi P_P(y_hat = 1)``; ``1 -`` it estimates the accuracy.

:data:`pu_scorer` and :func:`make_pu_risk_scorer` wrap them for ``GridSearchCV(..., scoring=...)``, where the
``y`` given to ``fit`` is the PU label vector ``s``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "accuracy",
    "balanced_accuracy",
    "precision",
    "recall",
    "f1_score",
    "roc_auc",
    "average_precision",
    "confusion_counts",
    "pu_score",
    "pu_zero_one_risk",
    "pu_accuracy",
    "pu_scorer",
    "make_pu_risk_scorer",
]


def _labels(y):
    """{0,1}, bool or {-1,+1} -> float {0., 1.} (values > 0 are positive)."""
    y = jnp.asarray(y).reshape(-1)
    return (y > 0).astype(jnp.float32)


def _div(a, b):
    """a / b with 0 where b == 0 (scikit-learn's zero_division=0)."""
    return jnp.where(b > 0, a / jnp.where(b > 0, b, 1.0), 0.0)


def confusion_counts(y_true, y_pred):
    """Return ``(tp, fp, tn, fn)`` as float32 scalars."""
    t, p = _labels(y_true), _labels(y_pred)
    tp = jnp.sum(t * p)
    fp = jnp.sum((1 - t) * p)
    tn = jnp.sum((1 - t) * (1 - p))
    fn = jnp.sum(t * (1 - p))
    return tp, fp, tn, fn


@jax.jit
def accuracy(y_true, y_pred):
    """Fraction of correct predictions."""
    return jnp.mean(_labels(y_true) == _labels(y_pred))


@jax.jit
def precision(y_true, y_pred):
    """tp / (tp + fp); 0 when nothing is predicted positive."""
    tp, fp, _, _ = confusion_counts(y_true, y_pred)
    return _div(tp, tp + fp)


@jax.jit
def recall(y_true, y_pred):
    """tp / (tp + fn); 0 when there is no positive."""
    tp, _, _, fn = confusion_counts(y_true, y_pred)
    return _div(tp, tp + fn)


@jax.jit
def f1_score(y_true, y_pred):
    """2 tp / (2 tp + fp + fn); 0 when the denominator is 0."""
    tp, fp, _, fn = confusion_counts(y_true, y_pred)
    return _div(2 * tp, 2 * tp + fp + fn)


@jax.jit
def balanced_accuracy(y_true, y_pred):
    """Mean of the recalls of both classes (scikit-learn: a class absent from y_true is left out of the mean)."""
    tp, fp, tn, fn = confusion_counts(y_true, y_pred)
    has_p, has_n = (tp + fn) > 0, (tn + fp) > 0
    tpr, tnr = _div(tp, tp + fn), _div(tn, tn + fp)
    n_cls = has_p.astype(jnp.float32) + has_n.astype(jnp.float32)
    return _div(jnp.where(has_p, tpr, 0.0) + jnp.where(has_n, tnr, 0.0), n_cls)


def _sorted_counts(y_true, scores):
    """For each row: #positives and #negatives with score < its score (lt) and <= its score (le)."""
    t = _labels(y_true)
    x = jnp.asarray(scores).reshape(-1)
    order = jnp.argsort(x)
    xs = x[order]
    ts = t[order].astype(jnp.int32)
    zero = jnp.zeros((1,), jnp.int32)
    cpos = jnp.concatenate([zero, jnp.cumsum(ts)])
    cneg = jnp.concatenate([zero, jnp.cumsum(1 - ts)])
    lo = jnp.searchsorted(xs, x, side="left")
    hi = jnp.searchsorted(xs, x, side="right")
    return t, cpos, cneg, lo, hi


@jax.jit
def roc_auc(y_true, scores):
    r"""Area under the ROC curve = P(score of a positive > score of a negative) + 1/2 P(tie).

    Exact Mann-Whitney count in O(n log n) with integer counts; NaN when only one class is present (scikit-learn
    raises an error there).
    """
    t, cpos, cneg, lo, hi = _sorted_counts(y_true, scores)
    n_pos = jnp.sum(t)
    n_neg = t.shape[0] - n_pos
    neg_below = cneg[lo].astype(jnp.float32)
    neg_tied = (cneg[hi] - cneg[lo]).astype(jnp.float32)
    per_pos = (neg_below + 0.5 * neg_tied) / jnp.maximum(n_neg, 1.0)
    auc = jnp.sum(t * per_pos) / jnp.maximum(n_pos, 1.0)
    return jnp.where((n_pos > 0) & (n_neg > 0), auc, jnp.nan)


@jax.jit
def average_precision(y_true, scores):
    r"""Area under the precision-recall curve as scikit-learn's ``average_precision_score``.

    ``AP = sum_k (R_k - R_{k-1}) P_k`` over distinct thresholds equals the mean, over positives, of the precision
    at the positive's own score (all rows with a score >= it predicted positive). NaN-free: 0 without positives.
    """
    t, cpos, cneg, lo, hi = _sorted_counts(y_true, scores)
    n = t.shape[0]
    n_pos = jnp.sum(t)
    # rows with score >= x: n - lo; positives among them: n_pos - cpos[lo]
    at_or_above = (n - lo).astype(jnp.float32)
    pos_at_or_above = n_pos - cpos[lo].astype(jnp.float32)
    prec = pos_at_or_above / jnp.maximum(at_or_above, 1.0)
    return _div(jnp.sum(t * prec), n_pos)


@jax.jit
def pu_score(s, y_pred):
    r"""Lee & Liu (2003) PU model-selection score ``recall^2 / P(y_hat = 1)`` (RESVM eq. (7)).

    ``recall`` = fraction of labeled positives (``s == 1``) predicted positive; ``P(y_hat = 1)`` = fraction of all
    rows predicted positive. 0 when nothing is predicted positive.
    """
    sl, p = _labels(s), _labels(y_pred)
    rec = _div(jnp.sum(sl * p), jnp.sum(sl))
    frac = jnp.mean(p)
    return _div(rec * rec, frac)


@jax.jit
def pu_zero_one_risk(s, y_pred, prior):
    r"""Unbiased PU estimate of the 0-1 risk from labeled positives and unlabeled rows only.

    ``pi P_P(y_hat=0) + P_U(y_hat=1) - pi P_P(y_hat=1)`` (eq. (4) with the zero-one loss); may fall slightly
    outside [0, 1] on finite samples.
    """
    sl, p = _labels(s), _labels(y_pred)
    su = 1.0 - sl
    pp_pos = _div(jnp.sum(sl * p), jnp.sum(sl))
    pu_pos = _div(jnp.sum(su * p), jnp.sum(su))
    return prior * (1.0 - pp_pos) + pu_pos - prior * pp_pos


@jax.jit
def pu_accuracy(s, y_pred, prior):
    """PU estimate of the accuracy: ``1 - pu_zero_one_risk``."""
    return 1.0 - pu_zero_one_risk(s, y_pred, prior)


def _pu_score_np(s, y_pred):
    return float(pu_score(np.asarray(s), np.asarray(y_pred)))


def _make_scorer(fn, **kwargs):
    from sklearn.metrics import make_scorer

    return make_scorer(fn, greater_is_better=True, **kwargs)


class _LazyScorer:
    """A scikit-learn scorer built on first use (keeps ``import pujax.metrics`` light)."""

    def __init__(self, factory, name):
        self._factory, self._scorer, self.__name__ = factory, None, name

    def __call__(self, estimator, X, y, **kwargs):
        if self._scorer is None:
            self._scorer = self._factory()
        return self._scorer(estimator, X, y, **kwargs)

    def __repr__(self):
        return f"pujax.metrics.{self.__name__}"


#: scikit-learn scorer: ``pu_score(s, estimator.predict(X))`` for ``GridSearchCV(scoring=pu_scorer)``.
pu_scorer = _LazyScorer(lambda: _make_scorer(_pu_score_np), "pu_scorer")


def make_pu_risk_scorer(prior: float):
    """scikit-learn scorer of the PU accuracy estimate ``1 - pu_zero_one_risk(s, predict(X), prior)``."""
    from pujax.validation import check_prior

    prior = check_prior(prior, allow_auto=False)

    def _acc(s, y_pred):
        return float(pu_accuracy(np.asarray(s), np.asarray(y_pred), prior))

    return _make_scorer(_acc)
