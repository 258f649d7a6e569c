r"""Risk-based deep PU methods as training rules (:mod:`pujax.neural.rules`): PUSB, PUbN, Dist-PU, PULDA, Count Loss
and PUe. Their losses are in :mod:`pujax.neural.losses`; their estimators in :mod:`pujax.neural.deep_risk`.

Choices where the papers leave room are stated in each rule's docstring.
"""
from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from pujax.neural.losses import (
    binary_entropy,
    count_loss,
    label_distribution_loss,
    lda_loss,
    masked_mean,
    mixup_bce,
    pubn_risk,
    two_way_loss,
)
from pujax.neural.rules import Batch, Context, Rule, Step, weighted_quantile
from pujax.risk import nnpu_objective

__all__ = ["PUSBRule", "PUbNRule", "DistPURule", "PULDARule", "CountLossRule", "PUeRule", "mix_batch", "split_epochs",
           "pseudo_labels"]


def split_epochs(first: int, n_epochs: int) -> tuple[int, int]:
    """``(first, n_epochs - first)`` for a two-stage rule; ``first`` must leave at least one epoch."""
    if not 0 <= first < n_epochs:
        raise ValueError(f"the first stage has {first} epochs but the run has {n_epochs}: pass more epochs or fewer "
                         f"warm-up / pre-training epochs.")
    return first, n_epochs - first


def mix_batch(batch: Batch, alpha: float, targets: jax.Array) -> tuple[jax.Array, ...]:
    r"""Mixup within a minibatch (Zhang et al., ICLR 2018): :math:`\lambda \sim \mathrm{Beta}(\alpha, \alpha)`, a
    random permutation ``perm`` of the slots; returns ``(x_mix, y_a, y_b, lam, weight)`` with
    :math:`x_{mix} = \lambda x + (1 - \lambda) x_{perm}`, the two targets, and the weight of each mixed row (both
    sources must be rows)."""
    k_lam, k_perm = jax.random.split(batch.key)
    lam = jax.random.beta(k_lam, alpha, alpha).astype(batch.x.dtype)
    perm = jax.random.permutation(k_perm, batch.x.shape[0])
    x_mix = lam * batch.x + (1.0 - lam) * batch.x[perm]
    return x_mix, targets, targets[perm], lam, batch.w * batch.w[perm]


def pseudo_labels(state: dict, ctx: Context) -> dict:
    r"""``state`` with the per-row pseudo-labels ``aux[:, 0]``: 1 for a labeled row, the network's
    :math:`\sigma(g)` (evaluation mode) for an unlabeled one."""
    p = jax.nn.sigmoid(ctx.scores(state["variables"]))
    return {**state, "aux": jnp.where(ctx.s > 0, 1.0, p)[:, None]}


def _fresh(state: dict, ctx: Context, salt: int) -> dict:
    """``state`` with a newly initialised network and optimiser (the key folded with ``salt``)."""
    return {**state, **ctx.fresh(jax.random.fold_in(state["key"], salt))}


@dataclasses.dataclass(frozen=True)
class PUSBRule(Rule):
    r"""PUSB / nnPUSB (Kato, Teshima & Honda, ICLR 2019): train the network with the nnPU rule (Kiryo et al.
    2017, Algorithm 1) and a strictly proper loss (the logistic loss by default), so that its score preserves the
    order of :math:`P(y = 1 \mid x)` even under a selection bias of the labeled positives (the paper's
    invariance-of-order assumption); then classify by the threshold :math:`\theta_\pi` that calls a share
    :math:`\pi` of the unlabeled training rows positive (the paper's thresholding by the class prior)."""

    loss: str = "logistic"
    beta: float = 0.0
    gamma: float = 1.0

    def objective(self, stage: int, batch: Batch) -> Step:
        surrogate, value = nnpu_objective(batch.g, batch.s, batch.prior, self.loss, self.beta, self.gamma, batch.w)
        return Step(surrogate, value)

    def threshold(self, d, u_weight, prior):
        return weighted_quantile(d, u_weight, 1.0 - prior)


