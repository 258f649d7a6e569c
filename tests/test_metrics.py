"""pujax.metrics against scikit-learn (random inputs, ties included), its input validation (issue 26), and the PU
metrics (issue 23) against hand-computed cases and against true-label metrics on synthetic SCAR data."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

from pujax import metrics
from pujax.metrics import DegeneratePredictorWarning


@pytest.fixture(params=[0, 1, 2])
def labels_scores(request):
    r = np.random.default_rng(request.param)
    n = [200, 1000, 37][request.param]
    y = r.integers(0, 2, n)
    scores = np.round(r.normal(size=n) + 0.5 * y, 1)  # rounding creates many ties
    pred = (r.random(n) < 0.4).astype(int)
    return y, scores.astype(np.float32), pred


LABEL_PAIRS = [
    (metrics.accuracy, skm.accuracy_score),
    (metrics.balanced_accuracy, skm.balanced_accuracy_score),
    (metrics.precision, lambda a, b, **k: skm.precision_score(a, b, zero_division=0, **k)),
    (metrics.recall, lambda a, b, **k: skm.recall_score(a, b, zero_division=0, **k)),
    (metrics.f1_score, lambda a, b, **k: skm.f1_score(a, b, zero_division=0, **k)),
]


def test_label_metrics_match_sklearn(labels_scores):
    y, _, pred = labels_scores
    for ours, ref in LABEL_PAIRS:
        assert float(ours(y, pred)) == pytest.approx(ref(y, pred), abs=1e-6), ours.__name__


def test_score_metrics_match_sklearn_with_ties(labels_scores):
    y, scores, _ = labels_scores
    assert float(metrics.roc_auc(y, scores)) == pytest.approx(skm.roc_auc_score(y, scores), abs=1e-6)
    assert float(metrics.average_precision(y, scores)) == pytest.approx(
        skm.average_precision_score(y, scores), abs=1e-6)


def test_float64_scores_keep_their_order():
    """Scores float32 cannot tell apart (1e8 + 1 vs 1e8 + 2) are ranked as scikit-learn ranks them."""
    y = np.array([0, 1, 0, 1, 1, 0])
    x = 1e8 + np.array([1.0, 2.0, 3.0, 4.0, 6.0, 5.0])
    assert float(metrics.roc_auc(y, x)) == pytest.approx(skm.roc_auc_score(y, x))
    assert float(metrics.average_precision(y, x)) == pytest.approx(skm.average_precision_score(y, x))


def test_all_tied_scores():
    y = np.array([0, 1, 1, 0, 1])
    s = np.zeros(5, np.float32)
    assert float(metrics.roc_auc(y, s)) == pytest.approx(0.5)
    assert float(metrics.average_precision(y, s)) == pytest.approx(skm.average_precision_score(y, s))


@pytest.mark.parametrize("case", ["no_pred_pos", "no_true_pos", "nothing", "one_class_auc", "one_class_bal"])
def test_undefined_cases_warn_and_value_like_sklearn(case):
    y, p, ours, ref, cat = {
        "no_pred_pos": ([1, 0, 1], [0, 0, 0], metrics.precision, skm.precision_score, UndefinedMetricWarning),
        "no_true_pos": ([0, 0, 0], [0, 1, 0], metrics.recall, skm.recall_score, UndefinedMetricWarning),
        "nothing": ([0, 0, 0], [0, 0, 0], metrics.f1_score, skm.f1_score, UndefinedMetricWarning),
        "one_class_auc": ([1, 1, 1], [0.1, 0.2, 0.3], metrics.roc_auc, skm.roc_auc_score, UndefinedMetricWarning),
        "one_class_bal": ([1, 1, 1], [0, 1, 0], metrics.balanced_accuracy, skm.balanced_accuracy_score, UserWarning),
    }[case]
    with pytest.warns(cat):
        expected = ref(y, p)
    with pytest.warns(cat):
        got = float(ours(y, p))
    assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected)


def test_label_encodings_accepted():
    y01 = np.array([1, 0, 1, 1, 0])
    ypm = 2 * y01 - 1
    p = np.array([1, 1, 0, 1, 0])
    assert float(metrics.f1_score(ypm, p)) == float(metrics.f1_score(y01.astype(bool), p)) == float(
        metrics.f1_score(y01, p))
    assert float(metrics.accuracy(y01.reshape(-1, 1), p)) == pytest.approx(skm.accuracy_score(y01, p))


S = np.array([1, 1, 0, 0, 0, 0])
P = np.array([1, 0, 1, 0, 0, 1])
X = np.array([0.9, 0.2, 0.5, 0.1, 0.3, 0.4])
# (function, kwargs with valid inputs, name of the label argument, name of the second argument)
ALL = [(f, dict(y_true=S, y_pred=P), "y_true", "y_pred") for f in
       (metrics.accuracy, metrics.balanced_accuracy, metrics.precision, metrics.recall, metrics.f1_score,
        metrics.confusion_counts)]
ALL += [(f, dict(y_true=S, y_score=X), "y_true", "y_score") for f in (metrics.roc_auc, metrics.average_precision)]
ALL += [(f, dict(s=S, y_pred=P), "s", "y_pred") for f in (metrics.lee_liu_score, metrics.pu_recall)]
ALL += [(f, dict(s=S, y_pred=P, prior=0.3), "s", "y_pred") for f in
        (metrics.pu_zero_one_risk, metrics.pu_precision, metrics.pu_f1_score, metrics.pu_accuracy,
         metrics.pu_balanced_accuracy, metrics.pu_classification_report)]
ALL += [(metrics.pu_roc_auc, dict(s=S, y_score=X, prior=0.3), "s", "y_score"),
        (metrics.pu_lift_auc, dict(s=S, y_score=X), "s", "y_score")]
IDS = [f[0].__name__ for f in ALL]


@pytest.mark.parametrize("fn,kw,lab,second", ALL, ids=IDS)
def test_bad_inputs_raise_errors_naming_the_argument(fn, kw, lab, second):
    """Issue 26: lengths, NaN / inf scores, labels outside {0, 1}, empty input, prior range."""
    is_score = second == "y_score"
    bad = {
        "length": ({second: kw[second][:-1]}, rf"{second} has 5 entries but {lab} has 6"),
        "empty": ({lab: [], second: []}, f"{lab} is empty"),
        "labels {0, 2}": ({lab: 2 * S}, f"{lab} holds the values \\[0, 2\\].*binary"),
        "nan label": ({lab: np.where(S == 1, 1.0, np.nan)}, f"{lab} contains NaN"),
        "2-D": ({second: np.c_[kw[second], kw[second]]}, f"{second} must be 1-D"),
    }
    if is_score:
        bad["nan score"] = ({second: np.r_[np.nan, X[1:]]}, "y_score contains NaN")
        bad["inf score"] = ({second: np.r_[np.inf, X[1:]]}, "y_score contains infinity")
    else:
        bad["labels {0, 2} pred"] = ({second: 2 * P}, f"{second} holds the values \\[0, 2\\].*binary")
    if "prior" in kw:
        for v in (1.5, 0.0, -0.1, np.nan):
            bad[f"prior {v}"] = ({"prior": v}, "prior")
    if lab == "s":
        bad["no labeled"] = ({lab: np.zeros(6, int)}, "s has no labeled positive")
        bad["no unlabeled"] = ({lab: np.ones(6, int)}, "s has no unlabeled row")
    for change, msg in bad.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError, match=msg):
                fn(**{**kw, **change})
    with pytest.raises(ValueError, match=lab + r" holds the values \['a', 'b'\].*pos_label"):
        fn(**{**kw, lab: np.array(["a", "b", "a", "a", "b", "a"])})


def test_jit_and_vmap_over_seeds():
    r = np.random.default_rng(4)
    y = r.integers(0, 2, (4, 100))
    sc = r.normal(size=(4, 100)).astype(np.float32)
    got = jax.vmap(metrics.roc_auc)(jnp.asarray(y), jnp.asarray(sc))
    np.testing.assert_allclose(got, [skm.roc_auc_score(a, b) for a, b in zip(y, sc)], atol=1e-6)
    got = jax.jit(jax.vmap(metrics.average_precision))(jnp.asarray(y), jnp.asarray(sc))
    np.testing.assert_allclose(got, [skm.average_precision_score(a, b) for a, b in zip(y, sc)], atol=1e-6)
    pred = (sc > 0).astype(np.int32)
    priors = jnp.asarray([0.2, 0.3, 0.4, 0.5])
    got = jax.jit(jax.vmap(metrics.pu_f1_score))(jnp.asarray(y), jnp.asarray(pred), priors)
    np.testing.assert_allclose(got, [float(metrics.pu_f1_score(a, b, p)) for a, b, p in zip(y, pred, priors)],
                               atol=1e-6)
    got = jax.vmap(metrics.pu_roc_auc)(jnp.asarray(y), jnp.asarray(sc), priors)
    np.testing.assert_allclose(got, [float(metrics.pu_roc_auc(a, b, p)) for a, b, p in zip(y, sc, priors)],
                               atol=1e-6)


# ------------------------------------------------------------------------------------------- PU metrics by hand

S10 = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
P10 = np.array([1, 1, 1, 0, 1, 1, 0, 0, 0, 0])  # R = 3/4, q_U = 2/6, q_all = 5/10


def test_pu_metrics_by_hand():
    R, qu, qa, a = 0.75, 2 / 6, 0.5, 0.4
    pi_c = (4 + a * 6) / 10  # censoring: positive fraction of all rows
    assert float(metrics.lee_liu_score(S10, P10)) == pytest.approx(R ** 2 / qa)
    assert float(metrics.pu_score(S10, P10)) == pytest.approx(R ** 2 / qa)
    assert float(metrics.pu_recall(S10, P10)) == pytest.approx(R)
    for scen, pi, q in (("case-control", a, qu), ("censoring", pi_c, qa)):
        kw = dict(prior=a, scenario=scen)
        assert float(metrics.pu_precision(S10, P10, **kw)) == pytest.approx(pi * R / q, abs=1e-6)
        assert float(metrics.pu_f1_score(S10, P10, **kw)) == pytest.approx(2 * pi * R / (pi + q), abs=1e-6)
        assert float(metrics.pu_accuracy(S10, P10, **kw)) == pytest.approx(1 - pi - q + 2 * pi * R, abs=1e-6)
        fpr = (q - pi * R) / (1 - pi)
        assert float(metrics.pu_balanced_accuracy(S10, P10, **kw)) == pytest.approx((R + 1 - fpr) / 2, abs=1e-6)
    # zero-one risk: pi P_L(0) + P_U(1) - pi P_L(1)
    assert float(metrics.pu_zero_one_risk(S10, P10, a)) == pytest.approx(a * 0.25 + qu - a * R, abs=1e-6)
    assert float(metrics.pu_accuracy(S10, P10, a)) == pytest.approx(
        1 - float(metrics.pu_zero_one_risk(S10, P10, a)), abs=1e-6)


def test_pu_ranking_metrics_by_hand():
    s = np.array([1, 1, 0, 0, 0, 0])
    x = np.array([0.9, 0.3, 0.85, 0.1, 0.3, 0.2])
    # labeled 0.9 beats all 4 unlabeled; 0.3 beats 0.1 and 0.2, ties 0.3 -> (4 + 2.5) / 8
    auc_lu = 6.5 / 8
    assert float(metrics.pu_lift_auc(s, x)) == pytest.approx(auc_lu)
    assert float(metrics.pu_roc_auc(s, x, 0.2)) == pytest.approx((auc_lu - 0.1) / 0.8, abs=1e-6)
    # censoring: the population is all 6 rows (self-comparisons are ties): 0.9 -> 5 + 0.5, 0.3 -> 2 + 2 * 0.5
    assert float(metrics.pu_lift_auc(s, x, scenario="censoring")) == pytest.approx(8.5 / 12)
    assert float(metrics.pu_roc_auc(s, x, 0.2)) == pytest.approx(skm.roc_auc_score(s, x) * 1.25 - 0.125, abs=1e-6)


def test_degenerate_predictor_warns_and_is_not_fooled():
    """Everything positive: F1 on PU labels would look good; the corrected F1 is the trivial 2 pi / (1 + pi)."""
    r = np.random.default_rng(1)
    y = (r.random(4000) < 0.3).astype(int)
    s = np.r_[np.ones(800, int), np.zeros(4000, int)]
    ones = np.ones(4800, int)
    with pytest.warns(DegeneratePredictorWarning, match="all 4800 rows to class 1"):
        f1 = float(metrics.pu_f1_score(s, ones, y.mean()))
    assert f1 == pytest.approx(skm.f1_score(y, np.ones(4000, int)), abs=1e-6)
    with pytest.warns(DegeneratePredictorWarning, match="class 0"):
        assert float(metrics.pu_precision(s, np.zeros(4800, int), 0.3)) == 0.0
    with pytest.warns(DegeneratePredictorWarning, match="same score"):
        assert float(metrics.pu_lift_auc(s, np.zeros(4800))) == pytest.approx(0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metrics.pu_f1_score(s, np.r_[ones[:-1], 0], 0.3)  # not degenerate: no warning


# -------------------------------------------------------------------------- PU metrics vs true labels (SCAR)

def _true_aul(y, x):
    """Area under the lift curve on true labels: mean over positives of P(random row < it) + 1/2 P(tie)."""
    xs = np.sort(x)
    pos = x[y == 1]
    lo, hi = np.searchsorted(xs, pos, "left"), np.searchsorted(xs, pos, "right")
    return float(np.mean((lo + 0.5 * (hi - lo)) / x.size))


def _scar_sets(seed):
    """Case-control (labeled positives + a population sample U) and censoring (labeled = 40 % of positives)."""
    r = np.random.default_rng(seed)
    pi = 0.3
    y = (r.random(20000) < pi).astype(int)
    x = r.normal(size=y.size) + 1.5 * y
    n_l = 4000
    cc = (np.r_[np.ones(n_l, int), np.zeros(y.size, int)], np.r_[r.normal(size=n_l) + 1.5, x], y, x, pi)
    y2 = (r.random(30000) < pi).astype(int)
    x2 = r.normal(size=y2.size) + 1.5 * y2
    s2 = ((y2 == 1) & (r.random(y2.size) < 0.4)).astype(int)
    cens = (s2, x2, y2, x2, float(y2[s2 == 0].mean()))  # prior = positive fraction of the unlabeled rows
    return {"case-control": cc, "censoring": cens}


@pytest.mark.parametrize("scenario", ["case-control", "censoring"])
def test_corrected_metrics_match_true_label_metrics(scenario):
    """Each PU estimate is within a few standard errors of the metric computed with the hidden true labels
    (scikit-learn on the true labels of the population: U in case-control, all rows in censoring)."""
    s, x, y_true, x_true, prior = _scar_sets(0)[scenario]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no spurious warning on a sound predictor
        for t in (-0.5, 0.5, 1.0, 2.0):
            pred, pred_true = (x > t).astype(int), (x_true > t).astype(int)
            pairs = [
                (metrics.pu_recall(s, pred), skm.recall_score(y_true, pred_true), 0.03),
                (metrics.pu_precision(s, pred, prior, scenario=scenario), skm.precision_score(y_true, pred_true),
                 0.05),
                (metrics.pu_f1_score(s, pred, prior, scenario=scenario), skm.f1_score(y_true, pred_true), 0.03),
                (metrics.pu_accuracy(s, pred, prior, scenario=scenario), skm.accuracy_score(y_true, pred_true),
                 0.02),
                (metrics.pu_balanced_accuracy(s, pred, prior, scenario=scenario),
                 skm.balanced_accuracy_score(y_true, pred_true), 0.02),
            ]
            for got, want, tol in pairs:
                assert abs(float(got) - want) < tol, (t, float(got), want)
        auc = skm.roc_auc_score(y_true, x_true)
        assert abs(float(metrics.pu_roc_auc(s, x, prior)) - auc) < 0.02
        aul = _true_aul(y_true, x_true)
        assert abs(float(metrics.pu_lift_auc(s, x, scenario=scenario)) - aul) < 0.02
        pi = y_true.mean()
        assert aul == pytest.approx(pi / 2 + (1 - pi) * auc, abs=1e-3)  # the identity behind (P6)-(P7)


def test_lee_liu_tracks_precision_times_recall_over_prior():
    s, x, y, _, _ = _scar_sets(1)["censoring"]
    for t in (0.0, 1.0):
        pred = (x > t).astype(int)
        want = skm.precision_score(y, pred) * skm.recall_score(y, pred) / y.mean()
        assert float(metrics.lee_liu_score(s, pred)) == pytest.approx(want, rel=0.05)


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


def test_classification_report():
    x = np.array([0.9, 0.8, 0.7, 0.1, 0.85, 0.6, 0.2, 0.3, 0.1, 0.0])
    rep = metrics.pu_classification_report(S10, P10, 0.4, y_score=x, output_dict=True)
    assert rep["recall"] == pytest.approx(float(metrics.pu_recall(S10, P10)))
    assert rep["f1"] == pytest.approx(float(metrics.pu_f1_score(S10, P10, 0.4)))
    assert rep["roc_auc"] == pytest.approx(float(metrics.pu_roc_auc(S10, x, 0.4)))
    assert rep["lift_auc"] == pytest.approx(float(metrics.pu_lift_auc(S10, x)))
    assert rep["positive_rate_unlabeled"] == pytest.approx(2 / 6) and rep["n_labeled"] == 4
    text = metrics.pu_classification_report(S10, P10)
    assert "lee_liu" in text and "precision" not in text  # no prior: only prior-free metrics
    with pytest.warns(DegeneratePredictorWarning) as rec:
        metrics.pu_classification_report(S10, np.ones(10, int), 0.4)
    assert len([w for w in rec if w.category is DegeneratePredictorWarning]) == 1


def test_scorers_in_grid_search():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    r = np.random.default_rng(0)
    X = r.normal(size=(300, 3))
    s = (X[:, 0] + 0.5 * r.normal(size=300) > 1.0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegeneratePredictorWarning)
        gs = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, scoring=metrics.pu_scorer, cv=3).fit(X, s)
    assert np.isfinite(gs.best_score_)
    est = gs.best_estimator_
    assert metrics.pu_scorer(est, X, s) == pytest.approx(float(metrics.pu_score(s, est.predict(X))))
    with pytest.warns(FutureWarning, match="make_pu_scorer"):
        sc = metrics.make_pu_risk_scorer(0.3)
    assert sc(est, X, s) == pytest.approx(float(metrics.pu_accuracy(s, est.predict(X), 0.3)))
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="prior"):
        metrics.make_pu_risk_scorer(1.5)


def test_new_lengths_in_the_same_bucket_compile_nothing():
    """Host calls pad to pujax.compilation.bucket_size rows (masked): 290 and 301 rows reuse the 300-row programs."""
    from pujax.compilation import count_compilations

    r = np.random.default_rng(2)

    def run(n):
        y, s = r.integers(0, 2, n), np.r_[1, 0, r.integers(0, 2, n - 2)]
        x = r.normal(size=n)
        pred = (x > 0).astype(int)
        out = [metrics.accuracy(y, pred), metrics.f1_score(y, pred), metrics.balanced_accuracy(y, pred),
               metrics.roc_auc(y, x), metrics.average_precision(y, x), metrics.lee_liu_score(s, pred),
               metrics.pu_zero_one_risk(s, pred, 0.3), metrics.pu_f1_score(s, pred, 0.3, scenario="censoring"),
               metrics.pu_roc_auc(s, x, 0.3), metrics.pu_lift_auc(s, x)]
        ref = [skm.accuracy_score(y, pred), skm.f1_score(y, pred), skm.balanced_accuracy_score(y, pred),
               skm.roc_auc_score(y, x), skm.average_precision_score(y, x)]
        np.testing.assert_allclose([float(v) for v in out[:5]], ref, atol=1e-6)  # padding changes nothing
        return out

    run(300)
    with count_compilations() as c:
        run(290)
        run(301)
    assert c.count == 0


# ------------------------------------------------------------------------------------------ fuzz (issue 26)

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

BOUNDED = {"lee_liu_score": (0.0, np.inf), "pu_zero_one_risk": (-1.0, 2.0)}  # others lie in [0, 1]


@st.composite
def metric_inputs(draw):
    """Half the draws valid (both classes, a good encoding, equal lengths, finite scores, prior in (0, 1)), half
    with at least one of: another encoding, a length mismatch, a non-finite score, a bad prior."""
    valid = draw(st.booleans())
    n = draw(st.integers(4, 30)) if valid else draw(st.integers(0, 30))
    r = np.random.default_rng(draw(st.integers(0, 2**16)))
    base = (r.random(n) < draw(st.sampled_from([0.0, 0.3, 1.0]) if not valid else st.just(0.3))).astype(int)
    if valid:
        base[:2] = [1, 0]
    encs = ["01", "bool", "pm1"] + ([] if valid else ["02", "half", "nan", "str", "2d"])
    enc = draw(st.sampled_from(encs))
    lab = {"01": base, "bool": base.astype(bool), "pm1": 2 * base - 1, "02": 2 * base, "half": base * 0.5,
           "nan": np.where(base == 1, np.nan, 0.0), "str": base.astype(str), "2d": np.c_[base, base]}[enc]
    m = n if valid else max(n + draw(st.sampled_from([0, 1, -1])), 0)
    pred = (r.random(m) < draw(st.sampled_from([0.0, 0.5, 1.0]))).astype(int)
    scores = r.normal(size=m) * draw(st.sampled_from([1e-30, 1.0, 1e30]))
    if m and not valid and draw(st.booleans()):
        scores[0] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    good = [1e-9, 0.3, 0.999]
    prior = draw(st.sampled_from(good if valid else good + [-0.1, 0.0, 1.0, 1.5, np.nan, None, "auto"]))
    return lab, pred, scores, prior


@pytest.mark.parametrize("fn,kw,lab,second", ALL, ids=IDS)
def test_fuzz_clear_error_or_valid_value(fn, kw, lab, second):
    """Any drawn labels, lengths, scores and priors: a ValueError / TypeError, or finite values in range."""
    n_valid = []

    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(metric_inputs())
    def run(inputs):
        labels, pred, scores, prior = inputs
        args = {lab: labels, second: scores if second == "y_score" else pred}
        if "prior" in kw:
            args["prior"] = prior
        if fn is metrics.pu_classification_report:
            args["output_dict"] = True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = fn(**args)
            except (ValueError, TypeError) as err:
                assert str(err)
                return
        values = np.asarray(list(out.values()) if isinstance(out, dict) else
                            ([float(v) for v in out] if isinstance(out, tuple) else [float(out)]))
        if fn is metrics.roc_auc and np.isnan(values).all():
            assert len(set(np.asarray(labels).tolist())) == 1  # undefined only with one class, as in sklearn
            return
        assert np.all(np.isfinite(values))
        n_valid.append(1)
        if isinstance(out, dict) or fn is metrics.confusion_counts:
            return
        lo, hi = BOUNDED.get(fn.__name__, (0.0, 1.0))
        assert lo - 1e-6 <= values[0] <= hi + 1e-6

    run()
    assert len(n_valid) >= 3  # the draws reach valid inputs, not only errors


def test_sample_weight_like_sklearn_and_like_repeated_rows(labels_scores):
    y, x, pred = labels_scores
    w = np.random.default_rng(5).integers(0, 4, y.size)
    w[:2] = 1
    for ours, ref in LABEL_PAIRS:
        assert float(ours(y, pred, sample_weight=w)) == pytest.approx(ref(y, pred, sample_weight=w), abs=1e-6)
    assert float(metrics.roc_auc(y, x, sample_weight=w)) == pytest.approx(
        skm.roc_auc_score(y, x, sample_weight=w), abs=1e-6)
    assert float(metrics.average_precision(y, x, sample_weight=w)) == pytest.approx(
        skm.average_precision_score(y, x, sample_weight=w), abs=1e-6)
    # PU metrics: integer weights equal repeated rows
    s = y.copy()
    s[:2] = [1, 0]
    rep = np.repeat(np.arange(y.size), w)
    for fn, args in ((metrics.pu_f1_score, (pred, 0.3)), (metrics.pu_accuracy, (pred, 0.3)),
                     (metrics.lee_liu_score, (pred,)), (metrics.pu_zero_one_risk, (pred, 0.3)),
                     (metrics.pu_roc_auc, (x, 0.3)), (metrics.pu_lift_auc, (x,))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegeneratePredictorWarning)
            got = float(fn(s, *args, sample_weight=w))
            want = float(fn(s[rep], args[0][rep], *args[1:]))
        assert got == pytest.approx(want, abs=1e-5), fn.__name__
    with pytest.raises(ValueError, match="sample_weight"):
        metrics.accuracy(y, pred, sample_weight=w[:-1])
    with pytest.raises(ValueError, match="sample_weight"):
        metrics.accuracy(y, pred, sample_weight=-w)
    with pytest.raises(ValueError, match="zero total weight to the labeled"):
        metrics.pu_recall(s, pred, sample_weight=np.where(s == 1, 0, 1))
