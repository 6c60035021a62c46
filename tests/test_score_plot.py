"""dp_score_plot / dp_score_plot_group, score_plot_control and the report's score section."""
import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

from dppca import (DPPCATypeError, DPPCAValueError, dp_score_plot, dp_score_plot_group,
                   score_plot_control)
from dppca.cli import main

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def grouped():
    """n=450, p=3, three clusters labelled by a string column."""
    rng = np.random.default_rng(5)
    centres = np.array([[-5.0, 0, 0], [5, 0, 0], [0, 5, 0]])
    codes = np.repeat([0, 1, 2], 150)
    frame = pd.DataFrame(centres[codes] + rng.normal(size=(450, 3)), columns=["u", "v", "w"])
    frame["kind"] = np.array(["x", "y", "z"])[codes]
    return frame


def _panels(fig):
    """The panel Axes of a figure (colour bars excluded), in drawing order."""
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def _titles(fig):
    return [ax.get_title() for ax in _panels(fig) if ax.axison]


def test_private_panels_only_by_default(grouped):
    res = dp_score_plot(grouped.drop(columns="kind"), 3.0, 1e-5, g_dppca=True, rng=1)
    titles = _titles(res.figure)
    assert titles == ["Add DP Histogram", "Sparse DP Histogram", "Add Sample (Uniform)",
                      "Sparse Sample (Uniform)"]
    assert not any("NON-PRIVATE" in t for t in titles)
    assert "WARNING" not in res.figure._suptitle.get_text()
    assert set(res.samples) == {"add", "sparse"} and len(res.samples["add"]["uniform"]) == 450
    ax = res.figure.axes[0]
    assert ax.get_xlim() == pytest.approx(res.frame["xlim"]) and ax.get_ylabel().startswith("PC2 score")


def test_nonprivate_panels_are_labelled_and_laid_out_like_r(grouped):
    res = dp_score_plot(grouped.drop(columns="kind"), 3.0, 1e-5, method="add",
                        sampling_control={"method": ("uniform", "center")}, nonprivate=True,
                        g_dppca=False, rng=2)
    axes = np.array(_panels(res.figure)).reshape(3, 3)
    assert not axes[0, 0].axison  # R's spacer above the scatter
    assert axes[1, 0].get_title() == "NON-PRIVATE Scatter"
    assert [ax.get_title() for ax in axes[:, 1]] == ["NON-PRIVATE Histogram", "NON-PRIVATE Sample (Uniform)",
                                                     "NON-PRIVATE Sample (Center)"]
    assert axes[2, 2].get_title().startswith("Add Sample (Center)")
    # g_dppca=False: the directions are NON-PRIVATE, and the figure says so.
    assert "NON-PRIVATE" in res.figure._suptitle.get_text()
    assert "(NON-PRIVATE directions)" in axes[0, 2].get_title()


def test_histogram_row_only_and_custom_titles(grouped):
    control = score_plot_control(add_title="Noisy", nonprivate_title="Truth", xlab="first")
    res = dp_score_plot(grouped.drop(columns="kind"), 3.0, 1e-5, private_plot="histogram", g_dppca=True,
                        plot_control=control, nonprivate=True, rng=3)
    assert _titles(res.figure) == ["NON-PRIVATE Scatter", "NON-PRIVATE: Truth", "Noisy",
                                   "Sparse DP Histogram"]
    assert res.samples == {}
    assert res.figure.axes[0].get_xlabel() == "first"


def test_group_plot_has_palette_legend_and_private_sample_allocation(grouped):
    res = dp_score_plot_group(grouped, "kind", 3.0, 1e-5, g_dppca=True, rng=4)
    legend = res.figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["x", "y", "z"]
    tab10 = [matplotlib.colors.to_hex(c) for c in matplotlib.colormaps["tab10"].colors[:3]]
    assert [matplotlib.colors.to_hex(h.get_facecolor()) for h in legend.legend_handles] == tab10
    sample = res.samples["add"]["uniform"]
    assert set(sample["group"]) == {"x", "y", "z"} and len(sample) == 450
    assert "group" in res.histograms["sparse"]


def test_group_colors_override_the_palette(grouped):
    control = score_plot_control(group_colors={"x": "red", "y": "blue", "z": "green"})
    res = dp_score_plot_group(grouped, "kind", 3.0, 1e-5, private_plot="histogram",
                              plot_control=control, rng=5)
    handles = res.figure.legends[0].legend_handles
    assert [matplotlib.colors.to_hex(h.get_facecolor()) for h in handles] == ["#ff0000", "#0000ff", "#008000"]
    with pytest.raises(DPPCAValueError, match="must name every group; missing \\['z'\\]"):
        dp_score_plot_group(grouped, "kind", 3.0, 1e-5,
                            plot_control={"group_colors": {"x": "red", "y": "blue"}})


