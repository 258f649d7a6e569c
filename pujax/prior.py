r"""Class-prior estimation from positive and unlabeled data: ``estimate_prior`` and ``prior="auto"``.

What is estimated (read this first)
-----------------------------------
Every pujax estimator works in the **case-control scenario**: its ``prior`` is :math:`\pi = P(y=1)` in the
population that the *unlabeled* rows are drawn from (labeled rows ~ :math:`p(x \mid y=1)`, unlabeled rows ~
:math:`p_U(x) = \pi\,p(x \mid y=1) + (1-\pi)\,p(x \mid y=0)`).

:func:`estimate_prior(X, s) <estimate_prior>` therefore returns exactly the quantity an estimator fitted on the same
``(X, s)`` needs: **the positive fraction** :math:`\theta` **of the population the** ``s == 0`` **rows come from**.
That is the mixture proportion of the labeled-positive distribution in the unlabeled distribution, and it is what
``pujax.validation.resolve_prior`` stores as ``prior_`` when an estimator is built with ``prior="auto"``.

* Case-control data (``X = concat(X_P, X_U)``, ``s = concat(ones, zeros)``, U drawn from the full population, as
  produced by ``pujax.data.make_case_control``): :math:`\theta = \pi`, the population prior.
* Censoring / single-training-set data (rows drawn from :math:`p(x)`, each positive labeled independently with
  probability :math:`c = P(s=1 \mid y=1)`, SCAR): the unlabeled rows follow :math:`p(x \mid s=0)`, whose positive
  fraction is :math:`\theta = \pi(1-c)/(1-\pi c)` — *not* the population prior :math:`\pi`. A case-control estimator
  fitted on such ``(X, s)`` needs :math:`\theta`, which is what is returned; use :func:`case_control_to_censoring`
  (or :func:`positive_fraction`) to get :math:`\pi` back.

The result also carries the **label frequency** of the data set,

.. math::  c = \frac{n_l}{n_l + \theta\, n_u}                                                      \qquad (C1)

(:math:`n_l` = #``s == 1``, :math:`n_u` = #``s == 0``): the expected share of the positive rows of ``(X, s)`` that
carry a label. In the censoring scenario this is :math:`c = P(s=1 \mid y=1)`; in the case-control scenario it is the
labeled share of all positive rows of ``concat(P, U)``. Both scenarios are covered by (C1) and its inverse

.. math::  \theta = \frac{n_l\,(1-c)}{c\, n_u},                                                    \qquad (C2)

which is how label-frequency estimators (Elkan–Noto, TIcE) are converted to :math:`\theta`. For the censoring
scenario in population terms: :math:`P(s=1) = \pi c` (C3), :math:`\theta = \pi(1-c)/(1-\pi c)` (C4) and
:math:`\pi = \theta/(1 - c + \theta c)` (C5).

Methods
-------
``"bbe"`` (default)
    Best Bin Estimation, Garg, Wu, Smola, Balakrishnan & Lipton, *Mixture proportion estimation and PU learning:
    a modern approach*, NeurIPS 2021, Algorithm 1. A P-vs-U classifier is trained; on held-out scores,
    :math:`\hat q_p(z)`, :math:`\hat q_u(z)` are the fractions of P and U scores :math:`\ge z`. Because
    :math:`q_u(z) = \theta q_p(z) + (1-\theta) q_n(z) \ge \theta q_p(z)`, every ratio :math:`q_u/q_p` is an upper
    bound on :math:`\theta`, tight for a "top bin" free of negatives. BBE picks

    .. math:: \hat z = \arg\min_z \frac{\hat q_u(z)}{\hat q_p(z)} + \frac{1+\gamma}{\hat q_p(z)}
              \Big(\sqrt{\tfrac{\log(4/\delta)}{2 n_p}} + \sqrt{\tfrac{\log(4/\delta)}{2 n_u}}\Big),
              \qquad \hat\theta = \hat q_u(\hat z)/\hat q_p(\hat z)

    (the upper confidence bound from the DKW inequality). ``delta = 0.1``, ``gamma = 0.01`` as in the paper.
``"elkan_noto"``
    Elkan & Noto, *Learning classifiers from only positive and unlabeled data*, KDD 2008, §2: with
    :math:`g(x) \approx P(s=1 \mid x)` and a held-out set V with labeled part :math:`P_V`,
    :math:`e_1 = \frac{1}{|P_V|}\sum_{P_V} g`, :math:`e_2 = \sum_{P_V} g / \sum_V g`, :math:`e_3 = \max_V g` all
    estimate :math:`c` (``variant`` picks one, ``"e1"`` by default as the paper recommends); :math:`\theta` by (C2).
``"tice"``
    Bekker & Davis, *Estimating the class prior in positive and unlabeled data through decision tree induction*,
    AAAI 2018. For any subset S of the data, SCAR gives :math:`c \ge L_S/|S|` in expectation, with the one-sided
    finite-sample lower bound :math:`\hat c_S = L_S/|S| - \sqrt{c(1-c)(1-\delta)/(\delta |S|)}` and
    :math:`\delta = \max(0.025, 1/(1+0.004\,|S_{\text{root}}|))`. A greedy tree (split criterion max-bepp,
    :math:`\max_{\text{child}} L/(|S|+k)`, features split into 4 intervals) is grown on one fold and the bound is
    evaluated on the other folds; :math:`\hat c` is the largest bound found, averaged over folds, and the procedure is
    repeated with the new :math:`c` in the bound. :math:`\theta` by (C2). Features are cut at their global quartiles
    (the paper cuts min–max-normalised features at 0.25/0.5/0.75; quartiles coincide for uniform features and do
    not leave empty intervals on skewed ones).

Held-out scores (BBE, Elkan–Noto) are cross-fitted: the rows are split into ``n_folds`` folds stratified by ``s``,
a fresh clone of the classifier is trained on the other folds, and each row is scored by the model that did not see
it. **Exact duplicate rows are kept in one fold**, so that in case-control data where U contains copies of the
labeled rows (as in the papers' setup) a labeled row is never scored by a model that saw its unlabeled copy.

Confidence intervals (``interval``) are percentile bootstraps computed in JAX with ``vmap`` over resamples:
BBE resamples held-out P and U scores (the threshold is re-selected in every resample), Elkan–Noto resamples rows of
the held-out scores, TIcE resamples rows and re-evaluates the bound on the best subsets found by the tree search.
The classifier / tree search is not refitted per resample, so the interval reflects the hold-out sampling
variability, not the bias of an imperfect classifier; it is widened, if needed, to contain the point estimate.
BBE also offers ``interval="dkw"``: its DKW upper bound
:math:`\min_z (\hat q_u + \epsilon_u)/(\hat q_p - \epsilon_p)` (valid at level :math:`1-\delta` for any
classifier) with the lower bound :math:`(\hat q_u(\hat z) - \epsilon_u)/(\hat q_p(\hat z) + \epsilon_p)`, which is
valid only when the selected top bin holds no negatives (the paper's top-bin assumption).
"""
from __future__ import annotations

