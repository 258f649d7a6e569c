"""Every bad input of DESIGN §1 gets a clear error; persistence round-trips without pickle."""
import pickle

import jax
import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

from pujax.base import PUClassifierMixin
from pujax.validation import as_key, check_pu_labels, check_prior, check_X, check_X_s


class TinyPU(PUClassifierMixin, BaseEstimator):
    """A minimal PU estimator (mean-difference scorer) to exercise the shared plumbing."""

    def __init__(self, prior=0.5, random_state=None):
        self.prior = prior
        self.random_state = random_state

    def fit(self, X, s):
        X, s, prior = self._validate_fit(X, s)
        self.coef_ = X[s == 1].mean(0) - X[s == 0].mean(0)
        self.info_ = {"prior": prior, "shape": (1, 2), "inf": float("inf"), "nested": [np.arange(3), "x"]}
        return self

    def decision_function(self, X):
        return self._validate_predict(X) @ self.coef_

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)


def test_s_encodings():
    np.testing.assert_array_equal(check_pu_labels([True, False]), [1, 0])
    np.testing.assert_array_equal(check_pu_labels([1, -1, 1]), [1, 0, 1])
    np.testing.assert_array_equal(check_pu_labels(np.array([[1], [0]])), [1, 0])


@pytest.mark.parametrize(
    "s, match",
    [([0, 1, 2], "binary"), ([0, 0, 0], "no labeled positive"), ([1, 1, 1], "no unlabeled"), (["a", "b", "a"], "dtype")],
)
def test_bad_s(s, match):
    with pytest.raises((ValueError, TypeError), match=match):
        check_X_s(np.zeros((3, 2)), s)


def test_bad_X():
    with pytest.raises(ValueError, match="NaN or infinite"):
        check_X([[1.0, np.nan]])
    with pytest.raises(ValueError, match="NaN or infinite"):
        check_X([[1.0, np.inf]])
    with pytest.raises(ValueError, match="1-D"):
        check_X([1.0, 2.0])
    with pytest.raises(ValueError, match="at least one sample"):
        check_X(np.zeros((0, 3)))
    with pytest.raises(TypeError, match="numeric"):
        check_X([["a", "b"]])
    with pytest.raises(ValueError, match="3 labels but X has 2 rows"):
        check_X_s(np.zeros((2, 2)), [1, 0, 0])


@pytest.mark.parametrize("prior", [0.0, 1.0, -0.1, 1.5, np.nan, None, "half"])
def test_bad_prior(prior):
    with pytest.raises((ValueError, TypeError), match="prior"):
        check_prior(prior)
    with pytest.raises((ValueError, TypeError), match="prior"):
        TinyPU(prior=prior).fit(np.random.rand(6, 2), [1, 0, 1, 0, 0, 0])


def test_random_state_to_key():
    k = as_key(3)
    np.testing.assert_array_equal(jax.random.key_data(k) if jax.dtypes.issubdtype(k.dtype, jax.dtypes.prng_key) else k,
                                  jax.random.PRNGKey(3))
    assert as_key(np.random.RandomState(0)).shape == (2,)
    with pytest.raises(TypeError, match="random_state"):
        as_key("seed")


def test_estimator_plumbing(tmp_path):
    r = np.random.default_rng(0)
    X = r.normal(size=(60, 3))
    s = np.r_[np.ones(10, int), np.zeros(50, int)]
    est = TinyPU(prior=0.3)
    with pytest.raises(NotFittedError):
        est.predict(X)
    est.fit(X, 2 * s - 1)  # {-1, +1} accepted
    assert est.prior_ == 0.3 and list(est.classes_) == [0, 1] and est.n_features_in_ == 3
    with pytest.raises(ValueError, match="2 features"):
        est.predict(X[:, :2])
    assert clone(est).get_params() == est.get_params()
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_allclose(est2.decision_function(X), est.decision_function(X))
    est.save(tmp_path / "m")
    est3 = TinyPU.load(tmp_path / "m")
    np.testing.assert_allclose(est3.decision_function(X), est.decision_function(X))
    assert est3.info_["shape"] == (1, 2) and est3.info_["inf"] == float("inf")
    np.testing.assert_array_equal(est3.info_["nested"][0], np.arange(3))
    assert est3.get_params() == est.get_params()
