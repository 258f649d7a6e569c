"""pujax.meta: methods around any model, each checked against an independent reference (a hand-written numpy /
scikit-learn loop, scipy, finite differences, or data with known labels)."""
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

import pujax
from pujax.meta import ElkanNotoClassifier
from pujax.meta._common import stratified_hold_out
from pujax.random import as_key, host_rng, sklearn_seed


def _blobs(n=600, seed=0, c=0.5, shift=3.0, d=2):
    r = np.random.default_rng(seed)
    y = (r.random(n) < 0.5).astype(int)
    X = r.normal(size=(n, d)) + shift * y[:, None]
    s = ((y == 1) & (r.random(n) < c)).astype(int)
    return X.astype(np.float32), y, s


def _seen(X):
    """The rows the base models of a meta-estimator see: X standardised per feature in float64 (mean, population
    standard deviation), cast to float32, passed as float64."""
    X = np.asarray(X, np.float64)
    return ((X - X.mean(0)) / X.std(0)).astype(np.float32).astype(np.float64)


# ------------------------------------------------------------------------------------------------ Elkan & Noto
@pytest.mark.parametrize("name,rows,tol", [("breast_cancer", None, 0.05), ("mushroom", 3000, 0.05),
                                           ("vote", None, 0.07)])
def test_elkan_noto_label_frequency_on_real_sets(name, rows, tol, data_dir):
    """c_ within 0.05 of the true label frequency on SCAR (censoring) splits, averaged over three splits; on vote
    (435 rows, 87 in the hold-out) e1 under-estimates c by about 0.06 (0.447 against 0.506 over six splits)."""
    X, y = pujax.datasets.load(name, data_dir=data_dir)
    if rows is not None:
        keep = np.random.default_rng(0).permutation(y.size)[:rows]
        X, y = X[keep], y[keep]
    X = StandardScaler().fit_transform(X)
    true_c, est_c = [], []
    for seed in range(3):
        Xs, s, _ = pujax.data.make_censoring(seed, X, y, 0.5)
        clf = ElkanNotoClassifier(hold_out_ratio=0.2, random_state=seed).fit(Xs, s)
        true_c.append(s.sum() / y.sum())
        est_c.append(clf.c_)
        p = clf.predict_proba(Xs)
        assert np.all((p >= 0) & (p <= 1)) and np.allclose(p.sum(1), 1)
    assert abs(np.mean(est_c) - np.mean(true_c)) < tol, (est_c, true_c)


@pytest.mark.parametrize("method", ["e1", "e2", "e3"])
def test_elkan_noto_c_matches_numpy_reference(method):
    X, y, s = _blobs()
    clf = ElkanNotoClassifier(c_estimator=method, hold_out_ratio=0.25, weighted=False, random_state=3).fit(X, s)
    assert clf.cv_ is None  # the hold-out holds >= 10 labeled rows
    Z = _seen(X)
    train, hold = stratified_hold_out(s.astype(np.int32), 0.25, host_rng(as_key(3)))
    g = LogisticRegression(max_iter=1000).fit(Z[train], s[train]).predict_proba(Z[hold])[:, 1]
    sh = s[hold] == 1
    ref = {"e1": g[sh].mean(), "e2": g[sh].sum() / g.sum(), "e3": g.max()}[method]
    assert clf.c_ == pytest.approx(ref, rel=1e-6)
    n_l, n_u = s.sum(), (1 - s).sum()
    assert clf.prior_ == pytest.approx(min(1.0, n_l * (1 - ref) / (ref * n_u)), rel=1e-6)
    p = clf.predict_proba(X)[:, 1]
    r = clf.estimator_.predict_proba(Z)[:, 1] / ref  # g / c up to 1/2, then 1 - 1 / (4 r): below 1, no ties
    np.testing.assert_allclose(p, np.where(r <= 0.5, r, 1 - 0.25 / r), rtol=1e-6)
    order = np.argsort(r)
    assert np.all(np.diff(p[order]) >= 0) and np.unique(p).size == np.unique(r).size


