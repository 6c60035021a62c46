test_that("loading the package does not start Python", {
  skip_on_cran()
  rscript <- file.path(R.home("bin"), "Rscript")
  code <- "suppressMessages(library(dppcapy)); cat(reticulate::py_available(initialize = FALSE))"
  out <- system2(rscript, c("-e", shQuote(code)), stdout = TRUE, stderr = FALSE)
  expect_identical(tail(out, 1), "FALSE")
})

test_that("a missing Python module gives a clear R error", {
  skip_on_cran()
  rscript <- file.path(R.home("bin"), "Rscript")
  code <- paste("suppressMessages(library(dppcapy))",
                "cat(dppca_available(), '\\n')",
                "r <- tryCatch(dp_pc_dir(gau[1:50, ], 2), error = function(e) e)",
                "cat(class(r)[1], conditionMessage(r), sep = '\\n')", sep = "; ")
  skip_if_no_dppca()
  # A Python without 'dppca': a bare virtualenv of the interpreter in use.
  venv <- file.path(tempfile("novenv"))
  made <- system2(reticulate::py_exe(), c("-m", "venv", "--without-pip", venv))
  skip_if(made != 0, "cannot create a virtualenv")
  env <- c(paste0("RETICULATE_PYTHON=", file.path(venv, "bin", "python")), "PYTHONNOUSERSITE=1")
  out <- system2(rscript, c("-e", shQuote(code)), stdout = TRUE, stderr = FALSE, env = env)
  expect_identical(trimws(out[1]), "FALSE")
  expect_identical(out[2], "dppca_python_missing")
  expect_match(paste(out[-(1:2)], collapse = " "), "install_dppca()", fixed = TRUE)
})

test_that("Python errors arrive as R errors with the same message and no traceback", {
  skip_if_no_dppca()
  err <- expect_error(dp_pc_dir(gau_small(50), k = 50), class = "dppca_value_error")
  expect_identical(conditionMessage(err), "`k` must be an integer in [1, 20]; got 50")
  expect_null(conditionCall(err))
  expect_no_match(conditionMessage(err), "Traceback|File \"")
  expect_error(dp_pc_dir(gau_small(50), k = 2, g_dppca = TRUE, eps = -1, delta = 1e-5),
               "`eps` must be a finite number > 0", class = "dppca_error")
})

test_that("install_dppca is exported with the documented arguments", {
  expect_identical(names(formals(install_dppca)), c("envname", "package", "python", "..."))
  expect_identical(formals(install_dppca)$envname, "r-dppca")
})
