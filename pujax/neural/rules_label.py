r"""Disambiguation-based and SAR deep PU methods as training rules (:mod:`pujax.neural.rules`): CVIR, P3Mix-C /
P3Mix-E, Robust-PU, HolisticPU and LBE. They decide, row by row, which unlabeled rows to treat as negatives (or
with which weight or pseudo-label) and train a classifier on that; their losses are in :mod:`pujax.neural.losses`,
their estimators in :mod:`pujax.neural.deep_label`. Choices where the papers leave room are stated per rule.
"""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from pujax.neural.losses import (
    bce_logits,
    binary_entropy,
    cvir_loss,
    lbe_loss,
    lbe_posterior,
    masked_mean,
    natural_break,
    robust_pu_loss,
    self_paced_weights,
    trend_increment,
)
from pujax.neural.rules import Rule, Step, weighted_quantile
from pujax.neural.rules_risk import _fresh, split_epochs
from pujax.prior.bbe import bbe_from_scores
from pujax.risk import nnpu_objective

__all__ = ["CVIRRule", "P3MixRule", "RobustPURule", "HolisticPURule", "LBERule", "curriculum_threshold"]


def _pvu_loss(g, s, w):
    """Cross-entropy of labeled (1) versus unlabeled (0) rows: the P-vs-U (domain) classifier."""
    loss = masked_mean(bce_logits(g, s), w)
    return Step(loss, loss)


@dataclasses.dataclass(frozen=True)
class CVIRRule(Rule):
    r"""CVIR with BBE, the TED\ :sup:`n` procedure (Garg, Wu, Smola, Balakrishnan & Lipton, NeurIPS 2021: BBE, Algorithm
    1, alternating with CVIR training). Stage 1 (``warmup_epochs``): a P-vs-U classifier (the warm start). Stage 2:
    before every epoch the class prior :math:`\hat\alpha` is re-estimated by BBE
    (:func:`pujax.prior.bbe.bbe_from_scores`) on the network's scores of the held-out P and U rows (of the training rows
    without a held-out split), unless a prior is given (``estimate_prior=False``), and the share :math:`\hat\alpha` of
    the unlabeled training rows that the network scores highest is set aside for the epoch; the network minimises the
    logistic loss of the labeled rows as positives and the remaining unlabeled rows as negatives
    (:func:`pujax.neural.losses.cvir_loss`). ``extra["alpha"]`` holds the last estimate."""

    warmup_epochs: int = 5
    estimate_prior: bool = True
    delta: float = 0.1
    bbe_gamma: float = 0.01
    aux_width = 1

    def stages(self, n_epochs):
        return split_epochs(self.warmup_epochs, n_epochs)

    def init_extra(self, variables, dtype):
        return {"alpha": jnp.zeros((), dtype)}

    def init_aux(self, ctx):
        return jnp.ones((ctx.s.shape[0], 1), ctx.s.dtype)

    def _alpha(self, state, ctx):
        if not self.estimate_prior:
            return ctx.prior
        if ctx.val is None:
            scores, is_p, w = ctx.scores(state["variables"]), ctx.s, ctx.valid
        else:
            X_val, s_val, w_val = ctx.val
            scores = ctx.predict(state["variables"], X_val)
            is_p, w = s_val.astype(ctx.s.dtype), w_val
        return bbe_from_scores(scores, is_p, w, self.delta, self.bbe_gamma).astype(ctx.s.dtype)

    def begin_epoch(self, stage, state, ctx):
        if stage == 0:
            return state
        alpha = self._alpha(state, ctx)
        g = ctx.scores(state["variables"])
        cut = weighted_quantile(g, (1.0 - ctx.s) * ctx.valid, 1.0 - alpha)
        keep = jnp.where(alpha > 0, g <= cut, True).astype(ctx.s.dtype)
        return {**state, "aux": keep[:, None], "extra": {"alpha": alpha}}

    def objective(self, stage, batch):
        if stage == 0:
            return _pvu_loss(batch.g, batch.s, batch.w)
        loss = cvir_loss(batch.g, batch.s, batch.w, batch.aux[:, 0])
        return Step(loss, loss)