def test_elkan_noto_cross_fitted_c_matches_reference_and_is_steadier():
    """cv=k: c from out-of-fold scores of every row (a hand-written StratifiedKFold loop), g fitted on all rows; with
    30 labeled rows its error over 10 SCAR samples is below the single 10 % hold-out's."""
    from sklearn.model_selection import StratifiedKFold

    X, y, s = _blobs(n=300, seed=2)
    clf = ElkanNotoClassifier(cv=4, random_state=5).fit(X, s)
    Z = _seen(X)
    oof = np.empty(len(s))
    for tr, te in StratifiedKFold(4, shuffle=True, random_state=sklearn_seed(as_key(5), 1)).split(Z, s):
        oof[te] = LogisticRegression(max_iter=1000).fit(Z[tr], s[tr]).predict_proba(Z[te])[:, 1]
    assert clf.c_ == pytest.approx(oof[s == 1].mean(), rel=1e-6)
    np.testing.assert_allclose(clf.estimator_.coef_, LogisticRegression(max_iter=1000).fit(Z, s).coef_, rtol=1e-6)
    errors = {"hold-out": [], 5: []}
    for seed in range(10):
        X, y, s = _blobs(n=300, seed=10 + seed, c=0.2)
        auto = ElkanNotoClassifier(random_state=seed).fit(X, s)  # ~30 labeled rows: 3 in a 10 % hold-out
        assert auto.cv_ == 5 and auto.c_ == ElkanNotoClassifier(cv=5, random_state=seed).fit(X, s).c_
        errors[5].append(abs(auto.c_ - s.sum() / y.sum()))
        g = LogisticRegression(max_iter=1000)  # the single 10 % hold-out cv=None used to take
        train, hold = stratified_hold_out(s.astype(np.int32), 0.1, host_rng(as_key(seed)))
        Z = _seen(X)
        errors["hold-out"].append(abs(g.fit(Z[train], s[train]).predict_proba(Z[hold][s[hold] == 1])[:, 1].mean()
                                      - s.sum() / y.sum()))
    assert np.mean(errors[5]) < np.mean(errors["hold-out"]), errors
    with pytest.raises(ValueError, match="cv=4 needs at least 4 labeled"):
        ElkanNotoClassifier(cv=4).fit(X[:20], np.r_[np.ones(3, int), np.zeros(17, int)])
    with pytest.raises(ValueError, match="cv"):
        ElkanNotoClassifier(cv=1).fit(X, s)


def test_elkan_noto_weighted_variant_matches_reference_and_beats_naive():
    X, y, s = _blobs(seed=1, c=0.3, shift=2.0)
    clf = ElkanNotoClassifier(weighted=True, random_state=0).fit(X, s)
    Z = _seen(X)
    g, c = clf.estimator_, clf.c_
    U = s == 0
    gu = g.predict_proba(Z[U])[:, 1]
    w = np.clip((1 - c) / c * gu / (1 - gu), 0, 1)
    ref = LogisticRegression(max_iter=1000).fit(
        np.r_[Z[~U], Z[U], Z[U]], np.r_[np.ones((~U).sum() + U.sum()), np.zeros(U.sum())],
        sample_weight=np.r_[np.ones((~U).sum()), w, 1 - w])
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], ref.predict_proba(Z)[:, 1], rtol=1e-5, atol=1e-7)
    naive = LogisticRegression().fit(X, s).predict(X)
    assert np.mean(clf.predict(X) == y) > np.mean(naive == y) + 0.1


