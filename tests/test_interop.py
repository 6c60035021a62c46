"""dppca.interop: results as the R package's objects, through rpy2 (R in-process).

The payload tests need no R. The rpy2 tests skip when rpy2 or R is missing; CI has both
(the main venv installs the ``[r]`` extra and Debian's R).
"""
import numpy as np
import pandas as pd
import pytest

import dppca
from dppca import interop


@pytest.fixture(scope="module")
def ro():
    try:
        import rpy2.robjects as robjects

        robjects.r("R.version.string")
    except Exception as err:  # rpy2 not installed, or R missing: rpy2 cannot embed it
        pytest.skip(f"rpy2 with R is not usable: {err}")
    return robjects


@pytest.fixture(scope="module")
def gau():
    return dppca.load_gau().iloc[:300]


@pytest.fixture(scope="module")
def private_directions(gau):
    return dppca.dp_pc_dir(gau, k=3, g_dppca=True, eps=1, delta=1e-5, rng=4)


@pytest.fixture(scope="module")
def grouped_score():
    data = dppca.load_gau_g().iloc[::10]
    return dppca.dp_score_group(data, "group", eps=3, delta=1e-4, bins=(5, 4), method="add",
                                rng=2, nonprivate=True)


@pytest.fixture(scope="module")
def scree(gau):
    return dppca.dp_scree(gau, 3, ["clipped", "huber"], eps=2, delta=1e-5, g_dppca=True, rng=5,
                          nonprivate=True)


def r_eval(ro, code, **objects):
    """Evaluate R ``code`` with ``objects`` bound in a fresh environment."""
    env = ro.r["new.env"]()
    for name, value in objects.items():
        env[name] = value
    return ro.r["eval"](ro.r["parse"](text=code), env)


# ----------------------------------------------------------------------------- payloads
def test_directions_payload_is_the_r_matrix(private_directions):
    node = interop.r_payload(private_directions)
    assert node["r"] == "matrix"
    assert node["class"] == ["dppca_directions", "matrix", "array"]
    np.testing.assert_array_equal(node["values"], private_directions.directions.to_numpy())
    assert node["rownames"] == [f"V{j}" for j in range(1, 21)]
    assert node["colnames"] == ["PC1", "PC2", "PC3"]
    ledger = node["attributes"]["ledger"]
    assert ledger["class"] == ["dppca_ledger", "data.frame"]
    assert ledger["names"] == list(interop.LEDGER_COLUMNS)
    assert "Differentially Private PC Directions" in node["attributes"]["summary"]["values"][0]


def test_nonprivate_directions_have_no_ledger(gau):
    node = interop.r_payload(dppca.dp_pc_dir(gau, k=2))
    assert "ledger" not in node["attributes"]


def test_score_payload_follows_r_order(grouped_score):
    node = interop.r_payload(grouped_score)
    assert node["names"] == ["score", "frame", "groups"]
    groups = node["values"][2]
    assert groups["names"] == [f"group{g}" for g in range(1, 6)]
    first = groups["values"][0]
    assert first["names"] == ["n", "nonprivate", "add"]
    assert first["values"][0]["mode"] == "integer"
    assert first["values"][2]["names"] == ["xmin", "xmax", "ymin", "ymax", "prob"]


def test_scree_payload_follows_r_order(scree):
    node = interop.r_payload(scree)
    assert node["names"] == ["nonprivate", "clipped", "huber"]
    assert node["class"] == ["dppca_scree"]
    clipped = node["values"][1]
    assert clipped["names"] == ["scree", "pve"]
    assert clipped["values"][0]["names"] == ["PC1", "PC2", "PC3"]
    np.testing.assert_allclose(clipped["values"][0]["values"], scree.scree["clipped"])
    assert set(clipped["attributes"]) == {"pve_among_k", "cumulative_pve", "total_variance", "raw",
                                          "std_err", "conf_int", "ledger"}
    assert "ledger" not in node["values"][0]["attributes"]  # the NON-PRIVATE reference


