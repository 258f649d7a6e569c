r"""scikit-learn estimators of the disambiguation-based and SAR deep PU methods: CVIR, P3Mix-C / P3Mix-E,
Robust-PU, HolisticPU and LBE.

Each is a :class:`~pujax.neural.deep_base.DeepPUBase` whose training rule is in :mod:`pujax.neural.rules_label`.
"""
from __future__ import annotations

from pujax.neural.deep_base import DeepPUBase
from pujax.neural.rules_label import CVIRRule, HolisticPURule, LBERule, P3MixRule, RobustPURule
from pujax.persistence import register_estimator
from pujax.validation import check_float, check_in, check_int

__all__ = ["CVIRClassifier", "P3MixClassifier", "RobustPUClassifier", "HolisticPUClassifier", "LBEClassifier"]

@register_estimator
class CVIRClassifier(DeepPUBase):
    r"""CVIR with BBE (TED\ :sup:`n`): mixture proportion estimation and PU learning, a modern approach (Garg, Wu,
    Smola, Balakrishnan & Lipton, NeurIPS 2021).

    After a warm start of P-vs-U training, every epoch re-estimates the class prior by Best Bin Estimation on the
    held-out rows' scores (``prior="auto"``; a float prior is used as given), sets aside the share of unlabeled rows
    the network scores most positive and trains on the labeled rows as positives and the rest as negatives
    (:class:`pujax.neural.rules_label.CVIRRule`). Model selection considers the epochs after the warm start.

    Parameters
    ----------
    warmup_epochs : int, default=5
        Epochs of P-vs-U warm start (``epochs`` counts them).
    delta, bbe_gamma : float, default=0.1 and 0.01
        Confidence and slack of BBE's upper confidence bound (the paper's values).
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 3e-4, weight decay
        1e-4.

    Attributes
    ----------
    prior_ : float
        The prior used: the mean over seeds of BBE's last estimate (``prior="auto"``), else ``prior``.
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] S. Garg, Y. Wu, A. Smola, S. Balakrishnan and Z. C. Lipton, "Mixture Proportion Estimation and PU
       Learning: A Modern Approach", NeurIPS 2021 (BBE, Algorithm 1; CVIR, the conditional value ignoring risk;
       their alternation, TED\ :sup:`n`).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import CVIRClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = CVIRClassifier("linear", warmup_epochs=5, epochs=30, batch_size=64, learning_rate=0.01,
    ...                      random_state=0).fit(X_pu, s)
    >>> bool(clf.score(X, y) > 0.7)
    True
    """

    _estimates_prior = True

    def __init__(self, model="mlp", *, warmup_epochs=5, delta=0.1, bbe_gamma=0.01, epochs=40, batch_size=256,
                 learning_rate=3e-4, weight_decay=1e-4, prior="auto", standardize=True, validation_fraction=0.1,
                 selection="proxy_accuracy", n_seeds=1, model_kwargs=None, random_state=None, verbose=False,
                 devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        return CVIRRule(warmup_epochs=check_int(self.warmup_epochs, "warmup_epochs", low=0),
                        estimate_prior=isinstance(self.prior, str),
                        delta=check_float(self.delta, "delta", 0.0, 1.0),
                        bbe_gamma=check_float(self.bbe_gamma, "bbe_gamma", low=0.0, closed="left"))


@register_estimator
class P3MixClassifier(DeepPUBase):
    r"""P3Mix: heuristic mixup with the right partners for PU learning (Li, Li, Feng & Ouyang, ICLR 2022), as
    P3Mix-C (``variant="C"``, target correction) or P3Mix-E (``"E"``, early-learning regularisation with a mean
    teacher).

    Unlabeled rows are taken as negatives and every step trains on mixed rows; from epoch ``start_hmix`` the
    ambiguous unlabeled rows are mixed with high-entropy labeled positives (:class:`pujax.neural.rules_label.
    P3MixRule`). Needs no class prior.

    Parameters
    ----------
    variant : {"C", "E"}, default="C"
        P3Mix-C or P3Mix-E.
    start_hmix : int, default=5
        First epoch of the heuristic partner choice (and of P3Mix-C's correction).
    gamma : float in (0.5, 1), default=0.8
        Confidence bound: rows with :math:`1 - \gamma < \sigma(g) < \gamma` are ambiguous; P3Mix-C relabels
        unlabeled rows with :math:`\sigma(g) \ge \gamma` positive.
    alpha : float, default=1.0
        Beta(alpha, alpha) law of the mixup weight.
    top_k : int, default=96
        Size of the candidate set of positives.
    positive_weight, unlabeled_weight, entropy_weight : float, default=1.0, 1.0, 0.1
        Weights of the labeled and unlabeled anchors' cross-entropy and of the entropy term.
    elr_weight, ema_decay : float, default=5.0 and 0.997
        P3Mix-E: weight of the early-learning regulariser and decay of the mean teacher.
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase` (``prior`` unused).
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 1e-3, weight decay
        1e-6 (PU-Bench's configuration).

    Attributes
    ----------
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] C. Li, X. Li, L. Feng and J. Ouyang, "Who Is Your Right Mixup Partner in Positive and Unlabeled
       Learning", ICLR 2022 (heuristic mixup, the candidate set of positives, P3Mix-C and P3Mix-E).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import P3MixClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = P3MixClassifier("linear", top_k=16, epochs=30, batch_size=64, learning_rate=0.01, random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """


    def __init__(self, model="mlp", *, variant="C", start_hmix=5, gamma=0.8, alpha=1.0, top_k=96, positive_weight=1.0,
                 unlabeled_weight=1.0, entropy_weight=0.1, elr_weight=5.0, ema_decay=0.997, epochs=40,
                 batch_size=256, learning_rate=1e-3, weight_decay=1e-6, prior="auto", standardize=True,
                 validation_fraction=0.1, selection="proxy_accuracy", n_seeds=1, model_kwargs=None,
                 random_state=None, verbose=False, devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        nonneg = {"low": 0.0, "closed": "left"}
        return P3MixRule(variant=check_in(self.variant, "variant", ("C", "E")),
                         start_hmix=check_int(self.start_hmix, "start_hmix", low=0),
                         gamma=check_float(self.gamma, "gamma", 0.5, 1.0), alpha=check_float(self.alpha, "alpha",
                                                                                             low=0.0),
                         top_k=check_int(self.top_k, "top_k"),
                         positive_weight=check_float(self.positive_weight, "positive_weight", **nonneg),
                         unlabeled_weight=check_float(self.unlabeled_weight, "unlabeled_weight", **nonneg),
                         entropy_weight=check_float(self.entropy_weight, "entropy_weight", **nonneg),
                         elr_weight=check_float(self.elr_weight, "elr_weight", **nonneg),
                         ema_decay=check_float(self.ema_decay, "ema_decay", 0.0, 1.0, closed="left"))


@register_estimator
class RobustPUClassifier(DeepPUBase):
    r"""Robust-PU: robust PU learning via noise-negative sample self-correction (Zhu, Wang, Zhao et al., KDD 2023).

    After nnPU pre-training, the network is trained on the labeled rows as positives and the unlabeled rows as
    negatives with self-paced weights renewed every ``freq`` epochs from each row's loss, under thresholds that grow
    linearly so that hard rows enter later (:class:`pujax.neural.rules_label.RobustPURule`).

    Parameters
    ----------
    pretrain_epochs : int, default=10
        Epochs of nnPU pre-training (``epochs`` counts them).
    pretrain_learning_rate : float, default=1e-4
        Adam step size of the pre-training (``learning_rate`` is the main stage's).
    freq : int, default=5
        Epochs between weight renewals.
    temper_p, temper_n : float, default=1.0 and 1.3
        Temperatures of the labeled / unlabeled rows' hardness.
    alpha_p, alpha_n : float, default=0.1 and 0.11
        First thresholds of the labeled / unlabeled rows' weights.
    max_thresh_p, max_thresh_n : float, default=1.0 and 1.0
        Final thresholds.
    grow_steps : int, default=5
        Renewals over which the thresholds grow.
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 1e-3, weight decay
        1e-4 (thresholds, temperatures and schedule: Wang et al.'s benchmark configuration).

    Attributes
    ----------
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, prior_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] Z. Zhu, L. Wang, P. Zhao, C. Du, W. Zhang, H. Dong, B. Qiao, Q. Lin, S. Rajmohan and D. Zhang, "Robust
       Positive-Unlabeled Learning via Noise Negative Sample Self-correction", KDD 2023 (hardness, the soft
       self-paced weights, the linear training scheduler).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import RobustPUClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = RobustPUClassifier("linear", prior=prior, pretrain_epochs=10, pretrain_learning_rate=0.01, epochs=30,
    ...                          batch_size=64, learning_rate=0.01, random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """

    def __init__(self, model="mlp", *, pretrain_epochs=10, pretrain_learning_rate=1e-4, freq=5, temper_p=1.0,
                 temper_n=1.3, alpha_p=0.1, alpha_n=0.11, max_thresh_p=1.0, max_thresh_n=1.0, grow_steps=5,
                 epochs=40, batch_size=256, learning_rate=1e-3, weight_decay=1e-4, prior="auto", standardize=True,
                 validation_fraction=0.1, selection="proxy_accuracy", n_seeds=1, model_kwargs=None,
                 random_state=None, verbose=False, devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        pos = {"low": 0.0}
        lr = check_float(self.learning_rate, "learning_rate", **pos)
        return RobustPURule(
            pretrain_epochs=check_int(self.pretrain_epochs, "pretrain_epochs", low=0),
            freq=check_int(self.freq, "freq"), temper_p=check_float(self.temper_p, "temper_p", **pos),
            temper_n=check_float(self.temper_n, "temper_n", **pos), alpha_p=check_float(self.alpha_p, "alpha_p", **pos),
            alpha_n=check_float(self.alpha_n, "alpha_n", **pos),
            max_thresh_p=check_float(self.max_thresh_p, "max_thresh_p", **pos),
            max_thresh_n=check_float(self.max_thresh_n, "max_thresh_n", **pos),
            grow_steps=check_int(self.grow_steps, "grow_steps"),
            pretrain_lr_factor=check_float(self.pretrain_learning_rate, "pretrain_learning_rate", **pos) / lr)


@register_estimator
class HolisticPUClassifier(DeepPUBase):
    r"""HolisticPU: learning from PU data through holistic predictive trends (Wang, Wan, Geng, Li & Chen,
    NeurIPS 2023).

    A labeled-versus-unlabeled classifier is trained for ``warmup_epochs`` while every unlabeled row's predicted
    probability is recorded after each epoch; rows whose mean trend lies above the natural break of the trends
    become pseudo-positives, and a fresh network learns from them with a growing weight and FixMatch-style
    consistency (:class:`pujax.neural.rules_label.HolisticPURule`). Needs no class prior; model selection considers
    the second stage.

    Parameters
    ----------
    warmup_epochs : int, default=10
        Epochs of the trend-recording stage (``epochs`` counts them).
    rho : float in [0, 1), default=0.1
        Label smoothing of the labeled rows in the first stage.
    threshold_confidence : float, default=0.9
        Confidence above which a prediction becomes the consistency target.
    lambda_u : float, default=1.0
        Weight of the consistency term.
    strong_noise, strong_dropout : float, default=0.05 and 0.05
        Gaussian noise and feature dropout of the strongly perturbed copy.
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase` (``prior`` unused).
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 1e-3, weight decay
        5e-4.

    Attributes
    ----------
    variables_, threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] X. Wang, W. Wan, C. Geng, S.-Y. Li and S. Chen, "Beyond Myopia: Learning from Positive and Unlabeled Data
       through Holistic Predictive Trends", NeurIPS 2023 (the predictive trends, their natural-break split, the
       second-stage training with pseudo-labels).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import HolisticPUClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = HolisticPUClassifier("linear", warmup_epochs=10, epochs=30, batch_size=64, learning_rate=0.01,
    ...                            random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """


    def __init__(self, model="mlp", *, warmup_epochs=10, rho=0.1, threshold_confidence=0.9, lambda_u=1.0,
                 strong_noise=0.05, strong_dropout=0.05, epochs=40, batch_size=256, learning_rate=1e-3,
                 weight_decay=5e-4, prior="auto", standardize=True, validation_fraction=0.1,
                 selection="proxy_accuracy", n_seeds=1, model_kwargs=None, random_state=None, verbose=False,
                 devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        return HolisticPURule(
            warmup_epochs=check_int(self.warmup_epochs, "warmup_epochs", low=0),
            rho=check_float(self.rho, "rho", 0.0, 1.0, closed="left"),
            threshold_confidence=check_float(self.threshold_confidence, "threshold_confidence", 0.5, 1.0,
                                             closed="right"),
            lambda_u=check_float(self.lambda_u, "lambda_u", low=0.0, closed="left"),
            strong_noise=check_float(self.strong_noise, "strong_noise", low=0.0, closed="left"),
            strong_dropout=check_float(self.strong_dropout, "strong_dropout", 0.0, 1.0, closed="left"))


@register_estimator
class LBEClassifier(DeepPUBase):
    r"""LBE: instance-dependent PU learning with labeling bias estimation (Gong, Wang, Liu, Han, You, Yang & Tao,
    TPAMI 2021), a SAR method.

    Two networks of ``model``'s architecture -- the classifier :math:`P(y = 1 \mid x)` and the labeling
    probability of a positive :math:`\eta(x)` -- are initialised by labeled-versus-unlabeled training for
    ``warmup_epochs`` and then fitted by EM: an E-step before every epoch, the epoch's steps as the M-step
    (:class:`pujax.neural.rules_label.LBERule`). Needs no class prior; model selection considers the EM stage.

    Parameters
    ----------
    warmup_epochs : int, default=10
        Epochs of the initialisation (``epochs`` counts them).
    model, epochs, batch_size, learning_rate, weight_decay, prior, standardize
        As :class:`~pujax.neural.deep_base.DeepPUBase` (``prior`` unused).
    validation_fraction, selection, n_seeds, model_kwargs, random_state, verbose, devices
        As :class:`~pujax.neural.deep_base.DeepPUBase`. Defaults: 40 epochs, batch size 256, Adam 5e-4, weight decay
        1e-4 (PU-Bench's step size).

    Attributes
    ----------
    variables_ : dict
        Flax variables of the pair of networks (``"net_0"``: classifier, ``"net_1"``: labeling bias) with a leading
        seed axis.
    threshold_, history_, validation_loss_, best_epoch_, mean_, scale_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.
    n_seeds_, n_iter_, classes_, n_features_in_, feature_names_in_
        As :class:`~pujax.neural.deep_base.DeepPUBase`.

    References
    ----------
    .. [1] C. Gong, Q. Wang, T. Liu, B. Han, J. You, J. Yang and D. Tao, "Instance-Dependent Positive and Unlabeled
       Learning with Labeling Bias Estimation", IEEE TPAMI, 2021 (the labeling model, EM).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import LBEClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_clusters_per_class=1,
    ...                            class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = LBEClassifier("linear", warmup_epochs=10, epochs=30, batch_size=64, learning_rate=0.01,
    ...                     random_state=0)
    >>> bool(clf.fit(X_pu, s).score(X, y) > 0.7)
    True
    """


    def __init__(self, model="mlp", *, warmup_epochs=10, epochs=40, batch_size=256, learning_rate=5e-4,
                 weight_decay=1e-4, prior="auto", standardize=True, validation_fraction=0.1,
                 selection="proxy_accuracy", n_seeds=1, model_kwargs=None, random_state=None, verbose=False,
                 devices=None, pos_label=None):
        self._set_params(locals())

    def _rule(self):
        return LBERule(warmup_epochs=check_int(self.warmup_epochs, "warmup_epochs", low=0))
