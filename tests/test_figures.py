"""matplotlib figures judged from the Figure objects: titles, labels, legends, colour bars,
axis limits and layout (never by file size)."""
import matplotlib
import numpy as np
import pytest

from dppca import (dp_pc_dir, dp_score, dp_score_group, dp_score_plot, dp_scree, dp_scree_plot,
                   load_gau, load_gau_g)

matplotlib.use("Agg")
BUDGET = dict(eps=4.0, delta=1e-5)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="module")
def gau():
    return load_gau()


def _panels(fig):
    return [ax for ax in fig.axes if ax.axison]


def _colour_bars(ax):
    """Colour-bar Axes drawn inside ``ax`` (inset) or attached to it."""
    return [child for child in ax.child_axes if hasattr(child, "_colorbar")]


def _suptitle(fig) -> str:
    return fig.get_suptitle()


def _drawn_extent(fig, artist):
    fig.canvas.draw()
    return artist.get_window_extent(fig.canvas.get_renderer())


# ------------------------------------------------------------------------------- loadings
def test_loadings_private_title_budget_and_colour_bar(gau):
    fig = dp_pc_dir(gau, 2, g_dppca=True, rng=1, **BUDGET).plot()
    ax = fig.axes[0]
    assert "Private loadings" in ax.get_title() and "eps=4" in ax.get_title() \
        and "delta=1e-05" in ax.get_title()
    assert fig.axes[1].get_ylabel() == "loading (unit-length direction)"
    assert ax.get_ylabel() == "variable"


def test_loadings_nonprivate_and_standardized(gau):
    res = dp_pc_dir(gau, 2, standardize=True, g_dppca=False)
    ax = res.plot().axes[0]
    assert ax.get_title().startswith("Loadings (NON-PRIVATE")
    assert "sample (NON-PRIVATE)" in ax.get_title() and ax.get_ylabel() == "variable (standardized)"


def test_plot_leaves_every_result_unchanged(gau):
    directions = dp_pc_dir(gau, 2, g_dppca=True, rng=1, **BUDGET)
    directions.plot()
    assert "figure" not in vars(directions)
    scree = dp_scree(gau, 2, g_dppca=True, rng=1, **BUDGET)
    scree.plot()
    assert scree.figure is None
    score = dp_score(gau, g_dppca=True, rng=1, **BUDGET)
    fig = score.plot()
    assert score.figure is None and score.samples == {}
    assert len(_panels(fig)) == 4  # the figure still shows default samples


# ---------------------------------------------------------------------------------- scree
@pytest.fixture(scope="module")
def scree(gau):
    return dp_scree(gau, 4, method=("clipped", "pmwm", "huber"), g_dppca=True, rng=2, **BUDGET)


@pytest.mark.parametrize("type_", ["scree", "pve"])
def test_scree_axis_starts_at_zero(scree, type_):
    ax = scree.plot(type=type_).axes[0]
    assert ax.get_ylim()[0] == 0.0
    top = scree.scree if type_ == "scree" else scree.pve
    assert ax.get_ylim()[1] >= float(top.to_numpy().max())


@pytest.fixture(scope="module")
def noisy_scree(gau):
    """Few rows and a small budget: some raw values lie within 2 s.e. of 0 (the clamp acts)."""
    return dp_scree(gau.iloc[:300], 6, method=("clipped",), g_dppca=True, rng=2, eps=0.5,
                    delta=1e-5)