def curriculum_threshold(step: jax.Array, start: float, stop: float, grow_steps: int) -> jax.Array:
    """Robust-PU's linear training scheduler: ``start + (stop - start) * step / grow_steps``, held at ``stop``."""
    ratio = start + (stop - start) * step.astype(jnp.float32) / grow_steps
    return jnp.minimum(ratio, stop) if start < stop else jnp.maximum(ratio, stop)


@dataclasses.dataclass(frozen=True)
class RobustPURule(Rule):
    r"""Robust-PU, noise-negative self-correction by curriculum (Zhu, Wang, Zhao et al., KDD 2023). Stage 1
    (``pretrain_epochs``, step size ``pretrain_lr_factor`` times ``learning_rate``): nnPU with the logistic loss.
    Stage 2: every ``freq`` epochs the rows' weights are renewed from the network: the hardness of a labeled row
    is its logistic loss as a positive, of an unlabeled row its logistic loss as a negative, with temperatures
    ``temper_p`` / ``temper_n`` on the score, and the weight :math:`\exp(-h/\lambda^2)`
    (:func:`pujax.neural.losses.self_paced_weights`) under thresholds :math:`\lambda` that grow linearly from
    ``alpha_p`` / ``alpha_n`` to ``max_thresh_p`` / ``max_thresh_n`` over ``grow_steps`` renewals (the paper's
    linear training scheduler: hard rows enter the training later); the network minimises the weighted loss of the
    labeled rows as positives and the unlabeled rows as negatives (:func:`pujax.neural.losses.robust_pu_loss`).
    Defaults: Wang et al.'s benchmark configuration (2026)."""

    pretrain_epochs: int = 10
    freq: int = 5
    temper_p: float = 1.0
    temper_n: float = 1.3
    alpha_p: float = 0.1
    alpha_n: float = 0.11
    max_thresh_p: float = 1.0
    max_thresh_n: float = 1.0
    grow_steps: int = 5
    pretrain_lr_factor: float = 0.1
    aux_width = 1

    def stages(self, n_epochs):
        return split_epochs(self.pretrain_epochs, n_epochs)

    def selected(self, stage, n_stages):
        return True

    def stage_lr(self, stage):
        return self.pretrain_lr_factor if stage == 0 else 1.0

    def init_aux(self, ctx):
        return jnp.ones((ctx.s.shape[0], 1), ctx.s.dtype)

    def begin_epoch(self, stage, state, ctx):
        if stage == 0:
            return state
        rel = state["epoch"] - self.pretrain_epochs
        step = rel // self.freq
        g = ctx.scores(state["variables"])
        thr_p = curriculum_threshold(step, self.alpha_p, self.max_thresh_p, self.grow_steps)
        thr_n = curriculum_threshold(step, self.alpha_n, self.max_thresh_n, self.grow_steps)
        h = jnp.where(ctx.s > 0, jax.nn.softplus(-g / self.temper_p), jax.nn.softplus(g / self.temper_n))
        v = self_paced_weights(h, jnp.where(ctx.s > 0, thr_p, thr_n).astype(g.dtype))
        renew = rel % self.freq == 0
        return {**state, "aux": jnp.where(renew, v[:, None], state["aux"])}

    def objective(self, stage, batch):
        if stage == 0:
            surrogate, value = nnpu_objective(batch.g, batch.s, batch.prior, "logistic", 0.0, 1.0, batch.w)
            return Step(surrogate, value)
        loss = robust_pu_loss(batch.g, batch.s, batch.w, batch.aux[:, 0])
        return Step(loss, loss)