def test_payload_of_unknown_object_is_a_type_error():
    with pytest.raises(TypeError, match="no R form for dict"):
        interop.r_payload({"a": 1})


def test_node_constructors_check_their_input():
    with pytest.raises(ValueError, match="mode"):
        interop.r_vector([1], "complex")
    with pytest.raises(ValueError, match="2-D"):
        interop.r_matrix([1.0, 2.0])


def test_call_for_r_returns_warnings_as_messages():
    import warnings

    def noisy(x):
        warnings.warn("careful", UserWarning)
        return x + 1

    assert interop.call_for_r(noisy, 1) == (2, ["careful"])


# ----------------------------------------------------------------------------- rpy2 route
def test_directions_become_the_r_packages_matrix(ro, private_directions):
    V = interop.to_r(private_directions)
    facts = r_eval(ro, """list(is.matrix(V), class(V), dim(V), rownames(V)[1:2], colnames(V),
                             inherits(V, "dppca_directions"), sum(attr(V, "ledger")$eps),
                             names(attributes(V)))""", V=V)
    assert bool(facts[0][0])
    assert list(facts[1]) == ["dppca_directions", "matrix", "array"]
    assert list(facts[2]) == [20, 3]
    assert list(facts[3]) == ["V1", "V2"]
    assert list(facts[4]) == ["PC1", "PC2", "PC3"]
    assert bool(facts[5][0])
    assert facts[6][0] == pytest.approx(1.0)
    assert sorted(facts[7]) == sorted(["dim", "dimnames", "ledger", "eigenvalues", "method", "summary",
                                       "class"])


def test_directions_round_trip(ro, private_directions):
    back = interop.from_r(interop.to_r(private_directions))
    pd.testing.assert_frame_equal(back, private_directions.directions, check_names=False)


def test_grouped_score_becomes_the_r_packages_list(ro, grouped_score):
    G = interop.to_r(grouped_score)
    facts = r_eval(ro, """list(names(G), names(G$groups), names(G$groups$group1), class(G$groups$group1$n),
                             dim(G$score), names(G$groups$group3$add), nrow(G$groups$group3$add),
                             sum(G$groups$group2$nonprivate$prob), names(G$frame))""", G=G)
    assert list(facts[0]) == ["score", "frame", "groups"]
    assert list(facts[1]) == [f"group{g}" for g in range(1, 6)]
    assert list(facts[2]) == ["n", "nonprivate", "add"]
    assert list(facts[3]) == ["integer"]
    assert list(facts[4]) == [500, 2]
    assert list(facts[5]) == ["xmin", "xmax", "ymin", "ymax", "prob"]
    assert facts[6][0] == 20
    assert facts[7][0] == pytest.approx(1.0)
    assert list(facts[8]) == ["xlim", "ylim"]


def test_scree_becomes_the_r_packages_list(ro, scree):
    S = interop.to_r(scree)
    facts = r_eval(ro, """list(names(S), names(S$clipped), names(S$huber$scree),
                             sum(attr(S$clipped, "pve_among_k")), dim(attr(S$huber, "conf_int")),
                             sum(attr(S, "ledger")$eps), is.list(S))""", S=S)
    assert list(facts[0]) == ["nonprivate", "clipped", "huber"]
    assert list(facts[1]) == ["scree", "pve"]
    assert list(facts[2]) == ["PC1", "PC2", "PC3"]
    assert facts[3][0] == pytest.approx(1.0)
    assert list(facts[4]) == [3, 2]
    assert facts[5][0] == pytest.approx(2.0)
    assert bool(facts[6][0])
    back = interop.from_r(S)
    np.testing.assert_allclose(back["huber"]["pve"].to_numpy(), scree.pve["huber"].to_numpy())


