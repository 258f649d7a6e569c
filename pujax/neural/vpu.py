r"""Variational PU learning (VPU) of Chen et al. (NeurIPS 2020): a deep PU learner that needs no class prior.

The model is :math:`\Phi(x) = \sigma(g(x)) \in (0, 1)` for a network score :math:`g`, handled as
:math:`\log\Phi = \log\sigma(g)` throughout. On every minibatch of labeled positives :math:`x_p` and unlabeled rows
:math:`x_u` (the same number :math:`b` of each) the training objective is

.. math::  L = \underbrace{\log \tfrac{1}{b}\textstyle\sum_u \Phi(x_u) - \tfrac{1}{b}\sum_p \log\Phi(x_p)}_{L_{var}}
           + \lambda\, \tfrac{1}{b}\textstyle\sum_i \big(\log\tilde y_i - \log\Phi(\tilde x_i)\big)^2,

with :math:`L_{var}` computed as ``logsumexp(log_phi_u) - log b - mean(log_phi_p)`` and the MixUp regulariser on
:math:`\tilde x_i = \gamma x_{p,i} + (1 - \gamma) x_{u,i}`, :math:`\tilde y_i = \gamma + (1 - \gamma)\Phi(x_{u,i})`
(held constant: ``stop_gradient``), one :math:`\gamma \sim \mathrm{Beta}(\alpha, \alpha)` per minibatch (drawn on the
host from the run's key, :func:`mixup_gammas`).
:math:`\log\tilde y` is ``logaddexp(log gamma, log(1 - gamma) + log_phi_u)``, finite for :math:`\gamma \in [0, 1]`.

Minibatches. An epoch shuffles U and cuts it into ``k = ceil(n_u / batch_size)`` equal batches of ``b`` rows
(:func:`pujax.neural.train.batch_layout`), or, with ``steps_per_epoch``, takes that many batches of ``batch_size``
rows from a fresh shuffle of U (the authors' epochs of 30 iterations); each is paired with ``b`` labeled positives
taken in order from a stream of shuffles of P (wrap-around, as the authors' cycling P loader). With
``lr_halving_epochs = m`` the step size is halved after every ``m`` epochs (the authors: 20; their code also
restarts Adam's moments then, which is not done here). Optimiser: Adam with the authors' moments
``b1 = 0.5, b2 = 0.99`` and a constant step size. Both forward passes of a step run the model in training mode
(BatchNorm statistics are updated by the P ∪ U batch, then by the mixed batch).

Decision rules. The variational loss does not change when :math:`\Phi` is scaled, and its minimiser is
:math:`\Phi \propto p(x \mid y = 1) / p(x) = P(y = 1 \mid x) / \pi`. Hence
:math:`E_U[\Phi] / E_P[\Phi] = \pi / E_{x \sim p(x|y=1)}[P(y=1 \mid x)]`, the class prior when the labeled positives
are certain positives (an upper bound otherwise), estimated as
:math:`\hat\pi = \min(1, \mathrm{mean}_u \Phi(x_u) / \mathrm{mean}_p \Phi(x_p))` over the held-out unlabeled and
positive rows (the training ones without model selection). ``"prior"``: a row is positive iff
:math:`\log\Phi(x) > t`, with :math:`t` the :math:`(1 - \hat\pi)`-quantile of :math:`\log\Phi` over all unlabeled
rows, held-out and training (linear interpolation; more rows than the held-out ones alone, whose quantile is coarse
on small data), so that a share :math:`\hat\pi` of them is called positive; decision value
:math:`\log\Phi(x) - t`. ``"half"`` (the authors' evaluation): :math:`\Phi` is normalised by its maximum over the
training rows, :math:`\log\Phi_{max} = \max_i \log\Phi(x_i)` (evaluation mode), and a row is positive iff
:math:`\Phi(x) / \Phi_{max} > 1/2`; decision value :math:`\log\Phi(x) - \log\Phi_{max} + \log 2`. (Under
irreducibility :math:`\mathrm{mean}_u \Phi / \Phi_{max}` also estimates :math:`\pi`; it depends on one extreme row and
underestimates :math:`\pi` on MNIST, ``benchmarks/results/vpu.md``.)

Differences from the authors' code (github.com/HC-Feynman/vpu, ``vpu.py``): U is the rows with ``s = 0`` (the
estimators' case-control convention; their U loader holds every training image); an epoch is one pass over U
unless ``steps_per_epoch`` is set, and the step-size halving is off by default; the MixUp target is held constant
(their target keeps its gradient). :math:`\gamma` weights the positive side here and the unlabeled side there, the
same distribution since Beta(α, α) is symmetric.

Model selection (the authors' ``run_vpu``; :mod:`pujax.neural.selection`): with ``validation_fraction > 0`` a
stratified share of the P rows and of the U rows is held out (drawn on the host from the run's key), the model trains
on the rest, and after every epoch the variational loss :math:`L_{var}` of the held-out rows (model in evaluation
mode, no MixUp; their ``cal_val_kl``) is computed inside the compiled program; the carry of the epoch ``lax.scan``
keeps the variables of the epoch with the lowest held-out loss (the first on ties) and that epoch's index, and those
variables are the fitted model. The authors hold out 500 images per class of the 60,000 FashionMNIST training
images (1/12).
"""
from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

