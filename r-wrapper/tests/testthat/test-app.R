test_that("dppca_app checks X and group as dppca::dppca_app does", {
  expect_error(dppca_app(list(a = 1:3, b = 1:3)), class = "dppca_type_error")
  expect_error(dppca_app(gau[1, ]), "at least 2 rows", class = "dppca_value_error")
  expect_error(dppca_app(gau_g[1:10, ], group = "cluster"), "no column 'cluster'")
  # A column name with a matrix is a vector of length 1, as in R: one label per row is needed.
  expect_error(dppca_app(as.matrix(gau[1:10, ]), group = "V1"), "one label per row")
  expect_error(dppca_app(gau[1:10, ], group = 1:3), "one label per row \\(10\\); got 3")
  expect_error(dppca_app(group = "group"), "`group` needs `X`")
})

test_that("dppca_app serves the Python app with the R data, and stops", {
  skip_if_no_dppca()
  skip_if_not(reticulate::py_module_available("shiny"), "Python package 'shiny' not available")
  app <- dppca_app(gau_g[1:400, ], group = "group", eps_total = 2, delta_total = 1e-6,
                   port = 0L, launch.browser = FALSE, background = TRUE)
  on.exit(app$stop(), add = TRUE)
  expect_s3_class(app, "dppca_app")
  expect_match(app$url, "^http://127\\.0\\.0\\.1:[0-9]+/$")
  expect_true(app$running())
  connection <- url(app$url)
  page <- paste(readLines(connection, warn = FALSE), collapse = "\n")
  close(connection)
  expect_match(page, "Differentially Private PCA Visualization", fixed = TRUE)
  expect_match(page, "Provided data", fixed = TRUE)
  expect_match(page, "Session total: eps = 2, delta = 1e-06", fixed = TRUE)
  app$stop()
  expect_false(app$running())
})

test_that("dppca_app passes Python's checks back as R errors", {
  skip_if_no_dppca()
  skip_if_not(reticulate::py_module_available("shiny"), "Python package 'shiny' not available")
  expect_error(dppca_app(gau[1:10, ], eps_total = 1, background = TRUE, launch.browser = FALSE),
               "both `eps_total` and `delta_total`", class = "dppca_value_error")
})
