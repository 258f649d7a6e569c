r"""Functional core of the SVM ensembles (Claesen et al. 2015): a model NamedTuple and pure fit / decision functions.

* :class:`SVMModel` -- the fitted ensemble as arrays: support vectors (standardized), dual coefficients and
  intercepts of every base model, kernel parameters, the standardization statistics and the decision threshold.
* :func:`resvm_fit`, :func:`bagging_svm_fit`, :func:`cwsvm_fit` -- ``(key, X, s, ...) -> SVMModel``; all base
  models are solved by :func:`solve_problems` (batched SMO, one dense kernel matrix per resample, shared by the
  problems that train on it with the same kernel parameters; base models split over ``devices`` with
  :func:`jax.shard_map`).
* :func:`svm_base_decision` (``psi_k(x)``, one column per base model), :func:`svm_decision` (``> 0`` means
  positive) and :func:`svm_proba`.

Scores. A base model's decision value is ``psi_k(x) = sum_i alpha_ki y_ki K(x_i, x) + b_k`` on standardized
features. An ensemble scores ``x`` by ``d(x)`` of eq. 5 (the vote fraction ``v(x)`` of eq. 4, extended by the
summed decision values when the vote is unanimous) and predicts positive where ``d(x) > T`` (eq. 6). ``T = 0.5``
is the majority vote; given the class prior, ``T`` is chosen so that the predicted positive share of the training
unlabeled rows equals the prior, each row scored out of bag (by the base models that trained neither on it nor on
an identical row, such as its labeled copy in case-control data; :func:`prior_threshold`; at most
:data:`THRESHOLD_ROWS` random unlabeled rows, :func:`threshold_rows`). ``svm_decision`` returns
``d(x) - T`` (a single SVM: ``psi(x)``).

Standardization. ``X`` is centred and scaled per feature in float64 inside the fit (statistics stored in the model
and applied again at predict time), so results do not depend on the units or offsets of the features.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp
from jax.sharding import PartitionSpec

from pujax._compile import bucket_size, jit, pad_rows
from pujax.devices import AXIS, device_mesh, replicate, shard_rows, to_host
from pujax.linalg import matmul
from pujax.persistence import register_model
from pujax.preprocessing import duplicate_groups
from pujax.random import host_seed
from pujax.svm.kernels import (
    KERNELS,
    STANDARD_CLIP,
    kernel_block,
    resolve_gamma,
    sparse_decision_values,
    sparse_kernel,
    standardize_stats,
)
from pujax.svm.kernels import standardize as _standardize
from pujax.svm.problems import (
    EnsembleSpec,
    Problems,
    bagging_svm_spec,
    cwsvm_spec,
    draw_problems,
    in_bag,
    resvm_spec,
)
from pujax.svm.solver import solve_svm
from pujax.validation import check_in, check_int, check_prior, check_pu_labels

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = ["SVMModel", "SolveResult", "vote_fraction", "ensemble_decision", "solve_problems", "svm_fit",
           "resvm_fit", "bagging_svm_fit", "cwsvm_fit", "cwsvm_fit_bags", "svm_base_decision", "svm_decision",
           "svm_proba", "svm_proba_bags", "ensemble_scores", "prior_threshold", "threshold_rows", "make_model",
           "THRESHOLD_ROWS"]

_KERNEL_BUDGET = 1 << 25  # floats of per-problem kernel matrices per device at once (128 MB in float32)
_PREDICT_BUDGET = 1 << 22  # floats of one predict block K(X_chunk, SV): 16 MB (blocks 4x larger: 1.7x slower on CPU)
_SV_BLOCK = 1024  # support vectors scored at once when there are more
THRESHOLD_ROWS = 4096
"""At most this many unlabeled rows, drawn at random, set the prior threshold (:func:`threshold_rows`); the share
of a sample of 4096 rows above a threshold is within about 0.008 (one standard error) of the share of all rows."""


class SVMModel(NamedTuple):
    """A fitted SVM ensemble (``B`` base models, ``n_sv`` distinct support vectors, ``d`` features).

    Attributes
    ----------
    support_vectors : (n_sv, d) float32, standardized training rows with a nonzero coefficient in some model (a
        scipy CSR matrix when the model was fitted on sparse rows).
    dual_coef : (B, n_sv) float32, ``alpha_ki y_ki`` summed over repeats of a row in model ``k``.
    intercept : (B,) float32, the bias ``b_k``.
    x_mean, x_scale : (d,) float64, the standardization ``(x - x_mean) / x_scale``.
    kernel : () int, index into ``("linear", "rbf", "poly")``; ``degree`` () int; ``gamma``, ``coef0`` () float.
    threshold : () float, ``T`` of eq. 6 (ensembles) or the offset of ``psi`` (a single SVM, 0).
    vote : () bool, True for an ensemble (eq. 5 scores), False for a single SVM (``psi``).
    n_iter, kkt_gap : (B,) SMO steps and final maximal KKT violation of every base model.
    """

    support_vectors: np.ndarray
    dual_coef: np.ndarray
    intercept: np.ndarray
    x_mean: np.ndarray
    x_scale: np.ndarray
    kernel: np.ndarray
    gamma: np.ndarray
    coef0: np.ndarray
    degree: np.ndarray
    threshold: np.ndarray
    vote: np.ndarray
    n_iter: np.ndarray
    kkt_gap: np.ndarray


register_model(SVMModel, {
    "support_vectors": "f[n_sv,n_features_in_]|csr[n_sv,n_features_in_]", "dual_coef": "f[n_base,n_sv]",
    "intercept": "f[n_base]",
    "x_mean": "f[n_features_in_]", "x_scale": "f[n_features_in_]", "kernel": "i[]", "gamma": "f[]",
    "coef0": "f[]", "degree": "i[]", "threshold": "f[]", "vote": "b[]", "n_iter": "i[n_base]",
    "kkt_gap": "f[n_base]",
})


class SolveResult(NamedTuple):
    """Solutions of a batch of base-model problems: ``alpha`` (B, n_slots), ``bias``, ``n_iter``, ``gap``,
    ``converged`` (B,)."""

    alpha: np.ndarray
    bias: np.ndarray
    n_iter: np.ndarray
    gap: np.ndarray
    converged: np.ndarray


# ---------------------------------------------------------------------------------------------------- eqs. 4-5
@jit("heavy")
def vote_fraction(psi: ArrayLike) -> jax.Array:
    """Eq. 4: ``v(x) = (B + sum_k sgn(psi_k(x))) / (2 B)`` for base decision values ``psi`` (n, B)."""
    B = psi.shape[-1]
    return (B + jnp.sum(jnp.sign(psi), axis=-1)) / (2.0 * B)


@jit("heavy")
def ensemble_decision(psi: ArrayLike) -> jax.Array:
    """Eq. 5: ``d = v`` if ``0 < v < 1``; ``sum_k psi_k`` if ``v = 0``; ``1 + sum_k psi_k`` if ``v = 1``."""
    v = vote_fraction(psi)
    total = jnp.sum(psi, axis=-1)
    return jnp.where(v <= 0.0, total, jnp.where(v >= 1.0, 1.0 + total, v))


def ensemble_scores(psi: ArrayLike, weights: ArrayLike | None = None) -> np.ndarray:
    """Eq. 5 on the host (numpy, float64) with optional per-(row, model) weights in {0, 1}: ``v`` is the weighted
    vote fraction and the unanimous tails use the weighted sum rescaled to ``B`` models (out-of-bag scores)."""
    psi = np.asarray(psi, np.float64)
    B = psi.shape[-1]
    w = np.ones_like(psi) if weights is None else np.asarray(weights, np.float64)
    n_w = w.sum(axis=-1)
    w = np.where(n_w[..., None] > 0, w, 1.0)  # a row out of no model's bag is scored by all
    n_w = w.sum(axis=-1)
    v = np.sum(w * 0.5 * (1.0 + np.sign(psi)), axis=-1) / n_w
    total = np.sum(w * psi, axis=-1) * (B / n_w)
    return np.where(v <= 0.0, total, np.where(v >= 1.0, 1.0 + total, v))


def prior_threshold(scores: ArrayLike, prior: float) -> float:
    """Threshold ``T`` of eq. 6 such that the share of ``scores > T`` is closest to ``prior``.

    ``scores`` are eq. 5 values of the training unlabeled rows (a sample of the marginal in the case-control
    scenario, so a share ``prior`` of them is positive). ``T`` lies midway between two consecutive distinct scores.
    """
    u = np.unique(np.asarray(scores, np.float64))
    above = 1.0 - np.searchsorted(np.sort(scores), u, side="right") / len(scores)  # share of scores > u_j
    j = int(np.argmin(np.abs(above - prior)))
    if abs(1.0 - prior) < abs(above[j] - prior):  # everything positive is closer
        return float(u[0] - 1.0)
    return float(0.5 * (u[j] + u[j + 1])) if j + 1 < u.size else float(u[j] + 1.0)


# ---------------------------------------------------------------------------------------------------- solving
@partial(jit, "heavy", static_argnames=("kernel", "degree", "max_iter", "mesh"))
def _solve_block(X, idx, y, C, gamma, coef0, tol, *, kernel, degree, max_iter, mesh):
    """Solve a block of problems, split over the mesh: each device gathers the rows of its kernel matrices
    (``idx``: (b, n), one per matrix), builds them and runs its own batched SMO loops over the ``G`` problems that
    share each matrix (``y``, ``C``: (b, G, n)); no communication between devices."""

    def local(X, idx, y, C, gamma, coef0, tol):
        K = jax.vmap(lambda A, g, c: kernel_block(A, A, kernel, g, c, degree))(X[idx], gamma, coef0)
        return _solve_local(K, y, C, tol, max_iter)

    rows, rep = PartitionSpec(AXIS), PartitionSpec()
    return jax.shard_map(local, mesh=mesh, in_specs=(rep, rows, rows, rows, rows, rows, rep), out_specs=rows,
                         check_vma=False)(X, idx, y, C, gamma, coef0, tol)


def _solve_local(K, y, C, tol, max_iter):
    """Batched SMO loops of the ``G`` problems (``y``, ``C``: (b, G, n)) that share each kernel matrix of ``K``."""
    one = lambda K_, y_, c_: solve_svm(K_, None, y_, c_, tol, max_iter)  # noqa: E731
    if y.shape[:2] == (1, 1):  # one problem: its loop without vmap's selects (about 20 % faster on CPU)
        sol = jax.tree.map(lambda a: a[None, None], one(K[0], y[0, 0], C[0, 0]))
    elif y.shape[1] == 1:  # one problem per matrix: no lax.map (it added ~0.1 s to RESVM's first compile)
        sol = jax.tree.map(lambda a: a[:, None], jax.vmap(one)(K, y[:, 0], C[:, 0]))
    else:  # for each g < G, the loop of the G = 1 case over the b matrices: the same solutions bit for bit
        sol = jax.lax.map(lambda yc: jax.vmap(one)(K, *yc), (y.swapaxes(0, 1), C.swapaxes(0, 1)))
        sol = jax.tree.map(lambda a: a.swapaxes(0, 1), sol)
    return sol.alpha, sol.bias, sol.n_iter, sol.gap, sol.converged


@partial(jit, "heavy", static_argnames=("max_iter", "mesh"))
def _solve_kernel_block(K, y, C, tol, *, max_iter, mesh):
    """:func:`_solve_block` on kernel matrices computed beforehand (``K``: (b, n, n), the rows of sparse data)."""
    rows, rep = PartitionSpec(AXIS), PartitionSpec()
    return jax.shard_map(lambda K, y, C, tol: _solve_local(K, y, C, tol, max_iter), mesh=mesh,
                         in_specs=(rows, rows, rows, rep), out_specs=rows, check_vma=False)(K, y, C, tol)


def _host_kernels(X, idx, gamma, coef0, *, kernel, degree, dtype) -> np.ndarray:
    """Kernel matrices (b, n, n) of the row sets ``idx`` (b, n) of a scipy sparse ``X``, built on the host from
    sparse products (:func:`~pujax.svm.kernels.sparse_kernel`)."""
    out = np.empty(idx.shape + (idx.shape[1],), dtype)
    for i, rows in enumerate(idx):
        A = X[rows]
        out[i] = sparse_kernel(A, A, kernel, float(gamma[i]), float(coef0[i]), degree)
    return out


def _block_size(B: int, n_slots: int, n_devices: int) -> int:
    """Kernel matrices per block: a multiple of the device count, at most the kernel budget per device, blocks
    even."""
    per_device = max(1, _KERNEL_BUDGET // (n_slots * n_slots))
    n_blocks = -(-B // (per_device * n_devices))
    per_block = -(-B // n_blocks)
    return -(-per_block // n_devices) * n_devices


def _shared_kernels(idx: np.ndarray, gamma: np.ndarray, coef0: np.ndarray) -> tuple[np.ndarray, int]:
    """``(order, G)``: problems that train on the same rows with the same kernel parameters (a grid over ``C`` or
    ``w_pos`` on the same resamples) share one kernel matrix. When every such group has ``G`` problems, ``order``
    lists them group after group; otherwise ``G = 1`` and ``order`` is the identity."""
    B = idx.shape[0]
    keys = np.concatenate([idx.astype(np.int64), gamma.astype(np.float64).view(np.int64)[:, None],
                           coef0.astype(np.float64).view(np.int64)[:, None]], axis=1)
    group = duplicate_groups(keys)  # numbered in the order of the groups' first problems
    counts = np.bincount(group)
    if counts.size == B or np.any(counts != counts[0]):
        return np.arange(B), 1
    return np.argsort(group, kind="stable"), int(counts[0])  # a group's problems in their own order


def solve_problems(X: ArrayLike, problems: Problems, *, kernel: str = "rbf", gamma: float = 1.0, coef0: float = 0.0,
                   degree: int = 3, tol: float = 1e-3, max_iter: int = 100_000,
                   devices: DevicesLike = None) -> SolveResult:
    """Solve every base-model problem (rows ``problems.idx`` of ``X``) with the batched SMO solver.

    ``gamma`` and ``coef0`` are scalars or one value per problem (a whole gamma grid is one batch). Problems that
    train on the same rows with the same ``gamma`` and ``coef0`` (e.g. the grid points of a ``C`` / ``w_pos`` grid
    on the same resamples) share one kernel matrix, built once. Problems are solved in blocks whose dense kernel
    matrices fit the memory budget; a block is split over ``devices`` (see :mod:`pujax.devices`), each device
    solving its share. Padding problems (all ``C = 0``) end at once. The same problems give the same solutions on
    any number of devices. A scipy sparse ``X`` (text) keeps its rows sparse: each block's kernel matrices are built
    on the host from sparse products and row norms, then solved on the devices.
    """
    mesh = device_mesh(devices)
    n_dev = mesh.devices.size
    dtype = jax.dtypes.canonicalize_dtype(np.float64)
    B, n = problems.idx.shape
    per_problem = [np.broadcast_to(np.asarray(v, dtype), (B,)) for v in (gamma, coef0)]
    order, G = _shared_kernels(np.asarray(problems.idx), *per_problem)
    idx, g, c0 = (np.asarray(a)[order][::G] for a in (problems.idx, *per_problem))  # one row per kernel matrix
    y, C = (np.asarray(a)[order].reshape(-1, G, n) for a in (problems.y, problems.C))
    n_kernels = idx.shape[0]
    block = _block_size(n_kernels, n, n_dev)
    sparse = sp.issparse(X)
    if sparse:  # kernel matrices from sparse products on the host, solved on the devices
        X = sp.csr_matrix(X)
    else:
        Xd = replicate(mesh, pad_rows(bucket_size(len(X)), np.asarray(X, dtype)))  # bucketed: refits reuse programs
    tol = np.asarray(tol, dtype)
    outs = []
    for start in range(0, n_kernels, block):
        part = [a[start:start + block] for a in (idx, y, C, g, c0)]
        m = part[0].shape[0]
        part = pad_rows(block, *part, fill=[0, 1, 0, 1, 0])
        dtypes = (np.int32, dtype, dtype, dtype, dtype)
        part = [a.astype(t) for a, t in zip(part, dtypes)]
        if sparse:
            K = _host_kernels(X, part[0], part[3], part[4], kernel=kernel, degree=int(degree), dtype=dtype)
            res = _solve_kernel_block(*shard_rows(mesh, K, part[1], part[2]), tol, max_iter=int(max_iter), mesh=mesh)
        else:
            res = _solve_block(Xd, *shard_rows(mesh, *part), tol, kernel=kernel, degree=int(degree),
                               max_iter=int(max_iter), mesh=mesh)
        outs.append([to_host(r)[:m] for r in res])
    inverse = np.empty(B, np.int64)
    inverse[order] = np.arange(B)
    return SolveResult(*(np.concatenate(col).reshape((B,) + col[0].shape[2:])[inverse] for col in zip(*outs)))


# ---------------------------------------------------------------------------------------------------- fitting
def make_model(Xs, problems: Problems, sol: SolveResult, stats, *, kernel, gamma, coef0, degree, threshold=0.5,
               vote=True) -> SVMModel:
    """Assemble an :class:`SVMModel` from solved problems on standardized rows ``Xs`` (rows with a nonzero folded
    coefficient in some base model become the support vectors)."""
    B = problems.idx.shape[0]
    W = np.zeros((B, Xs.shape[0]), np.float64)
    live = problems.C > 0
    rows = np.broadcast_to(np.arange(B)[:, None], problems.idx.shape)
    np.add.at(W, (rows[live], problems.idx[live]), (sol.alpha * problems.y)[live])
    sv = np.flatnonzero(np.any(W != 0, axis=0))
    f = np.float32
    vectors = sp.csr_matrix(Xs[sv], dtype=f) if sp.issparse(Xs) else np.asarray(Xs[sv], f)
    return SVMModel(vectors, W[:, sv].astype(f), np.asarray(sol.bias, f),
                    np.asarray(stats[0], np.float64), np.asarray(stats[1], np.float64),
                    np.asarray(KERNELS.index(kernel), np.int32), np.asarray(gamma, f), np.asarray(coef0, f),
                    np.asarray(degree, np.int32), np.asarray(threshold, f), np.asarray(bool(vote)),
                    np.asarray(sol.n_iter, np.int32), np.asarray(sol.gap, f))


def svm_fit(key: jax.Array, X: ArrayLike, s: ArrayLike, spec: EnsembleSpec, *, kernel: str = "rbf",
            gamma: float | str = "scale", coef0: float = 0.0, degree: int = 3, tol: float = 1e-3,
            max_iter: int = 100_000, prior: float | None = None, vote: bool = True,
            devices: DevicesLike = None, standardize: bool = True) -> SVMModel:
    """Fit the ensemble ``spec`` on PU data (``s`` = 1 labeled, 0 unlabeled); see the module docstring.

    ``prior`` (a float in (0, 1) or None): with a prior, the threshold of eq. 6 is set so that a share ``prior``
    of the unlabeled rows, scored out of bag, is predicted positive (a single SVM, ``vote=False``: its decision
    values of the unlabeled training rows); None keeps the majority vote (``T = 0.5``) or ``T = 0``.

    ``X`` dense or scipy sparse (its support vectors then a CSR matrix); ``standardize=False`` reads it as given
    (statistics 0 and 1), otherwise a sparse ``X`` is scaled without centring.
    """
    check_in(kernel, "kernel", KERNELS)
    degree = check_int(degree, "degree")
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    stats = _stats(X, standardize)
    Xs = _standardize(X, *stats)
    g = resolve_gamma(gamma, Xs) if kernel != "linear" else 1.0
    problems = draw_problems(key, s, spec)
    sol = solve_problems(Xs, problems, kernel=kernel, gamma=g, coef0=coef0, degree=degree, tol=tol,
                         max_iter=max_iter, devices=devices)
    model = make_model(Xs, problems, sol, stats, kernel=kernel, gamma=g, coef0=coef0, degree=degree,
                       threshold=0.5 if vote else 0.0, vote=vote)
    if prior is not None:
        U = threshold_rows(key, s, THRESHOLD_ROWS)
        # padded like the training rows (up to THRESHOLD_ROWS): a refit in the same bucket reuses the program
        psi = _psi(model, Xs[U], min_rows=min(len(s), THRESHOLD_ROWS))
        # ensembles: out-of-bag scores; a single SVM: its decision values of the (training) unlabeled rows
        scores = ensemble_scores(psi, ~in_bag(problems, len(s), duplicate_groups(Xs))[U]) if vote else psi[:, 0]
        T = prior_threshold(scores, check_prior(prior, allow_auto=False))
        model = model._replace(threshold=np.asarray(T, np.float32))
    return model


def _stats(X, standardize: bool = True):
    """The standardisation of the kernels' features: :func:`standardize_stats`, or (0, 1) without."""
    return standardize_stats(X) if standardize else (np.zeros(X.shape[1]), np.ones(X.shape[1]))


