"""The batched NumPy L-BFGS of pujax.lbfgs against scipy's minimiser on independent problems."""
import numpy as np
from scipy.optimize import minimize

from pujax.lbfgs import lbfgs_minimize


def _logistic_problems(n_problems=4, n=200, k=5, seed=0):
    r = np.random.default_rng(seed)
    X = r.normal(size=(n_problems, n, k))
    y = (r.random((n_problems, n)) < 0.5) * 2.0 - 1.0
    lam = np.array([0.01, 0.1, 1.0, 0.001])[:n_problems]

    def one(theta, b):
        z = y[b] * (X[b] @ theta)
        f = np.mean(np.logaddexp(0.0, -z)) + 0.5 * lam[b] * theta @ theta
        g = -(X[b] * (y[b] / (1.0 + np.exp(z)))[:, None]).mean(0) + lam[b] * theta
        return f, g

    def batch(Theta, rows):
        out = [one(t, b) for t, b in zip(Theta, rows)]
        return np.array([o[0] for o in out]), np.stack([o[1] for o in out])

    return one, batch


def test_batched_lbfgs_matches_scipy_per_problem():
    one, batch = _logistic_problems()
    res = lbfgs_minimize(batch, np.zeros((4, 5)), 500, 1e-10, ftol=0.0)
    for b in range(4):
        ref = minimize(lambda t: one(t, b), np.zeros(5), jac=True, method="L-BFGS-B",
                       options={"gtol": 1e-12, "ftol": 1e-15})
        np.testing.assert_allclose(res.x[b], ref.x, rtol=1e-5, atol=1e-6)
        assert res.value[b] == np.float64(res.value[b]) and abs(res.value[b] - ref.fun) < 1e-10
    assert np.all(res.grad_norm < 1e-8) and np.all(res.n_iter < 500)


def test_batched_lbfgs_nonconvex_and_stops():
    # Rosenbrock (non-convex) from two starts, one already at the minimum (stops at once)
    def batch(X, rows):
        a, b = X[:, 0], X[:, 1]
        f = (1 - a) ** 2 + 100 * (b - a * a) ** 2
        g = np.stack([-2 * (1 - a) - 400 * a * (b - a * a), 200 * (b - a * a)], 1)
        return f, g

    res = lbfgs_minimize(batch, np.array([[-1.2, 1.0], [1.0, 1.0]]), 1000, 1e-8, ftol=0.0)
    np.testing.assert_allclose(res.x, 1.0, atol=1e-5)
    assert res.n_iter[1] == 0 and res.n_iter[0] > 10
