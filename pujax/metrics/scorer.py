r"""scikit-learn scorers that need no negative labels: ``scorer(estimator, X, s) -> float``, greater is better.

The ``y`` that ``GridSearchCV`` / ``cross_val_score`` pass to the scorer is the PU label vector ``s`` given to
``fit``. Re-exported by :mod:`pujax.model_selection`.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from pujax.metrics._checks import check_pu_weights, check_scenario
from pujax.metrics.pu import (
    lee_liu_score,
    pu_accuracy,
    pu_balanced_accuracy,
    pu_f1_score,
    pu_lift_auc,
    pu_precision,
    pu_proxy_accuracy,
    pu_recall,
    pu_roc_auc,
    pu_zero_one_risk,
)
from pujax.risk import get_loss, nnpu_risk, upu_risk
from pujax.validation import check_binary_labels, check_in, check_prior, check_pu_labels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

__all__ = ["PU_SCORERS", "PUScorer", "make_pu_scorer"]

# name -> (response: "predict" | "score", needs a prior, takes the scenario)
PU_SCORERS = {
    "lee_liu": ("predict", False, False),
    "pu_recall": ("predict", False, False),
    "pu_lift_auc": ("score", False, True),
    "pu_zero_one_risk": ("predict", True, False),
    "nnpu_risk": ("score", True, False),
    "upu_risk": ("score", True, False),
    "pu_accuracy": ("predict", True, True),
    "pu_balanced_accuracy": ("predict", True, True),
    "pu_precision": ("predict", True, True),
    "pu_f1": ("predict", True, True),
    "pu_roc_auc": ("score", True, False),
    "proxy_accuracy": ("predict", True, False),
    "proxy_auc": ("score", False, False),
}

_FUNCS = {"lee_liu": lee_liu_score, "pu_recall": pu_recall, "pu_lift_auc": pu_lift_auc,
          "pu_accuracy": pu_accuracy, "pu_balanced_accuracy": pu_balanced_accuracy, "pu_precision": pu_precision,
          "pu_f1": pu_f1_score, "pu_roc_auc": pu_roc_auc, "proxy_accuracy": pu_proxy_accuracy,
          "proxy_auc": lambda s, y_score, sample_weight=None: pu_lift_auc(s, y_score, scenario="case-control",
                                                                          sample_weight=sample_weight)}


def _final_step(estimator):
    """The fitted model a prediction comes from: the last step of a Pipeline, the ``best_estimator_`` of a
    search (recursively), else the estimator itself."""
    while True:
        if hasattr(estimator, "steps") and estimator.steps:
            estimator = estimator.steps[-1][1]
        elif getattr(estimator, "best_estimator_", None) is not None:
            estimator = estimator.best_estimator_
        else:
            return estimator


def _encode(estimator, y, pred=None):
    """PU labels ``y`` (and predictions) as {0, 1} using the estimator's ``classes_`` when it has two."""
    classes = getattr(_final_step(estimator), "classes_", getattr(estimator, "classes_", None))
    y = np.asarray(y)
    if classes is not None and len(classes) == 2 and set(np.unique(y).tolist()) <= set(classes.tolist()):
        s01 = check_pu_labels((y == classes[1]).astype(np.int32), name="y (PU labels)")
        if pred is not None:
            pred = (np.asarray(pred) == classes[1]).astype(np.int32)
        return s01, pred
    s01 = check_pu_labels(y, name="y (PU labels)")
    return s01, None if pred is None else check_binary_labels(pred, name="estimator.predict(X)")


def _scores(estimator, X):
    """``decision_function(X)``, else the log-odds of ``predict_proba(X)[:, 1]`` (a margin, > 0 = positive)."""
    if hasattr(estimator, "decision_function"):
        return np.asarray(estimator.decision_function(X), dtype=np.float64).reshape(-1)
    if hasattr(estimator, "predict_proba"):
        p = np.clip(np.asarray(estimator.predict_proba(X), dtype=np.float64)[:, 1], 1e-7, 1 - 1e-7)
        return np.log(p) - np.log1p(-p)
    raise TypeError(f"{type(estimator).__name__} has neither decision_function nor predict_proba; this PU scorer "
                    f"ranks rows by a score.")


