"""pujax.svm: batched SMO solver vs sklearn SVC, KKT, vmap-vs-loop, eq. 5, estimators, model selection."""
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from pujax.data.synthetic import make_circle_data, make_label_noise_setting
from pujax.metrics import pu_score, pu_scorer
from pujax.svm import (
    BaggingSVMClassifier,
    CWSVMClassifier,
    RESVMClassifier,
    dual_objective,
    ensemble_decision,
    kernel_matrix,
    kkt_violation,
    pu_grid_search,
    solve_svm,
    solve_svm_batch,
    vote_fraction,
)

N, D, N_TEST = 120, 4, 600
KERNELS = [("rbf", dict(gamma=0.3)), ("linear", dict()), ("poly", dict(gamma=0.5, coef0=1.0, degree=2))]
C_POS, C_NEG = [4.0, 0.5, 2.0], [1.0, 0.2, 0.7]
TOL = 1e-4


def _problem(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D)).astype(np.float32)
    y = np.where(X[:, 0] - 0.7 * X[:, 1] ** 2 + 0.6 * rng.normal(size=N) > 0, 1.0, -1.0).astype(np.float32)
    Xt = rng.normal(size=(N_TEST, D)).astype(np.float32)
    return X, y, Xt


@pytest.fixture(scope="module")
def batch():
    """Three random problems (rbf, linear, poly kernels; per-class C) solved in ONE batched call."""
    probs = [_problem(k) for k in range(3)]
    Ks = jnp.stack([kernel_matrix(X, X, name, **kw) for (X, _, _), (name, kw) in zip(probs, KERNELS)])
    ys = np.stack([p[1] for p in probs])
    Cs = np.stack([np.where(p[1] > 0, cp, cn) for p, cp, cn in zip(probs, C_POS, C_NEG)]).astype(np.float32)
    idx = jnp.broadcast_to(jnp.arange(N), (3, N))
    sol = solve_svm_batch(Ks, idx, jnp.asarray(ys), jnp.asarray(Cs), tol=TOL)
    return probs, Ks, ys, Cs, sol


def test_solver_matches_sklearn_svc(batch):
    probs, Ks, ys, Cs, sol = batch
    for k, ((X, y, Xt), (name, kw)) in enumerate(zip(probs, KERNELS)):
        svc = SVC(C=1.0, kernel=name, class_weight={1: C_POS[k], -1: C_NEG[k]}, tol=TOL, **kw).fit(X, y)
        ref = svc.decision_function(Xt)
        ours = np.asarray(kernel_matrix(Xt, X, name, **kw)) @ (np.asarray(sol.alpha[k]) * y) + float(sol.bias[k])
        agree = np.mean(np.sign(ours) == np.sign(ref))
        corr = np.corrcoef(ours, ref)[0, 1]
        assert agree >= 0.995, (name, agree)
        assert corr >= 0.999, (name, corr)
        # same optimum: dual objectives agree (sklearn's dual_coef_ = alpha * y on its support vectors)
        a_ref = np.zeros(N)
        a_ref[svc.support_] = np.abs(svc.dual_coef_[0])
        f_ref = float(dual_objective(jnp.asarray(Ks[k], jnp.float32), jnp.arange(N), y,
                                     jnp.asarray(a_ref, jnp.float32)))
        f_ours = float(dual_objective(Ks[k], jnp.arange(N), y, sol.alpha[k]))
        assert f_ours <= f_ref + 1e-3 * max(1.0, abs(f_ref))


def test_kkt_conditions_hold(batch):
    probs, Ks, ys, Cs, sol = batch
    assert bool(np.all(sol.converged))
    for k in range(3):
        a = np.asarray(sol.alpha[k])
        assert np.all(a >= 0) and np.all(a <= Cs[k] + 1e-6)
        assert abs(float(np.sum(a * ys[k]))) < 1e-3 * max(1.0, float(np.sum(a)))
        gap = float(kkt_violation(Ks[k], jnp.arange(N), ys[k], Cs[k], sol.alpha[k]))
        assert gap <= TOL * 1.01
        # complementary slackness with the returned bias: margins of free SVs are 1
        f = np.asarray(Ks[k]) @ (a * ys[k]) + float(sol.bias[k])
        m = ys[k] * f
        free = (a > 1e-5) & (a < Cs[k] - 1e-5)
        assert np.all(np.abs(m[free] - 1) < 5 * TOL)
        assert np.all(m[a <= 1e-7] >= 1 - 5 * TOL)
        assert np.all(m[a >= Cs[k] - 1e-7] <= 1 + 5 * TOL)