def test_elkan_noto_params_errors_and_persistence(tmp_path):
    X, y, s = _blobs(n=200)
    with pytest.raises(ValueError, match="c_estimator"):
        ElkanNotoClassifier(c_estimator="e4").fit(X, s)
    with pytest.raises(ValueError, match="hold_out_ratio"):
        ElkanNotoClassifier(hold_out_ratio=1.0).fit(X, s)
    from sklearn.svm import LinearSVC
    with pytest.raises(TypeError, match="predict_proba"):
        ElkanNotoClassifier(LinearSVC()).fit(X, s)
    for est in (ElkanNotoClassifier(random_state=0), ElkanNotoClassifier(LogisticRegression(C=0.5), weighted=True)):
        est.fit(X, s)
        est.save(tmp_path / "en")
        back = ElkanNotoClassifier.load(tmp_path / "en")
        np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
        assert back.get_params() == est.get_params() or est.estimator is not None
        assert type(back.estimator_) is LogisticRegression and back.c_ == est.c_


# ------------------------------------------------------------------------------------------------ bagging PU
def test_bagging_matches_hand_written_loop():
    """Same seeds -> the same bags, base models, scores and out-of-bag scores as a plain numpy/sklearn loop."""
    from sklearn.tree import DecisionTreeClassifier

    from pujax.meta import PUBaggingClassifier

    X, y, s = _blobs(n=150, seed=4, shift=1.5)
    X = X.astype(np.float64)  # base models see float64 rows
    clf = PUBaggingClassifier(n_estimators=7, max_samples=0.5, random_state=11, prior=None).fit(X, s)
    seeds = host_rng(as_key(11)).integers(np.iinfo(np.int32).max, size=7)
    P, U = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    k = int(round(0.5 * U.size))
    probas, oob_sum, oob_n = [], np.zeros(len(s)), np.zeros(len(s))
    for seed in seeds:
        bag = np.random.RandomState(seed).choice(U, size=k, replace=True)
        tree = DecisionTreeClassifier(random_state=seed).fit(np.r_[X[P], X[bag]], np.r_[np.ones(P.size), np.zeros(k)])
        probas.append(tree.predict_proba(X)[:, 1])
        out = np.setdiff1d(U, bag)
        oob_sum[out] += tree.predict_proba(X[out])[:, 1]
        oob_n[out] += 1
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], np.mean(probas, 0))
    ref_oob = np.where(oob_n > 0, oob_sum / np.maximum(oob_n, 1), np.nan)
    np.testing.assert_allclose(clf.oob_decision_function_[:, 1], ref_oob)
    assert np.all(np.isnan(clf.oob_decision_function_[P, 1]))
    imp = np.mean([DecisionTreeClassifier(random_state=sd).fit(
        np.r_[X[P], X[b]], np.r_[np.ones(P.size), np.zeros(k)]).feature_importances_
        for sd, b in ((sd, np.random.RandomState(sd).choice(U, size=k, replace=True)) for sd in seeds)], 0)
    np.testing.assert_allclose(clf.feature_importances_, imp)


def test_bagging_prior_sets_the_threshold_of_the_mean_score():
    """With a prior, threshold_ puts that share of the unlabeled rows' out-of-bag scores above it; predict_proba is
    the mean score mapped piecewise linearly with threshold_ at 0.5 (same ranking); prior=None keeps 0.5."""
    from pujax.meta import PUBaggingClassifier

    X, y, s = _blobs(n=300, seed=6, c=0.3, shift=1.5)
    plain = PUBaggingClassifier(n_estimators=15, random_state=2, prior=None).fit(X, s)
    clf = PUBaggingClassifier(n_estimators=15, random_state=2, prior=0.35).fit(X, s)
    assert plain.threshold_ == 0.5 and plain.prior_ is None and clf.prior_ == 0.35
    oob = clf.oob_decision_function_[s == 0, 1]
    assert abs(np.mean(oob[~np.isnan(oob)] > clf.threshold_) - 0.35) < 0.05
    q, t = plain.predict_proba(X)[:, 1], clf.threshold_  # the mean score (the identity map at 0.5)
    ref = np.where(q <= t, 0.5 * q / t, 0.5 + 0.5 * (q - t) / (1 - t))
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], ref, rtol=1e-12)
    np.testing.assert_array_equal(clf.predict(X), (q > t).astype(int))


