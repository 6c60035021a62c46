# Tests need Python with the 'dppca' module (RETICULATE_PYTHON) and NOT_CRAN=true;
# without them every test skips (see helper-python.R).
library(testthat)
library(dppcapy)

test_check("dppcapy")