def test_batched_equals_one_by_one(batch):
    probs, Ks, ys, Cs, sol = batch
    single = jax.jit(lambda K, y, C: solve_svm(K, jnp.arange(N), y, C, tol=TOL))
    for k in range(3):
        s1 = single(Ks[k], jnp.asarray(ys[k]), jnp.asarray(Cs[k]))
        np.testing.assert_allclose(np.asarray(s1.alpha), np.asarray(sol.alpha[k]), atol=1e-4)
        np.testing.assert_allclose(float(s1.bias), float(sol.bias[k]), atol=1e-4)
        assert int(s1.n_iter) == int(sol.n_iter[k])


def test_padding_and_bootstrap_repeats_are_exact():
    """A masked (C = 0) slot changes nothing; a row repeated r times equals one row with bound r * C."""
    X, y, _ = _problem(7)
    K = kernel_matrix(X, X, "rbf", gamma=0.3)
    C = np.where(y > 0, 2.0, 1.0).astype(np.float32)
    base = solve_svm_batch(K, jnp.arange(N)[None], jnp.asarray(y)[None], jnp.asarray(C)[None], tol=TOL)
    # pad with 8 masked slots pointing at arbitrary rows
    idx = np.concatenate([np.arange(N), np.arange(8)])[None]
    yp = np.concatenate([y, np.ones(8, np.float32)])[None]
    Cp = np.concatenate([C, np.zeros(8, np.float32)])[None]
    pad = solve_svm_batch(K, jnp.asarray(idx), jnp.asarray(yp), jnp.asarray(Cp), tol=TOL)
    np.testing.assert_allclose(np.asarray(pad.alpha[0, :N]), np.asarray(base.alpha[0]), atol=1e-4)
    assert np.all(np.asarray(pad.alpha[0, N:]) == 0)
    # the bias agrees as well
    np.testing.assert_allclose(float(pad.bias[0]), float(base.bias[0]), atol=1e-4)


def test_eq5_hand_examples():
    psi = jnp.array([[0.5, -0.2, 0.3, 0.1],   # 3 of 4 positive -> v = 0.75
                     [-1.0, -0.5, -0.25, -2.0],  # unanimous negative -> sum = -3.75
                     [0.5, 1.0, 0.25, 2.0],  # unanimous positive -> 1 + 3.75
                     [0.5, -0.5, 0.0, 1.0]])  # a zero counts half (sgn 0): v = (4 + 1) / 8
    v = np.asarray(vote_fraction(psi))
    d = np.asarray(ensemble_decision(psi))
    np.testing.assert_allclose(v, [0.75, 0.0, 1.0, 0.625])
    np.testing.assert_allclose(d, [0.75, -3.75, 4.75, 0.625])
    from pujax.svm import ensemble_scores  # host twin used at predict time

    np.testing.assert_allclose(ensemble_scores(np.asarray(psi)), d, rtol=1e-6)
    # out-of-bag weights: the vote over the kept models, unanimous sums rescaled to all 4 models
    w = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 0, 1, 1], [0, 0, 0, 0]])
    np.testing.assert_allclose(ensemble_scores(np.asarray(psi), w), [0.5, -3.0, 1 + 4 * 2.75 / 3, 0.625], rtol=1e-6)


@pytest.fixture(scope="module")
def pu_data():
    X, y = make_circle_data(0, 300, 300)
    Xtr, s, ytr = make_label_noise_setting(1, X, y, "pu", n_pos=40, n_unl=120, contamination=0.3)
    Xte, yte = make_circle_data(2, 200, 200)
    return Xtr, s, ytr, Xte, yte


@pytest.fixture(scope="module")
def resvm(pu_data):
    Xtr, s, _, _, _ = pu_data
    return RESVMClassifier(n_estimators=10, n_pos=20, max_samples=60, C=1.0, w_pos=2.0, prior=None,
                           random_state=0).fit(Xtr, s)


