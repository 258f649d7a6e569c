"""VPU (Chen et al. 2020): the objective against numpy, its gradient against finite differences, the stop-gradient
MixUp target, learning without a prior, determinism and row-independent predictions."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from pujax.neural import VPUClassifier, vpu_fit_many, vpu_loss
from pujax.neural.vpu import mixup_gammas, mixup_log_target, variational_loss


def _np_vpu_loss(lp, lu, lm, gamma, lam):
    """Re-derivation: log mean Phi_u - mean log Phi_p + lam * mean((log(g + (1 - g) Phi_u) - log Phi_mix)^2)."""
    var = np.log(np.mean(np.exp(lu))) - np.mean(lp)
    target = np.log(gamma + (1 - gamma) * np.exp(lu))
    return var + lam * np.mean((target - lm) ** 2), var


def _log_sigmoid(z):
    return -np.logaddexp(0.0, -z)


def test_loss_matches_numpy_rederivation():
    rng = np.random.default_rng(0)
    lp, lu, lm = (_log_sigmoid(rng.normal(size=n) * 3) for n in (5, 7, 7))
    for gamma in (0.0, 0.37, 1.0):
        loss, var, reg = vpu_loss(jnp.asarray(lp), jnp.asarray(lu), jnp.asarray(lm), gamma, 0.3)
        ref, ref_var = _np_vpu_loss(lp, lu, lm, gamma, 0.3)
        assert np.isfinite(float(loss))
        np.testing.assert_allclose(float(loss), ref, rtol=1e-5)
        np.testing.assert_allclose(float(var), ref_var, rtol=1e-5)
        np.testing.assert_allclose(float(var + 0.3 * reg), ref, rtol=1e-5)
    # extreme scores stay finite (logsumexp, log-sigmoid, logaddexp)
    big = jnp.asarray([-1e4, 0.0, 1e4], jnp.float32)
    assert np.isfinite(float(vpu_loss(jax.nn.log_sigmoid(big), jax.nn.log_sigmoid(big),
                                      jax.nn.log_sigmoid(big), 0.0, 1.0)[0]))


def test_gradient_matches_finite_differences_float64():
    rng = np.random.default_rng(1)
    Xp, Xu = rng.normal(size=(6, 3)), rng.normal(size=(8, 3))
    gamma, lam = 0.3, 0.7
    Xm = gamma * Xp[np.arange(8) % 6] + (1 - gamma) * Xu
    w0 = rng.normal(size=3)

    def ref(w, w_target):  # the target is a constant: it uses frozen weights
        lu_t = _log_sigmoid(Xu @ w_target)
        var = np.log(np.mean(np.exp(_log_sigmoid(Xu @ w)))) - np.mean(_log_sigmoid(Xp @ w))
        target = np.log(gamma + (1 - gamma) * np.exp(lu_t))
        return var + lam * np.mean((target - _log_sigmoid(Xm @ w)) ** 2)

    eps = 1e-6
    fd = np.array([(ref(w0 + eps * e, w0) - ref(w0 - eps * e, w0)) / (2 * eps) for e in np.eye(3)])
    with jax.enable_x64(True):
        def f(w):
            ls = jax.nn.log_sigmoid
            return vpu_loss(ls(jnp.asarray(Xp) @ w), ls(jnp.asarray(Xu) @ w), ls(jnp.asarray(Xm) @ w), gamma, lam)[0]

        g = np.asarray(jax.grad(f)(jnp.asarray(w0, jnp.float64)))
        assert g.dtype == np.float64
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


def test_mixup_target_is_stop_gradient():
    rng = np.random.default_rng(2)
    lu = jnp.asarray(_log_sigmoid(rng.normal(size=5)))
    lp, lm = jnp.asarray(_log_sigmoid(rng.normal(size=4))), jnp.asarray(_log_sigmoid(rng.normal(size=5)))
    assert np.all(np.asarray(jax.grad(lambda v: mixup_log_target(v, 0.4).sum())(lu)) == 0)
    # d loss / d log_phi_u is the variational term's only: softmax(log_phi_u)
    g = jax.grad(lambda v: vpu_loss(lp, v, lm, 0.4, 5.0)[0])(lu)
    np.testing.assert_allclose(np.asarray(g), np.asarray(jax.nn.softmax(lu)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.grad(lambda v: variational_loss(lp, v))(lu)), np.asarray(g), rtol=1e-6)


def test_mixup_weights_follow_beta_and_the_key():
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    g = mixup_gammas(keys, 0.3, 100, 100)
    assert g.shape == (2, 100, 100) and g.dtype == np.float32 and g.min() >= 0 and g.max() <= 1
    assert stats.kstest(g[0].ravel(), stats.beta(0.3, 0.3).cdf).pvalue > 1e-3
    np.testing.assert_array_equal(g, mixup_gammas(keys, 0.3, 100, 100))
    assert not np.array_equal(g[0], g[1])


def _toy(rng, n_labeled=100, n_unlabeled=400, prior=0.4, n_test=1000):
    def draw(n, y):
        return rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, 2.0, -2.0)

    y_u = (rng.random(n_unlabeled) < prior).astype(int)
    y_te = (rng.random(n_test) < prior).astype(int)
    X = np.concatenate([draw(n_labeled, np.ones(n_labeled, int)), draw(n_unlabeled, y_u)])
    s = np.r_[np.ones(n_labeled, int), np.zeros(n_unlabeled, int)]
    return X, s, draw(n_test, y_te), y_te


KW = dict(model_kwargs={"hidden_sizes": (16,)}, mixup_weight=0.3, epochs=30, batch_size=128, learning_rate=3e-3)


@pytest.fixture(scope="module")
def toy():
    X, s, X_te, y_te = _toy(np.random.default_rng(0))
    return X, s, X_te, y_te, VPUClassifier(random_state=0, **KW).fit(X, s)


def test_learns_separable_gaussians_without_a_prior(toy):
    X, s, X_te, y_te, clf = toy
    assert "prior" not in clf.get_params() and not hasattr(clf, "prior_")
    assert clf.score(X_te, y_te) >= 0.95
    proba = clf.predict_proba(X_te)
    assert np.all((proba >= 0) & (proba <= 1)) and np.allclose(proba.sum(axis=1), 1)
    np.testing.assert_array_equal(proba[:, 1] > 0.5, clf.predict(X_te) == 1)
    assert clf.history_["loss"].shape == (1, KW["epochs"]) and np.all(np.isfinite(clf.history_["loss"]))
    # the normaliser is the maximum over the training rows: no training row scores above it
    assert np.max(clf.decision_function(X)) == pytest.approx(np.log(2.0), abs=1e-5)


def test_same_random_state_same_model_and_the_core_agrees(toy):
    X, s, X_te, _, clf = toy
    again = VPUClassifier(random_state=0, **KW).fit(X, s)
    np.testing.assert_array_equal(again.decision_function(X_te), clf.decision_function(X_te))
    other = VPUClassifier(random_state=1, **KW).fit(X, s)
    assert not np.array_equal(other.decision_function(X_te), clf.decision_function(X_te))
    # the functional core on the standardised rows, with the estimator's key, gives the same model
    Z = ((X - clf.mean_) / clf.scale_).astype(np.float32)
    keys = jax.random.split(jax.random.PRNGKey(0), 1)
    core_kw = {**KW, "model_kwargs": {**KW["model_kwargs"], "batch_norm": False}}  # the estimator's "mlp" default
    model, hist = vpu_fit_many(keys, Z, s, **core_kw)
    np.testing.assert_allclose(np.asarray(model.log_phi_max), clf.log_phi_max_, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(hist["loss"]), clf.history_["loss"], rtol=1e-6)


def test_prediction_of_a_row_does_not_depend_on_the_batch(toy):
    _, _, X_te, _, clf = toy
    batch = clf.decision_function(X_te[:50])
    single = np.array([clf.decision_function(X_te[i:i + 1])[0] for i in (0, 17, 49)])
    np.testing.assert_allclose(single, batch[[0, 17, 49]], rtol=1e-6, atol=1e-6)
    rows = [clf.predict(X_te[i:i + 1])[0] for i in (0, 17, 49)]
    np.testing.assert_array_equal(rows, clf.predict(X_te[:50])[[0, 17, 49]])


@pytest.mark.parametrize("param, value, match", [
    ("alpha", 0.0, "alpha"), ("mixup_weight", -1.0, "mixup_weight"), ("learning_rate", 0.0, "learning_rate"),
    ("epochs", 0, "epochs"), ("batch_size", 0, "batch_size"), ("standardize", "yes", "standardize"),
])
def test_bad_parameters_name_the_argument(toy, param, value, match):
    X, s, *_ = toy
    with pytest.raises((ValueError, TypeError), match=match):
        VPUClassifier(**{**KW, param: value}).fit(X, s)


@pytest.mark.parametrize("a,b", [(1e-6, 0.0), (1e6, 0.0), (1.0, 1e7), (1e3, -1e7), (1e-6, 1e7)])
def test_affine_invariant_predictions(toy, a, b):
    """Issue 26: X is standardised in float64 inside fit (pujax.preprocessing), so VPU on a·X + b predicts as on X
    (>= 99 % of rows) with finite scores and probabilities."""
    X, s, X_te, _, clf = toy
    other = VPUClassifier(random_state=0, **KW).fit(a * X + b, s)
    d, p = other.decision_function(a * X_te + b), other.predict_proba(a * X_te + b)
    assert np.all(np.isfinite(d)) and np.all(np.isfinite(p))
    assert np.mean(other.predict(a * X_te + b) == clf.predict(X_te)) >= 0.99
