"""Tests of pujax.neural: nnPU / uPU training of flax models (Kiryo et al. 2017; DESIGN §3.3).

References: finite differences (float64), a numpy re-derivation of the nnPU step's gradient for a linear model,
vmap vs a Python loop over seeds, uPU as nnPU with beta = inf, scikit-learn's clone / pickle, and save/load.
Shapes are tiny and configurations are shared between tests so that few programs are compiled.
"""
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from pujax.neural import MLP, NNPUClassifier, fit_many, loss_and_grad, make_config, make_model, train
from pujax.random import as_key
from pujax.risk import nnpu_objective, nnpu_risk, upu_risk

TINY = {"hidden_sizes": (8, 8)}
COMMON = dict(model="mlp", model_kwargs=TINY, epochs=3, batch_size=64, learning_rate=1e-2, validation_fraction=0.0)


def _pu_problem(seed=0, n=160, n_p=30, d=4):
    """Case-control PU data: U = all n rows, P = n_p positives (copies); returns X, s, prior, X_test, y_test."""
    rng = np.random.default_rng(seed)
    y = rng.random(n + 200) < 0.4
    X = rng.normal(size=(n + 200, d)).astype(np.float32)
    X[y, 0] += 2.0
    X_tr, y_tr, X_te, y_te = X[:n], y[:n], X[n:], y[n:].astype(int)
    pos = rng.choice(np.flatnonzero(y_tr), n_p, replace=False)
    Xpu = np.concatenate([X_tr[pos], X_tr])
    s = np.r_[np.ones(n_p, int), np.zeros(n, int)]
    return Xpu, s, float(y_tr.mean()), X_te, y_te


@pytest.fixture(scope="module")
def problem():
    return _pu_problem()


# ------------------------------------------------------------------------------------------ gradients


def test_grad_of_nnpu_risk_matches_finite_differences():
    """jax.grad of the nnPU / uPU risk of an MLP w.r.t. its parameters equals central differences (float64)."""
    with jax.enable_x64(True):
        rng = np.random.default_rng(1)
        X = jnp.asarray(rng.normal(size=(12, 3)))
        s = jnp.asarray(np.r_[np.ones(4), np.zeros(8)].astype(np.int32))
        module = MLP(hidden_sizes=(4,), batch_norm=False, activation="softsign")
        params = module.init(jax.random.PRNGKey(0), X[:1])["params"]
        params = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
        flat, unravel = jax.flatten_util.ravel_pytree(params)
        assert flat.dtype == jnp.float64
        for risk_fn in (nnpu_risk, upu_risk):
            def f(theta):
                return risk_fn(module.apply({"params": unravel(theta)}, X), s, 0.4, "sigmoid")

            grad = np.asarray(jax.jit(jax.grad(f))(flat))
            eps = 1e-6
            steps = eps * jnp.eye(flat.size, dtype=flat.dtype)
            f_many = jax.jit(jax.vmap(f))
            fd = np.asarray((f_many(flat + steps) - f_many(flat - steps)) / (2 * eps))
            np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-9)
            assert np.abs(grad).max() > 1e-4  # not trivially zero


