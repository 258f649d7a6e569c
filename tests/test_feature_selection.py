"""Tests of pujax.feature_selection (FSCPU, Uchikoshi & Akimoto 2025) against independent references.

Few jit compilations on purpose: every search test uses the same tiny problem and search settings.
"""
import itertools
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import mutual_info_score
from sklearn.mixture import GaussianMixture

from pujax.feature_selection import (
    FSCPU,
    TABLE1_CONDITIONS,
    compact_columns,
    feature_selection_recall,
    gmm_em,
    gmm_fit_predict,
    make_fscpu_synthetic,
    masked_gmm_labels,
    objective_from_labels,
    pairwise_mi,
    prefix_objective,
    rank_weights,
    repair,
    semi_jmi_score,
    semi_jmi_select,
)
from pujax.feature_selection.gmm import _first_argmin_rows, gmm_m_step, kmeans, kmeans_plusplus
from pujax.feature_selection.igo import (
    SearchConfig,
    cache_init,
    cache_insert,
    cache_lookup,
    igo_init,
    igo_run,
    mask_key,
    pack_mask,
)
from pujax.feature_selection.selector import _devices_for, minmax_scale

# ---------------------------------------------------------------------------------------------- objective (eq. 5)


def _brute_force(a, c):
    n_lab = a.sum()
    best = 0.0
    K = len(a)
    for r in range(1, K + 1):
        for sub in itertools.combinations(range(K), r):
            A, C = a[list(sub)].sum(), c[list(sub)].sum()
            if C > 0 and n_lab > 0:
                best = max(best, A * A / (n_lab * C))
    return best


def test_prefix_objective_equals_brute_force_over_all_subsets():
    rng = np.random.default_rng(0)
    K = 6
    cases = []
    for i in range(300):
        c = rng.integers(0, 12, K).astype(float)
        if i % 3 == 0:  # many ties of the labeled ratio
            c = rng.choice([2.0, 4.0], K)
            a = c * rng.choice([0.0, 0.5, 1.0], K)
        else:
            a = np.floor(c * rng.random(K))
        cases.append((a, c))
    a = jnp.asarray(np.stack([x[0] for x in cases]))
    c = jnp.asarray(np.stack([x[1] for x in cases]))
    got = np.asarray(jax.jit(jax.vmap(prefix_objective))(a, c))
    want = np.array([_brute_force(x, y) for x, y in cases])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_objective_from_labels_matches_counts():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 4, 50)
    s = (rng.random(50) < 0.3).astype(int)
    a = np.array([s[labels == k].sum() for k in range(5)], float)
    c = np.array([(labels == k).sum() for k in range(5)], float)
    got = float(objective_from_labels(jnp.asarray(labels), jnp.asarray(s), 5))
    assert got == pytest.approx(_brute_force(a, c), rel=1e-5)
    # perfect clustering of the labeled rows gives recall = precision = 1
    assert float(objective_from_labels(jnp.asarray(s), jnp.asarray(s), 2)) == pytest.approx(1.0)


# ---------------------------------------------------------------------------------------------- REPAIR (Alg. 3)

# one compiled batch function per cost path, shared by every REPAIR test (same shapes: N x D_R)
_repair_batch = jax.jit(jax.vmap(repair, in_axes=(0, 0, 0, None, None, None)), static_argnums=5)
N_R, D_R = 4000, 6


def _run_repair(m, theta, costs, budget, unit, seed=0):
    keys = jax.random.split(jax.random.PRNGKey(seed), N_R)
    m = np.broadcast_to(np.asarray(m, np.float32), (N_R, D_R))
    theta = np.broadcast_to(np.asarray(theta, np.float32), (N_R, D_R))
    return np.asarray(_repair_batch(keys, jnp.asarray(m), jnp.asarray(theta), jnp.asarray(costs, jnp.float32),
                                    jnp.asarray(budget, jnp.float32), unit))


