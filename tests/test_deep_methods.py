"""The deep PU methods on pujax's rule engine: ten seeds in one vmapped program equal ten single-seed runs, the
model selection looks only at the stages it should, the methods' fitted thresholds and prior estimates follow their
definitions, sparse input equals its dense copy, and refits reuse the compiled programs.

Shapes are tiny (96 rows, a 3-4-1 network, a few epochs) so that each method compiles two small programs.
"""
import jax
import numpy as np
import pytest
import scipy.sparse as sp

import pujax.neural as N
from pujax.neural.config import make_config
from pujax.neural.models import MLP, Heads
from pujax.neural.rules_label import CVIRRule, HolisticPURule, LBERule, P3MixRule, RobustPURule
from pujax.neural.rules_risk import CountLossRule, DistPURule, PUbNRule, PUeRule, PULDARule, PUSBRule
from pujax.neural.selection import held_out_rows
from pujax.neural.train import run_seeds
from pujax.random import as_key, host_split

TINY = {"hidden_sizes": (4,)}
RULES = {
    "PUSB": PUSBRule(), "PUbN": PUbNRule(pretrain_epochs=2), "Dist-PU": DistPURule(warmup_epochs=2),
    "PULDA": PULDARule(warmup_epochs=2), "Count Loss": CountLossRule(), "PUe": PUeRule(warmup_epochs=2),
    "CVIR": CVIRRule(warmup_epochs=2), "P3Mix-C": P3MixRule(variant="C", start_hmix=1, top_k=8),
    "P3Mix-E": P3MixRule(variant="E", start_hmix=1, top_k=8), "Robust-PU": RobustPURule(pretrain_epochs=2, freq=1),
    "HolisticPU": HolisticPURule(warmup_epochs=2), "LBE": LBERule(warmup_epochs=2),
}


def _problem(seed=0, n_u=80, n_p=16, d=3):
    r = np.random.default_rng(seed)
    y = r.random(n_u) < 0.4
    X = r.normal(size=(n_u, d)).astype(np.float32)
    X[y, 0] += 2.0
    P = X[r.choice(np.flatnonzero(y), n_p, replace=False)]
    return np.concatenate([P, X]), np.r_[np.ones(n_p, int), np.zeros(n_u, int)], float(y.mean())


@pytest.fixture(scope="module")
def problem():
    return _problem()


# Two programs per method (several seconds of compilation each on 2 cores): three methods run by default (one stage;
# two stages with a fresh network; two networks with mixup-free EM), all of them with -m slow.
DEFAULT_RUN = ("PUSB", "PUbN", "LBE")


@pytest.mark.parametrize("name", [n if n in DEFAULT_RUN else pytest.param(n, marks=pytest.mark.slow) for n in RULES])
def test_ten_seeds_in_one_program_equal_ten_single_runs(problem, name):
    """``run_seeds`` with ten keys (one vmapped program) equals the ten keys run one at a time (the program
    without the seed axis), up to float rounding: variables, selected epochs, thresholds and histories."""
    X, s, prior = problem
    rule = RULES[name]
    module = MLP(**TINY) if rule.heads == 1 else Heads(MLP(**TINY), rule.heads)
    cfg = make_config(model=module, batch_size=32, learning_rate=1e-2, rule=rule, selection="proxy_accuracy",
                      n_features=X.shape[1])
    keys = host_split(as_key(0), 10)
    Xt, st, val = held_out_rows(X, s, 0.2, as_key(0))
    many = run_seeds("fit_many", cfg, 4, keys, Xt, st, np.float32(prior), val=val)
    for i in range(10):
        one = run_seeds("fit_many", cfg, 4, keys[i:i + 1], Xt, st, np.float32(prior), val=val)
        np.testing.assert_array_equal(one[0]["best_epoch"][0], many[0]["best_epoch"][i])
        np.testing.assert_allclose(one[1]["loss"][0], many[1]["loss"][i], rtol=2e-4, atol=2e-5)
        np.testing.assert_allclose(one[0]["threshold"][0], many[0]["threshold"][i], rtol=1e-4, atol=1e-5)
        jax.tree.map(lambda a, b: np.testing.assert_allclose(a[0], b[i], rtol=1e-3, atol=1e-5),
                     one[0]["best_variables"], many[0]["best_variables"])
    assert np.all(np.isfinite(many[1]["loss"]))
    stages = rule.stages(4)
    if not rule.selected(0, len(stages)):  # the selection ignores the first stage
        assert np.all(many[0]["best_epoch"] >= stages[0])
        assert np.all(np.isnan(many[1]["validation"][:, :stages[0]]))