def test_resvm_fit_predict(resvm, pu_data):
    Xtr, s, _, Xte, yte = pu_data
    est = resvm
    assert est.C_pos_ == pytest.approx(1.0 * 2.0 * 60 / 20) and est.C_unl_ == 1.0
    assert est.dual_coef_.shape == (10, est.support_vectors_.shape[0])
    psi = est.base_decision_function(Xte)
    # dense prediction = per-model kernel algebra on standardized rows, recomputed in numpy
    mean, scale = Xtr.mean(0), Xtr.std(0)
    np.testing.assert_allclose(est.model_.x_mean, mean, rtol=1e-6)
    np.testing.assert_allclose(est.model_.x_scale, scale, rtol=1e-6)
    Z, SV = (Xte - mean) / scale, (est.support_vectors_ - mean) / scale
    assert est.gamma_ == pytest.approx(1.0 / (Xtr.shape[1] * ((Xtr - mean) / scale).var()), rel=1e-5)
    Kx = np.exp(-est.gamma_ * ((Z[:, None, :] - SV[None]) ** 2).sum(-1))
    np.testing.assert_allclose(psi, Kx @ est.dual_coef_.T + est.intercept_, rtol=1e-3, atol=1e-3)
    v = (10 + np.sign(psi).sum(1)) / 20
    d = np.where(v == 0, psi.sum(1), np.where(v == 1, 1 + psi.sum(1), v))
    np.testing.assert_allclose(est.decision_function(Xte), d - 0.5, rtol=1e-5, atol=1e-5)
    proba = est.predict_proba(Xte)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    mixed = (v > 0) & (v < 1)
    delta = 1 / 40  # 1 / (4 n_models)
    np.testing.assert_allclose(proba[mixed, 1], delta + (1 - 2 * delta) * v[mixed], atol=1e-6)
    assert np.all(proba[v == 0, 1] <= delta) and np.all(proba[v == 1, 1] >= 1 - delta)
    order = np.argsort(d, kind="stable")  # proba ranks rows like decision_function
    assert np.all(np.diff(proba[order, 1]) >= -1e-12)
    np.testing.assert_array_equal(proba[:, 1] > 0.5, est.decision_function(Xte) > 0)
    np.testing.assert_array_equal(est.predict(Xte), (v > 0.5).astype(int))
    assert est.score(Xte, yte) > 0.9
    # each base model solved its CWSVM exactly
    assert np.all(est.kkt_gap_ <= est.tol)


def test_cwsvm_equals_sklearn(pu_data):
    Xtr, s, _, Xte, _ = pu_data
    est = CWSVMClassifier(C_pos=3.0, C_unl=0.5, gamma=0.5, tol=TOL, prior=None).fit(Xtr, s)  # the SVM's own sign
    scaler = StandardScaler().fit(Xtr)  # the estimator standardizes inside fit
    svc = SVC(C=1.0, gamma=0.5, class_weight={1: 3.0, 0: 0.5}, tol=TOL).fit(scaler.transform(Xtr), s)
    ours, ref = est.decision_function(Xte), svc.decision_function(scaler.transform(Xte))
    assert np.corrcoef(ours, ref)[0, 1] > 0.999
    assert np.mean(est.predict(Xte) == svc.predict(scaler.transform(Xte))) >= 0.995
    p = est.predict_proba(Xte)
    assert np.all((p >= 0) & (p <= 1)) and np.allclose(p.sum(1), 1)


@pytest.mark.parametrize("kernel, kw", KERNELS)
def test_batched_scores_of_many_svms_equal_each_svms_own(pu_data, kernel, kw):
    """``CWSVMClassifier.positive_proba_bags`` (one program for all copies) equals every copy's own
    ``predict_proba``, on all rows and on per-copy row subsets, with features of large offset and unequal scales
    (each copy standardises with its own statistics)."""
    Xtr, s, _, Xte, _ = pu_data
    offset = np.array([1e6, -3e4, 0.0, 50.0])[:Xtr.shape[1]] * np.ones(Xtr.shape[1])
    Xtr, Xte = Xtr * np.arange(1, Xtr.shape[1] + 1) + offset, Xte * np.arange(1, Xtr.shape[1] + 1) + offset
    U = np.flatnonzero(s == 0)
    rng = np.random.default_rng(0)
    bags = [rng.choice(U, size=k, replace=True) for k in (30, 45, 60)]
    copies = CWSVMClassifier(C_pos=2.0, tol=TOL, kernel=kernel, **kw).fit_bags(Xtr, s, bags)
    ref = np.stack([c.predict_proba(Xte)[:, 1] for c in copies])
    np.testing.assert_allclose(CWSVMClassifier.positive_proba_bags(copies, Xte), ref, rtol=1e-4, atol=1e-5)
    rows = np.stack([rng.permutation(len(Xte))[:37] for _ in copies])
    sub = CWSVMClassifier.positive_proba_bags(copies, Xte, rows)
    np.testing.assert_allclose(sub, np.take_along_axis(ref, rows, axis=1), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="rows"):
        CWSVMClassifier.positive_proba_bags(copies, Xte, rows[:2])