def threshold_rows(key: jax.Array, s: ArrayLike, max_rows: int = THRESHOLD_ROWS) -> np.ndarray:
    """Unlabeled rows (indices into ``s``, increasing) whose out-of-bag scores set the prior threshold of eq. 6:
    all of them when there are at most ``max_rows``, else ``max_rows`` drawn without replacement by a numpy
    Generator seeded from ``key`` (a stream separate from the resamples)."""
    U = np.flatnonzero(np.asarray(s) == 0)
    if U.size <= max_rows:
        return U
    rng = np.random.default_rng([host_seed(key), 1])
    return np.sort(rng.choice(U, size=int(max_rows), replace=False))


def resvm_fit(key: jax.Array, X: ArrayLike, s: ArrayLike, *, n_estimators: int = 50, n_pos: int | str = "auto",
              max_samples: int | float | str = "auto", C: float = 1.0, w_pos: float = 1.0, prior: float | None = None,
              devices: DevicesLike = None, **svm: Any) -> SVMModel:
    """RESVM (Algorithm 1, eqs. 3-6): see :func:`pujax.svm.problems.resvm_spec` and :func:`svm_fit` (``svm``:
    ``kernel``, ``gamma``, ``coef0``, ``degree``, ``tol``, ``max_iter``)."""
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    spec = resvm_spec(int(np.sum(s == 1)), int(np.sum(s == 0)), n_estimators=n_estimators, n_pos=n_pos,
                      max_samples=max_samples, C=C, w_pos=w_pos)
    return svm_fit(key, X, s, spec, prior=prior, devices=devices, **svm)