def test_estimator_selection_thresholds_and_history(problem, capsys):
    """PUSB: the fitted threshold calls a share ``prior`` of the unlabeled training rows positive; the kept epoch is
    the first argmin of the held-out criterion; PUbN's selection starts after pre-training."""
    X, s, prior = problem
    est = N.PUSBClassifier(model_kwargs=TINY, epochs=4, batch_size=32, learning_rate=1e-2, prior=prior,
                           validation_fraction=0.0, n_seeds=3, random_state=0).fit(X, s)
    d = est.seed_decision_function(X[s == 0])  # a share prior of U above the threshold (up to ties at it)
    assert np.all((d > 0).mean(axis=1) <= prior + 1e-9) and np.all((d >= 0).mean(axis=1) >= prior - 1e-9)
    assert est.validation_loss_ is None and np.all(est.best_epoch_ == 3)
    est = N.PUbNClassifier(model_kwargs=TINY, pretrain_epochs=2, epochs=5, batch_size=32, learning_rate=1e-2,
                           prior=prior, validation_fraction=0.2, n_seeds=3, random_state=0, verbose=True).fit(X, s)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 5 and "epoch 5/5" in printed[-1] and "held-out proxy_accuracy" in printed[-1]
    assert est.validation_loss_.shape == (3, 5) and np.all(np.isnan(est.validation_loss_[:, :2]))
    np.testing.assert_array_equal(est.best_epoch_, 2 + np.nanargmin(est.validation_loss_[:, 2:], axis=1))
    assert est.history_["loss"].shape == (3, 5)
    np.testing.assert_allclose(est.decision_function(X), est.seed_decision_function(X).mean(axis=0))
    proba = est.predict_proba(X)
    np.testing.assert_array_equal(proba[:, 1] > 0.5, est.predict(X) == 1)


def test_cvir_estimates_the_prior_with_bbe_and_uses_a_given_one(problem):
    X, s, prior = problem
    kw = dict(model_kwargs=TINY, warmup_epochs=2, epochs=4, batch_size=32, learning_rate=1e-2, random_state=0)
    est = N.CVIRClassifier(**kw).fit(X, s)
    assert 0.0 < est.prior_ < 1.0
    fixed = N.CVIRClassifier(prior=0.3, **kw).fit(X, s)
    assert fixed.prior_ == 0.3


@pytest.mark.parametrize("cls,standardize,kwargs", [(N.NNPUClassifier, False, dict(epochs=3)),
                                                    (N.LBEClassifier, True, dict(warmup_epochs=1, epochs=3))])
def test_sparse_input_equals_its_dense_copy(cls, standardize, kwargs):
    """A CSR matrix trains without a dense copy and gives the model of its dense copy: identical without
    standardisation; with it, the sparse rows are scaled without centring on the device in float32, and the model is
    that of the dense copy divided by scale_ within float rounding."""
    r = np.random.default_rng(1)
    Xs = sp.random(120, 40, density=0.1, random_state=2, format="csr", dtype=np.float64)
    y = np.asarray(Xs[:, :4].sum(axis=1)).ravel() > 0.2
    s = (y & (r.random(120) < 0.5)).astype(int)
    kw = dict(model_kwargs=TINY, batch_size=32, prior=0.4, random_state=0, n_seeds=2, standardize=standardize,
              validation_fraction=0.2, **kwargs)
    a = cls(**kw).fit(Xs, s)
    Xd = Xs.toarray()
    if standardize:  # a sparse X is scaled without centring (docs/sparse.md): the dense copy of X / scale_, as given
        assert not a.mean_.any()
        Xd = Xd / a.scale_
        kw["standardize"] = False
    b = cls(**kw).fit(Xd, s)
    tol = dict(rtol=1e-4, atol=1e-5) if standardize else dict(rtol=0, atol=0)
    np.testing.assert_allclose(a.decision_function(Xs), b.decision_function(Xd), **tol)
    np.testing.assert_allclose(a.decision_function(Xs.tocsc()), a.decision_function(Xs.toarray()), rtol=1e-6,
                               atol=1e-6)
    if cls is N.NNPUClassifier:
        with pytest.raises(ValueError, match="sparse"):
            N.NNPUClassifier(model_kwargs=TINY, epochs=1).fit(Xs, s)  # prior="auto" needs dense features


def test_refit_in_the_same_bucket_compiles_nothing(problem):
    from pujax.compilation import count_compilations

    X, s, prior = problem
    est = N.DistPUClassifier(model_kwargs=TINY, warmup_epochs=1, epochs=3, batch_size=32, prior=prior,
                             random_state=0).fit(X, s)
    est.predict(X)
    keep = np.r_[np.arange(14), 16 + np.arange(78)]
    with count_compilations() as c:
        est.fit(X[keep], s[keep])
        est.predict(X)
    assert c.count == 0


def test_bad_parameters_name_the_argument(problem):
    X, s, prior = problem
    with pytest.raises(ValueError, match="epochs"):
        N.PUbNClassifier(pretrain_epochs=10, epochs=5).fit(X, s)
    with pytest.raises(ValueError, match="selection"):
        N.CountLossClassifier(selection="risk").fit(X, s)
    with pytest.raises(ValueError, match="variant"):
        N.P3MixClassifier(variant="X").fit(X, s)
    with pytest.raises(ValueError, match="tau"):
        N.PUbNClassifier(tau=0.0).fit(X, s)
