"""The one validation layer: scikit-learn's wording for arrays, PU labels with ``classes_``, sample weights,
priors, hyper-parameters and random states; every bad input gets a clear error naming the argument."""
import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

from pujax.base import PUClassifierMixin
from pujax.persistence import register_estimator
from pujax.validation import (
    check_float,
    check_in,
    check_int,
    check_prior,
    check_pu_labels,
    check_sample_weight,
    check_X,
    check_X_s,
    encode_pu_labels,
)


@register_estimator
class TinyPU(PUClassifierMixin, BaseEstimator):
    """A minimal PU estimator (mean-difference scorer) to exercise the shared plumbing."""

    _fitted_schema = {"coef_": "f[n_features_in_]"}

    def __init__(self, prior=0.5, random_state=None):
        self.prior = prior
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, s, w, prior = self._validate_fit(X, y, sample_weight)
        w = np.ones(len(s)) if w is None else w
        self.coef_ = np.average(X[s == 1], 0, w[s == 1]) - np.average(X[s == 0], 0, w[s == 0])
        return self

    def decision_function(self, X):
        return self._validate_predict(X) @ self.coef_


def test_s_encodings():
    np.testing.assert_array_equal(check_pu_labels([True, False]), [1, 0])
    np.testing.assert_array_equal(check_pu_labels([1, -1, 1]), [1, 0, 1])
    np.testing.assert_array_equal(check_pu_labels(np.array([[1], [0]])), [1, 0])


@pytest.mark.parametrize(
    "s, match",
    [([0, 1, 2], "binary"), ([0, 0, 0], "no labeled positive"), ([1, 1, 1], "no unlabeled"),
     (["a", "b", "a"], r"values \['a', 'b'\]"), ([0, 2, 0], r"values \[0, 2\]"), ([1, 2, 2], r"\[1, 2\].*pos_label")],
)
def test_bad_s_for_functions(s, match):
    with pytest.raises(ValueError, match=match):
        check_X_s(np.zeros((3, 2)), s)


def test_estimator_labels_follow_one_rule():
    """{0, 1}, {-1, 1} and bool are read as documented (classes_ sorted); {1, 2} and strings only with pos_label,
    which puts the labeled value last in classes_; continuous, multi-class and one-class targets keep
    scikit-learn's errors."""
    for s, classes in (([0, 1, 1, 0], [0, 1]), ([-1, 1, 1, -1], [-1, 1]), ([False, True, True, False], [0, 1])):
        s01, got = encode_pu_labels(np.array(s))
        np.testing.assert_array_equal(s01, [0, 1, 1, 0])
        np.testing.assert_array_equal(got, classes)
    with pytest.raises(ValueError, match=r"values \[1, 2\]"):
        encode_pu_labels(np.array([2, 1, 1, 2]))
    s01, classes = encode_pu_labels(np.array([2, 1, 1, 2]), pos_label=1)
    np.testing.assert_array_equal(s01, [0, 1, 1, 0])
    np.testing.assert_array_equal(classes, [2, 1])
    with pytest.raises(ValueError, match=r"values \['p', 'u'\]"):
        encode_pu_labels(np.array(["u", "p", "u"], dtype=object))
    s01, classes = encode_pu_labels(np.array(["u", "p", "u"], dtype=object), pos_label="p")
    np.testing.assert_array_equal(s01, [0, 1, 0])
    assert classes.tolist() == ["u", "p"]
    with pytest.raises(ValueError, match="pos_label=3 is not among"):
        encode_pu_labels(np.array([2, 1]), pos_label=3)
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        encode_pu_labels(np.array([0.5, 1.5, 2.25]))
    with pytest.raises(ValueError, match="class"):
        encode_pu_labels(np.ones(4))
    with pytest.raises(ValueError, match="binary"):
        encode_pu_labels(np.arange(6) % 3)


def test_bad_X_messages_are_scikit_learns():
    with pytest.raises(ValueError, match="Input X contains NaN"):
        check_X([[1.0, np.nan]])
    with pytest.raises(ValueError, match="Input X contains infinity"):
        check_X([[1.0, np.inf]])
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        check_X([1.0, 2.0])
    with pytest.raises(ValueError, match="0 sample"):
        check_X(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="Complex data not supported"):
        check_X(np.ones((3, 2)) + 1j)
    with pytest.raises(ValueError, match="could not convert"):
        check_X([["a", "b"]])
    with pytest.raises(ValueError, match="float32 range"):
        check_X(np.array([[1.0, 1e39]]))
    with pytest.raises(ValueError, match="3 labels but X has 2 rows"):
        check_X_s(np.zeros((2, 2)), [1, 0, 0])
    assert check_X(np.array([[1, 2]], dtype=np.int64)).dtype == np.float32


