// Candidate 2: nanobind, Tensor bound by value (stored inline in the Python object).
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include "tensor.h"

namespace nb = nanobind;
using namespace nb::literals;
using oar_bench::Tensor;

NB_MODULE(bind_nanobind, m) {
  nb::class_<Tensor>(m, "Tensor")
      .def(nb::init<float, std::vector<int64_t>>(), "value"_a, "shape"_a)
      .def_prop_ro("value", &Tensor::value)
      .def_prop_ro("shape", &Tensor::shape)
      .def("__add__", &oar_bench::add, nb::is_operator())
      .def("add", &oar_bench::add, "y"_a);
  m.def("add", &oar_bench::add, "x"_a, "y"_a);
  m.def("matmul", &oar_bench::matmul, "x"_a, "y"_a, "transpose_x"_a = false);
}
