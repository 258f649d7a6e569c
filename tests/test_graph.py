"""Tests of pujax.graph: kNN, push-relabel parametric min cut (vs scipy and brute force) and TwoHNC.

All parametric cuts here use one padded shape (<= 47 nodes, 16 slots, 16 lambdas) so that they share one compiled
program; integer weights with ``scale=1`` make the capacities exact integers for the oracles.
"""
import itertools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, maximum_flow

from pujax.graph import knn_search, neighbor_lists, parametric_min_cut
from pujax.graph.hnc import TwoHNC

LAMS = np.arange(16, dtype=np.float64)
PAD = dict(min_nodes=40, min_width=16)


def random_network(rng, n, p=0.15, wmax=9):
    """Random undirected graph with integer weights, plus integer affine source/sink capacities."""
    iu, ju = np.triu_indices(n, 1)
    keep = rng.random(iu.size) < p
    i, j = iu[keep], ju[keep]
    w = rng.integers(1, wmax + 1, i.size).astype(float)
    a_s = rng.integers(0, 12, n).astype(float) * (rng.random(n) < 0.5)
    a_t = rng.integers(0, 12, n).astype(float) * (rng.random(n) < 0.5)
    b = rng.integers(0, 4, n).astype(float)
    return i, j, w, a_s, a_t, b


def caps_at(a_s, b_s, a_t, b_t, lam):
    return np.maximum(np.floor(a_s + lam * b_s), 0), np.maximum(np.floor(a_t + lam * b_t), 0)


def scipy_cut(i, j, w, cs, ct):
    """Flow value and maximal source set from scipy: nodes that cannot reach t in the residual graph."""
    n = cs.size
    s, t = n, n + 1
    rows = np.concatenate([i, j, np.full(n, s), np.arange(n)])
    cols = np.concatenate([j, i, np.arange(n), np.full(n, t)])
    data = np.concatenate([w, w, cs, ct]).astype(np.int32)
    cap = sp.csr_matrix((data, (rows, cols)), shape=(n + 2, n + 2))
    cap.sum_duplicates()
    res = maximum_flow(cap, s, t)
    resid = (cap - res.flow).tocsr()
    resid.data = (resid.data > 0).astype(np.int8)
    resid.eliminate_zeros()
    reach_t = breadth_first_order(resid.T.tocsr(), t, directed=True, return_predecessors=False)
    source = np.ones(n, bool)
    source[reach_t[reach_t < n]] = False
    return res.flow_value, source


def brute_force(i, j, w, cs, ct):
    n = cs.size
    best, sets = None, []
    for bits in itertools.product([0, 1], repeat=n):
        S = np.array(bits, bool)
        val = cs[~S].sum() + ct[S].sum() + w[S[i] != S[j]].sum()
        if best is None or val < best:
            best, sets = val, [S]
        elif val == best:
            sets.append(S)
    return best, np.any(sets, axis=0)


@pytest.mark.parametrize("seed,direction,method", [(0, "sink", "bisect"), (1, "source", "bisect"),
                                                   (2, "both", "bisect"), (3, "sink", "bisect"),
                                                   (4, "sink", "sweep"), (5, "source", "sweep")])
def test_parametric_matches_scipy_at_every_lambda(seed, direction, method):
    rng = np.random.default_rng(seed)
    n = 30 + seed * 4
    i, j, w, a_s, a_t, b = random_network(rng, n)
    zero = np.zeros(n)
    if direction == "sink":  # stage-1 like: sink capacities rise with lambda
        src, snk = (a_s, zero), (a_t, b)
    elif direction == "source":  # stage-2 like: source capacities rise
        src, snk = (a_s, b), (a_t, zero)
    else:  # source up and sink down
        src, snk = (a_s, b), (a_t + 15 * 3, -b)
    res = parametric_min_cut(i, j, w, src, snk, LAMS, scale=1, method=method, **PAD)
    for q, lam in enumerate(LAMS):
        cs, ct = caps_at(src[0], src[1], snk[0], snk[1], lam)
        value, source = scipy_cut(i, j, w, cs, ct)
        assert res.cut_values[q] == value
        np.testing.assert_array_equal(res.source_sets[q], source)