@dataclasses.dataclass(frozen=True)
class HolisticPURule(Rule):
    r"""HolisticPU, PU learning through holistic predictive trends (Wang, Wan, Geng, Li & Chen,
    NeurIPS 2023). Stage 1 (``warmup_epochs``): a classifier of labeled (label-smoothed targets
    :math:`1 - \rho/2`) versus unlabeled rows; after every epoch the predicted probability of every row is
    recorded and each unlabeled row's trend is the mean of :func:`pujax.neural.losses.trend_increment` over the
    epochs. The rows whose trend lies above the two-class natural break of the trends
    (:func:`pujax.neural.losses.natural_break`, the paper's Fisher / Jenks split) become pseudo-positives. Stage 2:
    a freshly initialised network learns the labeled rows as positives and the unlabeled rows with targets
    :math:`\lambda \cdot` pseudo-label, :math:`\lambda = t^{0.8}` growing with the stage's progress :math:`t`, plus
    (weight ``lambda_u``) FixMatch consistency: where the network is at least ``threshold`` confident on an unlabeled
    row, its rounded prediction is the target of a strongly perturbed copy (Gaussian noise ``strong_noise`` and
    feature dropout ``strong_dropout``; the PU-Bench augmentation of vector data). Not done here: the authors'
    resampling of positives, their EMA network for prediction and the three-sigma refinement of the break."""

    warmup_epochs: int = 10
    rho: float = 0.1
    threshold_confidence: float = 0.9
    lambda_u: float = 1.0
    strong_noise: float = 0.05
    strong_dropout: float = 0.05
    needs_prior = False
    aux_width = 3  # last predicted probability, sum of trend increments, pseudo-label

    def stages(self, n_epochs):
        return split_epochs(self.warmup_epochs, n_epochs)

    def init_extra(self, variables, dtype):
        return {"records": jnp.zeros((), jnp.int32), "t": jnp.zeros((), dtype)}

    def _record(self, state, ctx):
        p = jax.nn.sigmoid(ctx.scores(state["variables"]))
        aux, n = state["aux"], state["extra"]["records"]
        trend = aux[:, 1] + jnp.where(n > 0, trend_increment(aux[:, 0], p), 0.0)
        extra = {**state["extra"], "records": n + 1}
        return {**state, "aux": jnp.stack([p, trend, aux[:, 2]], axis=1), "extra": extra}

    def begin_epoch(self, stage, state, ctx):
        if stage == 0:
            return jax.lax.cond(state["epoch"] > 0, lambda st: self._record(st, ctx), lambda st: st, state)
        t = (state["epoch"] - self.warmup_epochs).astype(ctx.s.dtype) / max(ctx.n_epochs - self.warmup_epochs, 1)
        return {**state, "extra": {**state["extra"], "t": t}}

    def begin_stage(self, stage, state, ctx):
        if stage == 0:
            return state
        state = self._record(state, ctx)
        trend = state["aux"][:, 1] / jnp.maximum(state["extra"]["records"] - 1, 1).astype(ctx.s.dtype)
        u = (1.0 - ctx.s) * ctx.valid
        pseudo = ((trend > natural_break(trend, u)) & (u > 0)).astype(ctx.s.dtype)
        aux = state["aux"].at[:, 2].set(pseudo)
        return {**_fresh(state, ctx, 3), "aux": aux}

    def objective(self, stage, batch):
        g, s, w = batch.g, batch.s, batch.w
        if stage == 0:
            loss = masked_mean(bce_logits(g, 1.0 - self.rho / 2), s * w) + masked_mean(bce_logits(g, 0.0),
                                                                                        (1.0 - s) * w)
            return Step(loss, loss)
        lam = batch.extra["t"] ** 0.8
        u = (1.0 - s) * w
        sup = masked_mean(bce_logits(g, 1.0), s * w) + masked_mean(bce_logits(g, lam * batch.aux[:, 2]), u)
        k_noise, k_drop = jax.random.split(batch.key)
        x = batch.x + self.strong_noise * jax.random.normal(k_noise, batch.x.shape, batch.x.dtype)
        x = jnp.where(jax.random.bernoulli(k_drop, 1.0 - self.strong_dropout, x.shape), x, 0.0)
        p = jax.lax.stop_gradient(jax.nn.sigmoid(g))
        confident = (jnp.maximum(p, 1.0 - p) >= self.threshold_confidence).astype(g.dtype)
        consistency = masked_mean(confident * bce_logits(batch.forward(x), jnp.round(p)), u)
        loss = sup + self.lambda_u * consistency
        return Step(loss, loss)