def _np_sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def test_correction_step_taken_exactly_when_r_below_minus_beta():
    """The step's gradient is grad(-gamma r) iff r < -beta, else grad(pi R_p^+ + r) (numpy re-derivation)."""
    rng = np.random.default_rng(2)
    Xp = rng.normal([1.0, 0.0], 0.1, size=(5, 2))
    Xu = rng.normal([-1.0, 0.0], 0.1, size=(20, 2))
    X = np.concatenate([Xp, Xu]).astype(np.float32)
    s = np.r_[np.ones(5, int), np.zeros(20, int)]
    prior, gamma = 0.5, 0.7
    w, b = np.array([3.0, 0.5], np.float32), np.float32(0.1)
    variables = {"params": {"out": {"kernel": jnp.asarray(w[:, None]), "bias": jnp.asarray([b])}}}
    # numpy reference: sigmoid loss, l(g, -1) = sigmoid(g), l(g, +1) = sigmoid(-g)
    g = X.astype(np.float64) @ w + b
    sg = _np_sigmoid(g)
    r = sg[s == 0].mean() - prior * sg[s == 1].mean()
    assert r < -0.3
    dsig = sg * (1 - sg)  # d sigmoid(g) / dg
    Xa = np.c_[X, np.ones(len(X))]
    grad_r = (dsig[s == 0, None] * Xa[s == 0]).mean(0) - prior * (dsig[s == 1, None] * Xa[s == 1]).mean(0)
    grad_a = -prior * (dsig[s == 1, None] * Xa[s == 1]).mean(0)
    for beta, expect_correct in ((-r - 0.05, True), (-r + 0.05, False), (0.0, True), (np.inf, False)):
        cfg = make_config(model="linear", beta=beta, gamma=gamma, n_features=2)
        grads, _, aux = loss_and_grad(cfg, variables, jnp.asarray(X), jnp.asarray(s), prior)
        got = np.r_[np.asarray(grads["out"]["kernel"])[:, 0], np.asarray(grads["out"]["bias"])]
        assert bool(aux["corrected"]) == expect_correct == (r < -beta)
        np.testing.assert_allclose(float(aux["r"]), r, rtol=1e-5)
        expected = -gamma * grad_r if expect_correct else grad_a + grad_r
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    # the surrogate of pujax.risk.nnpu_objective reports the nnPU risk value, not the surrogate
    _, value = nnpu_objective(jnp.asarray(g), jnp.asarray(s), prior)
    np.testing.assert_allclose(float(value), prior * _np_sigmoid(-g[s == 1]).mean() + max(0.0, r), rtol=1e-5)


# ------------------------------------------------------------------------------------------ training core


def test_fit_many_over_4_seeds_equals_4_separate_runs(problem):
    X, s, prior, X_te, y_te = problem
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    many, hist = fit_many(keys, X, s, prior, X_eval=X_te, y_eval=y_te, **COMMON)
    assert hist["risk"].shape == (4, 3) and hist["test_error"].shape == (4, 3)
    for i in range(4):
        one, h1 = train(keys[i], X, s, prior, X_eval=X_te, y_eval=y_te, **COMMON)
        jax.tree.map(lambda a, b: np.testing.assert_allclose(a[i], b, rtol=1e-4, atol=2e-5), many, one)
        np.testing.assert_allclose(hist["risk"][i], h1["risk"], rtol=1e-4, atol=1e-5)
    # different seeds give different models
    k0 = many["params"]["dense_0"]["kernel"]
    assert not np.allclose(k0[0], k0[1])
    assert set(many) == {"params", "batch_stats"}


def test_beta_inf_gives_upu_and_estimators_learn(problem):
    """nnPU with beta = inf is exactly uPU (never corrects); uPU and PN linear models learn the task."""
    X, s, prior, X_te, y_te = problem
    kw = dict(model="linear", epochs=30, batch_size=100, learning_rate=0.05, prior=prior, random_state=0)
    up = NNPUClassifier(risk="upu", **kw).fit(X, s)
    inf = NNPUClassifier(risk="nnpu", beta=float("inf"), **kw).fit(X, s)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7), up.variables_, inf.variables_)
    assert inf.history_["corrections"].sum() == 0.0
    np.testing.assert_allclose(inf.history_["risk"], up.history_["risk"], rtol=1e-6)
    assert up.score(X_te, y_te) > 0.7
    pn = NNPUClassifier(risk="pn", **kw).fit(X_te, y_te)  # supervised on true labels
    assert pn.score(X_te, y_te) > 0.8