def test_bagging_parallel_equals_sequential_and_beats_naive(tmp_path):
    from sklearn.linear_model import LogisticRegression

    from pujax.meta import PUBaggingClassifier

    X, y, s = _blobs(n=400, seed=5, c=0.3, shift=2.0)
    one = PUBaggingClassifier(n_estimators=12, random_state=0).fit(X, s)
    two = PUBaggingClassifier(n_estimators=12, random_state=0, n_jobs=2).fit(X, s)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    np.testing.assert_array_equal(one.oob_decision_function_, two.oob_decision_function_)
    lr = PUBaggingClassifier(LogisticRegression(), n_estimators=12, random_state=0).fit(X, s)
    naive = LogisticRegression().fit(X, s).predict(X)
    assert np.mean(lr.predict(X) == y) > np.mean(naive == y) + 0.1
    with pytest.raises(AttributeError, match="feature_importances_"):
        _ = lr.feature_importances_
    one.save(tmp_path / "bag")
    back = PUBaggingClassifier.load(tmp_path / "bag")
    np.testing.assert_array_equal(back.predict_proba(X), one.predict_proba(X))



def test_bagging_batched_svm_bags_equal_one_by_one_fits(tmp_path):
    """A base model with ``fit_bags`` (pujax's CWSVM) solves every bag in one batch; each bag's model, its scores
    and the out-of-bag scores equal separate CWSVM fits on the same bags of the standardised rows."""
    from pujax.meta import PUBaggingClassifier
    from pujax.preprocessing import standardize
    from pujax.svm import CWSVMClassifier

    X, y, s = _blobs(n=200, seed=12, c=0.4, shift=1.5)
    base = CWSVMClassifier(C_pos=2.0, C_unl=0.5)
    clf = PUBaggingClassifier(base, n_estimators=5, max_samples=40, random_state=3, prior=None).fit(X, s)
    Z = standardize(X, clf.mean_, clf.scale_)
    seeds = host_rng(as_key(3)).integers(np.iinfo(np.int32).max, size=5)
    P, U = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    probas, oob_sum, oob_n = [], np.zeros(len(s)), np.zeros(len(s))
    for seed, est in zip(seeds, clf.estimators_):
        bag = np.random.RandomState(seed).choice(U, size=40, replace=True)
        ref = CWSVMClassifier(C_pos=2.0, C_unl=0.5, prior=None).fit(Z[np.r_[P, bag]],
                                                                    np.r_[np.ones(P.size), np.zeros(40)])
        np.testing.assert_allclose(est.decision_function(Z), ref.decision_function(Z), rtol=1e-4, atol=1e-4)
        assert est.n_unl_ == ref.n_unl_ == 40 and est.gamma_ == pytest.approx(ref.gamma_)
        probas.append(ref.predict_proba(Z)[:, 1])
        out = np.setdiff1d(U, bag)
        oob_sum[out] += ref.predict_proba(Z[out])[:, 1]
        oob_n[out] += 1
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], np.mean(probas, 0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(clf.oob_decision_function_[:, 1],
                               np.where(oob_n > 0, oob_sum / np.maximum(oob_n, 1), np.nan), rtol=1e-4, atol=1e-5)
    from sklearn.metrics import roc_auc_score
    assert roc_auc_score(y, clf.predict_proba(X)[:, 1]) > 0.9
    clf.save(tmp_path / "bag")
    np.testing.assert_array_equal(PUBaggingClassifier.load(tmp_path / "bag").predict_proba(X), clf.predict_proba(X))

def test_bagging_batched_stumps_equal_scikit_learn_stump_bags(tmp_path):
    """pujax's DecisionStumpClassifier as the base: all bags found in one program and scored in one call, the same
    model as bagging scikit-learn's depth-1 trees on the same bags (probabilities, out-of-bag scores, importances)."""
    from sklearn.tree import DecisionTreeClassifier

    from pujax.boosting import DecisionStumpClassifier
    from pujax.meta import PUBaggingClassifier

    X, y, s = _blobs(n=300, seed=5, c=0.4, shift=1.0, d=4)
    ours = PUBaggingClassifier(DecisionStumpClassifier(), n_estimators=30, random_state=1).fit(X, s)
    ref = PUBaggingClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=30, random_state=1).fit(X, s)
    assert all(isinstance(m, DecisionStumpClassifier) for m in ours.estimators_)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(ours.oob_decision_function_, ref.oob_decision_function_, atol=1e-6)
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-6)
    ours.save(tmp_path / "stumps")
    np.testing.assert_array_equal(PUBaggingClassifier.load(tmp_path / "stumps").predict_proba(X),
                                  ours.predict_proba(X))