@pytest.mark.parametrize("min_nodes", [8000, 9000])
def test_worklist_paths_of_larger_networks_match_scipy(min_nodes):
    """Networks padded to 8,192 rows (dense BFS, worklists of 256 and 1,024 rows) and to 12,288 rows (every worklist
    size and the BFS worklists) give scipy's cut at every lambda: a 2,600-node sparse random graph whose sink
    capacities rise with lambda (the parallel bisection, warm-started)."""
    rng = np.random.default_rng(11)
    n = 2600
    i = rng.integers(0, n, 16000)
    j = rng.integers(0, n, 16000)
    keep = i != j
    i, j = i[keep], j[keep]
    w = rng.integers(1, 10, i.size).astype(float)
    a_s = rng.integers(0, 12, n).astype(float) * (rng.random(n) < 0.5)
    a_t = rng.integers(0, 12, n).astype(float) * (rng.random(n) < 0.5)
    b = rng.integers(0, 4, n).astype(float)
    lams = np.arange(0.0, 16.0, 3.0)
    zero = np.zeros(n)
    res = parametric_min_cut(i, j, w, (a_s, zero), (a_t, b), lams, scale=1, min_nodes=min_nodes)
    for q, lam in enumerate(lams):
        cs, ct = caps_at(a_s, zero, a_t, b, lam)
        value, source = scipy_cut(i, j, w, cs, ct)
        assert res.cut_values[q] == value
        np.testing.assert_array_equal(res.source_sets[q], source)


def test_brute_force_tiny_graphs():
    rng = np.random.default_rng(5)
    for _ in range(4):
        n = 7
        i, j, w, a_s, a_t, b = random_network(rng, n, p=0.5)
        res = parametric_min_cut(i, j, w, (a_s, np.zeros(n)), (a_t, b), LAMS, scale=1, **PAD)
        for q in (0, 3, 9, 15):
            cs, ct = caps_at(a_s, 0 * b, a_t, b, LAMS[q])
            value, maximal = brute_force(i, j, w, cs, ct)
            assert res.cut_values[q] == value
            np.testing.assert_array_equal(res.source_sets[q], maximal)


def test_nested_and_first_change_and_warm_equals_cold():
    rng = np.random.default_rng(11)
    n = 40
    i, j, w, a_s, a_t, b = random_network(rng, n, p=0.12)
    warm = parametric_min_cut(i, j, w, (a_s, np.zeros(n)), (a_t, b), LAMS, scale=1, **PAD)
    cold = parametric_min_cut(i, j, w, (a_s, np.zeros(n)), (a_t, b), LAMS, scale=1, warm_start=False, **PAD)
    np.testing.assert_array_equal(warm.source_sets, cold.source_sets)
    np.testing.assert_array_equal(warm.cut_values, cold.cut_values)
    S = warm.source_sets
    assert np.all(S[1:] <= S[:-1])  # sink capacities rise: source sets shrink (Lemma 3.1)
    assert S[0].sum() > S[-1].sum()
    first = np.where((S != S[:1]).any(0), (S != S[:1]).argmax(0), len(LAMS))
    np.testing.assert_array_equal(warm.first_change, first)
    # the warm-started sweep, with one or several lanes, gives the same answer as the bisection
    for lanes in (1, 2):
        sweep = parametric_min_cut(i, j, w, (a_s, np.zeros(n)), (a_t, b), LAMS, scale=1, method="sweep",
                                   n_lanes=lanes, **PAD)
        np.testing.assert_array_equal(sweep.source_sets, warm.source_sets)
        np.testing.assert_array_equal(sweep.cut_values, warm.cut_values)


def test_bisect_repeated_lambdas():
    """Repeated lambdas (equal sets), both directions (sink or source capacities rise), scipy at every lambda."""
    rng = np.random.default_rng(21)
    n = 30
    i, j, w, a_s, a_t, b = random_network(rng, n, p=0.15)
    lams = np.sort(np.concatenate([LAMS[:9], LAMS[3:10]]))  # 16 values with repeats
    for src, snk in (((a_s, np.zeros(n)), (a_t, b)), ((a_s, b), (a_t, np.zeros(n)))):
        res = parametric_min_cut(i, j, w, src, snk, lams, scale=1, **PAD)
        for q, lam in enumerate(lams):
            cs, ct = caps_at(src[0], src[1], snk[0], snk[1], lam)
            value, source = scipy_cut(i, j, w, cs, ct)
            assert res.cut_values[q] == value
            np.testing.assert_array_equal(res.source_sets[q], source)