def test_bagging_uses_all_positives(pu_data):
    Xtr, s, _, Xte, yte = pu_data
    est = BaggingSVMClassifier(n_estimators=10, max_samples=60, C=0.5, random_state=0).fit(Xtr, s)
    assert est.n_pos_ == int(s.sum()) and est.n_unl_ == 60
    assert est.C_pos_ * est.n_pos_ == pytest.approx(est.C_unl_ * est.n_unl_)  # eq. 2
    # same seed -> same model; another seed -> another one
    again = BaggingSVMClassifier(n_estimators=10, max_samples=60, C=0.5, random_state=0).fit(Xtr, s)
    np.testing.assert_allclose(again.decision_function(Xte), est.decision_function(Xte))
    assert est.score(Xte, yte) > 0.9


def test_bad_input(pu_data):
    Xtr, s, _, Xte, _ = pu_data
    with pytest.raises(NotFittedError):
        RESVMClassifier().predict(Xte)
    for kwargs, err in [(dict(kernel="sigmoid"), ValueError), (dict(n_estimators=0), ValueError),
                        (dict(C=-1.0), ValueError), (dict(w_pos=0.0), ValueError), (dict(n_pos=1.5), ValueError),
                        (dict(max_samples="all"), ValueError), (dict(max_samples=[3]), TypeError),
                        (dict(n_models=0), ValueError), (dict(prior=1.5), ValueError), (dict(gamma="big"), ValueError),
                        (dict(gamma=-1.0), ValueError), (dict(tol=0.0), ValueError)]:
        with pytest.raises(err):
            RESVMClassifier(**kwargs).fit(Xtr, s)
    with pytest.raises(ValueError, match="s"):
        RESVMClassifier().fit(Xtr, np.ones_like(s))
    with pytest.raises(ValueError, match="NaN"):
        RESVMClassifier().fit(np.full_like(Xtr, np.nan), s)
    with pytest.raises(ValueError):
        CWSVMClassifier(C_pos=0.0).fit(Xtr, s)


def test_save_load_pickle(resvm, pu_data, tmp_path):
    Xte = pu_data[3]
    ref = resvm.decision_function(Xte)
    resvm.save(tmp_path / "m")
    loaded = RESVMClassifier.load(tmp_path / "m")
    np.testing.assert_allclose(loaded.decision_function(Xte), ref)
    again = pickle.loads(pickle.dumps(resvm))
    np.testing.assert_allclose(again.decision_function(Xte), ref)
    with pytest.raises(ValueError, match="features"):
        resvm.predict(Xte[:, :1])


@pytest.mark.parametrize("uniform", [True, False])
def test_problems_sharing_a_kernel_matrix_equal_each_problem_alone(uniform):
    """solve_problems builds one kernel matrix for problems on the same rows and kernel parameters (a C grid on the
    same resamples); each solution equals the problem solved alone on its own kernel matrix."""
    from pujax.svm.core import _shared_kernels, solve_problems
    from pujax.svm.problems import Problems

    X, y, _ = _problem(11)
    rng = np.random.default_rng(0)
    rows = [rng.choice(N, 90, replace=True) for _ in range(2)]
    specs = [(r, g, c) for r in range(2) for g in (0.3, 0.8) for c in (0.5, 2.0, 8.0)]  # groups of 3 problems
    if not uniform:
        specs = specs[:-1]  # one group of 2: no sharing
    idx = np.stack([rows[r] for r, _, _ in specs]).astype(np.int32)
    ys = y[idx]
    Cs = np.stack([np.where(y[rows[r]] > 0, 2 * c, c) for r, _, c in specs]).astype(np.float32)
    gammas = np.array([g for _, g, _ in specs])
    order, G = _shared_kernels(idx, gammas, np.zeros(len(specs)))
    assert G == (3 if uniform else 1) and sorted(order) == list(range(len(specs)))
    sol = solve_problems(X, Problems(idx, ys, Cs), kernel="rbf", gamma=gammas, tol=TOL)
    one = jax.jit(lambda K, y_, C_: solve_svm(K, None, y_, C_, tol=TOL))
    for k, (r, g, _) in enumerate(specs):
        ref = one(kernel_matrix(X[rows[r]], X[rows[r]], "rbf", gamma=g), jnp.asarray(ys[k]), jnp.asarray(Cs[k]))
        np.testing.assert_allclose(sol.alpha[k], np.asarray(ref.alpha), atol=1e-4)
        np.testing.assert_allclose(sol.bias[k], float(ref.bias), atol=1e-4)
        assert sol.converged[k]


