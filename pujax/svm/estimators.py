"""CWSVM, bagging SVM and RESVM estimators (Claesen et al. 2015; DESIGN §3.5).

Scenario: case-control PU data (DESIGN §1) -- ``fit(X, s)`` with ``s = 1`` for labeled positives (the set P) and
``s = 0`` for unlabeled rows (the set U), the unlabeled set treated as a noisy negative class. The semi-supervised
setting of the paper (false positives inside P) needs no change: RESVM resamples P for robustness against them.

* :class:`CWSVMClassifier` -- one class-weighted SVM, P versus U, penalties ``C_pos`` / ``C_unl`` (paper eq. 1).
* :class:`BaggingSVMClassifier` -- Mordelet & Vert: every base model sees all of P and a bootstrap resample of
  ``n_unl`` rows of U; ``|P| C_P = n_unl C_U`` (eq. 2), i.e. ``w_pos = 1``.
* :class:`RESVMClassifier` -- both P and U resampled with replacement (``n_pos`` and ``n_unl`` rows, Algorithm 1),
  ``C_P = C w_pos n_unl / n_pos`` and ``C_U = C`` (eq. 3); majority vote (eq. 4) and the ranking value of eq. 5.

All base models are trained in ONE batched call of :func:`pujax.svm.solver.solve_svm_batch` on one kernel matrix
of the distinct rows they use, and predicted at once with dense kernel algebra ``K(X, SV) @ dual_coef_.T``.
Fitted state is plain arrays (``support_vectors_``, ``dual_coef_`` of shape (n_models, n_SV), ``intercept_``), so
``save``/``load`` and pickling work.
"""
from __future__ import annotations

import numbers
import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from pujax.base import PUClassifierMixin
from pujax.persistence import register_estimator
from pujax.progress import progress
from pujax.svm.kernels import KERNELS, kernel_matrix, resolve_gamma
from pujax.svm.solver import coef_matrix, solve_svm_batch
from pujax.validation import as_key, check_in, check_int

__all__ = ["CWSVMClassifier", "BaggingSVMClassifier", "RESVMClassifier", "ensemble_decision", "vote_fraction"]


# ----------------------------------------------------------------------------------------------------------------
# functional core
# ----------------------------------------------------------------------------------------------------------------
@jax.jit
def vote_fraction(psi):
    """Eq. 4: ``v(x) = (n_models + sum_i sgn(psi_i(x))) / (2 n_models)`` for base decision values ``psi`` (n, B)."""
    B = psi.shape[-1]
    return (B + jnp.sum(jnp.sign(psi), axis=-1)) / (2.0 * B)


@jax.jit
def ensemble_decision(psi):
    """Eq. 5: ``d = v`` if ``0 < v < 1``; ``sum_i psi_i`` if ``v = 0``; ``1 + sum_i psi_i`` if ``v = 1``."""
    v = vote_fraction(psi)
    total = jnp.sum(psi, axis=-1)
    return jnp.where(v <= 0.0, total, jnp.where(v >= 1.0, 1.0 + total, v))


def _vote_np(psi):
    """Host (numpy) twin of :func:`vote_fraction`, used at predict time to avoid a compile per row count."""
    psi = np.asarray(psi)
    B = psi.shape[-1]
    return (B + np.sum(np.sign(psi), axis=-1)) / (2.0 * B)


def _eq5_np(psi):
    """Host (numpy) twin of :func:`ensemble_decision` (eq. 5)."""
    psi = np.asarray(psi)
    v = _vote_np(psi)
    total = np.sum(psi, axis=-1)
    return np.where(v <= 0.0, total, np.where(v >= 1.0, 1.0 + total, v))


