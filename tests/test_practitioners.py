"""Inputs from public PU bug reports and questions, tried as a new user would: no silent wrong answer.

* PU labels in another encoding (1 = labeled / 2 = unlabeled, strings) are refused with the values named, unless
  ``pos_label`` names the labeled value; every entry point reads labels by the one rule of
  :func:`pujax.validation.read_pu_labels` (label_rule tests below);
* Elkan-Noto with a handful of labeled positives gives a usable ``c_`` or warns, never the clip floor;
* every PU classifier with its defaults predicts a positive share near the truth on breast cancer (10 and 50
  labeled positives) and on an easy synthetic set, or warns naming the argument to set;
* meta-estimators keep their base model's ranking, and a fit that finds no positive among the unlabeled rows warns.
"""
import warnings

import numpy as np
import pytest
from _estimators import public_estimator_classes
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from pujax.base import DegenerateFitWarning
from pujax.data import make_case_control
from pujax.meta import ElkanNotoClassifier
from pujax.meta._common import positive_proba


def _report_data(seed=0, n=600):
    """The report's set: 3 features, y ~ Bernoulli(0.4), X = N(0, I) + 2.5 y, s = y AND Bernoulli(0.5)."""
    r = np.random.default_rng(seed)
    y = (r.random(n) < 0.4).astype(int)
    X = r.normal(size=(n, 3)) + 2.5 * y[:, None]
    s = y & (r.random(n) < 0.5)
    return X, y, s


def _case_control(n_labeled, n_unlabeled, prior, d, shift, seed=0, n_test=2000):
    """Case-control PU data: ``n_labeled`` positives from N(shift, I), unlabeled rows from the mixture."""
    r = np.random.default_rng(seed)
    yu = (r.random(n_unlabeled) < prior).astype(int)
    X = np.vstack([r.normal(size=(n_labeled, d)) + shift, r.normal(size=(n_unlabeled, d)) + shift * yu[:, None]])
    s = np.r_[np.ones(n_labeled, int), np.zeros(n_unlabeled, int)]
    yt = (r.random(n_test) < prior).astype(int)
    return X, s, r.normal(size=(n_test, d)) + shift * yt[:, None], yt


# ------------------------------------------------------------------------------------------- 1: label encodings
ENCODINGS = {
    "1=labeled/2=unlabeled": (lambda s: np.where(s == 1, 1, 2), 1),
    "strings": (lambda s: np.where(s == 1, "positive", "unlabeled"), "positive"),
}


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_report_encodings_are_refused_and_read_right_with_pos_label(encoding):
    """The report: 467 unlabeled rows taken as the labeled positives. Now a ValueError naming the values; with
    pos_label the fit equals the fit on {0, 1} labels, and classes_ holds [unlabeled value, labeled value]."""
    from pujax import PUExtraTreesClassifier

    X, y, s = _report_data()
    encode, pos = ENCODINGS[encoding]
    s_other = encode(s)
    for make in (lambda **kw: ElkanNotoClassifier(random_state=0, **kw),
                 lambda **kw: PUExtraTreesClassifier(n_estimators=20, prior=0.25, random_state=0, **kw)):
        with pytest.raises(ValueError, match=r"holds the values \[.*\].*pos_label"):
            make().fit(X, s_other)
        ref = make().fit(X, s)
        got = make(pos_label=pos).fit(X, s_other)
        assert got.classes_.tolist() == [s_other[s == 0][0], pos]
        np.testing.assert_array_equal(got.predict(X) == pos, ref.predict(X) == 1)
        assert np.mean((got.predict(X) == pos) == y) > 0.85


ENC = {  # name -> encode a {0, 1} vector s
    "{-1,1}": lambda s: np.where(s == 1, 1, -1),
    "bool": lambda s: s == 1,
    "{1,2}": lambda s: np.where(s == 1, 1, 2),
    "strings": lambda s: np.where(s == 1, "positive", "unlabeled"),
}
REFUSED = {"{1,2}": r"\[1, 2\]", "strings": r"\['positive', 'unlabeled'\]", "single value": "one class|no unlabeled"}


