r"""Metrics from positive-unlabeled data alone: no negative label is needed.

Notation. ``s`` are PU labels (1 = labeled positive, 0 = unlabeled), :math:`n_l = \sum s`,
:math:`n_u = \sum (1 - s)`, :math:`\hat y` the predictions in {0, 1} and ``prior`` :math:`\alpha` the positive
fraction of the *unlabeled* rows -- pujax's convention everywhere (the ``prior`` of
:func:`pujax.data.make_case_control` and :func:`pujax.data.make_censoring`, an estimator's ``prior_``).
Labeled positives are selected completely at random (SCAR): they follow :math:`p(x \mid y = 1)`.

``scenario`` says which population the metric describes:

* ``"case-control"`` (default): the unlabeled rows are the sample of the population (labeled positives are an
  extra sample of its positives); population prior :math:`\pi = \alpha`, :math:`q = P(\hat y = 1)` measured on
  the unlabeled rows;
* ``"censoring"``: all rows are the sample of the population and the labeled rows are part of it;
  :math:`\pi = (n_l + \alpha n_u) / n` and :math:`q` is measured on all rows.

The estimates, each a ratio of consistent estimators of population quantities:

.. math::

    \hat R &= \tfrac{1}{n_l} \textstyle\sum_{s_i = 1} \hat y_i
        && \text{(P1) recall / TPR: labeled positives follow } p(x \mid y=1) \\
    \text{precision} &= \pi \hat R / q && \text{(P2) Bayes: } P(y=1 \mid \hat y=1) = P(\hat y=1 \mid y=1)\,\pi / q \\
    F_1 &= 2 \pi \hat R / (\pi + q) && \text{(P3) } 2PR/(P+R) \text{ with (P2)} \\
    \text{accuracy} &= 1 - \pi - q + 2 \pi \hat R && \text{(P4) } TP + TN = \pi R + (1 - q - \pi(1 - R)) \\
    \text{FPR} &= (q - \pi \hat R) / (1 - \pi) && \text{(P5) } q = \pi\,TPR + (1 - \pi)\,FPR \\
    \text{AUL} &= \hat P(g(x_l) > g(x')) + \tfrac12 \hat P(g(x_l) = g(x')) && \text{(P6) } x_l \text{ labeled, }
    x' \text{ a population row} \\
    \text{AUC} &= (\text{AUC}_{LU} - \alpha / 2) / (1 - \alpha) && \text{(P7)}

(P4) is one minus the unbiased PU 0-1 risk (:func:`pu_zero_one_risk`, PU ET paper eq. (4) with the zero-one loss)
in the case-control scenario. (P6)-(P7): the unlabeled rows are the mixture :math:`\alpha p_+ + (1 - \alpha)
p_-`, so the AUC of "labeled versus unlabeled" is :math:`\text{AUC}_{LU} = \alpha/2 + (1 - \alpha)\,\text{AUC}`
(Jain et al. 2017, the AUC correction with a noise-free labeled set; Menon et al. 2015: for mutually contaminated
distributions the corrupted AUC is an affine function of the clean one), and likewise the area under the lift
curve is :math:`\text{AUL} = \pi/2 + (1 - \pi)\,\text{AUC}` with TPR (P1) on the y-axis and the fraction of the
population predicted positive on the x-axis -- the AUL needs no prior (Jiang et al. 2020). Corrected metrics are
clipped to [0, 1] (finite-sample estimates can leave it); risks are not.

References
----------
- Lee, W. S. & Liu, B. (2003). Learning with positive and unlabeled examples using weighted logistic
  regression. ICML (the criterion ``recall^2 / P(y_hat = 1)``; RESVM paper eq. (7)).
- Menon, A. K., van Rooyen, B., Ong, C. S. & Williamson, R. C. (2015). Learning from corrupted binary labels via
  class-probability estimation. ICML (AUC and balanced error under mutually contaminated distributions).
- Jain, S., White, M. & Radivojac, P. (2017). Recovering true classifier performance in positive-unlabeled
  learning. AAAI (corrected TPR, FPR, precision, accuracy, F-measure and AUC from PU data).
- Jiang, L., Li, D., Wang, Q., Wang, S. & Wang, S. (2020). Improving positive unlabeled learning: practical AUL
  estimation and new training method for extremely imbalanced data sets. arXiv:2004.09820.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

from pujax.metrics._checks import (
    check_metric_prior,
    check_pu_pair,
    check_pu_weights,
    check_scenario,
    is_traced,
    warn_constant_scores,
    warn_degenerate,
)
from pujax.metrics.classification import _div, _labels, _mann_whitney, _masked, _run_once
from pujax.risk import upu_risk

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["lee_liu_score", "pu_score", "pu_zero_one_risk", "pu_recall", "pu_precision", "pu_f1_score",
           "pu_accuracy", "pu_balanced_accuracy", "pu_roc_auc", "pu_lift_auc", "pu_proxy_accuracy"]


def _pu_checked(s, second, scores=False, sample_weight=None):
    """``(s01, predictions or score ranks, w)`` ready for a kernel (:func:`~pujax.metrics.classification._masked`):
    validated (a degenerate predictor warns) unless traced."""
    if is_traced(s, second, sample_weight):
        return _masked(s, second, False, sample_weight)
    s01, p = check_pu_pair(s, second, "y_score" if scores else "y_pred", scores=scores)
    (warn_constant_scores if scores else warn_degenerate)(p)
    w = None if sample_weight is None else check_pu_weights(sample_weight, s01)
    return _masked(s01, p, True, w, checked=True)


@_run_once
def _rates(s, y_pred, w):
    """``(R, q_u, q_all, n_l, n_u)``: recall on the labeled rows, positive rate on unlabeled / all rows."""
    sl, p = _labels(s) * w, _labels(y_pred)
    su = (1.0 - _labels(s)) * w
    n_l, n_u = jnp.sum(sl), jnp.sum(su)
    return _div(jnp.sum(sl * p), n_l), _div(jnp.sum(su * p), n_u), _div(jnp.sum(w * p), n_l + n_u), n_l, n_u


def _pu_fpr(rec, q, pi):
    """(P5): the false-positive rate ``(q - pi R) / (1 - pi)``, clipped to [0, 1]."""
    return jnp.clip((q - pi * rec) / (1.0 - pi), 0.0, 1.0)


_FORMULAS = {  # metric of (R, q, pi), (P2)-(P5)
    "precision": lambda rec, q, pi: jnp.clip(_div(pi * rec, q), 0.0, 1.0),
    "f1": lambda rec, q, pi: jnp.clip(_div(2.0 * pi * rec, pi + q), 0.0, 1.0),
    "accuracy": lambda rec, q, pi: jnp.clip(1.0 - pi - q + 2.0 * pi * rec, 0.0, 1.0),
    "balanced_accuracy": lambda rec, q, pi: jnp.clip(0.5 * (rec + 1.0 - _pu_fpr(rec, q, pi)), 0.0, 1.0),
}


@partial(_run_once, static_argnames=("scenario", "metric"))
def _population_metric(s, y_pred, w, prior, *, scenario, metric):
    """``_FORMULAS[metric](R, q, pi)`` for the population named by ``scenario`` (module docstring, (P1))."""
    rec, q_u, q_all, n_l, n_u = _rates(s, y_pred, w)
    prior = jnp.asarray(prior, jnp.float32)
    if scenario == "case-control":
        return _FORMULAS[metric](rec, q_u, prior)
    return _FORMULAS[metric](rec, q_all, (n_l + prior * n_u) / (n_l + n_u))


def _metric(metric, s, y_pred, prior, scenario, sample_weight):
    s, y_pred, w = _pu_checked(s, y_pred, sample_weight=sample_weight)
    return _population_metric(s, y_pred, w, check_metric_prior(prior), scenario=check_scenario(scenario),
                              metric=metric)


def lee_liu_score(s: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Lee & Liu (2003) PU model-selection score ``recall^2 / P(y_hat = 1)`` (RESVM paper eq. (7)).

    ``recall`` is measured on the labeled positives (P1) and ``P(y_hat = 1)`` on all rows; in expectation it is
    ``precision * recall / pi``, so it ranks classifiers like precision x recall without negatives. 0 when nothing
    is predicted positive; a degenerate predictor warns (:class:`DegeneratePredictorWarning`).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels (bool, {0, 1} or {-1, +1}).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array

    References
    ----------
    Lee & Liu (2003), ICML, §3; Claesen et al. (2015), Neurocomputing, eq. (7).

    Examples
    --------
    >>> s = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> round(float(lee_liu_score(s, [1, 1, 1, 0, 1, 1, 0, 0, 0, 0])), 4)  # (3/4)^2 / (5/10)
    1.125
    """
    return _lee_liu(*_pu_checked(s, y_pred, sample_weight=sample_weight))


