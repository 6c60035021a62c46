"""Privacy core: mechanisms, budget splitting and the ledger of releases."""
from .budget import Ledger, Release, split_budget
from .mechanisms import (CALIBRATIONS, exponential_mechanism, gaussian_mechanism, gaussian_sigma,
                         laplace_mechanism, laplace_scale, symmetric_gaussian_noise)
from .partition import partition_selection_threshold, select_partitions, selection_probability
from .smooth import smooth_sensitivity_quantile

__all__ = ["CALIBRATIONS", "Ledger", "Release", "exponential_mechanism", "gaussian_mechanism",
           "gaussian_sigma", "laplace_mechanism", "laplace_scale", "partition_selection_threshold",
           "select_partitions", "selection_probability", "smooth_sensitivity_quantile",
           "split_budget", "symmetric_gaussian_noise"]