@pytest.mark.parametrize("alpha", [0.05, 0.2])
@pytest.mark.parametrize("which", ["scree", "noisy_scree"])
def test_scree_line_is_the_fit_and_bars_the_clamped_noise_intervals(which, alpha, request):
    """Judged against the result's numbers, not against the conf_int call the plot makes: the
    line is the fitted (monotone) scree, the bars are raw -/+ z(1 - alpha/2) s.e. clamped at 0
    (the documented interval: the privacy noise is Gaussian around the raw estimate)."""
    from scipy.stats import norm

    from dppca.plotting.scree import UNRELIABLE_LABEL

    result = request.getfixturevalue(which)
    ax = result.plot(type="scree", alpha=alpha).axes[0]
    frame = result.to_frame()
    bars = [c for c in ax.containers if isinstance(c, matplotlib.container.ErrorbarContainer)]
    assert len(bars) == len(result.methods)
    z = norm.ppf(1 - alpha / 2)
    clamped = 0
    lines = [line for line in ax.lines  # not the caps, nor the hollow-marker legend entry
             if not line.get_label().startswith("_") and line.get_label() != UNRELIABLE_LABEL]
    assert len(lines) == len(result.methods)
    for method, container, line in zip(result.methods, bars, lines):
        rows = frame[frame["method"] == method]
        np.testing.assert_allclose(line.get_ydata(), rows["scree"], rtol=1e-12)
        segments = container.lines[2][0].get_segments()
        lower = np.maximum(rows["raw"] - z * rows["std_err"], 0.0)
        upper = np.maximum(rows["raw"] + z * rows["std_err"] + _clip_allowance(result, method, alpha), 0.0)
        np.testing.assert_allclose([s[0][1] for s in segments], lower, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose([s[1][1] for s in segments], upper, rtol=1e-9, atol=1e-9)
        clamped += int((rows["raw"] - z * rows["std_err"] < 0).sum())
    assert (clamped > 0) == (which == "noisy_scree")  # the clamp is exercised where it acts
    bias = " + clipping-bias bound" if "clipped" in result.methods else ""
    assert f"{1 - alpha:.0%} intervals: privacy noise{bias}" in ax.get_title().replace("\n", " ")


def test_scree_bars_title_names_the_bias_bound_only_with_the_clipped_method(gau):
    # Only the clipped method's upper ends add a clipping-bias bound; the title says so.
    robust = dp_scree(gau.iloc[:1000], 2, method=("pmwm",), g_dppca=True, rng=3, **BUDGET)
    title = robust.plot(type="scree").axes[0].get_title().replace("\n", " ")
    assert "95% intervals: privacy noise" in title and "clipping-bias" not in title


def _clip_allowance(result, method, alpha):
    """The clipped method's upper-end allowance: its post-release clipping-bias interval
    (dppca.results.scree_checks.value_bias, pinned in tests/test_scree_checks.py); 0 for the
    other methods."""
    return result.clipping_bias(alpha)[method].interval if method == "clipped" else 0.0


def test_scree_labels_units_legend_and_privacy(gau, scree):
    ax = scree.plot(type="scree").axes[0]
    assert ax.get_ylabel() == "Variance (data units squared)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Clipped", "PMWM", "Huber"]
    title = ax.get_title()
    assert "private, eps=4, delta=1e-05" in title and "NON-PRIVATE" not in title
    scaled = dp_scree_plot(gau, 2, g_dppca=False, standardize=True, type="scree", rng=1, **BUDGET)
    ax = scaled.figure.axes[0]
    assert ax.get_ylabel() == "Variance (standardized units squared)"
    assert "directions NON-PRIVATE" in ax.get_title()


# ---------------------------------------------------------------------------------- score
@pytest.fixture(scope="module")
def grouped():
    return dp_score_group(load_gau_g(), "group", g_dppca=True, rng=3, **BUDGET)


def test_every_histogram_panel_has_a_probability_colour_bar(gau):
    res = dp_score_plot(gau, g_dppca=True, rng=4, nonprivate=True, **BUDGET)
    for ax in _panels(res.figure):
        bars = _colour_bars(ax)
        if "Histogram" in ax.get_title():
            assert len(bars) == 1, ax.get_title()
            assert bars[0].get_ylabel() == "probability per cell\npower scale, gamma 0.5"
            low, high = bars[0].get_ylim()
            assert low == 0.0 and high > 0.0
        else:
            assert bars == [], ax.get_title()


def test_score_title_says_private_and_the_budget(gau):
    res = dp_score_plot(gau, g_dppca=True, rng=5, **BUDGET)
    title = _suptitle(res.figure)
    assert title.startswith("Differentially private PC scores") and "eps=4" in title \
        and "delta=1e-05" in title and "WARNING" not in title
    assert all("NON-PRIVATE" not in ax.get_title() for ax in _panels(res.figure))


def test_score_with_nonprivate_directions_says_so_everywhere(gau):
    res = dp_score_plot(gau, g_dppca=False, rng=6, **BUDGET)
    assert res.directions_private is False
    assert "NON-PRIVATE" in _suptitle(res.figure) and "eps=4" in _suptitle(res.figure)
    assert all(ax.get_title().endswith("(NON-PRIVATE directions)") for ax in _panels(res.figure))


def test_score_axis_units(gau):
    raw = dp_score_plot(gau, private_plot="histogram", g_dppca=True, rng=7, **BUDGET)
    assert raw.figure.axes[0].get_xlabel() == "PC1 score (data units)"
    scaled = dp_score_plot(gau, private_plot="histogram", standardize=True, g_dppca=False, rng=7,
                           **BUDGET)
    assert scaled.figure.axes[0].get_xlabel() == "PC1 score (standardized units)"
    assert scaled.figure.axes[0].get_ylabel() == "PC2 score (standardized units)"


