r"""Ada-PU: AdaBoost from positive and unlabeled data (Zhao et al., "A Boosting Algorithm for Positive-Unlabeled
Learning"; DESIGN §3.4).

Scenario: case-control PU learning -- the labeled positives ``P`` (``s = 1``) are drawn from ``p(x | y = +1)``, the
unlabeled rows ``U`` (``s = 0``) from the marginal ``p(x)``, whose positive fraction is the class prior
``π = P(y = +1)``.

Algorithm (paper §3, Algorithms 1-2).  Each labeled positive appears twice, once taken as positive (``P+``) and
once as negative (``P-``); with ``n_p = |P|``, ``n_u = |U|`` the initial weights are (eq. 7)
``w_{P+} = π/n_p``, ``w_{U-} = 1/n_u``, ``w_{P-} = -π/n_p``.  In round ``t``:

1. ``Z_t = Σw_{P+} + Σw_{U-} + Σw_{P-}`` (the PU estimate of the exponential loss mass); stop when ``Z_t <= 0``
   (the authors' code; the weights can no longer be normalised).  With the default error ``ε = ε̂/Z``,
   ``Z_{t+1} = Z_t (e^{-α}(1 - ε) + e^{α} ε) > 0`` (the identity behind Theorem 4.1), so only rounding can stop
   it -- which does happen in float32 with large ``β``, when the estimated negative mass cancels; with the
   authors' per-set error (``normalization="per_set"``) ``Z`` can genuinely turn negative.
2. Score every candidate stump (all features × ``n_thresholds`` random thresholds per feature, both directions;
   or every distinct value with ``n_thresholds="all"``) by the weighted PU error ``ε̂_t`` of eq. (8); skip stumps
   with ``ε ≥ 0.5`` or ``ε_nn < 0`` (§3.3); pick the one maximising ``Ê`` of eq. (11) (equivalently the smallest
   eq.-8 error, since ``Ê = Z_t - 2 ε̂_t``).
3. ``α_t = β · ½ ln((1 - ε_t)/ε_t)`` (eq. 9 with learning rate ``β``; ``ε_t = ε̂_t / Z_t`` by default).
4. Update (eq. 12): ``w_{P+} ← w_{P+} e^{-α_t h_t}``, ``w_{U-} ← w_{U-} e^{α_t h_t}``, ``w_{P-} ← w_{P-} e^{α_t h_t}``,
   then rescale all three by one positive factor (this changes no ε, no sign of ``Z``, and keeps floats finite).

The classifier is ``H(x) = sign(Σ_t α_t h_t(x))``.  A round in which no stump passes the checks adds nothing
(``α_t = 0``, as in the authors' code).

Functional core: :func:`adapu_fit` runs the ``T`` rounds as one ``lax.scan`` and is pure, jit-able and ``vmap``-able
over PRNG keys (:func:`adapu_fit_many`); :class:`AdaPUClassifier` is the scikit-learn estimator on top.
"""
from __future__ import annotations

import functools
import numbers
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec

from pujax._compile import jit
from pujax.boosting.stumps import (
    CodedFeatures,
    coded_weight_sums,
    draw_thresholds,
    encode_features,
    feature_ranges,
    masked_weight_sums,
    sorted_candidates,
    sorted_prefix_sums,
    stump_errors,
    stump_predict,
    threshold_bounds,
)
from pujax.devices import AXIS, replicate, shard_rows, to_host
from pujax.linalg import matmul
from pujax.preprocessing import duplicate_groups
from pujax.progress import progress
from pujax.random import host_rng
from pujax.validation import check_pu_labels

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = [
    "AdaPUModel",
    "adapu_candidates",
    "adapu_init",
    "adapu_rounds",
    "deduplicate",
    "adapu_fit",
    "adapu_fit_many",
    "shard_candidates",
    "adapu_decision_function",
    "adapu_staged_decision_function",
    "LEARNING_RATES",
]