def test_float_capacities_fixed_point_and_isolated_nodes():
    rng = np.random.default_rng(3)
    n = 25
    i, j, w, a_s, a_t, b = random_network(rng, n, p=0.1)
    w = w * rng.random(w.size)  # real weights
    res = parametric_min_cut(i, j, w, (a_s * 0.37, np.zeros(n)), (a_t * 0.1, b * 0.5), LAMS / 7, **PAD)
    assert res.scale >= 2**10
    S = res.source_sets
    assert np.all(S[1:] <= S[:-1])
    # isolated node 0 with only a source arc stays on the source side; with only a sink arc it goes to t
    keep = (i != 0) & (j != 0) & (i != 1) & (j != 1)
    a_s2, a_t2 = a_s.copy(), a_t.copy()
    a_s2[0], a_t2[0], a_s2[1], a_t2[1] = 5.0, 0.0, 0.0, 5.0
    res2 = parametric_min_cut(i[keep], j[keep], w[keep], (a_s2, np.zeros(n)), (a_t2, np.zeros(n)), LAMS, **PAD)
    assert res2.source_sets[:, 0].all() and not res2.source_sets[:, 1].any()


def test_parametric_bad_input():
    i, j, w = np.array([0]), np.array([1]), np.array([1.0])
    z = np.zeros(2)
    with pytest.raises(ValueError, match="sorted"):
        parametric_min_cut(i, j, w, (z, z), (z, z), [0.2, 0.1])
    with pytest.raises(ValueError, match="negative"):
        parametric_min_cut(i, j, w, (z, z), (z, -np.ones(2)), [0.0, 1.0])
    with pytest.raises(ValueError, match="non-negative"):
        parametric_min_cut(i, j, -w, (z, z), (z, z), [0.0])
    with pytest.raises(ValueError, match="node indices"):
        parametric_min_cut(np.array([0]), np.array([5]), w, (z, z), (z, z), [0.0])


def test_neighbor_lists_reverse_slots():
    rng = np.random.default_rng(0)
    i, j, w, *_ = random_network(rng, 20, p=0.3)
    g = neighbor_lists(np.concatenate([i, i[:3]]), np.concatenate([j, j[:3]]), np.concatenate([w, w[:3]]), 20)
    used = np.arange(g.nbr.shape[1])[None, :] < g.degree[:, None]
    v, k = np.nonzero(used)
    u = g.nbr[v, k]
    assert np.all(g.nbr[u, g.rev[v, k]] == v)
    assert np.allclose(g.weight[u, g.rev[v, k]], g.weight[v, k])
    assert np.isclose(g.weight.sum() / 2, w.sum() + w[:3].sum())  # parallel edges add up


def test_knn_matches_brute_force_with_weights_and_duplicates():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3)).astype(np.float32)
    X[7] = X[3]  # duplicate point
    rho = np.array([2.0, 0.5, 0.5])
    idx, d2 = knn_search(X, 4, feature_weights=rho, tile_size=16)
    D = (((X[:, None, :] - X[None, :, :]) ** 2) * rho).sum(-1)
    np.fill_diagonal(D, np.inf)
    ref = np.sort(D, axis=1)[:, :4]
    np.testing.assert_allclose(np.asarray(d2), ref, atol=1e-4)
    assert int(np.asarray(idx)[3, 0]) == 7 and float(np.asarray(d2)[3, 0]) < 1e-5
    with pytest.raises(ValueError, match="n_neighbors"):
        knn_search(X, 50)


def two_blobs(seed=0):
    rng = np.random.default_rng(seed)
    P = rng.normal(size=(24, 2)) * 0.5 + np.array([2.0, 0.0])
    N = rng.normal(size=(16, 2)) * 0.5 - np.array([2.0, 0.0])
    X = np.vstack([P, N]).astype(np.float32)
    y = np.r_[np.ones(24, int), np.zeros(16, int)]
    s = np.zeros(40, int)
    s[:12] = 1
    return X, y, s