def test_grouped_plot_nothing_cut_off_or_overlapping(grouped):
    fig = grouped.plot()
    width, height = fig.canvas.get_width_height()
    panels = _panels(fig)
    for ax in panels:
        for text in (ax.yaxis.label, ax.xaxis.label, ax.title):
            if text.get_text():
                box = _drawn_extent(fig, text)
                assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height, \
                    text.get_text()
    assert panels[0].get_ylabel().startswith("PC2 score")
    # A colour bar and its label end before the next panel's tick labels begin.
    left, right = panels[0], panels[1]
    bar = _colour_bars(left)[0]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert bar.get_tightbbox(renderer).x1 < right.get_tightbbox(renderer).x0
    assert bar.get_ylabel() == "probability per cell (all groups)\npower scale, gamma 0.5"
    legend = fig.legends[0]
    assert legend.get_title().get_text() == "group"
    assert [t.get_text() for t in legend.get_texts()] == list(grouped.groups)
    box = _drawn_extent(fig, legend)
    assert box.x1 <= width and box.x0 > max(ax.get_tightbbox(renderer).x1 for ax in panels)


def test_long_group_labels_fit_in_the_legend_strip():
    frame = load_gau_g()
    long_names = {g: f"{g} with a rather long label" for g in frame["group"].unique()}
    frame["group"] = frame["group"].map(long_names)
    fig = dp_score_group(frame, "group", g_dppca=True, rng=8, **BUDGET).plot(private_plot="histogram")
    width, _ = fig.canvas.get_width_height()
    legend = fig.legends[0]
    assert sorted(t.get_text() for t in legend.get_texts()) == sorted(long_names.values())
    assert _drawn_extent(fig, legend).x1 <= width


@pytest.mark.filterwarnings("ignore::dppca.privacy.accuracy.DPAccuracyWarning")
def test_scree_marks_exactly_the_values_flagged_unreliable(gau):
    # The hollow markers are drawn from result.reliable (the public accuracy model's verdict):
    # 150 rows x 6 columns at eps 0.5 are flagged (the model predicts noise above the values),
    # all 5,000 rows at eps 4 are not; both cases must occur, or the test would check nothing.
    from dppca.plotting.scree import UNRELIABLE_LABEL

    small = dp_scree(gau.iloc[:150, :6], 3, eps=0.5, delta=1e-5, rng=1)
    large = dp_scree(gau, 3, eps=4, delta=1e-5, rng=1)
    assert not small.reliable.to_numpy().any() and large.reliable.to_numpy().all()
    for result in (small, large):
        for kind, frame in (("scree", result.scree), ("pve", result.pve)):
            ax = result.plot(type=kind).axes[0]
            drawn = {(float(x), float(y)) for line in ax.lines if line.get_gid() == "unreliable"
                     for x, y in zip(line.get_xdata(), line.get_ydata())}
            expected = {(float(i + 1), float(frame[m].iloc[i])) for m in result.methods
                        for i in range(result.k) if not result.reliable[m].iloc[i]}
            assert drawn == expected
            assert (UNRELIABLE_LABEL in ax.get_legend_handles_labels()[1]) is bool(expected)


@pytest.mark.filterwarnings("ignore::dppca.privacy.accuracy.DPAccuracyWarning")
def test_scree_draws_an_arrow_for_each_interval_with_no_finite_upper_end():
    # iris (150 x 4) at eps 1, seed 0: the private trace reads far below the released values,
    # so it bounds nothing and the clipped intervals' upper ends are inf (not the largest float,
    # which printed as a 309-digit number): each such interval is an arrow from its lower end to
    # the top of the axes, and the legend says what an arrow means. gau at eps 4 has none.
    from sklearn.datasets import load_iris

    from dppca.plotting.scree import UNBOUNDED_LABEL

    small = dp_scree(load_iris(as_frame=True).data, 3, eps=1, delta=1e-5, rng=0)
    large = dp_scree(load_gau(), 3, eps=4, delta=1e-5, rng=1)
    for result in (small, large):
        ci = result.conf_int()
        upper, lower = ci[("clipped", "upper")].to_numpy(), ci[("clipped", "lower")].to_numpy()
        assert np.all(np.isinf(upper) | (upper < 1e300))
        ax = result.plot(type="scree").axes[0]
        arrows = [a for a in ax.texts if a.get_gid() == "unbounded"]
        starts = sorted((float(a.xyann[0]), float(a.xyann[1])) for a in arrows)
        expected = sorted((float(i + 1), float(lower[i])) for i in np.flatnonzero(np.isinf(upper)))
        assert starts == expected
        assert (UNBOUNDED_LABEL in ax.get_legend_handles_labels()[1]) is bool(expected)
    assert np.isinf(small.conf_int()[("clipped", "upper")].to_numpy()).any()