def bagging_svm_fit(key: jax.Array, X: ArrayLike, s: ArrayLike, *, n_estimators: int = 50,
                    max_samples: int | float | str = "auto", C: float = 1.0, prior: float | None = None,
                    devices: DevicesLike = None, **svm: Any) -> SVMModel:
    """Bagging SVM (eq. 2): see :func:`pujax.svm.problems.bagging_svm_spec` and :func:`svm_fit`."""
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    spec = bagging_svm_spec(int(np.sum(s == 1)), int(np.sum(s == 0)), n_estimators=n_estimators,
                            max_samples=max_samples, C=C)
    return svm_fit(key, X, s, spec, prior=prior, devices=devices, **svm)


def cwsvm_fit(X: ArrayLike, s: ArrayLike, *, C_pos: float = 1.0, C_unl: float = 1.0, prior: float | None = None,
              devices: DevicesLike = None, **svm: Any) -> SVMModel:
    """Class-weighted SVM (eq. 1): one SVM, P against U; deterministic (no key). ``prior``: threshold at which a
    share ``prior`` of the unlabeled rows is positive (None: 0)."""
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    spec = cwsvm_spec(int(np.sum(s == 1)), int(np.sum(s == 0)), C_pos=C_pos, C_unl=C_unl)
    return svm_fit(jax.random.PRNGKey(0), X, s, spec, vote=False, prior=prior, devices=devices, **svm)


