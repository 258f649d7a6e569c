r"""Model selection on held-out PU rows, shared by the neural learners (nnPU / uPU / PN, VPU and the rule-based
methods).

A stratified share of the labeled positives and of the unlabeled rows is held out (:func:`validation_split`, drawn
on the host, no compiled program); after every epoch the learner scores the held-out rows with its own criterion
(the held-out nnPU / uPU / PN risk for :mod:`pujax.neural.train`, the variational loss for :mod:`pujax.neural.vpu`)
inside the compiled program, and the carry of the epoch ``lax.scan`` keeps the variables of the epoch with the
lowest value (:func:`keep_best`; the earliest such epoch on ties).

Criteria without negatives shared by every neural learner (:func:`selection_loss`; PU-Bench's and Wang et al.'s
model selection, ICLR 2026), on the decision values ``d`` of the held-out rows (positive iff ``d > 0``):
``"proxy_accuracy"``, :math:`2\pi\,\mathrm{TPR}_P + \mathrm{TNR}_U` (the held-out labeled rows' rate of
positive predictions and the held-out unlabeled rows' rate of negative ones,
:func:`pujax.metrics.pu_proxy_accuracy`), and ``"proxy_auc"``, the ROC AUC of held-out labeled versus held-out
unlabeled rows (:func:`pujax.metrics.pu_lift_auc`, case-control); both are maximised (the selection minimises
their negative).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

from pujax._compile import bucket_size, pad_rows
from pujax.neural.rows import pad_matrix_rows
from pujax.random import as_key, host_rng
from pujax.validation import check_float

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

    from pujax._typing import RandomStateLike as KeyLike

__all__ = ["validation_split", "held_out_rows", "first_key", "init_best", "keep_best", "selection_loss",
           "SELECTION_KEYS"]

SELECTION_KEYS = ("best_variables", "best_loss", "best_epoch")
"""The entries of a training state that :func:`init_best` adds and :func:`keep_best` updates."""


def validation_split(key: KeyLike, s: ArrayLike, fraction: float | None) -> tuple[np.ndarray, ...]:
    """Hold out a share ``fraction`` of the labeled positives and of the unlabeled rows (stratified by ``s``).

    ``round(fraction * n)`` rows of each class (at least one, and at least one left to train on) are drawn without
    replacement on the host (:func:`pujax.random.host_rng` of ``key``, no compiled program). Returns sorted int32
    index arrays ``(p_train, u_train, p_val, u_val)``; ``fraction = 0`` or None holds out nothing
    (``p_val = u_val = None``).
    """
    s = np.asarray(s)
    fraction = check_float(0.0 if fraction is None else fraction, "validation_fraction", low=0.0, high=1.0,
                           closed="left")
    p, u = np.flatnonzero(s == 1).astype(np.int32), np.flatnonzero(s == 0).astype(np.int32)
    if fraction == 0:
        return p, u, None, None
    if min(len(p), len(u)) < 2:
        raise ValueError(f"validation_fraction={fraction} needs at least 2 labeled positive and 2 unlabeled rows; "
                         f"got {len(p)} and {len(u)}. Pass validation_fraction=0 to train on every row.")
    rng = host_rng(as_key(key))
    out = []
    for idx in (p, u):
        n_val = min(max(1, int(round(fraction * len(idx)))), len(idx) - 1)
        held = np.zeros(len(idx), bool)
        held[rng.choice(len(idx), n_val, replace=False)] = True
        out.append((idx[~held], idx[held]))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def held_out_rows(X: ArrayLike, s: ArrayLike, fraction: float | None,
                  key: Any) -> tuple[np.ndarray, np.ndarray, tuple | None]:
    """``(X_train, s_train, val)``: with ``fraction > 0`` the rows left after holding out a stratified share of P
    and of U (:func:`pujax.neural.selection.validation_split` of ``key``), in their original order, and
    ``val = (X_val, s_val, w_val)``, the held-out rows padded to a size bucket (weights 1, padding 0); ``(X, s, None)``
    otherwise. A scipy sparse ``X`` stays sparse (CSR)."""
    p_tr, u_tr, p_val, u_val = validation_split(key, s, fraction)
    if p_val is None:
        return X, s, None
    X = X if sp.issparse(X) else np.asarray(X)
    s = np.asarray(s)
    train, held = np.sort(np.concatenate([p_tr, u_tr])), np.sort(np.concatenate([p_val, u_val]))
    size = bucket_size(len(held))
    w = pad_rows(size, np.ones(len(held), X.dtype if np.issubdtype(X.dtype, np.floating) else np.float32))
    return X[train], s[train], (pad_matrix_rows(size, X[held]), pad_rows(size, s[held]), w)


def first_key(keys: jax.Array) -> np.ndarray:
    """The first of a batch of PRNG keys as host words (read without a compiled indexing program): the default seed
    of the held-out rows shared by every seed of a ``fit_many``."""
    raw = jax.random.key_data(keys) if jax.dtypes.issubdtype(keys.dtype, jax.dtypes.prng_key) else keys
    return np.asarray(raw, np.uint32)[0]


def init_best(variables: dict, dtype: jnp.dtype = jnp.float32) -> dict:
    """The selection's part of a training state: ``best_variables`` (a copy of ``variables``), ``best_loss``
    (+inf) and ``best_epoch`` (0)."""
    return dict(zip(SELECTION_KEYS, (variables, jnp.asarray(jnp.inf, dtype), jnp.zeros((), jnp.int32))))


def keep_best(state: dict, loss: jax.Array, epoch: jax.Array, first: int = 0) -> dict:
    """``state`` with the selection updated by epoch ``epoch``, just trained, whose held-out value is ``loss``: its
    variables replace ``best_variables`` if ``loss`` is the lowest so far (always for epoch ``first``, the first
    epoch the selection considers, and whenever the best value so far is NaN), so the selection is never empty and
    a NaN epoch never hides later finite ones. Pure; jit / vmap-able."""
    better = (loss < state["best_loss"]) | (epoch == first) | jnp.isnan(state["best_loss"])
    best = jax.tree.map(lambda a, b: jnp.where(better, a, b), state["variables"], state["best_variables"])
    return {**state, "best_variables": best, "best_loss": jnp.where(better, loss, state["best_loss"]),
            "best_epoch": jnp.where(better, epoch, state["best_epoch"])}


def selection_loss(kind: str, d: jax.Array, s_val: jax.Array, w_val: jax.Array, prior: jax.Array) -> jax.Array:
    """The value the selection minimises for criterion ``kind`` (``"proxy_accuracy"`` or ``"proxy_auc"``, module
    docstring): minus the criterion of decision values ``d`` of held-out rows with PU labels ``s_val`` and weights
    ``w_val`` (0 on padding). Pure; jit / vmap-able."""
    from pujax.metrics.pu import pu_lift_auc, pu_proxy_accuracy

    if kind == "proxy_accuracy":
        value = pu_proxy_accuracy(s_val, d > 0, prior, sample_weight=w_val)
    elif kind == "proxy_auc":
        value = pu_lift_auc(s_val, d, scenario="case-control", sample_weight=w_val)
    else:
        raise ValueError(f"selection={kind!r} is not a held-out PU criterion; use 'proxy_accuracy' or 'proxy_auc'.")
    return -value.astype(d.dtype)