@dataclasses.dataclass(frozen=True)
class LBERule(Rule):
    r"""LBE, instance-dependent PU learning with labeling bias estimation (Gong, Wang, Liu, Han, You, Yang & Tao,
    TPAMI 2021): two networks of the same architecture (:class:`pujax.neural.models.Heads`), the classifier
    :math:`f(x) = P(y = 1 \mid x)` (output 0) and the labeling bias :math:`\eta(x) = P(s = 1 \mid x, y = 1)`
    (output 1), fitted by EM. Stage 1 (``warmup_epochs``): the classifier learns labeled versus unlabeled rows, the
    two groups weighted equally (the authors' pre-training, which weights the labeled rows by the unlabeled share and
    the unlabeled rows by the labeled share). Stage 2 starts the labeling-bias network afresh; before every epoch the
    E-step computes every row's posterior :math:`P(y = 1 \mid x, s)` with the current networks
    (:func:`pujax.neural.losses.lbe_posterior`); the epoch's steps are the M-step on
    :func:`pujax.neural.losses.lbe_loss` with the classifier's term over the ``keep`` share of each minibatch's rows of
    smallest loss (the authors' small-loss selection, 0.8). Needs no class prior; a row is positive iff
    :math:`f(x) > 1/2`."""

    warmup_epochs: int = 10
    keep: float = 0.8
    aux_width = 1
    heads = 2
    needs_prior = False

    def stages(self, n_epochs):
        return split_epochs(self.warmup_epochs, n_epochs)

    def begin_stage(self, stage, state, ctx):
        if stage == 0:
            return state
        fresh = ctx.fresh(jax.random.fold_in(state["key"], 4))
        variables = {k: {**v, "net_1": fresh["variables"][k]["net_1"]} for k, v in state["variables"].items()}
        return {**state, "variables": variables, "opt_state": fresh["opt_state"]}

    def begin_epoch(self, stage, state, ctx):
        if stage == 0:
            return state
        g = ctx.scores(state["variables"])
        return {**state, "aux": lbe_posterior(g[:, 0], g[:, 1], ctx.s)[:, None]}

    def objective(self, stage, batch):
        g, s, w = batch.g, batch.s, batch.w
        if stage == 0:
            bce = bce_logits(g[:, 0], s)
            loss = 0.5 * (masked_mean(bce, s * w) + masked_mean(bce, (1.0 - s) * w))
            return Step(loss, loss)
        loss = lbe_loss(g[:, 0], g[:, 1], s, w, batch.aux[:, 0], self.keep)
        return Step(loss, loss)

    def decision(self, g):
        return g[..., 0]


