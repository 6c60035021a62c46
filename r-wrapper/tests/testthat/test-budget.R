test_that("dp_budget shows the store's spend and refuses once the total is spent", {
  skip_if_no_dppca()
  store <- paste0("sqlite:///", tempfile(fileext = ".sqlite3"))
  reticulate::import("dppca.privacy")$BudgetStore(store)$register("gau", eps = 1, delta = 1e-5)
  b <- dp_budget("gau", store = store)
  expect_s3_class(b, "dppca_budget")
  expect_equal(b$eps_left, 1)
  dp_pc_dir(gau_small(), k = 2, eps = 0.75, delta = 1e-6, seed = 1, budget = b$handle)
  expect_equal(dp_budget("gau", store = store)$eps_left, 0.25)
  expect_error(dp_pc_dir(gau_small(), k = 2, eps = 0.5, delta = 1e-6, seed = 1,
                         budget = b$handle), "budget is exhausted")
  log <- dp_budget_log("gau", store = store)
  expect_equal(log[["function"]], "dp_pc_dir")
  expect_equal(log$status, "ok")
  expect_output(print(dp_budget("gau", store = store)), "eps 0.75 of 1 spent")
})

test_that("dp_budget names its arguments when they are wrong", {
  expect_error(dp_budget(c("a", "b")), "`name`", class = "dppca_value_error")
  expect_error(dp_budget("a", store = 1), "`store`", class = "dppca_value_error")
})
