test_that("dp_plan checks its arguments in R, before Python", {
  expect_error(dp_plan(n = 2, p = 4, k = 2, eps = 1, delta = 1e-5), "n")
  expect_error(dp_plan(n = 150, p = 4, k = 5, eps = 1, delta = 1e-5), "k")
  expect_error(dp_plan(n = 150, p = 4, k = 2, eps = -1, delta = 1e-5), "eps")
})

test_that("dp_plan prints the Python plan's table and flags small data", {
  skip_if_no_dppca()
  small <- dp_plan(n = 150, p = 4, k = 3, eps = 1, delta = 1e-5)
  expect_s3_class(small, "dppca_plan")
  expect_false(small$reliable)
  expect_true(all(c("step", "predicted", "threshold", "reliable", "fix") %in% names(small$table)))
  expect_output(print(small), "UNRELIABLE")
  expect_output(print(small), "Notes:")
  big <- dp_plan(n = 20000, p = 10, k = 3, eps = 1, delta = 1e-5)
  expect_true(big$reliable)
  expect_true(all(big$table$reliable))
})
