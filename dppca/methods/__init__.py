"""Registry of PC-direction methods used by :func:`dppca.dp_pc_dir`.

Each entry maps a method name to a function ``f(values, k, *, eps, delta, rng,
calibration, ledger, **options) -> DirectionFit``. ``"nonprivate"`` ignores the
privacy arguments. The other DP-PCA methods of the seed papers live one per file here:

- ``"gdppca"``: Kim & Jung (2025), the generalized Kendall's tau matrix plus noise;
- ``"analyze_gauss"``: Dwork, Talwar, Thakurta & Zhang (2014), clipped second moment plus noise;
- ``"k_dp_pca"``, ``"k_dp_ojas"``: Duengler & Sanyal (2025), deflated private Oja iterations;
- ``"cai_xia_zha"``: Cai, Xia & Zha (2024), noisy spectral projector (private only under the
  spiked Gaussian model);
- ``"dp_sggd"``: Maunu, Yu & Lerman (2022), noisy geodesic descent on the LAD subspace objective;
- ``"noisy_power"``: Hardt & Price (2014), the noisy power method;
- ``"rank"``: the latent Gaussian-copula correlation (Han & Liu 2012) from a private elementwise
  Kendall's tau matrix (``dp_pc_dir(..., standardize="rank")``).
"""
import functools

from ._base import DirectionFit, orient, top_eigen
from .analyze_gauss import analyze_gauss_directions
from .cai_xia_zha import cai_xia_zha_directions
from .dp_sggd import dp_sggd_directions
from .gdppca import gdppca_directions, nonprivate_directions
from .k_dp_ojas import k_dp_ojas_directions
from .k_dp_pca import k_dp_pca_directions
from .latent_correlation import latent_correlation_directions
from .noisy_power import noisy_power_directions

#: What each method's directions estimate (printed in the summary as "Target").
TARGETS = {
    "nonprivate": "covariance directions",
    "gdppca": "Kendall directions",
    "analyze_gauss": "covariance directions",
    "k_dp_pca": "covariance directions",
    "k_dp_ojas": "covariance directions",
    "cai_xia_zha": "covariance directions",
    "dp_sggd": "LAD subspace",
    "noisy_power": "covariance directions",
    "rank": "latent copula correlation directions",
}


def _with_target(method: str, fit_directions):
    """The registered function, with ``DirectionFit.target`` set from :data:`TARGETS`."""
    @functools.wraps(fit_directions)
    def fit(*args, **kwargs) -> DirectionFit:
        result = fit_directions(*args, **kwargs)
        result.target = result.target or TARGETS[method]
        return result
    return fit


_FUNCTIONS = {
    "nonprivate": nonprivate_directions,
    "gdppca": gdppca_directions,
    "analyze_gauss": analyze_gauss_directions,
    "k_dp_pca": k_dp_pca_directions,
    "k_dp_ojas": k_dp_ojas_directions,
    "cai_xia_zha": cai_xia_zha_directions,
    "dp_sggd": dp_sggd_directions,
    "noisy_power": noisy_power_directions,
    "rank": latent_correlation_directions,
}
METHODS = {name: _with_target(name, function) for name, function in _FUNCTIONS.items()}

_BOUND_OPTIONS = ("norm_bound", "bound_quantile", "bound_share")

#: Options each method accepts beyond the common ones (used to reject misplaced options).
METHOD_OPTIONS = {
    "nonprivate": (),
    "gdppca": ("sign", "radius", "xi", "xi_bound", "design", "pairs_per_row"),
    "analyze_gauss": _BOUND_OPTIONS + ("centring", "centre_share"),
    "k_dp_pca": ("batch_size", "learning_rate", "failure_prob", "range_constant"),
    "k_dp_ojas": _BOUND_OPTIONS + ("learning_rate", "amplification", "centring", "top_eigenvalue",
                                  "noise_sd"),
    "cai_xia_zha": ("noise_variance", "spike", "constant", "parameter_share"),
    "dp_sggd": ("iterations", "batch_size", "step_size", "init_share", "halving"),
    "noisy_power": _BOUND_OPTIONS + ("iterations",),
    "rank": ("binary", "design", "pairs_per_row"),
}

__all__ = ["DirectionFit", "METHODS", "METHOD_OPTIONS", "TARGETS", "orient", "top_eigen"]
