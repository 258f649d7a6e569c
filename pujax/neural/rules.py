r"""Training rules: how a deep PU method plugs into the shared training engine (:mod:`pujax.neural.engine`).

A rule is a frozen (hashable) dataclass whose fields are the method's hyper-parameters. The engine owns the
network, the optimiser (Adam with coupled weight decay, :func:`pujax.neural.config.make_optimizer`), the minibatch
layout (each epoch a shuffle of the P and U rows dealt into equal minibatches, :mod:`pujax.neural.train`), the seeds
(``vmap``), the devices and the model selection; the rule says what a step minimises and what it keeps between steps:

* :meth:`Rule.objective` -- the loss of one minibatch (:class:`Batch`: the network's scores of its rows in training
  mode, the rows, their PU labels and weights, their per-row state, a function for further forward passes, e.g. of
  mixed rows) -> :class:`Step`;
* :meth:`Rule.stages` -- the epochs split into stages (warm-up, then the method's main stage, ...): stage ``k`` is
  compiled with ``stage=k`` static, so a stage runs only its own loss;
* per-row state ``aux`` (``aux_width`` columns: pseudo-labels, sample weights, an earlier network's outputs, ...) and
  per-seed state ``extra`` (running averages, a teacher network), set by :meth:`Rule.begin_stage` /
  :meth:`Rule.begin_epoch` (with the network's evaluation-mode scores of every training row, :class:`Context`) or by
  the step itself;
* :meth:`Rule.stage_lr` -- the step size of a stage, as a multiple of ``learning_rate``;
* :meth:`Rule.decision` and :meth:`Rule.threshold` -- the classifier's decision value from the network output (a row
  is positive where ``decision(g) > threshold``; the threshold is fitted on the training rows at the end).

The model selection (``selection="proxy_accuracy"`` or ``"proxy_auc"``, :mod:`pujax.neural.selection`) scores the
decision on the held-out rows after every epoch of the stages that :meth:`Rule.selected` names (by default the last).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["Rule", "Batch", "Step", "Context", "weighted_quantile"]


class Batch(NamedTuple):
    """One minibatch as a rule's :meth:`Rule.objective` sees it (inside ``jax.grad``; shapes static)."""

    g: jax.Array          # (b,) or (b, heads): network outputs of the rows, training mode
    x: jax.Array          # (b, d...): the rows, dense
    s: jax.Array          # (b,) float: 1 labeled positive, 0 unlabeled
    w: jax.Array          # (b,) float: 1 for a row, 0 for an empty slot of the minibatch
    idx: jax.Array        # (b,) int: the rows' indices in the training matrix
    aux: jax.Array        # (b, aux_width): the rows' per-row state
    prior: jax.Array      # class prior (0-d)
    key: jax.Array        # PRNG key of this step
    extra: dict           # the per-seed state
    epoch: jax.Array      # global epoch index (0-d int)
    forward: Callable     # forward(x, mask=None) -> outputs of more rows, training mode (same parameters)
    rows: Callable        # rows(idx) -> dense rows of the training matrix
    predict: Callable     # predict(variables, x) -> outputs in evaluation mode (e.g. of a teacher network)


class Step(NamedTuple):
    """What :meth:`Rule.objective` returns: the loss whose gradient is the step, a value to log (per-epoch mean in
    the history's ``"loss"``), and optionally the new per-seed state and new per-row state of the batch's rows."""

    loss: jax.Array
    value: jax.Array
    extra: dict | None = None
    aux: jax.Array | None = None


class Context(NamedTuple):
    """What the stage / epoch hooks see (inside the compiled program)."""

    X: Any                # training rows (padded; dense array or SparseRows)
    s: jax.Array          # (N,) float PU labels (0 on padding rows)
    valid: jax.Array      # (N,) float: 1 for a training row, 0 for padding
    prior: jax.Array
    scores: Callable      # scores(variables) -> evaluation-mode outputs of every training row, (N,) or (N, heads)
    predict: Callable     # predict(variables, X) -> evaluation-mode outputs of other rows (e.g. the held-out ones)
    fresh: Callable       # fresh(key) -> {"variables", "opt_state"}: a newly initialised network and optimiser
    val: tuple | None     # held-out (X_val, s_val, w_val) or None
    n_epochs: int         # epochs of the whole run (static)


@dataclasses.dataclass(frozen=True)
class Rule:
    """Base class of a training rule (see the module docstring); subclasses are frozen dataclasses."""

    aux_width = 0          # columns of the per-row state
    heads = 1              # network outputs per row (a :class:`pujax.neural.models.Heads` module when > 1)
    needs_prior = True     # whether the rule reads the class prior

    def stages(self, n_epochs: int) -> tuple[int, ...]:
        """Epochs of every stage (static ints summing to ``n_epochs``); one stage by default."""
        return (n_epochs,)

    def selected(self, stage: int, n_stages: int) -> bool:
        """Whether the model selection considers the epochs of ``stage`` (the last stage by default)."""
        return stage == n_stages - 1

    def stage_lr(self, stage: int) -> float:
        """Step size of ``stage`` as a multiple of the configured learning rate."""
        return 1.0

    def init_extra(self, variables: dict, dtype) -> dict:
        """The per-seed state at the start of training."""
        return {}

    def init_aux(self, ctx: Context) -> jax.Array:
        """The per-row state at the start of training, shape ``(N, aux_width)``."""
        return jnp.zeros((ctx.s.shape[0], self.aux_width), ctx.s.dtype)

    def begin_stage(self, stage: int, state: dict, ctx: Context) -> dict:
        """The training state at the start of ``stage`` (identity by default)."""
        return state

    def begin_epoch(self, stage: int, state: dict, ctx: Context) -> dict:
        """The training state at the start of every epoch of ``stage`` (identity by default)."""
        return state

    def objective(self, stage: int, batch: Batch) -> Step:
        """The loss of one minibatch in ``stage``."""
        raise NotImplementedError

    def decision(self, g: jax.Array) -> jax.Array:
        """Decision value of network outputs ``g`` (greater: more positive); the outputs themselves by default."""
        return g

    def threshold(self, d: jax.Array, u_weight: jax.Array, prior: jax.Array) -> jax.Array:
        """Threshold on the decision values ``d`` of rows weighted ``u_weight`` (unlabeled rows); 0 by default."""
        return jnp.zeros((), d.dtype)


def weighted_quantile(values: jax.Array, weights: jax.Array, q: jax.Array) -> jax.Array:
    """The ``q``-quantile of ``values`` under non-negative ``weights``: the smallest value whose cumulative weight
    share reaches ``q`` (jit / vmap-able; ``q`` in [0, 1])."""
    order = jnp.argsort(values)
    v, w = values[order], weights[order]
    cum = jnp.cumsum(w) / jnp.maximum(jnp.sum(w), jnp.finfo(w.dtype).tiny)
    k = jnp.clip(jnp.searchsorted(cum, q, side="left"), 0, values.shape[0] - 1)
    return v[k]
