"""pujax.data: PU splits are deterministic, follow the papers' protocols and validate their input."""
import numpy as np
import pytest

from pujax.data import contaminate, make_case_control, make_censoring


@pytest.fixture
def xy():
    r = np.random.default_rng(0)
    X = r.normal(size=(500, 4))
    y = (r.random(500) < 0.3).astype(int)
    return X, y


def test_case_control_protocol(xy):
    X, y = xy
    Xt, s, prior = make_case_control(0, X, y, 40)
    assert Xt.shape == (540, 4) and s.shape == (540,) and s.dtype == np.int32
    assert s[:40].sum() == 40 and s[40:].sum() == 0
    assert prior == pytest.approx(y.mean())
    np.testing.assert_allclose(Xt[40:], X.astype(np.float32))
    # P rows are distinct positives of X
    rows = [np.flatnonzero((X.astype(np.float32) == r).all(1))[0] for r in Xt[:40]]
    assert len(set(rows)) == 40 and np.all(y[rows] == 1)
    *_, yt = make_case_control(0, X, y, 40, return_y=True)
    np.testing.assert_array_equal(yt, np.r_[np.ones(40), y])


def test_deterministic_given_key(xy):
    import jax

    X, y = xy
    a = make_case_control(jax.random.PRNGKey(3), X, y, 20)
    b = make_case_control(jax.random.PRNGKey(3), X, y, 20)
    c = make_case_control(jax.random.PRNGKey(4), X, y, 20)
    np.testing.assert_array_equal(a.X, b.X)
    assert not np.array_equal(a.X, c.X)


def test_censoring_rate_and_prior(xy):
    X, y = xy
    X2, s, prior_u = make_censoring(1, X, y, 0.5)
    assert X2.shape == X.shape
    assert np.all(s <= y)
    c_hat = s.sum() / y.sum()
    assert 0.35 < c_hat < 0.65
    assert prior_u == pytest.approx(y[s == 0].mean())


def test_contaminate_counts(xy):
    X, y = xy
    Xt, s, yt = contaminate(2, X, y, n_pos=50, n_unl=200, pos_contamination=0.2, unl_contamination=0.1)
    assert Xt.shape == (250, 4) and s.sum() == 50
    assert np.sum(yt[:50] == 0) == 10  # false positives in P
    assert np.sum(yt[50:] == 1) == 20  # positives in U
    Xt, s, yt = contaminate(2, X, y, 50, 200)
    assert yt[:50].min() == 1 and yt[50:].max() == 0


def test_bad_input(xy):
    X, y = xy
    with pytest.raises(ValueError, match="n_labeled"):
        make_case_control(0, X, y, 10_000)
    with pytest.raises(TypeError, match="n_labeled"):
        make_case_control(0, X, y, 2.5)
    with pytest.raises(ValueError, match="y has 3 labels"):
        make_case_control(0, X, y[:3], 5)
    with pytest.raises(ValueError, match="labeled_fraction"):
        make_censoring(0, X, y, 1.5)
    with pytest.raises(ValueError, match="not enough rows"):
        contaminate(0, X, y, 400, 100)
    with pytest.raises(ValueError, match="binary"):
        make_case_control(0, X, np.arange(500) % 3, 5)
