r"""A linear (or random-Fourier-feature) classifier fitted by minimising the uPU / nnPU risk of Kiryo et al. (2017)
with full-batch L-BFGS (:func:`pujax.lbfgs.lbfgs_minimize`); ``C`` chosen by cross-validation of the PU risk.

Objective over :math:`\theta = (w, b)` on standardised features :math:`z(x)` (the features themselves, or
:math:`\sqrt{2/D}\cos(W^\top z + u)` with :math:`W \sim N(0, 2\gamma I)`, :math:`u \sim U[0, 2\pi)` for the RBF
kernel :math:`\exp(-\gamma \lVert x - x' \rVert^2)`, Rahimi & Recht 2007):

.. math:: J(\theta) = \hat R(g_\theta) + \frac{\lVert w \rVert^2}{2 C n}, \qquad g_\theta(x) = w^\top z(x) + b,

with :math:`\hat R` the uPU risk (eq. (5)) or the nnPU risk (eq. (6)) of :mod:`pujax.risk` and :math:`n` the total
sample weight. The objective and its exact gradient are evaluated in NumPy (float32 products and losses, float64
sums) for a batch of problems at once -- the cross-validation folds times the ``C`` candidates -- and minimised by
the batched L-BFGS of :mod:`pujax.lbfgs`: nothing is compiled, so a first fit costs what a refit does. ``C="auto"``
picks ``C`` from :data:`C_GRID` by the lowest cross-validated uPU risk with the zero-one loss (an unbiased estimate
of the misclassification rate from PU data; the model selection of du Plessis et al. 2015), the candidates of every
fold and of the full data solved as one batch. :func:`linear_pu_objective` is the same objective in JAX (for optax
loops and as the reference of the gradient).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from pujax.base import PUClassifierMixin
from pujax.devices import cpu_threads
from pujax.lbfgs import lbfgs_minimize
from pujax.persistence import register_estimator, register_model
from pujax.preprocessing import check_standardize, standardization, standardize
from pujax.random import as_key, host_rng
from pujax.risk import LOSSES, nnpu_risk, upu_risk
from pujax.validation import SPARSE_FORMATS, check_float, check_in, check_int, check_prior, check_pu_labels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["NNPULinearClassifier", "LinearPUModel", "linear_pu_features", "linear_pu_objective", "linear_pu_fit",
           "linear_pu_decision", "random_fourier_weights", "C_GRID"]

C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0)
_LOSS_NAMES = tuple(k for k in LOSSES if k != "zero_one")
_FTOL = 1e-6  # relative decrease that ends a solve (about the precision of the float32 products)
_START_C = 0.1  # C of the convex start (the middle of C_GRID on a log scale), the same for a fixed C and C="auto"


class LinearPUModel(NamedTuple):
    """A fitted linear PU model: standardisation, optional random Fourier features, weights."""

    mean: np.ndarray  # (d,)
    scale: np.ndarray  # (d,)
    rff_weights: np.ndarray  # (d, D); D = 0 for the linear model
    rff_offset: np.ndarray  # (D,)
    coef: np.ndarray  # (k,) with k = d (linear) or D (rbf)
    intercept: np.ndarray  # ()


register_model(LinearPUModel, {"mean": "f[n_features_in_]", "scale": "f[n_features_in_]",
                               "rff_weights": "f[n_features_in_,n_rff]", "rff_offset": "f[n_rff]",
                               "coef": "f[*]", "intercept": "f[]"})


def random_fourier_weights(key, n_features: int, n_components: int, gamma: float):
    """Random Fourier features of the RBF kernel ``exp(-gamma |x - x'|^2)``: ``(W (d, D), u (D,))``."""
    k1, k2 = jax.random.split(key)
    W = jax.random.normal(k1, (n_features, n_components), jnp.float32) * jnp.sqrt(2.0 * gamma)
    u = jax.random.uniform(k2, (n_components,), jnp.float32, 0.0, 2.0 * jnp.pi)
    return W, u


def linear_pu_features(mean, scale, rff_weights, rff_offset, X) -> np.ndarray:
    """Standardised ``X`` (:func:`pujax.preprocessing.standardize`: float64 arithmetic, float32 result), mapped to
    ``sqrt(2/D) cos(Z W + u)`` when ``D = rff_weights.shape[1] > 0`` (NumPy). A scipy sparse ``X`` with a zero
    ``mean`` stays sparse (float32); its random features are dense."""
    Z = standardize(X, mean, scale)
    D = rff_weights.shape[1]
    if D == 0:
        return Z.astype(np.float32)
    return (np.sqrt(2.0 / D) * np.cos(Z @ np.asarray(rff_weights) + np.asarray(rff_offset))).astype(np.float32)


def _scores(Theta, Z) -> np.ndarray:
    """``Theta @ Z.T`` (B, n) for dense or scipy sparse features ``Z`` (n, k)."""
    return (Z @ Theta.T).T if sp.issparse(Z) else Theta @ Z.T


def _pull_back(G, Z) -> np.ndarray:
    """``G @ Z`` (B, k) for per-row weights ``G`` (B, n) and dense or scipy sparse ``Z`` (n, k)."""
    return (Z.T @ G.T).T if sp.issparse(Z) else G @ Z


def linear_pu_objective(params: tuple[jax.Array, jax.Array], Z: ArrayLike, s: ArrayLike, w: ArrayLike, prior: float,
                        C: float, loss: str = "sigmoid", risk: str = "nnpu") -> jax.Array:
    """``J(theta)``: the uPU / nnPU risk of ``g = Z coef + intercept`` plus ``|coef|^2 / (2 C sum(w))``."""
    coef, intercept = params
    g = Z @ coef + intercept
    r = (nnpu_risk if risk == "nnpu" else upu_risk)(g, s, prior, loss, w)
    return r + 0.5 * jnp.sum(coef * coef) / (C * jnp.sum(w))


def _sig(z):
    """Sigmoid: ``1 / (1 + exp(-z))`` (``exp`` overflows to ``inf`` and the result to 0 or 1, exactly)."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-z))


def _softplus(z):
    """``log(1 + exp(z))`` without overflow: ``max(z, 0) + log1p(exp(-|z|))``."""
    return np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))


def _losses(name: str, G):
    """``(l(g), l'(g), l(-g), l'(-g))`` of a margin loss of :data:`pujax.risk.LOSSES` in NumPy (``G``'s dtype)."""
    if name in ("sigmoid", "logistic", "savage"):
        p = _sig(-G)  # sigmoid(-g); sigmoid(g) = 1 - p
        if name == "sigmoid":
            d = -p * (1.0 - p)
            return p, d, 1.0 - p, d
        if name == "logistic":
            sp = _softplus(-G)  # softplus(g) = softplus(-g) + g
            return sp, -p, sp + G, p - 1.0
        return 4.0 * p * p, -8.0 * p * p * (1.0 - p), 4.0 * (1.0 - p) ** 2, -8.0 * (1.0 - p) ** 2 * p
    if name == "quadratic":
        return (1.0 - G) ** 2, -2.0 * (1.0 - G), (1.0 + G) ** 2, -2.0 * (1.0 + G)

    def double_hinge(z):  # max(-z, max(0, (1 - z) / 2))
        return np.maximum(-z, np.maximum(0.0, 0.5 - 0.5 * z)), np.where(z < -1.0, -1.0, np.where(z < 1.0, -0.5, 0.0))

    return (*double_hinge(G), *double_hinge(-G))


def _row_sum(v):
    """Sums over the rows (axis 1) of a float32 array, accumulated in float64."""
    return np.sum(v, 1, dtype=np.float64)


class _PUObjective:
    """:func:`linear_pu_objective` and its exact gradient for B problems at once (NumPy): shared features ``Z``
    (n, k) and PU labels ``s``, row weights ``W`` (B, n) and ``C`` (B,) per problem. The labeled and the unlabeled
    rows are kept apart with their normalised weights ``pi w / n_P`` and ``w / n_U``, so the loss of a labeled row
    as a negative is evaluated only where the risk uses it. Products and losses are float32; sums over rows, values
    and gradients float64."""

    def __init__(self, Z, s, W, prior, C, loss: str, non_negative: bool):
        pos = np.asarray(s) == 1
        if sp.issparse(Z):  # products as sparse x dense: the (n, k) features are never densified
            self.Zp, self.Zu = (sp.csr_matrix(Z[rows], dtype=np.float32) for rows in (pos, ~pos))
        else:
            self.Zp, self.Zu = (np.ascontiguousarray(Z[rows], np.float32) for rows in (pos, ~pos))
        n_p, n_u = W[:, pos].sum(1, keepdims=True), W[:, ~pos].sum(1, keepdims=True)
        self.Ap = (prior * W[:, pos] / np.where(n_p > 0, n_p, 1.0)).astype(np.float32)  # labeled rows: pi w / n_P
        self.Bu = (W[:, ~pos] / np.where(n_u > 0, n_u, 1.0)).astype(np.float32)  # unlabeled rows: w / n_U
        self.total = C * W.sum(1)
        self.loss, self.non_negative = loss, non_negative

    def __call__(self, Theta, rows=slice(None)):
        """``(values (r,), gradients (r, k + 1))`` of the problems ``rows`` at ``Theta`` (r, k + 1)."""
        coef, b = Theta[:, :-1], Theta[:, -1:].astype(np.float32)
        coef32 = coef.astype(np.float32)
        Ap, Bu, total = self.Ap[rows], self.Bu[rows], self.total[rows]
        l_pos, d_pos, l_neg_p, d_neg_p = _losses(self.loss, _scores(coef32, self.Zp) + b)  # labeled: l(g), l(-g)
        _, _, l_neg_u, d_neg_u = _losses(self.loss, _scores(coef32, self.Zu) + b)  # unlabeled rows: l(-g)
        neg = _row_sum(Bu * l_neg_u) - _row_sum(Ap * l_neg_p)
        on = (neg > 0) | (not self.non_negative)  # nnPU's max(0, .) passes the negative part's gradient where > 0
        on32 = on.astype(np.float32)[:, None]
        dGp = (Ap * (d_pos + on32 * d_neg_p)).astype(np.float32)
        dGu = (-on32 * Bu * d_neg_u).astype(np.float32)
        value = _row_sum(Ap * l_pos) + np.where(on, neg, 0.0) + 0.5 * np.sum(coef * coef, 1) / total
        grad_coef = (_pull_back(dGp, self.Zp) + _pull_back(dGu, self.Zu)).astype(np.float64) + coef / total[:, None]
        return value, np.concatenate([grad_coef, (_row_sum(dGp) + _row_sum(dGu))[:, None]], axis=1)


def _unit_spread(Theta, Z, W):
    """Each row of ``Theta`` scaled down so that the weighted standard deviation of its scores is at most 1."""
    G = _scores(Theta[:, :-1], Z)
    mean = np.sum(W * G, 1, keepdims=True) / np.sum(W, 1, keepdims=True)
    sd = np.sqrt(np.sum(W * (G - mean) ** 2, 1) / np.sum(W, 1))
    return Theta * np.where(sd > 1.0, 1.0 / np.maximum(sd, 1.0), 1.0)[:, None]


def _solve_batch(Z, s, W, prior, C, loss, risk, max_iter, tol, group=None):
    """Two stages: the minimiser of the convex uPU objective with the logistic loss (where ``l(z) - l(-z) = -z``, du
    Plessis et al. 2015) and ``C = _START_C``, scaled down to a score spread of at most 1 (bounded losses not
    saturated), is the start of the requested objective. The start is solved once per ``group`` (B,) of problems
    that share their row weights (those of the group's first problem); ``group=None``: one start per problem. A
    solve ends at ``max_iter`` iterations, a gradient norm below ``tol`` or a relative decrease below ``_FTOL``.
    Returns ``(Theta (B, k + 1), n_iter (B,), values (B,))``."""
    Z = Z if sp.issparse(Z) else np.asarray(Z, np.float64)
    W, C = np.asarray(W, np.float64), np.asarray(C, np.float64)
    B, k = W.shape[0], Z.shape[1] + 1
    _, first, of = np.unique(np.arange(B) if group is None else group, return_index=True, return_inverse=True)
    start_W = W[first]
    # BLAS threads pay off on large products only; on small ones they contend for the cores
    with cpu_threads(1 if B * (Z.nnz if sp.issparse(Z) else Z.size) < 2_000_000 else None, user_api="blas"):
        if (loss, risk) == ("logistic", "upu"):  # convex: the start is the answer
            res = lbfgs_minimize(_PUObjective(Z, s, W, prior, C, loss, False), np.zeros((B, k)), max_iter, tol,
                                 ftol=_FTOL)
            return res.x, res.n_iter, res.value
        res = lbfgs_minimize(_PUObjective(Z, s, start_W, prior, np.full(first.size, _START_C), "logistic", False),
                             np.zeros((first.size, k)), max_iter, tol, ftol=_FTOL)
        start = _unit_spread(res.x, Z, start_W)[of]
        res2 = lbfgs_minimize(_PUObjective(Z, s, W, prior, C, loss, risk == "nnpu"), start, max_iter, tol, ftol=_FTOL)
    return res2.x, res.n_iter[of] + res2.n_iter, res2.value


def _folds(s, w, n_folds, rng):
    """Fold index of each row: the labeled and the unlabeled rows with positive weight each split evenly."""
    fold = np.full(s.shape[0], -1)
    for cls in (0, 1):
        rows = np.flatnonzero((s == cls) & (w > 0))
        fold[rows[rng.permutation(rows.size)]] = np.arange(rows.size) % n_folds
    return fold


def _zero_one_upu(G, s, W, prior):
    """uPU risk with the zero-one loss of scores ``G`` (B, n) under row weights ``W`` (B, n): ``pi P(g <= 0 | P) +
    P(g >= 0 | U) - pi P(g >= 0 | P)`` (eq. (5) with ``l(z) = 1[z <= 0]``)."""
    wp, wu = W * (s == 1), W * (s == 0)
    mean = lambda v, ww: np.sum(ww * v, 1) / np.maximum(np.sum(ww, 1), 1e-30)  # noqa: E731
    return prior * mean(G <= 0, wp) + mean(G >= 0, wu) - prior * mean(G >= 0, wp)


def _penalty_scale(Z, w) -> float:
    """``C``'s factor for features read as given: the number of non-constant features over the rows' weighted mean
    squared norm, so that ``|coef|^2 / (2 C n)`` weighs as on standardised features (whose mean squared norm is that
    number). For TF-IDF rows of unit norm: about the number of terms."""
    w = np.asarray(w, np.float64)
    Zw = Z[w > 0]
    sq = np.asarray(Z.multiply(Z).sum(axis=1)).ravel() if sp.issparse(Z) else np.einsum("ij,ij->i", Z, Z)
    mean_sq = float(np.sum(w * sq) / max(np.sum(w), 1e-300))
    spread = Zw.max(axis=0) != Zw.min(axis=0)
    live = spread.nnz if sp.issparse(spread) else int(np.count_nonzero(spread))
    return max(live, 1) / mean_sq if mean_sq > 0 else 1.0


def linear_pu_fit(X: ArrayLike, s: ArrayLike, prior: float, *, loss: str = "sigmoid", risk: str = "nnpu",
                  C: float | str = 1.0, rff: tuple[ArrayLike, ArrayLike] | None = None, max_iter: int = 200,
                  tol: float = 1e-5, sample_weight: ArrayLike | None = None, n_folds: int = 3,
                  random_state: int | np.random.Generator | None = None,
                  standardize: bool = True) -> tuple[LinearPUModel, float, int, float]:
    """Fit a :class:`LinearPUModel` on validated ``X`` ((n, d), dense or scipy sparse) and PU labels ``s``
    (int {0, 1}).

    ``standardize``: ``X`` standardised in float64 (a sparse ``X`` scaled without centring, still sparse); False:
    read as given (the model's ``mean`` 0 and ``scale`` 1), and the linear model's ``C`` multiplied by the number of
    non-constant features over the rows' weighted mean squared norm (:func:`_penalty_scale`), so that a value of
    ``C`` regularises as much as on standardised features (TF-IDF rows of unit norm: ``C`` times about the number
    of terms).

    ``rff``: ``None`` (linear) or ``(W, u)`` from :func:`random_fourier_weights`. ``C="auto"``: each value of
    :data:`C_GRID` is fitted on ``n_folds`` training folds and on all rows in one batch (each fold's candidates from
    one start, :func:`_solve_batch`), and the value of lowest validation risk (:func:`_zero_one_upu`, summed over
    folds; ties to the smaller ``C``) is kept: the model equals a fit with that ``C`` given. Returns
    ``(model, C, n_iter, objective)``.
    """
    n, d = X.shape
    mean, scale = standardization(X, sample_weight=sample_weight) if standardize else (np.zeros(d), np.ones(d))
    w = np.ones(n, np.float32) if sample_weight is None else np.asarray(sample_weight, np.float32)
    s = check_pu_labels(s, n_samples=n)
    Wr, u = (np.zeros((d, 0), np.float32), np.zeros(0, np.float32)) if rff is None else map(np.asarray, rff)
    Wr, u = np.asarray(Wr, np.float32), np.asarray(u, np.float32)
    Z = linear_pu_features(mean, scale, Wr, u, X)
    grid = np.asarray(C_GRID if isinstance(C, str) else [C], np.float64)
    fold = _folds(s, w, n_folds, np.random.default_rng(random_state)) if grid.size > 1 else np.full(n, -1)
    held = [fold == k for k in range(n_folds)] if grid.size > 1 else []
    W = np.stack([w * ~h for h in held for _ in grid] + [w for _ in grid]).astype(np.float32)
    reg = 1.0 if standardize or rff is not None else _penalty_scale(Z, w)
    Theta, count, values = _solve_batch(Z, s, W, float(prior), reg * np.tile(grid, len(held) + 1), loss, risk,
                                        max_iter, tol, group=np.repeat(np.arange(len(held) + 1), grid.size))
    best = 0
    if held:
        G = _scores(Theta[: len(held) * grid.size, :-1], Z) + Theta[: len(held) * grid.size, -1:]
        Wv = np.stack([w * h for h in held for _ in grid])
        best = int(np.argmin(_zero_one_upu(G, s, Wv, prior).reshape(len(held), grid.size).sum(0)))
    i = len(held) * grid.size + best
    theta = Theta[i].astype(np.float32)
    model = LinearPUModel(mean, scale, Wr, u, theta[:-1].copy(), np.asarray(theta[-1], np.float32))
    return model, float(grid[best]), int(count[i]), float(values[i])


def linear_pu_decision(model: LinearPUModel, X) -> np.ndarray:
    """Scores ``g(x)`` of a fitted model (> 0: positive)."""
    Z = linear_pu_features(model.mean, model.scale, model.rff_weights, model.rff_offset, X)
    return Z @ model.coef + model.intercept


@register_estimator
class NNPULinearClassifier(PUClassifierMixin, BaseEstimator):
    """Linear (or RBF random-feature) classifier minimising the uPU / nnPU risk, fitted by full-batch L-BFGS.

    Parameters
    ----------
    prior : float in (0, 1) or "auto", default="auto"
        Class prior of the unlabeled rows' population; ``"auto"`` estimates it (:func:`pujax.estimate_prior`).
    loss : str, default="sigmoid"
        Margin loss of :data:`pujax.risk.LOSSES` (``"logistic"`` makes the uPU objective convex).
    risk : {"nnpu", "upu"}, default="nnpu"
        Non-negative (eq. (6)) or unbiased (eq. (5)) PU risk of Kiryo et al. (2017).
    C : float > 0 or "auto", default="auto"
        Inverse L2 regularisation strength (scikit-learn's convention: penalty ``|w|^2 / (2 C n)``); ``"auto"``
        picks it from :data:`C_GRID` by ``n_folds``-fold cross-validation of the uPU risk with the zero-one loss
        (all folds and candidates fitted as one batch). ``C`` is relative to standardised features: on features
        read as given (sparse ``X`` by default) the linear model's penalty is rescaled by their mean squared row
        norm (:func:`linear_pu_fit`), so TF-IDF rows of unit norm are not over-regularised.
    n_folds : int >= 2, default=3
        Folds of the cross-validation of ``C="auto"``.
    kernel : {None, "rbf"}, default=None
        ``"rbf"``: ``n_components`` random Fourier features of ``exp(-gamma |x - x'|^2)``.
    n_components : int, default=100
        Number of random Fourier features (``kernel="rbf"``).
    gamma : float > 0 or None, default=None
        RBF width on the standardised features; ``None`` = ``1 / n_features``.
    max_iter : int, default=200
        L-BFGS iterations at most, per stage (the fit starts at the minimiser of the convex uPU objective with
        the logistic loss and ``C = 0.1``, then minimises the requested objective).
    tol : float, default=1e-5
        Stop when the gradient norm is below ``tol``.
    random_state : int, RandomState, JAX key or None, default=None
        Seed of the random Fourier features, of the cross-validation folds and of ``prior="auto"``.
    standardize : "auto", bool, default="auto"
        ``"auto"``: dense ``X`` is centred and scaled per feature (float64) and a scipy sparse ``X`` (CSR / CSC)
        read as given, still sparse (TF-IDF rows keep their weighting; the risk's products are sparse x dense);
        ``True``: a sparse ``X`` is scaled without centring; ``False``: every ``X`` is read as given.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    model_ : LinearPUModel
        Standardisation, random features and weights (a pytree of arrays).
    n_iter_ : int
        L-BFGS iterations run (both stages: the convex uPU-logistic start, then the requested objective).
    objective_ : float
        Final value of the objective.
    C_ : float
        The ``C`` used (the selected one for ``C="auto"``).
    prior_ : float
        The prior used.
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn.

    References
    ----------
    R. Kiryo, G. Niu, M. C. du Plessis, M. Sugiyama, "Positive-unlabeled learning with non-negative risk
    estimator", NeurIPS 2017, eqs. (5)-(6). M. C. du Plessis, G. Niu, M. Sugiyama, "Convex formulation for
    learning from positive and unlabeled data", ICML 2015 (model selection by the PU risk on validation data).
    A. Rahimi, B. Recht, "Random features for large-scale kernel machines", NeurIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.meta import NNPULinearClassifier
    >>> r = np.random.default_rng(0)
    >>> y = r.random(500) < 0.5
    >>> X = r.normal(size=(500, 3)) + 2.0 * y[:, None]
    >>> s = y & (r.random(500) < 0.4)
    >>> clf = NNPULinearClassifier(prior=float(y[~s].mean())).fit(X, s)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _fitted_schema = {"model_": "model:LinearPUModel", "n_iter_": "int", "objective_": "float", "C_": "float"}
    _accept_sparse = SPARSE_FORMATS
    _input_dtype = None  # float32 or float64 as given; standardised in float64 blocks (pujax.preprocessing)
    _expected_failed_checks = {
        "check_classifiers_train": "every positive of the check's data is labeled, so the unlabeled rows hold no "
                                   "positive and the estimated prior is near 0: the regularised risk is then "
                                   "minimised by a nearly all-negative score",
        "check_sample_weight_equivalence_on_dense_data":
            'prior="auto" is estimated from the rows without their weights, so repeated rows change the prior',
        "check_sample_weight_equivalence_on_sparse_data":
            'prior="auto" is estimated from the rows without their weights, so repeated rows change the prior',
    }

    def __init__(self, prior="auto", *, loss="sigmoid", risk="nnpu", C="auto", n_folds=3, kernel=None,
                 n_components=100, gamma=None, max_iter=200, tol=1e-5, random_state=None, standardize="auto",
                 pos_label=None):
        self.prior = prior
        self.loss = loss
        self.risk = risk
        self.C = C
        self.n_folds = n_folds
        self.kernel = kernel
        self.n_components = n_components
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.standardize = standardize
        self.pos_label = pos_label

    def _check_params(self):
        check_prior(self.prior)
        check_in(self.loss, "loss", _LOSS_NAMES)
        check_in(self.risk, "risk", ("nnpu", "upu"))
        if not (isinstance(self.C, str) and self.C == "auto"):
            check_float(self.C, "C", 0.0, None)
        check_int(self.n_folds, "n_folds", 2)
        check_in(self.kernel, "kernel", (None, "rbf"))
        check_int(self.n_components, "n_components", 1)
        check_float(self.gamma, "gamma", 0.0, None, allow_none=True)
        check_int(self.max_iter, "max_iter", 1)
        check_float(self.tol, "tol", 0.0, None, closed="left")
        check_standardize(self.standardize)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> NNPULinearClassifier:
        """Minimise the PU risk of a linear score on (random features of) the standardised ``X``.

        Parameters
        ----------
        X : array-like or scipy sparse matrix of shape (n_samples, n_features)
            Dense, or sparse CSR / CSC (other formats are converted to CSR); a sparse ``X`` is never densified.
        y : array-like of shape (n_samples,)
            PU labels ``s`` (1 / ``True``, or ``pos_label``, marks labeled positives).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights (weighted means in the risk, weighted standardisation).

        Returns
        -------
        self
        """
        self._check_params()
        X, s, w, prior = self._validate_fit(X, y, sample_weight)
        key = as_key(self.random_state)
        rff = None
        if self.kernel == "rbf":
            gamma = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
            rff = random_fourier_weights(key, X.shape[1], self.n_components, gamma)
        C = "auto" if isinstance(self.C, str) else float(self.C)
        self.model_, self.C_, self.n_iter_, self.objective_ = linear_pu_fit(
            X, s, prior, loss=self.loss, risk=self.risk, C=C, rff=rff, max_iter=self.max_iter, tol=float(self.tol),
            sample_weight=w, n_folds=self.n_folds, random_state=host_rng(key),
            standardize=self.standardize is True or (self.standardize == "auto" and not sp.issparse(X)))
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores ``g(x) = w^T z(x) + b`` (> 0: positive)."""
        X = self._validate_predict(X)
        return linear_pu_decision(self.model_, X)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``sigmoid(g(x))`` in column 1 (a monotone map of the score, not a calibrated probability)."""
        p = 1.0 / (1.0 + np.exp(-np.clip(self.decision_function(X).astype(np.float64), -500, 500)))
        return np.stack([1.0 - p, p], axis=1)
