"""Privacy core: mechanisms and safe samplers, accounting and composition, private quantiles.

* :mod:`~dppca.privacy.mechanisms`: Gaussian (analytic and classic calibration), Laplace and
  exponential mechanisms; :mod:`~dppca.privacy.samplers` and :mod:`~dppca.privacy.discrete`: the
  floating-point-safe noise every value release draws.
* :mod:`~dppca.privacy.budget`: the :class:`Ledger` of releases and budget splits;
  :mod:`~dppca.privacy.composition`: Gaussian-DP groups (one budget for several Gaussian releases).
* :mod:`~dppca.privacy.quantiles` and :mod:`~dppca.privacy.smooth`: every private quantile
  (exponential mechanism, unbounded AboveThreshold scans, smooth sensitivity);
  :mod:`~dppca.privacy.histograms`: quantiles of many columns from one joint noisy histogram.
* :mod:`~dppca.privacy.partition`: private partition selection of group labels.
* :mod:`~dppca.privacy.filter`, :mod:`~dppca.privacy.store` and :mod:`~dppca.privacy.spending`:
  the budget store (SQLite / PostgreSQL) and its privacy filter, a dataset's total (eps, delta)
  across calls (``budget=``).
"""
from .budget import Ledger, Release, split_budget
from .composition import GaussianGroup, GaussianShare, gdp_epsilon
from .filter import BudgetExhaustedError, PrivacyFilter
from .mechanisms import (CALIBRATIONS, exponential_mechanism, gaussian_mechanism, gaussian_sigma,
                         laplace_mechanism, laplace_scale, symmetric_gaussian_noise)
from .partition import partition_selection_threshold, select_partitions, selection_probability
from .quantiles import (private_quantile, private_quantile_grid, unbounded_quantile,
                        unbounded_quantile_between)
from .smooth import smooth_sensitivity_quantile
from .spending import Budget
from .store import BudgetStore, BudgetStoreError

__all__ = ["Budget", "BudgetExhaustedError", "BudgetStore", "BudgetStoreError", "PrivacyFilter",
           "CALIBRATIONS", "GaussianGroup", "GaussianShare", "Ledger", "Release",
           "exponential_mechanism", "gaussian_mechanism", "gaussian_sigma", "gdp_epsilon",
           "laplace_mechanism", "laplace_scale", "partition_selection_threshold", "private_quantile",
           "private_quantile_grid", "select_partitions", "selection_probability",
           "smooth_sensitivity_quantile", "split_budget", "symmetric_gaussian_noise",
           "unbounded_quantile", "unbounded_quantile_between"]
