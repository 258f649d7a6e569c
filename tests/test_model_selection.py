"""pujax.model_selection: PU splitters against scikit-learn's stratified splitters, PU scorers against the metrics
they wrap, and PU model selection with scikit-learn's tooling (GridSearchCV, Pipeline, cross_val_score, clone,
pickle, set_output) -- issue 25."""
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import pujax
from pujax import metrics, risk
from pujax.model_selection import PUStratifiedKFold, make_pu_scorer, pu_train_test_split

PRIOR = 0.4


@pytest.fixture(scope="module")
def pu_data():
    """Case-control PU data: 60 labeled positives + 240 unlabeled rows with positive fraction PRIOR."""
    r = np.random.default_rng(0)
    y_u = (r.random(240) < PRIOR).astype(int)
    X_u = r.normal(size=(240, 4)) + 1.5 * y_u[:, None] * np.array([1.0, 1.0, 0.0, 0.0])
    X_p = r.normal(size=(60, 4)) + 1.5 * np.array([1.0, 1.0, 0.0, 0.0])
    return np.r_[X_p, X_u].astype(np.float32), np.r_[np.ones(60, int), np.zeros(240, int)]


# ------------------------------------------------------------------------------------------------- splitters

@pytest.mark.parametrize("shuffle,seed", [(False, None), (True, 0), (True, 7)])
def test_pu_stratified_kfold_equals_sklearn_on_s(pu_data, shuffle, seed):
    X, s = pu_data
    ours = list(PUStratifiedKFold(4, shuffle=shuffle, random_state=seed).split(X, s))
    ref = list(StratifiedKFold(4, shuffle=shuffle, random_state=seed).split(X, s))
    assert len(ours) == PUStratifiedKFold(4).get_n_splits() == 4
    for (tr, te), (rtr, rte) in zip(ours, ref):
        np.testing.assert_array_equal(tr, rtr)
        np.testing.assert_array_equal(te, rte)
    tests = np.concatenate([te for _, te in ours])
    np.testing.assert_array_equal(np.sort(tests), np.arange(len(s)))  # a partition
    assert all(abs(int(s[te].sum()) - 60 / 4) <= 1 for _, te in ours)  # the labeled share is kept
    for enc, pos in ((s.astype(bool), None), (2 * s - 1, None), (2 - s, 1), (np.where(s, "P", "U"), "P")):
        folds = list(PUStratifiedKFold(4, shuffle=shuffle, random_state=seed, pos_label=pos).split(X, enc))
        assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, ours))


def test_pu_stratified_kfold_errors():
    X = np.zeros((20, 2))
    s = np.r_[np.ones(3, int), np.zeros(17, int)]
    with pytest.raises(ValueError, match="3 labeled positives, fewer than the 5"):
        list(PUStratifiedKFold(5).split(X, s))
    with pytest.raises(ValueError, match="needs the PU labels"):
        list(PUStratifiedKFold(2).split(X, None))
    with pytest.raises(ValueError, match="0 labeled positives, fewer than the 2"):
        list(PUStratifiedKFold(2).split(X, np.zeros(20, int)))
    with pytest.raises(ValueError, match=r"values \[1, 2\].*pos_label"):
        list(PUStratifiedKFold(2).split(X, s + 1))
    with pytest.raises(ValueError, match="n_splits"):
        PUStratifiedKFold(1)
    assert "PUStratifiedKFold(n_splits=5, pos_label=None, random_state=None, shuffle=False)" == " ".join(
        repr(PUStratifiedKFold()).split())


def test_pu_train_test_split_equals_stratified_sklearn_split(pu_data):
    X, s = pu_data
    y_hidden = np.arange(len(s))
    ours = pu_train_test_split(X, s, y_hidden, test_size=0.2, random_state=3)
    ref = train_test_split(X, s, y_hidden, test_size=0.2, random_state=3, stratify=s)
    assert len(ours) == 6
    for a, b in zip(ours, ref):
        np.testing.assert_array_equal(a, b)
    assert int(ours[3].sum()) == 12 and int(ours[2].sum()) == 48  # 20 % of the 60 labeled rows in the test part
    Xdf, sser = pd.DataFrame(X, columns=list("abcd")), pd.Series(s, name="s")
    Xtr, Xte, str_, ste = pu_train_test_split(Xdf, sser, random_state=0)
    assert isinstance(Xtr, pd.DataFrame) and list(Xte.columns) == list("abcd") and isinstance(ste, pd.Series)
    with pytest.raises(ValueError, match="1 labeled positives, fewer than the 2"):
        pu_train_test_split(X[59:], s[59:])


