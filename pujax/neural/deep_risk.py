r"""scikit-learn estimators of the risk-based deep PU methods: PUSB, PUbN, Dist-PU, PULDA, Count Loss and PUe.

Each is a :class:`~pujax.neural.deep_base.DeepPUBase` whose training rule is in :mod:`pujax.neural.rules_risk`.
"""
from __future__ import annotations

from pujax.neural.deep_base import DeepPUBase
from pujax.neural.rules_risk import CountLossRule, DistPURule, PUbNRule, PUeRule, PULDARule, PUSBRule
from pujax.persistence import register_estimator
from pujax.risk import get_loss
from pujax.validation import check_bool, check_float, check_int

__all__ = ["PUSBClassifier", "PUbNClassifier", "DistPUClassifier", "PULDAClassifier", "CountLossClassifier",
           "PUeClassifier"]

def _margin_loss(loss, name="loss"):
    get_loss(loss)
    if not isinstance(loss, str):
        raise TypeError(f"{name} must be a loss name of pujax.risk.LOSSES; got {type(loss).__name__}.")
    return loss


@register_estimator
class PUSBClassifier(DeepPUBase):
    r"""PUSB / nnPUSB: PU learning with a selection bias (Kato, Teshima & Honda, ICLR 2019).

    The network is trained with the nnPU rule (Kiryo et al. 2017, Algorithm 1) and a strictly proper loss, so that
    its score keeps the order of :math:`P(y = 1 \mid x)` when the labeled positives are a biased sample (the paper's
    invariance of order); a row is positive iff its score exceeds the threshold that calls a share ``prior`` of the
    unlabeled training rows positive (``threshold_``; :class:`pujax.neural.rules_risk.PUSBRule`).

    Parameters
    ----------
    loss : str, default="logistic"
        Margin loss of the nnPU risk (a name of :data:`pujax.risk.LOSSES`; the paper needs a strictly proper one).
    beta, gamma : float, default=0.0 and 1.0
        nnPU correction rule.
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 3e-4, weight decay
        1e-4 (PU-Bench's configuration).

    Attributes
    ----------
    threshold_ : ndarray of shape (n_seeds_,)
        Each seed's score threshold :math:`\theta_\pi`.
    variables_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, prior_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] M. Kato, T. Teshima and J. Honda, "Learning from Positive and Unlabeled Data with a Selection Bias",
       ICLR 2019 (nnPU training and the threshold by the class prior).
    .. [2] R. Kiryo, G. Niu, M. C. du Plessis and M. Sugiyama, "Positive-Unlabeled Learning with Non-Negative Risk
       Estimator", NeurIPS 2017, Algorithm 1.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import PUSBClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = PUSBClassifier("linear", prior=prior, epochs=30, batch_size=64, learning_rate=0.01, random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """

    def __init__(self, model="mlp", *, loss="logistic", beta=0.0, gamma=1.0, epochs=40, batch_size=256,
                 learning_rate=3e-4, weight_decay=1e-4, prior="auto", standardize=True, validation_fraction=0.1,
                 selection="proxy_accuracy", n_seeds=1, model_kwargs=None, random_state=None, verbose=False,
                 devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        return PUSBRule(loss=_margin_loss(self.loss), beta=check_float(self.beta, "beta", low=0.0, closed="left"),
                        gamma=check_float(self.gamma, "gamma", low=0.0))


@register_estimator
class PUbNClassifier(DeepPUBase):
    r"""PUbN for PU data: classification from positive, unlabeled (and biased negative) data without the biased
    negatives (Hsieh, Niu & Sugiyama, ICML 2019).

    Stage 1 (``pretrain_epochs``): nnPU with the logistic loss estimates :math:`\hat\sigma(x) = P(y = 1 \mid x)`.
    Stage 2: a fresh network minimises the PUbN risk with :math:`\rho = 0`
    (:func:`pujax.neural.losses.pubn_risk`): unlabeled rows with :math:`\hat\sigma \le \eta` count as negatives with
    weight :math:`1 - \hat\sigma`, and the negative-class risk of the region :math:`\hat\sigma > \eta` is
    importance-weighted from the labeled rows, :math:`\eta` calling a share :math:`\tau\pi` of the unlabeled rows
    high (:class:`pujax.neural.rules_risk.PUbNRule`). Model selection considers stage 2.

    Parameters
    ----------
    pretrain_epochs : int, default=10
        Epochs of stage 1 (``epochs`` counts both stages).
    tau : float in (0, 1], default=0.5
        The share of the expected positives of U treated through the labeled rows (the paper's :math:`\tau`).
    loss : str, default="sigmoid"
        Margin loss of the stage-2 risk.
    beta, gamma : float, default=0.0 and 1.0
        nnPU correction rule of stage 1.
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 3e-4, weight decay
        1e-4.

    Attributes
    ----------
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, prior_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] Y.-G. Hsieh, G. Niu and M. Sugiyama, "Classification from Positive, Unlabeled and Biased Negative Data",
       ICML 2019 (the PUbN risk, the decomposition of the unlabeled negatives' risk with :math:`\sigma` and
       :math:`\eta`; PU learning as the case without biased negatives).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import PUbNClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = PUbNClassifier("linear", prior=prior, pretrain_epochs=15, epochs=30, batch_size=64,
    ...                      learning_rate=0.01, random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """

    def __init__(self, model="mlp", *, pretrain_epochs=10, tau=0.5, loss="sigmoid", beta=0.0, gamma=1.0, epochs=40,
                 batch_size=256, learning_rate=3e-4, weight_decay=1e-4, prior="auto", standardize=True,
                 validation_fraction=0.1, selection="proxy_accuracy", n_seeds=1, model_kwargs=None,
                 random_state=None, verbose=False, devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        return PUbNRule(pretrain_epochs=check_int(self.pretrain_epochs, "pretrain_epochs", low=0),
                        tau=check_float(self.tau, "tau", 0.0, 1.0, closed="right"), loss=_margin_loss(self.loss),
                        beta=check_float(self.beta, "beta", low=0.0, closed="left"),
                        gamma=check_float(self.gamma, "gamma", low=0.0))


@register_estimator
class DistPUClassifier(DeepPUBase):
    r"""Dist-PU: PU learning from a label distribution perspective (Zhao, Xu, Jiang, Wen & Huang, CVPR 2022).

    Stage 1 (``warmup_epochs``) aligns the predicted label distributions of the labeled and of the unlabeled rows
    with (0, 1) and :math:`(1 - \pi, \pi)` (:func:`pujax.neural.losses.label_distribution_loss`); stage 2 adds
    entropy minimisation and mixup against pseudo-labels (:class:`pujax.neural.rules_risk.DistPURule`).

    Parameters
    ----------
    warmup_epochs : int, default=20
        Epochs of stage 1 (``epochs`` counts both stages).
    alpha : float, default=6.0
        Beta(alpha, alpha) law of the mixup weight.
    entropy_weight, mixup_weight, mixup_entropy_weight : float, default=0.004, 5.0, 0.04
        Weights of the (ramped) entropy of the unlabeled rows, of the mixup cross-entropy and of the mixed rows'
        entropy.
    mixup_learning_rate : float, default=5e-5
        Adam step size of stage 2 (``learning_rate`` is stage 1's).
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 3e-4, weight decay
        5e-4 (PU-Bench's configuration).

    Attributes
    ----------
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, prior_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] Y. Zhao, Q. Xu, Y. Jiang, P. Wen and Q. Huang, "Dist-PU: Positive-Unlabeled Learning from a Label
       Distribution Perspective", CVPR 2022 (label distribution alignment; entropy minimisation and
       mixup).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import DistPUClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = DistPUClassifier("linear", prior=prior, warmup_epochs=20, epochs=30, batch_size=64,
    ...                        learning_rate=0.01, mixup_learning_rate=0.002, random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """

    def __init__(self, model="mlp", *, warmup_epochs=20, alpha=6.0, entropy_weight=0.004, mixup_weight=5.0,
                 mixup_entropy_weight=0.04, mixup_learning_rate=5e-5, epochs=40, batch_size=256, learning_rate=3e-4,
                 weight_decay=5e-4, prior="auto", standardize=True, validation_fraction=0.1,
                 selection="proxy_accuracy", n_seeds=1, model_kwargs=None, random_state=None, verbose=False,
                 devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        lr = check_float(self.learning_rate, "learning_rate", low=0.0)
        return DistPURule(warmup_epochs=check_int(self.warmup_epochs, "warmup_epochs", low=0),
                          alpha=check_float(self.alpha, "alpha", low=0.0),
                          entropy_weight=check_float(self.entropy_weight, "entropy_weight", low=0.0, closed="left"),
                          mixup_weight=check_float(self.mixup_weight, "mixup_weight", low=0.0, closed="left"),
                          mixup_entropy_weight=check_float(self.mixup_entropy_weight, "mixup_entropy_weight",
                                                           low=0.0, closed="left"),
                          mixup_lr_factor=check_float(self.mixup_learning_rate, "mixup_learning_rate", low=0.0) / lr)


@register_estimator
class PULDAClassifier(DeepPUBase):
    r"""PULDA: PU learning with label distribution alignment (Jiang, Xu, Zhao, Yang, Wen, Cao & Huang, TPAMI 2023), the
    extension of Dist-PU.

    Every step aligns the label distributions with a smooth distance and moving averages
    (:func:`pujax.neural.losses.lda_loss`) and, with ``two_way``, adds the two-way sigmoid margin term
    (:func:`pujax.neural.losses.two_way_loss`); after ``warmup_epochs`` mixup against pseudo-labels is added
    (:class:`pujax.neural.rules_risk.PULDARule`).

    Parameters
    ----------
    warmup_epochs : int, default=20
        Epochs before mixup (``epochs`` counts both stages).
    tmpr : float, default=3.5
        Temperature of the softplus distance.
    alpha_u, alpha_cn : float in [0, 1), default=0.85 and 0.5
        Momenta of the moving averages of the alignment and of the two-way terms.
    two_way : bool, default=True
        Add the two-way sigmoid term.
    margin : float, default=0.6
        Margin of the two-way sigmoid losses.
    mixup_weight : float, default=4.2
        Weight of the mixup cross-entropy.
    alpha : float, default=11.0
        Beta(alpha, alpha) law of the mixup weight.
    warmup_learning_rate : float, default=1e-4
        Adam step size before mixup (``learning_rate`` is the mixup stage's).
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 1e-3, weight decay
        1e-4 (PU-Bench's step sizes).

    Attributes
    ----------
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, prior_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] Y. Jiang, Q. Xu, Y. Zhao, Z. Yang, P. Wen, X. Cao and Q. Huang, "Positive-Unlabeled Learning with Label
       Distribution Alignment", IEEE TPAMI, 2023 (label distribution alignment with the softplus distance
       and moving averages, the two-way sigmoid loss, mixup).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import PULDAClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = PULDAClassifier("linear", prior=prior, warmup_epochs=20, epochs=30, batch_size=64,
    ...                       learning_rate=0.01, warmup_learning_rate=0.01, random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """

    def __init__(self, model="mlp", *, warmup_epochs=20, tmpr=3.5, alpha_u=0.85, alpha_cn=0.5, two_way=True,
                 margin=0.6, mixup_weight=4.2, alpha=11.0, warmup_learning_rate=1e-4, epochs=40, batch_size=256,
                 learning_rate=1e-3, weight_decay=1e-4, prior="auto", standardize=True, validation_fraction=0.1,
                 selection="proxy_accuracy", n_seeds=1, model_kwargs=None, random_state=None, verbose=False,
                 devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        lr = check_float(self.learning_rate, "learning_rate", low=0.0)
        return PULDARule(warmup_epochs=check_int(self.warmup_epochs, "warmup_epochs", low=0),
                         tmpr=check_float(self.tmpr, "tmpr", low=0.0),
                         alpha_u=check_float(self.alpha_u, "alpha_u", 0.0, 1.0, closed="left"),
                         alpha_cn=check_float(self.alpha_cn, "alpha_cn", 0.0, 1.0, closed="left"),
                         two_way=check_bool(self.two_way, "two_way"),
                         margin=check_float(self.margin, "margin", low=0.0),
                         mixup_weight=check_float(self.mixup_weight, "mixup_weight", low=0.0, closed="left"),
                         alpha=check_float(self.alpha, "alpha", low=0.0),
                         warmup_lr_factor=check_float(self.warmup_learning_rate, "warmup_learning_rate",
                                                      low=0.0) / lr)


@register_estimator
class CountLossClassifier(DeepPUBase):
    r"""Count Loss: PU learning from the count of positives (Shukla, Zeng, Ahmed & Van den Broeck, NeurIPS 2023).

    Every step minimises the labeled rows' cross-entropy plus the negative log-probability that exactly
    :math:`\mathrm{round}(\pi n_U)` of the minibatch's unlabeled rows are positive, computed exactly by dynamic
    programming (:func:`pujax.neural.losses.count_loss`, :class:`pujax.neural.rules_risk.CountLossRule`).

    Parameters
    ----------
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 3e-4, weight decay
        1e-4.

    Attributes
    ----------
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, prior_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] V. Shukla, Z. Zeng, K. Ahmed and G. Van den Broeck, "A Unified Approach to Count-Based
       Weakly-Supervised Learning", NeurIPS 2023 (the count loss; PU learning as a count of positives in the
       unlabeled bag).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import CountLossClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = CountLossClassifier("linear", prior=prior, epochs=30, batch_size=64, learning_rate=0.01,
    ...                           random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """

    def __init__(self, model="mlp", *, epochs=40, batch_size=256, learning_rate=3e-4, weight_decay=1e-4,
                 prior="auto", standardize=True, validation_fraction=0.1, selection="proxy_accuracy", n_seeds=1,
                 model_kwargs=None, random_state=None, verbose=False, devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        return CountLossRule()


@register_estimator
class PUeClassifier(DeepPUBase):
    r"""PUe: biased PU learning enhanced by causal inference (Wang, Chen, Guo & Wang, NeurIPS 2023).

    Stage 1 (``warmup_epochs``) fits a propensity network to tell labeled from unlabeled rows, regularised so that
    its mean prediction matches the labeled share; stage 2 trains a fresh classifier with the nnPU rule in which
    the labeled rows carry their normalised inverse propensities (:class:`pujax.neural.rules_risk.PUeRule`).
    Model selection considers stage 2.

    Parameters
    ----------
    warmup_epochs : int, default=10
        Epochs of the propensity network (``epochs`` counts both stages).
    alpha : float, default=0.1
        Weight of the propensity regulariser.
    loss : str, default="sigmoid"
        Margin loss of the classifier's nnPU risk.
    beta, gamma : float, default=0.0 and 1.0
        nnPU correction rule.
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 3e-4, weight decay
        1e-4.

    Attributes
    ----------
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, prior_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] X. Wang, H. Chen, T. Guo and Y. Wang, "PUe: Biased Positive-Unlabeled Learning Enhancement by Causal
       Inference", NeurIPS 2023 (propensity estimation and the inverse-propensity-weighted nnPU risk).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import PUeClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = PUeClassifier("linear", prior=prior, warmup_epochs=10, epochs=40, batch_size=64, learning_rate=0.01,
    ...                     random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """

    def __init__(self, model="mlp", *, warmup_epochs=10, alpha=0.1, loss="sigmoid", beta=0.0, gamma=1.0, epochs=40,
                 batch_size=256, learning_rate=3e-4, weight_decay=1e-4, prior="auto", standardize=True,
                 validation_fraction=0.1, selection="proxy_accuracy", n_seeds=1, model_kwargs=None,
                 random_state=None, verbose=False, devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        return PUeRule(warmup_epochs=check_int(self.warmup_epochs, "warmup_epochs", low=0),
                       alpha=check_float(self.alpha, "alpha", low=0.0, closed="left"), loss=_margin_loss(self.loss),
                       beta=check_float(self.beta, "beta", low=0.0, closed="left"),
                       gamma=check_float(self.gamma, "gamma", low=0.0))