def test_gridsearchcv_with_pu_scorer(pu_data):
    Xtr, s, _, _, _ = pu_data
    gs = GridSearchCV(RESVMClassifier(n_estimators=10, n_pos=20, max_samples=60, random_state=0),
                      {"C": [0.5, 2.0]}, scoring=pu_scorer, cv=2).fit(Xtr, s)
    assert gs.best_params_["C"] in (0.5, 2.0)
    assert np.all(np.isfinite(gs.cv_results_["mean_test_score"]))


@pytest.mark.parametrize("prior", [None, 0.4])
def test_pu_grid_search_matches_manual_cv(pu_data, prior):
    """The batched protocol gives the same fold scores as fitting each fold separately (CWSVM: no randomness), with
    the SVM's own sign and with a prior threshold."""
    Xtr, s, _, _, _ = pu_data
    grid = {"C_pos": [1.0, 4.0], "C_unl": [0.5]}
    res = pu_grid_search(CWSVMClassifier(gamma=0.5, prior=prior), grid, Xtr, s, cv=2, random_state=3)
    from sklearn.model_selection import StratifiedKFold

    from pujax.random import as_key, host_rng

    seed = int(host_rng(as_key(3)).integers(0, 2**31 - 1, size=2)[0])  # the folds' seed (the second: the refit)
    folds = list(StratifiedKFold(2, shuffle=True, random_state=seed).split(Xtr, s))
    for g, params in enumerate(res.cv_results_["params"]):
        for f, (tr, va) in enumerate(folds):
            est = CWSVMClassifier(gamma=0.5, prior=prior, **params).fit(Xtr[tr], s[tr])
            manual = float(pu_score(s[va], est.predict(Xtr[va])))
            assert res.cv_results_[f"split{f}_test_score"][g] == pytest.approx(manual, rel=1e-3)
    assert res.best_estimator_.get_params()["C_pos"] == res.best_params_["C_pos"]
    assert res.best_index_ == int(np.argmax(res.cv_results_["mean_test_score"]))


def test_synthetic_generator():
    X, y = make_circle_data(0, 2000, 2000)
    pos, neg = X[y == 1], X[y == 0]
    assert np.allclose(pos.mean(0), 0, atol=0.1) and np.allclose(pos.std(0), 1, atol=0.1)
    r = np.linalg.norm(neg, axis=1)
    assert abs(np.mean(r) - 4.1) < 0.2  # E|4u + e| slightly above 4
    for setting, (cp, cu) in {"supervised": (0, 0), "pu": (0, 0.3), "semi-supervised": (0.3, 0.3)}.items():
        Xt, s, yt = make_label_noise_setting(1, X, y, setting, n_pos=100, n_unl=200, contamination=0.3)
        assert s.sum() == 100 and len(s) == 300
        assert np.mean(yt[:100] == 0) == pytest.approx(cp) and np.mean(yt[100:] == 1) == pytest.approx(cu)
    with pytest.raises(ValueError):
        make_label_noise_setting(1, X, y, "noisy", n_pos=10, n_unl=10)


# ---------------------------------------------------------------------------------------------------- numerics
_SCALE_ESTIMATORS = {
    "RESVM": lambda: RESVMClassifier(n_estimators=5, n_pos=20, max_samples=60, random_state=0),
    "BAG": lambda: BaggingSVMClassifier(n_estimators=5, max_samples=60, random_state=0),
    "CWSVM": lambda: CWSVMClassifier(C_pos=3.0, random_state=0),
}


@pytest.fixture(scope="module")
def scale_reference(pu_data):
    Xtr, s, _, Xte, _ = pu_data
    Xtr, Xte = Xtr.astype(np.float64), Xte.astype(np.float64)
    return Xtr, s, Xte, {k: make().fit(Xtr, s).predict(Xte) for k, make in _SCALE_ESTIMATORS.items()}


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(log_a=st.floats(-6.0, 6.0), b=st.floats(-1e7, 1e7))
@example(log_a=-6.0, b=1e7)
@example(log_a=6.0, b=-1e7)
@example(log_a=-6.0, b=-1e7)
def test_predictions_invariant_to_units_and_offsets(scale_reference, log_a, b):
    """Predictions on a X + b equal those on X (>= 99 % of rows) for a in [1e-6, 1e6], b in [-1e7, 1e7]: the
    estimators standardize in float64 inside fit (a float32 kernel on raw features loses everything at b = 1e7)."""
    Xtr, s, Xte, ref = scale_reference
    a = 10.0 ** log_a
    for name, make in _SCALE_ESTIMATORS.items():
        est = make().fit(a * Xtr + b, s)
        scores = est.decision_function(a * Xte + b)
        assert np.all(np.isfinite(scores)), name
        assert np.mean(est.predict(a * Xte + b) == ref[name]) >= 0.99, (name, a, b)