def test_two_hnc_hand_example():
    X, y, s = two_blobs()
    lams = np.linspace(0, 0.5, 16)
    m = TwoHNC(prior=0.6, n_neighbors=5, feature_weights=None, lambdas=lams, random_state=0).fit(X, s)
    U = np.flatnonzero(s == 0)
    # SelectNeg size (1 - pi) / pi * |L+| = 8; the earliest to join the sink are negatives
    assert m.likely_negatives_.size == 8
    assert set(m.ranking_.tolist()) == set(U.tolist())
    assert np.all(y[m.likely_negatives_] == 0)
    assert np.all(y[m.ranking_[:8]] == 0)
    # the first-sink index is non-decreasing along the ranking
    assert np.all(np.diff(m.first_sink_index_[m.ranking_]) >= 0)
    assert np.all(m.transductive_labels_[s == 1] == 1)
    np.testing.assert_array_equal(m.transductive_labels_, y)
    assert abs(m.positive_fraction_ - 0.6) < 1e-9
    np.testing.assert_array_equal(m.fit_predict(X, s), m.transductive_labels_)
    # inductive prediction of fresh points from the two blobs
    Xn = np.array([[2.0, 0.1], [-2.1, 0.0], [1.8, -0.3], [-1.7, 0.4]], np.float32)
    np.testing.assert_array_equal(m.predict(Xn), [1, 0, 1, 0])
    proba = m.predict_proba(Xn)
    assert np.allclose(proba.sum(1), 1) and np.all((proba >= 0) & (proba <= 1))
    # persistence: pickle and save/load
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.predict(Xn), m.predict(Xn))


def _reference_stage(W, nodes, src_cap, snk_cap, scale=2.0**20):
    """Maximal min-cut source set of the network on ``nodes`` (scipy Dinic on capacities scaled to integers)."""
    sub = W[np.ix_(nodes, nodes)]
    i, j = np.nonzero(np.triu(sub, 1))
    fx = lambda v: np.floor(np.asarray(v) * scale)  # noqa: E731
    return scipy_cut(i, j, fx(sub[i, j]), fx(src_cap), fx(snk_cap))[1]