def test_validation_selection_keeps_the_epoch_of_lowest_held_out_risk(problem):
    """validation_fraction: each seed's variables are those of a plain run on the training rows after the epoch whose
    held-out nnPU risk (re-derived in numpy from that model's scores) is lowest; one compiled program and the
    epoch-by-epoch path select the same; fit_many keeps it too."""
    from pujax.neural.selection import held_out_rows

    X, s, prior, _, _ = problem
    # a linear model (few seconds of compilation) with a step size large enough that the held-out risk is lowest
    # before the last epoch
    common = dict(model="linear", batch_size=64, learning_rate=1.0)
    kw = dict(common, epochs=5, prior=prior, n_seeds=2, random_state=1, standardize=False)
    sel = NNPUClassifier(validation_fraction=0.25, **kw).fit(X, s)
    assert sel.validation_loss_.shape == (2, 5)
    np.testing.assert_array_equal(sel.best_epoch_, np.argmin(sel.validation_loss_, axis=1))
    assert np.all(sel.best_epoch_ < 4)
    X_tr, s_tr, (X_val, s_val, w_val) = held_out_rows(X, s, 0.25, as_key(1))
    n_val = int(w_val.sum())
    assert n_val + len(X_tr) == len(X) and (s_val[:n_val] == 1).sum() == round(0.25 * (s == 1).sum())
    trajectory = []  # the plain run on the training rows, every epoch's variables
    plain = NNPUClassifier(callback=lambda e, est: trajectory.append(est.variables_), validation_fraction=0.0,
                           **kw).fit(X_tr, s_tr)
    assert plain.validation_loss_ is None and np.array_equal(plain.best_epoch_, [4, 4])
    for k, best in enumerate(sel.best_epoch_):
        jax.tree.map(lambda a, b: np.testing.assert_allclose(a[k], b[k], rtol=1e-4, atol=2e-5),
                     sel.variables_, trajectory[best])
        g = sel.seed_decision_function(X_val[:n_val])[k].astype(np.float64)  # numpy nnPU risk, sigmoid loss
        sv = s_val[:n_val]
        r_p_pos, r_p_neg = _np_sigmoid(-g[sv == 1]).mean(), _np_sigmoid(g[sv == 1]).mean()
        expected = prior * r_p_pos + max(0.0, _np_sigmoid(g[sv == 0]).mean() - prior * r_p_neg)
        np.testing.assert_allclose(sel.validation_loss_[k, best], expected, rtol=1e-4)
    loop = NNPUClassifier(validation_fraction=0.25, callback=lambda e, est: None, **kw).fit(X, s)
    np.testing.assert_array_equal(loop.best_epoch_, sel.best_epoch_)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-5), loop.variables_, sel.variables_)
    keys = jax.random.split(as_key(1), 2)
    variables, hist = fit_many(keys, X, s, prior, validation_fraction=0.25, validation_key=as_key(1),
                               epochs=5, **common)
    np.testing.assert_array_equal(hist["best_epoch"], sel.best_epoch_)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-5), variables, sel.variables_)


def test_keep_best_takes_the_earliest_minimum_and_skips_a_nan_start():
    from pujax.neural.selection import init_best, keep_best

    state = {"variables": {"w": jnp.zeros(())}, **init_best({"w": jnp.zeros(())})}
    for e, loss in enumerate([np.nan, 0.5, 0.3, 0.3, 0.4]):
        state = keep_best({**state, "variables": {"w": jnp.asarray(float(e))}}, jnp.float32(loss), jnp.int32(e))
    assert int(state["best_epoch"]) == 2 and float(state["best_variables"]["w"]) == 2.0
    assert float(state["best_loss"]) == pytest.approx(0.3)


# ------------------------------------------------------------------------------------------ estimator


@pytest.fixture(scope="module")
def fitted(problem):
    X, s, prior, X_te, y_te = problem
    clf = NNPUClassifier(prior=prior, n_seeds=4, random_state=3, **COMMON)
    clf.fit(X, s, eval_set=(X_te, y_te))
    return clf


