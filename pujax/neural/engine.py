r"""The training engine of the rule-based deep PU methods (:mod:`pujax.neural.rules`).

One run is one pure function of a PRNG key (jit-compiled once, ``vmap``-ped over seeds by
:mod:`pujax.neural.train`'s program builder): the state of :func:`pujax.neural.train.init_state`, then every stage
of the rule in turn, each a ``lax.scan`` over its epochs, each epoch a ``lax.scan`` over minibatches. An epoch
shuffles the P and U rows and deals them into equal minibatches (the layout of :mod:`pujax.neural.train`,
``batching="epoch"``); a step takes the gradient of the rule's loss with respect to the network parameters,
updates the BatchNorm statistics of every training-mode forward pass of the step, and moves the parameters by Adam
with coupled weight decay, its step scaled by the stage's :meth:`~pujax.neural.rules.Rule.stage_lr` (the moments of
Adam are those of :func:`pujax.neural.config.make_optimizer`; a rule may reset them at a stage). The per-row state
(``aux``) and per-seed state (``extra``) ride in the scan's carry.

Model selection (:mod:`pujax.neural.selection`): with held-out rows, after every epoch of a selected stage the
decision values of the held-out rows (evaluation mode, the rule's threshold fitted on the held-out unlabeled rows)
give the proxy accuracy or proxy AUC, and the carry keeps the variables of the best epoch. At the end the rule's
threshold is fitted on the training rows with the kept variables (``state["threshold"]``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import optax

from pujax.neural.batching import epoch_batches
from pujax.neural.config import make_optimizer
from pujax.neural.forward import apply_model, predict_scores
from pujax.neural.rows import take_rows
from pujax.neural.rules import Batch, Context
from pujax.neural.selection import keep_best, selection_loss

if TYPE_CHECKING:
    from pujax.neural.config import TrainConfig

__all__ = ["run_rule_epochs", "rule_step", "epoch_offsets"]


def epoch_offsets(lengths: tuple[int, ...]) -> tuple[int, ...]:
    """The global epoch at which every stage starts."""
    out, acc = [], 0
    for n in lengths:
        out.append(acc)
        acc += n
    return tuple(out)


def _float(x):
    return x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.float32


def rule_step(cfg: TrainConfig, stage: int, state: dict, X: Any, s: jax.Array, prior: jax.Array, idx: jax.Array,
              mask: jax.Array, key: jax.Array, predict: Any) -> tuple[dict, jax.Array]:
    """One optimiser step of ``cfg.rule`` in ``stage`` on the rows ``idx`` (``mask``: the slots that hold a row).
    Returns ``(new_state, logged value)``."""
    rule = cfg.rule
    variables = state["variables"]
    others = {k: v for k, v in variables.items() if k != "params"}
    xb = take_rows(X, idx)
    dt = _float(xb)
    wb = mask.astype(dt)
    sb = jnp.take(s, idx).astype(dt)
    aux_b = jnp.take(state["aux"], idx, axis=0)

    def f(params):
        collections, calls = dict(others), [0]

        def forward(x, m=None):
            calls[0] += 1
            g, new = apply_model(cfg, {"params": params, **collections}, x, True, jax.random.fold_in(key, calls[0]), m)
            collections.update(new)
            return g

        g = forward(xb, mask)
        batch = Batch(g, xb, sb, wb, idx, aux_b, prior, jax.random.fold_in(key, 0), state["extra"], state["epoch"],
                      forward, lambda i: take_rows(X, i), predict)
        out = rule.objective(stage, batch)
        return out.loss, (collections, out)

    grads, (new, out) = jax.grad(f, has_aux=True)(variables["params"])
    updates, opt_state = make_optimizer(cfg).update(grads, state["opt_state"], variables["params"])
    scale = rule.stage_lr(stage)
    if scale != 1.0:  # Adam's step is proportional to its step size
        updates = jax.tree.map(lambda u: u * jnp.asarray(scale, u.dtype), updates)
    params = optax.apply_updates(variables["params"], updates)
    new_state = {**state, "variables": {**variables, **new, "params": params}, "opt_state": opt_state}
    if out.extra is not None:
        new_state["extra"] = out.extra
    if out.aux is not None:  # empty slots write nowhere (index N is dropped)
        where = jnp.where(mask, idx, state["aux"].shape[0])
        new_state["aux"] = state["aux"].at[where].set(out.aux.astype(state["aux"].dtype), mode="drop")
    return new_state, out.value


def _epoch(cfg, stage, state, X, s, prior, n_valid, n_batches, predict):
    """One epoch of ``stage``: a shuffle of the ``n_valid`` rows in ``n_batches`` minibatches, a scan of steps."""
    size = X.shape[0]
    key, k_perm, k_step = jax.random.split(state["key"], 3)
    state = {**state, "key": key}
    if n_batches == 1:
        idx, masks = jnp.arange(size)[None], (jnp.arange(size) < n_valid)[None]
    else:
        idx, masks = epoch_batches(k_perm, size, n_valid, n_batches)

    def step(carry, inp):
        i, batch_idx, mask = inp
        return rule_step(cfg, stage, carry, X, s, prior, batch_idx, mask, jax.random.fold_in(k_step, i), predict)

    state, values = jax.lax.scan(step, state, (jnp.arange(idx.shape[0]), idx, masks))
    return state, jnp.mean(values)


def _held_out_decision(cfg, variables, val, prior, predict):
    """Decision values of the held-out rows minus the rule's threshold fitted on the held-out unlabeled rows."""
    rule = cfg.rule
    X_val, s_val, w_val = val
    d = rule.decision(predict(variables, X_val))
    u_weight = (1.0 - s_val.astype(d.dtype)) * w_val
    return d - rule.threshold(d, u_weight, prior)