def test_saved_tree_with_a_cycle_is_refused(tmp_path):
    import json

    from pujax.meta import PUBaggingClassifier

    X, y, s = _blobs(n=100)
    PUBaggingClassifier(n_estimators=2, random_state=0).fit(X, s).save(tmp_path / "bag")
    doc = json.loads((tmp_path / "bag.json").read_text())
    tree = doc["fitted"]["__dict__"]["estimators_"][0]["__estimator__"]["fitted"]["__dict__"]["tree_"]["__dict__"]
    key = tree["nodes"]["__dict__"]["left_child"]["__array__"]
    with np.load(tmp_path / "bag.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays[key][0] = 0  # the root points to itself
    np.savez(tmp_path / "bag.npz", **arrays)
    with pytest.raises(ValueError, match="child indices"):
        PUBaggingClassifier.load(tmp_path / "bag")


# ------------------------------------------------------------------------------------------------ two-step
@pytest.mark.parametrize("negatives", ["spy", "rocchio", "threshold"])
@pytest.mark.parametrize("iterate", [0, 3])
def test_two_step_reliable_negatives_and_accuracy(negatives, iterate):
    from pujax.meta import TwoStepClassifier

    X, y, s = _blobs(n=800, seed=6, c=0.3, shift=2.5, d=3)
    naive = LogisticRegression().fit(X, s).predict(X)
    purity = []
    for seed in range(3):  # the spies are a random draw: their purity varies by a few points with the seed
        clf = TwoStepClassifier(negatives=negatives, iterate=iterate, random_state=seed).fit(X, s)
        rn = clf.reliable_negatives_
        assert np.all(s[rn] == 0) and rn.size > 50
        purity.append(np.mean(y[rn] == 0))
        acc = np.mean(clf.predict(X) == y)
        assert acc > 0.88 and acc > np.mean(naive == y) + 0.15
        assert 1 <= clf.n_iter_ <= iterate + 1
    assert np.mean(purity) > 0.85, purity  # reliable negatives are mostly true negatives (U: 60 % negatives)


def test_two_step_spy_and_rocchio_match_hand_written_reference():
    from pujax.meta import TwoStepClassifier

    X, y, s = _blobs(n=300, seed=7, c=0.4, shift=2.0)
    X = X.astype(np.float64)
    clf = TwoStepClassifier(negatives="spy", spy_ratio=0.2, noise_level=0.1, class_weight=None,
                            random_state=5).fit(X, s)
    Z = _seen(X)
    P, U = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    spies = host_rng(as_key(5)).choice(P, size=int(round(0.2 * P.size)), replace=False)
    s2 = s.copy()
    s2[spies] = 0
    g = LogisticRegression(max_iter=1000).fit(Z, s2)
    t = np.quantile(g.predict_proba(Z[spies])[:, 1], 0.1)
    rn = U[g.predict_proba(Z[U])[:, 1] < t]
    np.testing.assert_array_equal(clf.reliable_negatives_, rn)
    final = LogisticRegression(max_iter=1000).fit(np.r_[Z[P], Z[rn]], np.r_[np.ones(P.size), np.zeros(rn.size)])
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], final.predict_proba(Z)[:, 1], rtol=1e-6)
    balanced = TwoStepClassifier(negatives="spy", spy_ratio=0.2, noise_level=0.1, random_state=5).fit(X, s)
    w = np.r_[np.full(P.size, (P.size + rn.size) / (2 * P.size)), np.full(rn.size, (P.size + rn.size) / (2 * rn.size))]
    final = LogisticRegression(max_iter=1000).fit(np.r_[Z[P], Z[rn]], np.r_[np.ones(P.size), np.zeros(rn.size)],
                                                  sample_weight=w)
    np.testing.assert_allclose(balanced.predict_proba(X)[:, 1], final.predict_proba(Z)[:, 1], rtol=1e-6)

    roc = TwoStepClassifier(negatives="rocchio").fit(X, s)
    Xd = X.astype(np.float64)
    Z = [(row - Xd.mean(0)) / Xd.std(0) for row in Xd]
    Z = [z / np.sqrt(np.sum(z * z)) for z in Z]
    mp = sum(Z[i] for i in P) / P.size
    mu = sum(Z[i] for i in U) / U.size
    cp, cn = 16 * mp - 4 * mu, 16 * mu - 4 * mp
    ref = [i for i in U if Z[i] @ cn / np.linalg.norm(cn) > Z[i] @ cp / np.linalg.norm(cp)]
    np.testing.assert_array_equal(roc.reliable_negatives_, ref)