def test_repair_meets_budget_and_fills_it_unit_costs():
    rng = np.random.default_rng(2)
    budget = 3
    m = (rng.random((N_R, D_R)) < rng.random((N_R, 1))).astype(np.float32)
    theta = rng.uniform(0.05, 0.95, (N_R, D_R))
    out = _run_repair(m, theta, np.ones(D_R), budget, True)
    assert np.all(out.sum(1) == budget)  # meets the budget and fills it
    over, under = m.sum(1) > budget, m.sum(1) < budget
    assert over.any() and under.any()
    assert np.all(out[over] <= m[over])  # only drops
    assert np.all(out[under] >= m[under])  # only adds
    eq = ~(over | under)
    np.testing.assert_array_equal(out[eq], m[eq])


def test_repair_general_costs_feasible_and_maximal():
    rng = np.random.default_rng(3)
    costs = rng.uniform(0.5, 3.0, D_R).astype(np.float32)
    budget = 4.3
    m = (rng.random((N_R, D_R)) < 0.5).astype(np.float32)
    theta = rng.uniform(0.05, 0.95, (N_R, D_R))
    out = _run_repair(m, theta, costs, budget, False)
    spent = out @ costs
    assert np.all(spent <= budget + 1e-5)
    remaining = budget - spent
    cheapest_free = np.where(out == 0, costs[None, :], np.inf).min(1)
    assert np.all(cheapest_free > remaining + 1e-6)  # nothing else fits: the budget is filled when possible


def test_repair_draws_follow_algorithm_3_probabilities():
    theta = np.array([0.1, 0.3, 0.5, 0.7, 0.9, 0.6])
    # drop one bit of an all-ones mask: P(l) prop. to 1 - theta_l
    freq = 1.0 - _run_repair(np.ones(D_R), theta, np.ones(D_R), D_R - 1, True).mean(0)
    np.testing.assert_allclose(freq, (1 - theta) / (1 - theta).sum(), atol=0.025)
    # add one bit to an empty mask: P(l) prop. to theta_l
    add = _run_repair(np.zeros(D_R), theta, np.ones(D_R), 1, True, seed=1)
    np.testing.assert_allclose(add.mean(0), theta / theta.sum(), atol=0.025)
    # general costs (1, 1, 2, 9, 9, 9), budget 2, theta (.5, .3, .2, ...): the first draw is prop. to theta over the
    # features that fit; {0, 1} results w.p. (.5 + .3) / 1.0 and {2} w.p. .2 / 1.0
    th = np.array([0.5, 0.3, 0.2, 0.9, 0.9, 0.9])
    res = _run_repair(np.zeros(D_R), th, [1.0, 1.0, 2.0, 9.0, 9.0, 9.0], 2.0, False, seed=2)
    p01 = np.mean(np.all(res == [1, 1, 0, 0, 0, 0], axis=1))
    p2 = np.mean(np.all(res == [0, 0, 1, 0, 0, 0], axis=1))
    assert p01 + p2 == pytest.approx(1.0)
    assert p2 == pytest.approx(0.2, abs=0.02)


def test_rank_weights_reduce_to_eq11_for_two_candidates():
    np.testing.assert_allclose(rank_weights(jnp.asarray([0.3, 0.1])), [1.0, -1.0])
    np.testing.assert_allclose(rank_weights(jnp.asarray([0.1, 0.3])), [-1.0, 1.0])
    np.testing.assert_allclose(rank_weights(jnp.asarray([0.2, 0.2])), [0.0, 0.0])  # sign(0) = 0
    w = np.asarray(rank_weights(jnp.asarray([0.5, 0.1, 0.9, 0.3, 0.3])))
    np.testing.assert_allclose(w, [0.5, -0.5, 0.5, -0.25, -0.25])  # mu = 2; tie shares 0 and -1/2
    assert w.sum() == pytest.approx(0.0, abs=1e-7)


# ---------------------------------------------------------------------------------------------- masked GMM


def _blobs(n=120, d=6, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 4, (3, d))
    lab = rng.integers(0, 3, n)
    X = centers[lab] + rng.normal(0, 1, (n, d))
    return (X - X.mean(0)).astype(np.float32), lab