def _tiny(seed=3, n=90, d=3):
    r = np.random.default_rng(seed)
    y = (r.random(n) < 0.5).astype(int)
    X = r.normal(size=(n, d)) + 2.0 * y[:, None]
    s = (y & (r.random(n) < 0.5)).astype(int)
    return X, s


TINY_FAST = {  # keep the label tests cheap: the fits below only compare encodings
    "NNPUClassifier": dict(epochs=3), "VPUClassifier": dict(epochs=3), "FSCPU": dict(n_features_to_select=2, n_iter=20),
    "PUBaggingET": dict(n_estimators=2, n_trees=5), "SAREMClassifier": dict(max_iter=3),
    "PUBaggingClassifier": dict(n_estimators=5),
}


def _tiny_instance(cls, **kw):
    from _estimators import fast_instance

    est = fast_instance(cls, **{**TINY_FAST.get(cls.__name__, {}), **kw})
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    return est


def _output(est, X):
    """What a fitted estimator says about X, with labels mapped to 1 = its labeled value."""
    if hasattr(est, "get_support"):
        return est.get_support().astype(int)
    return (est.predict(X) == est.classes_[1]).astype(int)


@pytest.mark.parametrize("cls", public_estimator_classes(), ids=lambda c: c.__name__)
def test_label_rule_on_every_estimator(cls):
    """{-1, 1} and bool fit as {0, 1}; {1, 2}, strings and a single value are refused with the values named;
    with pos_label (where the estimator has it) {1, 2} and strings fit as {0, 1}."""
    X, s = _tiny()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _output(_tiny_instance(cls).fit(X, s), X)
        for name in ("{-1,1}", "bool"):
            np.testing.assert_array_equal(_output(_tiny_instance(cls).fit(X, ENC[name](s)), X), ref, err_msg=name)
        for name in ("{1,2}", "strings"):
            with pytest.raises(ValueError, match=REFUSED[name]):
                _tiny_instance(cls).fit(X, ENC[name](s))
        with pytest.raises(ValueError, match=REFUSED["single value"]):
            _tiny_instance(cls).fit(X, np.ones_like(s))
        with pytest.raises(ValueError, match=r"values \[2\]"):
            _tiny_instance(cls).fit(X, np.full_like(s, 2))
        assert "pos_label" in cls().get_params(), cls.__name__
        for name, pos in (("{1,2}", 1), ("strings", "positive")):
            est = _tiny_instance(cls, pos_label=pos).fit(X, ENC[name](s))
            np.testing.assert_array_equal(_output(est, X), ref, err_msg=name)
            if hasattr(est, "classes_"):
                assert est.classes_[1] == pos and est.classes_[0] != pos


def _leaves(tree) -> np.ndarray:
    import jax

    return np.concatenate([np.ravel(np.asarray(a, np.float64)) for a in jax.tree.leaves(tree)])


