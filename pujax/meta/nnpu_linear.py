r"""A linear (or random-Fourier-feature) classifier fitted by minimising the uPU / nnPU risk of Kiryo et al. (2017)
with full-batch L-BFGS (``optax.lbfgs``) inside one jit.

Objective over :math:`\theta = (w, b)` on standardised features :math:`z(x)` (the features themselves, or
:math:`\sqrt{2/D}\cos(W^\top z + u)` with :math:`W \sim N(0, 2\gamma I)`, :math:`u \sim U[0, 2\pi)` for the RBF
kernel :math:`\exp(-\gamma \lVert x - x' \rVert^2)`, Rahimi & Recht 2007):

.. math:: J(\theta) = \hat R(g_\theta) + \frac{\lVert w \rVert^2}{2 C n}, \qquad g_\theta(x) = w^\top z(x) + b,

with :math:`\hat R` the uPU risk (eq. (5)) or the nnPU risk (eq. (6)) of :mod:`pujax.risk` and :math:`n` the total
sample weight. Rows are padded to :func:`pujax.compilation.bucket_size` with zero weight, so a refit on data of the
same bucket reuses the compiled program; the prior, ``C`` and ``max_iter`` are traced.
"""
from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
import optax.tree_utils as otu
from sklearn.base import BaseEstimator

from pujax.base import PUClassifierMixin
from pujax.compilation import bucket_size, pad_rows
from pujax.persistence import register_estimator, register_model
from pujax.preprocessing import standardization, standardize
from pujax.risk import LOSSES, nnpu_risk, upu_risk
from pujax.validation import as_key, check_float, check_in, check_int, check_prior

__all__ = ["NNPULinearClassifier", "LinearPUModel", "linear_pu_features", "linear_pu_objective", "linear_pu_fit",
           "linear_pu_decision", "random_fourier_weights"]


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


def linear_pu_features(mean, scale, rff_weights, rff_offset, X):
    """Standardised ``X`` (:func:`pujax.preprocessing.standardize`: float64 arithmetic, float32 result), mapped to
    ``sqrt(2/D) cos(Z W + u)`` when ``D = rff_weights.shape[1] > 0``."""
    return _random_features(jnp.asarray(standardize(X, mean, scale)), rff_weights, rff_offset)


def _random_features(Z, rff_weights, rff_offset):
    D = rff_weights.shape[1]
    if D == 0:
        return Z
    return jnp.sqrt(2.0 / D) * jnp.cos(Z @ rff_weights + rff_offset)


def linear_pu_objective(params, Z, s, w, prior, C, loss: str = "sigmoid", risk: str = "nnpu"):
    """``J(theta)``: the uPU / nnPU risk of ``g = Z coef + intercept`` plus ``|coef|^2 / (2 C sum(w))``."""
    coef, intercept = params
    g = Z @ coef + intercept
    r = (nnpu_risk if risk == "nnpu" else upu_risk)(g, s, prior, loss, w)
    return r + 0.5 * jnp.sum(coef * coef) / (C * jnp.sum(w))


def _lbfgs(fun, params, max_iter, tol):
    """Minimise ``fun`` from ``params`` with optax L-BFGS (zoom line search) inside a ``lax.while_loop``."""
    opt = optax.lbfgs()
    value_and_grad = optax.value_and_grad_from_state(fun)

    def step(carry):
        params, state = carry
        value, grad = value_and_grad(params, state=state)
        updates, state = opt.update(grad, state, params, value=value, grad=grad, value_fn=fun)
        return optax.apply_updates(params, updates), state

    def running(carry):
        _, state = carry
        count = otu.tree_get(state, "count")
        grad_norm = otu.tree_norm(otu.tree_get(state, "grad"))
        return (count == 0) | ((count < max_iter) & (grad_norm >= tol) & jnp.isfinite(grad_norm))

    params, state = jax.lax.while_loop(running, step, (params, opt.init(params)))
    return params, otu.tree_get(state, "count")


