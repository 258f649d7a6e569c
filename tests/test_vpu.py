"""VPU (Chen et al. 2020): the objective against numpy, its gradient against finite differences, the stop-gradient
MixUp target, learning without a prior, determinism and row-independent predictions."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from pujax.neural import VPUClassifier, vpu_fit_many, vpu_loss
from pujax.neural.selection import validation_split
from pujax.neural.vpu import (
    _compiled,
    make_vpu_config,
    mixup_gammas,
    mixup_log_target,
    n_steps_per_epoch,
    variational_loss,
)


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
    assert "prior" not in clf.get_params() and clf.threshold == "prior"
    for rule in ("prior", "half"):  # the rule is read at prediction time: no refit
        clf.set_params(threshold=rule)
        assert clf.score(X_te, y_te) >= 0.95
        proba = clf.predict_proba(X_te)
        assert np.all((proba >= 0) & (proba <= 1)) and np.allclose(proba.sum(axis=1), 1)
        np.testing.assert_array_equal(proba[:, 1] > 0.5, clf.predict(X_te) == 1)
    clf.set_params(threshold="half")
    assert clf.history_["loss"].shape == (1, KW["epochs"]) and np.all(np.isfinite(clf.history_["loss"]))
    # the normaliser is the maximum over the training rows (the held-out ones excluded): none scores above it
    p_tr, u_tr, p_val, u_val = validation_split(0, s, 0.1)
    assert np.max(clf.decision_function(X[np.r_[p_tr, u_tr]])) == pytest.approx(np.log(2.0), abs=1e-5)
    assert clf.validation_loss_.shape == (1, KW["epochs"])
    assert clf.best_epoch_[0] == np.argmin(clf.validation_loss_[0])
    clf.set_params(threshold="prior")


def test_prior_rule_matches_numpy(toy):
    """prior_ = min(1, mean_U Phi / mean_P Phi) over the held-out rows; the threshold calls that share of all U rows
    positive."""
    X, s, X_te, y_te, clf = toy
    _, _, p_val, u_val = validation_split(0, s, 0.1)
    clf.set_params(threshold="half")
    lp, log_phi = (clf.seed_decision_function(X[i])[0] + clf.log_phi_max_[0] - np.log(2.0) for i in (p_val, u_val))
    d_te = clf.decision_function(X_te)
    clf.set_params(threshold="prior")
    prior = min(1.0, np.mean(np.exp(log_phi)) / np.mean(np.exp(lp)))
    # tolerances: on GPUs the network's float32 layers use TF32 inputs, and the in-program scores differ from those
    # of the prediction program by ~1e-4 (4e-5 relative seen on an H100); on CPU they agree to ~1e-7
    assert clf.prior_ == pytest.approx(prior, rel=2e-4) and clf.seed_priors_ == pytest.approx([prior], rel=2e-4)
    u_all = np.flatnonzero(s == 0)
    log_phi_all = clf.seed_decision_function(X[u_all])[0] + clf.log_phi_threshold_[0]
    assert clf.log_phi_threshold_[0] == pytest.approx(np.quantile(log_phi_all, 1 - prior), abs=1e-3)
    assert abs(np.mean(clf.predict(X[u_all])) - prior) <= 1.0 / len(u_all) + 1e-9
    # the two rules share the network: decision values differ by a constant
    shift = clf.log_phi_threshold_[0] - clf.log_phi_max_[0] + np.log(2.0)
    np.testing.assert_allclose(clf.decision_function(X_te), d_te - shift, rtol=1e-6, atol=1e-6)
    assert 0.2 <= clf.prior_ <= 0.6  # true prior 0.4 (40 held-out rows)


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
    model, hist = vpu_fit_many(keys, Z, s, validation_fraction=0.1, validation_key=0, **core_kw)
    np.testing.assert_allclose(np.asarray(model.log_phi_max), clf.log_phi_max_, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(hist["loss"]), clf.history_["loss"], rtol=1e-6)


def test_one_seed_without_the_seed_vmap_equals_seed_0_of_two(toy):
    """n_seeds=1 runs the program without the seed axis (pujax.devices.shard_seeds' ``single``): the same model as
    seed 0 of a two-seed fit, whose program is vmapped over seeds."""
    X, s, X_te, _, clf = toy
    two = VPUClassifier(random_state=0, n_seeds=2, **KW).fit(X, s)
    np.testing.assert_allclose(two.seed_decision_function(X_te)[0], clf.seed_decision_function(X_te)[0], rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(two.history_["loss"][0], clf.history_["loss"][0], rtol=1e-4, atol=1e-6)  # losses cross 0


def test_prediction_of_a_row_does_not_depend_on_the_batch(toy):
    _, _, X_te, _, clf = toy
    batch = clf.decision_function(X_te[:50])
    single = np.array([clf.decision_function(X_te[i:i + 1])[0] for i in (0, 17, 49)])
    # float32 layers on CPU; a GPU's default matmul precision (TF32 on recent NVIDIA cards) depends on the batch
    tol = 1e-6 if jax.default_backend() == "cpu" else 5e-3
    np.testing.assert_allclose(single, batch[[0, 17, 49]], rtol=tol, atol=tol)
    rows = [clf.predict(X_te[i:i + 1])[0] for i in (0, 17, 49)]
    np.testing.assert_array_equal(rows, clf.predict(X_te[:50])[[0, 17, 49]])


@pytest.mark.parametrize("param, value, match", [
    ("alpha", 0.0, "alpha"), ("mixup_weight", -1.0, "mixup_weight"), ("learning_rate", 0.0, "learning_rate"),
    ("epochs", 0, "epochs"), ("batch_size", 0, "batch_size"), ("standardize", "yes", "standardize"),
    ("validation_fraction", 1.0, "validation_fraction"), ("validation_fraction", -0.1, "validation_fraction"),
    ("validation_fraction", "0.1", "validation_fraction"), ("threshold", "mean", "threshold"),
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


# ------------------------------------------------------------------------ model selection on held-out PU rows

LIN = dict(model="linear", alpha=0.3, mixup_weight=0.3, batch_size=32, learning_rate=0.3)
N_EPOCHS, FRAC, SPLIT_KEY = 8, 0.25, 7


def _np_linear_log_phi(variables, X):
    out = variables["params"]["out"]
    return _log_sigmoid(np.asarray(X, np.float64) @ np.asarray(out["kernel"], np.float64)[:, 0]
                        + float(np.asarray(out["bias"])[0]))


@pytest.fixture(scope="module")
def selection():
    X, s, _, _ = _toy(np.random.default_rng(3), n_labeled=60, n_unlabeled=200, prior=0.5)
    X = X.astype(np.float32)
    keys = jax.random.split(jax.random.PRNGKey(SPLIT_KEY), 3)  # VPUClassifier(random_state=SPLIT_KEY, n_seeds=3)
    model, hist = vpu_fit_many(keys, X, s, epochs=N_EPOCHS, validation_fraction=FRAC, validation_key=SPLIT_KEY,
                               **LIN)
    return X, s, keys, model, hist


def test_validation_split_is_stratified_disjoint_and_seeded():
    s = np.r_[np.ones(13, int), np.zeros(40, int)]
    p_tr, u_tr, p_val, u_val = validation_split(SPLIT_KEY, s, FRAC)
    assert (len(p_val), len(u_val)) == (3, 10) and np.all(s[p_val] == 1) and np.all(s[u_val] == 0)
    np.testing.assert_array_equal(np.sort(np.r_[p_tr, u_tr, p_val, u_val]), np.arange(len(s)))
    again = validation_split(SPLIT_KEY, s, FRAC)
    assert all(np.array_equal(a, b) for a, b in zip((p_tr, u_tr, p_val, u_val), again))
    assert not np.array_equal(validation_split(SPLIT_KEY + 1, s, FRAC)[3], u_val)
    assert validation_split(0, s, 0.0)[2:] == (None, None)
    assert [len(a) for a in validation_split(0, s, 0.01)[2:]] == [1, 1]  # at least one row of each class
    with pytest.raises(ValueError, match="validation_fraction"):
        validation_split(0, np.r_[1, 0, 0], 0.1)


def test_selection_keeps_the_epoch_with_the_lowest_held_out_loss(selection):
    """Re-run the fit epoch by epoch (the verbose path's programs): the held-out loss recomputed in numpy from each
    epoch's weights matches the recorded one, and the model holds the weights of its argmin epoch."""
    X, s, keys, model, hist = selection
    p_tr, u_tr, p_val, u_val = validation_split(SPLIT_KEY, s, FRAC)
    cfg = make_vpu_config(LIN["model"], LIN["alpha"], LIN["mixup_weight"], LIN["batch_size"], LIN["learning_rate"],
                          None, X.shape[1])
    data = tuple(jnp.asarray(a) for a in (X, p_tr, u_tr, p_val, u_val))
    gammas = mixup_gammas(keys, LIN["alpha"], N_EPOCHS, n_steps_per_epoch(len(u_tr), LIN["batch_size"]))
    state, one_epoch = _compiled("init_val", cfg)(keys, data[0]), _compiled("epochs", cfg)
    per_epoch, recorded = [], []
    for e in range(N_EPOCHS):
        state, h = one_epoch(state, gammas[:, e:e + 1], *data)
        per_epoch.append(jax.tree.map(np.asarray, state["variables"]))
        recorded.append(np.asarray(h["validation"])[:, 0])
    np.testing.assert_allclose(np.stack(recorded, 1), hist["validation"], rtol=1e-5, atol=1e-6)
    ref = np.array([[_np_variational(_np_linear_log_phi(jax.tree.map(lambda a: a[k], v), X[p_val]),
                                     _np_linear_log_phi(jax.tree.map(lambda a: a[k], v), X[u_val]))
                     for v in per_epoch] for k in range(len(keys))])
    np.testing.assert_allclose(hist["validation"], ref, rtol=1e-4, atol=1e-5)
    best = np.argmin(ref, axis=1)
    np.testing.assert_array_equal(hist["best_epoch"], best)
    np.testing.assert_array_equal(np.asarray(state["best_epoch"]), best)
    assert np.any(best < N_EPOCHS - 1) and np.any(best > 0)  # the selection is not trivially the last epoch
    X_tr = X[np.r_[p_tr, u_tr]]
    for k in range(len(keys)):
        chosen = jax.tree.map(lambda a: a[k], per_epoch[best[k]])
        got = jax.tree.map(lambda a: np.asarray(a)[k], model.variables)
        jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6), got, chosen)
        # the normaliser: max log Phi over the training rows only
        np.testing.assert_allclose(float(model.log_phi_max[k]), np.max(_np_linear_log_phi(chosen, X_tr)), atol=1e-5)


