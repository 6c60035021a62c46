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

test_that("`budget` of dp_scree and dp_score* is checked in R before any call", {
  for (bad in list(1, c("a", "b"), NA_character_, "", list("a"))) {
    expect_error(dppcapy:::.budget_arg(bad), "`budget` must be NULL", class = "dppca_type_error")
  }
  expect_null(dppcapy:::.budget_arg(NULL))
  expect_identical(dppcapy:::.budget_arg("survey"), "survey")
  fake <- structure(list(handle = "the handle"), class = "dppca_budget")
  expect_identical(dppcapy:::.budget_arg(fake), "the handle")
  for (f in list(dp_scree, dp_scree_plot, dp_score, dp_score_group, dp_score_plot,
                 dp_score_plot_group)) {
    expect_true("budget" %in% names(formals(f)))
    expect_null(formals(f)$budget)
  }
})

test_that("dp_scree and dp_score* are charged to the budget and refused once it is spent", {
  skip_if_no_dppca()
  store <- paste0("sqlite:///", tempfile(fileext = ".sqlite3"))
  reticulate::import("dppca.privacy")$BudgetStore(store)$register("gau", eps = 1, delta = 1e-5)
  b <- dp_budget("gau", store = store)
  # Small data and eps: the accuracy warnings (public numbers) are expected here.
  suppressWarnings({
    dp_scree(gau_small(), k = 2, eps = 0.5, delta = 1e-6, seed = 1, budget = b)
    dp_score(gau_small(), eps = 0.25, delta = 1e-6, bins = c(5, 5), seed = 1, budget = b)
  })
  expect_equal(dp_budget("gau", store = store)$eps_left, 0.25)
  expect_error(dp_score_group(gau_small(), rep(c("a", "b"), length.out = nrow(gau_small())),
                              eps = 0.5, delta = 1e-6, bins = c(5, 5), seed = 1, budget = b),
               "budget is exhausted")
  expect_equal(dp_budget_log("gau", store = store)[["function"]], c("dp_scree", "dp_score"))
})
