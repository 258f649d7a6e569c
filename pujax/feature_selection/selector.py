"""FSCPU / FSCPU-MI as a scikit-learn feature selector (Uchikoshi & Akimoto 2025).

Scenario: the PU labels ``s`` mark a labeled subset D_L of the positives (1) among rows that are otherwise unlabeled
(0); all rows, D_L U D_U, are clustered. Under the paper's cluster assumption, good features make the labeled rows
concentrate in a few clusters, which the objective f(phi) of eq. (5) rewards; the search of Algorithm 2 (IGO /
compact GA with the REPAIR operator of Algorithm 3) maximises it under a cost budget.
"""
from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.feature_selection import SelectorMixin

from pujax.base import SaveLoadMixin
from pujax.devices import resolve_devices, resolve_n_jobs_alias
from pujax.persistence import register_estimator
from pujax.progress import progress
from pujax.random import as_key
from pujax.validation import check_in, check_int, validate_fit_data

from .gmm import COVARIANCE_TYPES
from .igo import DEFAULT_CACHE_SIZE, SearchConfig, igo_init, igo_run, max_selectable
from .mi import discretize, pairwise_mi

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["FSCPU", "VARIANTS"]

VARIANTS = ("fscpu", "fscpu-mi")


def _check_float(value, name, low=None, high=None, low_open=True, high_open=True, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a float; got {value!r} ({type(value).__name__}).")
    v = float(value)
    bad = not np.isfinite(v)
    if low is not None:
        bad |= v <= low if low_open else v < low
    if high is not None:
        bad |= v >= high if high_open else v > high
    if bad:
        lo = "-inf" if low is None else f"{low}"
        hi = "inf" if high is None else f"{high}"
        raise ValueError(f"{name}={value!r} must be a finite float in {'(' if low_open else '['}{lo}, "
                         f"{hi}{')' if high_open else ']'}.")
    return v


def minmax_scale(X: ArrayLike) -> np.ndarray:
    """Min-max normalise every column to [0, 1] (constant columns become 0), as the paper's preprocessing."""
    X = np.asarray(X, dtype=np.float64)
    lo, hi = X.min(axis=0), X.max(axis=0)
    rng = np.where(hi > lo, hi - lo, 1.0)
    return (X - lo) / rng


def _devices_for(devices, n_candidates):
    """The devices the candidates of a step are split across: the first ``k`` of ``devices``
    (:func:`pujax.devices.resolve_devices`), ``k`` the largest divisor of ``n_candidates`` not above their count."""
    devs = resolve_devices(devices)
    k = max(k for k in range(1, len(devs) + 1) if n_candidates % k == 0)
    return devs[:k]


@register_estimator
class FSCPU(SaveLoadMixin, SelectorMixin, BaseEstimator):
    """Feature selection under the cluster assumption in PU learning (FSCPU, Uchikoshi & Akimoto 2025).

    Each candidate feature mask is scored by clustering all rows on the selected features with a K-component
    Gaussian mixture and taking f(phi) of eq. (5): the best recall x precision of "labeled vs not" over unions of
    clusters (prefix rule of Algorithm 1 / Prop. 4.1). Masks are searched with the IGO / compact GA of Algorithm 2
    (Bernoulli parameters theta, two candidates per step, REPAIR of Algorithm 3 to meet the budget, eq. 11 update,
    eq. 12 clipping); the selected features are those with the largest final theta. ``variant="fscpu-mi"`` uses
    eq. (13): f/Std[f] + I/Std[I] with the semi-JMI mutual information I.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features to select, i.e. the budget C of Algorithm 2 with unit costs. A float in (0, 1) is a
        fraction of the features; None selects half of them rounded up (the paper's real-data protocol). With
        ``costs`` it is the total cost budget C (None: half the total cost).
    n_clusters : int, default=10
        Mixture components K (the paper uses 10).
    n_iter : int, default=3000
        Search steps T (the paper uses 3000).
    variant : {"fscpu", "fscpu-mi"}, default="fscpu"
        Objective: eq. (5), or eq. (13) with the semi-JMI term.
    covariance_type : {"full", "diag", "tied", "spherical"}, default="full"
        Covariance of the mixture components (scikit-learn's ``GaussianMixture`` types). "full" is the paper's
        setting (scikit-learn's default); with ``max_em_iter=20`` it meets the paper's feature selection rate on all
        eight cluster-assumption conditions of Table 1. "diag" does O(p) instead of O(p^2) work per row and
        component, at a lower selection rate there (FSR 0.78 vs the paper's 0.91 on condition 1, 0.66 vs 0.92 on
        condition 5, 5 runs each); "tied" and "spherical" cost as little as "diag" and select worse (accuracy and
        speed of each in ``benchmarks/results/fscpu.md`` and ``benchmarks/results/fscpu_table1.md``).
    max_em_iter : int, default=20
        EM iterations at most (scikit-learn's ``max_iter``; the paper keeps scikit-learn's 100, which selects no
        better on Table 1's data); EM stops earlier when the mean log-likelihood changes by less than ``tol``.
    tol : float, default=1e-3
        EM convergence threshold (scikit-learn's default).
    reg_covar : float, default=1e-6
        Added to the covariance diagonal (scikit-learn's default).
    kmeans_max_iter : int, default=300
        Lloyd iterations at most of the k-means initialisation (greedy k-means++ seeds; scikit-learn's KMeans
        default; it stops when the centers move by less than 1e-4 x the mean feature variance).
    n_candidates : int, default=2
        Candidates per step (lambda); 2 is the paper's algorithm, more uses the rank-based IGO update.
    n_searches : int, default=1
        Independent searches run at once (vmapped); ``scores_`` averages their final theta.
    learning_rate : float or None, default=None
        eta of eq. (11); None means 1 / (2 d) (the paper).
    clip : float or None, default=None
        epsilon of eq. (12); None means 1 / d (the paper).
    costs : array-like of shape (n_features,) or None, default=None
        Feature costs c_l > 0 (None: all 1).
    scale : {"minmax", None}, default="minmax"
        Min-max normalise the features before the search (the paper's preprocessing).
    mi_bins : int, default=5
        Quantile bins per feature for the semi-JMI estimates (``variant="fscpu-mi"``).
    skip_duplicates : bool, default=True
        Skip the objective evaluations of a step whose candidate masks are all identical (their update is zero).
    candidate_batching : {"auto", "map", "vmap"}, default="auto"
        How the candidates of a step are clustered: "vmap" runs their EMs as one batch (until the slowest has
        converged; suits GPU/TPU), "map" one after the other (each stops at its own convergence; less work on
        CPU). "auto": "map" on the CPU backend, else "vmap". Results agree up to float rounding.
    cache_size : int, default=4096
        Slots of the memo table of objective values by mask (0 disables it). The GMM behind f(phi) is seeded by
        a key derived from the mask and the search's seed, so within a search f is a deterministic function of
        the mask (each mask still gets its own random k-means++ initialisation) and a mask sampled again reuses
        its stored value instead of re-fitting the mixture (masks repeat once theta is near 0 or 1 for most
        features). Exact: the search is the same with ``cache_size=0``. The table is searched by comparing all
        slots and refilled as a ring (oldest entry replaced). It saves time only where the per-candidate branch
        is a real branch, i.e. ``n_searches=1`` with ``candidate_batching="map"`` (the CPU default); under
        ``vmap`` it stays exact but skips nothing.
    devices : None, int, sequence of jax.Device or jax.sharding.Mesh, default=None
        Devices the candidates of a step are split across (:mod:`pujax.devices`; None = every device; ``shard_map``
        inside the search's ``lax.scan``; each device fits its share, then the values are all-gathered); the
        number used is the largest divisor of ``n_candidates`` not above their count (``n_devices_``). JAX
        exposes one CPU device unless told otherwise: to use the cores of a CPU, run
        ``jax.config.update("jax_num_cpu_devices", os.cpu_count())`` before the first JAX computation. Values
        agree with ``devices=1`` up to float rounding of the separately compiled per-device program.
    n_jobs : int, optional
        Deprecated name of ``devices`` (-1 = every device); it keeps working for one release with a
        ``FutureWarning``.
    random_state : None, int, numpy RandomState/Generator or JAX key, default=None
    verbose : bool, default=False
        Show a progress bar over the search steps.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`).

    Attributes
    ----------
    support_ : ndarray of bool (n_features,)
        Selected features.
    scores_ : ndarray (n_features,)
        Final theta (mean over the searches).
    history_ : ndarray (n_iter + 1, n_features)
        theta after each step (row 0 = initial theta), mean over the searches; the paper's Figure 1.
    thetas_ : ndarray (n_searches, n_features)
        Final theta of every search.
    objective_history_ : ndarray (n_searches, n_iter, n_candidates)
        f(phi) of every evaluated candidate (NaN on skipped steps).
    cache_hit_rate_ : float
        Fraction of the candidate evaluations served from the memo table (all searches; 0 when disabled).
    n_gmm_fits_ : int
        Gaussian-mixture fits needed (all searches): evaluated candidates minus cache hits, skipped duplicate
        steps excluded. With ``n_searches=1`` and ``candidate_batching="map"`` exactly these fits run; under
        ``vmap`` the skipped fits are computed and discarded.
    n_features_to_select_ : int
        Number of selected features.
    budget_ : float
        The cost budget C used.
    n_devices_ : int
        Devices the candidates were split across.
    n_features_in_ : int
        Number of features seen in ``fit``.

    References
    ----------
    .. [1] M. Uchikoshi and Y. Akimoto, FSCPU: feature selection based on the cluster assumption in PU learning,
       2025: objective f(phi) eq. (5) and Algorithm 1 (Prop. 4.1), IGO search with hard constraint Algorithm 2,
       REPAIR Algorithm 3, update eq. (11), clipping eq. (12), FSCPU-MI eq. (13).

    Examples
    --------
    >>> from pujax.feature_selection import FSCPU, make_fscpu_synthetic
    >>> X, y, s, relevant = make_fscpu_synthetic(n_negative=400, n_positive=100, n_relevant=4, n_uniform=4,
    ...                                          n_noisy_copies=0, n_negative_clusters=2, random_state=0)
    >>> sel = FSCPU(n_features_to_select=4, n_clusters=3, n_iter=50, random_state=0).fit(X, s)
    >>> sel.transform(X).shape
    (500, 4)
    """

    _fitted_schema = {
        "n_features_in_": "int", "feature_names_in_": "str[n_features_in_]?", "scores_": "f[n_features_in_]",
        "thetas_": "f[n_searches,n_features_in_]", "history_": "f[*,n_features_in_]",
        "objective_history_": "f[n_searches,*,2]", "cache_hit_rate_": "float", "n_gmm_fits_": "int",
        "n_devices_": "int", "support_": "b[n_features_in_]", "n_features_to_select_": "int", "budget_": "float",
        "learning_rate_": "float", "clip_": "float",
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=10, n_iter=3000, variant="fscpu",
                 covariance_type="full", max_em_iter=20, tol=1e-3, reg_covar=1e-6, kmeans_max_iter=300,
                 n_candidates=2, n_searches=1, learning_rate=None, clip=None, costs=None, scale="minmax",
                 mi_bins=5, skip_duplicates=True, candidate_batching="auto", cache_size=DEFAULT_CACHE_SIZE,
                 devices=None, n_jobs="deprecated", random_state=None, verbose=False, pos_label=None):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.n_iter = n_iter
        self.variant = variant
        self.covariance_type = covariance_type
        self.max_em_iter = max_em_iter
        self.tol = tol
        self.reg_covar = reg_covar
        self.kmeans_max_iter = kmeans_max_iter
        self.n_candidates = n_candidates
        self.n_searches = n_searches
        self.learning_rate = learning_rate
        self.clip = clip
        self.costs = costs
        self.scale = scale
        self.mi_bins = mi_bins
        self.skip_duplicates = skip_duplicates
        self.candidate_batching = candidate_batching
        self.cache_size = cache_size
        self.devices = devices
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.pos_label = pos_label

    # ------------------------------------------------------------------ validation helpers
    def _resolve_costs_budget(self, d):
        if self.costs is None:
            costs = np.ones(d)
            unit = True
        else:
            costs = np.asarray(self.costs, dtype=np.float64)
            if costs.shape != (d,):
                raise ValueError(f"costs has shape {costs.shape}; pass one positive cost per feature ({d},).")
            if not np.all(np.isfinite(costs)) or np.any(costs <= 0):
                raise ValueError("costs must be finite and > 0 for every feature.")
            unit = bool(np.all(costs == costs[0]))
        nfs = self.n_features_to_select
        if self.costs is None:
            if nfs is None:
                budget = math.ceil(d / 2)
            elif isinstance(nfs, (bool, np.bool_)):
                raise TypeError("n_features_to_select must be an int, a float in (0, 1) or None.")
            elif isinstance(nfs, numbers.Integral):
                budget = int(nfs)
                if not 1 <= budget <= d:
                    raise ValueError(f"n_features_to_select={nfs} must be in [1, n_features={d}].")
            elif isinstance(nfs, numbers.Real):
                frac = float(nfs)
                if not 0.0 < frac < 1.0:
                    raise ValueError(f"n_features_to_select={nfs!r}: a float must be a fraction in (0, 1); "
                                     f"pass an int for a number of features.")
                budget = max(1, math.ceil(frac * d))
            else:
                raise TypeError(f"n_features_to_select must be an int, a float in (0, 1) or None; got "
                                f"{type(nfs).__name__}.")
        else:
            if nfs is None:
                budget = float(costs.sum()) / 2.0
            else:
                budget = _check_float(nfs, "n_features_to_select (the cost budget with costs)", low=0.0)
            if budget < costs.min():
                raise ValueError(f"the budget {budget} is below the cheapest feature cost {costs.min()}; "
                                 f"no feature can be selected.")
        return costs, float(budget), unit

    def _select(self, scores, costs, budget):
        order = np.argsort(-scores, kind="stable")
        support = np.zeros(scores.shape[0], dtype=bool)
        remaining = budget
        tol = 1e-6 * max(1.0, abs(budget))
        for j in order:
            if costs[j] <= remaining + tol:
                support[j] = True
                remaining -= costs[j]
        return support

    # ------------------------------------------------------------------ fit
    def _checked_params(self, n, d):
        """The validated hyper-parameters of :meth:`fit` (errors name the parameter)."""
        check_in(self.variant, "variant", VARIANTS)
        check_in(self.covariance_type, "covariance_type", COVARIANCE_TYPES)
        check_in(self.scale, "scale", ("minmax", None))
        check_in(self.candidate_batching, "candidate_batching", ("auto", "map", "vmap"))
        batching = self.candidate_batching
        if batching == "auto":
            batching = "map" if jax.default_backend() == "cpu" else "vmap"
        n_clusters = check_int(self.n_clusters, "n_clusters", low=1)
        if n_clusters > n:
            raise ValueError(f"n_clusters={n_clusters} exceeds the number of samples {n}; lower n_clusters.")
        n_iter = check_int(self.n_iter, "n_iter", low=1)
        max_em_iter = check_int(self.max_em_iter, "max_em_iter", low=1)
        km_iter = check_int(self.kmeans_max_iter, "kmeans_max_iter", low=1)
        lam = check_int(self.n_candidates, "n_candidates", low=2)
        n_searches = check_int(self.n_searches, "n_searches", low=1)
        mi_bins = check_int(self.mi_bins, "mi_bins", low=2)
        cache_size = check_int(self.cache_size, "cache_size", low=0)
        tol = _check_float(self.tol, "tol", low=0.0)
        reg = _check_float(self.reg_covar, "reg_covar", low=0.0, low_open=False)
        eta = _check_float(self.learning_rate, "learning_rate", low=0.0, high=1.0, high_open=False,
                           allow_none=True)
        eps = _check_float(self.clip, "clip", low=0.0, high=0.5, allow_none=True)
        eta = 1.0 / (2 * d) if eta is None else eta
        eps = 1.0 / d if eps is None else eps
        eps = min(eps, 0.5 - 1e-6)
        return (batching, n_clusters, n_iter, max_em_iter, km_iter, lam, n_searches, mi_bins, cache_size, tol, reg,
                eta, eps)

    def fit(self, X: ArrayLike, y: ArrayLike) -> FSCPU:
        """Search the feature mask on PU data ``X`` (n, d) with PU labels ``y`` (1 = labeled positive, 0 = unlabeled).
        """
        X, s, _ = validate_fit_data(self, X, y, set_classes=False, dtype=np.float64)  # scaled in float64
        n, d = X.shape
        (batching, n_clusters, n_iter, max_em_iter, km_iter, lam, n_searches, mi_bins, cache_size, tol, reg, eta,
         eps) = self._checked_params(n, d)
        devices = _devices_for(resolve_n_jobs_alias(self, self.devices, self.n_jobs), lam)
        n_shards = len(devices)
        costs, budget, unit = self._resolve_costs_budget(d)
        width = max_selectable(costs, budget)
        key = as_key(self.random_state)

        Xs = minmax_scale(X) if self.scale == "minmax" else X.astype(np.float64)
        Xs = Xs - Xs.mean(axis=0)  # GMMs are translation equivariant; centering helps float32 moments
        dtype = jnp.result_type(float)
        Xj = jnp.asarray(Xs, dtype=dtype)
        sj = jnp.asarray(s, dtype=dtype)
        if self.variant == "fscpu-mi":
            mi_matrix = pairwise_mi(discretize(Xj, mi_bins), sj, mi_bins).astype(dtype)
        else:
            mi_matrix = jnp.zeros((d, d), dtype)
        config = SearchConfig(
            n_candidates=lam, width=width, unit_cost=unit, n_clusters=n_clusters,
            covariance_type=self.covariance_type, max_iter=max_em_iter, tol=tol, reg_covar=reg,
            kmeans_max_iter=km_iter, kmeans_tol=1e-4, variant=self.variant,
            skip_duplicates=bool(self.skip_duplicates), vmap_candidates=batching == "vmap", n_shards=n_shards,
            devices=devices if n_shards > 1 else (),
        )
        theta0 = np.clip(np.full(d, budget / costs.sum()), eps, 1.0 - eps)
        costs_j = jnp.asarray(costs, dtype)
        budget_j = jnp.asarray(budget, dtype)
        eta_j = jnp.asarray(eta, dtype)
        eps_j = jnp.asarray(eps, dtype)

        search_keys = jax.random.split(key, n_searches)
        # per search: step keys (sampling, REPAIR) and the constant key that seeds the per-mask GMM keys
        split = jax.vmap(jax.random.split)(search_keys)  # (S, 2, key)
        step_keys = jax.vmap(lambda k: jax.random.split(k, n_iter))(split[:, 0])  # (S, T, key)
        state = jax.vmap(lambda kg: igo_init(jnp.asarray(theta0, dtype), kg, cache_size))(split[:, 1])

        state, th_hist, f_hist = self._search(step_keys, state, n_iter, n_searches,
                                              (Xj, sj, costs_j, budget_j, eta_j, eps_j, mi_matrix, config))
        thetas = np.asarray(state[0], dtype=np.float64)  # (S, d)

        cache = state[3]
        n_lookups = int(np.sum(np.asarray(cache.n_lookups)))
        n_hits = int(np.sum(np.asarray(cache.n_hits)))
        n_evaluated = int(np.sum(np.isfinite(f_hist)))
        scores = thetas.mean(axis=0)
        support = self._select(scores, costs, budget)

        self.n_features_in_ = int(d)
        self.scores_ = scores
        self.thetas_ = thetas
        self.history_ = np.concatenate([theta0[None, :], th_hist.mean(axis=0)], axis=0)
        self.objective_history_ = f_hist
        self.cache_hit_rate_ = float(n_hits / n_lookups) if n_lookups else 0.0
        self.n_gmm_fits_ = int(n_evaluated - n_hits)
        self.n_devices_ = int(n_shards)
        self.support_ = support
        self.n_features_to_select_ = int(support.sum())
        self.budget_ = float(budget)
        self.learning_rate_ = float(eta)
        self.clip_ = float(eps)
        return self

    def _search(self, step_keys, state, n_iter, n_searches, args):
        """Run the searches (in chunks with a progress bar when verbose); return (state, theta and f histories)."""
        def run(keys_chunk, st):
            if n_searches == 1:
                st1 = jax.tree_util.tree_map(lambda a: a[0], st)
                st1, th, fh = igo_run(keys_chunk[0], st1, *args)
                return jax.tree_util.tree_map(lambda a: a[None], st1), th[None], fh[None]
            return jax.vmap(
                lambda kc, s0: igo_run(kc, s0, *args)
            )(keys_chunk, st)

        n_chunks = 20 if (self.verbose and n_iter >= 40) else 1
        bounds = np.linspace(0, n_iter, n_chunks + 1).astype(int)
        th_parts, f_parts = [], []
        with progress(n_iter, desc="FSCPU search", verbose=self.verbose) as bar:
            for a, b in zip(bounds[:-1], bounds[1:]):
                state, th, fh = run(step_keys[:, a:b], state)
                th_parts.append(np.asarray(th))
                f_parts.append(np.asarray(fh))
                bar.update(int(b - a))
        return state, np.concatenate(th_parts, axis=1), np.concatenate(f_parts, axis=1)  # (S, T, d), (S, T)

    # ------------------------------------------------------------------ selector API
    def _get_support_mask(self):
        if not hasattr(self, "support_"):
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with training data first."
            )
        return self.support_

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.classifier_tags = ClassifierTags(multi_class=False)  # the target is binary PU labels
        return tags
