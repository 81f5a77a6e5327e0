// Candidate 1: pybind11, Tensor bound by value (it already owns a shared_ptr<Impl>).
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "tensor.h"

namespace py = pybind11;
using oar_bench::Tensor;

PYBIND11_MODULE(bind_pybind11, m) {
  py::class_<Tensor>(m, "Tensor")
      .def(py::init<float, std::vector<int64_t>>(), py::arg("value"), py::arg("shape"))
      .def_property_readonly("value", &Tensor::value)
      .def_property_readonly("shape", &Tensor::shape)
      .def("__add__", &oar_bench::add, py::is_operator())
      .def("add", &oar_bench::add, py::arg("y"));
  m.def("add", &oar_bench::add, py::arg("x"), py::arg("y"));
  m.def("matmul", &oar_bench::matmul, py::arg("x"), py::arg("y"),
        py::arg("transpose_x") = false);
}
