# gau_g is gau with its cluster label (5 groups of 1000 consecutive rows); built from
# gau.rda here rather than stored twice.
gau_g <- local({
  env <- new.env()
  load("gau.rda", envir = env)
  cbind(env$gau, group = rep(paste0("group", 1:5), each = 1000), stringsAsFactors = FALSE)
})
