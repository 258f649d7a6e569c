r"""Losses and PU risk estimators (DESIGN §3.1; PU ET paper §2, eqs. (4)-(6); Kiryo et al. 2017).

Losses are *margin* functions :math:`\ell(z)` of :math:`z = v\,y` with score :math:`v \in \mathbb{R}` and label
:math:`y \in \{-1, +1\}`, so :math:`\ell(v, +1) = \ell(v)` and :math:`\ell(v, -1) = \ell(-v)`:

=============== =================================== ==========================================
name            :math:`\ell(z)`                     note
=============== =================================== ==========================================
``sigmoid``     :math:`1 / (1 + e^{z})`              bounded, symmetric (nnPU default)
``logistic``    :math:`\ln(1 + e^{-z})`              softplus(-z)
``quadratic``   :math:`(1 - z)^2`                    PU ET default
``savage``      :math:`4 / (1 + e^{z})^2`
``double_hinge`` :math:`\max(-z, \max(0, (1-z)/2))`   du Plessis et al. 2015
``zero_one``    :math:`1[z \le 0]`                   evaluation only (zero gradient)
=============== =================================== ==========================================

PU risks on a score vector ``scores`` with PU labels ``s`` (1 = labeled positive, 0 = unlabeled) and class prior
:math:`\pi`, with :math:`n_p = \sum s`, :math:`n_u = \sum (1 - s)` (eq. (5), (6)):

* :math:`\pi \hat R_p^+ = \frac{\pi}{n_p}\sum_{s_i=1} \ell(g_i, +1)`,
  :math:`\hat R_u^- = \frac{1}{n_u}\sum_{s_i=0} \ell(g_i, -1)`,
  :math:`\pi \hat R_p^- = \frac{\pi}{n_p}\sum_{s_i=1} \ell(g_i, -1)` -- :func:`pu_risk_parts`;
* uPU: :math:`\pi \hat R_p^+ + \hat R_u^- - \pi \hat R_p^-` -- :func:`upu_risk`;
* nnPU: :math:`\pi \hat R_p^+ + \max(0, \hat R_u^- - \pi \hat R_p^-)` -- :func:`nnpu_risk`.

With per-sample ``weights`` the means become weighted means (:math:`\sum w_i s_i \ell / \sum w_i s_i`). Counts
are clamped at 1, so a minibatch with no labeled (or no unlabeled) row contributes 0 to that part instead of NaN,
as in Kiryo et al.'s reference code. All functions are pure JAX: ``jit``-, ``vmap``- and ``grad``-able, with
finite values and gradients for scores as large as 1e4 in float32.

Closed-form node risks (PU ET paper, Prop. 1-3, Theorem 1): for a tree node holding the weights
:math:`W_p = |P'| w_p` and :math:`W_n = |U'| w_u - |P'| w_p`, :func:`node_risk` gives the minimal partial risk
of a constant prediction, :func:`node_value` gives :math:`v^* = W_p / (W_p + W_n)`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "LOSSES",
    "NODE_RISK_LOSSES",
    "get_loss",
    "sigmoid_loss",
    "logistic_loss",
    "quadratic_loss",
    "savage_loss",
    "double_hinge_loss",
    "zero_one_loss",
    "pu_risk_parts",
    "upu_risk",
    "nnpu_risk",
    "pn_risk",
    "nnpu_objective",
    "node_risk",
    "node_value",
    "bayes_risk",
]


# --------------------------------------------------------------------------------------------------- losses


def sigmoid_loss(z: ArrayLike) -> jax.Array:
    """Sigmoid loss ``1 / (1 + exp(z))`` = sigmoid(-z); bounded in (0, 1)."""
    return jax.nn.sigmoid(-z)


def logistic_loss(z: ArrayLike) -> jax.Array:
    """Logistic loss ``ln(1 + exp(-z))`` = softplus(-z), stable for large |z|."""
    return jax.nn.softplus(-z)


def quadratic_loss(z: ArrayLike) -> jax.Array:
    """Quadratic (squared) loss ``(1 - z)^2``."""
    return jnp.square(1.0 - z)


def savage_loss(z: ArrayLike) -> jax.Array:
    """Savage loss ``4 / (1 + exp(z))^2`` = 4 sigmoid(-z)^2."""
    return 4.0 * jnp.square(jax.nn.sigmoid(-z))


def double_hinge_loss(z: ArrayLike) -> jax.Array:
    """Double hinge loss ``max(-z, max(0, (1 - z) / 2))`` (du Plessis et al., 2015)."""
    return jnp.maximum(-z, jnp.maximum(0.0, 0.5 - 0.5 * z))


def zero_one_loss(z: ArrayLike) -> jax.Array:
    """Zero-one loss ``1[z <= 0]`` (a score of exactly 0 counts as an error); for evaluation, zero gradient."""
    return (z <= 0).astype(jnp.result_type(z, jnp.float32))


LOSSES: dict[str, Callable] = {
    "sigmoid": sigmoid_loss,
    "logistic": logistic_loss,
    "quadratic": quadratic_loss,
    "savage": savage_loss,
    "double_hinge": double_hinge_loss,
    "zero_one": zero_one_loss,
}


def get_loss(loss: str | Callable) -> Callable:
    """Return the margin loss function for a name in :data:`LOSSES`, or ``loss`` itself if it is callable."""
    if callable(loss):
        return loss
    try:
        return LOSSES[loss]
    except (KeyError, TypeError):
        raise ValueError(
            f"loss={loss!r} is not valid; choose one of {sorted(LOSSES)} or pass a callable ell(z).") from None


# --------------------------------------------------------------------------------------------------- risks


def _as_float(x):
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype(jnp.float32)


def pu_risk_parts(scores: ArrayLike, s: ArrayLike, prior: float, loss: str | Callable = "sigmoid",
                  weights: ArrayLike | None = None) -> tuple[jax.Array, jax.Array, jax.Array]:
    r"""The three partial risks ``(pi * R_p^+, R_u^-, pi * R_p^-)`` of eq. (4)-(6) of Wilton et al. 2022 (masked form).

    Parameters
    ----------
    scores : array of shape (n,) or (n, 1)
        Real scores g(x).
    s : array of shape (n,)
        PU labels, 1 = labeled positive, 0 = unlabeled.
    prior : float or scalar array
        Class prior pi (vmap over it for several priors).
    loss : str or callable, default="sigmoid"
        A name in :data:`LOSSES` or a callable margin loss ``ell(z)``.
    weights : array of shape (n,) or None, default=None
        Non-negative per-sample weights.

    Returns
    -------
    tuple of three scalars
        ``pi * R_p^+`` (labeled rows as positives), ``R_u^-`` (unlabeled rows as negatives) and ``pi * R_p^-``
        (labeled rows as negatives); :func:`upu_risk` is ``a + b - c``, :func:`nnpu_risk` ``a + max(0, b - c)``.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from pujax.risk import pu_risk_parts
    >>> a, b, c = pu_risk_parts(jnp.zeros(4), jnp.array([1, 1, 0, 0]), 0.5)  # sigmoid loss is 1/2 at 0
    >>> float(a), float(b), float(c)
    (0.25, 0.5, 0.25)
    """
    ell = get_loss(loss)
    g = _as_float(scores).reshape(-1)
    sp = jnp.asarray(s).reshape(-1).astype(g.dtype)
    su = 1.0 - sp
    if weights is not None:
        w = jnp.asarray(weights, dtype=g.dtype).reshape(-1)
        sp, su = sp * w, su * w
    n_p = jnp.maximum(jnp.sum(sp), 1.0) if weights is None else jnp.where(jnp.sum(sp) > 0, jnp.sum(sp), 1.0)
    n_u = jnp.maximum(jnp.sum(su), 1.0) if weights is None else jnp.where(jnp.sum(su) > 0, jnp.sum(su), 1.0)
    loss_pos = ell(g)  # ell(g, +1)
    loss_neg = ell(-g)  # ell(g, -1)
    prior = jnp.asarray(prior, dtype=g.dtype)
    r_p_plus = prior * jnp.sum(sp * loss_pos) / n_p
    r_u_minus = jnp.sum(su * loss_neg) / n_u
    r_p_minus = prior * jnp.sum(sp * loss_neg) / n_p
    return r_p_plus, r_u_minus, r_p_minus


def upu_risk(scores: ArrayLike, s: ArrayLike, prior: float, loss: str | Callable = "sigmoid",
             weights: ArrayLike | None = None) -> jax.Array:
    """Unbiased PU risk (eq. (5)): ``pi R_p^+ + R_u^- - pi R_p^-``. Can be negative."""
    a, b, c = pu_risk_parts(scores, s, prior, loss, weights)
    return a + b - c


def nnpu_risk(scores: ArrayLike, s: ArrayLike, prior: float, loss: str | Callable = "sigmoid",
              weights: ArrayLike | None = None) -> jax.Array:
    """Non-negative PU risk (eq. (6), Kiryo et al. 2017): ``pi R_p^+ + max(0, R_u^- - pi R_p^-)``."""
    a, b, c = pu_risk_parts(scores, s, prior, loss, weights)
    return a + jnp.maximum(0.0, b - c)


def pn_risk(scores: ArrayLike, y: ArrayLike, loss: str | Callable = "sigmoid", prior: float | None = None,
            weights: ArrayLike | None = None) -> jax.Array:
    r"""Supervised (PN) risk with true labels ``y`` in {0, 1}.

    With ``prior=None`` the empirical mean of ``ell(g, y)``; with a prior, the class-prior weighted form
    ``pi E_P ell(g, +1) + (1 - pi) E_N ell(g, -1)``.
    """
    ell = get_loss(loss)
    g = _as_float(scores).reshape(-1)
    yp = jnp.asarray(y).reshape(-1).astype(g.dtype)
    yn = 1.0 - yp
    w = jnp.ones_like(g) if weights is None else jnp.asarray(weights, dtype=g.dtype).reshape(-1)
    lp, ln = ell(g), ell(-g)
    if prior is None:
        return jnp.sum(w * (yp * lp + yn * ln)) / jnp.maximum(jnp.sum(w), jnp.finfo(g.dtype).tiny)
    n_p = jnp.sum(w * yp)
    n_n = jnp.sum(w * yn)
    prior = jnp.asarray(prior, dtype=g.dtype)
    rp = jnp.sum(w * yp * lp) / jnp.where(n_p > 0, n_p, 1.0)
    rn = jnp.sum(w * yn * ln) / jnp.where(n_n > 0, n_n, 1.0)
    return prior * rp + (1.0 - prior) * rn


def nnpu_objective(scores: ArrayLike, s: ArrayLike, prior: float, loss: str | Callable = "sigmoid", beta: float = 0.0,
                   gamma: float = 1.0, weights: ArrayLike | None = None) -> tuple[jax.Array, jax.Array]:
    r"""The nnPU training rule of Kiryo et al. (2017, Algorithm 1) as a differentiable surrogate.

    With ``r = R_u^- - pi R_p^-``: if ``r >= -beta`` the gradient step is on ``pi R_p^+ + r`` (ordinary descent);
    otherwise on ``-gamma * r`` (the "defitting" correction step that pushes ``r`` back up). Returns
    ``(surrogate, risk)`` where ``jax.grad`` of ``surrogate`` is the rule's descent direction and ``risk`` is the
    nnPU risk value (for logging). ``beta = +inf`` never corrects, i.e. gives the uPU gradient.
    """
    a, b, c = pu_risk_parts(scores, s, prior, loss, weights)
    r = b - c
    correct = r < -beta
    surrogate = jnp.where(correct, -gamma * r, a + r)
    return surrogate, a + jnp.maximum(0.0, r)


# ------------------------------------------------------------------------------------- closed-form node risks

NODE_RISK_LOSSES = ("quadratic", "savage", "logistic", "sigmoid", "double_hinge", "zero_one")


def _xlogx(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.where(x > 0, x * jnp.log(safe), 0.0)


def bayes_risk(q: ArrayLike, loss: str = "quadratic") -> jax.Array:
    r"""Conditional Bayes risk :math:`H(q) = \min_v q\,\ell(v,+1) + (1-q)\,\ell(v,-1)` for ``q`` in [0, 1].

    quadratic and savage: ``4 q (1 - q)``; logistic: the entropy ``-q ln q - (1-q) ln(1-q)``; sigmoid, double hinge
    and zero-one: ``min(q, 1 - q)`` (the sigmoid value is an infimum, approached as |v| -> inf).
    """
    q = jnp.asarray(q)
    if loss in ("quadratic", "savage"):
        return 4.0 * q * (1.0 - q)
    if loss == "logistic":
        return -_xlogx(q) - _xlogx(1.0 - q)
    if loss in ("sigmoid", "double_hinge", "zero_one"):
        return jnp.minimum(q, 1.0 - q)
    raise ValueError(f"loss={loss!r} has no closed-form node risk; choose one of {list(NODE_RISK_LOSSES)}.")


def node_value(W_p: ArrayLike, W_n: ArrayLike) -> jax.Array:
    r"""Optimal positive-probability estimate :math:`v^* = W_p / (W_p + W_n)` of a node (Prop. 1).

    ``W_p + W_n = |U'| w_u >= 0``; where it is 0 (no unlabeled row) ``v* = +inf`` if ``W_p > 0`` (and 0 for an empty
    node). ``v*`` may exceed 1 under PU weights; leaves predict positive iff ``v* > 0.5`` (Prop. 4) and use
    ``clip(v*, 0, 1)`` as their probability.
    """
    W_p = jnp.asarray(W_p)
    W_n = jnp.asarray(W_n)
    A = W_p + W_n
    safe = jnp.where(A > 0, A, 1.0)
    return jnp.where(A > 0, W_p / safe, jnp.where(W_p > 0, jnp.inf, 0.0))


def node_risk(W_p: ArrayLike, W_n: ArrayLike, risk: str = "nnpu", loss: str = "quadratic") -> jax.Array:
    r"""Minimal partial risk of a constant prediction on a node (PU ET Prop. 1, 2, 3 and Theorem 1).

    The partial uPU risk of a constant score v is ``W_p ell(v, +1) + W_n ell(v, -1)`` =
    ``A [q ell(v,+1) + (1-q) ell(v,-1)]`` with ``A = W_p + W_n`` and ``q = v*``. Hence

    * ``risk="pn"`` (``W_p, W_n >= 0`` are the positive and negative weights) and ``risk="upu"`` with
      ``q <= 1``: ``A * H(q)`` (:func:`bayes_risk`) -- eq. (11), (12) and Theorem 1 (quadratic = 2|S|w Gini,
      logistic = |S|w entropy);
    * ``risk="upu"`` with ``q > 1`` (``W_n < 0``): quadratic ``4 W_p W_n / A`` (eq. (11), finite) or ``-inf``
      when ``A = 0``; logistic and double hinge ``-inf`` (eq. (12)); sigmoid and zero-one ``W_n`` (= A min(q, 1-q));
      savage ``4 W_n`` -- here savage differs from quadratic: Prop. 3 holds for nnPU, PN and uPU with ``q <= 1``;
    * ``risk="nnpu"``: the uPU value when ``W_n >= 0``, else ``0`` (eq. (14), (15)): with ``W_n < 0`` the
      negative part is clipped at 0 and ``W_p ell(v, +1)`` can be driven to 0.

    Vectorised over any broadcastable shapes of ``W_p`` and ``W_n``.
    """
    if risk not in ("nnpu", "upu", "pn"):
        raise ValueError(f"risk={risk!r} is not valid; choose one of ['nnpu', 'pn', 'upu'].")
    W_p = jnp.asarray(W_p)
    W_n = jnp.asarray(W_n)
    A = W_p + W_n
    q = node_value(W_p, W_n)
    q_in = jnp.clip(jnp.where(jnp.isfinite(q), q, 1.0), 0.0, 1.0)
    base = A * bayes_risk(q_in, loss)
    if risk == "pn":
        return base
    over = W_n < 0  # q > 1 (or A = 0 with W_p > 0)
    if risk == "nnpu":
        return jnp.where(over, jnp.zeros_like(base), base)
    neg_inf = jnp.full_like(base, -jnp.inf)
    if loss == "quadratic":
        safe_A = jnp.where(A > 0, A, 1.0)
        over_val = jnp.where(A > 0, 4.0 * W_p * W_n / safe_A, neg_inf)
    elif loss == "savage":
        over_val = 4.0 * W_n
    elif loss in ("sigmoid", "zero_one"):
        over_val = W_n * jnp.ones_like(base)
    else:  # logistic, double_hinge
        over_val = neg_inf
    return jnp.where(over, over_val, base)