# ------------------------------------------------------------------------------------------------ linear nnPU
def _np_objective(theta, Z, s, w, prior, C, loss, risk):
    """float64 numpy re-derivation of the linear uPU / nnPU objective (Kiryo et al. 2017, eqs. (5)-(6))."""
    ell = {"sigmoid": lambda z: 1 / (1 + np.exp(z)), "logistic": lambda z: np.logaddexp(0, -z)}[loss]
    coef, b = theta[:-1], theta[-1]
    g = Z @ coef + b
    P, U = s == 1, s == 0
    rp_plus = prior * np.sum(w[P] * ell(g[P])) / np.sum(w[P])
    ru_minus = np.sum(w[U] * ell(-g[U])) / np.sum(w[U])
    rp_minus = prior * np.sum(w[P] * ell(-g[P])) / np.sum(w[P])
    neg = ru_minus - rp_minus
    r = rp_plus + (max(0.0, neg) if risk == "nnpu" else neg)
    return r + 0.5 * coef @ coef / (C * np.sum(w))


def _standardised(X, w):
    mean = np.average(X, 0, weights=w)
    return (X - mean) / np.sqrt(np.average((X - mean) ** 2, 0, weights=w))


@pytest.mark.parametrize("loss,risk", [("sigmoid", "nnpu"), ("logistic", "upu"), ("sigmoid", "upu")])
def test_linear_pu_gradient_matches_finite_differences(loss, risk):
    import jax
    import jax.numpy as jnp

    from pujax.meta import linear_pu_objective

    X, y, s = _blobs(n=120, seed=8, c=0.4, d=3)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(s))
    Z = _standardised(X.astype(np.float64), w)
    theta = np.array([0.3, -0.2, 0.5, 0.1])
    args = (Z, s, w, 0.45, 2.0, loss, risk)
    grad = jax.grad(lambda t: linear_pu_objective((t[:-1], t[-1]), jnp.asarray(Z, jnp.float32), jnp.asarray(s),
                                                  jnp.asarray(w, jnp.float32), 0.45, 2.0, loss, risk))(
        jnp.asarray(theta, jnp.float32))
    h = 1e-6
    fd = [(_np_objective(theta + h * e, *args) - _np_objective(theta - h * e, *args)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(np.asarray(grad), fd, rtol=2e-3, atol=1e-5)


def test_linear_pu_fit_agrees_with_scipy():
    from scipy.optimize import minimize

    from pujax.meta import NNPULinearClassifier

    X, y, s = _blobs(n=500, seed=9, c=0.4, shift=1.5, d=2)  # the shapes of the next test: compiled once
    prior = float(y[s == 0].mean())
    w = np.ones(len(s))
    Z = _standardised(X.astype(np.float64), w)
    # convex case (uPU, logistic): the same minimiser
    clf = NNPULinearClassifier(prior, loss="logistic", risk="upu", C=1.0, tol=1e-6).fit(X, s)
    ref = minimize(_np_objective, np.zeros(3), args=(Z, s, w, prior, 1.0, "logistic", "upu"), method="BFGS",
                   options={"gtol": 1e-9})
    ours = np.r_[clf.model_.coef, clf.model_.intercept]
    np.testing.assert_allclose(ours, ref.x, rtol=2e-3, atol=2e-3)
    assert clf.objective_ == pytest.approx(ref.fun, abs=1e-5)
    # nnPU with the sigmoid loss: a local minimum that scipy cannot improve
    clf = NNPULinearClassifier(prior, C=1.0).fit(X, s)
    ours = np.r_[clf.model_.coef, clf.model_.intercept].astype(np.float64)
    f0 = _np_objective(ours, Z, s, w, prior, 1.0, "sigmoid", "nnpu")
    assert f0 == pytest.approx(clf.objective_, abs=1e-5)
    ref = minimize(_np_objective, ours, args=(Z, s, w, prior, 1.0, "sigmoid", "nnpu"), method="Nelder-Mead",
                   options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000})
    assert ref.fun > f0 - 1e-4
    naive = LogisticRegression().fit(X, s).predict(X)
    assert np.mean(clf.predict(X) == y) > np.mean(naive == y) + 0.1


def test_linear_pu_batched_gradient_and_cross_validation():
    """The NumPy objective and gradient of a batch equal :func:`linear_pu_objective` and its ``jax.grad`` problem
    by problem; ``C="auto"`` keeps the candidate of lowest zero-one uPU risk summed over the validation folds,
    re-derived here from one fixed-``C`` fit per fold and candidate."""
    import jax
    import jax.numpy as jnp

    from pujax.meta import NNPULinearClassifier, linear_pu_objective
    from pujax.meta.nnpu_linear import C_GRID, _folds, _PUObjective
    from pujax.random import host_rng

    X, y, s = _blobs(n=150, seed=11, c=0.4, d=3)
    r = np.random.default_rng(2)
    Z, W, C = _standardised(X.astype(np.float64), np.ones(150)), r.uniform(0.5, 2.0, (4, 150)), np.array([.1, 1, 3, 9])
    Theta = r.normal(size=(4, 4))
    for loss in ("sigmoid", "logistic", "quadratic", "savage", "double_hinge"):
        for risk in ("nnpu", "upu"):
            values, grads = _PUObjective(Z, s, W, 0.45, C, loss, risk == "nnpu")(Theta)
            for b in range(4):
                f = lambda t: linear_pu_objective((t[:-1], t[-1]), jnp.asarray(Z, jnp.float32), jnp.asarray(s),  # noqa
                                                  jnp.asarray(W[b], jnp.float32), 0.45, C[b], loss, risk)
                v, g = jax.value_and_grad(f)(jnp.asarray(Theta[b], jnp.float32))
                np.testing.assert_allclose(values[b], float(v), rtol=1e-5, atol=1e-6)
                np.testing.assert_allclose(grads[b], np.asarray(g), rtol=1e-4, atol=1e-5)
    prior = float(y[s == 0].mean())
    clf = NNPULinearClassifier(prior, n_folds=3, random_state=7).fit(X, s)
    fold = _folds(s, np.ones(150), 3, host_rng(jax.random.PRNGKey(7)))
    risk = np.zeros(len(C_GRID))
    for i, c in enumerate(C_GRID):
        for k in range(3):
            m = NNPULinearClassifier(prior, C=c).fit(X[fold != k], s[fold != k])
            g, sk = m.decision_function(X[fold == k]), s[fold == k]
            risk[i] += prior * np.mean(g[sk == 1] <= 0) + np.mean(g[sk == 0] >= 0) - prior * np.mean(g[sk == 1] >= 0)
    assert clf.C_ == C_GRID[int(np.argmin(risk))]
    full = NNPULinearClassifier(prior, C=clf.C_).fit(X, s)
    np.testing.assert_allclose(clf.decision_function(X), full.decision_function(X), rtol=1e-4, atol=1e-4)


def test_linear_pu_rbf_weights_and_compilation():
    from pujax.compilation import count_compilations
    from pujax.meta import NNPULinearClassifier
    from pujax.meta.nnpu_linear import C_GRID

    r = np.random.default_rng(10)
    X = r.uniform(-2, 2, size=(500, 2)).astype(np.float32)
    y = (np.sum(X**2, 1) < 1.5).astype(int)  # a disc: not linearly separable
    s = ((y == 1) & (r.random(500) < 0.5)).astype(int)
    prior = float(y[s == 0].mean())
    lin = NNPULinearClassifier(prior).fit(X, s)
    rbf = NNPULinearClassifier(prior, kernel="rbf", n_components=200, gamma=1.0, random_state=0).fit(X, s)
    assert np.mean(rbf.predict(X) == y) > 0.85 > np.mean(lin.predict(X) == y) + 0.05
    # integer weights equal repeated rows (as many rows in all: the same bucket, nothing compiled again)
    k = np.ones(500, int)
    k[:100], k[100:200] = 0, 2
    a = NNPULinearClassifier(prior, loss="logistic", C=1.0).fit(X, s, sample_weight=k)
    b = NNPULinearClassifier(prior, loss="logistic", C=1.0).fit(np.repeat(X, k, 0), np.repeat(s, k))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-3, atol=1e-3)
    # the linear model's fit compiles nothing, even on a shape never seen (the objective is NumPy)
    with count_compilations() as counter:
        clf = NNPULinearClassifier(prior, random_state=0).fit(X[:-37, :1], s[:-37])
        clf.predict(X[:11, :1])
    assert counter.count == 0 and clf.C_ in C_GRID