def test_score_matrix_has_no_row_names_as_in_r(grouped_score):
    """Issue 11.9: R's dp_score returns the score matrix without row names."""
    node = interop.score_payload(grouped_score)
    score = node["values"][list(node["names"]).index("score")]
    assert score["rownames"] is None and list(score["colnames"]) == ["PC1", "PC2"]


def test_score_matrix_round_trip(ro, grouped_score):
    back = interop.from_r(interop.to_r(grouped_score))
    assert list(back["score"].columns) == ["PC1", "PC2"]


def test_samples_become_named_data_frames(ro, grouped_score):
    grouped_score.draw_samples(dppca.sampling_control(("uniform", "center"), sample_size=30))
    samples = interop.from_r(interop.materialize(interop.samples_payload(grouped_score)))
    assert list(samples) == ["nonprivate", "add"]
    assert list(samples["add"]) == ["uniform", "center"]
    assert list(samples["add"]["center"].columns) == ["pc_x", "pc_y", "group"]
    assert len(samples["add"]["center"]) == 30


def test_pandas_and_data_frames_keep_names(ro):
    frame = pd.DataFrame({"height": [1.5, 2.5, 3.0], "count": [1, 2, 3], "label": ["a", "b", "c"]},
                         index=["r1", "r2", "r3"])
    robj = interop.to_r(frame)
    facts = r_eval(ro, "list(names(d), rownames(d), class(d$count), class(d$label))", d=robj)
    assert list(facts[0]) == ["height", "count", "label"]
    assert list(facts[1]) == ["r1", "r2", "r3"]
    assert list(facts[2]) == ["integer"]
    assert list(facts[3]) == ["character"]
    back = interop.from_r(robj)
    assert list(back.index) == ["r1", "r2", "r3"]
    np.testing.assert_array_equal(back["height"], frame["height"])


def test_r_data_frame_to_pandas_and_into_dppca(ro):
    usarrests = ro.r("datasets::USArrests")
    frame = interop.from_r(usarrests)
    assert list(frame.columns) == ["Murder", "Assault", "UrbanPop", "Rape"]
    assert frame.index[0] == "Alabama"
    result = dppca.dp_pc_dir(frame, k=2)
    assert list(result.directions.index) == list(frame.columns)


def test_series_and_r_vectors(ro):
    robj = interop.to_r(pd.Series([1.0, 2.0], index=["x", "y"]))
    assert list(ro.r["names"](robj)) == ["x", "y"]
    back = interop.from_r(robj)
    assert back.to_dict() == {"x": 1.0, "y": 2.0}
    assert interop.from_r(ro.r("c(1.5, 2.5)")).tolist() == [1.5, 2.5]
    assert interop.from_r(ro.r("list(a = 'z', b = NULL)")) == {"a": "z", "b": None}


def test_converter_context_assigns_results_as_r_objects(ro, private_directions):
    with interop.converter().context():
        ro.globalenv["dppca_V"] = private_directions
    try:
        assert list(ro.r("class(dppca_V)")) == ["dppca_directions", "matrix", "array"]
    finally:
        ro.r("rm(dppca_V)")


def test_ledger_converts_on_its_own(ro, private_directions):
    ledger = interop.from_r(interop.to_r(private_directions.ledger))
    assert list(ledger.columns) == list(interop.LEDGER_COLUMNS)
    assert ledger["eps"].sum() == pytest.approx(1.0)


def test_user_xi_runs_on_the_calling_thread():
    """Issue 11.4: reticulate aborts R when an R function `xi` is called from a worker thread."""
    import threading

    from dppca.stats.kendall import kendall_tau_matrix

    threads = set()

    def xi(s):
        threads.add(threading.get_ident())
        return np.ones_like(s)

    X = np.random.default_rng(3).normal(size=(300, 4))
    K = kendall_tau_matrix(X, xi=xi, tile=32)  # many strips: the built-in signs would use workers
    assert threads == {threading.get_ident()}
    np.testing.assert_allclose(K, kendall_tau_matrix(X, tile=32), rtol=1e-12, atol=1e-15)