def _proba_from_eq5(e, threshold, n_models):
    """Strictly increasing map of the eq. 5 value ``e`` into (0, 1) with ``threshold -> 0.5``.

    Non-unanimous votes ``e = v`` in (0, 1) map piecewise linearly onto (delta, 1 - delta) (v itself when the
    threshold is 0.5); the unanimous tails (``e <= 0``: sum of the base decisions, ``e >= 1``: 1 + that sum) map
    onto (0, delta] and [1 - delta, 1) with ``delta = 1 / (4 n_models)``, below half a vote step.
    """
    e = np.asarray(e, np.float64)
    delta = 1.0 / (4.0 * n_models)
    t = float(threshold)
    lin = np.where(e <= t, 0.5 * e / t, 0.5 + 0.5 * (e - t) / (1.0 - t))
    mid = delta + (1.0 - 2.0 * delta) * np.clip(lin, 0.0, 1.0)
    low = delta / (1.0 - np.minimum(e, 0.0))
    high = 1.0 - delta / (1.0 + np.maximum(e - 1.0, 0.0))
    return np.where(e <= 0.0, low, np.where(e >= 1.0, high, mid))


def _bucket(n: int) -> int:
    """Round a size up so that nearby sizes share one compiled program (padding is masked out)."""
    n = max(int(n), 1)
    step = 16 if n <= 128 else 64 if n <= 1024 else 256 if n <= 4096 else 1024
    return -(-n // step) * step


def _float_dtype():
    return jnp.zeros(()).dtype  # float32, or float64 under jax_enable_x64


@partial(jax.jit, static_argnames=("kernel", "degree"))
def _decision_chunk(Xc, SV, coef, bias, kernel, gamma, coef0, degree):
    """Base-model decision values of one chunk: ``K(Xc, SV) @ coef.T + bias`` -> (chunk, n_models)."""
    if kernel == "linear":
        Kx = Xc @ SV.T
    elif kernel == "rbf":
        d2 = jnp.sum(Xc * Xc, 1)[:, None] + jnp.sum(SV * SV, 1)[None, :] - 2.0 * (Xc @ SV.T)
        Kx = jnp.exp(-gamma * jnp.maximum(d2, 0.0))
    else:
        Kx = (gamma * (Xc @ SV.T) + coef0) ** degree
    return Kx @ coef.T + bias[None, :]


def base_decision_values(X, support_vectors, dual_coef, intercept, kernel, gamma, coef0=0.0, degree=3,
                         chunk_size=8192):
    """Decision values ``psi_k(x)`` of all base models at once, shape (n_rows, n_models)."""
    dtype = _float_dtype()
    X = np.asarray(X, dtype)
    n_sv = support_vectors.shape[0]
    nb = _bucket(n_sv)
    SV = np.zeros((nb, support_vectors.shape[1]), dtype)
    SV[:n_sv] = support_vectors
    coef = np.zeros((dual_coef.shape[0], nb), dtype)
    coef[:, :n_sv] = dual_coef
    SV, coef = jnp.asarray(SV), jnp.asarray(coef)
    bias = jnp.asarray(intercept, dtype)
    n = X.shape[0]
    cs = min(chunk_size, _bucket(n))
    out = []
    for start in range(0, n, cs):
        Xc = X[start:start + cs]
        m = Xc.shape[0]
        if m < cs:
            Xc = np.concatenate([Xc, np.zeros((cs - m, X.shape[1]), dtype)])
        out.append(np.asarray(_decision_chunk(jnp.asarray(Xc), SV, coef, bias, kernel, jnp.asarray(gamma, dtype),
                                              jnp.asarray(coef0, dtype), int(degree)))[:m])
    return np.concatenate(out, axis=0)


def _resolve_size(value, n_set: int, name: str) -> int:
    """``None`` -> size of the set; int >= 1 -> itself; float in (0, 1] -> that fraction of the set (>= 1)."""
    if value is None:
        return int(n_set)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be None, an int >= 1 or a float in (0, 1]; got {value!r}.")
    if isinstance(value, numbers.Integral):
        return check_int(value, name)
    if isinstance(value, numbers.Real):
        v = float(value)
        if not (np.isfinite(v) and 0.0 < v <= 1.0):
            raise ValueError(f"{name}={value!r}: a float {name} is a fraction of the set and must be in (0, 1].")
        return max(1, int(round(v * n_set)))
    raise TypeError(f"{name} must be None, an int >= 1 or a float in (0, 1]; got {value!r}.")


def _check_positive_float(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive float; got {value!r} ({type(value).__name__}).")
    v = float(value)
    if not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name}={value!r} must be a positive finite float.")
    return v


@jax.jit
def _gather_kernels(K, idx):
    """Each problem's own kernel matrix ``K[idx_b][:, idx_b]`` -> (B, n, n)."""
    return jax.vmap(lambda i: K[i][:, i])(idx)


_DENSE_BUDGET = 1 << 26  # floats of per-problem kernel matrices held at once (256 MB in float32)


def solve_problems(X_rows, idx, y, C, kernel, gamma, coef0, degree, tol, max_iter, chunk=None):
    """Solve a batch of base-model problems given as index arrays into ``X_rows``.

    Returns ``(W, intercept, n_iter, gap, converged)`` with ``W`` (B, len(X_rows)) the folded dual coefficients.
    The kernel matrix is computed once on the distinct rows (padded to a bucket size). Problems are solved in
    chunks of equal size (padded with empty problems, so compiled programs are reused); each chunk gathers its
    problems' own (n, n) kernel matrices when they fit in memory (rows are then slices inside the SMO loop),
    else it indexes the shared matrix.
    """
    dtype = _float_dtype()
    N = X_rows.shape[0]
    Nb = _bucket(N)
    Xp = np.zeros((Nb, X_rows.shape[1]), dtype)
    Xp[:N] = X_rows
    K = kernel_matrix(jnp.asarray(Xp), jnp.asarray(Xp), kernel, gamma, coef0, degree)
    B, n = idx.shape
    dense_max = max(1, _DENSE_BUDGET // (n * n))
    chunk = B if chunk is None else min(chunk, B)
    dense = chunk <= dense_max or n * n * 8 <= _DENSE_BUDGET
    if dense:
        chunk = min(chunk, dense_max)
    Ws, bs, its, gaps, convs = [], [], [], [], []
    for start in range(0, B, chunk):
        sl = slice(start, start + chunk)
        i_, y_, c_ = idx[sl], y[sl], C[sl]
        m = i_.shape[0]
        if m < chunk:
            pad = chunk - m
            i_ = np.concatenate([i_, np.zeros((pad, n), i_.dtype)])
            y_ = np.concatenate([y_, np.ones((pad, n), y_.dtype)])
            c_ = np.concatenate([c_, np.zeros((pad, n), c_.dtype)])
        i_j = jnp.asarray(i_, jnp.int32)
        y_j, c_j = jnp.asarray(y_, dtype), jnp.asarray(c_, dtype)
        if dense:
            sol = solve_svm_batch(_gather_kernels(K, i_j), None, y_j, c_j, tol=tol, max_iter=int(max_iter))
        else:
            sol = solve_svm_batch(K, i_j, y_j, c_j, tol=tol, max_iter=int(max_iter))
        W = coef_matrix(i_j, y_j, sol.alpha, n_rows=Nb)
        Ws.append(np.asarray(W)[:m, :N])
        bs.append(np.asarray(sol.bias)[:m])
        its.append(np.asarray(sol.n_iter)[:m])
        gaps.append(np.asarray(sol.gap)[:m])
        convs.append(np.asarray(sol.converged)[:m])
    return (np.concatenate(Ws), np.concatenate(bs), np.concatenate(its), np.concatenate(gaps),
            np.concatenate(convs))


# ----------------------------------------------------------------------------------------------------------------
# estimators
# ----------------------------------------------------------------------------------------------------------------
class _BaseSVM(PUClassifierMixin, BaseEstimator):
    """Shared fit / predict machinery: subclasses define the base-model problems (``_problems``)."""

    _needs_prior = False
    _fitted_schema = {
        "C_pos_": "float", "C_unl_": "float", "n_pos_": "int?", "n_unl_": "int?", "support_": "i[n_sv]",
        "support_vectors_": "f[n_sv,n_features_in_]", "dual_coef_": "f[n_models,n_sv]", "intercept_": "f[n_models]",
        "n_support_": "i[n_models]", "n_iter_": "i[n_models]", "kkt_gap_": "f[n_models]", "gamma_": "float",
    }
    _ensemble = True

    # -- parameters ---------------------------------------------------------------------------------------------
    def _check_common(self):
        check_in(self.kernel, "kernel", KERNELS)
        check_int(self.degree, "degree")
        if isinstance(self.coef0, (bool, np.bool_)) or not isinstance(self.coef0, numbers.Real):
            raise TypeError(f"coef0 must be a float; got {self.coef0!r}.")
        _check_positive_float(self.tol, "tol")
        check_int(self.max_iter, "max_iter")

    def _sizes(self, n_P: int, n_U: int):
        """(n_pos slots, n_unl slots) used by one base model for sets of sizes n_P, n_U."""
        raise NotImplementedError

    def _problems(self, key, P_rows, U_rows, slot_pos=None, slot_unl=None):
        """Index / label / box-bound arrays (B, slot_pos + slot_unl) of every base model; C = 0 pads."""
        raise NotImplementedError

    def _gamma(self, X):
        return resolve_gamma(self.gamma, X) if self.kernel != "linear" else 1.0

    # -- fit ------------------------------------------------------------------------------------------------------
    def fit(self, X, y):
        """Fit all base models on PU data ``X`` with PU labels ``y`` (1 = labeled positive, 0 = unlabeled)."""
        X, s, _, _ = self._validate_fit(X, y)
        self._check_common()
        self._check_params()
        gamma = self._gamma(X)
        P_rows, U_rows = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
        key = as_key(getattr(self, "random_state", None))
        with progress(3, f"{type(self).__name__}", getattr(self, "verbose", False)) as bar:
            n_pos_slots, n_unl_slots = self._sizes(len(P_rows), len(U_rows))
            idx, y, C = self._problems(key, P_rows, U_rows, n_pos_slots,
                                       _bucket(n_pos_slots + n_unl_slots) - n_pos_slots)
            used = np.unique(idx[C > 0])
            local = np.searchsorted(used, idx).clip(0, len(used) - 1)
            bar.update()
            W, b, n_iter, gap, conv = solve_problems(X[used], local, y, C, self.kernel, gamma, self.coef0,
                                                     self.degree, self.tol, self.max_iter)
            bar.update()
            sv = np.flatnonzero(np.any(W != 0, axis=0))
            self.support_ = used[sv].astype(np.int64)
            self.support_vectors_ = X[self.support_]
            self.dual_coef_ = W[:, sv].astype(np.float32 if W.dtype == np.float32 else W.dtype)
            self.intercept_ = b
            self.n_support_ = np.sum(W != 0, axis=1).astype(np.int64)
            self.n_iter_ = n_iter.astype(np.int64)
            self.kkt_gap_ = gap
            self.gamma_ = float(gamma)
            bar.update()
        if not np.all(conv):
            warnings.warn(
                f"{int(np.sum(~conv))} of {conv.size} SVM base model(s) did not reach the KKT tolerance "
                f"tol={self.tol} within max_iter={self.max_iter} steps (max gap {float(np.max(gap)):.3g}); "
                f"increase max_iter or tol.", ConvergenceWarning, stacklevel=2)
        return self

    # -- predict --------------------------------------------------------------------------------------------------
    def base_decision_function(self, X):
        """Decision values of every base model, shape (n_samples, n_models)."""
        X = self._validate_predict(X)
        return base_decision_values(X, self.support_vectors_, self.dual_coef_, self.intercept_, self.kernel,
                                    self.gamma_, self.coef0, self.degree)

    def decision_function(self, X):
        """Ranking value of eq. 5 minus the vote threshold 0.5: ``> 0`` exactly where ``predict`` is positive."""
        return _eq5_np(self.base_decision_function(X)) - 0.5

    def predict_proba(self, X):
        """Columns (P(y=0), P(y=1)); P(y=1) is a strictly increasing function of ``decision_function`` that is
        close to the vote fraction v(x) of eq. 4 and crosses 0.5 where ``decision_function`` crosses 0."""
        p = _proba_from_eq5(_eq5_np(self.base_decision_function(X)), 0.5, self.dual_coef_.shape[0])
        return np.stack([1.0 - p, p], axis=1)

    def predict(self, X):
        """Majority vote: ``classes_[1]`` where more than half of the base models vote positive (eq. 6, T = 0.5)."""
        return self._to_classes(self.decision_function(X) > 0)

    @staticmethod
    def _predict_from_psi(psi):
        """Labels from base decision values (n, B) -- used by the batched model selection."""
        return (_vote_np(psi) > 0.5).astype(np.int64)


def _sample(key, rows, size, n_models):
    """Bootstrap (with replacement) ``size`` entries of ``rows`` for each of ``n_models`` models."""
    pick = np.asarray(jax.random.randint(key, (n_models, size), 0, len(rows)))
    return rows[pick]


def _assemble(P_idx, U_idx, C_P, C_U, slot_pos, slot_unl):
    """Stack P and U index blocks, padding each to its slot count with masked (C = 0) entries."""
    B = P_idx.shape[0]
    dtype = np.float64
    idx = np.zeros((B, slot_pos + slot_unl), np.int64)
    y = np.ones((B, slot_pos + slot_unl), dtype)
    C = np.zeros((B, slot_pos + slot_unl), dtype)
    npos, nunl = P_idx.shape[1], U_idx.shape[1]
    idx[:, :npos] = P_idx
    C[:, :npos] = C_P
    idx[:, slot_pos:slot_pos + nunl] = U_idx
    y[:, slot_pos:] = -1.0
    C[:, slot_pos:slot_pos + nunl] = C_U
    return idx, y, C


@register_estimator
class CWSVMClassifier(_BaseSVM):
    """Class-weighted SVM for PU learning (Liu et al. 2003; Claesen et al. 2015 §2.1, eq. 1).

    One soft-margin SVM separating the labeled positives (penalty ``C_pos``) from the unlabeled rows treated as
    negatives (penalty ``C_unl``); typically ``C_pos > C_unl``. Case-control scenario (DESIGN §1).

    ``decision_function`` is the SVM decision value psi(x); ``predict`` is ``psi > 0``; ``predict_proba`` is the
    logistic function of psi (a monotone score, not a calibrated probability).
    """

    _ensemble = False

    def __init__(self, C_pos=1.0, *, C_unl=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0, tol=1e-3,
                 max_iter=100_000):
        self.C_pos = C_pos
        self.C_unl = C_unl
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter

    def _check_params(self):
        _check_positive_float(self.C_pos, "C_pos")
        _check_positive_float(self.C_unl, "C_unl")

    def _sizes(self, n_P, n_U):
        return n_P, n_U

    def _problems(self, key, P_rows, U_rows, slot_pos=None, slot_unl=None):
        slot_pos = len(P_rows) if slot_pos is None else slot_pos
        slot_unl = len(U_rows) if slot_unl is None else slot_unl
        self.C_pos_, self.C_unl_ = float(self.C_pos), float(self.C_unl)
        return _assemble(P_rows[None], U_rows[None], self.C_pos_, self.C_unl_, slot_pos, slot_unl)

    def decision_function(self, X):
        """SVM decision value psi(x) = sum_i alpha_i y_i K(x_i, x) + b (eq. 1 dual)."""
        return self.base_decision_function(X)[:, 0]

    def predict(self, X):
        """``classes_[1]`` where psi(x) > 0."""
        return self._to_classes(self.decision_function(X) > 0)

    def predict_proba(self, X):
        """Columns (1 - sigma(psi), sigma(psi)) with sigma the logistic function (monotone, uncalibrated)."""
        p = 1.0 / (1.0 + np.exp(-np.clip(self.decision_function(X), -50, 50)))
        return np.stack([1.0 - p, p], axis=1)

    @staticmethod
    def _predict_from_psi(psi):
        return (np.asarray(psi)[:, 0] > 0).astype(np.int64)


@register_estimator
class BaggingSVMClassifier(_BaseSVM):
    """Bagging SVM of Mordelet & Vert (Claesen et al. 2015 §2.2, eq. 2).

    Each of ``n_models`` base models separates ALL labeled positives from a bootstrap resample (with replacement)
    of ``n_unl`` unlabeled rows, with ``C_U = C`` and ``C_P = C n_unl / |P|`` so that ``|P| C_P = n_unl C_U``
    (``w_pos = 1``). ``n_unl``: None = |U|, an int, or a float fraction of |U|. Predictions aggregate the base
    models by majority vote; ``decision_function`` is the ranking value of eq. 5 (as the paper does for BAG).
    """

    def __init__(self, n_models=50, *, n_unl=None, C=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0,
                 tol=1e-3, max_iter=100_000, random_state=None, verbose=False):
        self.n_models = n_models
        self.n_unl = n_unl
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        check_int(self.n_models, "n_models")
        _check_positive_float(self.C, "C")
        _resolve_size(self.n_unl, 1, "n_unl")

    def _sizes(self, n_P, n_U):
        return n_P, _resolve_size(self.n_unl, n_U, "n_unl")

    def _problems(self, key, P_rows, U_rows, slot_pos=None, slot_unl=None):
        n_P, n_unl = self._sizes(len(P_rows), len(U_rows))
        slot_pos = n_P if slot_pos is None else slot_pos
        slot_unl = n_unl if slot_unl is None else slot_unl
        B = int(self.n_models)
        U_idx = _sample(key, U_rows, n_unl, B)
        P_idx = np.broadcast_to(P_rows[None], (B, n_P))
        self.C_unl_ = float(self.C)
        self.C_pos_ = float(self.C) * n_unl / n_P
        self.n_pos_, self.n_unl_ = int(n_P), int(n_unl)
        return _assemble(P_idx, U_idx, self.C_pos_, self.C_unl_, slot_pos, slot_unl)


@register_estimator
class RESVMClassifier(_BaseSVM):
    """Robust ensemble of SVMs (Claesen et al. 2015, Algorithm 1, eqs. 3-6).

    Each of ``n_models`` class-weighted SVM base models is trained on a bootstrap resample (with replacement) of
    ``n_pos`` rows of P and ``n_unl`` rows of U, with penalties ``C_U = C`` and ``C_P = C w_pos n_unl / n_pos``
    (eq. 3). ``n_pos`` / ``n_unl``: None = the whole set size, an int, or a float fraction of the set.
    ``predict`` = majority vote (eq. 6, T = 0.5), ``decision_function`` = d(x) of eq. 5, ``predict_proba`` = the
    vote fraction v(x) of eq. 4. Robust to false positives in P (the paper's semi-supervised setting).
    """

    def __init__(self, n_models=50, *, n_pos=None, n_unl=None, C=1.0, w_pos=1.0, kernel="rbf", gamma="scale",
                 degree=3, coef0=0.0, tol=1e-3, max_iter=100_000, random_state=None, verbose=False):
        self.n_models = n_models
        self.n_pos = n_pos
        self.n_unl = n_unl
        self.C = C
        self.w_pos = w_pos
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        check_int(self.n_models, "n_models")
        _check_positive_float(self.C, "C")
        _check_positive_float(self.w_pos, "w_pos")
        _resolve_size(self.n_pos, 1, "n_pos")
        _resolve_size(self.n_unl, 1, "n_unl")

    def _sizes(self, n_P, n_U):
        return _resolve_size(self.n_pos, n_P, "n_pos"), _resolve_size(self.n_unl, n_U, "n_unl")

    def _problems(self, key, P_rows, U_rows, slot_pos=None, slot_unl=None):
        n_pos, n_unl = self._sizes(len(P_rows), len(U_rows))
        slot_pos = n_pos if slot_pos is None else slot_pos
        slot_unl = n_unl if slot_unl is None else slot_unl
        B = int(self.n_models)
        kp, ku = jax.random.split(key)
        P_idx = _sample(kp, P_rows, n_pos, B)
        U_idx = _sample(ku, U_rows, n_unl, B)
        self.C_unl_ = float(self.C)
        self.C_pos_ = float(self.C) * float(self.w_pos) * n_unl / n_pos
        self.n_pos_, self.n_unl_ = int(n_pos), int(n_unl)
        return _assemble(P_idx, U_idx, self.C_pos_, self.C_unl_, slot_pos, slot_unl)