def test_plot_is_reproducible(grouped, tmp_path):
    paths = []
    for name in "ab":
        res = dp_score_plot_group(grouped, "kind", 2.0, 1e-5, rng=6)
        paths.append(tmp_path / f"{name}.png")
        res.figure.savefig(paths[-1], dpi=40)
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_result_plot_draws_default_samples(grouped):
    from dppca import dp_score

    res = dp_score(grouped.drop(columns="kind"), 3.0, 1e-5, rng=7)
    fig = res.plot()
    # The figure shows default samples (private directions by default); the result is left as
    # it was (no samples, no figure).
    assert _titles(fig)[2:] == ["Add Sample (Uniform)", "Sparse Sample (Uniform)"]
    assert res.samples == {} and res.figure is None


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(color="notacolour"), DPPCAValueError, "`color` must be a matplotlib colour"),
    (dict(scatter_alpha=1.5), DPPCAValueError, "`scatter_alpha` must be a number in \\[0, 1\\]"),
    (dict(scatter_size=0), DPPCAValueError, "`scatter_size` must be a finite number > 0"),
    (dict(hist_alpha_range=(0.8, 0.2)), DPPCAValueError, "a <= b"),
    (dict(hist_alpha_range=0.5), DPPCAValueError, "two numbers"),
    (dict(hist_gamma=-1), DPPCAValueError, "`hist_gamma`"),
    (dict(add_title=3), DPPCATypeError, "`add_title` must be a string or None"),
    (dict(group_colors=["red", "nope"]), DPPCAValueError, "`group_colors`"),
    (dict(group_colors=[]), DPPCAValueError, "must not be empty"),
    (dict(palette="rainbowz"), DPPCAValueError, "`palette`"),
    (dict(show_group_legend="no"), DPPCATypeError, "`show_group_legend`"),
])
def test_plot_control_is_validated_at_construction(kwargs, error, message):
    with pytest.raises(error, match=message):
        score_plot_control(**kwargs)


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(private_plot="hist"), DPPCAValueError, "`private_plot` must be one of"),
    (dict(plot_control={"colour": "red"}), DPPCATypeError, "unknown settings \\['colour'\\]"),
    (dict(plot_control="red"), DPPCATypeError, "`plot_control` must be None, a score_plot_control\\(\\)"),
    (dict(sampling_control={"method": "both"}), DPPCAValueError, "`method` must be one of"),
])
def test_plot_arguments_are_checked_before_any_release(grouped, kwargs, error, message):
    with pytest.raises(error, match=message):
        dp_score_plot(grouped.drop(columns="kind"), 1.0, 1e-5, **kwargs)


# ------------------------------------------------------------------------ the report
@pytest.fixture
def report(tmp_path, grouped):
    """Run ``dppca report`` on ``grouped`` saved as CSV; returns (exit code, output folder)."""
    csv = tmp_path / "data.csv"
    grouped.to_csv(csv, index=False)

    def run(*options):
        out = tmp_path / "report"
        return main(["report", "--data", str(csv), "--delta", "1e-5", "--sections", "score",
                     "--out", str(out), *options]), out

    return run


def test_report_score_section_grouped(report, capsys, saved_figures):
    # complete data, declared so (--missing 0): the section has the report's whole budget
    code, out = report("--eps", "3", "--seed", "1", "--group", "kind", "--missing", "0")
    assert code == 0
    hist = pd.read_csv(out / "score_histograms.csv")
    assert set(hist["method"]) == {"add", "sparse"} and set(hist["group"]) == {"x", "y", "z"}
    # The saved figure draws the CSV: a histogram panel per method on the CSV's frame, one
    # legend entry per group, the section's share of the report's budget in the title.
    fig = saved_figures["score.png"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["x", "y", "z"]
    for method in ("add", "sparse"):
        ax = next(ax for ax in fig.axes if ax.get_title() == f"{method.title()} DP Histogram")
        rows = hist[hist["method"] == method]
        assert ax.get_xlim() == pytest.approx((rows["xmin"].min(), rows["xmax"].max()))
        assert ax.get_ylim() == pytest.approx((rows["ymin"].min(), rows["ymax"].max()))
        # a cell is drawn (opaque) exactly where some group has mass in the CSV
        mass = rows.groupby(["ymin", "xmin"], sort=True)["prob"].sum().to_numpy()
        alpha = ax.images[0].get_array()[..., 3].reshape(-1)
        np.testing.assert_array_equal(alpha > 0, mass > 0)
    assert "eps 3 of 3 (section share)" in fig.get_suptitle()
    ledger = json.loads((out / "ledger.json").read_text())["sections"]["score"]
    assert ledger["spent_eps"] == pytest.approx(3.0)
    text = capsys.readouterr().out
    assert "Differentially Private PC Score Histograms" in text and "g-DPPCA (private)" in text


def test_report_score_section_rejects_unknown_group(report, capsys):
    code, _ = report("--eps", "1", "--group", "nope")
    assert code == 2 and "--group must name a column" in capsys.readouterr().err