_RANGES = ("paper", "extended")
_NORMALIZATIONS = ("total", "per_set")
# sign of the exponent of the weight update (eq. 12) for the columns (P+, U-, |P-|)
_UPDATE_SIGN = (-1.0, 1.0, 1.0)


class AdaPUModel(NamedTuple):
    """Fitted Ada-PU rounds as plain arrays (one entry per round; a pytree, so it can be vmapped and saved).

    ``feature`` (int32, -1 where the round added no stump), ``threshold``, ``direction`` (+1: ``h = -1`` on
    ``x_f <= θ``; -1: ``h = -1`` on ``x_f > θ``), ``alpha`` (``β α_PU``, eq. 9), ``epsilon`` (the error entering
    α), ``mass`` (``Z_t`` before the round, relative to the total absolute weight), ``active`` (False once
    ``Z <= 0`` stopped the boosting).
    """

    feature: jax.Array
    threshold: jax.Array
    direction: jax.Array
    alpha: jax.Array
    epsilon: jax.Array
    mass: jax.Array
    active: jax.Array


class AdaPUState(NamedTuple):
    """Carry of the boosting scan: the weights ``W`` (n, 3) = (w_{P+}, w_{U-}, |w_{P-}|) and the stop flag."""

    weights: jax.Array
    stopped: jax.Array


def _check_static(n_thresholds, threshold_range, normalization):
    if not (n_thresholds == "all" or (isinstance(n_thresholds, numbers.Integral) and int(n_thresholds) >= 1)):
        raise ValueError(f'n_thresholds={n_thresholds!r} must be an int >= 1 or "all".')
    if threshold_range not in _RANGES:
        raise ValueError(f'threshold_range={threshold_range!r} is not valid; choose one of {list(_RANGES)}.')
    if normalization not in _NORMALIZATIONS:
        raise ValueError(f'normalization={normalization!r} is not valid; choose one of {list(_NORMALIZATIONS)}.')


def _psum(x, axis_name):
    """Sum over the devices of a ``shard_map`` axis (``axis_name=None``: outside one, ``x`` itself)."""
    return x if axis_name is None else lax.psum(x, axis_name)


def adapu_init(X: ArrayLike, s: ArrayLike, prior: float, sample_weight: ArrayLike | None = None, *,
               axis_name: str | None = None) -> AdaPUState:
    """Initial weights of eq. (7) as an :class:`AdaPUState`: ``W[i] = (s_i π/n_p, (1-s_i)/n_u, s_i π/n_p)``.

    With ``sample_weight`` ``c_i`` the empirical means become weighted means: ``W[i]`` is multiplied by ``c_i``
    and ``n_p = Σ c_i s_i``, ``n_u = Σ c_i (1 - s_i)`` (so ``c_i`` = multiplicity of a duplicated row is exact).
    ``axis_name``: inside a ``shard_map`` over rows, the axis whose devices' sums make ``n_p`` and ``n_u``.
    """
    X = jnp.asarray(X)
    dtype = X.dtype if jnp.issubdtype(X.dtype, jnp.floating) else jnp.float32
    sf = jnp.asarray(s).astype(dtype)
    c = jnp.ones_like(sf) if sample_weight is None else jnp.asarray(sample_weight).astype(dtype)
    tiny = jnp.finfo(dtype).tiny
    n_p = jnp.maximum(_psum(jnp.sum(c * sf), axis_name), tiny)
    n_u = jnp.maximum(_psum(jnp.sum(c * (1.0 - sf)), axis_name), tiny)
    prior = jnp.asarray(prior, dtype)
    wp = c * sf * (prior / n_p)
    W = jnp.stack([wp, c * (1.0 - sf) / n_u, wp], axis=1)
    return AdaPUState(W, jnp.asarray(False))