def test_estimator_matches_fit_many_and_predicts(fitted, problem):
    X, s, prior, X_te, y_te = problem
    clf = fitted
    assert clf.n_seeds_ == 4 and clf.n_iter_ == 3 and clf.prior_ == prior
    assert clf.history_["test_error"].shape == (4, 3)
    seed_scores = clf.seed_decision_function(X_te)
    assert seed_scores.shape == (4, len(X_te))
    np.testing.assert_allclose(clf.decision_function(X_te), seed_scores.mean(0), rtol=1e-6)
    # each seed's variables, applied with the module, give that seed's scores
    v1 = clf.seed_variables(1)
    Z = (np.asarray(X_te, np.float64) - clf.mean_) / clf.scale_  # the estimator standardises inside fit
    g1 = clf.module_.apply(v1, jnp.asarray(Z, jnp.float32), train=False)
    np.testing.assert_allclose(np.asarray(g1), seed_scores[1], rtol=1e-4, atol=1e-5)
    # test error recorded in the compiled loop equals the error of the seed's final model
    np.testing.assert_allclose(clf.history_["test_error"][:, -1], ((seed_scores > 0) != y_te).mean(1), atol=1e-6)
    proba = clf.predict_proba(X_te)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    assert np.array_equal(clf.predict(X_te), (proba[:, 1] > 0.5).astype(int))
    assert set(np.unique(clf.predict(X_te))) <= {0, 1}
    assert clf.score(X_te, y_te) > 0.6  # 3 epochs of a tiny net


def test_callback_and_verbose_loop(problem, capsys):
    X, s, prior, X_te, y_te = problem
    seen = []

    def hook(epoch, est):
        seen.append((epoch, est.score(X_te, y_te), est.history_["risk"].shape))
        return epoch == 1  # stop after the second epoch

    clf = NNPUClassifier(prior=prior, n_seeds=4, random_state=3, callback=hook, verbose=True, **COMMON)
    clf.fit(X, s, eval_set=(X_te, y_te))
    assert [e for e, _, _ in seen] == [0, 1]
    assert seen[1][2] == (4, 2) and clf.n_iter_ == 2


def test_epoch_loop_equals_compiled_program(problem, fitted):
    """Training one compiled epoch at a time (callback path) equals the single compiled program."""
    X, s, prior, X_te, y_te = problem
    clf = NNPUClassifier(prior=prior, n_seeds=4, random_state=3, callback=lambda e, est: None, **COMMON)
    clf.fit(X, s, eval_set=(X_te, y_te))
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-5), clf.variables_,
                 fitted.variables_)


def test_save_load_clone_pickle(fitted, problem, tmp_path):
    _, _, _, X_te, _ = problem
    expected = fitted.decision_function(X_te)
    fitted.save(tmp_path / "nnpu")
    loaded = NNPUClassifier.load(tmp_path / "nnpu")
    np.testing.assert_allclose(loaded.decision_function(X_te), expected, rtol=1e-6)
    assert loaded.get_params() == fitted.get_params()
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_allclose(again.decision_function(X_te), expected, rtol=1e-6)
    c = clone(fitted)
    assert c.get_params() == fitted.get_params() and not hasattr(c, "variables_")
    with pytest.raises(NotFittedError):
        c.predict(X_te)


def test_cnn_runs_through_same_api():
    """The all-convolutional CIFAR-10 net (narrowed) trains and predicts on tiny 8x8 RGB images on CPU."""
    rng = np.random.default_rng(4)
    X = rng.random((16, 8 * 8 * 3)).astype(np.float32)
    s = np.r_[np.ones(4, int), np.zeros(12, int)]
    clf = NNPUClassifier(model="cnn", model_kwargs={"channels": (2, 4), "hidden": 8}, epochs=1, batch_size=16,
                         prior=0.4, random_state=0)
    clf.fit(X, s)
    assert clf.decision_function(X).shape == (16,) and np.all(np.isfinite(clf.decision_function(X)))
    assert clf.module_.input_shape == (8, 8, 3)
    # the full-size architecture: 9 convolutions (+ BatchNorm) and 3 dense layers, 32x32x3 input
    full = make_model("cnn", n_features=3072)
    shapes = jax.eval_shape(lambda: full.init(jax.random.PRNGKey(0), jnp.zeros((1, 3072))))
    p = shapes["params"]
    assert sorted(k for k in p if k.startswith("conv")) == [f"conv_{i}" for i in range(9)]
    assert p["conv_2"]["kernel"].shape == (3, 3, 96, 96) and p["conv_8"]["kernel"].shape == (1, 1, 192, 10)
    assert p["fc_0"]["kernel"].shape == (8 * 8 * 10, 1000) and p["out"]["kernel"].shape == (1000, 1)
    mlp = jax.eval_shape(lambda: make_model("mlp").init(jax.random.PRNGKey(0), jnp.zeros((1, 784))))["params"]
    assert mlp["dense_0"]["kernel"].shape == (784, 300) and "bias" not in mlp["dense_0"]
    assert [k for k in mlp if k.startswith("dense")] == [f"dense_{i}" for i in range(4)]