def _np_variational(lp, lu):
    return np.log(np.mean(np.exp(lu))) - np.mean(lp)


def test_estimator_exposes_the_selection_and_held_out_rows_are_not_trained_on(selection):
    X, s, keys, model, hist = selection
    kw = dict(epochs=N_EPOCHS, standardize=False, random_state=SPLIT_KEY, n_seeds=len(keys), **LIN)
    clf = VPUClassifier(validation_fraction=FRAC, **kw).fit(X, s)  # the core's program, run by the estimator
    np.testing.assert_allclose(clf.validation_loss_, hist["validation"], rtol=1e-6)
    np.testing.assert_array_equal(clf.best_epoch_, hist["best_epoch"])
    np.testing.assert_allclose(clf.log_phi_max_, model.log_phi_max, rtol=1e-6)
    assert clf.best_epoch_.dtype.kind == "i" and set(clf.history_) == {"loss", "variational", "mixup"}
    # the epoch-by-epoch (verbose) path selects the same model
    verbose = VPUClassifier(validation_fraction=FRAC, verbose=True, **kw).fit(X, s)
    np.testing.assert_allclose(verbose.validation_loss_, clf.validation_loss_, rtol=1e-6)
    np.testing.assert_array_equal(verbose.best_epoch_, clf.best_epoch_)
    np.testing.assert_allclose(verbose.decision_function(X), clf.decision_function(X), rtol=1e-5, atol=1e-6)
    # validation_fraction=0 on the training rows alone (held-out rows deleted from X): the same training run
    p_tr, u_tr, _, _ = validation_split(SPLIT_KEY, s, FRAC)
    keep = np.sort(np.r_[p_tr, u_tr])
    for off in (0, 0.0, None):
        last = VPUClassifier(validation_fraction=off, **kw).fit(X[keep], s[keep])
        assert last.validation_loss_ is None and list(last.best_epoch_) == [N_EPOCHS - 1] * len(keys)
        np.testing.assert_allclose(last.history_["loss"], hist["loss"], rtol=1e-5, atol=1e-6)
    # without held-out rows the prior and the threshold come from the training U rows (numpy re-derivation)
    s_keep = s[keep]
    for k in range(len(keys)):
        v = jax.tree.map(lambda a: np.asarray(a)[k], last.variables_)
        lu, lp = (_np_linear_log_phi(v, X[keep][s_keep == c]) for c in (0, 1))
        prior = min(1.0, np.mean(np.exp(lu)) / np.mean(np.exp(lp)))
        assert last.seed_priors_[k] == pytest.approx(prior, rel=2e-4, abs=1e-6)  # float64 numpy vs TF32 on GPUs
        assert last.log_phi_threshold_[k] == pytest.approx(np.quantile(lu, 1 - prior), abs=1e-3)
    assert last.prior_ == pytest.approx(np.mean(last.seed_priors_))