@dataclasses.dataclass(frozen=True)
class P3MixRule(Rule):
    r"""P3Mix (Li, Li, Feng & Ouyang, ICLR 2022, "Who Is Your Right Mixup Partner in Positive and Unlabeled
    Learning"),
    ``variant="C"`` (P3Mix-C) or ``"E"`` (P3Mix-E). The unlabeled rows are taken as negatives and every step trains
    on mixed rows (:math:`\lambda \sim \mathrm{Beta}(\alpha, \alpha)`, :math:`\lambda \leftarrow \max(\lambda, 1 -
    \lambda)`): from epoch ``start_hmix`` on, an unlabeled row the network finds ambiguous
    (:math:`1 - \gamma < \sigma(g) < \gamma`) is mixed with a positive from the candidate set -- the ``top_k``
    labeled positives of highest predictive entropy, renewed every epoch -- with target 1; every other row with a
    random row of the minibatch and its target. Loss: cross-entropy of the mixed predictions (clipped to
    [1e-4, 1 - 1e-4]) averaged separately over the labeled and the unlabeled anchors (``positive_weight``,
    ``unlabeled_weight``), plus ``entropy_weight`` times their mean entropy. P3Mix-C corrects the targets: an
    unlabeled row with :math:`\sigma(g) \ge \gamma` gets target 1 (from ``start_hmix``). P3Mix-E adds the
    early-learning regulariser ``elr_weight`` :math:`\cdot E[\log(1 - \langle q, p\rangle)]` with :math:`q` the
    mixed predictions of a mean-teacher copy of the network (parameters averaged after every epoch with decay
    :math:`\min(1 - 1/(e + 1), d)`). Defaults: Wang et al.'s benchmark configuration (2026)."""

    variant: str = "C"
    start_hmix: int = 5
    gamma: float = 0.8
    alpha: float = 1.0
    top_k: int = 96
    positive_weight: float = 1.0
    unlabeled_weight: float = 1.0
    entropy_weight: float = 0.1
    elr_weight: float = 5.0
    ema_decay: float = 0.997
    needs_prior = False

    def init_extra(self, variables, dtype):
        extra = {"cand": jnp.zeros((self.top_k,), jnp.int32), "n_cand": jnp.ones((), jnp.int32)}
        if self.variant == "E":
            extra["teacher"] = variables
        return extra

    def begin_epoch(self, stage, state, ctx):
        g = ctx.scores(state["variables"])
        ent = jnp.where((ctx.s > 0) & (ctx.valid > 0), binary_entropy(g), -jnp.inf)
        k = min(self.top_k, ent.shape[0])
        _, cand = jax.lax.top_k(ent, k)
        cand = jnp.zeros((self.top_k,), jnp.int32).at[:k].set(cand.astype(jnp.int32))
        n_cand = jnp.clip(jnp.sum(ctx.s * ctx.valid), 1, k).astype(jnp.int32)
        extra = {**state["extra"], "cand": cand, "n_cand": n_cand}
        if self.variant == "E":
            e = state["epoch"].astype(g.dtype)
            a = jnp.minimum(1.0 - 1.0 / (e + 1.0), self.ema_decay)
            teacher = state["extra"]["teacher"]
            params = jax.tree.map(lambda t, p: a * t + (1.0 - a) * p, teacher["params"], state["variables"]["params"])
            extra["teacher"] = {**state["variables"], "params": params}
        return {**state, "extra": extra}

    def _partners(self, batch, t, p):
        """Mixed rows, their targets and weights, the mixing weight and the partners' rows and slots."""
        k_lam, k_perm, k_cand = jax.random.split(batch.key, 3)
        b = batch.x.shape[0]
        lam = jax.random.beta(k_lam, self.alpha, self.alpha).astype(batch.x.dtype)
        lam = jnp.maximum(lam, 1.0 - lam)
        perm = jax.random.randint(k_perm, (b,), 0, b)
        j = jax.random.randint(k_cand, (b,), 0, batch.extra["n_cand"])
        cand_rows = batch.rows(batch.extra["cand"][j])
        active = batch.epoch >= self.start_hmix
        marginal = active & (batch.s == 0) & (p > 1.0 - self.gamma) & (p < self.gamma)
        m = marginal[:, None] if batch.x.ndim == 2 else marginal.reshape((b,) + (1,) * (batch.x.ndim - 1))
        x_b = jnp.where(m, cand_rows, batch.x[perm])
        t_b = jnp.where(marginal, 1.0, t[perm])
        w_mix = batch.w * jnp.where(marginal, 1.0, batch.w[perm])
        return lam * batch.x + (1.0 - lam) * x_b, lam * t + (1.0 - lam) * t_b, w_mix, lam, perm, marginal, x_b

    def objective(self, stage, batch):
        s = batch.s
        p = jax.lax.stop_gradient(jax.nn.sigmoid(batch.g))
        t = s
        if self.variant == "C":
            t = jnp.where((batch.epoch >= self.start_hmix) & (s == 0) & (p >= self.gamma), 1.0, s)
        x_mix, t_mix, w_mix, lam, perm, marginal, x_b = self._partners(batch, t, p)
        q_mix = jnp.clip(jax.nn.sigmoid(batch.forward(x_mix)), 1e-4, 1.0 - 1e-4)
        ce = -(t_mix * jnp.log(q_mix) + (1.0 - t_mix) * jnp.log1p(-q_mix))
        ent = -(q_mix * jnp.log(q_mix) + (1.0 - q_mix) * jnp.log1p(-q_mix))
        loss = (self.positive_weight * masked_mean(ce, s * w_mix) + self.unlabeled_weight
                * masked_mean(ce, (1.0 - s) * w_mix) + self.entropy_weight * masked_mean(ent, w_mix))
        if self.variant == "E":
            teacher = batch.extra["teacher"]
            q_a = jax.nn.sigmoid(batch.predict(teacher, batch.x))
            q_b = jnp.where(marginal, 1.0, q_a[perm])
            q = jax.lax.stop_gradient(lam * q_a + (1.0 - lam) * q_b)
            inner = q * q_mix + (1.0 - q) * (1.0 - q_mix)
            loss = loss + self.elr_weight * masked_mean(jnp.log(jnp.clip(1.0 - inner, 1e-4, 1.0)), w_mix)
        return Step(loss, loss)
