test_that("citation('dppcapy') cites the package at its version and the g-DPPCA paper", {
  cites <- utils::citation("dppcapy")
  expect_s3_class(cites, "citation")
  expect_length(cites, 2L)
  package <- cites[[1]]
  expect_identical(tolower(attr(unclass(package)[[1]], "bibtype")), "manual")
  expect_match(package$title, "dppcapy", fixed = TRUE)
  expect_match(package$note, as.character(utils::packageVersion("dppcapy")), fixed = TRUE)
  paper <- cites[[2]]
  expect_match(paper$title, "Robust and Differentially Private {PCA} for Non-{Gaussian} Data",
               fixed = TRUE)
  expect_identical(paper$year, "2025")
  expect_identical(vapply(paper$author, function(a) a$family, ""), c("Kim", "Jung"))
  expect_match(paper$url, "arxiv.org/abs/2507.15232", fixed = TRUE)
  bibtex <- paste(format(cites, style = "bibtex"), collapse = "\n")
  expect_match(bibtex, "@Manual{dppcapy,", fixed = TRUE)
  expect_match(bibtex, "@Misc{kim2025robust,", fixed = TRUE)
})

test_that("the R wrapper and the Python core carry one version, which the handshake accepts", {
  skip_if_no_dppca()
  python <- dppcapy:::.python_version()
  # Released together: the version DESCRIPTION states is the one dppca/_version.py states.
  expect_identical(python, as.character(utils::packageVersion("dppcapy")))
  expect_null(dppcapy:::.version_problem(python))
})
