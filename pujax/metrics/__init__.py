r"""Classification metrics as jit-able JAX functions, and metrics computed from PU data without negatives.

* :mod:`pujax.metrics.classification` -- metrics with true labels, equal to :mod:`sklearn.metrics` (binary case):
  :func:`accuracy`, :func:`balanced_accuracy`, :func:`precision`, :func:`recall`, :func:`f1_score`,
  :func:`roc_auc`, :func:`average_precision`, :func:`confusion_counts`.
* :mod:`pujax.metrics.pu` -- from PU labels ``s`` (1 = labeled positive, 0 = unlabeled) only:
  :func:`lee_liu_score` (alias :func:`pu_score`), :func:`pu_zero_one_risk`, :func:`pu_recall`, and the
  prior-corrected :func:`pu_precision`, :func:`pu_f1_score`, :func:`pu_accuracy`, :func:`pu_balanced_accuracy`,
  :func:`pu_roc_auc`, plus the area under the lift curve :func:`pu_lift_auc` (in the case-control scenario the AUC
  of labeled versus unlabeled rows, the "proxy AUC" of the PU benchmarks) and the benchmarks' proxy accuracy
  :func:`pu_proxy_accuracy` (derivations and references in that
  module); :func:`pu_classification_report` summarises them.
* :mod:`pujax.metrics.scorer` -- :func:`make_pu_scorer`: scikit-learn scorers of those metrics (also in
  :mod:`pujax.model_selection`); :data:`pu_scorer` is ``make_pu_scorer("lee_liu")``.

Every function returns a scalar JAX array and works under ``jax.jit`` and ``jax.vmap`` (e.g. over seeds). Called
with concrete arrays, inputs are validated as scikit-learn validates its metrics, with errors that name the
argument: lengths must match, scores must be finite, labels must be bool, {0, 1} or {-1, +1} (``{0, 2}`` is
refused), inputs must not be empty, PU labels need a labeled and an unlabeled row, the prior must lie in (0, 1).
Undefined values warn as in scikit-learn (``UndefinedMetricWarning``); a predictor that puts every row in one
class warns with :class:`DegeneratePredictorWarning`.
"""
from __future__ import annotations

import warnings

from pujax.metrics._checks import DegeneratePredictorWarning, UndefinedMetricWarning
from pujax.metrics.classification import (
    accuracy,
    average_precision,
    balanced_accuracy,
    confusion_counts,
    f1_score,
    precision,
    recall,
    roc_auc,
)
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
    pu_score,
    pu_zero_one_risk,
)
from pujax.metrics.report import pu_classification_report
from pujax.metrics.scorer import PUScorer, make_pu_scorer

__all__ = [
    "accuracy", "balanced_accuracy", "precision", "recall", "f1_score", "roc_auc", "average_precision",
    "confusion_counts",
    "lee_liu_score", "pu_score", "pu_zero_one_risk", "pu_recall", "pu_precision", "pu_f1_score", "pu_accuracy",
    "pu_balanced_accuracy", "pu_roc_auc", "pu_lift_auc", "pu_proxy_accuracy",
    "pu_classification_report",
    "DegeneratePredictorWarning", "UndefinedMetricWarning",
    "PUScorer", "make_pu_scorer", "pu_scorer", "make_pu_risk_scorer",
]

#: scikit-learn scorer of :func:`lee_liu_score` on ``estimator.predict(X)``: ``GridSearchCV(scoring=pu_scorer)``.
pu_scorer = make_pu_scorer("lee_liu")


def make_pu_risk_scorer(prior: float) -> PUScorer:
    """Deprecated: use ``make_pu_scorer("pu_accuracy", prior)`` (the same value, 1 - the PU 0-1 risk, clipped).

    Parameters
    ----------
    prior : float in (0, 1)
        Positive fraction of the unlabeled rows.

    Returns
    -------
    PUScorer

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     scorer = make_pu_risk_scorer(0.3)
    >>> scorer
    make_pu_scorer('pu_accuracy', prior=0.3, scenario='case-control')
    """
    warnings.warn("make_pu_risk_scorer(prior) is deprecated and will be removed in the next release; use "
                  "pujax.model_selection.make_pu_scorer('pu_accuracy', prior).", FutureWarning, stacklevel=2)
    return make_pu_scorer("pu_accuracy", prior)