@dataclasses.dataclass(frozen=True)
class PUbNRule(Rule):
    r"""PUbN without biased negatives (Hsieh, Niu & Sugiyama, ICML 2019; the "PUbN\N" variant of its PU
    experiments). Stage 1 (``pretrain_epochs``): nnPU with the logistic loss, whose :math:`\sigma(g)` estimates
    :math:`\hat\sigma(x) = P(y = 1 \mid x)`. Stage 2: a freshly initialised network minimises
    :func:`pujax.neural.losses.pubn_risk` with :math:`\hat\sigma` of every training row frozen and :math:`\eta`
    chosen so that :math:`\#\{x \in U: \hat\sigma(x) > \eta\} = \tau \pi n_U` (the paper's choice of
    :math:`\eta` with :math:`\rho = 0`)."""

    pretrain_epochs: int = 10
    tau: float = 0.5
    loss: str = "sigmoid"
    beta: float = 0.0
    gamma: float = 1.0
    aux_width = 1

    def stages(self, n_epochs):
        return split_epochs(self.pretrain_epochs, n_epochs)

    def init_extra(self, variables, dtype):
        return {"eta": jnp.zeros((), dtype)}

    def begin_stage(self, stage, state, ctx):
        if stage == 0:
            return state
        sigma = jax.nn.sigmoid(ctx.scores(state["variables"]))
        eta = weighted_quantile(sigma, (1.0 - ctx.s) * ctx.valid, 1.0 - self.tau * ctx.prior)
        return {**_fresh(state, ctx, 1), "aux": sigma[:, None], "extra": {"eta": eta}}

    def objective(self, stage, batch):
        if stage == 0:
            surrogate, value = nnpu_objective(batch.g, batch.s, batch.prior, "logistic", self.beta, self.gamma,
                                              batch.w)
            return Step(surrogate, value)
        risk = pubn_risk(batch.g, batch.s, batch.w, batch.aux[:, 0], batch.extra["eta"], batch.prior, self.loss)
        return Step(risk, risk)


@dataclasses.dataclass(frozen=True)
class DistPURule(Rule):
    r"""Dist-PU (Zhao, Xu, Jiang, Wen & Huang, CVPR 2022). Stage 1 (``warmup_epochs``): the label-distribution
    loss :func:`pujax.neural.losses.label_distribution_loss`. Stage 2 (step size ``mixup_lr_factor`` times
    ``learning_rate``): that loss plus entropy minimisation on the unlabeled rows, ramped up as
    :math:`w_{ent}(1 - \cos(t \pi / 2))` over the stage's progress :math:`t`, plus mixup of the minibatch with
    itself (Beta(``alpha``, ``alpha``)) against pseudo-labels -- 1 for labeled rows, :math:`\sigma(g)` for
    unlabeled ones, set from the warm-up network and refreshed with every step's predictions -- with the mixup
    cross-entropy (weight ``mixup_weight``) and the entropy of the mixed predictions (``mixup_entropy_weight``).
    Soft pseudo-labels and the weights follow the PU benchmarks' configurations (Wang et al. 2026)."""

    warmup_epochs: int = 20
    alpha: float = 6.0
    entropy_weight: float = 0.004
    mixup_weight: float = 5.0
    mixup_entropy_weight: float = 0.04
    mixup_lr_factor: float = 1.0
    aux_width = 1

    def stages(self, n_epochs):
        return split_epochs(self.warmup_epochs, n_epochs)

    def selected(self, stage, n_stages):
        return True

    def stage_lr(self, stage):
        return 1.0 if stage == 0 else self.mixup_lr_factor

    def init_extra(self, variables, dtype):
        return {"t": jnp.zeros((), dtype)}

    def begin_stage(self, stage, state, ctx):
        return state if stage == 0 else pseudo_labels(state, ctx)

    def begin_epoch(self, stage, state, ctx):
        if stage == 0:
            return state
        t = (state["epoch"] - self.warmup_epochs).astype(ctx.s.dtype) / max(ctx.n_epochs - self.warmup_epochs, 1)
        return {**state, "extra": {"t": t}}

    def objective(self, stage, batch):
        g, s, w = batch.g, batch.s, batch.w
        dist = label_distribution_loss(g, s, w, batch.prior)
        if stage == 0:
            return Step(dist, dist)
        x_mix, y_a, y_b, lam, w_mix = mix_batch(batch, self.alpha, batch.aux[:, 0])
        g_mix = batch.forward(x_mix)
        ramp = 1.0 - jnp.cos(batch.extra["t"] * (math.pi / 2))
        loss = (dist + self.entropy_weight * ramp * masked_mean(binary_entropy(g), (1.0 - s) * w)
                + self.mixup_entropy_weight * masked_mean(binary_entropy(g_mix), w_mix)
                + self.mixup_weight * mixup_bce(g_mix, y_a, y_b, lam, w_mix))
        pseudo = jnp.where(s > 0, 1.0, jax.lax.stop_gradient(jax.nn.sigmoid(g)))
        return Step(loss, loss, aux=pseudo[:, None])