import heapq
import numbers
import time
from dataclasses import dataclass, field
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from pujax.validation import as_key, check_in, check_int, check_X_s

__all__ = [
    "PriorEstimate",
    "estimate_prior",
    "bbe_estimate",
    "bbe_bootstrap",
    "elkan_noto_estimates",
    "elkan_noto_bootstrap",
    "tice_lower_bound",
    "tice_label_frequency",
    "label_frequency_from_prior",
    "prior_from_label_frequency",
    "censoring_to_case_control",
    "case_control_to_censoring",
    "positive_fraction",
    "METHODS",
]

METHODS = ("bbe", "tice", "elkan_noto")
_PRIOR_EPS = 1e-3  # an estimate is clipped into [eps, 1 - eps] so that estimators get a prior strictly in (0, 1)


# ----------------------------------------------------------------------------------------------------------------
# Result type
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PriorEstimate:
    """Result of :func:`estimate_prior`; pass it as ``prior=`` to any pujax estimator.

    Attributes
    ----------
    prior : float
        :math:`\\theta`, the positive fraction of the population the ``s == 0`` rows come from — the case-control
        ``prior`` an estimator fitted on the same ``(X, s)`` needs (equals the population prior :math:`\\pi` for
        case-control data, :math:`\\pi(1-c)/(1-\\pi c)` for censoring data; see the module docstring). Strictly
        inside (0, 1) (clipped to [1e-3, 1 - 1e-3]; ``diagnostics["clipped"]`` says when).
    label_frequency : float
        :math:`c = n_l / (n_l + \\theta n_u)`, eq. (C1): the share of the positive rows of ``(X, s)`` that are labeled.
    interval : (float, float)
        Confidence interval for ``prior`` at level ``diagnostics["confidence"]`` (bootstrap or DKW, see
        ``diagnostics["interval"]``), within [0, 1].
    method : str
        ``"bbe"``, ``"tice"`` or ``"elkan_noto"``.
    diagnostics : dict
        Method-specific numbers (plain Python types): sample sizes, timing, thresholds, fold estimates, ...
    """

    prior: float
    label_frequency: float
    interval: tuple
    method: str
    diagnostics: dict = field(default_factory=dict, compare=False)

    def __float__(self):
        return float(self.prior)

    def __repr__(self):
        lo, hi = self.interval
        return (f"PriorEstimate(prior={self.prior:.4f}, label_frequency={self.label_frequency:.4f}, "
                f"interval=({lo:.4f}, {hi:.4f}), method={self.method!r})")


# ----------------------------------------------------------------------------------------------------------------
# Conversion helpers (C1)-(C5); plain arithmetic, so they work on floats, numpy and jax arrays (jit / vmap)
# ----------------------------------------------------------------------------------------------------------------
def _is_concrete(x):
    return not isinstance(x, jax.core.Tracer)


def _check_range(x, name, low, high, low_open=True, high_open=False):
    if not _is_concrete(x):
        return
    a = np.asarray(x, dtype=float)
    lo_ok = a > low if low_open else a >= low
    hi_ok = a < high if high_open else a <= high
    if not np.all(np.isfinite(a) & lo_ok & hi_ok):
        lb = "(" if low_open else "["
        rb = ")" if high_open else "]"
        raise ValueError(f"{name}={x!r} must lie in {lb}{low}, {high}{rb}.")


def _check_counts(n_labeled, n_unlabeled):
    for v, nm in ((n_labeled, "n_labeled"), (n_unlabeled, "n_unlabeled")):
        if _is_concrete(v) and not np.all(np.asarray(v, dtype=float) > 0):
            raise ValueError(f"{nm}={v!r} must be > 0 (number of s == 1 / s == 0 rows).")


def label_frequency_from_prior(prior, n_labeled, n_unlabeled):
    """Label frequency ``c = n_l / (n_l + prior * n_u)`` of a PU data set, eq. (C1), valid in both scenarios.

    ``prior`` is the positive fraction of the unlabeled rows' population (the case-control prior),
    ``n_labeled`` / ``n_unlabeled`` the numbers of ``s == 1`` / ``s == 0`` rows. Inverse of
    :func:`prior_from_label_frequency`.
    """
    _check_range(prior, "prior", 0.0, 1.0, low_open=False)
    _check_counts(n_labeled, n_unlabeled)
    return n_labeled / (n_labeled + prior * n_unlabeled)


def prior_from_label_frequency(label_frequency, n_labeled, n_unlabeled):
    """Case-control prior of the unlabeled rows from a label frequency: ``n_l (1 - c) / (c n_u)``, eq. (C2).

    Inverse of :func:`label_frequency_from_prior`. The result is in [0, 1] whenever
    ``c >= n_l / (n_l + n_u)``; smaller ``c`` (an estimate below the labeled fraction of the data) gives a value
    above 1, which :func:`estimate_prior` clips.
    """
    _check_range(label_frequency, "label_frequency", 0.0, 1.0)
    _check_counts(n_labeled, n_unlabeled)
    return n_labeled * (1.0 - label_frequency) / (label_frequency * n_unlabeled)


def censoring_to_case_control(population_prior, label_frequency):
    """Censoring scenario: positive fraction of the unlabeled rows, ``pi (1 - c) / (1 - pi c)``, eq. (C4).

    ``population_prior`` is ``pi = P(y=1)`` of the population all rows are drawn from, ``label_frequency`` is
    ``c = P(s=1 | y=1)``. The result is the ``prior`` a case-control estimator fitted on those ``(X, s)`` needs.
    """
    _check_range(population_prior, "population_prior", 0.0, 1.0, low_open=False)
    _check_range(label_frequency, "label_frequency", 0.0, 1.0, low_open=False, high_open=True)
    pi, c = population_prior, label_frequency
    return pi * (1.0 - c) / (1.0 - pi * c)