def test_user_flax_module(problem):
    import flax.linen as nn

    class Tiny(nn.Module):
        @nn.compact
        def __call__(self, x):  # no train flag, (n, 1) output
            return nn.Dense(1)(nn.tanh(nn.Dense(4)(x)))

    X, s, prior, X_te, y_te = problem
    clf = NNPUClassifier(model=Tiny(), epochs=2, batch_size=100, prior=prior, random_state=0).fit(X, s)
    assert clf.predict(X_te).shape == (len(X_te),)
    assert clone(clf).get_params()["model"] == Tiny()


def test_bad_input(problem):
    X, s, prior, X_te, _ = problem
    fast = dict(model="linear", epochs=1, prior=prior)
    with pytest.raises(ValueError, match="risk"):
        NNPUClassifier(risk="nnpuu", **fast).fit(X, s)
    with pytest.raises(ValueError, match="beta"):
        NNPUClassifier(beta=-0.1, **fast).fit(X, s)
    with pytest.raises(ValueError, match="gamma"):
        NNPUClassifier(gamma=0.0, **fast).fit(X, s)
    with pytest.raises(ValueError, match="learning_rate"):
        NNPUClassifier(learning_rate=-1.0, **fast).fit(X, s)
    with pytest.raises(ValueError, match="epochs"):
        NNPUClassifier(model="linear", epochs=0, prior=prior).fit(X, s)
    with pytest.raises(TypeError, match="n_seeds"):
        NNPUClassifier(n_seeds=2.5, **fast).fit(X, s)
    with pytest.raises(ValueError, match="model"):
        NNPUClassifier(model="resnet", epochs=1, prior=prior).fit(X, s)
    with pytest.raises(ValueError, match="model_kwargs"):
        NNPUClassifier(model="mlp", model_kwargs={"width": 3}, epochs=1, prior=prior).fit(X, s)
    with pytest.raises(ValueError, match="input_shape"):
        NNPUClassifier(model="cnn", model_kwargs={"input_shape": (3, 3, 3)}, epochs=1, prior=prior).fit(X, s)
    with pytest.raises(ValueError, match="image shape"):
        NNPUClassifier(model="cnn", epochs=1, prior=prior).fit(np.c_[X, X[:, :1]], s)
    with pytest.raises(ValueError, match="loss"):
        NNPUClassifier(loss="hinge2", **fast).fit(X, s)
    with pytest.raises(ValueError, match="prior"):
        NNPUClassifier(model="linear", epochs=1, prior=1.5).fit(X, s)
    with pytest.raises(ValueError, match="binary"):
        NNPUClassifier(**fast).fit(X, np.arange(len(s)) % 3)
    with pytest.raises(ValueError, match="no labeled positive"):
        NNPUClassifier(**fast).fit(X, np.zeros_like(s))
    Xbad = X.copy()
    Xbad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        NNPUClassifier(**fast).fit(Xbad, s)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        NNPUClassifier(**fast).fit(X, s[:-1])
    with pytest.raises(NotFittedError):
        NNPUClassifier(**fast).predict(X_te)
    with pytest.raises(ValueError, match="eval_set"):
        NNPUClassifier(**fast).fit(X, s, eval_set=(X_te,))
    with pytest.raises(ValueError, match="keys"):
        fit_many(jnp.zeros((3,), jnp.uint32), X, s, prior, model="linear", epochs=1)


