"""Issue 24's figure findings, judged from the drawn artists: the budget in titles as the
summaries state it (1), the additive histogram's noise floor and its labelled scale (2), group
colours never blended (3), fonts for non-Latin names (4)."""
import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb

from dppca import dp_pc_dir, dp_score_group, dp_score_plot, dp_scree_plot, load_gau, load_gau_g
from dppca.plotting import labels
from dppca.plotting.score import BELOW_FLOOR_COLOUR

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def gau():
    return load_gau()


def _inside(fig, text) -> bool:
    fig.canvas.draw()
    box = text.get_window_extent(fig.canvas.get_renderer())
    width, height = fig.canvas.get_width_height()
    return box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height


def _colour_bar(ax):
    return next(child for child in ax.child_axes if hasattr(child, "_colorbar"))


def test_report_section_titles_say_share_of_the_total(gau):
    """Finding 1: a report section's figure read 'eps=0.3' in a report of eps = 1."""
    result = dp_pc_dir(gau.iloc[:, :13], 2, g_dppca=True, eps=1 / 3, delta=1e-5 / 3, rng=1)
    result.total_eps, result.budget_share = 1.0, 1 / 3
    result.scale_source = "private (10% of eps, report)"  # the CLI's wine label (the long one)
    fig = result.plot()
    title = fig.axes[0].title
    flat = " ".join(title.get_text().split())
    assert "eps 0.3333 of 1 (section share)" in flat and "delta 3.333e-06" in flat
    assert "eps=0.3333" not in flat and "scaling: private (10% of eps, report)" in flat
    assert "Epsilon: 0.3333 of 1 (section share)" in " ".join(str(result.summary()).split())
    assert _inside(fig, title)  # it was cut off: "...(10% of eps, re"
    # the heat map shows the result's loadings
    np.testing.assert_array_equal(fig.axes[0].images[0].get_array(), result.directions.to_numpy())


def test_additive_noise_floor_is_drawn_and_the_scale_labelled(gau):
    """Finding 2: noise cells of the additive histogram read as structure in its sample panel."""
    res = dp_score_plot(gau, 1.0, 1e-5, g_dppca=True, rng=2, method="add")
    sigma = next(r.noise_scale for r in res.ledger if r.step == "histogram: add")
    floor = 3 * sigma / res.n_obs  # 3 sd of a count, over n (public; groups: the private total)
    hist_ax, sample_ax = (ax for ax in res.figure.axes if ax.get_title() in
                          ("Add DP Histogram", "Add Sample (Uniform)"))
    bar = _colour_bar(hist_ax)
    assert "power scale, gamma 0.5" in bar.get_ylabel()
    lines = [line.get_ydata()[0] for line in bar.lines]
    assert lines == [pytest.approx(floor, rel=1e-12)]
    # its label is a tick at the floor, as large as the value ticks, overlapping none of them
    # (it was a 6-point "noise\nfloor" inside the bar, unreadable)
    res.figure.canvas.draw()
    ticks = dict(zip((t.get_text() for t in bar.get_yticklabels()), bar.get_yticks()))
    assert ticks["noise\nfloor"] == pytest.approx(floor, rel=1e-12)
    assert all(0 <= t <= bar.get_ylim()[1] for t in ticks.values())  # no tick beyond the bar
    labels = {t.get_text(): t for t in bar.get_yticklabels()}
    label = labels.pop("noise\nfloor")
    assert len(labels) >= 2 and {t.get_fontsize() for t in labels.values()} == {label.get_fontsize()}
    assert label.get_fontsize() >= 0.75 * matplotlib.rcParams["font.size"]
    box = label.get_window_extent()
    assert not any(box.overlaps(t.get_window_extent()) for t in labels.values())
    # cells: the image's grey cells are exactly the non-empty cells below the floor
    prob = res.histogram("add")["prob"].to_numpy()
    rgba = hist_ax.images[0].get_array().reshape(-1, 4)
    grey = np.all(np.isclose(rgba[:, :3], to_rgb(BELOW_FLOOR_COLOUR)), axis=1) & (rgba[:, 3] > 0)
    np.testing.assert_array_equal(grey, (prob > 0) & (prob < floor))
    assert grey.any() and (prob >= floor).any()
    # sample points: grey exactly where their cell is below the floor, and the share is written
    points = res.samples["add"]["uniform"]
    (x0, x1), (y0, y1) = res.frame["xlim"], res.frame["ylim"]
    m_x, m_y = res.bins
    ix = np.clip(((points.pc_x - x0) / (x1 - x0) * m_x).astype(int), 0, m_x - 1)
    iy = np.clip(((points.pc_y - y0) / (y1 - y0) * m_y).astype(int), 0, m_y - 1)
    below = prob[iy * m_x + ix] < floor
    colours = sample_ax.collections[0].get_facecolors()[:, :3]
    drawn_grey = np.all(np.isclose(colours, to_rgb(BELOW_FLOOR_COLOUR)), axis=1)
    assert drawn_grey.sum() == below.sum() > 0
    note = " ".join(t.get_text() for t in sample_ax.texts)
    assert f"{below.mean():.0%} of points" in note and "noise floor" in note