@dataclasses.dataclass(frozen=True)
class PULDARule(Rule):
    r"""PULDA, PU learning with label distribution alignment (Jiang, Xu, Zhao, Yang, Wen, Cao & Huang, TPAMI 2023),
    Dist-PU's extension. Every step minimises :func:`pujax.neural.losses.lda_loss` (the alignment with a softplus
    distance at temperature ``tmpr`` and a moving average of the unlabeled rows' mean prediction, momentum ``alpha_u``)
    plus, with ``two_way``, :func:`pujax.neural.losses.two_way_loss` (``margin``, momentum ``alpha_cn``); the moving
    averages start at the first step's values. After ``warmup_epochs`` (step size ``warmup_lr_factor`` times
    ``learning_rate`` during them) the network is also trained with mixup (Beta(``alpha``, ``alpha``), weight
    ``mixup_weight``) against pseudo-labels as in :class:`DistPURule` (mixed scores clipped to [-10, 10]). Defaults: the
    authors' values as the PU benchmarks list them."""

    warmup_epochs: int = 20
    tmpr: float = 3.5
    alpha_u: float = 0.85
    alpha_cn: float = 0.5
    two_way: bool = True
    margin: float = 0.6
    mixup_weight: float = 4.2
    alpha: float = 11.0
    warmup_lr_factor: float = 1.0
    aux_width = 1

    def stages(self, n_epochs):
        return split_epochs(self.warmup_epochs, n_epochs)

    def selected(self, stage, n_stages):
        return True

    def stage_lr(self, stage):
        return self.warmup_lr_factor if stage == 0 else 1.0

    def init_extra(self, variables, dtype):
        zero = jnp.zeros((), dtype)
        return {"m_u": zero, "c_pn": zero, "c_un": zero, "started": jnp.zeros((), bool)}

    def begin_stage(self, stage, state, ctx):
        return state if stage == 0 else pseudo_labels(state, ctx)

    def _alignment(self, batch: Batch) -> tuple[jax.Array, dict]:
        g, s, w, prior, ex = batch.g, batch.s, batch.w, batch.prior, batch.extra
        first, m_u = lda_loss(g, s, w, prior, self.tmpr)
        later, m_u_avg = lda_loss(g, s, w, prior, self.tmpr, ex["m_u"], self.alpha_u)
        loss = jnp.where(ex["started"], later, first)
        new = {"m_u": jnp.where(ex["started"], m_u_avg, m_u), "c_pn": ex["c_pn"], "c_un": ex["c_un"],
               "started": jnp.ones((), bool)}
        if self.two_way:
            first, (c_pn, c_un) = two_way_loss(g, s, w, prior, self.margin)
            later, (a_pn, a_un) = two_way_loss(g, s, w, prior, self.margin, (ex["c_pn"], ex["c_un"]), self.alpha_cn)
            loss = loss + jnp.where(ex["started"], later, first)
            new["c_pn"] = jnp.where(ex["started"], a_pn, c_pn)
            new["c_un"] = jnp.where(ex["started"], a_un, c_un)
        return loss, jax.tree.map(jax.lax.stop_gradient, new)

    def objective(self, stage, batch):
        loss, extra = self._alignment(batch)
        if stage == 0:
            return Step(loss, loss, extra=extra)
        x_mix, y_a, y_b, lam, w_mix = mix_batch(batch, self.alpha, batch.aux[:, 0])
        g_mix = jnp.clip(batch.forward(x_mix), -10.0, 10.0)
        loss = loss + self.mixup_weight * mixup_bce(g_mix, y_a, y_b, lam, w_mix)
        pseudo = jnp.where(batch.s > 0, 1.0, jax.lax.stop_gradient(jax.nn.sigmoid(batch.g)))
        return Step(loss, loss, extra=extra, aux=pseudo[:, None])


