# NA cells and the neighbouring relation on every private function: `missing =` (a public
# policy, never a refusal) and `neighbouring =` are passed to the Python core; R's NA reaches
# Python as NaN whatever the column type; the ledger does not depend on where the holes are;
# add/remove neighbours print a noisy n.

# adult's integer columns with a share `rate` of their cells NA (MCAR, fixed seed).
holey_adult <- function(n = 600, rate = 0.15, seed = 21) {
  X <- adult_small(n)
  set.seed(seed)
  for (j in seq_along(X)) X[[j]][stats::runif(n) < rate] <- NA
  X
}

# The header of a summary (the lines between the title's rule and the first table's), blanks
# collapsed so that a released number's width elsewhere cannot move the columns.
summary_header <- function(result) {
  text <- as.character(summary(result))
  text <- unlist(strsplit(text, "\n", fixed = TRUE))
  rules <- grep("^=+$", text)
  gsub("\\s+", " ", trimws(text[(rules[1] + 1):(rules[2] - 2)]))
}

test_that("every private function takes missing = \"auto\" and neighbouring = replace/add_remove", {
  for (name in names(private_calls)) {
    args <- formals(get(name))
    expect_identical(args$missing, "auto", info = name)
    expect_identical(args$neighbouring, quote(c("replace", "add_remove")), info = name)
  }
})

test_that("NA cells reach Python as NaN, from numeric, integer and logical columns", {
  X <- data.frame(num = c(1.5, NA, 3), int = c(1L, NA, 3L), lgl = c(TRUE, NA, FALSE))
  data <- .as_py_data(X)
  # Every integer and logical column becomes double, with or without NA (the types Python
  # sees never depend on the holes); the NA cells stay NA (NaN once in Python).
  expect_identical(vapply(data, typeof, ""), c(num = "double", int = "double", lgl = "double"))
  expect_identical(data$int, c(1, NA, 3))
  expect_identical(data$lgl, c(1, NA, 0))
  expect_identical(vapply(.as_py_data(adult_small(5)), typeof, "")[[1]], "double")
  # A matrix (integer or logical) goes the same way; factors and text are left as they are.
  expect_identical(.as_py_data(matrix(c(1L, NA, 3L, 4L), 2))$V1, c(1, NA))
  expect_identical(.as_py_data(matrix(c(TRUE, NA, FALSE, TRUE), 2))$V1, c(1, NA))
  expect_identical(.as_py_data(data.frame(f = factor(c("a", NA))))$f, factor(c("a", NA)))
  # Group labels keep their R type (nan = FALSE).
  expect_identical(.as_py_data(X, nan = FALSE)$int, c(1L, NA, 3L))
  skip_if_no_dppca()
  frame <- reticulate::r_to_py(data)
  expect_equal(as.numeric(reticulate::py_to_r(frame$isna()$sum()$sum())), 3)
  expect_identical(unlist(reticulate::py_to_r(frame$dtypes$astype("str")$tolist())),
                   c("float64", "float64", "float64"))
})

test_that("an integer or logical NA is a missing cell: missing = 0 equals the data filled with 0", {
  skip_if_no_dppca()
  X <- adult_small(300)
  X$flag <- rep_len(c(TRUE, FALSE, NA), 300)
  X$age[c(2, 9, 40)] <- NA
  filled <- X
  filled$flag <- as.numeric(ifelse(is.na(filled$flag), 0, filled$flag))
  filled$age[c(2, 9, 40)] <- 0L
  run <- function(data) suppressWarnings(
    dp_pc_dir(data, 2, eps = 1, delta = 1e-5, seed = 5, missing = 0))
  # Identical inputs in Python (0.0 in the holes), identical outputs: an NA sent as
  # -2147483648 or as True would move the directions far beyond 1e-12.
  expect_equal(as.matrix(run(X)), as.matrix(run(filled)), tolerance = 1e-12)
  # Declared per column (a named vector is a dict column -> value in Python): every column
  # named, the same fill; some columns named, private medians for the others.
  per_column <- function(values) suppressWarnings(
    dp_pc_dir(X, 2, eps = 1, delta = 1e-5, seed = 5, missing = values))
  every <- per_column(stats::setNames(rep(0, ncol(X)), names(X)))
  expect_equal(as.matrix(every), as.matrix(run(X)), tolerance = 1e-12)
  expect_false(any(startsWith(dp_ledger(every)$step, "missing values")))
  some <- per_column(c(age = 0, flag = 0))
  expect_identical(dp_ledger(some)$step[1], "missing values: private column medians")
})