@pytest.mark.parametrize("prior", [0.0, 1.0, -0.1, 1.5, np.nan, None, "half", True])
def test_bad_prior(prior):
    with pytest.raises((ValueError, TypeError), match="prior"):
        check_prior(prior)
    with pytest.raises((ValueError, TypeError), match="prior"):
        TinyPU(prior=prior).fit(np.random.rand(6, 2), [1, 0, 1, 0, 0, 0])


def test_scalar_checks():
    assert check_int(3, "n") == 3 and check_int(None, "n", allow_none=True) is None
    with pytest.raises(TypeError, match="n must be an int"):
        check_int(2.5, "n")
    with pytest.raises(ValueError, match=r"n=0 must be an int in \[1, inf\]"):
        check_int(0, "n")
    assert check_float(0.5, "x", 0.0, 1.0) == 0.5
    with pytest.raises(ValueError, match=r"x=1.0 must be a finite float in \(0, 1\)"):
        check_float(1.0, "x", 0.0, 1.0)
    assert check_float(1.0, "x", 0.0, 1.0, closed="right") == 1.0
    with pytest.raises(ValueError, match="finite"):
        check_float(np.nan, "x")
    with pytest.raises(ValueError, match="choose one of"):
        check_in("c", "kind", ("a", "b"))


def test_sample_weight_checks():
    s01 = np.array([1, 0, 0, 1])
    np.testing.assert_array_equal(check_sample_weight([1, 2, 0, 1], s01), [1, 2, 0, 1])
    with pytest.raises(ValueError, match="zero total weight to the unlabeled"):
        check_sample_weight([1, 0, 0, 1], s01)
    with pytest.raises(ValueError, match="Negative"):
        check_sample_weight([1, -1, 1, 1], s01)
    with pytest.raises(ValueError, match="expected"):
        check_sample_weight([1, 1], s01)


def test_estimator_plumbing(tmp_path):
    r = np.random.default_rng(0)
    X = r.normal(size=(60, 3))
    s = np.r_[np.ones(10, int), np.zeros(50, int)]
    est = TinyPU(prior=0.3)
    with pytest.raises(NotFittedError):
        est.predict(X)
    est.fit(X, 2 * s - 1)  # {-1, +1}: predictions come back in the same labels
    assert est.prior_ == 0.3 and list(est.classes_) == [-1, 1] and est.n_features_in_ == 3
    assert set(np.unique(est.predict(X))) <= {-1, 1}
    with pytest.raises(ValueError, match="X has 2 features, but TinyPU is expecting 3 features"):
        est.predict(X[:, :2])
    assert clone(est).get_params() == est.get_params()
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_allclose(est2.decision_function(X), est.decision_function(X))
    est.save(tmp_path / "m")
    est3 = TinyPU.load(tmp_path / "m")
    np.testing.assert_allclose(est3.decision_function(X), est.decision_function(X))
    assert est3.get_params() == est.get_params()


def test_integer_weights_equal_duplicated_rows():
    r = np.random.default_rng(1)
    X = r.normal(size=(40, 3))
    s = (r.random(40) < 0.3).astype(int)
    s[:2] = [1, 0]
    w = r.integers(0, 3, size=40)
    w[:2] = 1
    a = TinyPU().fit(X, s, sample_weight=w)
    b = TinyPU().fit(np.repeat(X, w, axis=0), np.repeat(s, w))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-5)


def test_pandas_feature_names_are_checked():
    pd = pytest.importorskip("pandas")
    r = np.random.default_rng(0)
    df = pd.DataFrame(r.normal(size=(30, 3)), columns=["a", "b", "c"])
    s = np.r_[np.ones(8, int), np.zeros(22, int)]
    est = TinyPU().fit(df, s)
    np.testing.assert_array_equal(est.feature_names_in_, ["a", "b", "c"])
    with pytest.raises(ValueError, match="feature names should match"):
        est.predict(df[["c", "a", "b"]])