# ------------------------------------------------------------------------------------------------ units (issue 26)
def _meta_estimators():
    from pujax.meta import NNPULinearClassifier, PUBaggingClassifier, SAREMClassifier, TwoStepClassifier

    return [ElkanNotoClassifier(random_state=0), PUBaggingClassifier(n_estimators=10, random_state=0),
            TwoStepClassifier(random_state=0), SAREMClassifier(max_iter=5), NNPULinearClassifier(random_state=0)]


@pytest.fixture(scope="module")
def meta_refs():
    rng = np.random.default_rng(0)
    n = 300
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(size=(n, 4)) + 1.5 * y[:, None]
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(int)
    return X, y, s, [est.fit(X, s) for est in _meta_estimators()]


@pytest.mark.parametrize("a,b", [(1e-6, 0.0), (1e6, 0.0), (1.0, 1e7), (1e3, -1e7), (1e-6, 1e7)])
def test_meta_affine_invariant_predictions(meta_refs, a, b):
    """Every meta-estimator with its default base models predicts on a·X + b as on X (>= 99 % of rows) with
    finite probabilities and scores: X is standardised in float64 before the base models (a regularised
    LogisticRegression depends on the units, scikit-learn's trees cast to float32 and lose an offset of 1e7)."""
    X, y, s, refs = meta_refs
    Xt = a * X + b
    for ref, est in zip(refs, _meta_estimators()):
        name = type(est).__name__
        est.fit(Xt, s)
        p, d = est.predict_proba(Xt), est.decision_function(Xt)
        assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1)) and np.all(np.isfinite(d)), name
        assert np.mean(est.predict(Xt) == ref.predict(X)) >= 0.99, name
        assert np.mean(ref.predict(X) == y) > 0.7, name  # the reference is a sensible classifier