@pytest.mark.parametrize("factor", [1e20, 1e-30])
def test_extreme_scales_give_finite_scores_and_bounded_gamma(pu_data, factor):
    Xtr, s, _, Xte, _ = pu_data
    Xtr, Xte = Xtr.astype(np.float64) * factor, Xte.astype(np.float64) * factor
    for name, make in _SCALE_ESTIMATORS.items():
        est = make().fit(Xtr, s)
        assert 0 < est.gamma_ <= 1.0, name  # "scale" on standardized features: 1 / (number of varying features)
        for Z in (Xte, Xte * 1e3, -Xte):  # also rows far outside the training range
            d = est.decision_function(Z)
            p = est.predict_proba(Z)
            assert np.all(np.isfinite(d)) and np.all((p >= 0) & (p <= 1)), name
            np.testing.assert_array_equal(p[:, 1] > 0.5, d > 0)


def test_deprecated_names_warn_and_map(pu_data):
    Xtr, s, _, Xte, _ = pu_data
    new = RESVMClassifier(n_estimators=5, max_samples=50, random_state=0).fit(Xtr, s)
    with pytest.warns(FutureWarning) as record:
        old = RESVMClassifier(n_models=5, n_unl=50, random_state=0).fit(Xtr, s)
    assert {"n_models", "n_unl"} <= {w for r in record for w in ("n_models", "n_unl") if w in str(r.message)}
    assert old.dual_coef_.shape[0] == 5 and old.n_unl_ == 50
    np.testing.assert_array_equal(old.decision_function(Xte), new.decision_function(Xte))
    with pytest.warns(FutureWarning, match="n_unl"):
        BaggingSVMClassifier(n_estimators=3, n_unl=40, random_state=0).fit(Xtr, s)


# ---------------------------------------------------------------------------------------------------- devices
_DEVICES_SCRIPT = r"""
import json, sys
import jax, numpy as np
from pujax.data.synthetic import make_circle_data, make_label_noise_setting
from pujax.svm import BaggingSVMClassifier, RESVMClassifier
from pujax.svm import core
X, y = make_circle_data(0, 300, 300)
Xtr, s, _ = make_label_noise_setting(1, X, y, "pu", n_pos=40, n_unl=120, contamination=0.3)
Xte, _ = make_circle_data(2, 500, 500)
core._KERNEL_BUDGET = 4 * 128 * 128  # small blocks: several blocks, each split over the devices
out = {"n_devices": jax.device_count()}
# a given prior: the prior estimate over devices is tested in test_devices.py
for name, make in [("RESVM", lambda d: RESVMClassifier(13, n_pos=20, max_samples=60, random_state=0, devices=d,
                                                       prior=0.4)),
                   ("BAG", lambda d: BaggingSVMClassifier(9, max_samples=50, random_state=1, devices=d, prior=0.4))]:
    one, four = make(1).fit(Xtr, s), make(4).fit(Xtr, s)
    out[name] = float(np.mean(one.predict(Xte) == four.predict(Xte)))
    same = one.dual_coef_.shape == four.dual_coef_.shape
    out[name + "_coef"] = float(np.max(np.abs(one.dual_coef_ - four.dual_coef_))) if same else 1e9
# a C x w_pos grid: the problems of a fold's resample share a kernel matrix, split over the devices by matrix
from pujax.svm import pu_grid_search
g1, g4 = (pu_grid_search(RESVMClassifier(7, n_pos=20, max_samples=60, random_state=0, devices=d, prior=0.4),
                         {"C": [0.5, 2.0], "w_pos": [1.0, 3.0]}, Xtr, s, cv=2, random_state=0) for d in (1, 4))
out["GRID"] = float(np.mean(g1.best_estimator_.predict(Xte) == g4.best_estimator_.predict(Xte)))
out["GRID_scores"] = float(np.max(np.abs(g1.cv_results_["mean_test_score"] - g4.cv_results_["mean_test_score"])))
print("RESULT " + json.dumps(out))
"""