from pujax._compile import jit
from pujax.devices import shard_seeds
from pujax.neural.config import _check_float, batch_layout
from pujax.neural.forward import apply_model as _apply
from pujax.neural.forward import predict_scores
from pujax.neural.models import accepts_train, make_model
from pujax.neural.programs import cached
from pujax.neural.selection import first_key, init_best, keep_best, selection_loss, validation_split
from pujax.random import as_key
from pujax.validation import check_in, check_int, check_pu_labels, check_X

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike
    from pujax._typing import RandomStateLike as KeyLike

__all__ = [
    "VPUConfig",
    "VPUModel",
    "make_vpu_config",
    "variational_loss",
    "mixup_log_target",
    "vpu_loss",
    "vpu_train_step",
    "mixup_gammas",
    "n_steps_per_epoch",
    "validation_loss",
    "vpu_fit",
    "vpu_fit_many",
    "vpu_decision",
    "prior_threshold",
]


@dataclasses.dataclass(frozen=True)
class VPUConfig:
    """Static (hashable) description of a VPU training run; build it with :func:`make_vpu_config`."""

    module: nn.Module
    alpha: float = 0.3
    mixup_weight: float = 0.03
    batch_size: int = 500
    learning_rate: float = 3e-4
    eval_chunk: int = 4096
    steps_per_epoch: int | None = None
    lr_halving_epochs: int | None = None
    selection: str = "loss"


class VPUModel(NamedTuple):
    """A fitted VPU model: flax ``variables``, the maximum of :math:`\\log\\Phi` over the training rows, the prior
    estimate :math:`\\hat\\pi` and the :math:`\\log\\Phi` threshold :math:`t` of the ``"prior"`` rule."""

    variables: dict
    log_phi_max: jax.Array
    prior: jax.Array
    log_phi_threshold: jax.Array


def make_vpu_config(model: str | nn.Module = "mlp", alpha: float = 0.3, mixup_weight: float = 0.03,
                    batch_size: int = 500, learning_rate: float = 3e-4, model_kwargs: dict | None = None,
                    n_features: int | None = None, eval_chunk: int = 4096, steps_per_epoch: int | None = None,
                    lr_halving_epochs: int | None = None, selection: str = "loss") -> VPUConfig:
    """Validate the hyper-parameters (``alpha > 0``, ``mixup_weight >= 0``, ``learning_rate > 0``,
    ``batch_size >= 1``, ``steps_per_epoch`` and ``lr_halving_epochs`` None or >= 1, ``selection`` in ``"loss"``,
    ``"proxy_accuracy"``, ``"proxy_auc"``) and return a :class:`VPUConfig`; ``model`` as
    :func:`pujax.neural.models.make_model`."""
    check_in(selection, "selection", ("loss", "proxy_accuracy", "proxy_auc"))
    alpha = _check_float(alpha, "alpha")
    if alpha <= 0:
        raise ValueError(f"alpha={alpha!r} must be > 0 (the Beta(alpha, alpha) law of the MixUp weight).")
    mixup_weight = _check_float(mixup_weight, "mixup_weight", low=0.0)
    learning_rate = _check_float(learning_rate, "learning_rate")
    if learning_rate <= 0:
        raise ValueError(f"learning_rate={learning_rate!r} must be > 0.")
    if model_kwargs is not None and not isinstance(model_kwargs, dict):
        raise TypeError(f"model_kwargs must be a dict or None; got {type(model_kwargs).__name__}.")
    module = make_model(model, n_features=n_features, **dict(model_kwargs or {}))
    return VPUConfig(module=module, alpha=alpha, mixup_weight=mixup_weight,
                     batch_size=check_int(batch_size, "batch_size"), learning_rate=learning_rate,
                     eval_chunk=check_int(eval_chunk, "eval_chunk"),
                     steps_per_epoch=check_int(steps_per_epoch, "steps_per_epoch", allow_none=True),
                     lr_halving_epochs=check_int(lr_halving_epochs, "lr_halving_epochs", allow_none=True),
                     selection=selection)