def case_control_to_censoring(prior, label_frequency):
    """Censoring scenario: population prior ``pi = theta / (1 - c + theta c)`` from the unlabeled-row prior, eq. (C5).

    Inverse of :func:`censoring_to_case_control` (``prior`` = theta, ``label_frequency`` = c in [0, 1)).
    """
    _check_range(prior, "prior", 0.0, 1.0, low_open=False)
    _check_range(label_frequency, "label_frequency", 0.0, 1.0, low_open=False, high_open=True)
    return prior / (1.0 - label_frequency + prior * label_frequency)


def positive_fraction(prior, n_labeled, n_unlabeled):
    """Expected positive fraction of all rows of ``(X, s)``: ``(n_l + prior n_u) / (n_l + n_u)``.

    In the censoring scenario this estimates the population prior ``pi`` (it equals (C5) with c from (C1)).
    """
    _check_range(prior, "prior", 0.0, 1.0, low_open=False)
    _check_counts(n_labeled, n_unlabeled)
    return (n_labeled + prior * n_unlabeled) / (n_labeled + n_unlabeled)


# ----------------------------------------------------------------------------------------------------------------
# BBE core (JAX)
# ----------------------------------------------------------------------------------------------------------------
def _bucket(n):
    """Padded length for ``n`` items: 2 sizes per octave (<= 50 % padding), >= 256; limits recompilation."""
    n = max(int(n), 256)
    step = 1 << max(0, n.bit_length() - 2)
    return -(-n // step) * step


def _pad(a, size, value):
    a = jnp.asarray(a)
    return jnp.concatenate([a, jnp.full((size - a.shape[0],), value, a.dtype)]) if size > a.shape[0] else a


def _bbe_core(values, first, is_p, w, delta, gamma):
    """BBE (Garg et al. 2021, Alg. 1) on pooled held-out scores with row weights. Pure and jit/vmap-able.

    ``values`` are the pooled P and U scores sorted ascending (padding ``-inf`` first), ``first[k]`` the index of
    the first entry equal to ``values[k]`` (``searchsorted(values, values, "left")``), ``is_p`` 1 for P scores,
    ``w`` the weight of each entry (1 for a plain estimate, bootstrap counts for a resample, 0 for padding).
    Every distinct finite value is a candidate threshold z of the top bin {score >= z}.
    Returns (alpha, threshold, q_p, q_u, dkw_upper, dkw_lower) as 0-d arrays.
    """
    dt = w.dtype
    wp = w * is_p
    wu = w - wp
    n_p = jnp.sum(wp)
    n_u = jnp.sum(wu)
    zero = jnp.zeros((1,), dt)
    cp = jnp.concatenate([zero, jnp.cumsum(wp)])
    cu = jnp.concatenate([zero, jnp.cumsum(wu)])
    q_p = (n_p - cp[first]) / n_p            # fraction of P scores >= values[k]
    q_u = (n_u - cu[first]) / n_u
    log_term = jnp.log(jnp.asarray(4.0, dt) / delta)
    eps_p = jnp.sqrt(log_term / (2.0 * n_p))
    eps_u = jnp.sqrt(log_term / (2.0 * n_u))
    valid = (q_p > 0) & jnp.isfinite(values)
    safe_qp = jnp.where(valid, q_p, 1.0)
    big = jnp.asarray(jnp.finfo(dt).max, dt)
    # Algorithm 1, step 3: argmin of the upper confidence bound q_u/q_p + (1 + gamma)/q_p (eps_p + eps_u)
    objective = jnp.where(valid, (q_u + (1.0 + gamma) * (eps_p + eps_u)) / safe_qp, big)
    k = jnp.argmin(objective)
    alpha = jnp.clip(q_u[k] / safe_qp[k], 0.0, 1.0)
    # DKW: with prob >= 1 - delta, q_u <= q_u_hat + eps_u and q_p >= q_p_hat - eps_p for all z simultaneously,
    # and q_u(z)/q_p(z) >= alpha for every z, so the smallest ratio of the bounds is an upper bound on alpha.
    den = q_p - eps_p
    ok = valid & (den > 0)
    upper_z = jnp.where(ok, (q_u + eps_u) / jnp.where(ok, den, 1.0), big)
    dkw_upper = jnp.clip(jnp.min(upper_z), 0.0, 1.0)
    dkw_lower = jnp.clip((q_u[k] - eps_u) / (q_p[k] + eps_p), 0.0, 1.0)
    return alpha, values[k], q_p[k], q_u[k], dkw_upper, dkw_lower


def _prep_scores(scores_p, scores_u):
    """Pool, sort and pad P and U scores (host side). Returns (values, first, is_p, w, pos_p, pos_u, n_p, n_u)."""
    sp = np.ravel(np.asarray(scores_p, dtype=np.float64))
    su = np.ravel(np.asarray(scores_u, dtype=np.float64))
    if sp.size == 0 or su.size == 0:
        raise ValueError("BBE needs at least one positive and one unlabeled score.")
    if not (np.all(np.isfinite(sp)) and np.all(np.isfinite(su))):
        raise ValueError("scores contain NaN or infinite values; pass finite classifier scores.")
    n = sp.size + su.size
    size = _bucket(n)
    pad = size - n
    values = np.concatenate([np.full(pad, -np.inf), sp, su])
    is_p = np.concatenate([np.zeros(pad), np.ones(sp.size), np.zeros(su.size)])
    order = np.argsort(values, kind="stable")
    values, is_p = values[order], is_p[order]
    first = np.searchsorted(values, values, side="left")
    w = np.isfinite(values).astype(np.float64)
    # positions of the P and U entries (padded with 0; only the first n_p / n_u are used)
    pos_p = np.zeros(size, np.int32)
    pos_u = np.zeros(size, np.int32)
    ip = np.flatnonzero(is_p == 1)
    iu = np.flatnonzero((is_p == 0) & (w > 0))
    pos_p[: ip.size] = ip
    pos_u[: iu.size] = iu
    dt = jnp.result_type(float)
    values = values.astype(dt)
    return (jnp.asarray(values), jnp.asarray(first, jnp.int32), jnp.asarray(is_p, dt), jnp.asarray(w, dt),
            jnp.asarray(pos_p), jnp.asarray(pos_u), sp.size, su.size)


@jax.jit
def _bbe_jit(values, first, is_p, w, delta, gamma):
    return _bbe_core(values, first, is_p, w, delta, gamma)


def bbe_estimate(scores_p, scores_u, delta=0.1, gamma=0.01):
    """Best Bin Estimation (Garg et al. 2021, Algorithm 1) from held-out P-vs-U classifier scores.

    Parameters
    ----------
    scores_p, scores_u : 1-D arrays
        Scores of held-out labeled positives and held-out unlabeled rows (higher = more "labeled"-like).
    delta, gamma : float
        Confidence level and slack of the upper confidence bound (paper defaults 0.1 and 0.01).

    Returns
    -------
    dict of 0-d JAX arrays: ``prior`` (the mixture proportion of P in U, clipped to [0, 1]), ``threshold`` (the
    selected top-bin score z; the top bin is {score >= z}), ``q_p``, ``q_u`` (fractions of P and U scores in the top
    bin), ``dkw_upper`` (DKW upper bound on the proportion, valid at level 1 - delta) and ``dkw_lower`` (valid only
    for a top bin without negatives). Candidate thresholds are all pooled scores. Jit-compiled; inputs are padded
    to a few sizes so that similar sizes share one compilation.
    """
    delta = _check_open_unit(delta, "delta")
    gamma = _check_nonneg(gamma, "gamma")
    values, first, is_p, w, _, _, _, _ = _prep_scores(scores_p, scores_u)
    out = _bbe_jit(values, first, is_p, w, delta, gamma)
    return dict(zip(("prior", "threshold", "q_p", "q_u", "dkw_upper", "dkw_lower"), out))


def _randindex(key, size, n_valid):
    """``size`` uniform draws from {0, ..., n_valid - 1} (floor of a uniform; compiles faster than randint)."""
    u = jax.random.uniform(key, (size,), dtype=jnp.float32)
    n = jnp.asarray(n_valid, jnp.int32)
    return jnp.minimum((u * n.astype(jnp.float32)).astype(jnp.int32), n - 1)


def _bootstrap_counts(key, positions, n_valid, size, dt):
    """Multinomial counts over ``size`` slots: ``n_valid`` draws with replacement among ``positions[:n_valid]``."""
    j = _randindex(key, size, n_valid)
    live = (jnp.arange(size) < n_valid).astype(dt)
    return jax.ops.segment_sum(live, positions[j], num_segments=size)


def _bbe_resample(key, values, first, is_p, pos_p, pos_u, n_p, n_u, delta, gamma):
    """BBE estimate on one bootstrap resample (P and U resampled separately with ``key``)."""
    kp, ku = jax.random.split(key)
    size = values.shape[0]
    w = _bootstrap_counts(kp, pos_p, n_p, size, is_p.dtype) + _bootstrap_counts(ku, pos_u, n_u, size, is_p.dtype)
    return _bbe_core(values, first, is_p, w, delta, gamma)[0]


@partial(jax.jit, static_argnames=("n_bootstrap", "batch_size"))
def _bbe_boot_jit(key, values, first, is_p, pos_p, pos_u, n_p, n_u, delta, gamma, n_bootstrap, batch_size):
    def one(k):
        return _bbe_resample(k, values, first, is_p, pos_p, pos_u, n_p, n_u, delta, gamma)

    return jax.lax.map(one, jax.random.split(key, n_bootstrap), batch_size=batch_size)


def bbe_bootstrap(key, scores_p, scores_u, n_bootstrap=200, delta=0.1, gamma=0.01):
    """BBE estimates on ``n_bootstrap`` resamples (P and U resampled separately), vmap-ed over resamples.

    Resample ``b`` uses ``jax.random.split(key, n_bootstrap)[b]``; the threshold is re-selected in every resample
    among the original pooled scores. Returns a 1-D array of ``n_bootstrap`` estimates.
    """
    n_bootstrap = check_int(n_bootstrap, "n_bootstrap")
    delta = _check_open_unit(delta, "delta")
    gamma = _check_nonneg(gamma, "gamma")
    values, first, is_p, _, pos_p, pos_u, n_p, n_u = _prep_scores(scores_p, scores_u)
    return _bbe_boot_jit(key, values, first, is_p, pos_p, pos_u, n_p, n_u, delta, gamma, n_bootstrap,
                         _batch_size(n_bootstrap, values.shape[0]))


def _batch_size(n_bootstrap, n):
    # keep the vmapped working set around 2e7 elements
    return int(max(1, min(n_bootstrap, 20_000_000 // max(1, 8 * n))))


# ----------------------------------------------------------------------------------------------------------------
# Elkan-Noto core (JAX)
# ----------------------------------------------------------------------------------------------------------------
def _en_core(g, s, w):
    """(e1, e2, e3, n_l, n_u) for probabilities g, labels s in {0,1}, row weights w (0 = absent / padding)."""
    dt = g.dtype
    sw = s.astype(dt) * w
    n_l = jnp.sum(sw)
    n_u = jnp.sum((1.0 - s.astype(dt)) * w)
    tiny = jnp.asarray(jnp.finfo(dt).tiny, dt)
    e1 = jnp.sum(sw * g) / jnp.maximum(n_l, tiny)                 # mean of g over held-out labeled rows
    e2 = jnp.sum(sw * g) / jnp.maximum(jnp.sum(w * g), tiny)      # sum_P g / sum_V g
    e3 = jnp.max(jnp.where(w > 0, g, -jnp.inf))                   # max_V g
    return e1, e2, e3, n_l, n_u


def _c_to_prior(c, n_l, n_u):
    """Eq. (C2), clipped to [0, 1]; safe at c -> 0."""
    dt = jnp.result_type(c)
    tiny = jnp.asarray(jnp.finfo(dt).tiny, dt)
    val = n_l * (1.0 - c) / jnp.maximum(c * n_u, tiny)
    return jnp.clip(val, 0.0, 1.0)


def _prep_en(g, s):
    dt = jnp.result_type(float)
    g = jnp.ravel(jnp.asarray(g, dtype=dt))
    s = jnp.ravel(jnp.asarray(s)).astype(jnp.int32)
    if g.shape != s.shape:
        raise ValueError(f"g has {g.shape[0]} values but s has {s.shape[0]}; pass one probability per row.")
    if not bool(jnp.all(jnp.isfinite(g))):
        raise ValueError("g contains NaN or infinite values; pass probabilities P(s=1|x) in [0, 1].")
    n = g.shape[0]
    size = _bucket(n)
    return _pad(g, size, 0.0), _pad(s, size, 0), n


@jax.jit
def _en_point_jit(g, s, n):
    w = (jnp.arange(g.shape[0]) < n).astype(g.dtype)
    e1, e2, e3, n_l, n_u = _en_core(g, s, w)
    es = jnp.stack([e1, e2, e3])
    return es, _c_to_prior(es, n_l, n_u)


def elkan_noto_estimates(g, s):
    """Elkan & Noto (2008) estimators of the label frequency from held-out probabilities ``g ~ P(s=1|x)``.

    Returns ``(c, prior)``: two length-3 arrays with (e1, e2, e3) and the corresponding unlabeled-row priors by
    (C2), clipped to [0, 1]. ``s`` are the PU labels of the held-out rows.
    """
    g, s, n = _prep_en(g, s)
    return _en_point_jit(g, s, n)


@partial(jax.jit, static_argnames=("n_bootstrap", "batch_size"))
def _en_boot_jit(key, g, s, n, n_bootstrap, batch_size):
    size = g.shape[0]

    def one(k):
        idx = _randindex(k, size, n)
        ones = (jnp.arange(size) < n).astype(g.dtype)
        w = jax.ops.segment_sum(ones, idx, num_segments=size)
        e1, e2, e3, n_l, n_u = _en_core(g, s, w)
        return _c_to_prior(jnp.stack([e1, e2, e3]), n_l, n_u)

    return jax.lax.map(one, jax.random.split(key, n_bootstrap), batch_size=batch_size)


def elkan_noto_bootstrap(key, g, s, n_bootstrap=200):
    """Priors (columns e1, e2, e3) on ``n_bootstrap`` row resamples of held-out ``(g, s)``, vmap-ed."""
    n_bootstrap = check_int(n_bootstrap, "n_bootstrap")
    g, s, n = _prep_en(g, s)
    return _en_boot_jit(key, g, s, n, n_bootstrap, _batch_size(n_bootstrap, g.shape[0]))


# ----------------------------------------------------------------------------------------------------------------
# TIcE (Bekker & Davis 2018): host tree search, JAX bootstrap of the bound
# ----------------------------------------------------------------------------------------------------------------
def tice_lower_bound(n_labeled, n_total, c_prior, delta, min_size=1):
    """TIcE lower bound on the label frequency from a subset: ``L/T - sqrt(c(1-c)(1-delta)/(delta T))``.

    ``n_labeled`` = L labeled rows among ``n_total`` = T rows of the subset, ``c_prior`` the current estimate of c
    used in the variance term, ``delta`` the confidence parameter (``delta = 1`` gives L/T). Subsets with
    ``T < min_size`` give 0. Elementwise, jit-able.
    """
    xp = jnp if not (_is_concrete(n_labeled) and _is_concrete(n_total)) else np
    L = xp.asarray(n_labeled, dtype=float) if xp is np else jnp.asarray(n_labeled)
    T = xp.asarray(n_total, dtype=float) if xp is np else jnp.asarray(n_total)
    safe_T = xp.where(T > 0, T, 1.0)
    bound = L / safe_T - xp.sqrt(c_prior * (1.0 - c_prior) * (1.0 - delta) / (delta * safe_T))
    return xp.where(T < max(min_size, 1), 0.0, bound)


def _pick_delta(n):
    return max(0.025, 1.0 / (1.0 + 0.004 * n))


def _quartile_codes(X):
    """Per-feature interval codes in {0, 1, 2, 3}: cut at the (distinct) global quartiles of each feature."""
    n, d = X.shape
    codes = np.zeros((n, d), dtype=np.uint8)
    qs = np.quantile(X, [0.25, 0.5, 0.75], axis=0)
    for j in range(d):
        cuts = np.unique(qs[:, j])
        cuts = cuts[cuts > X[:, j].min()]  # a cut at the minimum would leave an empty first interval
        codes[:, j] = np.searchsorted(cuts, X[:, j], side="right").astype(np.uint8)
    return codes


def _tice_fold(codes, s, train_idx, est_idx, c_prior, delta, max_splits, min_size, k_bepp, keep_top):
    """One TIcE tree on ``train_idx``, bound evaluated on ``est_idx``. Returns (c_best, n_splits, top subsets)."""
    d = codes.shape[1]
    offsets = (np.arange(d, dtype=np.int64) * 4)[None, :]
    scale = len(est_idx) / max(len(train_idx), 1)
    L_est_root = float(s[est_idx].sum())
    c_best = L_est_root / max(len(est_idx), 1) if len(est_idx) >= min_size else 0.0
    top = []  # min-heap of (bound, counter, est rows) of the best subsets (bootstrap reuses them)
    counter = 0

    def remember(bound, rows):
        nonlocal counter
        counter += 1
        item = (bound, counter, rows)
        if len(top) < keep_top:
            heapq.heappush(top, item)
        elif bound > top[0][0]:
            heapq.heapreplace(top, item)

    def train_bound(rows):
        T = len(rows)
        L = float(s[rows].sum())
        return float(tice_lower_bound(L, T, c_prior, delta, min_size=1)) if T > 0 else 0.0

    queue = [(-train_bound(train_idx), -float(s[train_idx].sum()), 0, train_idx, est_idx, np.ones(d, bool))]
    tie = 1
    n_splits = 0
    min_labeled = 1.0
    while queue and n_splits < max_splits:
        n_splits += 1
        _, _, _, tr, es, avail = heapq.heappop(queue)
        feats = np.flatnonzero(avail)
        if feats.size == 0:
            continue
        ctr = codes[tr][:, feats].astype(np.int64) + offsets[:, : feats.size]
        T_tr = np.bincount(ctr.ravel(), minlength=4 * feats.size).reshape(feats.size, 4)
        L_tr = np.bincount(ctr.ravel(), weights=np.repeat(s[tr], feats.size).astype(float),
                           minlength=4 * feats.size).reshape(feats.size, 4)
        # a feature is useless when no child can hold enough labeled rows to beat c_best (train counts scaled to
        # the size of the estimate part: the tree is induced from the train fold only)
        useless = L_tr.max(axis=1) * scale < min_labeled
        score = np.where(T_tr > 0, L_tr / (T_tr + k_bepp), 0.0).max(axis=1)  # max-bepp criterion
        score = np.where(useless, -1.0, score)
        b = int(np.argmax(score))
        if score[b] <= 0:
            continue
        f = feats[b]
        es_codes = codes[es, f]
        tr_codes = codes[tr, f]
        if np.unique(es_codes).size < 2:  # fake split: all estimate rows fall in one interval
            continue
        new_avail = avail.copy()
        new_avail[feats[useless]] = False
        new_avail[f] = False
        children = []
        for v in range(4):
            es_child = es[es_codes == v]
            tr_child = tr[tr_codes == v]
            if es_child.size:
                bound = float(tice_lower_bound(float(s[es_child].sum()), es_child.size, c_prior, delta, min_size))
                c_best = max(c_best, bound)
                if es_child.size >= min_size:
                    remember(bound, es_child)
            children.append((tr_child, es_child))
        min_labeled = c_prior * (1 - c_prior) * (1 - delta) / (delta * (1 - c_best) ** 2) if c_best < 1 else np.inf
        for tr_child, es_child in children:
            L_tr_child = float(s[tr_child].sum())
            if L_tr_child * scale <= min_labeled or tr_child.size <= min_size:
                continue
            if L_tr_child == 0 or L_tr_child == tr_child.size:  # pure: nothing left to find
                continue
            heapq.heappush(queue, (-train_bound(tr_child), -L_tr_child, tie, tr_child, es_child, new_avail))
            tie += 1
    return c_best, n_splits, sorted(top, reverse=True)


def tice_label_frequency(X, s, n_folds=5, n_iterations=2, max_splits=500, min_size=10, max_bepp=5, delta=None,
                         random_state=None, keep_top=32):
    """TIcE estimate of the label frequency c (Bekker & Davis 2018) on validated ``X``, ``s``.

    Returns ``(c, info)`` where ``info`` holds per-iteration fold estimates, the confidence ``delta`` used, the
    number of splits per fold, and the best subsets of the last iteration (for the bootstrap).
    """
    X, s = check_X_s(X, s)
    rng = np.random.default_rng(_seed_from(random_state))
    codes = _quartile_codes(X)
    folds = _stratified_folds(_duplicate_groups(X), s, n_folds, rng)
    c_est = 0.5
    its = []
    splits = []
    subsets = []
    deltas = []
    for _ in range(n_iterations):
        cs, sp_it, sub_it, d_it = [], [], [], []
        for f in range(n_folds):
            tr = np.flatnonzero(folds == f)
            es = np.flatnonzero(folds != f)
            dl = float(delta) if delta is not None else _pick_delta(es.size)
            c_f, n_sp, top = _tice_fold(codes, s, tr, es, c_est, dl, max_splits, min_size, max_bepp, keep_top)
            cs.append(float(c_f))
            sp_it.append(int(n_sp))
            sub_it.append((es, [t[2] for t in top]))
            d_it.append(dl)
        # the bound of the whole estimate set uses delta = 1, so c >= L/T always holds for the fold estimate
        c_new = float(np.mean(cs))
        its.append(cs)
        splits.append(sp_it)
        subsets = sub_it
        deltas = d_it
        c_prior_last = c_est
        c_est = min(max(c_new, 1e-12), 1.0)
    info = {"fold_estimates": its, "n_splits": splits, "deltas": deltas, "c_prior_last": c_prior_last,
            "subsets": subsets}
    return c_est, info


@partial(jax.jit, static_argnames=("n_folds", "n_bootstrap", "batch_size"))
def _tice_boot_jit(key, M, is_root, fold_of, deltas, s, n, c_prior, min_size, n_folds, n_bootstrap, batch_size):
    size = s.shape[0]
    dt = M.dtype

    def one(k):
        idx = _randindex(k, size, n)
        ones = (jnp.arange(size) < n).astype(dt)
        w = jax.ops.segment_sum(ones, idx, num_segments=size)
        T = M @ w
        L = M @ (w * s)
        d = jnp.where(is_root, 1.0, deltas)
        safe_T = jnp.where(T > 0, T, 1.0)
        bound = L / safe_T - jnp.sqrt(c_prior * (1.0 - c_prior) * (1.0 - d) / (d * safe_T))
        bound = jnp.where(T < min_size, 0.0, bound)
        per_fold = jax.ops.segment_max(bound, fold_of, num_segments=n_folds)  # padding rows have id n_folds
        c = jnp.clip(jnp.mean(per_fold), 1e-12, 1.0)
        n_l = jnp.sum(w * s)
        return _c_to_prior(c, n_l, jnp.sum(w) - n_l)

    return jax.lax.map(one, jax.random.split(key, n_bootstrap), batch_size=batch_size)


def _tice_bootstrap(key, info, s, n_bootstrap, min_size):
    """Bootstrap of the TIcE estimate: rows resampled, bound re-evaluated on the root and best subsets per fold."""
    n = s.shape[0]
    n_folds = len(info["subsets"])
    rows, is_root, fold_of, deltas = [], [], [], []
    for f, (es, tops) in enumerate(info["subsets"]):
        for j, r in enumerate([es] + list(tops)):
            rows.append(r)
            is_root.append(j == 0)
            fold_of.append(f)
            deltas.append(info["deltas"][f])
    n_rows, n_cols = _bucket(len(rows)), _bucket(n)
    M = np.zeros((n_rows, n_cols), dtype=np.float32)
    for i, r in enumerate(rows):
        M[i, r] = 1.0
    pad = n_rows - len(rows)
    dt = jnp.result_type(float)
    return _tice_boot_jit(
        key, jnp.asarray(M, dt), jnp.asarray(is_root + [False] * pad), jnp.asarray(fold_of + [n_folds] * pad,
                                                                                  jnp.int32),
        jnp.asarray(deltas + [1.0] * pad, dt), _pad(jnp.asarray(s, dt), n_cols, 0.0), n,
        jnp.asarray(info["c_prior_last"], dt), float(min_size), n_folds, n_bootstrap,
        _batch_size(n_bootstrap, n_rows + n_cols))


# ----------------------------------------------------------------------------------------------------------------
# Cross-fitted P-vs-U scores
# ----------------------------------------------------------------------------------------------------------------
def _seed_from(random_state):
    key = as_key(random_state)  # validates (TypeError / ValueError naming random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        return int(random_state)
    return int(jax.random.randint(key, (), 0, 2**31 - 1))


def _duplicate_groups(X):
    """Group id per row; exact duplicate rows share an id."""
    Xc = np.ascontiguousarray(X)
    view = Xc.view(np.dtype((np.void, Xc.dtype.itemsize * Xc.shape[1]))).ravel()
    _, inverse = np.unique(view, return_inverse=True)
    return inverse.ravel()


def _stratified_folds(groups, s, n_folds, rng):
    """Fold id per row: groups (exact duplicates) kept together, labeled/unlabeled groups spread evenly."""
    n_groups = int(groups.max()) + 1
    has_lab = np.zeros(n_groups, bool)
    has_lab[groups[s == 1]] = True
    fold_of_group = np.empty(n_groups, np.int64)
    offset = 0
    for mask in (has_lab, ~has_lab):
        ids = np.flatnonzero(mask)
        ids = ids[rng.permutation(ids.size)]
        fold_of_group[ids] = (np.arange(ids.size) + offset) % n_folds
        offset = (offset + ids.size) % n_folds
    return fold_of_group[groups]


_PCA_ABOVE = 256  # the default classifier projects wider data on 50 principal components first


_EARLY_STOPPING_MIN_CLASS = 20  # early stopping holds out 15 % stratified: each class needs a few rows there


def _default_classifier(seed, n_features, min_class_count=_EARLY_STOPPING_MIN_CLASS):
    """HistGradientBoosting (early stopping when each class of the training fold has at least 20 rows); for more
    than 256 features (images) after a randomized PCA(50)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    early = min_class_count >= _EARLY_STOPPING_MIN_CLASS
    hgb = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=20,
                                         l2_regularization=1.0, early_stopping=early, validation_fraction=0.15,
                                         n_iter_no_change=10, random_state=seed)
    if n_features <= _PCA_ABOVE:
        return hgb
    from sklearn.decomposition import PCA
    from sklearn.pipeline import make_pipeline

    return make_pipeline(PCA(n_components=50, svd_solver="randomized", random_state=seed), hgb)


def _score(model, X, need_proba):
    if hasattr(model, "predict_proba"):
        return np.asarray(model.predict_proba(X))[:, list(model.classes_).index(1)]
    if need_proba:
        raise TypeError(
            f"classifier {type(model).__name__} has no predict_proba; method='elkan_noto' needs probabilities "
            f"P(s=1|x): pass a probabilistic classifier (e.g. wrap it in sklearn.calibration.CalibratedClassifierCV)."
        )
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X)).ravel()
    raise TypeError(f"classifier {type(model).__name__} has neither predict_proba nor decision_function.")


def _cross_fit_scores(X, s, classifier, n_folds, seed, need_proba, n_jobs=1):
    from sklearn.base import clone
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(seed)
    folds = _stratified_folds(_duplicate_groups(X), s, n_folds, rng)
    for f in range(n_folds):
        tr, te = folds != f, folds == f
        if s[tr].min() == s[tr].max() or s[te].sum() == 0 or (1 - s[te]).sum() == 0:
            raise ValueError(
                f"cannot build {n_folds} folds with both labeled and unlabeled rows in each (n_labeled="
                f"{int(s.sum())}, n_unlabeled={int((1 - s).sum())}); pass fewer n_folds or more labeled rows."
            )
    scores = np.empty(X.shape[0], dtype=np.float64)
    for f in range(n_folds):
        tr, te = folds != f, folds == f
        n_train_labeled = int(s[tr].sum())
        model = (_default_classifier(seed, X.shape[1], min(n_train_labeled, int(tr.sum()) - n_train_labeled))
                 if classifier is None else clone(classifier))
        with threadpool_limits(limits=n_jobs):
            model.fit(X[tr], s[tr])
            scores[te] = _score(model, X[te], need_proba)
    if not np.all(np.isfinite(scores)):
        raise ValueError("the classifier returned NaN or infinite scores; check the classifier.")
    return scores, folds


def _auc(scores_p, scores_u):
    """Rank-based ROC AUC of P vs U scores (ties count one half)."""
    allv = np.concatenate([scores_p, scores_u])
    order = np.argsort(allv, kind="mergesort")
    ranks = np.empty(allv.size)
    sorted_v = allv[order]
    # average ranks over ties
    _, start, counts = np.unique(sorted_v, return_index=True, return_counts=True)
    avg = start + (counts - 1) / 2.0 + 1.0
    ranks[order] = np.repeat(avg, counts)
    n_p, n_u = scores_p.size, scores_u.size
    return float((ranks[:n_p].sum() - n_p * (n_p + 1) / 2.0) / (n_p * n_u))


# ----------------------------------------------------------------------------------------------------------------
# Public entry point
# ----------------------------------------------------------------------------------------------------------------
def _check_open_unit(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a float in (0, 1); got {value!r} ({type(value).__name__}).")
    v = float(value)
    if not (np.isfinite(v) and 0.0 < v < 1.0):
        raise ValueError(f"{name}={value!r} must be in (0, 1).")
    return v


def _check_nonneg(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a float >= 0; got {value!r} ({type(value).__name__}).")
    v = float(value)
    if not (np.isfinite(v) and v >= 0.0):
        raise ValueError(f"{name}={value!r} must be a finite float >= 0.")
    return v


def estimate_prior(X, s, method="bbe", classifier=None, random_state=None, *, n_folds=None, n_bootstrap=200,
                   confidence=0.95, interval="bootstrap", delta=0.1, gamma=0.01, variant="e1", max_splits=500,
                   min_size=10, max_bepp=5, n_iterations=2, tice_delta=None, n_jobs=1):
    """Estimate the case-control class prior of the unlabeled rows of ``(X, s)``.

    Returns the positive fraction of the population the ``s == 0`` rows are drawn from — exactly the ``prior`` a
    pujax estimator fitted on the same ``(X, s)`` needs. For case-control data (``X = concat(X_P, X_U)``,
    U from the population) this is the population prior pi = P(y=1); for censoring data (each positive of one
    sample labeled with probability c) it is pi (1 - c) / (1 - pi c), eq. (C4) — see the module docstring and
    :func:`case_control_to_censoring` to recover pi.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
    s : array-like (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled; bool and {-1, +1} accepted).
    method : {"bbe", "tice", "elkan_noto"}
        Best Bin Estimation (Garg et al. 2021, Alg. 1; default), TIcE (Bekker & Davis 2018) or Elkan & Noto (2008).
    classifier : scikit-learn classifier or None
        P-vs-U classifier for "bbe" and "elkan_noto" (cloned and fitted per fold; "elkan_noto" needs
        ``predict_proba``, "bbe" also accepts ``decision_function``). Default: ``HistGradientBoostingClassifier``
        with early stopping (after a randomized PCA to 50 components when X has more than 256 columns, which
        keeps image data fast). Not used by "tice".
    random_state : None, int, numpy RandomState / Generator or JAX key
        Seeds the folds, the default classifier and the bootstrap.
    n_folds : int or None
        Cross-fitting folds for held-out scores (default 2) or TIcE folds (default 5).
    n_bootstrap : int
        Bootstrap resamples for ``interval="bootstrap"`` (vmap-ed in JAX).
    confidence : float in (0, 1)
        Level of the interval.
    interval : {"bootstrap", "dkw"}
        ``"dkw"`` (BBE only): the DKW bounds at level 1 - delta described in the module docstring.
    delta, gamma : float
        BBE confidence parameter and slack (paper: 0.1, 0.01).
    variant : {"e1", "e2", "e3"}
        Elkan–Noto estimator reported as ``prior`` (all three are in ``diagnostics``).
    max_splits, min_size, max_bepp, n_iterations, tice_delta
        TIcE: maximum splits per tree (500), minimum subset size (10), k of the max-bepp criterion (5),
        refinement iterations (2), fixed delta (None: max(0.025, 1/(1 + 0.004 n))).
    n_jobs : int or None
        Threads (OpenMP / BLAS) the classifier may use while it is fitted and scores (a ``threadpoolctl`` limit).
        Default 1: these fits are small, and multi-threaded OpenMP can be very slow on a busy, shared CPU.
        ``None`` or -1: no limit.

    Returns
    -------
    PriorEstimate
    """
    t0 = time.perf_counter()
    X, s = check_X_s(X, s)
    check_in(method, "method", METHODS)
    check_in(interval, "interval", ("bootstrap", "dkw"))
    if interval == "dkw" and method != "bbe":
        raise ValueError(f'interval="dkw" is only defined for method="bbe"; use interval="bootstrap" for {method!r}.')
    n_bootstrap = check_int(n_bootstrap, "n_bootstrap", low=2)
    confidence = _check_open_unit(confidence, "confidence")
    delta = _check_open_unit(delta, "delta")
    gamma = _check_nonneg(gamma, "gamma")
    check_in(variant, "variant", ("e1", "e2", "e3"))
    if n_folds is None:
        n_folds = 5 if method == "tice" else 2
    n_folds = check_int(n_folds, "n_folds", low=2)
    if classifier is not None and not hasattr(classifier, "fit"):
        raise TypeError(f"classifier must be a scikit-learn classifier with fit(); got {type(classifier).__name__}.")
    if method == "tice":
        max_splits = check_int(max_splits, "max_splits")
        min_size = check_int(min_size, "min_size")
        max_bepp = check_int(max_bepp, "max_bepp", low=0)
        n_iterations = check_int(n_iterations, "n_iterations")
        if tice_delta is not None:
            tice_delta = _check_open_unit(tice_delta, "tice_delta")
    if n_jobs is not None:
        n_jobs = None if n_jobs == -1 else check_int(n_jobs, "n_jobs")
    n_l = int(s.sum())
    n_u = int(s.shape[0] - n_l)
    if n_l < n_folds or n_u < n_folds:
        raise ValueError(
            f"estimate_prior needs at least n_folds={n_folds} labeled and unlabeled rows; got n_labeled={n_l}, "
            f"n_unlabeled={n_u}."
        )
    seed = _seed_from(random_state)
    key = jax.random.PRNGKey(seed)
    lo_q, hi_q = (1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0
    diag = {"n_labeled": n_l, "n_unlabeled": n_u, "n_folds": n_folds, "confidence": confidence,
            "interval": interval, "seed": seed}

    if method in ("bbe", "elkan_noto"):
        t_fit = time.perf_counter()
        scores, _ = _cross_fit_scores(X, s, classifier, n_folds, seed, need_proba=(method == "elkan_noto"),
                                      n_jobs=n_jobs)
        if classifier is None:
            diag["classifier"] = "HistGradientBoostingClassifier (default" + (
                ", after PCA(50))" if X.shape[1] > _PCA_ABOVE else ")")
        else:
            diag["classifier"] = type(classifier).__name__
        diag["classifier_time_s"] = time.perf_counter() - t_fit
        sp, su = scores[s == 1], scores[s == 0]
        diag["pu_auc"] = _auc(sp, su)
        if method == "bbe":
            out = bbe_estimate(sp, su, delta=delta, gamma=gamma)
            raw = float(out["prior"])
            diag.update(delta=delta, gamma=gamma, threshold=float(out["threshold"]), top_bin_q_p=float(out["q_p"]),
                        top_bin_q_u=float(out["q_u"]), dkw_upper=float(out["dkw_upper"]),
                        dkw_lower_pure_top_bin=float(out["dkw_lower"]))
            if interval == "dkw":
                ci = (float(out["dkw_lower"]), float(out["dkw_upper"]))
            else:
                boot = np.asarray(bbe_bootstrap(key, sp, su, n_bootstrap, delta=delta, gamma=gamma))
        else:
            cs, priors = elkan_noto_estimates(scores, s)
            cs, priors = np.asarray(cs), np.asarray(priors)
            j = ("e1", "e2", "e3").index(variant)
            raw = float(priors[j])
            diag.update(variant=variant, e1=float(cs[0]), e2=float(cs[1]), e3=float(cs[2]),
                        prior_e1=float(priors[0]), prior_e2=float(priors[1]), prior_e3=float(priors[2]))
            boot = np.asarray(elkan_noto_bootstrap(key, scores, s, n_bootstrap))[:, j]
    else:
        c_hat, info = tice_label_frequency(X, s, n_folds=n_folds, n_iterations=n_iterations, max_splits=max_splits,
                                           min_size=min_size, max_bepp=max_bepp, delta=tice_delta,
                                           random_state=seed)
        raw = float(np.clip(prior_from_label_frequency(c_hat, n_l, n_u), 0.0, 1.0))
        diag.update(c_lower_bound=float(c_hat), fold_estimates=info["fold_estimates"], n_splits=info["n_splits"],
                    deltas=info["deltas"], max_bepp=max_bepp, min_size=min_size)
        boot = np.asarray(_tice_bootstrap(key, info, s, n_bootstrap, min_size))

    if interval == "bootstrap":
        boot = np.clip(boot[np.isfinite(boot)], 0.0, 1.0)
        ci = (float(np.quantile(boot, lo_q)), float(np.quantile(boot, hi_q)))
        diag["bootstrap_std"] = float(np.std(boot))
        diag["n_bootstrap"] = n_bootstrap
    prior = float(np.clip(raw, _PRIOR_EPS, 1.0 - _PRIOR_EPS))
    diag["raw_prior"] = raw
    diag["clipped"] = bool(prior != raw)
    lo, hi = min(ci[0], prior), max(ci[1], prior)
    diag["time_s"] = time.perf_counter() - t0
    return PriorEstimate(prior=prior, label_frequency=float(label_frequency_from_prior(prior, n_l, n_u)),
                         interval=(float(np.clip(lo, 0, 1)), float(np.clip(hi, 0, 1))), method=method,
                         diagnostics=diag)
