r"""The losses of the deep PU methods, as pure functions of network outputs (jit / vmap / grad-able).

Notation: ``g`` are network scores (logits) of the rows of a minibatch, :math:`\sigma(g)` their probability of the
positive class, ``s`` the PU labels (1 labeled positive, 0 unlabeled), ``w`` row weights (0 for an empty slot),
``prior`` the class prior :math:`\pi`. :math:`E_P[f] = \sum_i w_i s_i f_i / \sum_i w_i s_i` and
:math:`E_U[f] = \sum_i w_i (1 - s_i) f_i / \sum_i w_i (1 - s_i)` are the minibatch means over its labeled and its
unlabeled rows (0 when it has none). Probabilities are handled through logits: :math:`\log\sigma(g) =
-\mathrm{softplus}(-g)`, :math:`\log(1 - \sigma(g)) = -\mathrm{softplus}(g)`, so no loss overflows at extreme scores.
Each function names the paper and the equation it implements; the methods that use them are in
:mod:`pujax.neural.rules_risk` and :mod:`pujax.neural.rules_label`.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = [
    "masked_mean", "class_means", "bce_logits", "binary_entropy", "label_distribution_loss", "pubn_risk",
    "count_log_probability", "count_loss", "softplus_distance", "two_way_sigmoid", "lda_loss", "two_way_loss",
    "lbe_posterior", "lbe_loss", "cvir_loss", "self_paced_weights", "robust_pu_loss", "natural_break",
    "trend_increment", "mixup_bce",
]


def masked_mean(values: jax.Array, weights: jax.Array) -> jax.Array:
    """``sum(weights * values) / sum(weights)``, 0 when the weights sum to 0."""
    total = jnp.sum(weights)
    return jnp.sum(weights * values) / jnp.where(total > 0, total, 1.0)


def class_means(values: jax.Array, s: jax.Array, w: jax.Array) -> tuple[jax.Array, jax.Array]:
    """:math:`(E_P[v], E_U[v])`: the means of ``values`` over the labeled and over the unlabeled rows."""
    return masked_mean(values, s * w), masked_mean(values, (1.0 - s) * w)


def bce_logits(g: jax.Array, y: jax.Array) -> jax.Array:
    r"""Binary cross-entropy of soft targets ``y`` in [0, 1] under :math:`\sigma(g)`:
    :math:`y\,\mathrm{softplus}(-g) + (1 - y)\,\mathrm{softplus}(g)`, per row."""
    return y * jax.nn.softplus(-g) + (1.0 - y) * jax.nn.softplus(g)


def binary_entropy(g: jax.Array) -> jax.Array:
    r"""Entropy of :math:`\sigma(g)` per row: :math:`-p\log p - (1-p)\log(1-p)`, from the logits."""
    p = jax.nn.sigmoid(g)
    return p * jax.nn.softplus(-g) + (1.0 - p) * jax.nn.softplus(g)


def label_distribution_loss(g: jax.Array, s: jax.Array, w: jax.Array, prior: jax.Array) -> jax.Array:
    r"""Dist-PU's label-distribution loss (Zhao et al., CVPR 2022, the label distribution loss with the one-bin
    histogram of the authors' code): :math:`(1 - E_P[\sigma(g)]) + |E_U[\sigma(g)] - \pi| / (2\pi)`. The first term
    aligns the predicted label distribution of the labeled rows with (0, 1), the second that of the unlabeled rows with
    :math:`(1 - \pi, \pi)` (an L1 distance, weighted by :math:`1/(2\pi)` as in the authors' code)."""
    m_p, m_u = class_means(jax.nn.sigmoid(g), s, w)
    return (1.0 - m_p) + jnp.abs(m_u - prior) / (2.0 * prior)


def pubn_risk(g: jax.Array, s: jax.Array, w: jax.Array, sigma: jax.Array, eta: jax.Array, prior: jax.Array,
              loss=None) -> jax.Array:
    r"""The PUbN risk without biased negatives (Hsieh, Niu & Sugiyama, ICML 2019: the PUbN risk with the
    decomposition of the unlabeled negatives' risk :math:`\bar R_{s=-1,y=-1}` through :math:`\sigma` and
    :math:`\eta`, at :math:`\rho = 0`):

    .. math:: \pi E_P[\ell(g)] + E_U[\mathbb 1\{\hat\sigma \le \eta\}(1 - \hat\sigma)\,\ell(-g)]
              + \pi E_P\Big[\mathbb 1\{\hat\sigma > \eta\}\,\frac{1 - \hat\sigma}{\hat\sigma}\,\ell(-g)\Big]

    with :math:`\hat\sigma(x)` an estimate of :math:`P(y = 1 \mid x)` (``sigma``, per row) and ``loss`` the margin
    loss :math:`\ell` (default: the sigmoid loss). Every term is non-negative."""
    from pujax.risk import get_loss

    ell = get_loss("sigmoid" if loss is None else loss)
    sig = jnp.clip(sigma, 1e-6, 1.0)
    low = (sig <= eta).astype(sig.dtype)
    pos = masked_mean(ell(g), s * w)
    neg_u = masked_mean(low * (1.0 - sig) * ell(-g), (1.0 - s) * w)
    neg_p = masked_mean((1.0 - low) * (1.0 - sig) / sig * ell(-g), s * w)
    return prior * pos + neg_u + prior * neg_p


def count_log_probability(log_p1: jax.Array, log_p0: jax.Array, include: jax.Array) -> jax.Array:
    r""":math:`\log P(\sum_i y_i = k)` for ``k = 0..b`` of independent Bernoulli rows (``log_p1``, ``log_p0`` their
    log-probabilities of 1 and 0) over the rows with ``include`` set: the dynamic programme
    :math:`\alpha_i(k) = \alpha_{i-1}(k)\,p_0 + \alpha_{i-1}(k - 1)\,p_1` in log space (a ``lax.scan``); impossible
    counts hold -1e30."""
    b = log_p1.shape[0]
    neg = jnp.asarray(-1e30, log_p1.dtype)  # log 0, finite so that gradients through impossible counts stay 0
    start = jnp.full((b + 1,), neg).at[0].set(0.0)

    def step(alpha, inp):
        lp1, lp0, on = inp
        shifted = jnp.concatenate([jnp.full((1,), neg), alpha[:-1]])
        new = jnp.logaddexp(alpha + lp0, shifted + lp1)
        return jnp.where(on, new, alpha), None

    alpha, _ = jax.lax.scan(step, start, (log_p1, log_p0, include))
    return alpha


def count_loss(g: jax.Array, s: jax.Array, w: jax.Array, prior: jax.Array) -> jax.Array:
    r"""Count loss for PU learning (Shukla, Zeng, Ahmed & Van den Broeck, NeurIPS 2023: the count loss with the
    unlabeled rows as the bag): the cross-entropy of the labeled rows as positives plus :math:`-\log P(\sum_{i \in U}
    y_i = k)`, the probability under independent :math:`y_i \sim \mathrm{Bernoulli}(\sigma(g_i))` that exactly :math:`k
    = \mathrm{round}(\pi n_U)` of the :math:`n_U` unlabeled rows of the minibatch are positive
    (:func:`count_log_probability`)."""
    sup = masked_mean(jax.nn.softplus(-g), s * w)
    u = (1.0 - s) * w > 0
    alpha = count_log_probability(-jax.nn.softplus(-g), -jax.nn.softplus(g), u)
    k = jnp.round(prior * jnp.sum(u)).astype(jnp.int32)
    return sup - alpha[k]


def softplus_distance(a: jax.Array, b: jax.Array, tmpr: float) -> jax.Array:
    r"""PULDA's smooth absolute distance :math:`(\mathrm{softplus}(\tau(a - b)) + \mathrm{softplus}(-\tau(a - b)))
    / \tau` (Jiang et al., TPAMI 2023, the surrogate of :math:`|a - b|`; temperature :math:`\tau`)."""
    d = tmpr * (a - b)
    return (jax.nn.softplus(d) + jax.nn.softplus(-d)) / tmpr


def two_way_sigmoid(g: jax.Array, margin: float) -> tuple[jax.Array, jax.Array]:
    r"""PULDA's two-way sigmoid losses per row: as a positive :math:`\sigma(g)\,\sigma(-(g - m))` and as a negative
    :math:`\sigma(g + m)\,\sigma(-g)`: bumps on the margin bands :math:`[0, m]` and :math:`[-m, 0]`."""
    pos = jax.nn.sigmoid(g) * jax.nn.sigmoid(-(g - margin))
    neg = jax.nn.sigmoid(g + margin) * jax.nn.sigmoid(-g)
    return pos, neg


def lda_loss(g: jax.Array, s: jax.Array, w: jax.Array, prior: jax.Array, tmpr: float,
             m_u_prev: jax.Array | None = None, alpha_u: float = 0.0) -> tuple[jax.Array, jax.Array]:
    r"""PULDA's label-distribution alignment loss (Jiang et al., TPAMI 2023):
    :math:`2\pi(1 - E_P[\sigma(g)]) + D_\tau(\tilde m_U, \pi) / (1 - \alpha_U)` with :math:`\tilde m_U =
    \alpha_U m_{prev} + (1 - \alpha_U) E_U[\sigma(g)]`, an exponential moving average of the unlabeled rows' mean
    prediction over steps (``m_u_prev`` held constant; without it, :math:`\tilde m_U = E_U[\sigma(g)]` and no
    division). Returns ``(loss, m_u)`` (the new average, to carry)."""
    m_p, m_u = class_means(jax.nn.sigmoid(g), s, w)
    if m_u_prev is None:
        return 2.0 * prior * (1.0 - m_p) + softplus_distance(m_u, prior, tmpr), m_u
    m = alpha_u * jax.lax.stop_gradient(m_u_prev) + (1.0 - alpha_u) * m_u
    return 2.0 * prior * (1.0 - m_p) + softplus_distance(m, prior, tmpr) / (1.0 - alpha_u), m


def two_way_loss(g: jax.Array, s: jax.Array, w: jax.Array, prior: jax.Array, margin: float,
                 prev: tuple[jax.Array, jax.Array] | None = None,
                 alpha: float = 0.0) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
    r"""PULDA's two-way sigmoid term: :math:`\pi C_P^+ + D_1(\tilde C_U^-, \pi \tilde C_P^-) / (1 - \alpha)` with
    :math:`C_P^+ = E_P[\ell_+(g)]`, :math:`C_P^- = E_P[\ell_-(g)]`, :math:`C_U^- = E_U[\ell_-(g)]`
    (:func:`two_way_sigmoid`) and the tilde terms moving averages with ``prev = (C_P^-, C_U^-)`` of the previous step
    (constant; None: no averaging, no division). Returns ``(loss, (C_P^-, C_U^-))``."""
    lp, ln = two_way_sigmoid(g, margin)
    c_pp, c_pn = masked_mean(lp, s * w), masked_mean(ln, s * w)
    c_un = masked_mean(ln, (1.0 - s) * w)
    if prev is None:
        return prior * c_pp + softplus_distance(c_un, prior * c_pn, 1.0), (c_pn, c_un)
    c_pn = alpha * jax.lax.stop_gradient(prev[0]) + (1.0 - alpha) * c_pn
    c_un = alpha * jax.lax.stop_gradient(prev[1]) + (1.0 - alpha) * c_un
    return prior * c_pp + softplus_distance(c_un, prior * c_pn, 1.0) / (1.0 - alpha), (c_pn, c_un)


def lbe_posterior(g_f: jax.Array, g_eta: jax.Array, s: jax.Array) -> jax.Array:
    r"""LBE's E-step (Gong et al., TPAMI 2021): :math:`P(y = 1 \mid x, s)`: 1 for a labeled row, and for an
    unlabeled one :math:`\frac{f (1 - \eta)}{f (1 - \eta) + 1 - f}` with :math:`f = \sigma(g_f)` the class posterior
    and :math:`\eta = \sigma(g_\eta)` the labeling probability of a positive (computed in log space)."""
    log_num = -jax.nn.softplus(-g_f) - jax.nn.softplus(g_eta)
    log_den = jnp.logaddexp(log_num, -jax.nn.softplus(g_f))
    return jnp.where(s > 0, 1.0, jnp.exp(log_num - log_den))


def lbe_loss(g_f: jax.Array, g_eta: jax.Array, s: jax.Array, w: jax.Array, q: jax.Array,
             keep: float = 1.0) -> jax.Array:
    r"""LBE's M-step objective (Gong et al., TPAMI 2021, the expected complete-data negative log-likelihood):
    :math:`-E[q \log f + (1 - q)\log(1 - f)] - E[q\,(s \log\eta + (1 - s)\log(1 - \eta))]` over the rows (weights
    ``w``), ``q`` the E-step posteriors (:func:`lbe_posterior`, constant). With ``keep < 1`` the classifier's term
    averages only the ``floor(keep * n)`` rows of smallest loss (the authors' small-loss selection)."""
    q = jax.lax.stop_gradient(q)
    loss_f = bce_logits(g_f, q)
    if keep < 1.0:
        n_keep = jnp.maximum(jnp.floor(keep * jnp.sum(w)), 1.0).astype(jnp.int32)
        cut = jnp.sort(jnp.where(w > 0, jax.lax.stop_gradient(loss_f), jnp.inf))[n_keep - 1]
        w_f = w * (loss_f <= cut).astype(loss_f.dtype)
    else:
        w_f = w
    return masked_mean(loss_f, w_f) + masked_mean(q * bce_logits(g_eta, s), w)


def cvir_loss(g: jax.Array, s: jax.Array, w: jax.Array, keep: jax.Array) -> jax.Array:
    r"""CVIR's loss (Garg et al., NeurIPS 2021: the conditional value ignoring risk): the logistic loss of the
    labeled rows as positives and of the kept unlabeled rows (``keep = 1``; CVIR drops the unlabeled rows it ranks
    most positive) as negatives, averaged over those rows."""
    weight = w * (s + (1.0 - s) * keep)
    return masked_mean(bce_logits(g, s), weight)


def self_paced_weights(hardness: jax.Array, threshold: jax.Array) -> jax.Array:
    r"""Robust-PU's soft self-paced weights (Zhu et al., KDD 2023: soft self-paced learning weights): :math:`\exp(-h /
    \lambda^2)` of the hardness ``h`` (the row's loss) under the curriculum threshold :math:`\lambda`."""
    return jnp.exp(-hardness / (threshold * threshold))


def robust_pu_loss(g: jax.Array, s: jax.Array, w: jax.Array, weights: jax.Array) -> jax.Array:
    r"""Robust-PU's weighted loss (Zhu et al., KDD 2023): :math:`E_P[v\,\ell(g, +1)] + E_U[v\,\ell(g, -1)]` with
    the logistic loss and per-row self-paced weights :math:`v` (unlabeled rows taken as negatives)."""
    ell = bce_logits(g, s) * weights
    return masked_mean(ell, s * w) + masked_mean(ell, (1.0 - s) * w)


def natural_break(values: jax.Array, weights: jax.Array) -> jax.Array:
    r"""The two-class natural break (Jenks / Fisher) of weighted values: the largest value of the lower class of the
    split of the sorted values that minimises the within-class sum of squares (HolisticPU's threshold on the
    prediction trends, Wang et al., NeurIPS 2023). Rows of weight 0 are ignored."""
    order = jnp.argsort(values)
    v, w = values[order], weights[order]
    n1, s1, q1 = jnp.cumsum(w), jnp.cumsum(w * v), jnp.cumsum(w * v * v)
    n, s_tot, q_tot = n1[-1], s1[-1], q1[-1]
    n2, s2, q2 = n - n1, s_tot - s1, q_tot - q1
    ss = (q1 - s1 * s1 / jnp.where(n1 > 0, n1, 1.0)) + (q2 - s2 * s2 / jnp.where(n2 > 0, n2, 1.0))
    ok = (n1 > 0) & (n2 > 0) & (w > 0)
    k = jnp.argmin(jnp.where(ok, ss, jnp.inf))
    return v[k]


def trend_increment(p_prev: jax.Array, p_new: jax.Array) -> jax.Array:
    r"""HolisticPU's per-epoch trend term (Wang et al., NeurIPS 2023): :math:`\log(1 + d + d^2/2)` of the change
    :math:`d` of a row's predicted probability between two epochs (the mean over epochs is the row's trend)."""
    d = p_new - p_prev
    return jnp.log1p(d + 0.5 * d * d)


def mixup_bce(g_mix: jax.Array, y_a: jax.Array, y_b: jax.Array, lam: jax.Array, w: jax.Array) -> jax.Array:
    r"""Mixup cross-entropy :math:`E[\lambda\,\mathrm{BCE}(\sigma(g), y_a) + (1 - \lambda)\,\mathrm{BCE}(\sigma(g),
    y_b)]` of mixed rows ``g_mix`` with the targets of their two sources (Zhang et al., ICLR 2018)."""
    return masked_mean(lam * bce_logits(g_mix, y_a) + (1.0 - lam) * bce_logits(g_mix, y_b), w)