def test_fixed_steps_per_epoch_draw_batches_from_fresh_shuffles():
    from pujax.neural.vpu import _epoch_indices

    for n_u, steps, b in ((50, 4, 20),):  # the first shuffle is used up, a second one is started
        layout = jax.jit(_epoch_indices, static_argnums=(1, 2, 3, 4))  # one compile instead of op-by-op dispatch
        idx_u, idx_p = layout(jax.random.PRNGKey(1), 7, n_u, b, steps)
        idx_u, idx_p = np.asarray(idx_u), np.asarray(idx_p)
        assert idx_u.shape == idx_p.shape == (steps, b)
        first = idx_u.ravel()[:n_u]  # the first shuffle: no row twice, every row once when it is used up
        assert len(np.unique(first)) == len(first)
        if steps * b >= n_u:
            np.testing.assert_array_equal(np.sort(first), np.arange(n_u))
        counts = np.bincount(idx_p.ravel(), minlength=7)
        assert counts.max() - counts.min() <= 1  # P cycles through its shuffle
    assert n_steps_per_epoch(50, 20, 4) == 4 and n_steps_per_epoch(50, 20) == 3


def test_lr_halving_halves_the_later_steps():
    """One step per epoch, halving after every epoch: the second step is half the constant-step-size run's second
    step (Adam's moments do not depend on the step size, and both runs are at the same point after step one)."""
    X, s, _, _ = _toy(np.random.default_rng(4), n_labeled=20, n_unlabeled=60)
    X = X.astype(np.float32)
    kw = dict(LIN, steps_per_epoch=1)

    def weights(**extra):
        model, _ = vpu_fit_many(1, X, s, **{**kw, **extra})
        return np.asarray(model.variables["params"]["out"]["kernel"])[0, :, 0]

    p1 = weights(epochs=1)
    full, half = weights(epochs=2), weights(epochs=2, lr_halving_epochs=1)
    assert not np.allclose(full, p1)
    np.testing.assert_allclose(half - p1, 0.5 * (full - p1), rtol=1e-4, atol=1e-7)
