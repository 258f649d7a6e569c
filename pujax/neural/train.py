r"""nnPU / uPU / PN training of flax models with optax: the functional core (Kiryo et al. 2017; DESIGN §3.3).

Training rule (Kiryo et al. 2017, Algorithm 1; PU ET paper eq. (5), (6)). On every minibatch, with the partial risks
of :func:`pujax.risk.pu_risk_parts` computed with the minibatch's own counts :math:`n_p, n_u`,

.. math::  r = \hat R_u^-(g) - \pi \hat R_p^-(g);\qquad
           \text{if } r \ge -\beta:\ \text{step on } \nabla(\pi \hat R_p^+(g) + r)
           \quad\text{else: step on } \nabla(-\gamma\, r)

(:func:`pujax.risk.nnpu_objective`). ``risk="upu"`` steps on the unbiased risk (eq. (5)) -- the same as nnPU with
:math:`\beta = +\infty`; ``risk="pn"`` is ordinary supervised training with ``s`` holding the true labels.
Optimiser: Adam with *coupled* L2 weight decay (``wd * param`` added to the gradient before Adam, as Chainer's
``WeightDecay`` hook in the authors' code): ``optax.chain(optax.add_decayed_weights(wd), optax.adam(lr))``.
Defaults: :math:`\beta = 0`, :math:`\gamma = 1`, sigmoid loss, lr 1e-3, weight decay 5e-3, 100 epochs,
batch size 30000 (the default of the authors' code).

Minibatches. An epoch shuffles the ``n`` rows of P ∪ U and deals them round-robin into ``k = ceil(n / batch_size)``
minibatches of ``b`` slots each (static shapes): every row is seen once per epoch, every minibatch holds
``floor(n / k)`` or ``ceil(n / k)`` rows and mixes P and U in the data's proportion, and empty slots carry weight 0
(in the risks and in BatchNorm's statistics) -- ``batching="epoch"``, the default. ``batching="stream"`` follows the
authors' Chainer ``SerialIterator``: the shuffled epochs form one stream of rows, cut into minibatches of exactly
``min(batch_size, n)`` rows, and a minibatch that runs past an epoch's end continues in the next epoch's order; the
updates whose first row lies in epoch ``e`` form epoch ``e`` (a ``lax.while_loop``), so ``E`` epochs make
``ceil(E n / batch_size)`` updates (204 for 100 epochs of 61,000 rows in 30,000-row batches, against 300 with
``"epoch"``). The rows are padded to a size bucket ``N`` (:func:`pujax.compilation.bucket_size`, ``b = ceil(N / k)``;
:func:`pad_for_training`) and the true row count is a traced value, so data of a similar size reuses the compiled
program. An epoch is one ``lax.scan`` over the minibatches (with ``k = 1`` one step on every row, unshuffled: the
order would change only the summation order) and a training run is one ``lax.scan`` over epochs, so :func:`train`
runs two jit-compiled programs, the initial state (compiled without LLVM optimisation: it runs once) and the
epochs; :func:`fit_many` ``vmap``-s both over PRNG keys (N seeds with different initialisations and minibatch
orders; one seed on one device runs :func:`train`'s programs, without the seed axis).

Model selection (optional, ``validation_fraction > 0``; :mod:`pujax.neural.selection`): a stratified share of P and of
U is held out, and after every epoch the program computes the held-out value of the risk being trained
(:func:`validation_risk`, evaluation mode) and carries the variables of the epoch where it is lowest.

State and results are plain pytrees: ``variables = {"params": ..., "batch_stats": ...}`` (nested dicts of arrays,
the flax.linen convention), the optax state, and the PRNG key.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

from pujax._compile import bucket_size, jit, pad_rows
from pujax.devices import shard_seeds
from pujax.neural.batching import epoch_batches as _epoch_batches
from pujax.neural.batching import row_order as _row_order
from pujax.neural.config import (
    BATCHINGS,
    RISKS,
    SELECTIONS,
    TrainConfig,
    batch_layout,
    make_config,
    make_optimizer,
    static_batches,
)
from pujax.neural.forward import apply_model as _apply
from pujax.neural.forward import predict_scores
from pujax.neural.models import accepts_mask, accepts_train
from pujax.neural.programs import cached
from pujax.neural.rows import SparseRows, as_rows, dense_rows, pad_sparse, take_rows
from pujax.neural.selection import (
    SELECTION_KEYS,
    first_key,
    held_out_rows,
    init_best,
    keep_best,
    selection_loss,
)
from pujax.random import as_key
from pujax.risk import nnpu_objective, pn_risk, pu_risk_parts, upu_risk
from pujax.validation import check_int, check_prior, check_pu_labels, check_X

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = [
    "TrainConfig",
    "make_config",
    "batch_layout",
    "pad_for_training",
    "make_optimizer",
    "init_state",
    "loss_and_grad",
    "train_step",
    "run_epochs",
    "validation_risk",
    "final_variables",
    "train",
    "fit_many",
    "run_seeds",
    "predict_scores",
    "RISKS",
    "BATCHINGS",
    "SELECTIONS",
    "static_batches",
]

def pad_for_training(cfg: TrainConfig, X: ArrayLike, s: ArrayLike) -> tuple[ArrayLike, ArrayLike, int]:
    """``(X, s, n)``: the rows padded to :func:`~pujax.compilation.bucket_size` ``(n)`` when the model takes a
    ``mask`` (:func:`pujax.neural.models.accepts_mask`), unchanged otherwise; ``n`` is the true row count. A scipy
    sparse ``X`` becomes :class:`~pujax.neural.rows.SparseRows` (dense minibatches are built on the device)."""
    n = int(X.shape[0])
    X = as_rows(X)
    if not accepts_mask(cfg.module):
        return X, s, n
    size = bucket_size(n)
    X = pad_sparse(X, size) if isinstance(X, SparseRows) else pad_rows(size, np.asarray(X))
    return X, pad_rows(size, np.asarray(s)), n


def init_state(key: jax.Array, X: ArrayLike, cfg: TrainConfig, validate: bool = False) -> dict:
    """Initial training state ``{"variables", "opt_state", "key", "epoch"}`` for one seed (pure; vmap over ``key``);
    with ``batching="stream"`` also ``"order_key"`` and ``"offset"`` (the position in the row stream); with
    ``validate`` also the model selection's ``"best_variables"``, ``"best_loss"``, ``"best_epoch"``
    (:func:`pujax.neural.selection.init_best`)."""
    k_init, k_train = jax.random.split(key)
    x0 = jnp.zeros((1,) + tuple(X.shape[1:]), X.dtype)
    kwargs = {"train": False} if accepts_train(cfg.module) else {}
    variables = cfg.module.init({"params": k_init, "dropout": k_init}, x0, **kwargs)
    variables = jax.tree.map(lambda a: a, dict(variables))
    opt_state = make_optimizer(cfg).init(variables["params"])
    state = {"variables": variables, "opt_state": opt_state, "key": k_train, "epoch": jnp.zeros((), jnp.int32)}
    if cfg.batching == "stream":  # the row stream: epoch e's order is drawn from fold_in(order_key, e)
        state.update(order_key=jax.random.fold_in(k_train, 1), offset=jnp.zeros((), jnp.int32))
    if validate:
        state.update(init_best(variables, X.dtype if jnp.issubdtype(X.dtype, jnp.floating) else jnp.float32))
    return state


def _objective(cfg: TrainConfig, g, sb, prior, wb=None):
    """(surrogate whose gradient is the step, risk value, r, corrected) on one minibatch (row weights ``wb``)."""
    if cfg.risk == "pn":
        value = pn_risk(g, sb, cfg.loss, weights=wb)
        zero = jnp.zeros((), g.dtype)
        return value, value, zero, jnp.zeros((), bool)
    a, b, c = pu_risk_parts(g, sb, prior, cfg.loss, wb)
    r = b - c
    if cfg.risk == "upu":
        value = upu_risk(g, sb, prior, cfg.loss, wb)
        return value, value, r, jnp.zeros((), bool)
    surrogate, value = nnpu_objective(g, sb, prior, cfg.loss, cfg.beta, cfg.gamma, wb)
    return surrogate, value, r, r < -cfg.beta


def loss_and_grad(cfg: TrainConfig, variables: dict, xb: ArrayLike, sb: ArrayLike, prior: float,
                  rng: jax.Array | None = None, mask: ArrayLike | None = None) -> tuple[Any, Any, Any]:
    """Gradient of the training rule on one minibatch (the model in training mode).

    Returns ``(grads, new_collections, aux)`` with ``aux = {"objective", "risk", "r", "corrected"}``: ``grads`` is
    ``grad(pi R_p^+ + r)`` when ``r >= -beta`` and ``grad(-gamma r)`` otherwise (nnPU), the uPU or PN risk gradient
    otherwise; ``new_collections`` holds the updated BatchNorm statistics. ``mask`` (boolean ``(b,)``, default all
    rows): the rows of the minibatch that count.
    """
    others = {k: v for k, v in variables.items() if k != "params"}
    wb = None if mask is None else mask.astype(xb.dtype if jnp.issubdtype(xb.dtype, jnp.floating) else jnp.float32)

    def f(params):
        g, new = _apply(cfg, {"params": params, **others}, xb, True, rng, mask)
        surrogate, value, r, corrected = _objective(cfg, g, sb, prior, wb)
        return surrogate, (new, {"objective": surrogate, "risk": value, "r": r, "corrected": corrected})

    grads, (new, aux) = jax.grad(f, has_aux=True)(variables["params"])
    return grads, new, aux


def train_step(cfg: TrainConfig, state: dict, xb: ArrayLike, sb: ArrayLike, prior: float, rng: jax.Array | None = None,
               mask: ArrayLike | None = None) -> tuple[dict, Any]:
    """One optimiser step on a minibatch; returns ``(new_state, aux)`` (see :func:`loss_and_grad`)."""
    variables = state["variables"]
    grads, new, aux = loss_and_grad(cfg, variables, xb, sb, prior, rng, mask)
    updates, opt_state = make_optimizer(cfg).update(grads, state["opt_state"], variables["params"])
    params = optax.apply_updates(variables["params"], updates)
    new_vars = {**variables, **new, "params": params}
    return {**state, "variables": new_vars, "opt_state": opt_state}, aux


def validation_risk(cfg: TrainConfig, variables: dict, X_val: ArrayLike, s_val: ArrayLike, prior: float,
                    w_val: ArrayLike | None = None) -> jax.Array:
    """The model selection's criterion (:mod:`pujax.neural.selection`) of held-out rows ``X_val`` with PU labels
    ``s_val`` and row weights ``w_val`` (0 for padding), the model in evaluation mode: with ``cfg.selection="risk"``
    the risk that training minimises (nnPU, uPU or PN value, ``cfg.loss``), else minus the proxy accuracy or proxy
    AUC of the scores (:func:`pujax.neural.selection.selection_loss`)."""
    g = predict_scores(cfg, variables, X_val)
    if cfg.selection == "risk":
        return _objective(cfg, g, s_val, prior, w_val)[1]
    return selection_loss(cfg.selection, g, s_val, jnp.ones_like(g) if w_val is None else w_val, prior)


def run_epochs(cfg: TrainConfig, state: dict, X: ArrayLike, s: ArrayLike, prior: float, n_epochs: int,
               X_eval: ArrayLike | None = None, y_eval: ArrayLike | None = None, n_valid: ArrayLike | None = None,
               n_batches: int | None = None, val: tuple | None = None) -> tuple[dict, Any]:
    """Run ``n_epochs`` epochs from ``state`` (pure, jit- and vmap-able); returns ``(state, history)``.

    Only the first ``n_valid`` rows of ``X``, ``s`` are trained on (default: all; a traced scalar is fine, the rest is
    padding, see :func:`pad_for_training`), in ``n_batches`` minibatches per epoch (static; default
    ``ceil(n_valid / batch_size)``; unused with ``batching="stream"``). ``history`` holds per-epoch arrays:
    ``"risk"`` (mean over the epoch's minibatches of the nnPU / uPU / PN risk value, measured before each step),
    ``"corrections"`` (fraction of minibatches where the correction step ``-gamma r`` was taken) and, when
    ``X_eval``/``y_eval`` are given, ``"test_error"`` (zero-one error of ``score > 0`` against ``y_eval`` after the
    epoch, BatchNorm in evaluation mode). With held-out rows ``val = (X_val, s_val, w_val)`` (a state from
    ``init_state(..., validate=True)``) also ``"validation"``, their :func:`validation_risk` after every epoch, and
    the state keeps the variables of the epoch where it is lowest (:func:`pujax.neural.selection.keep_best`).
    With a training rule (``cfg.rule``) the run is :func:`pujax.neural.engine.run_rule_epochs` (no ``X_eval``).
    """
    size = X.shape[0]
    if n_batches is None and cfg.batching == "epoch":
        n_batches = batch_layout(size if n_valid is None else int(n_valid), cfg.batch_size)[0]
    if cfg.rule is not None:
        if X_eval is not None:
            raise ValueError("X_eval / eval_set is not available with a training rule; score the fitted model.")
        from pujax.neural.engine import run_rule_epochs

        return run_rule_epochs(cfg, state, X, s, prior, n_epochs, n_valid, n_batches, val,
                               lambda key: init_state(key, X, cfg))
    n_valid = size if n_valid is None else n_valid
    prior = jnp.asarray(prior, dtype=X.dtype if jnp.issubdtype(X.dtype, jnp.floating) else jnp.float32)

    def epoch(state, _):
        e = state["epoch"]
        selection = {k: state[k] for k in SELECTION_KEYS if k in state}  # kept out of the minibatch loop's carry
        train = {k: v for k, v in state.items() if k not in selection}
        train, hist = (_stream_epoch if cfg.batching == "stream" else _shuffled_epoch)(
            cfg, train, X, s, prior, n_valid, n_batches)
        state = {**train, **selection, "epoch": e + 1}
        if X_eval is not None:
            g = predict_scores(cfg, state["variables"], X_eval)
            hist["test_error"] = jnp.mean(((g > 0).astype(jnp.int32) != y_eval).astype(hist["risk"].dtype))
        if val is not None:
            hist["validation"] = validation_risk(cfg, state["variables"], *val[:2], prior, val[2])
            state = keep_best(state, hist["validation"], e)
        return state, hist

    return jax.lax.scan(epoch, state, None, length=n_epochs)


def final_variables(state: dict) -> dict:
    """The fitted variables of a training state: the selected epoch's with model selection, else the last."""
    return state.get("best_variables", state["variables"])


def _shuffled_epoch(cfg, state, X, s, prior, n_valid, n_batches):
    """One epoch of ``batching="epoch"``: a shuffle of the ``n_valid`` rows dealt into ``n_batches`` minibatches,
    one ``lax.scan`` over them."""
    size = X.shape[0]
    key, k_perm, k_drop = jax.random.split(state["key"], 3)
    state = {**state, "key": key}
    if n_batches == 1:  # one minibatch of every row: the order changes only the summation order, so no shuffle
        state, aux = train_step(cfg, state, dense_rows(X), s, prior, jax.random.fold_in(k_drop, 0),
                                jnp.arange(size) < n_valid)
        return state, {"risk": aux["risk"], "corrections": aux["corrected"].astype(aux["risk"].dtype)}
    idx, masks = _epoch_batches(k_perm, size, n_valid, n_batches)

    def step(carry, inp):
        i, batch_idx, mask = inp
        xb = take_rows(X, batch_idx)
        sb = jnp.take(s, batch_idx, axis=0)
        new, aux = train_step(cfg, carry, xb, sb, prior, jax.random.fold_in(k_drop, i), mask)
        return new, (aux["risk"], aux["corrected"])

    state, (risks, corrected) = jax.lax.scan(step, state, (jnp.arange(n_batches), idx, masks))
    return state, {"risk": jnp.mean(risks), "corrections": jnp.mean(corrected.astype(risks.dtype))}


def _stream_epoch(cfg, state, X, s, prior, n_valid, n_batches=None):
    """One epoch of ``batching="stream"``: the updates whose first row lies in epoch ``state["epoch"]`` of the row
    stream (each epoch a fresh order of the ``n_valid`` rows; a minibatch that runs past the epoch's end continues in
    the next epoch's order, as Chainer's ``SerialIterator``). A ``lax.while_loop`` over ``b = min(batch_size, n)``-row
    updates; the history averages over them."""
    size = X.shape[0]
    slots = min(cfg.batch_size, size)
    b = jnp.minimum(cfg.batch_size, n_valid).astype(jnp.int32)
    key, k_drop = jax.random.split(state["key"])
    e = state["epoch"]
    cur = _row_order(jax.random.fold_in(state["order_key"], e), size, n_valid)
    nxt = _row_order(jax.random.fold_in(state["order_key"], e + 1), size, n_valid)
    j = jnp.arange(slots, dtype=jnp.int32)
    mask = j < b

    def body(carry):
        st, off, i, risk_sum, corr_sum = carry
        pos = off + j  # < 2 n_valid: b <= n_valid and off < n_valid
        idx = jnp.where(pos < n_valid, cur[jnp.minimum(pos, size - 1)], nxt[jnp.clip(pos - n_valid, 0, size - 1)])
        st, aux = train_step(cfg, st, take_rows(X, idx), jnp.take(s, idx, axis=0), prior,
                             jax.random.fold_in(k_drop, i), mask)
        return st, off + b, i + 1, risk_sum + aux["risk"], corr_sum + aux["corrected"].astype(risk_sum.dtype)

    zero = jnp.zeros((), X.dtype if jnp.issubdtype(X.dtype, jnp.floating) else jnp.float32)
    init = (state, state["offset"], jnp.zeros((), jnp.int32), zero, zero)
    state, off, i, risk_sum, corr_sum = jax.lax.while_loop(lambda c: c[1] < n_valid, body, init)
    state = {**state, "key": key, "offset": off - n_valid}
    return state, {"risk": risk_sum / i, "corrections": corr_sum / i}


# ------------------------------------------------------------------------------------ compiled entry points

def _train_fn(cfg, n_epochs, n_batches, many):
    """``train`` (``many=""``) / ``fit_many`` (``many="_many"``): the program ``init*`` then ``epochs*``."""

    def run(key, X, s, prior, X_eval, y_eval, n_valid, val):
        init = _get_compiled("init" + many + ("_val" if val is not None else ""), cfg, 0)
        epochs = _get_compiled("epochs" + many, cfg, n_epochs, n_batches)
        return epochs(init(key, X), X, s, prior, X_eval, y_eval, n_valid, val)

    return run


def _get_compiled(kind, cfg, n_epochs, n_batches=1):
    """The jit-compiled program ``kind`` (``*_many``: ``vmap``-ped over seeds). ``init[_many][_val]``: ``(key, X)`` ->
    initial state (``_val``: with the model selection's entries; role ``"setup"``: it runs once per fit);
    ``epochs[_many]``: ``(state, X, s, prior, X_eval, y_eval, n_valid,
    val)`` -> ``(state, history)`` (``X`` padded by :func:`pad_for_training`, ``n_batches = static_batches(cfg,
    n_valid)``, ``val`` from :func:`~pujax.neural.selection.held_out_rows` or None); ``train`` / ``fit_many``:
    ``(key, X, s, prior, X_eval, y_eval, n_valid, val)``, the two in turn; ``scores_many``: ``(variables, X)``."""
    many = "_many" in kind  # fit_many, init_many[_val], epochs_many, scores_many

    def seeds(f, n_shared):  # vmap over the first argument (keys or states) for the *_many kinds
        return jax.vmap(f, in_axes=(0,) + (None,) * n_shared) if many else f

    if kind in ("train", "fit_many"):
        return _train_fn(cfg, n_epochs, n_batches, "_many" if many else "")
    if kind in ("init", "init_val", "init_many", "init_many_val"):
        validate = kind.endswith("_val")
        return cached(kind, cfg, 0, lambda name: jit(
            "setup", seeds(lambda k, X: init_state(k, X, cfg, validate), 1), name=name))
    if kind in ("epochs", "epochs_many"):
        return cached(kind, cfg, n_epochs, lambda name: jit("heavy", seeds(
            lambda st, X, s, p, Xe, ye, nv, val: run_epochs(cfg, st, X, s, p, n_epochs, Xe, ye, nv, n_batches, val),
            7), name=name), n_batches)
    if kind == "scores_many":  # depends on the module only: share it between risks and optimiser settings
        cfg = TrainConfig(module=cfg.module, eval_chunk=cfg.eval_chunk)
        return cached(kind, cfg, 0, lambda name: jit("heavy", seeds(lambda v, X: predict_scores(cfg, v, X), 1),
                                                      name=name))
    raise ValueError(kind)  # pragma: no cover


def run_seeds(kind, cfg, n_epochs, keys, X, s, prior, X_eval=None, y_eval=None, devices=None, val=None):
    """Run the vmapped ``kind`` program (``"fit_many"``) with the seeds split over ``devices``.

    ``X``, ``s`` are padded to a size bucket here (:func:`pad_for_training`); ``val``: held-out rows of
    :func:`pujax.neural.selection.held_out_rows` for the model selection (or None). One device: the program as is
    (one seed: the program without the seed ``vmap``).
    Several: the seed axis is padded to a multiple of the device count (extra keys are dropped afterwards), sharded
    over a mesh (:mod:`pujax.devices`), the data replicated; every seed is trained on one device with the same
    program, so results equal the one-device run up to float rounding. Returns host (numpy) pytrees
    ``(state, history)`` with a leading seed axis.
    """
    X, s, n_valid = pad_for_training(cfg, X, s)
    n_batches = static_batches(cfg, n_valid)
    fn = _get_compiled(kind, cfg, n_epochs, n_batches)
    single = _get_compiled("train", cfg, n_epochs, n_batches) if kind == "fit_many" else None
    return shard_seeds(fn, keys, (X, s, prior, X_eval, y_eval, np.int32(n_valid), val), devices, single)


def _prepare(X, s, prior, risk, X_eval, y_eval):
    X = check_X(X)
    if risk == "pn":
        s = check_pu_labels(s, name="s", n_samples=X.shape[0])  # true labels: both classes needed
        prior = 0.5 if prior is None else prior
    else:
        s = check_pu_labels(s, name="s", n_samples=X.shape[0])
    prior = check_prior(prior, allow_auto=False)
    if (X_eval is None) != (y_eval is None):
        raise ValueError("pass both X_eval and y_eval (or neither).")
    if X_eval is not None:
        X_eval = check_X(X_eval, name="X_eval")
        if X_eval.shape[1] != X.shape[1]:
            raise ValueError(f"X_eval has {X_eval.shape[1]} features but X has {X.shape[1]}.")
        y_eval = check_pu_labels(y_eval, name="y_eval", n_samples=X_eval.shape[0], require_both=False)
        X_eval, y_eval = jax.device_put(X_eval), jax.device_put(y_eval)
    return X, s, np.asarray(prior, X.dtype), X_eval, y_eval


def _config_from(X, model, kwargs):
    return make_config(model=model, n_features=int(X.shape[1]), **kwargs)


def train(key: jax.Array | int, X: ArrayLike, s: ArrayLike, prior: float, *, model: str | nn.Module = "mlp",
          risk: str = "nnpu", loss: str = "sigmoid", beta: float = 0.0, gamma: float = 1.0, epochs: int = 100,
          batch_size: int = 30000, learning_rate: float = 1e-3, weight_decay: float = 5e-3,
          model_kwargs: dict | None = None, X_eval: ArrayLike | None = None,
          y_eval: ArrayLike | None = None, batching: str = "epoch",
          validation_fraction: float = 0.0) -> tuple[dict, dict]:
    """Train one model with the nnPU (default), uPU or PN rule (two jit-compiled programs: initial state, epochs).

    Parameters
    ----------
    key : JAX PRNG key or int
        Converted with :func:`pujax.random.as_key`; sets the initialisation and the minibatch order.
    X : array-like of shape (n, d)
        Features of the P and U rows (images flattened, pixels / 255).
    s : array-like of shape (n,)
        PU labels (1 = labeled positive, 0 = unlabeled); for ``risk="pn"`` the true labels.
    prior : float
        Class prior pi = P(y = 1) of the unlabeled data (case-control scenario); ignored for ``risk="pn"``.
    model, model_kwargs : str or flax.linen.Module, dict or None
        ``"linear"``, ``"mlp"`` (Kiryo et al.'s d-300-300-300-300-1), ``"cnn"`` (13-layer all-conv net) or a
        ``flax.linen.Module`` instance, and its options; see :func:`pujax.neural.models.make_model`.
    risk, loss, beta, gamma, epochs, batch_size, learning_rate, weight_decay : str, str, float, float, int, int, \
float, float
        The training rule (module docstring).
    batching : {"epoch", "stream"}
        The minibatch layout (module docstring).
    X_eval, y_eval : array-like or None
        Optional test set with true labels for the per-epoch ``"test_error"`` history.
    validation_fraction : float in [0, 1), default=0.0
        Share of the labeled positives and of the unlabeled rows held out for model selection
        (:mod:`pujax.neural.selection`, split seeded by ``key``): the model is trained on the rest and the returned
        variables are those of the epoch with the lowest held-out risk (:func:`validation_risk`). 0: the last
        epoch's variables, every row trained on.

    Returns
    -------
    variables : dict
        ``{"params": ..., "batch_stats": ...}`` (nested dicts of arrays).
    history : dict
        The per-epoch history of :func:`run_epochs`; with model selection also ``"best_epoch"`` (0-based).
    """
    epochs = check_int(epochs, "epochs")
    X, s, prior, X_eval, y_eval = _prepare(X, s, prior, risk, X_eval, y_eval)
    cfg = _config_from(X, model, dict(risk=risk, loss=loss, beta=beta, gamma=gamma, batch_size=batch_size,
                                      learning_rate=learning_rate, weight_decay=weight_decay,
                                      model_kwargs=model_kwargs, batching=batching))
    key = as_key(key)
    X, s, val = held_out_rows(X, s, validation_fraction, key)
    X, s, n_valid = pad_for_training(cfg, X, s)
    run = _get_compiled("train", cfg, epochs, static_batches(cfg, n_valid))
    state, hist = run(key, X, s, prior, X_eval, y_eval, np.int32(n_valid), val)
    return final_variables(state), _with_best_epoch(state, hist)


def _with_best_epoch(state, hist):
    return {**hist, "best_epoch": state["best_epoch"]} if "best_epoch" in state else hist


def fit_many(keys: jax.Array, X: ArrayLike, s: ArrayLike, prior: float, *, model: str | nn.Module = "mlp",
             risk: str = "nnpu", loss: str = "sigmoid", beta: float = 0.0, gamma: float = 1.0, epochs: int = 100,
             batch_size: int = 30000, learning_rate: float = 1e-3, weight_decay: float = 5e-3,
             model_kwargs: dict | None = None, X_eval: ArrayLike | None = None, y_eval: ArrayLike | None = None,
             devices: DevicesLike = None, batching: str = "epoch", validation_fraction: float = 0.0,
             validation_key: Any = None) -> tuple[dict, dict]:
    """:func:`train` ``vmap``-ped over a batch of PRNG keys: N seeds in one compiled epochs program.

    ``fit_many(keys, ...)`` equals ``[train(k, ...) for k in keys]`` stacked (up to float rounding).

    Parameters
    ----------
    keys : array of N PRNG keys or int
        ``jax.random.split(key, N)``, or an int N (the keys ``jax.random.split(PRNGKey(0), N)``).
    X, s, prior, model, risk, loss, beta, gamma, epochs, batch_size, learning_rate, weight_decay, model_kwargs, \
X_eval, y_eval, batching, validation_fraction
        As in :func:`train`.
    validation_key : int, JAX key or None, default=None
        Seeds the held-out rows (shared by all seeds); None: the first of ``keys``.
    devices : None, int, list of jax.Device or jax.sharding.Mesh, default=None
        Where the seeds run (:mod:`pujax.devices`; None = every device): they are split over the devices
        (:func:`run_seeds`).

    Returns
    -------
    variables, history : dict
        As in :func:`train`, every leaf with a leading seed axis of length N.
    """
    if isinstance(keys, (int, np.integer)) and not isinstance(keys, bool):
        keys = jax.random.split(jax.random.PRNGKey(0), check_int(int(keys), "keys"))
    keys = jnp.asarray(keys)
    if keys.ndim != 2 and not jax.dtypes.issubdtype(keys.dtype, jax.dtypes.prng_key):
        raise ValueError(f"keys must be a batch of PRNG keys (e.g. jax.random.split(key, n)); got shape {keys.shape}.")
    epochs = check_int(epochs, "epochs")
    X, s, prior, X_eval, y_eval = _prepare(X, s, prior, risk, X_eval, y_eval)
    cfg = _config_from(X, model, dict(risk=risk, loss=loss, beta=beta, gamma=gamma, batch_size=batch_size,
                                      learning_rate=learning_rate, weight_decay=weight_decay,
                                      model_kwargs=model_kwargs, batching=batching))
    X, s, val = held_out_rows(X, s, validation_fraction, first_key(keys) if validation_key is None else validation_key)
    state, hist = run_seeds("fit_many", cfg, epochs, keys, X, s, prior, X_eval, y_eval, devices, val)
    return final_variables(state), _with_best_epoch(state, hist)