def test_two_hnc_stages_match_independent_reference():
    """Both stages of TwoHNC against a float64 numpy/scipy re-derivation of §4 on overlapping blobs: dense kNN
    graph, stage 1 (L+ contracted), SelectNeg order, stage 2 with L+ and LN contracted, selection closest to pi."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(24, 2)) * 0.9 + [1.0, 0.0], rng.normal(size=(16, 2)) * 0.9 - [1.0, 0.0]])
    X = X.astype(np.float32)
    s = np.zeros(40, int)
    s[:12] = 1
    lams = np.linspace(0, 0.5, 16)
    m = TwoHNC(prior=0.6, n_neighbors=5, feature_weights=None, lambdas=lams, random_state=3).fit(X, s)
    # graph: standardise, squared distance / H, symmetric 5-NN, Gaussian sigma = 0.75
    Z = (X.astype(np.float64) - X.mean(0)) / X.std(0)
    D = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1) / Z.shape[1]
    np.fill_diagonal(D, np.inf)
    A = np.zeros((40, 40), bool)
    A[np.repeat(np.arange(40), 5), np.argsort(D, axis=1)[:, :5].ravel()] = True
    W = np.where(A | A.T, np.exp(-D / (2 * 0.75**2)), 0.0)
    deg = W.sum(1)
    lab = s == 1
    U = np.flatnonzero(~lab)
    to_lab = W[:, lab].sum(1)
    src1 = np.array([_reference_stage(W, U, to_lab[U], lam * deg[U]) for lam in lams])
    np.testing.assert_allclose(m.path_fractions_[0], (12 + src1.sum(1)) / 40)
    first = np.where((~src1).any(0), (~src1).argmax(0), lams.size)
    np.testing.assert_array_equal(m.first_sink_index_[U], first)
    ln = m.likely_negatives_
    assert ln.size == 8  # (1 - pi) / pi * |L+|
    in_ln = np.isin(U, ln)
    assert first[in_ln].max() <= first[~in_ln].min()  # LN = the earliest to join the sink set
    F = np.setdiff1d(U, ln)
    src2 = np.array([_reference_stage(W, F, to_lab[F] + lam * deg[F], W[np.ix_(F, ln)].sum(1)) for lam in lams])
    np.testing.assert_allclose(m.path_fractions_[1], (12 + src2.sum(1)) / 40)
    # selected partition: the closest to pi over both stages
    fr = np.r_[(12 + src1.sum(1)) / 40, (12 + src2.sum(1)) / 40]
    best = int(np.argmin(np.abs(fr - 0.6)))
    labels = lab.astype(int)
    if best < lams.size:
        labels[U] = src1[best]
    else:
        labels[F] = src2[best - lams.size]
    np.testing.assert_array_equal(m.transductive_labels_, labels)
    assert m.stage_ == 1 + (best >= lams.size)


def test_two_hnc_save_load(tmp_path):
    X, y, s = two_blobs(1)
    m = TwoHNC(prior=0.6, n_neighbors=5, feature_weights=None, lambdas=np.linspace(0, 0.5, 16)).fit(X, s)
    m.save(tmp_path / "hnc")
    m2 = TwoHNC.load(tmp_path / "hnc")
    np.testing.assert_array_equal(m2.predict(X), m.predict(X))
    np.testing.assert_array_equal(m2.transductive_labels_, m.transductive_labels_)


def test_two_hnc_bad_input():
    X, y, s = two_blobs()
    lams = np.linspace(0, 0.5, 16)
    with pytest.raises(ValueError, match="n_neighbors"):
        TwoHNC(prior=0.6, n_neighbors=40, feature_weights=None, lambdas=lams).fit(X, s)
    with pytest.raises(ValueError, match="cut_method"):
        TwoHNC(prior=0.6, n_neighbors=5, feature_weights=None, lambdas=lams, cut_method="dinic").fit(X, s)
    with pytest.raises(ValueError, match="sigma"):
        TwoHNC(prior=0.6, sigma=-1.0, feature_weights=None, lambdas=lams).fit(X, s)
    with pytest.raises(ValueError, match="feature_weights"):
        TwoHNC(prior=0.6, feature_weights=np.ones(5), lambdas=lams).fit(X, s)
    with pytest.raises(ValueError, match="lambdas"):
        TwoHNC(prior=0.6, feature_weights=None, lambdas=[0.3, 0.1]).fit(X, s)
    with pytest.raises(ValueError, match="prior"):
        TwoHNC(prior=1.5, feature_weights=None).fit(X, s)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        TwoHNC(prior=0.6, feature_weights=None).fit(Xn, s)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        TwoHNC(prior=0.6).predict(X)
    m = TwoHNC(prior=0.6, n_neighbors=5, feature_weights=None, lambdas=lams).fit(X, s)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :1])


def test_two_hnc_duplicate_points():
    X, y, s = two_blobs(2)
    X = np.vstack([X, X[:10]])  # exact duplicates (distance 0, weight 1)
    y = np.r_[y, y[:10]]
    s = np.r_[s, np.zeros(10, int)]
    m = TwoHNC(prior=float(y.mean()), n_neighbors=5, feature_weights=None, lambdas=np.linspace(0, 0.5, 16),
               random_state=0).fit(X, s)
    U = s == 0
    assert (m.transductive_labels_[U] == y[U]).mean() >= 0.9


@pytest.mark.slow
@pytest.mark.data
def test_two_hnc_vote_paper_protocol(data_dir):
    """Paper protocol on vote (L+ = 60% of the positives, accuracy on U): paper 96.15 %, pujax 96.1 % over 5 runs."""
    from pujax.datasets import load

    X, y = load("vote", data_dir=data_dir)
    rng = np.random.default_rng(0)
    pos = np.flatnonzero(y == 1)
    s = np.zeros(y.size, int)
    s[rng.choice(pos, int(round(0.6 * pos.size)), replace=False)] = 1
    m = TwoHNC(prior=float(y.mean()), random_state=0).fit(X, s)
    U = s == 0
    assert (m.transductive_labels_[U] == y[U]).mean() >= 0.95


def test_two_hnc_weights_max_samples_validation():
    X, y, s = two_blobs()
    with pytest.raises(ValueError, match="weights_max_samples"):
        TwoHNC(prior=0.6, feature_weights=None, weights_max_samples=1, lambdas=np.linspace(0, 0.5, 16)).fit(X, s)
    assert TwoHNC(weights_max_samples="auto")._weights_rows(30000) == 10000
    assert TwoHNC(weights_max_samples=None)._weights_rows(30000) == 30000


def blobs(seed, n_pos=40, n_neg=30, d=3, n_lab=16):
    """Two Gaussian blobs in d dimensions (float64), the first ``n_lab`` positives labeled; plus test rows."""
    rng = np.random.default_rng(seed)
    centre = np.r_[1.5, np.zeros(d - 1)]
    X = np.vstack([rng.normal(size=(n_pos, d)) + centre, rng.normal(size=(n_neg, d)) - centre])
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    s = np.zeros(y.size, int)
    s[:n_lab] = 1
    Xt = np.vstack([rng.normal(size=(30, d)) + centre, rng.normal(size=(30, d)) - centre])
    return X, y, s, Xt


@pytest.mark.parametrize("feature_weights", ["puet", None])
def test_two_hnc_constant_and_duplicated_features_change_nothing(feature_weights):
    """A constant, an all-zero or a duplicated column gets weight 0 / shares its copy's weight: the weighted
    rows, the kNN graph and hence every partition are those of the original data (compared exactly)."""
    X, y, s, Xt = blobs(0)
    kw = dict(prior=float(y.mean()), n_neighbors=5, feature_weights=feature_weights,
              lambdas=np.linspace(0, 0.5, 16), random_state=0)
    ref = TwoHNC(**kw).fit(X, s)
    assert (ref.transductive_labels_ == y).mean() >= 0.8
    variants = {"constant": (np.c_[X, np.full(len(X), 7.5)], np.c_[Xt, np.full(len(Xt), 7.5)], [3]),
                "zero": (np.c_[np.zeros(len(X)), X], np.c_[np.zeros(len(Xt)), Xt], [0]),
                "duplicate": (np.c_[X, X[:, 1]], np.c_[Xt, Xt[:, 1]], [])}
    for name, (Xv, Xtv, const) in variants.items():
        m = TwoHNC(**kw).fit(Xv, s)
        np.testing.assert_array_equal(m.transductive_labels_, ref.transductive_labels_, err_msg=name)
        np.testing.assert_array_equal(m.X_fit_, ref.X_fit_, err_msg=name)
        np.testing.assert_array_equal(m.predict(Xtv), ref.predict(Xt), err_msg=name)
        assert np.all(m.feature_weights_[const] == 0), name
        # the distance weights of the original features are unchanged (a copy shares its feature's weight)
        dw = m.distance_weights_
        orig = np.delete(dw, const) if const else np.r_[dw[:1], dw[1] + dw[3], dw[2]]
        np.testing.assert_allclose(orig, ref.distance_weights_, rtol=1e-12, err_msg=name)
        if name == "duplicate":
            assert dw[1] == dw[3]


def test_two_hnc_scale_and_offset_invariance():
    """Predictions on a X + b equal those on X (>= 99 % of rows) over a in [1e-6, 1e6], b in [-1e7, 1e7]
    (float64 input is centred in float64); every score is finite."""
    X, y, s, Xt = blobs(1, d=4)
    kw = dict(prior=float(y.mean()), n_neighbors=(5, 10), lambdas=np.linspace(0, 0.5, 16), random_state=0)
    ref = TwoHNC(**kw).fit(X, s)
    base_t, base_p = ref.transductive_labels_, ref.predict(Xt)
    for a, b in itertools.product([1e-6, 1e6], [-1e7, 0.0, 1e7]):
        m = TwoHNC(**kw).fit(a * X + b, s)
        agree_t = (m.transductive_labels_ == base_t).mean()
        agree_p = (m.predict(a * Xt + b) == base_p).mean()
        assert agree_t >= 0.99 and agree_p >= 0.99, (a, b, agree_t, agree_p)
        assert np.all(np.isfinite(m.decision_function(a * Xt + b)))


def test_two_hnc_refit_in_the_same_bucket_compiles_nothing():
    """A refit on fewer rows of the same size bucket (505 -> 450 rows), and predict on another batch size of the
    same bucket, reuse the compiled kNN and cut programs."""
    from pujax.compilation import count_compilations

    X, y, s, Xt = blobs(3, n_pos=300, n_neg=205, d=5, n_lab=50)
    m = TwoHNC(prior=float(y.mean()), feature_weights=None, random_state=0).fit(X, s)
    m.predict(Xt)
    keep = np.r_[np.arange(45), np.arange(50, 455)]
    with count_compilations() as c:
        m.fit(X[keep], s[keep])
        m.predict(Xt[:58])
    assert c.count == 0, c
    fresh = TwoHNC(prior=float(y.mean()), feature_weights=None, random_state=0).fit(X[keep], s[keep])
    np.testing.assert_array_equal(m.transductive_labels_, fresh.transductive_labels_)


_DEVICES_CHILD = r"""
import json, sys
import numpy as np
import jax
assert len(jax.devices()) == 4, jax.devices()
sys.path.insert(0, sys.argv[1])
from test_graph import blobs, random_network
from pujax.graph import TwoHNC, knn_search, parametric_min_cut
out = {}
X, y, s, Xt = blobs(4, n_pos=150, n_neg=110, d=4, n_lab=40)
for dev in (1, 4):
    idx, d2 = knn_search(X.astype(np.float32), 7, devices=dev)
    m = TwoHNC(prior=float(y.mean()), n_neighbors=(5, 10), lambdas=np.linspace(0, 0.5, 64), feature_weights=None,
               random_state=0, devices=dev).fit(X, s)
    rng = np.random.default_rng(0)
    i, j, w, a_s, a_t, b = random_network(rng, 40, p=0.15)
    cuts = [parametric_min_cut(i, j, w, (a_s, np.zeros(40)), (a_t, b), np.arange(16.0), scale=1, method=meth,
                               n_lanes=lanes, devices=dev)
            for meth, lanes in (("bisect", 1), ("sweep", 2))]
    out[dev] = {"idx": np.asarray(idx).tolist(), "d2": np.asarray(d2).tolist(),
                "labels": m.transductive_labels_.tolist(), "pred": m.predict(Xt).tolist(),
                "sets": [c.source_sets.tolist() for c in cuts], "values": [c.cut_values.tolist() for c in cuts]}