def cwsvm_fit_bags(X: ArrayLike, s: ArrayLike, bags: list[ArrayLike], *, C_pos: float = 1.0, C_unl: float = 1.0,
                   kernel: str = "rbf", gamma: float | str = "scale", coef0: float = 0.0, degree: int = 3,
                   tol: float = 1e-3, max_iter: int = 100_000, devices: DevicesLike = None,
                   standardize: bool = True) -> list[SVMModel]:
    """One class-weighted SVM per bag -- all labeled rows (``s = 1``, bound ``C_pos``) against the unlabeled rows
    ``bags[b]`` (indices into ``X``, repeats allowed; bound ``C_unl``) -- all solved in one batched solve.

    Model ``b`` equals :func:`cwsvm_fit` on the rows of bag ``b`` (standardised with their own statistics, ``gamma``
    resolved on them) up to float rounding: the bags' standardised rows are stacked and every problem indexes its own
    block. This is the batched base-model fit of :class:`pujax.meta.PUBaggingClassifier` (Mordelet & Vert 2014).
    """
    check_in(kernel, "kernel", KERNELS)
    degree = check_int(degree, "degree")
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    P = np.flatnonzero(s == 1)
    if P.size == 0 or not bags:
        raise ValueError("cwsvm_fit_bags needs at least one labeled row (s = 1) and one bag.")
    rows = [np.concatenate([P, np.asarray(b, np.int64)]) for b in bags]
    sizes = np.array([r.size for r in rows])
    if np.any(sizes == P.size):
        raise ValueError("every bag needs at least one unlabeled row.")
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
    stats = [_stats(X[r], standardize) for r in rows]
    Xs = [_standardize(X[r], *st) for r, st in zip(rows, stats)]
    gammas = np.array([resolve_gamma(gamma, x) if kernel != "linear" else 1.0 for x in Xs])
    width, B = bucket_size(int(sizes.max())), len(rows)
    idx, y, C = np.zeros((B, width), np.int32), np.ones((B, width), np.float32), np.zeros((B, width), np.float32)
    for b, n in enumerate(sizes):
        idx[b, :n] = offsets[b] + np.arange(n)
        y[b, P.size:n] = -1.0
        C[b, :P.size], C[b, P.size:n] = C_pos, C_unl
    stacked = sp.vstack(Xs, format="csr") if sp.issparse(X) else np.concatenate(Xs)
    sol = solve_problems(stacked, Problems(idx, y, C), kernel=kernel, gamma=gammas, coef0=coef0,
                         degree=degree, tol=tol, max_iter=max_iter, devices=devices)
    models = []
    for b in range(B):
        local = Problems(idx[b:b + 1] - offsets[b] * (C[b:b + 1] > 0), y[b:b + 1], C[b:b + 1])
        models.append(make_model(Xs[b], local, SolveResult(*(a[b:b + 1] for a in sol)), stats[b], kernel=kernel,
                                 gamma=gammas[b], coef0=coef0, degree=degree, threshold=0.0, vote=False))
    return models


