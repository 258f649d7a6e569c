r"""Class-prior estimation from positive and unlabeled data: :func:`estimate_prior` and ``prior="auto"``.

What is estimated
-----------------
Every pujax estimator works in the **case-control scenario**: its ``prior`` is :math:`\pi = P(y=1)` in the
population that the *unlabeled* rows are drawn from (labeled rows ~ :math:`p(x \mid y=1)`, unlabeled rows ~
:math:`p_U(x) = \pi\,p(x \mid y=1) + (1-\pi)\,p(x \mid y=0)`).

:func:`estimate_prior(X, s) <estimate_prior>` therefore returns exactly the quantity an estimator fitted on the same
``(X, s)`` needs: **the positive fraction** :math:`\theta` **of the population the** ``s == 0`` **rows come from**,
the mixture proportion of the labeled-positive distribution in the unlabeled distribution. It is what
``pujax.base.resolve_prior`` stores as ``prior_`` when an estimator is built with ``prior="auto"``.

* Case-control data (``X = concat(X_P, X_U)``, ``s = concat(ones, zeros)``, U drawn from the full population, as
  produced by ``pujax.data.make_case_control``): :math:`\theta = \pi`, the population prior.
* Censoring / single-training-set data (rows drawn from :math:`p(x)`, each positive labeled independently with
  probability :math:`c = P(s=1 \mid y=1)`, SCAR): the unlabeled rows follow :math:`p(x \mid s=0)`, whose positive
  fraction is :math:`\theta = \pi(1-c)/(1-\pi c)` -- not the population prior :math:`\pi`. Use
  :func:`case_control_to_censoring` (or :func:`positive_fraction`) to get :math:`\pi` back.

The result also carries the **label frequency** :math:`c = n_l / (n_l + \theta n_u)` (C1) of the data set; the
conversions (C1)-(C5) are :func:`label_frequency_from_prior`, :func:`prior_from_label_frequency`,
:func:`censoring_to_case_control`, :func:`case_control_to_censoring` and :func:`positive_fraction`.

Methods (one module each)
-------------------------
``"bbe"`` (default, :mod:`pujax.prior.bbe`), ``"elkan_noto"`` (:mod:`pujax.prior.elkan_noto`), ``"tice"``
(:mod:`pujax.prior.tice`), ``"km1"`` / ``"km2"`` (:mod:`pujax.prior.km`), ``"dedpul"`` (:mod:`pujax.prior.dedpul`).
Score-based methods work on cross-fitted P-vs-U classifier scores
(:mod:`pujax.prior._scores`). Intervals are percentile bootstraps computed in JAX over resamples of the held-out
scores or rows; the classifier is not refitted per resample, so an interval reflects the sampling variability of the
held-out part, not the bias of an imperfect classifier. It is widened, if needed, to contain the point estimate.

:func:`prior_sensitivity` refits a PU estimator over a range of priors and scores each fit without negatives;
:func:`plot_prior_sensitivity` draws the table.
"""
from pujax.prior._common import (
    PriorEstimate,
    case_control_to_censoring,
    censoring_to_case_control,
    label_frequency_from_prior,
    positive_fraction,
    prior_from_label_frequency,
)
from pujax.prior.bbe import bbe_bootstrap, bbe_estimate
from pujax.prior.dedpul import dedpul_estimate
from pujax.prior.elkan_noto import elkan_noto_bootstrap, elkan_noto_estimates
from pujax.prior.estimate import METHODS, estimate_prior
from pujax.prior.km import km_estimate
from pujax.prior.sensitivity import PriorSensitivity, plot_prior_sensitivity, prior_sensitivity
from pujax.prior.tice import tice_label_frequency, tice_lower_bound

__all__ = [
    "PriorEstimate",
    "estimate_prior",
    "bbe_estimate",
    "bbe_bootstrap",
    "elkan_noto_estimates",
    "elkan_noto_bootstrap",
    "tice_lower_bound",
    "tice_label_frequency",
    "km_estimate",
    "dedpul_estimate",
    "label_frequency_from_prior",
    "prior_from_label_frequency",
    "censoring_to_case_control",
    "case_control_to_censoring",
    "positive_fraction",
    "METHODS",
    "prior_sensitivity",
    "plot_prior_sensitivity",
    "PriorSensitivity",
]