def test_same_predictions_on_one_and_four_devices():
    """Base models split over 4 forced CPU devices (shard_map) give the 1-device model (>= 99.9 % of predictions);
    a grid search gives the same fold scores."""
    import json
    import os
    import subprocess
    import sys

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu",
               PYTHONPATH=repo + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", _DEVICES_SCRIPT], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and line, proc.stderr[-3000:]
    out = json.loads(line[-1][7:])
    assert out["n_devices"] == 4
    for name in ("RESVM", "BAG", "GRID"):
        assert out[name] >= 0.999, out
    for name in ("RESVM", "BAG"):
        assert out[name + "_coef"] < 1e-3, out
    assert out["GRID_scores"] < 1e-6, out


@pytest.mark.parametrize("n_sv", [300, 2500])
def test_base_decisions_equal_a_numpy_rbf_expansion(n_sv):
    """psi_k(x) = sum_i coef_ki K(x, sv_i) + b_k (float64 numpy) for a model with fewer and with more support
    vectors than one scoring block (more: the blocks of support vectors are summed one after the other)."""
    from pujax.svm import core

    rng = np.random.default_rng(n_sv)
    d, B = 7, 5
    SV, X = rng.normal(size=(n_sv, d)).astype(np.float32), rng.normal(size=(333, d))
    coef, bias = rng.normal(size=(B, n_sv)).astype(np.float32) / n_sv, rng.normal(size=B).astype(np.float32)
    f = np.float32
    model = core.SVMModel(SV, coef, bias, np.zeros(d), np.ones(d), np.asarray(1, np.int32), np.asarray(0.2, f),
                          np.asarray(0.0, f), np.asarray(3, np.int32), np.asarray(0.5, f), np.asarray(True),
                          np.zeros(B, np.int32), np.zeros(B, f))
    X32 = X.astype(np.float32).astype(np.float64)
    K = np.exp(-0.2 * ((X32[:, None, :] - SV[None].astype(np.float64)) ** 2).sum(-1))
    np.testing.assert_allclose(core.svm_base_decision(model, X), K @ coef.T.astype(np.float64) + bias, rtol=1e-4,
                               atol=1e-5)


def test_refit_in_the_same_size_bucket_compiles_nothing(pu_data):
    """Rows, resample widths and predict batches are padded to size buckets: a refit on fewer rows of the same
    bucket, and a predict on another batch size, reuse the compiled programs."""
    from pujax.compilation import count_compilations

    Xtr, s, _, Xte, _ = pu_data
    make = lambda: RESVMClassifier(n_estimators=6, prior=0.3, random_state=0)  # noqa: E731
    make().fit(Xtr, s).predict(Xte[:150])
    keep = np.r_[np.arange(39), np.arange(40, len(s) - 3)]  # 1 labeled and 3 unlabeled rows fewer
    with count_compilations() as c:
        make().fit(Xtr[keep], s[keep]).predict(Xte[:140])
    assert c.count == 0, c


def test_refit_with_unlabeled_rows_in_a_smaller_bucket_compiles_nothing():
    """The unlabeled rows that set the threshold of eq. 6 are scored in chunks of the training rows' bucket: a refit
    whose U rows fall into a smaller bucket (190 -> 181) while all its rows stay in one (270 -> 261) compiles
    nothing."""
    from pujax.compilation import bucket_size, count_compilations

    X, y = make_circle_data(0, 300, 300)
    Xtr, s, _ = make_label_noise_setting(1, X, y, "pu", n_pos=80, n_unl=190, contamination=0.3)
    keep = np.r_[np.flatnonzero(s == 1), np.flatnonzero(s == 0)[9:]]  # 148-163 support vectors: one padding (256)
    assert bucket_size(len(s)) == bucket_size(len(keep)) and bucket_size(190) != bucket_size(181)
    make = lambda: RESVMClassifier(n_estimators=6, prior=0.3, random_state=0)  # noqa: E731
    make().fit(Xtr, s)
    with count_compilations() as c:
        make().fit(Xtr[keep], s[keep])
    assert c.count == 0, c