# --------------------------------------------------------------------------------------------------- scorers

def test_scorers_equal_the_metrics_they_wrap(pu_data):
    X, s = pu_data
    est = LogisticRegression().fit(X, s)
    pred, g = est.predict(X), est.decision_function(X)
    expected = {
        "lee_liu": float(metrics.lee_liu_score(s, pred)),
        "pu_recall": float(metrics.pu_recall(s, pred)),
        "pu_lift_auc": float(metrics.pu_lift_auc(s, g)),
        "pu_zero_one_risk": -float(metrics.pu_zero_one_risk(s, pred, PRIOR)),
        "nnpu_risk": -float(risk.nnpu_risk(g, s, PRIOR, loss="sigmoid")),
        "upu_risk": -float(risk.upu_risk(g, s, PRIOR, loss="sigmoid")),
        "pu_accuracy": float(metrics.pu_accuracy(s, pred, PRIOR)),
        "pu_balanced_accuracy": float(metrics.pu_balanced_accuracy(s, pred, PRIOR)),
        "pu_precision": float(metrics.pu_precision(s, pred, PRIOR)),
        "pu_f1": float(metrics.pu_f1_score(s, pred, PRIOR)),
        "pu_roc_auc": float(metrics.pu_roc_auc(s, g, PRIOR)),
        "proxy_accuracy": float(metrics.pu_proxy_accuracy(s, pred, PRIOR)),
        "proxy_auc": float(metrics.pu_lift_auc(s, g)),
    }
    assert set(expected) == set(pujax.model_selection.PU_SCORERS)
    for name, want in expected.items():
        assert make_pu_scorer(name, PRIOR)(est, X, s) == pytest.approx(want, abs=1e-6), name
    # the censoring scenario reaches the metric; the nnPU risk takes its loss
    assert make_pu_scorer("pu_f1", PRIOR, scenario="censoring")(est, X, s) == pytest.approx(
        float(metrics.pu_f1_score(s, pred, PRIOR, scenario="censoring")), abs=1e-6)
    assert make_pu_scorer("nnpu_risk", PRIOR, loss="logistic")(est, X, s) == pytest.approx(
        -float(risk.nnpu_risk(g, s, PRIOR, loss="logistic")), abs=1e-6)
    w = np.random.default_rng(1).integers(1, 4, len(s)).astype(float)  # sample weights reach the metric
    assert make_pu_scorer("pu_f1", PRIOR)(est, X, s, sample_weight=w) == pytest.approx(
        float(metrics.pu_f1_score(s, pred, PRIOR, sample_weight=w)), abs=1e-6)
    assert make_pu_scorer("nnpu_risk", PRIOR)(est, X, s, sample_weight=w) == pytest.approx(
        -float(risk.nnpu_risk(g, s, PRIOR, weights=w)), abs=1e-6)


def test_scorer_label_encodings_and_predict_proba_only(pu_data):
    X, s = pu_data
    ref = make_pu_scorer("lee_liu")(LogisticRegression().fit(X, s), X, s)
    for enc in (2 * s - 1, s + 1, s.astype(bool)):  # mapped through the estimator's classes_
        assert make_pu_scorer("lee_liu")(LogisticRegression().fit(X, enc), X, enc) == pytest.approx(ref)
    knn = KNeighborsClassifier(7).fit(X, s)  # no decision_function: ranked by predict_proba
    assert make_pu_scorer("pu_roc_auc", PRIOR)(knn, X, s) == pytest.approx(
        float(metrics.pu_roc_auc(s, knn.predict_proba(X)[:, 1], PRIOR)), abs=1e-6)


def test_scorer_prior_from_the_estimator_or_a_clear_error(pu_data, grid):
    X, s = pu_data
    tr, _ = next(grid[1].split(X, s))  # a fold the grid search compiled for
    pipe = make_pipeline(StandardScaler(), pujax.PUExtraTreesClassifier(n_estimators=10, max_features=1,
                                                                        prior=0.35, random_state=0))
    pipe.fit(X[tr], s[tr])
    got = make_pu_scorer("pu_accuracy")(pipe, X, s)  # prior=None: the last step's prior_
    assert got == pytest.approx(float(metrics.pu_accuracy(s, pipe.predict(X), 0.35)), abs=1e-6)
    with pytest.raises(ValueError, match=r"needs the class prior.*LogisticRegression has no prior_"):
        make_pu_scorer("pu_roc_auc")(LogisticRegression().fit(X, s), X, s)
    with pytest.raises(ValueError, match="metric='roc_auc' is not valid"):
        make_pu_scorer("roc_auc")
    with pytest.raises(ValueError, match="prior"):
        make_pu_scorer("pu_f1", prior=1.5)
    with pytest.raises(ValueError, match="scenario"):
        make_pu_scorer("pu_f1", prior=0.3, scenario="scar")