@pytest.mark.parametrize("cov", ["full", "tied"])
def test_masked_full_covariance_gmm_equals_gmm_on_selected_columns(cov):
    # unselected rows/columns of the covariances replaced by the identity
    X, lab = _blobs()
    mask = np.array([1, 0, 1, 0, 0, 1], np.float32)
    sel = np.flatnonzero(mask)
    Xc, valid = compact_columns(jnp.asarray(X), jnp.asarray(mask), 4)  # one padding column
    np.testing.assert_array_equal(np.asarray(valid), [1, 1, 1, 0])
    np.testing.assert_array_equal(np.asarray(Xc)[:, :3], X[:, sel])
    resp0 = jax.nn.one_hot(jnp.asarray((lab + np.arange(len(lab))) % 3), 3)  # a poor start, so EM has work
    # tol=0: both run all 10 iterations (a stopping test at tol > 0 may stop one iteration apart on float noise;
    # over many iterations float32 rounding of the two layouts drifts apart)
    pm, lbm, itm, _ = gmm_em(Xc, valid, resp0, cov, max_iter=10, tol=0.0)
    pu, lbu, itu, _ = gmm_em(jnp.asarray(X[:, sel]), jnp.ones(3), resp0, cov, max_iter=10, tol=0.0)
    assert int(itm) == int(itu) == 10
    assert float(lbm) == pytest.approx(float(lbu), rel=1e-5)
    np.testing.assert_allclose(np.asarray(pm[1])[:, :3], np.asarray(pu[1]), atol=1e-4)
    np.testing.assert_allclose(np.asarray(pm[0]), np.asarray(pu[0]), atol=1e-5)
    # (the k-means initialisation on the padded layout is covered by the vmap test below)


@pytest.mark.parametrize("cov", ["full", "tied", "diag", "spherical"])
def test_gmm_em_matches_sklearn_gaussian_mixture(cov):
    X, lab = _blobs(seed=1, d=4)
    resp0 = jax.nn.one_hot(jnp.asarray(np.random.default_rng(0).integers(0, 3, len(X))), 3)
    lw, means, prec = gmm_m_step(jnp.asarray(X), jnp.ones(4), resp0, cov)
    if cov in ("full", "tied"):
        P = np.asarray(prec, np.float64)
        precisions = np.einsum("...ij,...lj->...il", P, P)
    else:
        precisions = np.asarray(prec, np.float64)
    weights = np.exp(np.asarray(lw, np.float64))
    sk = GaussianMixture(3, covariance_type=cov, weights_init=weights / weights.sum(),
                         means_init=np.asarray(means, np.float64), precisions_init=precisions, max_iter=12,
                         tol=0.0).fit(X.astype(np.float64))
    params, lb, n_iter, _ = gmm_em(jnp.asarray(X), jnp.ones(4), resp0, cov, max_iter=12, tol=0.0)
    assert int(n_iter) == sk.n_iter_ == 12
    assert float(lb) == pytest.approx(sk.lower_bound_, rel=1e-4)
    np.testing.assert_allclose(np.exp(np.asarray(params[0])), sk.weights_, atol=1e-4)
    np.testing.assert_allclose(np.asarray(params[1]), sk.means_, atol=1e-3)
    expected = sk.precisions_cholesky_ if cov in ("full", "tied") else sk.precisions_
    np.testing.assert_allclose(np.asarray(params[2]), expected, rtol=1e-3, atol=1e-3)


def test_first_argmin_rows_equals_argmin_with_ties():
    rng = np.random.default_rng(5)
    dist = rng.integers(0, 4, (5, 300)).astype(np.float32)  # many ties: the first minimal index wins
    got = np.asarray(jax.jit(_first_argmin_rows, static_argnums=1)(jnp.asarray(dist), 5))
    np.testing.assert_array_equal(got, np.argmin(dist, axis=0))