def _entry_points():
    """Every functional entry point that reads PU (or true binary) labels: name -> f(X, s) -> array."""
    import jax

    from pujax import metrics
    from pujax.boosting import adapu_decision_function, adapu_fit
    from pujax.data import make_censoring
    from pujax.meta import (
        linear_pu_fit,
        rocchio_negatives,
        sar_em,
        scar_check,
        spy_negatives,
        threshold_negatives,
    )
    from pujax.model_selection import PUStratifiedKFold, make_pu_scorer, pu_train_test_split
    from pujax.neural import train, vpu_fit
    from pujax.prior import elkan_noto_estimates, estimate_prior, tice_label_frequency
    from pujax.svm import bagging_svm_fit, cwsvm_fit, resvm_fit, svm_decision
    from pujax.trees import forest_decision, forest_fit

    key = jax.random.PRNGKey(0)
    lr, rs = LogisticRegression(), np.random.RandomState
    fitted = LogisticRegression().fit(*_tiny())
    score = lambda X: fitted.decision_function(X)  # noqa: E731
    pred = lambda X: fitted.predict(X)  # noqa: E731
    return {
        "estimate_prior": lambda X, s: estimate_prior(X, s, random_state=0).prior,
        "forest_fit": lambda X, s: forest_decision(forest_fit(key, X, s, 0.4, n_estimators=3), X),
        "adapu_fit": lambda X, s: adapu_decision_function(adapu_fit(key, X, s, 0.4, n_estimators=5), X),
        "resvm_fit": lambda X, s: svm_decision(resvm_fit(key, X, s, n_estimators=3), X),
        "bagging_svm_fit": lambda X, s: svm_decision(bagging_svm_fit(key, X, s, n_estimators=3), X),
        "cwsvm_fit": lambda X, s: svm_decision(cwsvm_fit(X, s), X),
        "linear_pu_fit": lambda X, s: _leaves(linear_pu_fit(X, s, 0.4, random_state=0)[0]),
        "train (nnPU)": lambda X, s: _leaves(train(key, X, s, 0.4, epochs=2)[0]),
        "vpu_fit": lambda X, s: _leaves(vpu_fit(0, X, s, epochs=2)[0]),
        "sar_em": lambda X, s: sar_em(X, s, max_iter=2)[3],
        "scar_check": lambda X, s: scar_check(X, s, max_iter=2, warn=False).statistic,
        "spy_negatives": lambda X, s: spy_negatives(lr, X, s, None, rs(0)),
        "threshold_negatives": lambda X, s: threshold_negatives(lr, X, s, None),
        "rocchio_negatives": rocchio_negatives,
        "tice_label_frequency": lambda X, s: tice_label_frequency(X, s, random_state=0)[0],
        "elkan_noto_estimates": lambda X, s: elkan_noto_estimates(fitted.predict_proba(X)[:, 1], s)[0],
        "lee_liu_score": lambda X, s: metrics.lee_liu_score(s, pred(X)),
        "pu_recall": lambda X, s: metrics.pu_recall(s, pred(X)),
        "pu_accuracy": lambda X, s: metrics.pu_accuracy(s, pred(X), 0.4),
        "pu_roc_auc": lambda X, s: metrics.pu_roc_auc(s, score(X), 0.4),
        "pu_lift_auc": lambda X, s: metrics.pu_lift_auc(s, score(X)),
        "pu_classification_report": lambda X, s: list(
            metrics.pu_classification_report(s, pred(X), 0.4, output_dict=True).values())[:3],
        "accuracy (true labels)": lambda X, s: metrics.accuracy(s, pred(X)),
        "roc_auc (true labels)": lambda X, s: metrics.roc_auc(s, score(X)),
        "PUStratifiedKFold": lambda X, s: np.concatenate([t for _, t in PUStratifiedKFold(3).split(X, s)]),
        "pu_train_test_split": lambda X, s: pu_train_test_split(X, s, np.arange(len(s)), random_state=0)[4],
        "make_pu_scorer": lambda X, s: make_pu_scorer("pu_recall")(fitted, X, s),
        "make_case_control (true labels)": lambda X, s: make_case_control(0, X, s, 5).X,
        "make_censoring (true labels)": lambda X, s: make_censoring(0, X, s, 0.5).s,
    }


# entry points that read true labels or held-out labels, where one class is a valid input
ONE_CLASS_OK = ("elkan_noto_estimates", "accuracy (true labels)", "roc_auc (true labels)",
                "make_censoring (true labels)")


@pytest.mark.parametrize("name", list(_entry_points()))
def test_label_rule_on_every_function(name):
    """The same rule: {-1, 1} and bool give what {0, 1} gives; {1, 2}, strings and a single value are refused with
    the values named; check_pu_labels(s, pos_label=...) turns the others into {0, 1}."""
    from pujax.validation import check_pu_labels

    fn = _entry_points()[name]
    X, s = _tiny()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = np.asarray(fn(X, s), np.float64)
        for enc in ("{-1,1}", "bool"):
            np.testing.assert_allclose(np.asarray(fn(X, ENC[enc](s)), np.float64), ref, err_msg=enc)
        for enc in ("{1,2}", "strings"):
            with pytest.raises(ValueError, match=REFUSED[enc]):
                fn(X, ENC[enc](s))
            s01 = check_pu_labels(ENC[enc](s), pos_label=ENC[enc](np.ones(1, int))[0])
            np.testing.assert_allclose(np.asarray(fn(X, s01), np.float64), ref, err_msg=enc)
        with pytest.raises(ValueError, match=r"values \[2\]"):  # a single value outside the rule
            fn(X, np.full_like(s, 2))
        if name in ONE_CLASS_OK:
            fn(X, np.ones_like(s))
        else:
            with pytest.raises(ValueError, match="one class|no unlabeled|unlabeled rows|fewer than|no negative"):
                fn(X, np.ones_like(s))


