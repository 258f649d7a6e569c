"""Tests of the KM1/KM2 (Ramaswamy et al. 2016) and DEDPUL (Ivanov 2020) prior estimators.

References are independent: a numpy/scipy re-derivation of KM on a tiny case (Gram matrix with the median-width
search, the simplex QP solved by scipy's NNLS, the authors' bisection), a numpy/scipy re-derivation of the DEDPUL
pipeline (scipy's gaussian_kde, pandas-free rolling medians, the authors' fixed-point and grid rules), and
synthetic SCAR Gaussian mixtures and a real set with a known prior.
"""
import numpy as np
import pytest
from scipy.optimize import nnls

from pujax.prior import estimate_prior
from pujax.prior.km import _distances, km_estimate


# ----------------------------------------------------------------------------------------------------------------
# KM: numpy / scipy re-derivation
# ----------------------------------------------------------------------------------------------------------------
def _np_kernel(mix, comp):
    Z = np.vstack([mix, comp]).astype(np.float64)
    sd = Z.std(0)
    Z = (Z - Z.mean(0)) / np.where(sd > 0, sd, 1.0)
    D2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    N, M = len(mix), len(comp)
    diff = np.r_[np.full(N, 1 / N), np.full(M, -1 / M)]
    best = None
    for w in np.logspace(-1, 1, 5) * np.sqrt(np.median(D2)):
        K = np.exp(-D2 / (2 * w * w))
        dist = np.sqrt(diff @ K @ diff)
        if best is None or dist > best[2]:
            best = (K, w, dist)
    return best


def _np_distance(K, u, rho=1e7):
    """min over the simplex of sqrt((u - v)' K (u - v)) by scipy's active-set NNLS, the sum-to-one constraint as a
    heavily weighted extra row (K = R'R from its eigendecomposition)."""
    lam, Q = np.linalg.eigh(K)
    R = np.sqrt(np.clip(lam, 0, None))[:, None] * Q.T
    A = np.vstack([R, np.sqrt(rho) * np.ones((1, len(u)))])
    v, _ = nnls(A, np.r_[R @ u, np.sqrt(rho)], maxiter=50 * len(u))
    r = u - v / v.sum()
    return np.sqrt(max(r @ K @ r, 0.0))


def _np_km(mix, comp):
    K, w, dist = _np_kernel(mix, comp)
    N, M = len(mix), len(comp)

    def d(lam):
        return _np_distance(K, np.r_[np.full(N, lam / N), np.full(M, (1 - lam) / M)])

    def bisect(thr, eps=0.04):
        lo, hi = 1.0, 8.0
        while hi - lo > eps:
            mid = (lo + hi) / 2
            if (d(mid + eps / 2) - d(mid)) * 2 / eps > thr:
                hi = mid
            else:
                lo = mid
        lam = (lo + hi) / 2
        return (lam - 1) / lam

    thr2 = 0.8 * (d(1.05) - d(1.0)) / 0.05 + 0.2 * dist
    return bisect(1 / np.sqrt(min(N, M))), bisect(thr2), w, K


@pytest.fixture(scope="module")
def tiny_km():
    rng = np.random.default_rng(0)
    comp = rng.normal(size=(24, 2)) + [2.5, 0.0]
    y = rng.random(24) < 0.5
    mix = rng.normal(size=(24, 2)) + np.where(y[:, None], [2.5, 0.0], [0.0, 0.0])
    return mix, comp


def test_km_distances_match_scipy_qp(tiny_km):
    mix, comp = tiny_km
    _, _, _, K = _np_km_kernel_only(mix, comp)
    N = M = 24
    lams = np.array([1.0, 1.5, 2.5, 4.0])
    U = np.stack([np.r_[np.full(N, lam / N), np.full(M, (1 - lam) / M)] for lam in lams], axis=1)
    L = np.linalg.eigvalsh((np.eye(48) - 1 / 48) @ K @ (np.eye(48) - 1 / 48))[-1]
    ours = np.asarray(_distances(K.astype(np.float32), U.astype(np.float32), np.ones(48, bool),
                                 np.float32(1 / (2 * L)), 3000))
    ref = np.array([_np_distance(K, U[:, j]) for j in range(len(lams))])
    np.testing.assert_allclose(ours, ref, atol=2e-4)
    assert ref[0] < 1e-6 and np.all(np.diff(ref) > 0)