# ---------------------------------------------------------------------------------------------------- predicting
@partial(jit, "heavy", static_argnames=("kernel", "degree"))
def _psi_block(Xc, SV, coef, acc, gamma, coef0, *, kernel, degree):
    """``acc + K(Xc, SV) coef^T``: one chunk of rows against one block of support vectors."""
    return matmul(kernel_block(Xc, SV, kernel, gamma, coef0, degree), coef.T) + acc


def _sv_slots(n_sv: int) -> int:
    """Support vectors padded to a power of two (at least 8) up to :data:`_SV_BLOCK`, then to a multiple of it:
    their count varies from fit to fit, so refits on similar data reuse the program (:func:`_psi` scores the
    blocks of ``_SV_BLOCK`` one after the other: one program for every count above it; :func:`svm_proba_bags`
    compiles one per multiple)."""
    if n_sv <= _SV_BLOCK:
        return max(8, 1 << (n_sv - 1).bit_length())
    return -(-n_sv // _SV_BLOCK) * _SV_BLOCK


def _finite(psi) -> np.ndarray:
    """Decision values with NaN set to 0 and infinities clipped to float32's range."""
    big = np.finfo(np.float32).max
    return np.clip(np.nan_to_num(psi, nan=0.0, posinf=big, neginf=-big), -big, big)


def _logistic(z) -> np.ndarray:
    """``1 / (1 + exp(-z))`` with ``z`` clipped to +-50."""
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))