@_run_once
def _lee_liu(s, y_pred, w):
    rec, _, q_all, _, _ = _rates(s, y_pred, w)
    return _div(rec * rec, q_all)


pu_score = lee_liu_score


def pu_zero_one_risk(s: ArrayLike, y_pred: ArrayLike, prior: float, *,
                     sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Unbiased PU estimate of the 0-1 risk from labeled positives and unlabeled rows only.

    ``pi P_L(y_hat = 0) + P_U(y_hat = 1) - pi P_L(y_hat = 1)``: the uPU risk (:func:`pujax.risk.upu_risk`) with
    the zero-one loss of the margin ``2 y_hat - 1``; may fall slightly outside [0, 1] on finite samples.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels (bool, {0, 1} or {-1, +1}).
    prior : float in (0, 1)
        Positive fraction of the unlabeled rows.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array

    References
    ----------
    du Plessis, Niu & Sugiyama (2015), ICML; Wilton et al. (2022), PU ET paper eq. (4).

    Examples
    --------
    >>> s = [1, 1, 0, 0, 0, 0]
    >>> round(float(pu_zero_one_risk(s, [1, 0, 1, 0, 0, 0], prior=0.5)), 4)  # 0.5*0.5 + 0.25 - 0.5*0.5
    0.25
    """
    s, y_pred, w = _pu_checked(s, y_pred, sample_weight=sample_weight)
    return _zero_one(s, y_pred, w, check_metric_prior(prior))


@_run_once
def _zero_one(s, y_pred, w, prior):
    margin = 2.0 * _labels(y_pred) - 1.0
    return upu_risk(margin, _labels(s), prior, loss="zero_one", weights=w)


def pu_recall(s: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Recall (true-positive rate) estimated on the labeled positives, (P1): unbiased under SCAR.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array

    References
    ----------
    Jain, White & Radivojac (2017), AAAI: the true-positive rate is unaffected by the missing labels.

    Examples
    --------
    >>> round(float(pu_recall([1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 1, 0])), 4)
    0.75
    """
    return _rates(*_pu_checked(s, y_pred, sample_weight=sample_weight))[0]


def pu_precision(s: ArrayLike, y_pred: ArrayLike, prior: float, *, scenario: str = "case-control",
                 sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Prior-corrected precision ``pi R / q`` (P2); 0 when nothing is predicted positive.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    prior : float in (0, 1)
        Positive fraction of the unlabeled rows.
    scenario : {"case-control", "censoring"}
        Population the metric describes (module docstring).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array
        Estimate of the precision on true labels, clipped to [0, 1].

    References
    ----------
    Jain, White & Radivojac (2017), AAAI (precision recovered from the PU rates and the class prior).

    Examples
    --------
    >>> s = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> round(float(pu_precision(s, [1, 1, 1, 0, 1, 1, 0, 0, 0, 0], prior=0.4)), 4)  # 0.4 * 0.75 / (2/6)
    0.9
    """
    return _metric("precision", s, y_pred, prior, scenario, sample_weight)


def pu_f1_score(s: ArrayLike, y_pred: ArrayLike, prior: float, *, scenario: str = "case-control",
                sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Prior-corrected F1 ``2 pi R / (pi + q)`` (P3).

    A predictor that calls everything positive gets ``2 pi / (pi + 1)``, its F1 on true labels (it does not fool
    this estimate), and a :class:`DegeneratePredictorWarning`.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    prior : float in (0, 1)
        Positive fraction of the unlabeled rows.
    scenario : {"case-control", "censoring"}
        Population the metric describes (module docstring).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array
        Estimate of the F1 score on true labels, clipped to [0, 1].

    References
    ----------
    Jain, White & Radivojac (2017), AAAI (F-measure from the corrected precision and recall).

    Examples
    --------
    >>> s = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> round(float(pu_f1_score(s, [1, 1, 1, 0, 1, 1, 0, 0, 0, 0], prior=0.4)), 4)  # 0.6 / (0.4 + 1/3)
    0.8182
    """
    return _metric("f1", s, y_pred, prior, scenario, sample_weight)


def pu_accuracy(s: ArrayLike, y_pred: ArrayLike, prior: float, *, scenario: str = "case-control",
                sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Prior-corrected accuracy ``1 - pi - q + 2 pi R`` (P4).

    In the case-control scenario this is ``1 - pu_zero_one_risk(s, y_pred, prior)`` (before clipping).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    prior : float in (0, 1)
        Positive fraction of the unlabeled rows.
    scenario : {"case-control", "censoring"}
        Population the metric describes (module docstring).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array
        Estimate of the accuracy on true labels, clipped to [0, 1].

    References
    ----------
    Jain, White & Radivojac (2017), AAAI; Wilton et al. (2022), PU ET paper eq. (4).

    Examples
    --------
    >>> s = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> round(float(pu_accuracy(s, [1, 1, 1, 0, 1, 1, 0, 0, 0, 0], prior=0.4)), 4)  # 1 - 0.4 - 1/3 + 0.6
    0.8667
    """
    return _metric("accuracy", s, y_pred, prior, scenario, sample_weight)


def pu_proxy_accuracy(s: ArrayLike, y_pred: ArrayLike, prior: float, *,
                      sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Proxy accuracy (PA) of case-control PU data: ``2 pi R + (1 - q)``, ``R`` the recall on the labeled rows
    (P1) and ``1 - q`` the share of unlabeled rows predicted negative.

    It equals :func:`pu_accuracy` ``+ pi`` before clipping (P4: ``1 - pi - q + 2 pi R``), so it ranks classifiers as
    the prior-corrected accuracy does; its value is the criterion the PU-Bench and Wang et al. benchmarks call proxy
    accuracy (``2 pi TPR_P + TNR_U``) and use for model selection on held-out PU rows. Not clipped: in [0, 1 + 2 pi].

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    prior : float in (0, 1)
        Positive fraction of the unlabeled rows.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array

    References
    ----------
    Wang et al., "Accessible, Realistic, and Fair Evaluation of Positive-Unlabeled Learning Algorithms", ICLR 2026
    (proxy accuracy, two-sample setting); Chen et al., "PU-Bench", ICLR 2026 (``proxy_acc``).

    Examples
    --------
    >>> s = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> round(float(pu_proxy_accuracy(s, [1, 1, 1, 0, 1, 1, 0, 0, 0, 0], prior=0.4)), 4)  # 0.8 * 0.75 + 4 / 6
    1.2667
    """
    s, y_pred, w = _pu_checked(s, y_pred, sample_weight=sample_weight)
    return _proxy_accuracy(s, y_pred, w, check_metric_prior(prior))


@_run_once
def _proxy_accuracy(s, y_pred, w, prior):
    rec, q_u, _, _, _ = _rates(s, y_pred, w)
    return 2.0 * jnp.asarray(prior, jnp.float32) * rec + 1.0 - q_u


def pu_balanced_accuracy(s: ArrayLike, y_pred: ArrayLike, prior: float, *, scenario: str = "case-control",
                         sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Prior-corrected balanced accuracy ``(R + 1 - FPR) / 2`` with ``FPR = (q - pi R) / (1 - pi)`` (P5).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    prior : float in (0, 1)
        Positive fraction of the unlabeled rows.
    scenario : {"case-control", "censoring"}
        Population the metric describes (module docstring).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array
        Estimate of the balanced accuracy on true labels, clipped to [0, 1].

    References
    ----------
    Menon et al. (2015), ICML (balanced error under label corruption); Jain, White & Radivojac (2017), AAAI
    (corrected false-positive rate).

    Examples
    --------
    >>> s = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> round(float(pu_balanced_accuracy(s, [1, 1, 1, 0, 1, 1, 0, 0, 0, 0], prior=0.4)), 4)  # FPR = 1/18
    0.8472
    """
    return _metric("balanced_accuracy", s, y_pred, prior, scenario, sample_weight)


def pu_roc_auc(s: ArrayLike, y_score: ArrayLike, prior: float, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Prior-corrected ROC AUC ``(AUC_LU - alpha/2) / (1 - alpha)`` (P7).

    ``AUC_LU`` is the ROC AUC of the scores for "labeled versus unlabeled"; the unlabeled rows are a mixture with
    positive fraction ``alpha = prior``. The same formula holds in both scenarios (the AUC depends only on the
    class-conditional score distributions).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_score : array-like of shape (n_samples,)
        Real scores, greater meaning more positive.
    prior : float in (0, 1)
        Positive fraction of the unlabeled rows.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array
        Estimate of the ROC AUC on true labels, clipped to [0, 1].

    References
    ----------
    Jain, White & Radivojac (2017), AAAI (AUC correction); Menon et al. (2015), ICML (corrupted AUC is affine in the
    clean AUC).

    Examples
    --------
    >>> s = [1, 1, 0, 0, 0, 0]
    >>> round(float(pu_roc_auc(s, [0.9, 0.8, 0.85, 0.1, 0.2, 0.3], prior=0.25)), 4)  # (0.875 - 0.125) / 0.75
    1.0
    """
    s, x, w = _pu_checked(s, y_score, scores=True, sample_weight=sample_weight)
    return _corrected_auc(s, x, w, check_metric_prior(prior))


@_run_once
def _corrected_auc(s, x, w, prior):
    sl = _labels(s)
    auc_lu = _mann_whitney(x, sl * w, (1.0 - sl) * w)
    return jnp.clip((auc_lu - 0.5 * prior) / (1.0 - prior), 0.0, 1.0)


def pu_lift_auc(s: ArrayLike, y_score: ArrayLike, *, scenario: str = "case-control",
                sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Area under the lift curve (AUL) from PU data (P6); no prior needed.

    The lift curve plots the true-positive rate (measured on the labeled positives, P1) against the fraction of
    the population predicted positive, over all thresholds; its area is the probability that a labeled positive
    outscores a random population row (ties 1/2). On true labels ``AUL = pi/2 + (1 - pi) AUC``.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_score : array-like of shape (n_samples,)
        Real scores, greater meaning more positive.
    scenario : {"case-control", "censoring"}
        Population rows: the unlabeled rows (case-control) or all rows (censoring).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights (weighted means in (P1)-(P7)); labeled and unlabeled rows must keep weight.

    Returns
    -------
    scalar array

    References
    ----------
    Jiang et al. (2020), arXiv:2004.09820, AUL = 0.5 alpha + (1 - alpha) AUC and its unbiased PU estimate.

    Examples
    --------
    >>> s = [1, 1, 0, 0, 0, 0]
    >>> round(float(pu_lift_auc(s, [0.9, 0.8, 0.85, 0.1, 0.2, 0.3])), 4)  # labeled beat 4/4 and 3/4 of U
    0.875
    """
    s, x, w = _pu_checked(s, y_score, scores=True, sample_weight=sample_weight)
    return _lift_auc(s, x, w, scenario=check_scenario(scenario))


@partial(_run_once, static_argnames=("scenario",))
def _lift_auc(s, x, w, *, scenario):
    sl = _labels(s)
    population = 1.0 - sl if scenario == "case-control" else jnp.ones_like(sl)
    return _mann_whitney(x, sl * w, population * w)
