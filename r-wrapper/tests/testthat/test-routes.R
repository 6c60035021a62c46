# dppcapy (reticulate) and dppca.interop (rpy2) build their R objects from the same Python
# payload: the same seeded call must give the same R object by both routes.
test_that("the rpy2 and reticulate routes build the same R objects", {
  skip_if_no_dppca()
  python <- reticulate::py_exe()
  has_rpy2 <- system2(python, c("-c", shQuote("import rpy2.robjects")), stdout = FALSE,
                      stderr = FALSE)
  skip_if(has_rpy2 != 0, "rpy2 is not installed in the Python reticulate uses")
  V <- dp_pc_dir(gau[1:300, ], 2, g_dppca = TRUE, eps = 1, delta = 1e-5, seed = 3)
  G <- dp_score_group(gau_g[seq(1, 5000, by = 10), ], "group", eps = 3, delta = 1e-4,
                      bins = 5, method = "add", g_dppca = FALSE, seed = 3, nonprivate = TRUE)
  S <- dp_scree(gau[1:300, ], 2, c("clipped", "huber"), eps = 2, delta = 1e-5, g_dppca = TRUE,
                seed = 3, nonprivate = TRUE)
  file <- tempfile(fileext = ".rds")
  script <- paste(
    "import dppca, dppca.interop as rb",
    "from rpy2 import robjects as ro",
    "v = dppca.dp_pc_dir(dppca.load_gau().iloc[:300], 2, g_dppca=True, eps=1, delta=1e-5, rng=3)",
    "g = dppca.dp_score_group(dppca.load_gau_g().iloc[::10], 'group', eps=3, delta=1e-4, bins=5,",
    "                         method='add', g_dppca=False, rng=3, nonprivate=True)",
    "s = dppca.dp_scree(dppca.load_gau().iloc[:300], 2, ['clipped', 'huber'], eps=2, delta=1e-5,",
    "                   g_dppca=True, rng=3, nonprivate=True)",
    sprintf("ro.r['saveRDS'](ro.r['list'](V=rb.to_r(v), G=rb.to_r(g), S=rb.to_r(s)), file='%s')",
            file),
    sep = "\n")
  expect_identical(system2(python, c("-c", shQuote(script))), 0L)
  rpy2 <- readRDS(file)
  # Same numbers up to CSV parsing in R and pandas (last-bit differences at most).
  expect_equal(rpy2$V, V, tolerance = 1e-10)
  # dppcapy keeps the row names of the R data ("1", "11", ...), as the R package does; a pandas
  # frame has none to give, so the rpy2 route's score matrix has no row names.
  expect_identical(rownames(G$score), rownames(gau_g)[seq(1, 5000, by = 10)])
  rownames(G$score) <- NULL
  expect_equal(rpy2$G, G, tolerance = 1e-10)
  expect_equal(rpy2$S, S, tolerance = 1e-10)
})