class PUScorer:
    """A scikit-learn scorer of a PU metric (built by :func:`make_pu_scorer`; see it for the parameters)."""

    def __init__(self, metric: str, prior=None, *, scenario: str = "case-control", loss: str = "sigmoid"):
        self.metric, self.prior, self.scenario, self.loss = metric, prior, scenario, loss

    def __repr__(self):
        extra = "" if self.prior is None else f", prior={self.prior!r}"
        return f"make_pu_scorer({self.metric!r}{extra}, scenario={self.scenario!r})"

    def _prior(self, estimator) -> float:
        if self.prior is not None:
            return self.prior
        final = _final_step(estimator)
        value = getattr(final, "prior_", None)
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return check_prior(float(value), name=f"{type(final).__name__}.prior_", allow_auto=False)
        raise ValueError(
            f"make_pu_scorer({self.metric!r}) needs the class prior (positive fraction of the unlabeled rows): "
            f"pass make_pu_scorer({self.metric!r}, prior=...), or score an estimator that exposes a fitted "
            f"prior_ (e.g. a pujax estimator with prior='auto'); {type(final).__name__} has no prior_.")

    def __call__(self, estimator: BaseEstimator, X: ArrayLike, y: ArrayLike,
                 sample_weight: ArrayLike | None = None) -> float:
        response, needs_prior, with_scenario = PU_SCORERS[self.metric]
        prior = self._prior(estimator) if needs_prior else None
        if response == "predict":
            s01, pred = _encode(estimator, y, estimator.predict(X))
            second = pred
        else:
            s01, _ = _encode(estimator, y)
            second = _scores(estimator, X)
        if self.metric in ("nnpu_risk", "upu_risk"):
            risk = nnpu_risk if self.metric == "nnpu_risk" else upu_risk
            w = None if sample_weight is None else check_pu_weights(sample_weight, s01)
            return -float(risk(second.astype(np.float32), s01, prior, loss=self.loss, weights=w))
        if self.metric == "pu_zero_one_risk":
            return -float(pu_zero_one_risk(s01, second, prior, sample_weight=sample_weight))
        args = (prior,) if needs_prior else ()
        kwargs = {"scenario": self.scenario} if with_scenario else {}
        kwargs["sample_weight"] = sample_weight
        return float(_FUNCS[self.metric](s01, second, *args, **kwargs))


def make_pu_scorer(metric: str, prior: float | None = None, *, scenario: str = "case-control",
                   loss: str = "sigmoid") -> PUScorer:
    r"""Build a scikit-learn scorer of a PU metric for ``GridSearchCV(scoring=...)`` / ``cross_val_score``.

    The scorer is called as ``scorer(estimator, X, s, sample_weight=None)`` with the PU labels ``s`` and returns
    a float, greater is better: risks are negated.

    ========================== ===================== ===============================================
    ``metric``                 uses                  value
    ========================== ===================== ===============================================
    ``"lee_liu"``              ``predict``           :func:`~pujax.metrics.lee_liu_score`
    ``"pu_recall"``            ``predict``           :func:`~pujax.metrics.pu_recall`
    ``"pu_lift_auc"``          scores                :func:`~pujax.metrics.pu_lift_auc`
    ``"pu_zero_one_risk"``     ``predict``, prior    ``-`` :func:`~pujax.metrics.pu_zero_one_risk`
    ``"nnpu_risk"``            scores, prior         ``-`` :func:`pujax.risk.nnpu_risk` with ``loss``
    ``"upu_risk"``             scores, prior         ``-`` :func:`pujax.risk.upu_risk` with ``loss``
    ``"pu_accuracy"``          ``predict``, prior    :func:`~pujax.metrics.pu_accuracy`
    ``"pu_balanced_accuracy"`` ``predict``, prior    :func:`~pujax.metrics.pu_balanced_accuracy`
    ``"pu_precision"``         ``predict``, prior    :func:`~pujax.metrics.pu_precision`
    ``"pu_f1"``                ``predict``, prior    :func:`~pujax.metrics.pu_f1_score`
    ``"pu_roc_auc"``           scores, prior         :func:`~pujax.metrics.pu_roc_auc`
    ``"proxy_accuracy"``       ``predict``, prior    :func:`~pujax.metrics.pu_proxy_accuracy`
    ``"proxy_auc"``            scores                :func:`~pujax.metrics.pu_lift_auc` (case-control)
    ========================== ===================== ===============================================

    Scores are ``decision_function(X)``, else the log-odds of ``predict_proba(X)[:, 1]``. Predictions and ``s``
    are mapped to {0, 1} with the estimator's ``classes_`` (``classes_[1]`` is the labeled / positive one).

    Parameters
    ----------
    metric : str
        One of the names above.
    prior : float in (0, 1) or None
        Positive fraction of the unlabeled rows. ``None``: the fitted estimator's ``prior_`` (the last step of a
        Pipeline), and a ``ValueError`` at scoring time when it has none. Candidates fitted with
        ``prior="auto"`` are then each scored at their own estimate.
    scenario : {"case-control", "censoring"}
        Population of the prior-corrected metrics (:mod:`pujax.metrics.pu`).
    loss : str
        Loss of ``"nnpu_risk"`` / ``"upu_risk"`` (a name in :data:`pujax.risk.LOSSES`).

    Returns
    -------
    PUScorer
        A picklable callable ``(estimator, X, y) -> float``.

    References
    ----------
    Lee & Liu (2003), ICML; Kiryo et al. (2017), NeurIPS, eq. (6) (nnPU risk); Jain, White & Radivojac (2017),
    AAAI (prior-corrected metrics).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.linspace(-3, 3, 40)[:, None]
    >>> s = (X[:, 0] > 1.5).astype(int)
    >>> est = LogisticRegression().fit(X, s)  # predicts the 10 labeled rows positive, the rest negative
    >>> make_pu_scorer("lee_liu")(est, X, s)  # recall 1, P(y_hat = 1) = 10 / 40
    4.0
    >>> round(make_pu_scorer("pu_zero_one_risk", prior=0.3)(est, X, s), 4)  # -(0.3 * 0 + 0 - 0.3 * 1)
    0.3
    """
    check_in(metric, "metric", PU_SCORERS)
    if prior is not None:
        prior = check_prior(prior, allow_auto=False)
    check_scenario(scenario)
    get_loss(loss)
    return PUScorer(metric, prior, scenario=scenario, loss=loss)