# ------------------------------------------------------------------------------------------------ objective


def variational_loss(log_phi_p: jax.Array, log_phi_u: jax.Array) -> jax.Array:
    r""":math:`\log \frac{1}{n_u}\sum_u \Phi(x_u) - \frac{1}{n_p}\sum_p \log\Phi(x_p)` from the log-values."""
    n_u = log_phi_u.shape[0]
    return jax.nn.logsumexp(log_phi_u) - math.log(n_u) - jnp.mean(log_phi_p)


def mixup_log_target(log_phi_u: jax.Array, gamma: float | jax.Array) -> jax.Array:
    r""":math:`\log(\gamma + (1 - \gamma)\Phi(x_u))` for :math:`\gamma \in [0, 1]`, held constant (stop_gradient)."""
    gamma = jnp.asarray(gamma, log_phi_u.dtype)
    target = jnp.logaddexp(jnp.log(gamma), jnp.log1p(-gamma) + log_phi_u)
    return jax.lax.stop_gradient(target)


def vpu_loss(log_phi_p: jax.Array, log_phi_u: jax.Array, log_phi_mix: jax.Array, gamma: float | jax.Array,
             mixup_weight: float | jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    r"""The VPU objective :math:`L_{var} + \lambda\,\mathrm{mean}((\log\tilde y - \log\Phi(\tilde x))^2)`.

    Parameters
    ----------
    log_phi_p, log_phi_u : arrays of shape (b_p,) and (b,)
        :math:`\log\Phi` of the labeled positives and of the unlabeled rows of the minibatch.
    log_phi_mix : array of shape (b,)
        :math:`\log\Phi(\tilde x)` of the mixed rows :math:`\gamma x_p + (1 - \gamma) x_u`.
    gamma : float in [0, 1]
        The MixUp weight of the positive side.
    mixup_weight : float
        :math:`\lambda`.

    Returns
    -------
    (loss, variational, mixup) : three scalars
        The objective and its two terms (``mixup`` unweighted).
    """
    var = variational_loss(log_phi_p, log_phi_u)
    reg = jnp.mean((mixup_log_target(log_phi_u, gamma) - log_phi_mix) ** 2)
    return var + mixup_weight * reg, var, reg


# ------------------------------------------------------------------------------------------------ training


def _optimizer(cfg: VPUConfig) -> optax.GradientTransformation:
    return optax.adam(cfg.learning_rate, b1=0.5, b2=0.99)


def _init(key, X, cfg: VPUConfig, validate: bool = False):
    """Initial state; with ``validate`` also the best-so-far variables, held-out loss and epoch, and an epoch
    counter (the carry of the model selection)."""
    k_init, k_train = jax.random.split(key)
    x0 = jnp.zeros((1,) + tuple(X.shape[1:]), X.dtype)
    variables = dict(cfg.module.init({"params": k_init, "dropout": k_init}, x0, **_train_kw(cfg, False)))
    state = {"variables": variables, "opt_state": _optimizer(cfg).init(variables["params"]), "key": k_train,
             "epoch": jnp.zeros((), jnp.int32)}
    if validate:
        state.update(init_best(variables, X.dtype))
    return state


def _train_kw(cfg, train):
    return {"train": train} if accepts_train(cfg.module) else {}


def vpu_train_step(cfg: VPUConfig, state: dict, xp: jax.Array, xu: jax.Array, gamma: float | jax.Array,
                   key: jax.Array, lr_scale: float | jax.Array | None = None) -> tuple[dict, dict]:
    """One Adam step on the VPU objective for a minibatch ``xp`` (positives) and ``xu`` (unlabeled) of the same
    length, mixed with weight ``gamma`` on the positive side; ``lr_scale`` multiplies the step size. Returns
    ``(new_state, aux)`` with ``aux = {"loss", "variational", "mixup"}``."""
    k_drop1, k_drop2 = jax.random.split(key)
    gamma = jnp.asarray(gamma, xp.dtype)
    x_mix = gamma * xp + (1.0 - gamma) * xu
    variables = state["variables"]
    others = {k: v for k, v in variables.items() if k != "params"}
    b_p = xp.shape[0]

    def f(params):
        g, new = _apply(cfg, {"params": params, **others}, jnp.concatenate([xp, xu]), True, k_drop1)
        g_mix, new = _apply(cfg, {"params": params, **others, **new}, x_mix, True, k_drop2)
        log_phi = jax.nn.log_sigmoid(g)
        loss, var, reg = vpu_loss(log_phi[:b_p], log_phi[b_p:], jax.nn.log_sigmoid(g_mix), gamma, cfg.mixup_weight)
        return loss, (new, {"loss": loss, "variational": var, "mixup": reg})

    grads, (new, aux) = jax.grad(f, has_aux=True)(variables["params"])
    updates, opt_state = _optimizer(cfg).update(grads, state["opt_state"], variables["params"])
    if lr_scale is not None:  # Adam's step is proportional to its step size
        updates = jax.tree.map(lambda u: u * jnp.asarray(lr_scale, u.dtype), updates)
    params = optax.apply_updates(variables["params"], updates)
    return {"variables": {**variables, **new, "params": params}, "opt_state": opt_state, "key": state["key"]}, aux


def _epoch_indices(key, n_p, n_u, batch_size, n_steps=None):
    """U indices ``(k, b)`` (one shuffled pass, padded from a second shuffle; with ``n_steps``: the first
    ``n_steps`` batches of ``batch_size`` rows of a fresh shuffle, continued by further shuffles when one is too
    short) and P indices ``(k, b)`` (a shuffle of P, repeated cyclically as often as needed)."""
    k_u, k_fill, k_p = jax.random.split(key, 3)
    if n_steps is None:
        k, b, pad = batch_layout(n_u, batch_size)
        idx_u = jax.random.permutation(k_u, n_u)
        if pad:
            idx_u = jnp.concatenate([idx_u, jax.random.permutation(k_fill, n_u)[:pad]])
    else:
        k, b = n_steps, batch_size
        n_perm = -(-k * b // n_u)
        perms = jax.vmap(lambda kk: jax.random.permutation(kk, n_u))(jax.random.split(k_u, n_perm))
        idx_u = perms.reshape(-1)[: k * b]
    idx_p = jax.random.permutation(k_p, n_p)[jnp.arange(k * b) % n_p]
    return idx_u.reshape(k, b), idx_p.reshape(k, b)


def n_steps_per_epoch(n_unlabeled: int, batch_size: int, steps_per_epoch: int | None = None) -> int:
    """Minibatches per epoch: ``steps_per_epoch``, or ``ceil(n_unlabeled / batch_size)`` (one pass over U)."""
    return batch_layout(n_unlabeled, batch_size)[0] if steps_per_epoch is None else int(steps_per_epoch)


def mixup_gammas(keys: jax.Array, alpha: float, n_epochs: int, n_steps: int) -> np.ndarray:
    """MixUp weights ``gamma ~ Beta(alpha, alpha)``, shape ``(n_keys, n_epochs, n_steps)`` float32, drawn on the host
    (numpy) from a generator seeded with each JAX key's bits, so they are a pure function of the keys."""
    keys = jnp.asarray(keys)
    if jax.dtypes.issubdtype(keys.dtype, jax.dtypes.prng_key):
        keys = jax.random.key_data(keys)
    words = np.asarray(keys, np.uint32).reshape(keys.shape[0], -1)
    out = [np.random.default_rng([*w.tolist(), 0x565055]).beta(alpha, alpha, (n_epochs, n_steps)) for w in words]
    return np.clip(np.asarray(out, np.float32).reshape(len(words), n_epochs, n_steps), 0.0, 1.0)


def validation_loss(cfg: VPUConfig, variables: dict, Xp_val: jax.Array, Xu_val: jax.Array) -> jax.Array:
    r"""The variational loss :math:`L_{var}` of held-out positives ``Xp_val`` and unlabeled rows ``Xu_val``, model in
    evaluation mode, no MixUp (the authors' validation KL, ``cal_val_kl``)."""
    lp = jax.nn.log_sigmoid(predict_scores(cfg, variables, Xp_val))
    return variational_loss(lp, jax.nn.log_sigmoid(predict_scores(cfg, variables, Xu_val)))


def _select(cfg: VPUConfig, state, val, e):
    r"""Score epoch ``e``, just trained, on the held-out rows ``val = (Xp_val, Xu_val)`` and keep it if its value is
    the lowest so far (:func:`pujax.neural.selection.keep_best`): the variational loss (``selection="loss"``) or
    minus the proxy accuracy / AUC of the ``"prior"`` decision rule on the held-out rows
    (:func:`pujax.neural.selection.selection_loss`; :math:`\hat\pi` and the threshold from those rows)."""
    if cfg.selection == "loss":
        v = validation_loss(cfg, state["variables"], *val)
        return keep_best(state, v, e), v
    lp, lu = (jax.nn.log_sigmoid(predict_scores(cfg, state["variables"], A)) for A in val)
    prior, t = prior_threshold(lp, lu)
    d = jnp.concatenate([lp, lu]) - t
    s_val = jnp.concatenate([jnp.ones(lp.shape, jnp.int32), jnp.zeros(lu.shape, jnp.int32)])
    v = selection_loss(cfg.selection, d, s_val, jnp.ones_like(d), prior)
    return keep_best(state, v, e), v


def _run_epochs(cfg: VPUConfig, state, gammas, Xp, Xu, val=None):
    """``len(gammas)`` epochs from ``state`` (pure; jit / vmap); ``gammas`` ``(n_epochs, n_steps)`` are the MixUp
    weights; the history holds the per-epoch mean of each loss term and, with held-out rows ``val``, their loss
    ``"validation"`` (the state then carries the best epoch, :func:`_select`)."""

    def epoch(state, gam):
        key, k_idx, k_step = jax.random.split(state["key"], 3)
        idx_u, idx_p = _epoch_indices(k_idx, Xp.shape[0], Xu.shape[0], cfg.batch_size, cfg.steps_per_epoch)
        e = state["epoch"]
        scale = None if cfg.lr_halving_epochs is None else 0.5 ** (e // cfg.lr_halving_epochs).astype(jnp.float32)

        def step(carry, inp):
            i, iu, ip, gamma = inp
            return vpu_train_step(cfg, carry, jnp.take(Xp, ip, axis=0), jnp.take(Xu, iu, axis=0), gamma,
                                  jax.random.fold_in(k_step, i), scale)

        train = {"variables": state["variables"], "opt_state": state["opt_state"], "key": key}
        train, aux = jax.lax.scan(step, train, (jnp.arange(idx_u.shape[0]), idx_u, idx_p, gam))
        state, hist = {**state, **train}, jax.tree.map(jnp.mean, aux)
        if val is not None:
            state, hist["validation"] = _select(cfg, state, val, e)
        return {**state, "epoch": e + 1}, hist

    return jax.lax.scan(epoch, state, gammas)


def _finish(cfg: VPUConfig, state, Xp, Xu, val=None) -> VPUModel:
    r"""The model: the selected (else the last) variables, :math:`\max_i \log\Phi(x_i)` over the training rows
    ``Xp`` ∪ ``Xu`` (evaluation mode), and :func:`prior_threshold`: the prior estimated on the held-out rows
    ``val = (Xp_val, Xu_val)`` (None: on ``Xp`` and ``Xu``), the threshold over all unlabeled rows."""
    variables = state.get("best_variables", state["variables"])
    lp, lu = (jax.nn.log_sigmoid(predict_scores(cfg, variables, A)) for A in (Xp, Xu))
    log_phi_max = jnp.maximum(jnp.max(lp), jnp.max(lu))
    if val is None:
        return VPUModel(variables, log_phi_max, *prior_threshold(lp, lu))
    lp_val, lu_val = (jax.nn.log_sigmoid(predict_scores(cfg, variables, A)) for A in val)
    return VPUModel(variables, log_phi_max, *prior_threshold(lp_val, lu_val, jnp.concatenate([lu, lu_val])))


def prior_threshold(log_phi_p: jax.Array, log_phi_u: jax.Array,
                    log_phi_cut: jax.Array | None = None) -> tuple[jax.Array, jax.Array]:
    r"""The prior estimate :math:`\hat\pi = \min(1, \mathrm{mean}_u \Phi / \mathrm{mean}_p \Phi)` of ``log_phi_p``
    and ``log_phi_u`` (in log space) and the threshold :math:`t`, the :math:`(1 - \hat\pi)`-quantile of
    ``log_phi_cut`` (default ``log_phi_u``; linear interpolation), above which a share :math:`\hat\pi` of those
    rows lies."""
    log_ratio = (jax.nn.logsumexp(log_phi_u) - math.log(log_phi_u.shape[0])
                 - jax.nn.logsumexp(log_phi_p) + math.log(log_phi_p.shape[0]))
    prior = jnp.exp(jnp.minimum(log_ratio, 0.0))
    return prior, jnp.quantile(log_phi_u if log_phi_cut is None else log_phi_cut, 1.0 - prior)


def _parts(X, p_idx, u_idx, pv_idx, uv_idx):
    val = None if pv_idx is None else (jnp.take(X, pv_idx, axis=0), jnp.take(X, uv_idx, axis=0))
    return jnp.take(X, p_idx, axis=0), jnp.take(X, u_idx, axis=0), val


def _train(cfg: VPUConfig):
    def run(state, gammas, X, p_idx, u_idx, pv_idx, uv_idx):
        Xp, Xu, val = _parts(X, p_idx, u_idx, pv_idx, uv_idx)
        state, hist = _run_epochs(cfg, state, gammas, Xp, Xu, val)
        if val is not None:
            hist["best_epoch"] = state["best_epoch"]
        return _finish(cfg, state, Xp, Xu, val), hist

    return run


def _fit(cfg: VPUConfig, one: str):
    """``fit`` (``one=""``) / ``fit_one`` (``one="_one"``): the program ``init*`` then ``train*``."""

    def run(seed, X, p_idx, u_idx, pv_idx, uv_idx):
        key, gammas = seed
        init = _compiled(("init" if pv_idx is None else "init_val") + one, cfg)
        return _compiled("train" + one, cfg)(init(key, X), gammas, X, p_idx, u_idx, pv_idx, uv_idx)

    return run


_DATA_AXES = (None, None, None, None, None)


def _compiled(kind: str, cfg: VPUConfig):
    """jit-compiled programs, seed-``vmap``-ped (``*_one``: one seed without the seed axis, shard_seeds'
    ``single``); the data are ``(X, p_idx, u_idx, pv_idx, uv_idx)`` (the held-out indices None without model
    selection). ``init[_val][_one]``: ``(key, X)`` -> initial state (role ``"setup"``: it runs once per fit);
    ``train[_one]``: ``(state, gammas, *data)`` -> ``(model,
    history)``; ``fit[_one]``: ``((key, gammas), *data)``, the two in turn; ``epochs`` and ``finish`` for an epoch
    loop (shapes, hence the number of epochs, are set by the arguments)."""
    seeds = (lambda f, axes: f) if kind.endswith("_one") else (lambda f, axes: jax.vmap(f, in_axes=axes))
    if kind in ("fit", "fit_one"):
        return _fit(cfg, kind[3:])
    if kind in ("init", "init_val", "init_one", "init_val_one"):
        validate = kind.startswith("init_val")
        return cached("vpu_" + kind, cfg, 0, lambda name: jit(
            "setup", seeds(lambda k, X: _init(k, X, cfg, validate), (0, None)), name=name))
    if kind in ("train", "train_one"):
        return cached("vpu_" + kind, cfg, 0, lambda name: jit("heavy", seeds(_train(cfg), (0, 0, *_DATA_AXES)),
                                                                name=name))
    if kind == "epochs":
        def run(state, gammas, *data):
            return _run_epochs(cfg, state, gammas, *_parts(*data))

        return cached("vpu_epochs", cfg, 0, lambda name: jit("heavy", jax.vmap(run, in_axes=(0, 0, *_DATA_AXES)),
                                                               name=name))
    if kind == "finish":
        return cached("vpu_finish", cfg, 0, lambda name: jit("heavy", jax.vmap(
            lambda st, *data: _finish(cfg, st, *_parts(*data)), in_axes=(0, *_DATA_AXES)), name=name))
    raise ValueError(kind)  # pragma: no cover


def _prepare(X, s, fraction, key):
    """``(X, p_train, u_train, p_val, u_val)`` on the device (held-out indices None when ``fraction = 0``)."""
    X = check_X(X)
    s = check_pu_labels(s, name="s", n_samples=X.shape[0])
    parts = validation_split(key, s, fraction)
    return (jax.device_put(X), *(None if a is None else jax.device_put(a) for a in parts))


def vpu_fit_many(keys: jax.Array | int, X: ArrayLike, s: ArrayLike, *, model: str | nn.Module = "mlp",
                 alpha: float = 0.3, mixup_weight: float = 0.03, epochs: int = 50, batch_size: int = 500,
                 learning_rate: float = 3e-4, model_kwargs: dict | None = None, validation_fraction: float = 0.0,
                 validation_key: KeyLike = None, steps_per_epoch: int | None = None,
                 lr_halving_epochs: int | None = None, selection: str = "loss",
                 devices: DevicesLike = None) -> tuple[VPUModel, dict]:
    """Train one VPU model per PRNG key as one ``vmap``-ped program; no class prior is used.

    Parameters
    ----------
    keys : array of N PRNG keys or int N
        ``jax.random.split(key, N)``; an int N means ``jax.random.split(PRNGKey(0), N)``.
    X : array of shape (n, d)
        Training rows (P ∪ U), float32 (the estimator standardises them first).
    s : array of shape (n,)
        1 for labeled positives, 0 for unlabeled rows.
    model, model_kwargs, alpha, mixup_weight, epochs, batch_size, learning_rate, validation_fraction, \
steps_per_epoch, lr_halving_epochs, selection
        See :class:`pujax.neural.VPUClassifier`.
    validation_key : int, generator, JAX key or None
        Seeds the held-out rows (:func:`~pujax.neural.selection.validation_split`, shared by all seeds); None: the
        first of ``keys``.
    devices : None, int, sequence of jax.Device or Mesh
        Where the seeds train (:func:`pujax.devices.shard_seeds`).

    Returns
    -------
    (model, history) : (VPUModel, dict)
        Fields and per-epoch ``"loss"``, ``"variational"``, ``"mixup"`` arrays with a leading seed axis of length N;
        with ``validation_fraction > 0`` also the per-epoch held-out loss ``"validation"`` and the selected epoch
        ``"best_epoch"`` (0-based, shape (N,)), whose variables the model holds.
    """
    if isinstance(keys, (int, np.integer)) and not isinstance(keys, bool):
        keys = jax.random.split(jax.random.PRNGKey(0), check_int(int(keys), "keys"))
    keys = jnp.asarray(keys)
    data = _prepare(X, s, validation_fraction, first_key(keys) if validation_key is None else validation_key)
    cfg = make_vpu_config(model, alpha, mixup_weight, batch_size, learning_rate, model_kwargs, int(data[0].shape[1]),
                          steps_per_epoch=steps_per_epoch, lr_halving_epochs=lr_halving_epochs, selection=selection)
    gammas = mixup_gammas(keys, cfg.alpha, check_int(epochs, "epochs"),
                          n_steps_per_epoch(len(data[2]), cfg.batch_size, cfg.steps_per_epoch))
    model_, hist = shard_seeds(_compiled("fit", cfg), (keys, gammas), data, devices, _compiled("fit_one", cfg))
    return VPUModel(*model_), hist


def vpu_fit(key: KeyLike, X: ArrayLike, s: ArrayLike, **kwargs: Any) -> tuple[VPUModel, dict]:
    """:func:`vpu_fit_many` for one PRNG key (int, numpy generator or JAX key): ``(VPUModel, history)``
    without the seed axis."""
    model, hist = vpu_fit_many(as_key(key)[None], X, s, **kwargs)
    return jax.tree.map(lambda a: a[0], (model, hist))


def vpu_decision(cfg: VPUConfig, model: VPUModel, X: ArrayLike, threshold: str = "prior") -> jax.Array:
    r"""Decision values of one model (> 0: positive): :math:`\log\Phi(x) - t` (``threshold="prior"``) or
    :math:`\log\Phi(x) - \log\Phi_{max} + \log 2` (``"half"``, the authors' rule)."""
    log_phi = jax.nn.log_sigmoid(predict_scores(cfg, model.variables, jnp.asarray(X)))
    if threshold == "half":
        return log_phi - model.log_phi_max + math.log(2.0)
    if threshold == "prior":
        return log_phi - model.log_phi_threshold
    raise ValueError(f"threshold={threshold!r} is not valid; choose 'prior' or 'half'.")