print("RESULT " + json.dumps(out))
"""


def test_devices_one_and_four_give_identical_cuts():
    """kNN row blocks and lambda lanes split across 4 forced CPU devices give bitwise the kNN lists, cuts and
    partitions of one device (fresh process with --xla_force_host_platform_device_count=4)."""
    import json
    import os
    import pathlib
    import subprocess
    import sys

    here = pathlib.Path(__file__).resolve().parent
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(here.parent), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", _DEVICES_CHILD, str(here)], capture_output=True, text=True,
                          env=env, timeout=600)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and line, proc.stderr[-2000:]
    out = json.loads(line[-1][7:])
    one, four = out["1"], out["4"]
    for key in ("idx", "d2", "labels", "pred", "sets", "values"):
        assert one[key] == four[key], key
    # the cuts also match the scipy oracle (lane splitting keeps them exact)
    rng = np.random.default_rng(0)
    i, j, w, a_s, a_t, b = random_network(rng, 40, p=0.15)
    for q in (0, 7, 15):
        cs, ct = caps_at(a_s, 0 * b, a_t, b, float(q))
        value, source = scipy_cut(i, j, w, cs, ct)
        for sets, values in zip(four["sets"], four["values"]):
            assert values[q] == value
            np.testing.assert_array_equal(np.asarray(sets[q]), source)


def test_two_hnc_auto_prior_is_turned_into_the_fraction_of_all_rows():
    """prior="auto" estimates the positive share of U (prior_); the partition is chosen for the positive fraction
    of all rows, (|L+| + prior_ |U|) / n -- the same model as passing that fraction."""
    X, y, s, _ = blobs(5, n_pos=60, n_neg=50, d=3, n_lab=25)
    kw = dict(n_neighbors=5, feature_weights=None, lambdas=np.linspace(0, 0.5, 16), random_state=0)
    auto = TwoHNC(**kw).fit(X, s)
    assert 0 < auto.prior_ < 1
    n_lab, n = int(s.sum()), s.size
    explicit = TwoHNC(prior=(n_lab + auto.prior_ * (n - n_lab)) / n, **kw).fit(X, s)
    np.testing.assert_array_equal(auto.transductive_labels_, explicit.transductive_labels_)
    assert auto.likely_negatives_.size == explicit.likely_negatives_.size


def test_two_hnc_all_constant_features():
    """Only constant features: every distance is 0 (all weights 1); fit and predict run and give finite scores."""
    X = np.ones((30, 3))
    s = np.r_[np.ones(8, int), np.zeros(22, int)]
    m = TwoHNC(prior=0.5, n_neighbors=5, lambdas=np.linspace(0, 0.5, 16), random_state=0).fit(X, s)
    assert np.all(m.feature_weights_ == 0)
    assert np.all(np.isfinite(m.decision_function(X[:4])))
    assert set(np.unique(m.predict(X[:4]))) <= {0, 1}