def test_kmeans_lloyd_matches_sklearn_kmeans_from_the_same_seeds():
    from sklearn.cluster import KMeans

    X, _ = _blobs(n=150, d=4, seed=3)
    X = X + np.random.default_rng(3).normal(0, 2.5, X.shape).astype(np.float32)  # overlapping: Lloyd has work
    key = jax.random.PRNGKey(7)
    labels, centers, n_iter = jax.jit(kmeans, static_argnums=3)(key, jnp.asarray(X), jnp.ones(4), 4)
    seeds = np.asarray(kmeans_plusplus(key, jnp.asarray(X), 4), np.float64)  # the seeds kmeans starts from
    sk = KMeans(4, init=seeds, n_init=1, max_iter=300, tol=1e-4, algorithm="lloyd").fit(X.astype(np.float64))
    np.testing.assert_array_equal(np.asarray(labels), sk.labels_)
    assert int(n_iter) == sk.n_iter_ and sk.n_iter_ > 2
    np.testing.assert_allclose(np.asarray(centers), sk.cluster_centers_, atol=1e-4)


@pytest.mark.parametrize("cov", ["diag", "tied"])
def test_masked_gmm_vmap_over_masks_and_keys_equals_loop_on_selected_columns(cov):
    X, _ = _blobs(n=80, d=5, seed=2)
    masks = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 1, 0], [1, 0, 1, 0, 1]], np.float32)
    keys = jax.random.split(jax.random.PRNGKey(4), 3)
    kw = dict(n_clusters=3, covariance_type=cov, max_iter=20, kmeans_max_iter=20)
    # width 4 > 3 selected: one padding column per mask
    batched = jax.jit(jax.vmap(lambda k, m: masked_gmm_labels(k, jnp.asarray(X), m, 4, **kw)))(keys, jnp.asarray(masks))
    for i in range(3):
        sel = np.flatnonzero(masks[i])
        one = gmm_fit_predict(keys[i], jnp.asarray(X[:, sel]), jnp.ones(3), **kw)
        np.testing.assert_array_equal(np.asarray(batched[0][i]), np.asarray(one[0]))
        assert float(batched[1][i]) == pytest.approx(float(one[1]), rel=1e-5)
        assert int(batched[2][i]) == int(one[2])


# ---------------------------------------------------------------------------------------------- search + selector

N_ROWS, D_FEAT = 150, 6
SMALL = dict(n_features_to_select=2, n_clusters=3, n_iter=40, max_em_iter=20, kmeans_max_iter=20)


def _pu_problem(seed=0):
    """Features 0 and 1 separate two clusters of positives (30 % labeled) from one of negatives; 2..5 are noise."""
    rng = np.random.default_rng(seed)
    n_pos = 50
    y = np.zeros(N_ROWS, int)
    y[:n_pos] = 1
    rel = np.where(y[:, None] == 1, rng.choice([-3.0, 3.0], (N_ROWS, 1)) + np.array([[0.0, 6.0]]), 0.0)
    rel = rel + rng.normal(0, 0.7, (N_ROWS, 2))
    X = np.concatenate([rel, rng.uniform(-4, 4, (N_ROWS, D_FEAT - 2))], axis=1)
    s = np.zeros(N_ROWS, int)
    s[rng.choice(n_pos, 15, replace=False)] = 1
    return X, s, y


@pytest.fixture(scope="module")
def fitted():
    X, s, _ = _pu_problem()
    return FSCPU(**SMALL, random_state=0).fit(X, s), X, s


def test_fscpu_selects_relevant_features_and_api(fitted):
    sel, X, s = fitted
    assert feature_selection_recall(sel.get_support(), [0, 1]) == 1.0
    assert sel.get_support().sum() == 2 and sel.n_features_to_select_ == 2
    np.testing.assert_array_equal(sel.get_support(indices=True), np.sort(np.argsort(-sel.scores_)[:2]))
    assert sel.transform(X).shape == (N_ROWS, 2)
    np.testing.assert_array_equal(sel.transform(X), X[:, sel.get_support()])
    eps = 1.0 / D_FEAT
    assert np.all(sel.scores_ >= eps - 1e-6) and np.all(sel.scores_ <= 1 - eps + 1e-6)
    assert sel.history_.shape == (SMALL["n_iter"] + 1, D_FEAT)
    np.testing.assert_allclose(sel.history_[0], 2 / D_FEAT)  # theta_0 = C / sum(c)
    np.testing.assert_allclose(sel.history_[-1], sel.scores_, rtol=1e-6)
    assert sel.objective_history_.shape == (1, SMALL["n_iter"], 2)
    f = sel.objective_history_[np.isfinite(sel.objective_history_)]
    assert f.size and np.all((f >= 0) & (f <= 1))
    # every step moves theta by at most eta = 1/(2d) per coordinate (eq. 11)
    steps = np.abs(np.diff(sel.history_, axis=0))
    assert steps.max() <= 1.0 / (2 * D_FEAT) + 1e-6


