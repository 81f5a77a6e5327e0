// Does not compile: the test of load()'s compile-error message.
#include "paddle/extension.h"

std::vector<paddle::Tensor> Broken(const paddle::Tensor& x) { return {x.no_such_method()}; }
