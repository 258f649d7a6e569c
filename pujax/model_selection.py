r"""Model selection for PU data: splitters that keep the labeled share, and scorers that need no negatives.

* :class:`PUStratifiedKFold` -- k-fold cross-validation stratified on the PU labels ``s``: every fold holds
  (up to one row) the same share of labeled positives, so every training and test fold has labeled and
  unlabeled rows. A scikit-learn splitter (``cv=`` of ``GridSearchCV``, ``cross_val_score``, ...).
* :func:`pu_train_test_split` -- one stratified train / test split of PU data.
* :func:`make_pu_scorer` -- scikit-learn scorers of the PU metrics of :mod:`pujax.metrics` (the Lee-Liu score,
  the negated PU 0-1 / nnPU / uPU risks at a prior, the prior-corrected accuracy, F1, ROC AUC, ...); the ``y``
  that scikit-learn passes to a scorer is the PU label vector ``s`` given to ``fit``.

Example: tune a PU forest without negative labels::

    from sklearn.model_selection import GridSearchCV
    from pujax import PUExtraTreesClassifier, PUStratifiedKFold, make_pu_scorer

    search = GridSearchCV(PUExtraTreesClassifier(prior=0.3), {"max_features": [1, "sqrt", None]},
                          scoring=make_pu_scorer("pu_roc_auc", prior=0.3),
                          cv=PUStratifiedKFold(5, shuffle=True, random_state=0)).fit(X, s)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split

from pujax.metrics.scorer import PU_SCORERS, PUScorer, make_pu_scorer
from pujax.validation import check_int, check_pu_labels

if TYPE_CHECKING:
    from collections.abc import Iterator

    from numpy.typing import ArrayLike

    from pujax._typing import RandomStateLike

__all__ = ["PUStratifiedKFold", "pu_train_test_split", "make_pu_scorer", "PUScorer", "PU_SCORERS"]


def _pu_labels(y, n_min: int, what: str, pos_label=None) -> np.ndarray:
    """PU labels read by pujax's rule (:func:`~pujax.validation.read_pu_labels`) as int32 {0, 1}, with ``n_min``
    rows of each class."""
    if y is None:
        raise ValueError(f"{what} needs the PU labels: pass y = s (1 = labeled positive, 0 = unlabeled).")
    s01 = check_pu_labels(y, name="y", require_both=False, pos_label=pos_label)
    for cls, name in ((1, "labeled positives"), (0, "unlabeled rows")):
        n = int(np.sum(s01 == cls))
        if n < n_min:
            raise ValueError(f"y has {n} {name}, fewer than the {n_min} that {what} needs (one per part); use "
                             f"fewer splits or more data.")
    return s01


class PUStratifiedKFold(StratifiedKFold):
    """K-fold cross-validation of PU data, stratified on the PU labels: the folds keep the labeled share.

    scikit-learn's :class:`~sklearn.model_selection.StratifiedKFold` applied to ``y = s`` after checking that
    ``s`` holds PU labels (bool, {0, 1} or {-1, 1} with 1 labeled, or two values of which ``pos_label`` marks the
    labeled positives) with at least ``n_splits`` labeled and ``n_splits`` unlabeled rows, so that every test fold
    -- and every training fold -- holds both.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2.
    shuffle : bool, default=False
        Shuffle each class's rows before splitting into folds.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling (only used with ``shuffle=True``).
    pos_label : scalar or None, default=None
        The value of ``y`` that marks labeled positives (as the estimators' ``pos_label``); None reads ``y`` as
        bool, {0, 1} or {-1, 1}.

    References
    ----------
    Claesen et al. (2015), Neurocomputing, §4.1 (cross-validation of PU models scored without negatives);
    Kohavi (1995), IJCAI (stratified cross-validation).

    Examples
    --------
    >>> import numpy as np
    >>> s = np.r_[np.ones(6, int), np.zeros(14, int)]
    >>> cv = PUStratifiedKFold(3)
    >>> cv.get_n_splits()
    3
    >>> [int(s[test].sum()) for _, test in cv.split(np.zeros((20, 1)), s)]  # labeled rows per test fold
    [2, 2, 2]
    """

    def __init__(self, n_splits: int = 5, *, shuffle: bool = False, random_state=None, pos_label=None):
        super().__init__(n_splits=check_int(n_splits, "n_splits", low=2), shuffle=shuffle,
                         random_state=random_state)
        self.pos_label = pos_label

    def split(self, X: ArrayLike, y: ArrayLike,
              groups: ArrayLike | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Generate ``(train_index, test_index)`` for each fold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (only its length is used).
        y : array-like of shape (n_samples,)
            PU labels ``s`` (1 / ``True`` or ``pos_label`` marks labeled positives).
        groups : ignored
            Present for API compatibility.

        Yields
        ------
        train, test : ndarray
            Row indices of the training and of the test fold.
        """
        s01 = _pu_labels(y, self.n_splits, f"PUStratifiedKFold(n_splits={self.n_splits})", self.pos_label)
        return super().split(X, s01, groups)


def pu_train_test_split(X: ArrayLike, s: ArrayLike, *arrays: ArrayLike, test_size: float | int | None = None,
                        train_size: float | int | None = None, random_state: RandomStateLike = None,
                        pos_label: Any = None) -> list:
    """Split PU data into a training and a test part that keep the labeled share (stratified on ``s``).

    scikit-learn's :func:`~sklearn.model_selection.train_test_split` with ``stratify=s``, after checking that
    ``s`` holds PU labels with at least two labeled and two unlabeled rows; both parts get labeled and unlabeled
    rows. Pandas frames and series stay pandas.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features.
    s : array-like of shape (n_samples,)
        PU labels: bool, {0, 1} or {-1, 1} (1 / ``True`` = labeled positive), or two values with ``pos_label``.
    *arrays : array-like of shape (n_samples, ...)
        Further arrays split the same way (e.g. hidden true labels for evaluation).
    test_size, train_size : float, int or None
        As in :func:`~sklearn.model_selection.train_test_split` (default: a 25 % test part).
    random_state : int, RandomState instance or None
        Seeds the shuffling.
    pos_label : scalar or None, default=None
        The value of ``s`` that marks labeled positives (None: the rule above).

    Returns
    -------
    list
        ``X_train, X_test, s_train, s_test`` followed by the train / test parts of each of ``arrays``.

    References
    ----------
    Kohavi (1995), IJCAI (stratified hold-out).

    Examples
    --------
    >>> import numpy as np
    >>> X, s = np.arange(40.0).reshape(20, 2), np.r_[np.ones(8, int), np.zeros(12, int)]
    >>> X_tr, X_te, s_tr, s_te = pu_train_test_split(X, s, test_size=0.25, random_state=0)
    >>> X_tr.shape, X_te.shape, int(s_tr.sum()), int(s_te.sum())
    ((15, 2), (5, 2), 6, 2)
    """
    s01 = _pu_labels(s, 2, "pu_train_test_split", pos_label)
    return train_test_split(X, s, *arrays, test_size=test_size, train_size=train_size,
                            random_state=random_state, shuffle=True, stratify=s01)