def test_fscpu_deterministic_pickle_save_load_clone(fitted, tmp_path):
    sel, X, s = fitted
    again = FSCPU(**SMALL, random_state=0).fit(X, s)
    np.testing.assert_array_equal(again.scores_, sel.scores_)
    back = pickle.loads(pickle.dumps(sel))
    np.testing.assert_array_equal(back.get_support(), sel.get_support())
    sel.save(tmp_path / "fscpu")
    loaded = FSCPU.load(tmp_path / "fscpu")
    np.testing.assert_array_equal(loaded.transform(X), sel.transform(X))
    c = clone(sel)
    assert c.get_params() == sel.get_params() and not hasattr(c, "support_")


def test_several_searches_vmapped_equal_separate_searches(fitted):
    _, X, s = fitted
    sel2 = FSCPU(**SMALL, n_searches=2, random_state=1).fit(X, s)
    assert sel2.thetas_.shape == (2, D_FEAT) and sel2.objective_history_.shape == (2, SMALL["n_iter"], 2)
    np.testing.assert_allclose(sel2.scores_, sel2.thetas_.mean(0))
    # the same searches one by one (the selector's preprocessing and key derivation, unbatched igo_run)
    Xs = minmax_scale(X)
    Xj = jnp.asarray(Xs - Xs.mean(0), jnp.float32)
    f32 = lambda v: jnp.asarray(v, jnp.float32)
    cfg = SearchConfig(width=2, n_clusters=3, max_iter=20, kmeans_max_iter=20, covariance_type="full")
    theta0 = f32(np.full(D_FEAT, 2 / D_FEAT))
    for i, k in enumerate(jax.random.split(jax.random.PRNGKey(1), 2)):
        k_steps, k_gmm = jax.random.split(k)
        steps = jax.random.split(k_steps, SMALL["n_iter"])
        # the selector clusters the candidates one after the other on CPU (lax.map); the second search here runs
        # them as one vmapped EM (the accelerator form, memo table looked up for the whole batch): the same search
        cfg = cfg._replace(vmap_candidates=i == 1)
        state, _, f = igo_run(steps, igo_init(theta0, k_gmm), Xj, f32(s), f32(np.ones(D_FEAT)), f32(2.0),
                              f32(1 / (2 * D_FEAT)), f32(1 / D_FEAT), f32(np.zeros((D_FEAT, D_FEAT))), cfg)
        np.testing.assert_allclose(sel2.thetas_[i], np.asarray(state[0]), atol=1e-6)
        np.testing.assert_allclose(sel2.objective_history_[i], np.asarray(f), atol=1e-6)


def test_pack_mask_and_cache_lookup_insert_ring():
    rng = np.random.default_rng(5)
    masks = (rng.random((12, 40)) < 0.5).astype(np.float32)
    words = np.asarray(jax.vmap(pack_mask)(jnp.asarray(masks)))
    assert words.shape == (12, 2) and words.dtype == np.uint32
    want = [[sum(int(m[32 * w + j]) << j for j in range(32) if 32 * w + j < 40) for w in range(2)] for m in masks]
    np.testing.assert_array_equal(words, np.array(want, np.uint64).astype(np.uint32))

    @jax.jit
    def fill_and_look_up(words):  # 10 insertions into 8 slots: masks 0 and 1 are overwritten (ring)
        cache = jax.lax.fori_loop(0, 10, lambda i, c: cache_insert(c, words[i], i / 10.0), cache_init(40, 8))
        return jax.vmap(lambda w: cache_lookup(cache, w))(words), cache.ptr

    (hits, vals), ptr = fill_and_look_up(jnp.asarray(words))
    assert int(ptr) == 10
    np.testing.assert_array_equal(np.asarray(hits), (np.arange(12) >= 2) & (np.arange(12) < 10))
    np.testing.assert_allclose(np.asarray(vals), np.where(np.asarray(hits), np.arange(12) / 10, 0.0), atol=1e-7)
    # per-mask GMM keys: equal masks give equal keys, different masks (almost surely) different keys
    base = jax.random.PRNGKey(3)
    keys = np.asarray(jax.jit(jax.vmap(lambda w: mask_key(base, w)))(jnp.asarray(words)))
    assert len({tuple(k.ravel()) for k in keys}) == len({tuple(w) for w in words})