def _psi(model: SVMModel, Xs, min_rows: int = 0) -> np.ndarray:
    """Base decision values (n, B) of standardized rows ``Xs``; rows padded to size buckets (of at least
    ``min_rows`` rows, so that scoring a data-dependent subset reuses one program), support vectors to
    :func:`_sv_slots`. Sparse rows or support vectors: on the host from sparse products
    (:func:`~pujax.svm.kernels.sparse_decision_values`)."""
    if sp.issparse(Xs) or sp.issparse(model.support_vectors):
        return _finite(sparse_decision_values(model.support_vectors, model.dual_coef, model.intercept, Xs,
                                              KERNELS[int(model.kernel)], float(model.gamma), float(model.coef0),
                                              int(model.degree), block=_PREDICT_BUDGET))
    dtype = jax.dtypes.canonicalize_dtype(np.float64)
    nb = _sv_slots(model.support_vectors.shape[0])
    sb = min(nb, _SV_BLOCK)
    SV = pad_rows(nb, np.asarray(model.support_vectors, dtype))
    coef = pad_rows(nb, np.asarray(model.dual_coef, dtype).T).T
    blocks = [(jax.device_put(SV[j:j + sb]), jax.device_put(coef[:, j:j + sb])) for j in range(0, nb, sb)]
    bias = np.asarray(model.intercept, dtype)
    kernel, degree = KERNELS[int(model.kernel)], int(model.degree)
    gamma, coef0 = np.asarray(model.gamma, dtype), np.asarray(model.coef0, dtype)
    n = Xs.shape[0]
    cs = bucket_size(min(max(n, min_rows), max(8, _PREDICT_BUDGET // sb)))
    out = []
    for start in range(0, n, cs):
        Xc = Xs[start:start + cs]
        Xd, acc = jax.device_put(pad_rows(cs, Xc)), np.broadcast_to(bias, (cs, bias.shape[0]))
        for SV_j, coef_j in blocks:
            acc = _psi_block(Xd, SV_j, coef_j, acc, gamma, coef0, kernel=kernel, degree=degree)
        out.append(np.asarray(acc)[:Xc.shape[0]])
    return _finite(np.concatenate(out, axis=0) if out else np.zeros((0, bias.shape[0]), dtype))


def svm_base_decision(model: SVMModel, X: ArrayLike) -> np.ndarray:
    """Decision values ``psi_k(x)`` of every base model, shape (n_samples, B) (``X`` in the training units)."""
    return _psi(model, _standardize(X, model.x_mean, model.x_scale))


def svm_decision(model: SVMModel, X: ArrayLike) -> np.ndarray:
    """``d(x) - T`` (eq. 5 minus the threshold of eq. 6) for an ensemble, ``psi(x) - T`` for a single SVM;
    ``> 0`` means positive."""
    psi = svm_base_decision(model, X)
    score = ensemble_scores(psi) if bool(model.vote) else psi[:, 0].astype(np.float64)
    return score - float(model.threshold)


@partial(jit, "heavy", static_argnames=("kernel", "degree"))
def _psi_bags_block(Xc, idx, shift, scale, SV, coef, bias, gamma, coef0, *, kernel, degree):
    """``psi`` of B single SVMs, model ``b`` on the rows ``Xc[idx[b]]`` (``Xc`` centred on a common centre) under
    its own standardisation ``(x - shift_b) / scale_b`` (clipped); ``SV`` (B, nb, d), ``coef`` (B, nb), ``bias``
    and ``gamma`` (B,) -> (B, cs)."""
    def one(i, m, sc, sv, c, b, g):
        z = jnp.clip((Xc[i] - m) / sc, -STANDARD_CLIP, STANDARD_CLIP)
        return matmul(kernel_block(z, sv, kernel, g, coef0, degree), c[:, None])[:, 0] + b
    return jax.lax.map(lambda a: one(*a), (idx, shift, scale, SV, coef, bias, gamma))


def svm_proba_bags(models: list[SVMModel], X: ArrayLike, rows: ArrayLike | None = None) -> np.ndarray:
    """Positive-class scores of single SVMs of one kernel (such as the models of :func:`cwsvm_fit_bags`) in one
    program per block of rows: shape (len(models), n_samples), row ``b`` equal to ``svm_proba(models[b], X)`` up to
    float rounding; with ``rows`` (len(models), m) indices into ``X``, model ``b`` scores only ``X[rows[b]]``
    (shape (len(models), m); out-of-bag scores of bagging). ``X`` is centred on the models' mean centre in float64
    on the host; each model's own standardization is then a small shift and a scale on the device."""
    if not models or any(bool(m.vote) or m.dual_coef.shape[0] != 1 for m in models):
        raise ValueError("svm_proba_bags takes a non-empty list of single SVMs (models of cwsvm_fit or "
                         "cwsvm_fit_bags).")
    kernel, degree, coef0 = int(models[0].kernel), int(models[0].degree), float(models[0].coef0)
    if any(int(m.kernel) != kernel or int(m.degree) != degree or float(m.coef0) != coef0 for m in models):
        raise ValueError("svm_proba_bags needs models of one kernel, degree and coef0.")
    if sp.issparse(X) or any(sp.issparse(m.support_vectors) for m in models):  # sparse: model by model, host
        X = sp.csr_matrix(X)
        if rows is None:
            return np.stack([svm_proba(m, X) for m in models])
        return np.stack([svm_proba(m, X[np.asarray(r, np.int64)]) for m, r in zip(models, np.asarray(rows))])
    dtype = jax.dtypes.canonicalize_dtype(np.float64)
    B, nb = len(models), _sv_slots(max(m.support_vectors.shape[0] for m in models))
    SV = jax.device_put(np.stack([pad_rows(nb, np.asarray(m.support_vectors, dtype)) for m in models]))
    coef = jax.device_put(np.stack([pad_rows(nb, np.asarray(m.dual_coef[0], dtype)) for m in models]))
    bias = np.array([m.intercept[0] for m in models], dtype)
    gamma = np.array([m.gamma for m in models], dtype)
    mean = np.stack([m.x_mean for m in models])
    centre = mean.mean(axis=0)
    shift, scale = (mean - centre).astype(dtype), np.stack([m.x_scale for m in models]).astype(dtype)
    X = np.asarray(X)
    n = X.shape[0]
    Xc = jax.device_put(pad_rows(bucket_size(max(n, 1)), np.asarray(np.asarray(X, np.float64) - centre, dtype)))
    rows = np.broadcast_to(np.arange(n), (B, n)) if rows is None else np.asarray(rows, np.int64)
    if rows.shape[0] != B or (rows.size and (rows.min() < 0 or rows.max() >= n)):
        raise ValueError(f"rows must have one row of indices into X (0..{n - 1}) per model; got shape {rows.shape}.")
    m = rows.shape[1]
    cs = bucket_size(min(max(m, 1), max(8, _PREDICT_BUDGET // max(nb, X.shape[1]))))
    out = []
    for start in range(0, m, cs):
        idx = np.zeros((B, cs), np.int32)
        idx[:, :min(cs, m - start)] = rows[:, start:start + cs]
        block = _psi_bags_block(Xc, idx, shift, scale, SV, coef, bias, gamma, np.asarray(coef0, dtype),
                                kernel=KERNELS[kernel], degree=degree)
        out.append(np.asarray(block, np.float64)[:, :min(cs, m - start)])
    psi = _finite(np.concatenate(out, axis=1) if out else np.zeros((B, 0)))
    return _logistic(psi - np.array([float(mod.threshold) for mod in models])[:, None])


def _vote_scale(e, n_models: int):
    """Strictly increasing map of eq. 5 values into (0, 1): ``delta + (1 - 2 delta) v`` for non-unanimous votes,
    the unanimous tails squeezed into (0, delta] and [1 - delta, 1), ``delta = 1 / (4 B)``."""
    delta = 1.0 / (4.0 * n_models)
    mid = delta + (1.0 - 2.0 * delta) * np.clip(e, 0.0, 1.0)
    return np.where(e <= 0.0, delta / (1.0 - np.minimum(e, 0.0)),
                    np.where(e >= 1.0, 1.0 - delta / np.maximum(e, 1.0), mid))


def svm_proba(model: SVMModel, X: ArrayLike) -> np.ndarray:
    """Probability-like score of the positive class, strictly increasing in :func:`svm_decision` and equal to 0.5
    where it is 0. Ensembles: close to the vote fraction (exactly ``delta + (1 - 2 delta) v`` for ``T = 0.5``);
    a single SVM: the logistic function of ``psi - T``. Monotone scores, not calibrated probabilities."""
    psi = svm_base_decision(model, X)
    T = float(model.threshold)
    if not bool(model.vote):
        return _logistic(psi[:, 0] - T)
    B = psi.shape[1]
    q = _vote_scale(ensemble_scores(psi), B)
    q_t = float(_vote_scale(np.asarray(T), B))
    return np.where(q <= q_t, 0.5 * q / q_t, 0.5 + 0.5 * (q - q_t) / (1.0 - q_t))