def test_splitters_take_pos_label():
    from pujax.model_selection import PUStratifiedKFold, pu_train_test_split

    X, s = _tiny()
    s12 = ENC["{1,2}"](s)
    ref = [t for _, t in PUStratifiedKFold(3, shuffle=True, random_state=0).split(X, s)]
    got = [t for _, t in PUStratifiedKFold(3, shuffle=True, random_state=0, pos_label=1).split(X, s12)]
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)
    _, _, s_tr, s_te = pu_train_test_split(X, s12, random_state=0, pos_label=1)
    _, _, r_tr, r_te = pu_train_test_split(X, s, random_state=0)
    np.testing.assert_array_equal(s_tr == 1, r_tr == 1)
    np.testing.assert_array_equal(s_te == 1, r_te == 1)


# ------------------------------------------------------------------------------- 3: defaults that predict one class
def _share_sets():
    """Breast cancer (80/20 split, random_state=0; the 455 training rows as U, 10 or 50 of their positives as P,
    test share of positives 0.59) and the easy case-control set (40 P, 500 U, 30 % positive, 4 features + 2.5)."""
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0)
    out = []
    for n_labeled in (10, 50):
        X_pu, s, prior = make_case_control(0, Xtr, ytr, n_labeled)
        out.append((f"breast cancer P={n_labeled}", X_pu, s, prior, Xte, yte))
    X_pu, s, Xt, yt = _case_control(40, 500, 0.3, 4, 2.5)
    out.append(("easy", X_pu, s, 0.3, Xt, yt))
    return out


SUPERVISED_BASELINES = ("NaivePUET", "SupervisedET", "DecisionStumpClassifier")
CHEAPER = {  # only to keep the suite's time (the neural learners' 100 / 50 epochs take minutes on 2 cores); nnPU's
    # share is as near the truth after 20 epochs, SAR-EM warns whatever max_iter, and VPU fails either way
    "NNPUClassifier": dict(epochs=20),
    "VPUClassifier": dict(epochs=10),
    "SAREMClassifier": dict(max_iter=3),
}
_DEEP_SHARE = ("the paper's decision rule (the sign of the network's output, no threshold from the prior) predicts "
               "6-44 % positives on breast cancer with 10 or 50 labeled rows (truth 59 %), also without model "
               "selection or with 3x the epochs; pujax has no prior-threshold option for the deep methods yet")
SHARE_XFAIL = {
    **{name: _DEEP_SHARE for name in ("CVIRClassifier", "CountLossClassifier", "DistPUClassifier",
                                      "HolisticPUClassifier", "LBEClassifier", "P3MixClassifier", "PULDAClassifier",
                                      "PUbNClassifier", "RobustPUClassifier")},
    "TwoHNC": "predicts every breast-cancer row positive with 10 labeled rows and the true prior (open)",
    "VPUClassifier": "threshold='prior' estimates prior_ ~ 1 on breast cancer "
                     "(predicts 100 % / 83 % positive) without a warning",
}


def _share_classes():
    out = []
    for cls in public_estimator_classes():
        if cls.__name__ in SUPERVISED_BASELINES or not hasattr(cls, "predict"):
            continue
        # the known failures (measured: the reason) are not re-run in every suite: their fits cost minutes
        marks = [pytest.mark.xfail(run=False, reason=SHARE_XFAIL[cls.__name__])] if cls.__name__ in SHARE_XFAIL else []
        out.append(pytest.param(cls, id=cls.__name__, marks=marks))
    return out


@pytest.fixture(scope="module")
def share_sets():
    return _share_sets()


