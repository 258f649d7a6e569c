"""How a PU model depends on the class prior it is given: refit over a range of priors, score without negatives,
and plot the result."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from pujax.validation import check_prior, check_X_s

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

    from pujax.prior._common import PriorEstimate

__all__ = ["PriorSensitivity", "prior_sensitivity", "plot_prior_sensitivity"]


@dataclass(frozen=True)
class PriorSensitivity:
    """Result of :func:`prior_sensitivity`: one row per prior.

    Attributes
    ----------
    priors : ndarray of shape (n_priors,)
        The priors the estimator was fitted with.
    scores : ndarray of shape (n_priors,)
        The scorer's value of each fitted model (greater is better).
    positive_rate : ndarray of shape (n_priors,)
        Share of the unlabeled evaluation rows that each model predicts positive (a model consistent with its prior
        predicts about ``prior`` of them positive).
    fit_time : ndarray of shape (n_priors,)
        Seconds of each fit.
    scorer : str
        Name of the scorer.
    """

    priors: np.ndarray
    scores: np.ndarray
    positive_rate: np.ndarray
    fit_time: np.ndarray
    scorer: str
    columns: tuple = field(default=("prior", "score", "positive_rate", "fit_time"), repr=False)

    def rows(self) -> list:
        """The table as a list of dicts (one per prior)."""
        return [dict(zip(self.columns, map(float, r)))
                for r in zip(self.priors, self.scores, self.positive_rate, self.fit_time)]

    def to_pandas(self) -> Any:
        """The table as a ``pandas.DataFrame`` (pandas is imported here)."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def best_prior(self) -> float:
        """The prior of the highest score (the first one on ties)."""
        return float(self.priors[int(np.argmax(self.scores))])


def _resolve_scorer(scorer):
    if callable(scorer):
        return scorer, getattr(scorer, "__name__", type(scorer).__name__)
    if isinstance(scorer, str):
        from pujax.metrics import make_pu_scorer

        return make_pu_scorer(scorer), scorer
    raise TypeError(f"scorer must be a metric name of pujax.metrics.make_pu_scorer or a callable "
                    f"(estimator, X, s) -> float; got {type(scorer).__name__}.")


def prior_sensitivity(estimator: BaseEstimator, X: ArrayLike, s: ArrayLike, priors: ArrayLike, *,
                      scorer: str = "lee_liu", X_eval: ArrayLike | None = None,
                      s_eval: ArrayLike | None = None) -> PriorSensitivity:
    """Refit ``estimator`` with each prior of ``priors`` and score it without negatives.

    Parameters
    ----------
    estimator : pujax estimator with a ``prior`` parameter
        Cloned and fitted once per prior (``set_params(prior=p)``).
    X : array-like of shape (n_samples, n_features)
        Training features.
    s : array-like of shape (n_samples,)
        PU labels of the training rows (1 = labeled positive, 0 = unlabeled).
    priors : sequence of float in (0, 1)
        Priors to fit with (positive fraction of the unlabeled rows).
    scorer : str or callable, default="lee_liu"
        A metric name of :func:`pujax.metrics.make_pu_scorer` -- metrics that need a prior use the prior of the
        fit being scored -- or a callable ``scorer(estimator, X, s) -> float`` (greater is better). The default
        (Lee & Liu's recall^2 / P(predicted positive)) needs no prior, so the scores of different priors compare
        on one scale.
    X_eval, s_eval : array-like or None
        Rows to score on (held-out PU data); default: the training rows.

    Returns
    -------
    PriorSensitivity
        The table (``rows()``, ``to_pandas()``, ``best_prior()``).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax import PUExtraTreesClassifier
    >>> from pujax.prior import prior_sensitivity
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(2, 1, (100, 2)), rng.normal(0, 1, (150, 2)), rng.normal(2, 1, (150, 2))]
    >>> s = np.r_[np.ones(100), np.zeros(300)]               # U is half positive
    >>> table = prior_sensitivity(PUExtraTreesClassifier(n_estimators=10, random_state=0), X, s, [0.3, 0.5, 0.7])
    >>> [round(r["prior"], 1) for r in table.rows()]
    [0.3, 0.5, 0.7]
    """
    from sklearn.base import clone

    X, s01 = check_X_s(X, s)
    if X_eval is None:
        X_eval, s_eval = X, s
    elif s_eval is None:
        raise ValueError("X_eval is given without s_eval: pass the PU labels of the evaluation rows too.")
    _, s_eval01 = check_X_s(X_eval, s_eval)
    priors = np.asarray([check_prior(p, f"priors[{i}]", allow_auto=False) for i, p in enumerate(priors)])
    if priors.size == 0:
        raise ValueError("priors is empty: pass at least one prior in (0, 1).")
    if "prior" not in estimator.get_params():
        raise TypeError(f"{type(estimator).__name__} has no 'prior' parameter; pass a PU estimator that takes one.")
    score_fn, name = _resolve_scorer(scorer)
    scores, rate, times = [], [], []
    unl = s_eval01 == 0
    for p in priors:
        t0 = time.perf_counter()
        model = clone(estimator).set_params(prior=float(p)).fit(X, s)
        times.append(time.perf_counter() - t0)
        scores.append(float(score_fn(model, X_eval, s_eval)))
        pred = np.asarray(model.predict(X_eval))
        rate.append(float(np.mean(pred[unl] == model.classes_[1])) if unl.any() else np.nan)
    return PriorSensitivity(priors=priors, scores=np.asarray(scores), positive_rate=np.asarray(rate),
                            fit_time=np.asarray(times), scorer=name)


def plot_prior_sensitivity(table: PriorSensitivity, *, estimate: PriorEstimate | float | None = None,
                           ax: Any = None) -> Any:
    """Plot a :class:`PriorSensitivity` table: the score and the predicted positive share of U against the prior.

    Parameters
    ----------
    table : PriorSensitivity
        Output of :func:`prior_sensitivity`.
    estimate : PriorEstimate or float or None
        A prior estimate to mark (a vertical line, and its interval shaded when it has one).
    ax : matplotlib Axes or None
        Axes to draw on (a new figure when ``None``). matplotlib is imported here.

    Returns
    -------
    matplotlib Axes
        The axes of the score; the positive share is on a twin axis (``ax.right_ax``).
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    ax.plot(table.priors, table.scores, "o-", color="C0", label=f"score ({table.scorer})")
    ax.set_xlabel("prior given to the estimator")
    ax.set_ylabel(f"score ({table.scorer})", color="C0")
    right = ax.twinx()
    right.plot(table.priors, table.positive_rate, "s--", color="C1", label="predicted positive share of U")
    right.plot(table.priors, table.priors, ":", color="0.5", label="share = prior")
    right.set_ylabel("predicted positive share of U", color="C1")
    if estimate is not None:
        value = float(getattr(estimate, "prior", estimate))
        ax.axvline(value, color="k", lw=1, label=f"estimated prior {value:.3f}")
        if getattr(estimate, "interval", None) is not None:
            ax.axvspan(*estimate.interval, color="k", alpha=0.1)
    handles = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(handles[0] + more[0], handles[1] + more[1], loc="best", fontsize="small")
    ax.right_ax = right
    return ax
