"""Every argument below is named by the error a bad value gets: dppca's own error classes with
the argument in backticks, never a bare TypeError from inside (issue 24, finding 16: these
names appeared in error messages but no test asserted them)."""
import pytest

import dppca
from dppca import DPPCATypeError, DPPCAValueError, load_gau
from dppca.methods import METHOD_OPTIONS
from dppca.privacy import gaussian_sigma, partition_selection_threshold

X = load_gau().iloc[:200, :4]
BUDGET = dict(eps=1.0, delta=1e-5)

CASES = {
    "calibration": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, calibration="exact", **BUDGET),
    "scale_share": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, standardize=True, scale_share=1.5,
                                           **BUDGET),
    "axes": lambda: dppca.dp_score(X, axes=(1, 9), **BUDGET),
    "levels": lambda: dppca.dp_score_group(X.assign(g=["a", "b"] * 100), "g", levels=[], **BUDGET),
    "private_plot": lambda: dppca.dp_score_plot(X, private_plot=("bogus",), **BUDGET),
    "center_share": lambda: dppca.DPPCA(2, center_share=2).fit(X),
    "norm_bound": lambda: dppca.dp_pc_dir(X, 2, method="analyze_gauss", norm_bound=-1, **BUDGET),
    "standardize": lambda: dppca.dp_pc_dir(X, 2, standardize="yes"),
    "scale": lambda: dppca.dp_pc_dir(X, 2, standardize=True, scale=[1, 2]),
    "sample_size": lambda: dppca.sampling_control(sample_size=-3),
    "bandwidth_scale": lambda: dppca.sampling_control(bandwidth_scale=-1),
    "scatter_alpha": lambda: dppca.score_plot_control(scatter_alpha=3),
    "hist_alpha_range": lambda: dppca.score_plot_control(hist_alpha_range=(0.9, 0.1)),
    "show_group_legend": lambda: dppca.score_plot_control(show_group_legend="no"),
    # was "'int' object is not iterable" from inside the check
    "group_colors": lambda: dppca.score_plot_control(group_colors=3),
    "palette": lambda: dppca.score_plot_control(palette=3),
    "eta0": lambda: dppca.huber_control(eta0=-1),
    "m2_frac": lambda: dppca.huber_control(m2_frac=2),
    "trim_const": lambda: dppca.pmwm_control(trim_const=-1),
    "max_partitions": lambda: partition_selection_threshold(1.0, 1e-5, 0),
    "sensitivity": lambda: gaussian_sigma(-1, 1.0, 1e-5),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_value_names_its_argument(name):
    with pytest.raises((DPPCAValueError, DPPCATypeError), match=f"^`{name}` must"):
        CASES[name]()


def test_cases_are_real_arguments():
    """Each name is a parameter of the function its case calls (no typo makes a case vacuous)."""
    import inspect

    owners = {"center_share": dppca.DPPCA, "max_partitions": partition_selection_threshold,
              "sensitivity": gaussian_sigma}
    for name in CASES:
        functions = [owners[name]] if name in owners else [
            dppca.dp_pc_dir, dppca.dp_score, dppca.dp_score_group, dppca.dp_score_plot,
            dppca.sampling_control, dppca.score_plot_control, dppca.huber_control,
            dppca.pmwm_control]
        options = METHOD_OPTIONS["analyze_gauss"] if name == "norm_bound" else ()
        assert name in options or any(name in inspect.signature(f).parameters
                                      for f in functions), name