def _context(cfg, X, s, prior, n_valid, val, n_epochs, fresh):
    dt = _float(X)
    valid = (jnp.arange(X.shape[0]) < n_valid).astype(dt)

    def predict(v, A):
        return predict_scores(cfg, v, A)

    def fresh_network(key):
        st = fresh(key)
        return {"variables": st["variables"], "opt_state": st["opt_state"]}

    return Context(X, s.astype(dt) * valid, valid, prior, lambda v: predict(v, X), predict, fresh_network, val,
                   n_epochs)


def run_rule_epochs(cfg: TrainConfig, state: dict, X: Any, s: jax.Array, prior: Any, n_epochs: int,
                    n_valid: Any = None, n_batches: int | None = None, val: tuple | None = None,
                    fresh: Any = None) -> tuple[dict, dict]:
    """Train ``cfg.rule`` for ``n_epochs`` epochs from ``state`` (pure; jit / vmap-able): every stage in turn.

    ``fresh(key)`` gives a newly initialised training state (:func:`pujax.neural.train.init_state`; for the rules
    that restart the network at a stage). Returns the
    final state (with ``"aux"``, ``"extra"``, ``"threshold"`` and, with held-out rows ``val``, the selection's
    ``"best_*"`` entries) and the history: per-epoch ``"loss"`` and, with ``val``, ``"validation"`` (the selection
    criterion to minimise; NaN in epochs outside the selected stages).
    """
    rule = cfg.rule
    n_valid = X.shape[0] if n_valid is None else n_valid
    prior = jnp.asarray(prior, _float(X))
    ctx = _context(cfg, X, s, prior, n_valid, val, n_epochs, fresh)
    state = {**state, "aux": rule.init_aux(ctx), "extra": rule.init_extra(state["variables"], _float(X))}
    lengths = rule.stages(n_epochs)
    starts = epoch_offsets(lengths)
    chosen = [k for k, n in enumerate(lengths) if n > 0 and rule.selected(k, len(lengths))]
    first = starts[chosen[0]] if chosen else 0
    hists = []
    for k, length in enumerate(lengths):
        if length == 0:
            continue
        state = rule.begin_stage(k, state, ctx)
        use_val = val is not None and k in chosen

        def epoch(st, _, k=k, use_val=use_val):
            e = st["epoch"]
            st = rule.begin_epoch(k, st, ctx)
            selection = {name: st[name] for name in ("best_variables", "best_loss", "best_epoch") if name in st}
            train = {name: v for name, v in st.items() if name not in selection}
            train, value = _epoch(cfg, k, train, X, s, prior, n_valid, n_batches, ctx.predict)
            st = {**train, **selection, "epoch": e + 1}
            hist = {"loss": value}
            if val is not None:
                hist["validation"] = jnp.full((), jnp.nan, value.dtype)
            if use_val:
                d = _held_out_decision(cfg, st["variables"], val, prior, ctx.predict)
                hist["validation"] = selection_loss(cfg.selection, d, val[1], val[2], prior)
                st = keep_best(st, hist["validation"], e, first=first)
            return st, hist

        state, hist = jax.lax.scan(epoch, state, None, length=length)
        hists.append(hist)
    hist = {name: jnp.concatenate([h[name] for h in hists]) for name in hists[0]}
    variables = state.get("best_variables", state["variables"])
    d = rule.decision(ctx.scores(variables))
    state["threshold"] = rule.threshold(d, (1.0 - ctx.s) * ctx.valid, prior)
    return state, hist
