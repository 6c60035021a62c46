test_that("the datasets match the R package's", {
  expect_identical(dim(gau), c(5000L, 20L))
  expect_identical(names(gau), paste0("V", 1:20))
  expect_s3_class(gau, "data.frame")
  expect_identical(dim(gau_g), c(5000L, 21L))
  expect_identical(gau_g[names(gau)], gau)
  expect_identical(unique(gau_g$group), paste0("group", 1:5))
  expect_identical(as.vector(table(gau_g$group)), rep(1000L, 5))
  expect_identical(dim(adult), c(32561L, 5L))
  expect_identical(names(adult), c("age", "education_num", "capital_gain", "capital_loss",
                                   "hours_per_week"))
})

test_that("the R datasets are the Python package's numbers", {
  skip_if_no_dppca()
  py <- reticulate::import("dppca")
  # to_numpy(): reticulate 1.28 does not convert pandas 3 DataFrames (class "pandas.DataFrame").
  expect_equal(py$load_gau()$to_numpy(), as.matrix(gau), ignore_attr = TRUE)
  expect_equal(py$load_adult()$to_numpy(), as.matrix(adult), ignore_attr = TRUE)
})