# ---------------------------------------------------------------------------------- scikit-learn's tooling

@pytest.fixture(scope="module")
def grid(pu_data):
    X, s = pu_data
    cv = PUStratifiedKFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(pujax.PUExtraTreesClassifier(n_estimators=10, prior=PRIOR, random_state=0),
                          {"max_features": [1, None]}, scoring=make_pu_scorer("pu_roc_auc", PRIOR), cv=cv)
    return search.fit(X, s), cv


def test_grid_search_over_forest_max_features(pu_data, grid):
    """GridSearchCV's cross-validated scores equal a by-hand loop over the same folds and the metric itself."""
    X, s = pu_data
    search, cv = grid
    for i, params in enumerate(search.cv_results_["params"]):
        by_hand = []
        for tr, te in cv.split(X, s):
            est = clone(search.estimator).set_params(**params).fit(X[tr], s[tr])
            by_hand.append(float(metrics.pu_roc_auc(s[te], est.decision_function(X[te]), PRIOR)))
        assert search.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(by_hand), abs=1e-6)
    assert search.best_params_ == search.cv_results_["params"][int(np.argmax(search.cv_results_["mean_test_score"]))]
    assert search.best_score_ > 0.7  # the informative features are found


def test_pipeline_resvm_in_cross_val_score(pu_data):
    X, s = pu_data
    pipe = make_pipeline(StandardScaler(), pujax.RESVMClassifier(n_models=5, random_state=0))
    cv = PUStratifiedKFold(3)
    scores = cross_val_score(pipe, X, s, scoring=make_pu_scorer("lee_liu"), cv=cv, error_score="raise")
    by_hand = [float(metrics.lee_liu_score(s[te], clone(pipe).fit(X[tr], s[tr]).predict(X[te])))
               for tr, te in cv.split(X, s)]
    np.testing.assert_allclose(scores, by_hand, atol=1e-6)
    assert np.all(scores > 1.0)  # better than predicting everything positive (score 1)


def test_clone_and_pickle_fitted_and_unfitted(pu_data, grid):
    X, s = pu_data
    search, cv = grid
    fitted = search.best_estimator_
    twin = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(twin.decision_function(X), fitted.decision_function(X))
    searched = pickle.loads(pickle.dumps(search))  # the search keeps its PU scorer and splitter
    np.testing.assert_array_equal(searched.predict(X), search.predict(X))
    assert searched.scorer_(searched, X, s) == pytest.approx(search.scorer_(search, X, s))
    # prior=None reads prior_ through the search's best_estimator_
    assert make_pu_scorer("pu_f1")(searched, X, s) == pytest.approx(
        float(metrics.pu_f1_score(s, search.predict(X), fitted.prior_)), abs=1e-6)
    fresh = clone(fitted)
    assert fresh.get_params() == fitted.get_params() and not hasattr(fresh, "model_")
    with pytest.raises(NotFittedError):
        fresh.predict(X)
    unfitted = make_pipeline(StandardScaler(), pujax.RESVMClassifier(n_models=5, C=2.0))
    assert pickle.loads(pickle.dumps(unfitted)).get_params()["resvmclassifier__C"] == 2.0
    assert clone(unfitted).get_params()["resvmclassifier__n_models"] == 5
    cv2 = pickle.loads(pickle.dumps(cv))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(cv2.split(X, s), cv.split(X, s)))


def test_fscpu_set_output_pandas(pu_data):
    X, s = pu_data
    Xdf = pd.DataFrame(X, columns=["f0", "f1", "noise0", "noise1"])
    sel = pujax.FSCPU(2, n_iter=100, random_state=0).set_output(transform="pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out = sel.fit(Xdf, s).transform(Xdf)
    support = sel.get_support()
    assert isinstance(out, pd.DataFrame) and support.sum() == 2
    assert list(out.columns) == list(Xdf.columns[support]) == list(sel.get_feature_names_out())
    np.testing.assert_array_equal(out.to_numpy(), X[:, support])
    pd.testing.assert_index_equal(out.index, Xdf.index)
