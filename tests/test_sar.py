"""SAR data (pujax.data.sar) and SAR-EM / propensity weights / the SCAR check (pujax.meta.sar) on data with known
propensities."""
import warnings

import numpy as np
import pytest

from pujax.data import make_censoring, make_sar
from pujax.meta import ElkanNotoClassifier, SAREMClassifier, SCARWarning, inverse_propensity_weights, scar_check


def _population(n=1500, seed=0):
    r = np.random.default_rng(seed)
    X = r.normal(size=(n, 3))
    y = (r.random(n) < 1 / (1 + np.exp(-3 * X[:, 0]))).astype(int)
    return X, y


def test_make_sar_propensity_and_labels():
    X, y = _population()
    d = make_sar(1, X, y, propensity_features=[1, 2], coef=[1.5, -1.0], intercept=0.5)
    Z = (X[:, [1, 2]] - X[:, [1, 2]].mean(0)) / X[:, [1, 2]].std(0)
    ref = 1 / (1 + np.exp(-(0.5 + Z @ np.array([1.5, -1.0]))))
    np.testing.assert_allclose(d.propensity, ref, rtol=1e-5)
    assert np.all(y[d.s == 1] == 1)
    # labeled share of the positives ~ mean propensity of the positives; labeled rows have higher propensity
    assert abs(d.s[y == 1].mean() - ref[y == 1].mean()) < 0.05
    assert ref[d.s == 1].mean() > ref[(y == 1) & (d.s == 0)].mean() + 0.1
    assert d.prior == pytest.approx(y[d.s == 0].mean())
    with pytest.raises(ValueError, match="propensity_features"):
        make_sar(0, X, y, propensity_features=[5])


def test_sar_em_recovers_propensities_and_beats_scar_model():
    X, y = _population(seed=2)
    d = make_sar(3, X, y, propensity_features=[1, 2], coef=[1.5, -1.0])
    clf = SAREMClassifier(propensity_features=[1, 2], max_iter=60, tol=1e-4).fit(d.X, d.s)
    e = clf.propensity(d.X)
    assert np.mean(np.abs(e - d.propensity)[y == 1]) < 0.08
    en = ElkanNotoClassifier(random_state=0).fit(d.X, d.s)
    acc = np.mean(clf.predict(d.X) == y)
    assert acc > 0.78 and acc > np.mean(en.predict(d.X) == y) + 0.05
    p = clf.predict_proba(d.X)
    assert np.all((p >= 0) & (p <= 1))


def test_inverse_propensity_weights_restore_the_positive_distribution():
    X, y = _population(n=4000, seed=4)
    d = make_sar(5, X, y, propensity_features=[1], coef=1.5)
    w = inverse_propensity_weights(d.propensity, d.s)
    lab = d.s == 1
    assert np.all(w[~lab] == 1) and np.all(w[lab] >= 1)
    true_mean = X[y == 1, 1].mean()
    assert abs(X[lab, 1].mean() - true_mean) > 0.3  # the labeled positives are biased ...
    assert abs(np.average(X[lab, 1], weights=w[lab]) - true_mean) < 0.05  # ... the weighted ones are not
    with pytest.raises(ValueError, match="propensity"):
        inverse_propensity_weights(np.full(len(y), 1.5), d.s)


def test_scar_check_warns_on_sar_only():
    X, y = _population(seed=6)
    sar = make_sar(7, X, y, propensity_features=[1, 2], coef=[1.5, -1.0])
    with pytest.warns(SCARWarning, match="SCAR is implausible"):
        res = scar_check(sar.X, sar.s, propensity_features=[1, 2], max_iter=40)
    assert not res.scar_plausible and res.p_value < 1e-6
    scar = make_censoring(7, X, y, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SCARWarning)
        res = scar_check(scar.X, scar.s, propensity_features=[1, 2], max_iter=40)
    assert res.scar_plausible and res.statistic < 13.8  # chi2(2) quantile 0.999