def test_cache_is_exact_and_hits_return_the_stored_values(fitted):
    sel, X, s = fitted
    # memoisation on by default; most late candidates repeat on this 6-feature problem (15 masks of 2 features)
    assert 0.3 < sel.cache_hit_rate_ < 1.0
    n_eval = int(np.isfinite(sel.objective_history_).sum())
    assert 0 < sel.n_gmm_fits_ <= 15 and sel.n_gmm_fits_ == n_eval - round(sel.cache_hit_rate_ * n_eval)
    # exact: the same search without the table re-fits every repeated mask and gives bit-identical histories
    plain = FSCPU(**SMALL, random_state=0, cache_size=0).fit(X, s)
    assert plain.cache_hit_rate_ == 0.0 and plain.n_gmm_fits_ == n_eval
    np.testing.assert_array_equal(plain.history_, sel.history_)
    np.testing.assert_array_equal(plain.objective_history_, sel.objective_history_)
    # a hit returns the stored value and skips the fit: pre-fill the table with a fake objective for every mask of
    # two features (f = sum of the selected weights) and run the compiled search: no GMM changes the outcome
    Xs = minmax_scale(X)
    Xj = jnp.asarray(Xs - Xs.mean(0), jnp.float32)
    f32 = lambda v: jnp.asarray(v, jnp.float32)
    wts = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    theta0 = f32(np.full(D_FEAT, 2 / D_FEAT))
    state = igo_init(theta0, jax.random.PRNGKey(9))
    cache = state[3]
    for pair in itertools.combinations(range(D_FEAT), 2):
        m = np.zeros(D_FEAT, np.float32)
        m[list(pair)] = 1
        cache = cache_insert(cache, pack_mask(jnp.asarray(m)), f32(wts[list(pair)].sum()))
    state = state[:3] + (cache,) + state[4:]
    cfg = SearchConfig(width=2, n_clusters=3, max_iter=20, kmeans_max_iter=20)
    steps = jax.random.split(jax.random.PRNGKey(4), SMALL["n_iter"])
    out, th, f = igo_run(steps, state, Xj, f32(s), f32(np.ones(D_FEAT)), f32(2.0), f32(1 / (2 * D_FEAT)),
                         f32(1 / D_FEAT), f32(np.zeros((D_FEAT, D_FEAT))), cfg)
    f = np.asarray(f)
    done = np.isfinite(f[:, 0])
    assert int(out[3].n_hits) == int(out[3].n_lookups) == 2 * done.sum() and int(out[3].ptr) == 15
    vals = np.round(f[done] * 10) / 10  # every value is a sum of two distinct weights
    np.testing.assert_allclose(f[done], vals, atol=1e-6)
    assert np.all((vals >= 0.1 - 1e-6) & (vals <= 0.9 + 1e-6))
    assert set(np.argsort(-np.asarray(out[0]))[:2]) == {4, 5}  # theta follows the fake objective


def test_fscpu_mi_variant_and_semi_jmi():
    X, s, _ = _pu_problem(seed=1)
    codes = np.random.default_rng(0).integers(0, 3, (N_ROWS, 4))
    M = np.asarray(pairwise_mi(jnp.asarray(codes), jnp.asarray(s), 3))
    for i in range(4):
        for j in range(4):
            joint = codes[:, i] if i == j else codes[:, i] * 3 + codes[:, j]
            assert M[i, j] == pytest.approx(mutual_info_score(s, joint), abs=1e-5)
    mask = np.array([1, 0, 1, 1], np.float32)
    want = M[0, 2] + M[0, 3] + M[2, 3]
    assert float(semi_jmi_score(jnp.asarray(mask), jnp.asarray(M))) == pytest.approx(want, rel=1e-5)
    order = semi_jmi_select(M, 2)
    assert order[0] == np.argmax(np.diag(M)) and len(set(order)) == 2