@partial(jax.jit, static_argnames=("loss", "risk"))
def _fit_jit(Z, s, w, prior, C, max_iter, tol, *, loss, risk):
    """Start at the minimiser of the convex uPU objective with the logistic loss (where the logistic loss gives
    ``l(z) - l(-z) = -z``, du Plessis et al. 2015), scaled down to a score spread of at most 1, then minimise the
    requested objective from there."""
    def objective(loss_, risk_):
        return partial(linear_pu_objective, Z=Z, s=s, w=w, prior=prior, C=C, loss=loss_, risk=risk_)

    params = (jnp.zeros(Z.shape[1], jnp.float32), jnp.zeros((), jnp.float32))
    params, n_convex = _lbfgs(objective("logistic", "upu"), params, max_iter, tol)
    if not (loss == "logistic" and risk == "upu"):  # rescale to unit score spread: bounded losses not saturated
        g = Z @ params[0]
        mean = jnp.sum(w * g) / jnp.sum(w)
        sd = jnp.sqrt(jnp.sum(w * (g - mean) ** 2) / jnp.sum(w))
        factor = jnp.where(sd > 1.0, 1.0 / sd, 1.0)
        params = (params[0] * factor, params[1] * factor)
    fun = objective(loss, risk)
    params, n_iter = _lbfgs(fun, params, max_iter, tol)
    return params, n_convex + n_iter, fun(params)


def linear_pu_fit(X, s, prior, *, loss="sigmoid", risk="nnpu", C=1.0, rff=None, max_iter=200, tol=1e-5,
                  sample_weight=None):
    """Fit a :class:`LinearPUModel` on validated ``X`` ((n, d), standardised in float64) and PU labels ``s``
    (int {0, 1}); L-BFGS starts at the minimiser of the convex uPU-logistic objective.

    ``rff``: ``None`` (linear) or ``(W, u)`` from :func:`random_fourier_weights`. Returns
    ``(model, n_iter, objective)``.
    """
    n, d = np.shape(X)
    mean, scale = standardization(X, sample_weight=sample_weight)
    w = np.ones(n, np.float32) if sample_weight is None else np.asarray(sample_weight, np.float32)
    W, u = (np.zeros((d, 0), np.float32), np.zeros(0, np.float32)) if rff is None else map(np.asarray, rff)
    Xp, sp, wp = pad_rows(bucket_size(n), standardize(X, mean, scale), np.asarray(s, np.int32), w)
    Z = _random_features(jnp.asarray(Xp), jnp.asarray(W), jnp.asarray(u))
    (coef, intercept), count, value = _fit_jit(Z, jnp.asarray(sp), jnp.asarray(wp), jnp.float32(prior),
                                               jnp.float32(C), jnp.int32(max_iter), jnp.float32(tol), loss=loss,
                                               risk=risk)
    model = LinearPUModel(mean, scale, np.asarray(W, np.float32), np.asarray(u, np.float32),
                          np.asarray(coef, np.float32), np.asarray(intercept, np.float32))
    return model, int(count), float(value)


@jax.jit
def _decision(rff_weights, rff_offset, coef, intercept, Z):
    return _random_features(Z, rff_weights, rff_offset) @ coef + intercept