@dataclasses.dataclass(frozen=True)
class CountLossRule(Rule):
    r"""Count Loss for PU learning (Shukla, Zeng, Ahmed & Van den Broeck, NeurIPS 2023): every step minimises
    :func:`pujax.neural.losses.count_loss` -- the labeled rows' cross-entropy plus the negative log-probability that
    exactly :math:`\mathrm{round}(\pi n_U)` of the minibatch's :math:`n_U` unlabeled rows are positive (exact
    dynamic programme over the minibatch)."""

    def objective(self, stage, batch):
        loss = count_loss(batch.g, batch.s, batch.w, batch.prior)
        return Step(loss, loss)


@dataclasses.dataclass(frozen=True)
class PUeRule(Rule):
    r"""PUe, biased PU learning enhanced by causal inference (Wang, Chen, Guo & Wang, NeurIPS 2023). Stage 1
    (``warmup_epochs``): a propensity network :math:`e(x)` is trained to tell labeled from unlabeled rows (the
    cross-entropy) with the regulariser :math:`\alpha\,|E[\sigma(e(x))] - E[s]|` (the predicted labeled share of the
    minibatch equals its labeled share; written per row rather than as the sum over the minibatch so that
    :math:`\alpha` does not depend on the batch size). Stage 2: a freshly initialised classifier minimises the nnPU
    objective (Kiryo et al. 2017, Algorithm 1; ``loss``, ``beta``, ``gamma``) in which the labeled rows are weighted
    by their normalised inverse propensity :math:`(1/e_i) / \sum_{j \in P} 1/e_j` (inverse-propensity weighting of
    the positive risks; propensities clipped to [1e-3, 1])."""

    warmup_epochs: int = 10
    alpha: float = 0.1
    loss: str = "sigmoid"
    beta: float = 0.0
    gamma: float = 1.0
    aux_width = 1

    def stages(self, n_epochs):
        return split_epochs(self.warmup_epochs, n_epochs)

    def begin_stage(self, stage, state, ctx):
        if stage == 0:
            return state
        e = jnp.clip(jax.nn.sigmoid(ctx.scores(state["variables"])), 1e-3, 1.0)
        return {**_fresh(state, ctx, 2), "aux": (1.0 / e)[:, None]}

    def objective(self, stage, batch):
        g, s, w = batch.g, batch.s, batch.w
        if stage == 0:
            bce = masked_mean(s * jax.nn.softplus(-g) + (1.0 - s) * jax.nn.softplus(g), w)
            loss = bce + self.alpha * jnp.abs(masked_mean(jax.nn.sigmoid(g), w) - masked_mean(s, w))
            return Step(loss, loss)
        weights = w * jnp.where(s > 0, batch.aux[:, 0], 1.0)
        surrogate, value = nnpu_objective(g, s, batch.prior, self.loss, self.beta, self.gamma, weights)
        return Step(surrogate, value)