# ---------------------------------------------------------------------------------------------------- prior threshold
def test_duplicate_groups_and_grouped_in_bag_match_brute_force():
    from pujax.preprocessing import duplicate_groups
    from pujax.svm.problems import Problems, in_bag

    X = np.array([[0.0, 1.0], [2.0, 3.0], [0.0, 1.0], [5.0, 5.0], [2.0, 3.0], [0.0, 1.0]])
    g = duplicate_groups(X)
    for i in range(len(X)):
        for j in range(len(X)):
            assert (g[i] == g[j]) == bool(np.array_equal(X[i], X[j]))
    idx = np.array([[0, 3, 3, 1], [4, 4, 5, 2]])
    C = np.array([[1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]])  # C = 0: padded slots (row 3 in model 0 stays out)
    p = Problems(idx, np.ones_like(C), C)
    ref = np.array([[any(np.array_equal(X[r], X[idx[b, k]]) for k in range(4) if C[b, k] > 0) for b in range(2)]
                    for r in range(len(X))])
    np.testing.assert_array_equal(in_bag(p, len(X), g), ref)
    plain = np.array([[any(r == idx[b, k] for k in range(4) if C[b, k] > 0) for b in range(2)] for r in range(len(X))])
    np.testing.assert_array_equal(in_bag(p, len(X)), plain)


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8])
def test_duplicate_groups_equal_numpy_unique_rows(dtype, collide, monkeypatch):
    """Groups of identical rows equal ``np.unique(X, axis=0)``'s, numbered by first occurrence, for rows whose byte
    width is or is not a multiple of 4, also when every row hashes alike (zero multipliers: each row is compared
    with its hash group's first row, the mismatch sends all rows to the exact byte grouping)."""
    import pujax.preprocessing as pre

    if collide:
        monkeypatch.setattr(pre, "_hash_multipliers", lambda m: np.zeros(m, np.uint64))
    rng = np.random.default_rng(3)
    for d in (1, 3, 7):
        X = rng.integers(0, 3, (400, d)).astype(dtype)  # many repeats
        _, inv = np.unique(X, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        first = {}
        ref = np.array([first.setdefault(g, len(first)) for g in inv])  # renumbered by first occurrence
        np.testing.assert_array_equal(pre.duplicate_groups(X), ref)


@pytest.mark.parametrize("max_rows", [None, 37])
def test_prior_threshold_matches_numpy_rederivation(max_rows, monkeypatch):
    """Case-control data (the labeled rows are copies of unlabeled ones): T of eq. 6 re-derived by brute force --
    each unlabeled row scored (eq. 5) only by the base models that trained neither on it nor on an identical row,
    T the midpoint between consecutive scores whose share of scores above it is closest to the prior."""
    from pujax.random import as_key
    from pujax.svm import core
    from pujax.svm.problems import draw_problems

    if max_rows is not None:
        monkeypatch.setattr(core, "THRESHOLD_ROWS", max_rows)
    X, y = make_circle_data(4, 60, 60)
    P = np.flatnonzero(y == 1)[:25]
    Xpu, s = np.r_[X[P], X], np.r_[np.ones(25, int), np.zeros(len(X), int)]
    prior = 0.5
    est = RESVMClassifier(7, n_pos=12, max_samples=40, C=1.0, prior=prior, random_state=5).fit(Xpu, s)
    key = as_key(5)
    problems = draw_problems(key, s, est.ensemble_spec(25, len(X)))
    U = np.flatnonzero(s == 0)
    if max_rows is not None:
        U = core.threshold_rows(key, s, max_rows)
        assert U.size == max_rows and np.all(s[U] == 0) and np.all(np.diff(U) > 0)
    psi = est.base_decision_function(Xpu[U])
    scores = []
    for r, row in enumerate(U):
        keep = [b for b in range(7) if not any(np.array_equal(Xpu[row], Xpu[i])
                                               for i, c in zip(problems.idx[b], problems.C[b]) if c > 0)]
        keep = keep or list(range(7))
        votes = np.mean([psi[r, b] > 0 for b in keep])
        total = psi[r, keep].sum() * 7 / len(keep)
        scores.append(total if votes == 0 else 1 + total if votes == 1 else votes)
    scores = np.array(scores)
    levels = np.unique(scores)
    cands = np.r_[levels[0] - 1.0, (levels[:-1] + levels[1:]) / 2, levels[-1] + 1.0]
    shares = np.array([np.mean(scores > t) for t in cands])
    T_ref = cands[np.argmin(np.abs(shares - prior))]
    assert est.threshold_ == pytest.approx(T_ref, rel=1e-4, abs=1e-4)
    assert abs(np.mean(scores > est.threshold_) - prior) <= np.min(np.abs(shares - prior)) + 1e-12


def test_auto_resample_sizes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1400, 3))
    s = np.r_[np.ones(300, int), np.zeros(1100, int)]
    kw = dict(prior=0.3, random_state=0)  # the sizes do not depend on the prior: skip its estimation
    est = RESVMClassifier(2, **kw).fit(X, s)
    assert (est.n_pos_, est.n_unl_) == (250, 1000)
    small = RESVMClassifier(2, **kw).fit(X[250:900], s[250:900])
    assert (small.n_pos_, small.n_unl_) == (50, 600)
    assert BaggingSVMClassifier(2, **kw).fit(X[:600], s[:600]).n_unl_ == 300
