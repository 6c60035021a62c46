# Declared public metadata (`bounds =`, `scale =`) on every private function, through one
# internal helper (.declared_args): no budget, "public (declared)" on the ledger, no scale
# release when every scale is declared, clipped values and a frame inside the declared box,
# and codebook errors that name the argument.

declared_data <- function(n = 400) {
  set.seed(11)
  z <- matrix(stats::rnorm(n * 3), n, 3) %*% matrix(c(1, 0.5, 0.2, 0, 1, 0.3, 0, 0, 1), 3, 3, byrow = TRUE)
  data.frame(a = z[, 1], b = 10 * z[, 2], c = 300 * z[, 3])
}
declared_scales <- c(a = 1, b = 10, c = 300)

test_that("every private function takes bounds = and scale =, NULL by default", {
  for (name in names(private_calls)) {
    args <- formals(get(name))
    expect_true(all(c("bounds", "scale") %in% names(args)), info = name)
    expect_null(args$bounds, info = name)
    expect_null(args$scale, info = name)
  }
})

test_that("declared scales cost nothing and replace the scale release on every function", {
  skip_if_no_dppca()
  for (name in names(private_calls)) {
    result <- suppressWarnings(private_calls[[name]](declared_data(), standardize = TRUE,
                                                      scale = declared_scales))
    ledger <- result_ledger(result)
    declared <- ledger[ledger$mechanism == "public (declared)", ]
    expect_identical(declared$step, "declared scales: a, b, c", info = name)
    expect_identical(declared$eps, 0, info = name)
    expect_false(any(startsWith(ledger$step, "scale")), info = name)
    expect_equal(sum(ledger$eps), 2, tolerance = 1e-12, info = name)
  }
})

test_that("bounds clip the values first: the same numbers as the call on clipped data", {
  skip_if_no_dppca()
  X <- declared_data()
  X$a[c(1, 6)] <- c(1e9, -1e9)
  clipped <- X
  clipped$a <- pmin(pmax(X$a, -4), 4)
  bounded <- suppressWarnings(dp_scree(X, k = 2, eps = 2, delta = 1e-5, seed = 1,
                                       bounds = list(a = c(-4, 4))))
  plain <- suppressWarnings(dp_scree(clipped, k = 2, eps = 2, delta = 1e-5, seed = 1))
  expect_identical(bounded$clipped$scree, plain$clipped$scree)
  ledger <- dp_ledger(bounded)
  expect_identical(ledger$step[ledger$mechanism == "public (declared)"], "declared bounds: a")
})

test_that("bounds keep the score frame inside the declared box of the scores", {
  skip_if_no_dppca()
  set.seed(3)
  X <- data.frame(a = stats::rbinom(400, 1, 0.5), b = stats::rbinom(400, 1, 0.5),
                  c = stats::rbinom(400, 1, 0.5))
  bounds <- list(a = c(0, 1), b = c(0, 1), c = c(0, 1))
  res <- suppressWarnings(dp_score(X, eps = 2, delta = 1e-5, method = "add", center = FALSE,
                                   seed = 1, bounds = bounds))
  # A unit direction d gives scores d'x in [sum of d_i < 0, sum of d_i > 0] on the unit cube:
  # a box of width sum |d_i| <= sqrt(3) inside [-sqrt(3), sqrt(3)] (1e-12: the box's slack).
  for (limits in res$frame) {
    expect_true(limits[1] >= -sqrt(3) - 1e-12 && limits[2] <= sqrt(3) + 1e-12)
    expect_lte(diff(limits), sqrt(3) + 1e-12)
  }
  ledger <- dp_ledger(res)
  expect_identical(ledger$step[ledger$mechanism == "public (declared)"], "declared bounds: a, b, c")
})

test_that("a codebook data frame or file declares bounds and scales together", {
  skip_if_no_dppca()
  book <- data.frame(column = c("a", "b", "c"), lower = c(-4, -40, -1200),
                     upper = c(4, 40, 1200), scale = c(1, 10, 300), units = c("cm", "kg", "$"))
  path <- tempfile(fileext = ".csv")
  utils::write.csv(book, path, row.names = FALSE)
  for (codebook in list(book, path)) {
    res <- suppressWarnings(dp_score(declared_data(), eps = 2, delta = 1e-5, method = "add",
                                     standardize = TRUE, seed = 1, bounds = codebook))
    ledger <- dp_ledger(res)
    expect_identical(ledger$step[ledger$mechanism == "public (declared)"],
                     c("declared bounds: a, b, c", "declared scales: a, b, c"))
  }
})

test_that("bad declarations are errors that name the argument", {
  expect_error(.declared_args(bounds = 42), "`bounds` must be", class = "dppca_type_error")
  expect_error(.declared_args(bounds = list(a = "x")), "`bounds` must be",
               class = "dppca_type_error")
  expect_error(.declared_args(scale = TRUE), "`scale` must be", class = "dppca_type_error")
  expect_identical(.declared_args(), list())
  expect_identical(.declared_args(scale = c(1, 2))$scale, list(1, 2))
  expect_identical(.declared_args(bounds = list(a = c(0, 1)))$bounds, list(a = list(0, 1)))
  skip_if_no_dppca()
  for (name in names(private_calls)) {
    expect_error(private_calls[[name]](declared_data(40), bounds = list(a = c(2, 1))),
                 "`bounds`: column 'a' needs lower < upper", class = "dppca_value_error",
                 info = name)
    expect_error(private_calls[[name]](declared_data(40), standardize = TRUE,
                                        scale = c(zz = 1)),
                 "`scale`: unknown column", class = "dppca_value_error", info = name)
  }
})