def test_noise_floor_tick_keeps_the_colour_bar_title_out_of_the_next_panel(gau):
    """The floor's tick label widens the bar's tick column; its title must still end before
    the panel to its right begins (tick labels included)."""
    fig = dp_score_plot(gau, 1.0, 1e-5, g_dppca=True, rng=2).figure
    fig.canvas.draw()
    panels = {ax.get_title(): ax for ax in fig.axes}
    title = _colour_bar(panels["Add DP Histogram"]).yaxis.label.get_window_extent()
    assert title.x1 < panels["Sparse DP Histogram"].get_tightbbox().x0

def test_grouped_cells_take_one_group_colour_never_a_blend():
    """Finding 3: red + green cells showed as brown, another group's legend colour."""
    g = load_gau_g()
    res = dp_score_group(g, "group", eps=4.0, delta=1e-5, g_dppca=True, rng=3, method="sparse",
                         levels=sorted(g["group"].unique()))
    fig = res.plot(private_plot="histogram")
    legend = {t.get_text(): to_rgb(h.get_facecolor())
              for t, h in zip(fig.legends[0].get_texts(), fig.legends[0].legend_handles)}
    ax = next(ax for ax in fig.axes if ax.get_title() == "Sparse DP Histogram")
    rgba = ax.images[0].get_array().reshape(-1, 4)
    filled = rgba[:, 3] > 0
    hist = res.histogram("sparse")
    prob = hist["prob"].to_numpy().reshape(len(legend), -1)
    shares = res.group_weights("sparse") / res.group_weights("sparse").sum()
    largest = np.array(hist["group"].cat.categories)[np.argmax(prob * shares[:, None], axis=0)]
    for cell in np.flatnonzero(filled):  # each filled cell: its largest group's legend colour
        np.testing.assert_allclose(rgba[cell, :3], legend[largest[cell]])
    assert len({tuple(c) for c in rgba[filled, :3]}) > 2  # several groups are shown


def test_non_latin_names_use_an_installed_fallback_font_or_warn(monkeypatch):
    """Finding 4: Chinese column names rendered as empty boxes."""
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(200, 3)), columns=["收入", "年龄", "x"])
    result = dp_pc_dir(X, 2, g_dppca=False)
    installed = labels._installed(labels.FALLBACK_FONTS)
    if installed:  # the tick labels carry the fallback font after matplotlib's default
        ticks = result.plot().axes[0].get_yticklabels()
        assert [t.get_text() for t in ticks] == ["收入", "年龄", "x"]
        assert installed[0] in ticks[0].get_fontfamily()
    monkeypatch.setattr(labels, "FALLBACK_FONTS", ("No Such Font CJK",))
    with pytest.warns(UserWarning, match=r"\['收入', '年龄'\].*fonts-noto-cjk"):
        result.plot()


@pytest.mark.parametrize("standardize", [False, "rank"])
def test_scree_legend_leaves_the_interval_caps_uncovered(standardize):
    """The legend in its R default corner (top right) covered the caps of the last intervals
    (four entries: the NON-PRIVATE line and three methods); the axes keep a band above every
    line and cap for it."""
    rng = np.random.default_rng(0)
    z = rng.standard_normal((3000, 3))
    X = pd.DataFrame(np.c_[z[:, 0] + z[:, 1], z[:, 0] - z[:, 1] / 2, z[:, 1] + z[:, 2] / 5,
                           np.exp(z[:, 0]), z[:, 2]])
    methods = {} if standardize == "rank" else {"method": ["clipped", "pmwm", "huber"]}
    fig = dp_scree_plot(X, 4, eps=1.0, delta=1e-5, rng=1, type="scree", nonprivate=True,
                        standardize=standardize, **methods).figure
    ax = fig.axes[0]
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    assert not [a for a in [*ax.lines, *ax.collections] if _points_inside(a, legend)]


def _points_inside(artist, box) -> bool:
    """Whether any vertex of a line or a bar segment lies inside ``box`` (display units)."""
    if hasattr(artist, "get_segments"):
        points = [p for seg in artist.get_segments() for p in seg]
    else:
        points = artist.get_xydata()
    if len(points) == 0:
        return False
    display = artist.get_transform().transform(np.asarray(points, dtype=float))
    return bool(((display[:, 0] >= box.x0) & (display[:, 0] <= box.x1)
                 & (display[:, 1] >= box.y0) & (display[:, 1] <= box.y1)).any())
