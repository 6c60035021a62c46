"""Issue 23: the app's two facts that depend on more than the public schema, as documented.

docs/privacy.md ("What the proof does not cover") states both rules and why they are outside
the (eps, delta) guarantee; these tests pin the rules so that the page cannot say more:

* the upload size limit refuses on the file's byte count alone (name and size in the message,
  no cell read), shown only to the uploader, who holds the file;
* an upload is charged to a registered dataset only when every value is equal (the store's
  fingerprint: an equality test of the whole table); a table that differs in one value by one
  ulp is not matched and gets the session's own budget.
"""
import numpy as np
import pandas as pd
import pytest

from dppca.app.data import MAX_UPLOAD_BYTES, AppDataError, read_upload
from dppca.app.session import registered_budget
from dppca.privacy import BudgetStore


def _oversized(path, fill: bytes):
    with open(path, "wb") as handle:
        handle.write(b"a,b\n" + fill)
        handle.truncate(MAX_UPLOAD_BYTES + 1)  # the rest is NUL bytes: not CSV text at all
    return path


def test_the_size_refusal_is_a_function_of_the_name_and_byte_size_only(tmp_path):
    messages = set()
    for i, fill in enumerate((b"1,2\n", b"x" * 1000 + b",\n", b"\xff\xfe")):
        path = _oversized(tmp_path / f"{i}.csv", fill)
        with pytest.raises(AppDataError) as raised:
            read_upload(path, "data.csv")
        messages.add(str(raised.value))
    assert len(messages) == 1  # three contents, one size: one message
    (message,) = messages
    assert f"{MAX_UPLOAD_BYTES + 1:,} bytes" in message and "'data.csv'" in message


def test_an_upload_is_charged_to_a_registered_dataset_only_when_every_value_is_equal(tmp_path,
                                                                                     monkeypatch):
    url = "sqlite:///" + str(tmp_path / "budget.sqlite3")
    X = np.random.default_rng(0).standard_normal((50, 3))
    BudgetStore(url).register("survey", eps=2.0, delta=1e-5, values=X)
    monkeypatch.setenv("DPPCA_BUDGET_URL", url)
    assert registered_budget(pd.DataFrame(X[::-1])).name == "survey"  # any row order
    X_prime = X.copy()
    X_prime[7, 1] = np.nextafter(X[7, 1], np.inf)
    assert registered_budget(pd.DataFrame(X_prime)) is None
    monkeypatch.delenv("DPPCA_BUDGET_URL")
    assert registered_budget(pd.DataFrame(X)) is None  # no store configured: no lookup at all