test_that("NA cells are never refused, by any private function or policy", {
  skip_if_no_dppca()
  X <- holey_adult()
  expect_gt(mean(is.na(X)), 0.1)
  for (name in names(private_calls)) {
    messages <- character(0)
    result <- withCallingHandlers(private_calls[[name]](X), warning = function(w) {
      messages <<- c(messages, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    expect_s3_class(result_ledger(result), "dppca_ledger")
    # Accuracy warnings (from public numbers or released values) may come; none about holes.
    expect_false(any(grepl("NaN|missing|NA\\b|not finite|non-finite", messages)), info = name)
  }
  # Every policy of dp_pc_dir, on the g-DPPCA and rank paths.
  for (policy in list("pairwise", "median", 0, c(age = 30))) {
    for (standardize in list(FALSE, "rank")) {
      V <- suppressWarnings(private_calls$dp_pc_dir(X, missing = policy, standardize = standardize))
      expect_identical(dim(V), c(5L, 2L))
      expect_true(all(is.finite(as.matrix(V))))
    }
  }
})

test_that("a neighbour with one more NA cell prints the same ledger, footer and summary header", {
  skip_if_no_dppca()
  X <- holey_adult(rate = 0.05)
  neighbour <- X
  neighbour$hours_per_week[which(!is.na(X$hours_per_week))[1]] <- NA
  expect_identical(sum(is.na(neighbour)), sum(is.na(X)) + 1L)
  cases <- list(pairwise = list("dp_pc_dir"), median = list("dp_pc_dir", missing = "median"),
                rank = list("dp_pc_dir", standardize = "rank"), scree = list("dp_scree"),
                score = list("dp_score"))
  for (case in names(cases)) {
    call <- cases[[case]]
    run <- function(data) suppressWarnings(do.call(private_calls[[call[[1]]]], c(list(data), call[-1])))
    a <- run(X)
    b <- run(neighbour)
    # The ledger holds public numbers only (steps, mechanisms, sensitivities, noise scales,
    # budgets): the same line for line.
    expect_identical(capture.output(print(dp_ledger(a))), capture.output(print(dp_ledger(b))),
                     info = case)
    # The header: method, budget, n, p, k, noise... (the scree's private total variance, a
    # released number, left out).
    keep <- function(lines) lines[!startsWith(lines, "Total variance:")]
    expect_identical(keep(summary_header(a)), keep(summary_header(b)), info = case)
    if (inherits(a, "dppca_directions")) {
      expect_identical(tail(capture.output(print(a)), 1), tail(capture.output(print(b)), 1),
                       info = case)
    }
  }
})

test_that("missing = \"median\" puts the median release first on the ledger; a declared value none", {
  skip_if_no_dppca()
  X <- holey_adult(rate = 0.05)
  for (data in list(X, adult_small())) {  # with or without holes: the same releases
    V <- suppressWarnings(dp_pc_dir(data, 2, eps = 2, delta = 1e-5, seed = 1, missing = "median"))
    ledger <- dp_ledger(V)
    expect_identical(ledger$step[1], "missing values: private column medians")
    # The policy itself is on the ledger too (public: from the arguments).
    expect_identical(attr(ledger, "missing"), "median imputation")
    expect_output(print(ledger), "Missing values: median imputation", fixed = TRUE)
    # A tenth of eps and delta (docs/missing.md) over the medians' four stages (the log grid,
    # then three refinements), and the total is still the call's budget.
    medians <- startsWith(ledger$step, "missing values: private column medians")
    expect_equal(which(medians), 1:4)
    expect_equal(sum(ledger$eps[medians]), 0.2)
    expect_equal(sum(ledger$delta[medians]), 1e-6)
    expect_equal(sum(ledger$eps), 2)
    # dp_scree's and dp_score's default ("auto") is the median fill.
    S <- suppressWarnings(dp_scree(data, 2, eps = 2, delta = 1e-5, seed = 1))
    expect_identical(dp_ledger(S)$step[1], "missing values: private column medians")
    expect_identical(attr(dp_ledger(S), "missing"), "median imputation (auto)")
    expect_identical(attr(attr(S$clipped, "ledger"), "missing"), "median imputation (auto)")
    declared <- suppressWarnings(dp_scree(data, 2, eps = 2, delta = 1e-5, seed = 1, missing = 0))
    expect_false(any(startsWith(dp_ledger(declared)$step, "missing values")))
  }
  # g-DPPCA's default ("auto") is pairwise-present: no median release.
  V <- suppressWarnings(dp_pc_dir(X, 2, eps = 2, delta = 1e-5, seed = 1))
  expect_false(any(startsWith(dp_ledger(V)$step, "missing values")))
  expect_identical(attr(dp_ledger(V), "missing"), "pairwise present (auto)")
  declared <- suppressWarnings(dp_score(X, eps = 2, delta = 1e-5, seed = 1, missing = 0))
  expect_identical(attr(dp_ledger(declared), "missing"), "declared value imputation")
})

# What every add/remove result shows: the relation on its ledger, the row count as its first
# release, the relation in its summary header; returns that header.
add_remove_header <- function(result) {
  ledger <- dp_ledger(result)
  expect_identical(attr(ledger, "neighbouring"), "add/remove (n private)")
  expect_identical(ledger$step[1], "row count (add/remove neighbours)")
  header <- summary_header(result)
  expect_true(any(grepl("Neighbouring: add/remove", header)))
  header
}

test_that("neighbouring = \"add_remove\" on dp_pc_dir prints a noisy n, never the true n", {
  skip_if_no_dppca()
  X <- gau_small(500)
  V <- suppressWarnings(dp_pc_dir(X, 2, eps = 1, delta = 1e-5, seed = 1,
                                  neighbouring = "add_remove"))
  header <- add_remove_header(V)
  ledger <- dp_ledger(V)
  observations <- grep("No. Observations:", header, value = TRUE)
  noisy <- as.numeric(sub(".*No\\. Observations: ([0-9]+).*", "\\1", observations))
  # The released count, not the true one (seed 1 draws a non-zero noise), within 6 noise sd
  # of it (a Gaussian tail: a seed would fail with probability 2e-9).
  expect_false(noisy == nrow(X))
  expect_lt(abs(noisy - nrow(X)), 6 * ledger$noise_scale[1])
  # The true n is nowhere in the header or in the printed result's footer.
  expect_false(any(grepl("\\b500\\b", c(header, tail(capture.output(print(V)), 1)))))
  # "add" is a unique prefix, as with match.arg.
  W <- suppressWarnings(dp_pc_dir(X, 2, eps = 1, delta = 1e-5, seed = 1, neighbouring = "add"))
  expect_identical(as.matrix(W), as.matrix(V))
})

test_that("bad missing / neighbouring values are R errors naming the argument", {
  skip_if_no_dppca()
  X <- gau_small(100)
  run <- function(...) dp_pc_dir(X, 2, eps = 1, delta = 1e-5, seed = 1, ...)
  expect_error(run(neighbouring = "swap"), "`neighbouring` must be one of", class = "dppca_value_error")
  expect_error(run(neighbouring = NA), "`neighbouring`", class = "dppca_value_error")
  expect_error(run(missing = NA), "`missing` must be one of", class = "dppca_type_error")
  expect_error(run(missing = c(1, 2)), "`missing`", class = "dppca_type_error")
  # A function given as `missing` is refused as a value: base::missing() stays the one used
  # inside the functions (dp_scree tests whether eps was given).
  expect_error(dp_scree(X, 2, eps = 1, delta = 1e-5, missing = median), "`missing` must be",
               class = "dppca_type_error")
  # The Python core's rules, from the arguments alone.
  expect_error(run(missing = "mean"), "`missing` must be one of", class = "dppca_value_error")
  expect_error(run(missing = "drop"), "add/remove neighbours", class = "dppca_value_error")
  expect_error(run(missing = c(V1 = NA_real_)), "`missing`", class = "dppca_value_error")
})

test_that("neighbouring = \"add_remove\" on dp_score prints a noisy n, never the true n", {
  skip_if_no_dppca()
  X <- gau_small(500)
  S <- suppressWarnings(dp_score(X, eps = 1, delta = 1e-5, seed = 1,
                                 neighbouring = "add_remove"))
  header <- add_remove_header(S)
  expect_true(any(grepl("No. Observations \\(noisy\\):", header)))
  expect_false(any(grepl("\\b500\\b", header)))
  # What it does not cover is refused from the arguments alone, an R error.
  expect_error(dp_score(X, eps = 1, delta = 1e-5, g_dppca = FALSE,
                        neighbouring = "add_remove"),
               "not supported by", class = "dppca_value_error")
})
