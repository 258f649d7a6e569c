"""A text / dict summary of every PU metric of a predictor, computed without negative labels."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from pujax.metrics._checks import (
    DegeneratePredictorWarning,
    check_metric_prior,
    check_pu_pair,
    check_scenario,
    warn_constant_scores,
    warn_degenerate,
)
from pujax.metrics.pu import (
    lee_liu_score,
    pu_accuracy,
    pu_balanced_accuracy,
    pu_f1_score,
    pu_lift_auc,
    pu_precision,
    pu_recall,
    pu_roc_auc,
)
from pujax.validation import check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["pu_classification_report"]


def pu_classification_report(s: ArrayLike, y_pred: ArrayLike, prior: float | None = None, *,
                             y_score: ArrayLike | None = None, scenario: str = "case-control",
                             output_dict: bool = False, digits: int = 3) -> str | dict:
    r"""Report the PU metrics of a predictor (and of a scorer) estimated from PU labels alone.

    Always: the recall on the labeled positives, the predicted-positive rates, the Lee-Liu score and, with
    ``y_score``, the area under the lift curve. With a ``prior``: the prior-corrected precision, F1, accuracy,
    balanced accuracy and, with ``y_score``, ROC AUC (:mod:`pujax.metrics.pu`, eqs. (P1)-(P7)). A degenerate
    predictor (all rows one class) or scorer (all scores equal) gives one :class:`DegeneratePredictorWarning`.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled); both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted labels (bool, {0, 1} or {-1, +1}).
    prior : float in (0, 1) or None
        Positive fraction of the unlabeled rows; ``None`` leaves out the metrics that need it.
    y_score : array-like of shape (n_samples,), optional
        Real scores (greater = more positive) for the ranking metrics.
    scenario : {"case-control", "censoring"}
        Population the metrics describe (see :mod:`pujax.metrics.pu`).
    output_dict : bool
        Return a dict of floats instead of a text table.
    digits : int
        Digits of the values in the text table.

    Returns
    -------
    str or dict
        The table (``name  value`` per line), or ``{name: float}``.

    References
    ----------
    Jain, White & Radivojac (2017), AAAI; Lee & Liu (2003), ICML; Jiang et al. (2020), arXiv:2004.09820.

    Examples
    --------
    >>> s = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> rep = pu_classification_report(s, [1, 1, 1, 0, 1, 1, 0, 0, 0, 0], prior=0.4, output_dict=True)
    >>> round(rep["recall"], 4), round(rep["precision"], 4), round(rep["f1"], 4)
    (0.75, 0.9, 0.8182)
    """
    s01, p = check_pu_pair(s, y_pred)
    warn_degenerate(p, stacklevel=3)
    if y_score is not None:
        _, ranks = check_pu_pair(s01, y_score, "y_score", scores=True)
        warn_constant_scores(ranks, stacklevel=3)
    scenario = check_scenario(scenario)
    prior = None if prior is None else check_metric_prior(prior)
    digits = check_int(digits, "digits", low=0, high=15)
    rows = {"n_labeled": float(s01.sum()), "n_unlabeled": float((1 - s01).sum()),
            "positive_rate_labeled": float(p[s01 == 1].mean()),
            "positive_rate_unlabeled": float(p[s01 == 0].mean()), "positive_rate_all": float(p.mean())}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegeneratePredictorWarning)
        rows["recall"] = float(pu_recall(s01, p))
        rows["lee_liu"] = float(lee_liu_score(s01, p))
        if prior is not None:
            for name, fn in (("precision", pu_precision), ("f1", pu_f1_score), ("accuracy", pu_accuracy),
                             ("balanced_accuracy", pu_balanced_accuracy)):
                rows[name] = float(fn(s01, p, prior, scenario=scenario))
        if y_score is not None:
            rows["lift_auc"] = float(pu_lift_auc(s01, y_score, scenario=scenario))
            if prior is not None:
                rows["roc_auc"] = float(pu_roc_auc(s01, y_score, prior))
    if output_dict:
        return rows
    width = max(map(len, rows))
    head = f"PU metrics ({scenario}, prior={'not given' if prior is None else f'{prior:g}'})"
    lines = [head, ""] + [f"{k:<{width}}  {v:.0f}" if k.startswith("n_") else f"{k:<{width}}  {v:.{digits}f}"
                          for k, v in rows.items()]
    return "\n".join(lines) + "\n"