@pytest.mark.parametrize("cls", _share_classes())
def test_defaults_predict_a_positive_share_near_the_truth(cls, share_sets):
    """Every PU classifier with its defaults (the true prior where it takes one) predicts a share of positives on
    unseen rows within 0.15 of the truth, or warns (DegenerateFitWarning) naming the argument to set."""
    failures = []
    for name, X, s, prior, Xt, yt in share_sets:
        params = cls().get_params()
        kw = {**CHEAPER.get(cls.__name__, {}), **({"prior": prior} if "prior" in params else {})}
        if "random_state" in params:
            kw["random_state"] = 0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = cls(**kw).fit(X, s)
        share = float(np.mean(est.predict(Xt) == est.classes_[1]))
        named = [str(w.message) for w in caught if issubclass(w.category, DegenerateFitWarning)
                 and any(f"{p}=" in str(w.message) or f"{p} " in str(w.message) for p in params)]
        if abs(share - yt.mean()) > 0.15 and not named:
            failures.append(f"{name}: predicted share {share:.2f}, truth {yt.mean():.2f}, no warning")
    assert not failures, failures


# --------------------------------------------------------------------------------------- 2: Elkan-Noto, few P
@pytest.mark.parametrize("n_labeled, hold_out_ratio", [(5, 0.01), (2, 0.1)])
def test_elkan_noto_few_labeled_positives_never_passes_on_the_clip_floor(n_labeled, hold_out_ratio):
    """The report: a 1 % hold-out of 5 labeled rows holds one, scored 0, and c_ sat at the 1e-6 floor (prior_ 1)
    silently. Now c is cross-fitted (cv_ set) and is either a usable estimate (above n_l / (n_l + n_u), the value of
    a prior of 1) or raised to that bound with a warning naming cv and hold_out_ratio."""
    X, s, _, _ = _case_control(n_labeled, 300, 0.3, 4, 2.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = ElkanNotoClassifier(RandomForestClassifier(n_estimators=20, random_state=0),
                                  hold_out_ratio=hold_out_ratio, random_state=0).fit(X, s)
    assert clf.cv_ == min(5, n_labeled)
    bound = n_labeled / (n_labeled + 300)
    assert clf.c_ >= bound > 1e-6
    named = [w for w in caught if issubclass(w.category, DegenerateFitWarning)
             and "cv" in str(w.message) and "hold_out_ratio" in str(w.message)]
    assert clf.prior_ < 1.0 or named
    if clf.c_ > bound:
        assert 0.0 < clf.prior_ < 1.0


# ------------------------------------------------------------------------- 4: ranking kept, no silent no-positive
def test_meta_scores_keep_the_base_models_ranking():
    """Elkan-Noto's g / c exceeds 1 where g > c: clipping tied all those rows at 1; its scores now keep g's order
    (as many distinct values, the same ranking), and so do the prior-thresholded bagging scores."""
    from scipy.stats import spearmanr

    from pujax.meta import PUBaggingClassifier

    X, s, Xt, _ = _case_control(40, 500, 0.3, 4, 2.5)
    en = ElkanNotoClassifier(weighted=False, random_state=0).fit(X, s)
    g = positive_proba(en.estimator_, en._validate_predict(Xt))  # the base model's scores of the same rows
    for scores in (en.predict_proba(Xt)[:, 1], en.decision_function(Xt)):
        assert np.unique(scores).size == np.unique(g).size
        assert spearmanr(scores, g)[0] == pytest.approx(1.0)
    assert np.sum(g / en.c_ > 1) > 50  # the rows clipping tied
    bag = PUBaggingClassifier(LogisticRegression(), n_estimators=10, random_state=0).fit(X, s)
    plain = PUBaggingClassifier(LogisticRegression(), n_estimators=10, random_state=0, prior=None).fit(X, s)
    assert spearmanr(bag.predict_proba(Xt)[:, 1], plain.predict_proba(Xt)[:, 1])[0] == pytest.approx(1.0)


def test_a_fit_that_finds_no_positive_among_the_unlabeled_rows_warns():
    """Elkan-Noto's weighted variant around a tree that memorises its training rows: every unlabeled row gets
    weight 0 as a positive, so the second model reproduces s on the training rows; it warns, naming weighted."""
    X, s, _, _ = _case_control(40, 500, 0.3, 4, 2.5)
    with pytest.warns(DegenerateFitWarning, match="weighted=False"):
        clf = ElkanNotoClassifier(DecisionTreeClassifier(random_state=0), random_state=0).fit(X, s)
    assert np.array_equal(clf.predict(X[s == 0]), np.zeros(np.sum(s == 0)))  # what the warning is about