def deduplicate(X: ArrayLike, s: ArrayLike,
                sample_weight: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge identical ``(x, s)`` rows (:func:`pujax.preprocessing.duplicate_groups`; ``-0.0`` equals ``0.0``) into
    one row whose weight is the summed weight (host-side numpy).

    Ada-PU's weights depend on a row only through ``x`` and ``s`` (eqs. 7, 12), so fitting the unique rows with
    their multiplicities as ``sample_weight`` is exact and saves the work on repeated rows (40 % of the UNSW-NB15
    training rows are repeats).  Returns ``(X_unique, s_unique, weight)`` in first-occurrence order.
    """
    X = np.asarray(X)
    s = np.asarray(s)
    w = np.ones(X.shape[0], X.dtype) if sample_weight is None else np.asarray(sample_weight, X.dtype)
    group = duplicate_groups(np.concatenate([X, s[:, None].astype(X.dtype)], axis=1))  # first-occurrence order
    keep = np.unique(group, return_index=True)[1]
    weight = np.bincount(group, weights=w.astype(np.float64), minlength=keep.size)
    return X[keep], s[keep], weight.astype(X.dtype)


def adapu_candidates(X: ArrayLike, n_thresholds: int = 1, threshold_range: str = "paper") -> tuple:
    """Per-fit precomputation of the candidate thresholds, on the host with numpy (a pytree of arrays).

    Random thresholds (``n_thresholds`` an int): ``(coded, fmin, fmax, lo, hi)`` -- the rank-coded features
    (:func:`~pujax.boosting.stumps.encode_features`), each feature's range and the bounds of the relative position
    ``r`` of a threshold (:func:`~pujax.boosting.stumps.threshold_bounds`).  Exhaustive
    (``n_thresholds="all"``): ``(order, thresholds, valid)`` of :func:`~pujax.boosting.stumps.sorted_candidates`.
    The sort runs on the host with numpy (XLA's CPU sort is slower).
    """
    _check_static(n_thresholds, threshold_range, "total")
    X = np.asarray(X)
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float32)
    n = X.shape[0]
    if n_thresholds == "all":
        order = np.argsort(X, axis=0, kind="stable")
        Xs = np.take_along_axis(X, order, axis=0)
        nxt = np.concatenate([Xs[1:], Xs[-1:]], axis=0)
        mid = Xs + (nxt - Xs) / 2
        mid = np.where(mid >= nxt, Xs, mid)
        last = (np.arange(n) == n - 1)[:, None]
        valid = (nxt > Xs) | last
        thresholds = np.where(last, Xs, mid).astype(X.dtype)
        return (order.astype(np.int32), np.ascontiguousarray(thresholds.T), np.ascontiguousarray(valid.T))
    coded, n_unique = encode_features(X)
    fmin, fmax = X.min(axis=0), X.max(axis=0)
    lo, hi = threshold_bounds(np.asarray(n_unique, np.int32), threshold_range, dtype=X.dtype, xp=np)
    return (coded, fmin, fmax, lo, hi)


def _candidates_jit(X, n_thresholds, threshold_range):
    """In-jit fallback of :func:`adapu_candidates` (XLA sorting is slow on CPU for large ``X``)."""
    if n_thresholds == "all":
        return sorted_candidates(X)
    if threshold_range == "extended":
        fmin, fmax, n_unique = feature_ranges(X)
    else:
        fmin, fmax, n_unique = X.min(axis=0), X.max(axis=0), jnp.ones(X.shape[1], jnp.int32)
    lo, hi = threshold_bounds(n_unique, threshold_range, dtype=X.dtype)
    return None, fmin, fmax, lo, hi


def adapu_rounds(state: AdaPUState, keys: jax.Array, X: ArrayLike, prior: float, learning_rate: float = 1.0, *,
                 n_thresholds: int = 1, threshold_range: str = "paper", normalization: str = "total",
                 candidates: tuple | None = None, axis_name: str | None = None) -> tuple[AdaPUState, AdaPUModel]:
    """Run ``len(keys)`` Ada-PU rounds from ``state`` with one ``lax.scan``; return ``(state, AdaPUModel)``.

    ``keys``: one PRNG key per round (used for the random thresholds).  ``candidates``: the output of the per-fit
    precomputation (computed here when ``None``); pass it when the rounds are run in several chunks.
    ``axis_name``: inside a ``shard_map`` over rows (random thresholds only), the axis over which the weight masses
    and the per-candidate sums of eq. (8) are summed (:func:`adapu_fit` with ``mesh``).
    """
    if axis_name is not None and n_thresholds == "all":
        raise ValueError('n_thresholds="all" needs every row on each device (sorted prefix sums); use an int.')
    if isinstance(normalization, str):
        _check_static(n_thresholds, threshold_range, normalization)
        per_set = normalization == "per_set"
    else:  # a (traced) boolean: True for "per_set"; lets one compiled scan serve both rules
        _check_static(n_thresholds, threshold_range, "total")
        per_set = normalization
    per_set = jnp.asarray(per_set, bool)
    X = jnp.asarray(X)
    dtype = state.weights.dtype
    X = X.astype(dtype)
    prior = jnp.asarray(prior, dtype)
    beta = jnp.asarray(learning_rate, dtype)
    if candidates is None:
        candidates = _candidates_jit(X, n_thresholds, threshold_range)
    sign = jnp.asarray(_UPDATE_SIGN, dtype)
    eps_floor = jnp.finfo(dtype).eps
    d = X.shape[1]

    def one_round(carry, key):
        W, stopped = carry
        totals = _psum(jnp.sum(W, axis=0), axis_name)
        Z = totals[0] + totals[1] - totals[2]
        stop = stopped | ~(Z > 0)
        if n_thresholds == "all":
            order, thr, cand_ok = candidates
            S = sorted_prefix_sums(order, W)
        else:
            coded, fmin, fmax, lo, hi = candidates
            thr = draw_thresholds(key, fmin, fmax, lo, hi, int(n_thresholds))
            S = masked_weight_sums(X, W, thr) if coded is None else coded_weight_sums(coded, W, thr)
            S = _psum(S, axis_name)
            cand_ok = jnp.ones(thr.shape, bool)
        E, eps_t, nn_t = stump_errors(S, totals, prior, "total")
        _, eps_s, nn_s = stump_errors(S, totals, prior, "per_set")
        eps = jnp.where(per_set, eps_s, eps_t)
        eps_nn = jnp.where(per_set, nn_s, nn_t)
        ok = cand_ok[None] & (eps < 0.5) & (eps_nn >= 0) & (eps >= 0)
        score = jnp.where(ok, E, jnp.inf).ravel()
        idx = jnp.argmin(score)
        k = thr.shape[1]
        di, rem = jnp.divmod(idx, d * k)
        f, j = jnp.divmod(rem, k)
        found = ok.ravel()[idx] & ~stop
        e = jnp.clip(eps.ravel()[idx], eps_floor, 0.5)
        alpha = jnp.where(found, beta * 0.5 * jnp.log((1.0 - e) / e), 0.0).astype(dtype)
        theta = thr[f, j]
        direction = jnp.where(di == 0, 1.0, -1.0).astype(dtype)
        h = stump_predict(X, f, theta, direction)
        W = W * jnp.exp(alpha * h[:, None] * sign[None, :])
        W = W / jnp.maximum(_psum(jnp.sum(W), axis_name), jnp.finfo(dtype).tiny)
        out = AdaPUModel(
            feature=jnp.where(found, f, -1).astype(jnp.int32),
            threshold=jnp.where(found, theta, 0.0).astype(dtype),
            direction=jnp.where(found, direction, 1.0).astype(dtype),
            alpha=alpha,
            epsilon=jnp.where(found, eps.ravel()[idx], 0.5).astype(dtype),
            mass=Z.astype(dtype),
            active=~stop,
        )
        return AdaPUState(W, stop), out

    state, model = lax.scan(one_round, state, keys)
    return state, model


def _fit_body(key, X, s, prior, learning_rate, per_set, candidates, sample_weight, *, n_estimators, n_thresholds,
              threshold_range, axis_name=None):
    X = jnp.asarray(X)
    if not jnp.issubdtype(X.dtype, jnp.floating):
        X = X.astype(jnp.float32)
    state = adapu_init(X, s, prior, sample_weight, axis_name=axis_name)
    keys = jax.random.split(key, n_estimators)
    _, model = adapu_rounds(state, keys, X, prior, learning_rate, n_thresholds=n_thresholds,
                            threshold_range=threshold_range, normalization=per_set, candidates=candidates,
                            axis_name=axis_name)
    return model


@functools.partial(jit, "kernel", static_argnames=("n_estimators", "n_thresholds", "threshold_range", "mesh"))
def _fit_jit(key, X, s, prior, learning_rate, per_set, candidates, sample_weight, *, n_estimators, n_thresholds,
             threshold_range, mesh=None):
    static = dict(n_estimators=n_estimators, n_thresholds=n_thresholds, threshold_range=threshold_range)
    args = (key, X, s, prior, learning_rate, per_set, candidates, sample_weight)
    if mesh is None:
        return _fit_body(*args, **static)
    rows, rep = PartitionSpec(AXIS), PartitionSpec()
    specs = (rep, rows, rows, rep, rep, rep, _candidate_specs(candidates), rows)
    body = functools.partial(_fit_body, axis_name=AXIS, **static)
    return jax.shard_map(body, mesh=mesh, in_specs=specs, out_specs=rep, check_vma=False)(*args)


def _candidate_specs(candidates):
    """``shard_map`` specs of random-threshold candidates: the rank codes split by rows, the rest replicated."""
    coded, *rest = candidates
    rep = PartitionSpec()
    return (CodedFeatures(tuple(PartitionSpec(AXIS) for _ in coded.codes),
                          tuple(None if v is None else rep for v in coded.values), tuple(rep for _ in coded.index)),
            *(rep for _ in rest))


def shard_candidates(mesh: Mesh, candidates: tuple) -> tuple:
    """Place random-threshold :func:`adapu_candidates` for :func:`adapu_fit` with ``mesh``: the rank codes split
    by rows over the mesh (:func:`pujax.devices.shard_rows`), the rest replicated."""
    coded, *rest = candidates
    codes = tuple(shard_rows(mesh, np.asarray(c)) for c in coded.codes)
    values = tuple(None if v is None else replicate(mesh, np.asarray(v)) for v in coded.values)
    index = tuple(replicate(mesh, np.asarray(i)) for i in coded.index)
    return (CodedFeatures(codes, values, index), *(replicate(mesh, np.asarray(a)) for a in rest))


def adapu_fit(key: jax.Array, X: ArrayLike, s: ArrayLike, prior: float, learning_rate: float = 1.0,
              candidates: tuple | None = None, sample_weight: ArrayLike | None = None, *, n_estimators: int = 100,
              n_thresholds: int = 1, threshold_range: str = "paper", normalization: str = "total",
              mesh: Mesh | None = None) -> AdaPUModel:
    """Fit Ada-PU on ``(X, s)`` (``s``: 1 = labeled positive, 0 = unlabeled) with class prior ``prior``.

    Pure and jit-compiled (``n_estimators``, ``n_thresholds`` and, without ``candidates``, ``threshold_range`` are
    static; ``prior``, ``learning_rate`` and ``normalization`` are not, so sweeping them does not recompile);
    ``vmap`` over ``key`` (or use :func:`adapu_fit_many`) fits several seeds at once.
    ``candidates``: :func:`adapu_candidates` of ``X`` (computed in-jit when ``None``, which is slow on CPU for
    large ``X`` with ``threshold_range="extended"`` or ``n_thresholds="all"`` because it sorts with XLA).
    ``s`` as a ``jax.Array`` (e.g. sharded rows, or a tracer under ``jit``) is taken as {0, 1} without a read;
    host labels are checked by :func:`pujax.validation.check_pu_labels`.
    ``sample_weight``: optional non-negative row weights (weighted means in eq. 7; see :func:`adapu_init`).
    ``mesh`` (random thresholds with ``candidates``): ``X``, ``s`` and ``sample_weight`` are sharded by rows over
    the mesh (:func:`pujax.devices.shard_rows`) and ``candidates`` placed by :func:`shard_candidates`; each device
    sums its rows' weights per candidate and one ``psum`` per round adds them (the same model as on one device up
    to float summation order). Returns an :class:`AdaPUModel` with ``n_estimators`` rounds.
    """
    _check_static(n_thresholds, threshold_range, normalization)
    n_estimators = int(n_estimators)
    if n_estimators < 1:
        raise ValueError(f"n_estimators={n_estimators} must be >= 1.")
    if mesh is not None and (candidates is None or n_thresholds == "all"):
        raise ValueError('adapu_fit with mesh needs candidates= (adapu_candidates, shard_candidates) and an int '
                         'n_thresholds.')
    if candidates is not None:
        threshold_range = "paper"  # only used to build candidates in-jit; keeps one compilation per shape
    if not isinstance(s, jax.Array):  # host labels follow the label rule; device labels (sharded, traced) stay put
        s = check_pu_labels(s, n_samples=np.shape(X)[0])
    if sample_weight is None:  # an explicit array either way: one compilation with or without weights
        sample_weight = np.ones(np.shape(s)[0], jax.dtypes.canonicalize_dtype(np.float64))
    return _fit_jit(key, X, s, prior, learning_rate, normalization == "per_set", candidates, sample_weight,
                    n_estimators=n_estimators, n_thresholds=n_thresholds, threshold_range=threshold_range, mesh=mesh)


def adapu_fit_many(keys: jax.Array, X: ArrayLike, s: ArrayLike, prior: float, learning_rate: float = 1.0,
                   **kwargs: Any) -> AdaPUModel:
    """:func:`adapu_fit` for a batch of PRNG keys (``vmap``); every field of the result gains a leading axis.

    The candidate precomputation (:func:`adapu_candidates`) is shared by all keys.
    """
    cands = adapu_candidates(X, kwargs.get("n_thresholds", 1), kwargs.get("threshold_range", "paper"))
    fit = functools.partial(adapu_fit, **kwargs)
    return jax.vmap(fit, in_axes=(0, None, None, None, None, None))(keys, jnp.asarray(X), jnp.asarray(s), prior,
                                                                     learning_rate, cands)


@jit("kernel")
def adapu_decision_function(model: AdaPUModel, X: ArrayLike) -> jax.Array:
    """``F(x) = Σ_t α_t h_t(x)`` (the paper's ``H`` before the sign)."""
    H = stump_predict(jnp.asarray(X), model.feature, model.threshold, model.direction)
    return matmul(H, model.alpha.astype(H.dtype))


@jit("kernel")
def adapu_staged_decision_function(model: AdaPUModel, X: ArrayLike) -> jax.Array:
    """``F_t(x) = Σ_{s <= t} α_s h_s(x)`` for every round ``t``: shape ``(T, n)``."""
    H = stump_predict(jnp.asarray(X), model.feature, model.threshold, model.direction)
    return jnp.cumsum(H * model.alpha.astype(H.dtype)[None, :], axis=1).T


@functools.partial(jit, "kernel", static_argnames=("n_thresholds", "mesh"))
def _chunk(state, keys, X, prior, learning_rate, per_set, candidates, *, n_thresholds, mesh=None):
    """Rounds ``keys`` from ``state`` (the progress-bar path); with ``mesh``, placed as for :func:`adapu_fit`."""
    def run(state, keys, X, prior, learning_rate, per_set, candidates, axis_name=None):
        return adapu_rounds(state, keys, X, prior, learning_rate, n_thresholds=n_thresholds, normalization=per_set,
                            candidates=candidates, axis_name=axis_name)

    args = (state, keys, X, prior, learning_rate, per_set, candidates)
    if mesh is None:
        return run(*args)
    rows, rep = PartitionSpec(AXIS), PartitionSpec()
    carry = AdaPUState(rows, rep)
    specs = (carry, rep, rows, rep, rep, rep, _candidate_specs(candidates))
    return jax.shard_map(functools.partial(run, axis_name=AXIS), mesh=mesh, in_specs=specs,
                         out_specs=(carry, rep), check_vma=False)(*args)


LEARNING_RATES = (0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0)
"""The β grid searched by ``AdaPUClassifier(learning_rate="auto")`` (the paper's §5.6.2 range)."""


N_SELECTION_FOLDS = 2
"""Folds per partition of the cross-fitted risk that selects β for ``learning_rate="auto"``."""


N_SELECTION_REPEATS = 3
"""Independent partitions into ``N_SELECTION_FOLDS`` folds whose held-out risks are averaged for ``"auto"``."""


def _fold_masks(key, s, w, n_folds, X=None, n_repeats=1):
    """Training-row masks ``(n_repeats n_folds, n)``: ``n_repeats`` independent partitions of the rows with
    weight > 0 into ``n_folds`` folds (row ``r n_folds + f``: partition ``r``, fold ``f`` held out).

    Rows with identical features (``X``; in case-control data a labeled row and its unlabeled copy) share a fold,
    so that no held-out row has a copy among the training rows; the groups are stratified by whether they hold a
    labeled row.  The partitions are drawn one after the other from one generator, so the first is the same for
    every ``n_repeats``.
    """
    rng = host_rng(key)
    live = w > 0
    group = np.arange(s.shape[0])
    if X is not None:  # groups numbered by first occurrence: the same folds for a X + b (any a != 0) as for X
        _, first, inverse = np.unique(np.asarray(X), axis=0, return_index=True, return_inverse=True)
        rank = np.empty(first.size, np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        group = rank[inverse.ravel()]
    n_groups = int(group.max()) + 1
    labeled = np.zeros(n_groups, bool)
    labeled[group[live & (s == 1)]] = True
    present = np.zeros(n_groups, bool)
    present[group[live]] = True
    masks = []
    for _ in range(n_repeats):
        fold_of = np.full(n_groups, -1)
        for stratum in (labeled, ~labeled):
            groups = np.flatnonzero(stratum & present)
            fold_of[rng.permutation(groups)] = np.arange(groups.size) % n_folds
        fold = np.where(live, fold_of[group], -1)
        masks += [(fold != f) & (fold >= 0) for f in range(n_folds)]
    return np.stack(masks).astype(w.dtype)


def _select_learning_rate(key, Xj, sj, wj, Xd, sd, wd, prior, cands, per_set, T, k, verbose, mesh=None):
    r"""Repeated cross-fitted PU 0-1 risk of every β of ``LEARNING_RATES`` and the fits on all rows for every β:
    ``(risks, models)``, ``risks`` of shape ``(len(LEARNING_RATES),)``, ``models`` with a leading β axis.

    With ``K = N_SELECTION_REPEATS`` independent partitions of the rows into ``N_SELECTION_FOLDS`` folds
    (:func:`_fold_masks`), ``H_{β,r,f}`` is Ada-PU with learning rate ``β`` fitted without fold ``f`` of partition
    ``r`` (its rows get weight 0, which removes them from eq. (7)), and ``(P_{r,f}, U_{r,f})`` are the held-out
    labeled and unlabeled rows.  The risk of ``β`` is the mean over the ``K · N_SELECTION_FOLDS`` held-out
    estimates of eq. (6) with the zero-one loss (:func:`_fold_risks`)::

        R̂(β) = 1/(K F) Σ_{r,f} [ π P̂_{P_{r,f}}(H_{β,r,f}(x) = -1) + P̂_{U_{r,f}}(H_{β,r,f}(x) = +1)
                                - π P̂_{P_{r,f}}(H_{β,r,f}(x) = +1) ],

    and ``fit`` keeps ``argmin_β R̂(β)`` (ties: the smaller β).  Averaging over partitions lowers the variance
    that comes from which few labeled positives are held out.  Every (fold, β) fit and the fits on all rows run as
    one vmapped program on the full-size arrays (:func:`_selection_fits`; one compilation for the whole ``fit``),
    split over the devices of ``mesh`` when given (inputs replicated on them).
    """
    masks = _fold_masks(key, np.asarray(sd), np.asarray(wd), N_SELECTION_FOLDS, Xd, n_repeats=N_SELECTION_REPEATS)
    betas = np.asarray(LEARNING_RATES, np.float32)
    with progress(1, desc=f"Ada-PU: {len(LEARNING_RATES)} learning rates x {masks.shape[0]} folds",
                  verbose=verbose) as bar:
        decisions, models = _selection_fits(key, Xj, sj, prior, betas, per_set, cands, wj, masks, n_estimators=T,
                                            n_thresholds=k, mesh=mesh)
        decisions = to_host(decisions)
        bar.update()
    return _fold_risks(sd, wd, masks, decisions > 0, prior).mean(axis=0), models


def _fold_risks(s, w, masks, pred, prior):
    """Held-out PU 0-1 risks ``(n_masks, n_betas)``: for mask ``m`` (training rows) and predictions ``pred[m, b]``
    (bool, shape ``(n_masks, n_betas, n)``), the weighted unbiased estimate ``π P_P(ŷ=0) + P_U(ŷ=1) - π P_P(ŷ=1)``
    on the held-out rows, weighted ``w (1 - m)`` (training and zero-weight padding rows count 0)."""
    s = np.asarray(s, np.float64)
    held = np.asarray(w, np.float64)[None] * (1.0 - np.asarray(masks, np.float64))  # (n_masks, n)
    wp, wu = held * s, held * (1.0 - s)
    p = np.asarray(pred, np.float64)
    pp = np.einsum("mbn,mn->mb", p, wp) / np.maximum(wp.sum(axis=1), 1e-300)[:, None]
    pu = np.einsum("mbn,mn->mb", p, wu) / np.maximum(wu.sum(axis=1), 1e-300)[:, None]
    return prior * (1.0 - pp) + pu - prior * pp


@functools.partial(jit, "kernel", static_argnames=("n_estimators", "n_thresholds", "mesh"))
def _selection_fits(key, X, s, prior, betas, per_set, candidates, w, masks, *, n_estimators, n_thresholds,
                    mesh=None):
    """Decision values ``(n_folds, len(betas), n)`` of the fits on each fold's training rows, and the models
    ``(len(betas), ...)`` fitted on all rows, for every β: one vmapped fit over all ``(n_folds + 1) len(betas)``
    (row weights, β) pairs. With ``mesh`` (inputs replicated), the pairs are split over its devices (padded with
    copies of the last pair), each device fitting its pairs on all rows."""
    n_folds, n_betas = masks.shape[0], betas.shape[0]
    weights = jnp.concatenate([masks, jnp.ones((1,) + masks.shape[1:], masks.dtype)]) * w  # (n_folds + 1, n)
    pair_w = jnp.repeat(weights, n_betas, axis=0)
    pair_b = jnp.tile(betas, n_folds + 1)
    n_pairs, held = pair_b.shape[0], n_folds * n_betas

    def fits(pair_b, pair_w, key, X, s, prior, per_set, candidates):
        def fit(beta, weights):
            return _fit_body(key, X, s, prior, beta, per_set, candidates, weights, n_estimators=n_estimators,
                             n_thresholds=n_thresholds, threshold_range="paper")

        models = jax.vmap(fit)(pair_b, pair_w)
        return models, jax.vmap(adapu_decision_function, in_axes=(0, None))(models, X)

    args = (key, X, s, prior, per_set, candidates)
    if mesh is None:
        models, decisions = fits(pair_b, pair_w, *args)
    else:
        pad = -n_pairs % mesh.size
        pair_b = jnp.concatenate([pair_b, jnp.repeat(pair_b[-1:], pad)])
        pair_w = jnp.concatenate([pair_w, jnp.repeat(pair_w[-1:], pad, axis=0)])
        split, rep = PartitionSpec(AXIS), PartitionSpec()
        models, decisions = jax.shard_map(fits, mesh=mesh, in_specs=(split, split) + (rep,) * len(args),
                                          out_specs=split, check_vma=False)(pair_b, pair_w, *args)
    full = jax.tree_util.tree_map(lambda a: a[held:n_pairs], models)
    return decisions[:held].reshape(n_folds, n_betas, -1), full