def _np_km_kernel_only(mix, comp):
    K, w, dist = _np_kernel(mix, comp)
    return w, dist, None, K


def test_km_matches_numpy_scipy_reference(tiny_km):
    mix, comp = tiny_km
    km1_ref, km2_ref, w_ref, _ = _np_km(mix, comp)
    out = km_estimate(mix, comp, n_iter=3000, n_grid=1)  # n_grid=1: the authors' bisection
    assert out["kernel_width"] == pytest.approx(w_ref, rel=1e-4)
    assert out["km1"] == pytest.approx(km1_ref, abs=0.01)
    assert out["km2"] == pytest.approx(km2_ref, abs=0.01)
    # the batched search (3 values per round) brackets the same lambda to within the bisection's resolution
    out3 = km_estimate(mix, comp, n_iter=3000, n_grid=3)
    assert out3["km1"] == pytest.approx(km1_ref, abs=0.02)


# ----------------------------------------------------------------------------------------------------------------
# DEDPUL: numpy / scipy re-derivation
# ----------------------------------------------------------------------------------------------------------------
def _np_rolling_median(x, k):
    n = len(x)
    return np.array([np.median(x[i - h:i + h + 1]) for i in range(n) for h in [min(k, i, n - 1 - i)]])


def _np_dedpul(g_p, g_u):
    from scipy.stats import gaussian_kde

    y_p, y_u = 1 - g_p, 1 - g_u

    def logit(y):
        return np.log((y + 1e-7) / (1 - y + 1e-5))

    kde_u, kde_p = gaussian_kde(logit(y_u), 0.05), gaussian_kde(logit(y_p), 0.1)
    y = np.sort(y_u)
    jac = y * (1 - y) + 1e-5
    r = np.minimum((kde_p(logit(y)) / jac) / (kde_u(logit(y)) / jac + 1e-5), 50)
    r = _np_rolling_median(r, 5)
    low = y <= y_u.mean() / 2 + y_p.mean() / 2
    r = np.r_[np.flip(np.maximum.accumulate(np.flip(r[low]))), r[~low]]
    r = np.sort(_np_rolling_median(r, len(y) // 20))

    def mean_post(a):
        return np.maximum(1 - r * (1 - a), 0).mean()

    a_conv = 0.0
    for _ in range(1000):
        m = mean_post(a_conv)
        if abs(m - a_conv) < 1e-5 or np.min(1 - r * (1 - a_conv)) > 0:
            break
        a_conv = m
    grid = np.arange(0, 1, 0.001)
    errors = np.array([mean_post(a) for a in grid]) - grid
    ok = errors[1:-1] < 0.05
    a_non = grid[1:-1][ok][np.argmax(np.diff(np.diff(errors))[ok])]
    a = a_conv if (a_non >= a_conv or ((errors < 0).sum() > 1 and a_conv < 1 - 0.001)) else a_non
    return 1 - a, 1 - a_conv, 1 - a_non


@pytest.mark.parametrize("pi", [0.3, 0.7])
def test_dedpul_matches_numpy_scipy_reference(pi):
    from pujax.prior.dedpul import dedpul_estimate

    rng = np.random.default_rng(1)
    n_p, n_u = 400, 1200
    yu = rng.random(n_u) < pi
    z = np.r_[rng.normal(1.0, 1.0, n_p), np.where(yu, rng.normal(1.0, 1.0, n_u), rng.normal(-1.0, 1.0, n_u))]
    g = 1 / (1 + np.exp(-z))
    ref, ref_conv, ref_non = _np_dedpul(g[:n_p], g[n_p:])
    out = dedpul_estimate(g[:n_p], g[n_p:])  # every unlabeled row is an evaluation point (n_u <= max_samples)
    assert out["prior_converge"] == pytest.approx(ref_conv, abs=0.01)
    assert out["prior_nonconverge"] == pytest.approx(ref_non, abs=0.01)
    assert out["prior"] == pytest.approx(ref, abs=0.01)


# ----------------------------------------------------------------------------------------------------------------
# Known priors: SCAR Gaussian mixtures (both scenarios) and a real set (spambase, case-control)
# ----------------------------------------------------------------------------------------------------------------
def _gauss(rng, n, pi, d=4, sep=4.0):
    y = (rng.random(n) < pi).astype(int)
    X = rng.normal(size=(n, d))
    X[:, 0] += sep * y
    return X, y


def _case_control(seed, pi, n_l=500, n_u=2000):
    rng = np.random.default_rng(seed)
    Xp, _ = _gauss(rng, n_l, 1.0)
    Xu, yu = _gauss(rng, n_u, pi)
    return np.vstack([Xp, Xu]), np.r_[np.ones(n_l), np.zeros(n_u)].astype(int), float(yu.mean())


def _censoring(seed, pi, n=2500, c=0.5):
    rng = np.random.default_rng(seed)
    X, y = _gauss(rng, n, pi)
    s = ((y == 1) & (rng.random(n) < c)).astype(int)
    return X, s, float(y[s == 0].mean())


_FAST = {"km1": dict(max_samples=150, n_bootstrap=2), "dedpul": dict(n_bootstrap=10)}


@pytest.mark.slow  # minutes of KM/DEDPUL compilation and bootstraps: run with -m slow
@pytest.mark.parametrize("method, make", [("km1", _case_control), ("km1", _censoring), ("dedpul", _censoring)])
def test_new_methods_recover_known_prior_on_gaussians(make, method):
    """KM1 (and KM2, computed alongside, in the diagnostics) and DEDPUL within 0.05 of the positive fraction of U."""
    from sklearn.linear_model import LogisticRegression

    X, s, truth = make(1, 0.5)
    est = estimate_prior(X, s, method=method, classifier=LogisticRegression(), random_state=0, **_FAST[method])
    assert est.method == method
    assert abs(est.prior - truth) <= 0.05, (est, truth)  # measured: <= 0.02 (km), <= 0.03 (dedpul)
    if method == "km1":
        assert abs(est.diagnostics["km2"] - truth) <= 0.05, (est.diagnostics, truth)
    lo, hi = est.interval
    assert 0.0 <= lo <= est.prior <= hi <= 1.0
    assert est.diagnostics["n_bootstrap"] == _FAST[method]["n_bootstrap"]


@pytest.fixture(scope="module")
def spambase_pu():
    datasets = pytest.importorskip("pujax.datasets")
    from pujax.data import make_case_control

    try:
        X, y = datasets.load("spambase")
    except Exception as exc:  # noqa: BLE001 -- data folder not available
        pytest.skip(f"spambase not available: {exc}")
    idx = np.random.default_rng(0).permutation(len(y))[:2000]
    X, s, prior = make_case_control(0, X[idx], y[idx], 400)[:3]
    return X, s, float(prior)


@pytest.mark.slow  # minutes of KM/DEDPUL compilation and bootstraps: run with -m slow
@pytest.mark.parametrize("method", ["km2", "dedpul"])
def test_new_methods_on_spambase(spambase_pu, method):
    """2,000 random spambase rows as U (true prior 0.395), 400 of their positives labeled: KM1, KM2 and DEDPUL
    within 0.06 (measured: 0.014, 0.036, 0.042)."""
    X, s, truth = spambase_pu
    kw = dict(max_samples=200, n_bootstrap=2) if method == "km2" else _FAST[method]
    est = estimate_prior(X, s, method=method, random_state=0, **kw)
    assert abs(est.prior - truth) <= 0.06, (est, truth)
    if method == "km2":
        assert abs(est.diagnostics["km1"] - truth) <= 0.06, (est.diagnostics, truth)
    assert est.interval[0] <= est.prior <= est.interval[1]


def test_new_methods_options_are_validated():
    X, s, _ = _case_control(2, 0.5, n_l=50, n_u=200)
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'n_folds'.*options of 'km1' are"):
        estimate_prior(X, s, method="km1", n_folds=3)
    with pytest.raises(ValueError, match="max_samples"):
        estimate_prior(X, s, method="km2", max_samples=1)
    with pytest.raises(ValueError, match="bw_mix"):
        estimate_prior(X, s, method="dedpul", bw_mix=0.0)