@pytest.mark.parametrize("a,b", [(1e-6, 0.0), (1e6, 0.0), (1.0, 1e7), (1e3, -1e7)])
def test_predictions_do_not_depend_on_feature_units(a, b):
    """Standardisation inside fit: a·X + b gives the predictions of X (>= 99 % of rows), scores stay finite."""
    rng = np.random.default_rng(0)
    n = 300
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(size=(n, 4)) + 2.0 * y[:, None]
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(int)
    kw = dict(model="linear", prior=0.4, epochs=30, batch_size=n, random_state=0)
    ref = NNPUClassifier(**kw).fit(X, s)
    est = NNPUClassifier(**kw).fit(a * X + b, s)
    d = est.decision_function(a * X + b)
    assert np.all(np.isfinite(d))
    assert np.mean(est.predict(a * X + b) == ref.predict(X)) >= 0.99
    assert np.mean(ref.predict(X) == y) > 0.8  # and the reference itself is a sensible classifier


def test_predict_on_any_batch_size_reuses_one_program_per_bucket():
    from pujax.compilation import count_compilations

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    s = (rng.random(200) < 0.3).astype(int)
    est = NNPUClassifier("linear", prior=0.5, epochs=2, batch_size=200, random_state=0).fit(X, s)
    full = est.decision_function(X)
    est.decision_function(X[:150])
    with count_compilations() as c:
        part = est.decision_function(X[:147])
        est.predict(X[:141])
    assert c.count == 0
    np.testing.assert_allclose(part, full[:147], rtol=1e-5, atol=1e-6)