@pytest.mark.slow
def test_fscpu_mi_selector_runs():
    X, s, _ = _pu_problem(seed=1)
    sel = FSCPU(**SMALL, variant="fscpu-mi", random_state=0).fit(X, s)
    assert sel.get_support().sum() == 2 and np.all(np.isfinite(sel.scores_))


def test_fscpu_bad_input(fitted):
    X, s, _ = _pu_problem()
    with pytest.raises(NotFittedError):
        FSCPU().transform(X)
    with pytest.raises(ValueError, match="binary"):
        FSCPU(**SMALL).fit(X, np.arange(N_ROWS) % 3)
    with pytest.raises(ValueError, match="no labeled positive"):
        FSCPU(**SMALL).fit(X, np.zeros(N_ROWS))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        FSCPU(**SMALL).fit(Xn, s)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        FSCPU(**SMALL).fit(X, s[:-1])
    with pytest.raises(ValueError, match="n_features_to_select"):
        FSCPU(n_features_to_select=7).fit(X, s)
    with pytest.raises(ValueError, match="variant"):
        FSCPU(variant="mi").fit(X, s)
    with pytest.raises(ValueError, match="covariance_type"):
        FSCPU(covariance_type="banded").fit(X, s)
    with pytest.raises(ValueError, match="n_candidates"):
        FSCPU(n_candidates=1).fit(X, s)
    with pytest.raises(TypeError, match="n_clusters"):
        FSCPU(n_clusters=2.5).fit(X, s)
    with pytest.raises(ValueError, match="costs"):
        FSCPU(costs=np.ones(3)).fit(X, s)
    with pytest.raises(ValueError, match="cheapest"):
        FSCPU(n_features_to_select=0.5, costs=np.ones(D_FEAT)).fit(X, s)
    with pytest.raises(ValueError, match="features"):
        fitted[0].transform(X[:, :3])
    with pytest.raises(ValueError, match="devices"):
        FSCPU(devices=0).fit(X, s)
    with pytest.raises(TypeError, match="devices"):
        FSCPU(devices=1.5).fit(X, s)
    with pytest.warns(FutureWarning, match="devices"):
        assert FSCPU(n_iter=5, n_jobs=1, random_state=0).fit(X, s).n_devices_ == 1


def test_devices_for_divides_the_candidates():
    n_dev = len(jax.devices())
    assert len(_devices_for(1, 2)) == 1 and _devices_for(1, 2) == (jax.devices()[0],)
    assert len(_devices_for(None, 2)) == min(2, n_dev) and len(_devices_for(None, 4)) in (1, 2, 4)
    assert 3 % len(_devices_for(None, 3)) == 0 and len(_devices_for(None, 3)) <= n_dev


_SHARDED_SCRIPT = """
import json, sys
import numpy as np
from pujax.feature_selection import FSCPU
d = np.load(sys.argv[1])
kw = json.loads(sys.argv[2])
out = {}
for name, extra in [("one", dict(devices=1)), ("all", dict(devices=None)), ("all2", dict(devices=None, n_searches=2)),
                    ("one2", dict(devices=1, n_searches=2))]:
    sel = FSCPU(**kw, **extra, random_state=0).fit(d["X"], d["s"])
    out[name] = dict(n_jobs=sel.n_devices_, support=sel.get_support().tolist(), history=sel.history_.tolist(),
                     f=np.nan_to_num(sel.objective_history_, nan=-1.0).tolist(), fits=sel.n_gmm_fits_,
                     hit=sel.cache_hit_rate_)
print(json.dumps(out))
"""


