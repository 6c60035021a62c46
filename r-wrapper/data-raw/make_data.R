# Builds data/gau.rda and data/adult.rda from the repository's data/*.csv.gz (exact copies
# of the R package dppca's datasets; provenance in ../data/README.md). gau_g is built at
# install time by data/gau_g.R from gau.rda (it is gau plus its group label).
# Run from r-wrapper/:  Rscript data-raw/make_data.R
src <- file.path("..", "data")
gau <- utils::read.csv(gzfile(file.path(src, "gau.csv.gz")))
adult <- utils::read.csv(gzfile(file.path(src, "adult.csv.gz")))
stopifnot(identical(dim(gau), c(5000L, 20L)), identical(dim(adult), c(32561L, 5L)))
gau_g <- utils::read.csv(gzfile(file.path(src, "gau_g.csv.gz")))
stopifnot(isTRUE(all.equal(gau_g[names(gau)], gau)),
          identical(gau_g$group, rep(paste0("group", 1:5), each = 1000)))
save(gau, file = file.path("data", "gau.rda"), compress = "xz")
save(adult, file = file.path("data", "adult.rda"), compress = "xz")