def test_epoch_deals_every_valid_row_once_round_robin():
    from pujax.neural.train import _epoch_batches

    for size, n_valid, k in [(512, 505, 1), (48, 45, 4), (40, 40, 3), (8, 1, 1)]:
        idx, mask = (np.asarray(a) for a in _epoch_batches(jax.random.PRNGKey(size), size, n_valid, k))
        assert idx.shape == mask.shape == (k, -(-size // k))
        np.testing.assert_array_equal(np.sort(idx[mask]), np.arange(n_valid))  # each valid row once, no padding row
        counts = mask.sum(axis=1)
        assert counts.max() - counts.min() <= 1  # minibatches of floor(n/k) or ceil(n/k) rows


@pytest.mark.parametrize("size,n_valid,batch,epochs", [(64, 61, 30, 5), (40, 33, 100, 2)])
def test_stream_batching_is_a_wrapping_row_stream(monkeypatch, size, n_valid, batch, epochs):
    """``batching="stream"``: every update takes exactly min(batch, n) valid rows, the concatenated updates are
    consecutive epochs that each hold every valid row once (a minibatch runs on into the next epoch), E epochs make
    ceil(E n / b) updates and epoch e holds the updates whose first row lies in it (Chainer's SerialIterator)."""
    import importlib

    T = importlib.import_module("pujax.neural.train")
    seen = []  # (epoch, rows of the update)
    real_step = T.train_step

    def record(epoch, rows, mask):
        seen.append((int(epoch), np.asarray(rows)[np.asarray(mask)].astype(int)))

    def recording_step(cfg, state, xb, sb, prior, rng=None, mask=None):
        jax.debug.callback(record, state["epoch"], xb[:, 0], mask, ordered=True)
        return real_step(cfg, state, xb, sb, prior, rng, mask)

    monkeypatch.setattr(T, "train_step", recording_step)
    X = np.zeros((size, 2), np.float32)
    X[:, 0] = np.arange(size)
    X[n_valid:, 0] = -1  # padding rows must never be drawn
    s = (np.arange(size) % 3 == 0).astype(np.int32)
    cfg = make_config(model="linear", batch_size=batch, batching="stream", n_features=2)
    state = T.init_state(jax.random.PRNGKey(1), X, cfg)
    state, hist = jax.jit(lambda st: T.run_epochs(cfg, st, X, s, 0.4, epochs, n_valid=jnp.int32(n_valid)))(state)
    jax.effects_barrier()
    b = min(batch, n_valid)
    assert len(seen) == -(-epochs * n_valid // b)
    assert all(len(rows) == b for _, rows in seen)
    stream = np.concatenate([rows for _, rows in seen])
    for e in range(epochs):
        np.testing.assert_array_equal(np.sort(stream[e * n_valid:(e + 1) * n_valid]), np.arange(n_valid))
    first_rows = np.arange(len(seen)) * b
    np.testing.assert_array_equal([e for e, _ in seen], first_rows // n_valid)
    assert int(state["epoch"]) == epochs and hist["risk"].shape == (epochs,)


def test_padded_rows_do_not_change_training(problem):
    """Full-batch training on X padded with garbage rows (masked: zero weight in the risk, out of BatchNorm's
    statistics) equals training on X alone; the epoch order does not matter with one minibatch."""
    from pujax.neural.train import init_state, run_epochs

    X, s, prior, _, _ = problem
    cfg = make_config(model="mlp", model_kwargs=TINY, batch_size=1000, learning_rate=1e-2, n_features=X.shape[1])
    Xp = np.concatenate([X, np.full((13, X.shape[1]), 1e3, np.float32)])
    sp = np.r_[s, np.ones(13, int)]
    state = init_state(jax.random.PRNGKey(0), X, cfg)
    ref, h_ref = run_epochs(cfg, state, X, s, prior, 4)
    out, h_out = run_epochs(cfg, state, Xp, sp, prior, 4, n_valid=jnp.int32(len(s)), n_batches=1)
    np.testing.assert_allclose(h_out["risk"], h_ref["risk"], rtol=1e-4)
    for a, b in zip(jax.tree.leaves(out["variables"]), jax.tree.leaves(ref["variables"])):
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-5)


def test_full_batch_epoch_is_one_adam_step_on_every_row(problem):
    """With one minibatch per epoch (no shuffle), each epoch is one step of Adam with coupled weight decay on the
    gradient of all rows: re-derived with optax directly."""
    import optax

    from pujax.neural.train import init_state, run_epochs

    X, s, prior, _, _ = problem
    cfg = make_config(model="mlp", model_kwargs=TINY, batch_size=1000, learning_rate=1e-2, weight_decay=1e-3,
                      n_features=X.shape[1])
    state = jax.jit(lambda k: init_state(k, X, cfg))(jax.random.PRNGKey(5))
    out, hist = jax.jit(lambda st: run_epochs(cfg, st, X, s, prior, 3))(state)
    opt = optax.chain(optax.add_decayed_weights(1e-3), optax.adam(1e-2))
    variables, opt_state, risks = state["variables"], None, []
    step = jax.jit(lambda v: loss_and_grad(cfg, v, X, s, prior))
    for _ in range(3):
        grads, new, aux = step(variables)
        opt_state = opt.init(variables["params"]) if opt_state is None else opt_state
        updates, opt_state = opt.update(grads, opt_state, variables["params"])
        variables = {**variables, **new, "params": optax.apply_updates(variables["params"], updates)}
        risks.append(float(aux["risk"]))
    np.testing.assert_allclose(hist["risk"], risks, rtol=1e-4)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5), out["variables"], variables)


def test_one_seed_runs_without_the_seed_vmap_and_gives_the_same_model(problem, fitted):
    """n_seeds=1 on one device runs the program without the seed axis (pujax.devices.shard_seeds' ``single``); its
    model equals seed 0 of the four-seed fit (host_split gives seed i the same key for any n_seeds)."""
    X, s, prior, X_te, _ = problem
    one = NNPUClassifier(prior=prior, n_seeds=1, random_state=3, **COMMON).fit(X, s)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-5), one.seed_variables(0),
                 fitted.seed_variables(0))
    np.testing.assert_allclose(one.decision_function(X_te), fitted.seed_decision_function(X_te)[0], rtol=1e-4,
                               atol=1e-5)


def test_refit_on_a_row_count_in_the_same_bucket_compiles_nothing(problem):
    from pujax.compilation import bucket_size, count_compilations

    X, s, prior, X_te, _ = problem
    keep = np.r_[np.arange(25), 30 + np.arange(160)]  # 185 of 190 rows: the same bucket (216)
    assert bucket_size(len(s)) == bucket_size(len(keep))
    est = NNPUClassifier(prior=prior, model_kwargs=TINY, epochs=3, random_state=0).fit(X, s)
    est.predict(X_te)
    with count_compilations() as c:
        est.fit(X[keep], s[keep])
        est.predict(X_te)
    assert c.count == 0