def linear_pu_decision(model: LinearPUModel, X) -> np.ndarray:
    """Scores ``g(x)`` of a fitted model (> 0: positive)."""
    Z = jnp.asarray(standardize(X, model.mean, model.scale))
    return np.asarray(_decision(model.rff_weights, model.rff_offset, model.coef, model.intercept, Z))


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
    C : float > 0, default=1.0
        Inverse L2 regularisation strength (scikit-learn's convention: penalty ``|w|^2 / (2 C n)``).
    kernel : {None, "rbf"}, default=None
        ``"rbf"``: ``n_components`` random Fourier features of ``exp(-gamma |x - x'|^2)``.
    n_components : int, default=100
        Number of random Fourier features (``kernel="rbf"``).
    gamma : float > 0 or None, default=None
        RBF width on the standardised features; ``None`` = ``1 / n_features``.
    max_iter : int, default=200
        L-BFGS iterations at most, per stage (the fit starts at the minimiser of the convex uPU objective with
        the logistic loss, then minimises the requested objective).
    tol : float, default=1e-5
        Stop when the gradient norm is below ``tol``.
    random_state : int, RandomState, JAX key or None, default=None
        Seed of the random Fourier features (and of ``prior="auto"``).

    Attributes
    ----------
    model_ : LinearPUModel
        Standardisation, random features and weights (a pytree of arrays).
    n_iter_ : int
        L-BFGS iterations run (both stages: the convex uPU-logistic start, then the requested objective).
    objective_ : float
        Final value of the objective.
    prior_ : float
        The prior used.
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn.

    References
    ----------
    R. Kiryo, G. Niu, M. C. du Plessis, M. Sugiyama, "Positive-unlabeled learning with non-negative risk
    estimator", NeurIPS 2017, eqs. (5)-(6). A. Rahimi, B. Recht, "Random features for large-scale kernel
    machines", NeurIPS 2007.

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

    _fitted_schema = {"model_": "model:LinearPUModel", "n_iter_": "int", "objective_": "float"}
    _input_dtype = np.float64  # standardised in float64 (pujax.preprocessing), then cast to float32
    _expected_failed_checks = {
        "check_classifiers_train": "every positive of the check's data is labeled, so the unlabeled rows hold no "
                                   "positive and the estimated prior is near 0: the regularised risk is then "
                                   "minimised by a nearly all-negative score",
        "check_sample_weight_equivalence_on_dense_data":
            'prior="auto" is estimated from the rows without their weights, so repeated rows change the prior',
    }

    def __init__(self, prior="auto", *, loss="sigmoid", risk="nnpu", C=1.0, kernel=None, n_components=100,
                 gamma=None, max_iter=200, tol=1e-5, random_state=None):
        self.prior = prior
        self.loss = loss
        self.risk = risk
        self.C = C
        self.kernel = kernel
        self.n_components = n_components
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _check_params(self):
        check_prior(self.prior)
        check_in(self.loss, "loss", [k for k in LOSSES if k != "zero_one"])
        check_in(self.risk, "risk", ("nnpu", "upu"))
        check_float(self.C, "C", 0.0, None)
        check_in(self.kernel, "kernel", (None, "rbf"))
        check_int(self.n_components, "n_components", 1)
        check_float(self.gamma, "gamma", 0.0, None, allow_none=True)
        check_int(self.max_iter, "max_iter", 1)
        check_float(self.tol, "tol", 0.0, None, closed="left")

    def fit(self, X, y, sample_weight=None):
        """Minimise the PU risk of a linear score on (random features of) the standardised ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            PU labels ``s`` (the greater value marks labeled positives).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights (weighted means in the risk, weighted standardisation).

        Returns
        -------
        self
        """
        self._check_params()
        X, s, w, prior = self._validate_fit(X, y, sample_weight)
        rff = None
        if self.kernel == "rbf":
            gamma = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
            rff = random_fourier_weights(as_key(self.random_state), X.shape[1], self.n_components, gamma)
        self.model_, self.n_iter_, self.objective_ = linear_pu_fit(
            X, s, prior, loss=self.loss, risk=self.risk, C=float(self.C), rff=rff, max_iter=self.max_iter,
            tol=float(self.tol), sample_weight=w)
        return self

    def decision_function(self, X):
        """Scores ``g(x) = w^T z(x) + b`` (> 0: positive)."""
        X = self._validate_predict(X)
        return linear_pu_decision(self.model_, X)

    def predict_proba(self, X):
        """``sigmoid(g(x))`` in column 1 (a monotone map of the score, not a calibrated probability)."""
        p = 1.0 / (1.0 + np.exp(-np.clip(self.decision_function(X).astype(np.float64), -500, 500)))
        return np.stack([1.0 - p, p], axis=1)
