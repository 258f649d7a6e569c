"""pujax.linalg: full-float32 products and squared distances (no TensorFloat-32 on GPUs)."""
import jax
import numpy as np
from scipy.spatial.distance import cdist

from pujax.linalg import gram, matmul, squared_distances


def test_squared_distances_equal_scipy_and_are_never_negative(rng):
    A = rng.normal(size=(7, 4)).astype(np.float32) * 3 + 10
    B = rng.normal(size=(5, 4)).astype(np.float32)
    d2 = np.asarray(squared_distances(A, B))
    np.testing.assert_allclose(d2, cdist(A.astype(float), B.astype(float), "sqeuclidean"), rtol=1e-5, atol=1e-3)
    assert np.all(np.asarray(squared_distances(A, A)) >= 0)
    inf_norm = np.asarray(squared_distances(A, B, sq_b=np.r_[np.zeros(4), np.inf].astype(np.float32)))
    assert np.all(np.isinf(inf_norm[:, -1]))  # a padding row with an infinite norm is never a neighbour


def test_products_request_highest_precision(rng):
    """The lowered programs ask for HIGHEST precision, which GPUs honour with float32 (not TF32) inputs; the SVM
    kernels, the kNN graph and FSCPU's mixtures go through these functions."""
    from pujax.graph.knn import _knn_tile
    from pujax.svm.kernels import kernel_block

    A = rng.normal(size=(6, 3)).astype(np.float32)
    for fn in (lambda a: gram(a, a), lambda a: matmul(a, a.T), lambda a: squared_distances(a, a),
               lambda a: kernel_block(a, a, "rbf", 0.5, 0.0, 3),
               lambda a: _knn_tile(a, np.arange(6, dtype=np.int32), a, (a * a).sum(1), 2)[1]):
        text = jax.jit(fn).lower(A).as_text()
        assert "HIGHEST" in text, text[:2000]
    np.testing.assert_allclose(np.asarray(gram(A, A)), A.astype(float) @ A.T.astype(float), rtol=1e-5, atol=1e-5)