@pytest.mark.slow
def test_candidates_split_across_two_cpu_devices_equal_one_device(tmp_path):
    """devices=None with two JAX CPU devices (shard_map over the candidates) runs the same search as devices=1."""
    import json
    import os
    import pathlib
    import subprocess
    import sys

    X, s, _ = _pu_problem()
    np.savez(tmp_path / "data.npz", X=X, s=s)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", _SHARDED_SCRIPT, str(tmp_path / "data.npz"), json.dumps(SMALL)],
                         capture_output=True, text=True, env=env, cwd=pathlib.Path(__file__).resolve().parents[1])
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["one"]["n_jobs"] == 1 and out["all"]["n_jobs"] == 2 and out["all2"]["n_jobs"] == 2
    for a, b in [("one", "all"), ("one2", "all2")]:
        assert out[a]["support"] == out[b]["support"]
        np.testing.assert_allclose(out[a]["history"], out[b]["history"], atol=1e-5)
        np.testing.assert_allclose(out[a]["f"], out[b]["f"], atol=1e-4)
    # the memo table works the same on the sharded path (same number of fits and hits)
    assert out["all"]["fits"] == out["one"]["fits"] and out["all"]["hit"] == out["one"]["hit"] > 0


# ---------------------------------------------------------------------------------------------- synthetic data


def test_synthetic_generator_and_fsr():
    assert len(TABLE1_CONDITIONS) == 10
    X, y, s, rel = make_fscpu_synthetic(True, 0.4, 8, 2, random_state=0)
    assert X.shape == (4500, 50) and y.sum() == 500 and s.sum() == 200
    assert np.all(y[s == 1] == 1)
    np.testing.assert_array_equal(rel, np.arange(25))
    # the 5 noisy copies correlate with some of the 20 uniform features
    corr = np.corrcoef(X[:, 25:].T)[20:, :20]
    assert np.all(np.abs(corr).max(1) > 0.9)
    X2, y2, s2, _ = make_fscpu_synthetic(False, 0.1, None, None, random_state=1)
    norms = np.linalg.norm(X2[:, :25], axis=1)
    assert norms[y2 == 1].min() >= norms[y2 == 0].max() and s2.sum() == 50
    Xs, _, _, rel_s = make_fscpu_synthetic(True, 0.4, 1, 1, shuffle_features=True, random_state=0)
    assert len(rel_s) == 25 and not np.array_equal(rel_s, np.arange(25))
    assert feature_selection_recall(np.arange(10), rel) == pytest.approx(0.4)
    mask = np.zeros(50, bool)
    mask[[0, 1, 30]] = True
    assert feature_selection_recall(mask, rel) == pytest.approx(0.08)


def test_lower_triangular_inverse_equals_numpy_inverse():
    from pujax.feature_selection.gmm import _lower_triangular_inverse

    rng = np.random.default_rng(3)
    A = rng.normal(size=(4, 7, 7))
    L = np.linalg.cholesky(A @ np.swapaxes(A, 1, 2) + 7 * np.eye(7))
    got = np.asarray(_lower_triangular_inverse(jnp.asarray(L, jnp.float32)))
    np.testing.assert_allclose(got, np.linalg.inv(L), rtol=1e-4, atol=1e-5)
    assert np.all(np.triu(got, 1) == 0)


@pytest.mark.parametrize("a,b", [(1e-6, 0.0), (1e6, 0.0), (1.0, 1e7), (1e3, -1e7), (1e-6, 1e7)])
def test_fscpu_affine_invariant_selection(fitted, a, b):
    """Issue 26: FSCPU on a·X + b selects the features it selects on X, with the same scores (to float32
    precision) and finite objectives: the min-max scaling (the paper's preprocessing) runs in float64 on X
    validated as float64, so an offset of 1e7 keeps the spread of every feature."""
    sel, X, s = fitted
    other = FSCPU(**SMALL, random_state=0).fit(a * X + b, s)
    np.testing.assert_array_equal(other.get_support(), sel.get_support())
    np.testing.assert_allclose(other.scores_, sel.scores_, atol=1e-3)
    assert np.all(np.isfinite(other.scores_))
    f = other.objective_history_
    assert np.all(np.isfinite(f) | np.isnan(sel.objective_history_))
    np.testing.assert_array_equal(other.transform(a * X + b), (a * X + b)[:, sel.get_support()])