def test_pad_rows_fills():
    from pujax.compilation import pad_rows

    X = np.arange(6, dtype=np.float32).reshape(3, 2)
    Xp, sp, wp = pad_rows(5, X, np.array([1, 0, 1], np.int32), np.ones(3), fill=["first_row", 0, 0.0])
    np.testing.assert_array_equal(Xp, np.vstack([X, X[:1], X[:1]]))
    assert Xp.dtype == np.float32 and sp.dtype == np.int32
    np.testing.assert_array_equal(sp, [1, 0, 1, 0, 0])
    np.testing.assert_array_equal(wp, [1, 1, 1, 0, 0])
    np.testing.assert_array_equal(pad_rows(3, X, fill="first_row"), X)
    with pytest.raises(ValueError, match="first_row"):
        pad_rows(2, np.zeros((0, 2)), fill="first_row")
    with pytest.raises(ValueError, match="cannot pad"):
        pad_rows(2, X)


def test_standardization_in_row_blocks_equals_the_whole_array(monkeypatch):
    """Statistics and the transform are computed in float64 blocks of rows (bounded memory on large X); with tiny
    blocks they equal numpy's float64 mean / std / average over the whole array, and the transform is exact."""
    import pujax.preprocessing as pre

    monkeypatch.setattr(pre, "_BLOCK_VALUES", 28)  # blocks of 7 rows of 4 features
    r = np.random.default_rng(0)
    X = (r.normal(size=(100, 4)) * [1.0, 1e-3, 5.0, 0.0] + [1e7, 0.0, -3.0, 2.0]).astype(np.float32)
    X[:, 1] = np.round(X[:, 1] * 1e3)  # small integers
    w = r.uniform(0.0, 2.0, 100)
    w[:10] = 0.0
    X64 = X.astype(np.float64)
    center, scale = pre.standardization(X)
    np.testing.assert_allclose(center, X64.mean(0), rtol=1e-13)
    np.testing.assert_allclose(scale[:3], X64.std(0)[:3], rtol=1e-10)
    assert scale[3] == 1.0  # a constant feature
    cw, sw = pre.standardization(X, sample_weight=w)
    ref = np.average(X64, 0, weights=w)
    np.testing.assert_allclose(cw, ref, rtol=1e-13)
    np.testing.assert_allclose(sw[:3], np.sqrt(np.average((X64 - ref) ** 2, 0, weights=w))[:3], rtol=1e-10)
    ck, sk = pre.standardization(X, keep_small_integers=True)
    assert (ck[1], sk[1]) == (0.0, 1.0) and sk[2] != 1.0  # (feature 0: 1e7 + x in float32 is integral too)
    Z = pre.standardize(X, center, scale, clip=3.0)
    np.testing.assert_array_equal(Z, np.clip((X64 - center) / scale, -3.0, 3.0).astype(np.float32))
    assert Z.dtype == np.float32 and Z.flags.c_contiguous


_FIRST_FIT = r"""
import json, os, sys
os.cpu_count = lambda: 2  # the forests grow one tree batch per core: the same batches (and programs) on any machine
import numpy as np
from sklearn.datasets import load_breast_cancer
import pujax
from pujax.compilation import count_compilations
X, y = load_breast_cancer(return_X_y=True)
rng = np.random.default_rng(0)
s = np.zeros(455, int)
s[rng.choice(np.flatnonzero(y[:455] == 1), 70, replace=False)] = 1
est = getattr(pujax, sys.argv[1])(prior=float(np.mean(y[:455])), random_state=0, **json.loads(sys.argv[2]))
with count_compilations() as fit:
    est.fit(X[:455], s)
with count_compilations() as predict:
    est.predict(X[455:])
print("COUNTS", fit.count, predict.count)
"""


@pytest.mark.parametrize("name, kwargs, n_fit", [
    ("PUExtraTreesClassifier", {}, 5), ("AdaPUClassifier", {}, 1), ("RESVMClassifier", {}, 2),
    ("NNPUClassifier", {"epochs": 2}, 2), ("TwoHNC", {}, 7)])
def test_first_fit_in_a_fresh_process_compiles_few_programs(name, kwargs, n_fit):
    """A fresh process's first fit on breast cancer (455 rows, 70 labeled) compiles at most the programs it
    compiled when this test was written (benchmarks/results/latency.md counts them on another split) and its first
    predict one; a new eager jnp call or a static argument that varies shows up here as an extra compilation."""
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _FIRST_FIT, name, json.dumps(kwargs)], capture_output=True,
                          text=True, timeout=300)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("COUNTS ")]
    assert proc.returncode == 0 and line, proc.stderr[-2000:]
    fit, predict = map(int, line[0].split()[1:])
    assert fit <= n_fit and predict <= 1, (name, fit, predict)
