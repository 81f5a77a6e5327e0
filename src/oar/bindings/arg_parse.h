// Argument parsing for the generated op bindings: positional arguments are a
// pointer copy; keywords are matched only when present. Every error names the
// op, the argument, its position and what was received, as Paddle's
// GetTensorFromArgs/CastPyArg2* do (docs/design.md §4).
#pragma once

#include <optional>
#include <vector>

#include "oar/bindings/py_utils.h"

namespace oar::py {

// Fills out[0..n) from positional and keyword arguments (nullptr when absent).
// The keyword `name` is accepted and ignored, as Paddle APIs take it.
void ParseArgs(const char* op, const char* const* names, Py_ssize_t n, PyObject* const* args,
               Py_ssize_t nargs, PyObject* kwnames, PyObject** out);

const Tensor& GetTensorFromArgs(const char* op, const char* arg, PyObject* obj, int pos,
                                bool dispensable = false);
std::vector<Tensor> GetTensorListFromArgs(const char* op, const char* arg, PyObject* obj, int pos);

bool CastPyArg2Boolean(PyObject* obj, const char* op, const char* arg, int pos, bool def);
int64_t CastPyArg2Long(PyObject* obj, const char* op, const char* arg, int pos,
                       std::optional<int64_t> def);
double CastPyArg2Double(PyObject* obj, const char* op, const char* arg, int pos,
                        std::optional<double> def);
// A number attribute, exact for Python ints that fit int64.
Scalar CastPyArg2Scalar(PyObject* obj, const char* op, const char* arg, int pos,
                        std::optional<Scalar> def);
std::vector<int64_t> CastPyArg2IntArray(PyObject* obj, const char* op, const char* arg, int pos,
                                        std::optional<std::vector<int64_t>> def);
DType CastPyArg2DType(PyObject* obj, const char* op, const char* arg, int pos,
                      std::optional<DType> def);

// Converts dtype-like objects: oar.float32, "float32", numpy dtypes and types.
DType PyObjectToDType(PyObject* obj);
// The oar.<dtype> objects, registered by the package in DType order.
void SetDTypeObjects(PyObject* tuple);

// Whether to release the GIL around an op on these inputs: only when the
// work is large enough to pay for it.
bool WorthReleasingGil(const Tensor& t);
bool WorthReleasingGil(const std::vector<Tensor>& ts);

}  // namespace oar::py
