"""pujax.metrics against scikit-learn (random inputs, ties included) and hand-computed PU scores."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sklearn.metrics as skm

from pujax import metrics


@pytest.fixture(params=[0, 1, 2])
def labels_scores(request):
    r = np.random.default_rng(request.param)
    n = [200, 1000, 37][request.param]
    y = r.integers(0, 2, n)
    scores = np.round(r.normal(size=n) + 0.5 * y, 1)  # rounding creates many ties
    pred = (r.random(n) < 0.4).astype(int)
    return y, scores.astype(np.float32), pred


def test_label_metrics_match_sklearn(labels_scores):
    y, _, pred = labels_scores
    pairs = [
        (metrics.accuracy, skm.accuracy_score),
        (metrics.balanced_accuracy, skm.balanced_accuracy_score),
        (metrics.precision, lambda a, b: skm.precision_score(a, b, zero_division=0)),
        (metrics.recall, lambda a, b: skm.recall_score(a, b, zero_division=0)),
        (metrics.f1_score, lambda a, b: skm.f1_score(a, b, zero_division=0)),
    ]
    for ours, ref in pairs:
        assert float(ours(y, pred)) == pytest.approx(ref(y, pred), abs=1e-6), ours.__name__


def test_score_metrics_match_sklearn_with_ties(labels_scores):
    y, scores, _ = labels_scores
    assert float(metrics.roc_auc(y, scores)) == pytest.approx(skm.roc_auc_score(y, scores), abs=1e-6)
    assert float(metrics.average_precision(y, scores)) == pytest.approx(
        skm.average_precision_score(y, scores), abs=1e-6)


def test_all_tied_scores():
    y = np.array([0, 1, 1, 0, 1])
    s = np.zeros(5, np.float32)
    assert float(metrics.roc_auc(y, s)) == pytest.approx(0.5)
    assert float(metrics.average_precision(y, s)) == pytest.approx(skm.average_precision_score(y, s))


def test_degenerate_cases_like_sklearn():
    y = np.array([1, 1, 0, 0])
    none = np.zeros(4, int)
    assert float(metrics.precision(y, none)) == 0.0
    assert float(metrics.f1_score(y, none)) == 0.0
    one_class = np.ones(4, int)
    assert float(metrics.balanced_accuracy(one_class, y)) == pytest.approx(
        skm.balanced_accuracy_score(one_class, y))
    assert np.isnan(float(metrics.roc_auc(one_class, np.arange(4.0))))


def test_label_encodings_accepted():
    y01 = np.array([1, 0, 1, 1, 0])
    ypm = 2 * y01 - 1
    p = np.array([1, 1, 0, 1, 0])
    assert float(metrics.f1_score(ypm, p)) == float(metrics.f1_score(y01.astype(bool), p)) == float(
        metrics.f1_score(y01, p))


def test_jit_and_vmap_over_seeds():
    r = np.random.default_rng(4)
    y = r.integers(0, 2, (4, 100))
    sc = r.normal(size=(4, 100)).astype(np.float32)
    got = jax.vmap(metrics.roc_auc)(jnp.asarray(y), jnp.asarray(sc))
    np.testing.assert_allclose(got, [skm.roc_auc_score(a, b) for a, b in zip(y, sc)], atol=1e-6)
    got = jax.jit(jax.vmap(metrics.average_precision))(jnp.asarray(y), jnp.asarray(sc))
    np.testing.assert_allclose(got, [skm.average_precision_score(a, b) for a, b in zip(y, sc)], atol=1e-6)


def test_pu_score_by_hand():
    s = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    pred = np.array([1, 1, 1, 0, 1, 1, 0, 0, 0, 0])
    recall = 3 / 4
    frac = 5 / 10
    assert float(metrics.pu_score(s, pred)) == pytest.approx(recall ** 2 / frac)
    assert float(metrics.pu_score(s, np.zeros(10, int))) == 0.0


def test_pu_zero_one_risk_unbiased():
    """On case-control data the PU 0-1 risk estimate averages to the true 0-1 risk."""
    r = np.random.default_rng(0)
    n, prior = 5000, 0.4
    y = (r.random(n) < prior).astype(int)
    pred = np.where(r.random(n) < 0.8, y, 1 - y)  # an 80 % accurate classifier
    true_risk = np.mean(pred != y)
    pos = np.flatnonzero(y == 1)
    est = []
    for _ in range(100):
        p = r.choice(pos, 100, replace=False)
        u = r.choice(n, 500, replace=False)
        s = np.r_[np.ones(100, int), np.zeros(500, int)]
        est.append(float(metrics.pu_zero_one_risk(s, np.r_[pred[p], pred[u]], prior)))
    est = np.array(est)
    assert abs(est.mean() - true_risk) < 4 * est.std() / 10 + 1e-3
    assert float(metrics.pu_accuracy(s, np.r_[pred[p], pred[u]], prior)) == pytest.approx(1 - est[-1], abs=1e-6)


def test_scorers_in_grid_search():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    r = np.random.default_rng(0)
    X = r.normal(size=(300, 3))
    s = (X[:, 0] + 0.5 * r.normal(size=300) > 1.0).astype(int)
    gs = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, scoring=metrics.pu_scorer, cv=3).fit(X, s)
    assert np.isfinite(gs.best_score_)
    est = gs.best_estimator_
    assert metrics.pu_scorer(est, X, s) == pytest.approx(float(metrics.pu_score(s, est.predict(X))))
    sc = metrics.make_pu_risk_scorer(0.3)
    assert sc(est, X, s) == pytest.approx(float(metrics.pu_accuracy(s, est.predict(X), 0.3)))
    with pytest.raises(ValueError, match="prior"):
        metrics.make_pu_risk_scorer(1.5)
