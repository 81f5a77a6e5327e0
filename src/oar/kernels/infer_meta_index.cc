#include "oar/kernels/infer_meta_index.h"

#include <algorithm>

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {
namespace {

void CheckIndexDtype(const DenseTensor& index, const char* arg) {
  OAR_ENFORCE(IsIntegral(index.dtype()),
              errors::InvalidType("argument '", arg, "' must be an int32 or int64 tensor, but got ",
                                  index.dtype()));
}

void CheckAtLeast1d(const DenseTensor& x, const char* arg) {
  OAR_ENFORCE(x.ndim() >= 1,
              errors::InvalidArgument("argument '", arg, "' must have at least 1 dimension"));
}

// The coordinate length k of an [..., k] index, checked against x's rank.
int64_t NdDepth(const DenseTensor& index, int64_t rank) {
  CheckIndexDtype(index, "index");
  OAR_ENFORCE(index.ndim() >= 1,
              errors::InvalidArgument("argument 'index' must have at least 1 dimension (its last "
                                      "one holds the coordinates), but is 0-d"));
  const int64_t k = index.dims().back();
  OAR_ENFORCE(k <= rank, errors::InvalidArgument("argument 'index' has ", k,
                                                 " coordinates per entry "
                                                 "(its last dimension) but the tensor has only ",
                                                 rank, " dimensions"));
  return k;
}

// index.shape[:-1] + dims[k:]: what gather_nd returns and scatter_nd_add takes.
DDim NdSliceDims(const DDim& index, const DDim& dims, int64_t k) {
  DDim out(index.begin(), index.end() - 1);
  for (size_t d = k; d < dims.size(); ++d) out.push_back(dims[d]);
  return out;
}

// Whether a value of shape v broadcasts to exactly `to` (numpy's rule).
bool BroadcastsTo(const DDim& v, const DDim& to) {
  if (v.size() > to.size()) return false;
  const size_t lead = to.size() - v.size();
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != 1 && v[i] != to[lead + i]) return false;
  }
  return true;
}

// Positions along the 0-th axis, as scatter and index_add take them: 0-d or 1-D.
int64_t RowCount(const DenseTensor& index) {
  CheckIndexDtype(index, "index");
  OAR_ENFORCE(index.ndim() <= 1, errors::InvalidArgument("argument 'index' must be 0-d or 1-D, "
                                                         "but has shape ",
                                                         DimsToString(index.dims())));
  return index.numel();
}

}  // namespace

void GatherInferMeta(const DenseTensor& x, const DenseTensor& index, int64_t axis,
                     DenseTensor* out) {
  CheckIndexDtype(index, "index");
  OAR_ENFORCE(index.ndim() <= 1 || (index.ndim() == 2 && index.dims()[1] == 1),
              errors::InvalidArgument("argument 'index' must be 0-d, 1-D or of shape [N, 1], but "
                                      "has shape ",
                                      DimsToString(index.dims())));
  CheckAtLeast1d(x, "x");
  const int64_t a = NormalizeAxis(axis, x.ndim());
  DDim dims = x.dims();
  if (index.ndim() == 0) {
    dims.erase(dims.begin() + a);
  } else {
    dims[a] = index.dims()[0];
  }
  out->set_meta(x.dtype(), dims);
}

void GatherNdInferMeta(const DenseTensor& x, const DenseTensor& index, DenseTensor* out) {
  const int64_t k = NdDepth(index, x.ndim());
  out->set_meta(x.dtype(), NdSliceDims(index.dims(), x.dims(), k));
}

void TakeAlongAxisInferMeta(const DenseTensor& arr, const DenseTensor& indices, int64_t axis,
                            bool broadcast, DenseTensor* out) {
  CheckIndexDtype(indices, "indices");
  CheckAtLeast1d(arr, "arr");
  OAR_ENFORCE(
      indices.ndim() == arr.ndim(),
      errors::InvalidArgument("argument 'indices' must have the rank of 'arr' (", arr.ndim(),
                              "), but has shape ", DimsToString(indices.dims())));
  const int64_t a = NormalizeAxis(axis, arr.ndim());
  DDim dims = indices.dims();
  for (int64_t d = 0; d < arr.ndim(); ++d) {
    if (d == a) continue;
    const int64_t n = arr.dims()[d], m = indices.dims()[d];
    if (broadcast) {
      OAR_ENFORCE(
          n == m || n == 1 || m == 1,
          errors::InvalidArgument("argument 'indices' of shape ", DimsToString(indices.dims()),
                                  " does not broadcast against 'arr' of shape ",
                                  DimsToString(arr.dims()), " at dimension ", d));
      dims[d] = n == 1 ? m : n;
    } else {
      OAR_ENFORCE(m <= n, errors::InvalidArgument(
                              "argument 'indices' of shape ", DimsToString(indices.dims()),
                              " is larger than 'arr' of shape ", DimsToString(arr.dims()),
                              " at dimension ", d, " (broadcast=False)"));
    }
  }
  out->set_meta(arr.dtype(), dims);
}

DDim PutAlongAxisDomain(const DDim& arr, const DDim& indices, int64_t axis, bool broadcast) {
  DDim dims = indices;
  for (size_t d = 0; d < arr.size(); ++d) {
    if (static_cast<int64_t>(d) == axis) continue;
    const int64_t n = arr[d], m = indices[d];
    if (broadcast) {
      OAR_ENFORCE(m == n || m == 1,
                  errors::InvalidArgument("argument 'indices' of shape ", DimsToString(indices),
                                          " does not broadcast to 'arr' of shape ",
                                          DimsToString(arr), " at dimension ", d));
      dims[d] = n;
    } else {
      OAR_ENFORCE(m <= n,
                  errors::InvalidArgument("argument 'indices' of shape ", DimsToString(indices),
                                          " is larger than 'arr' of shape ", DimsToString(arr),
                                          " at dimension ", d, " (broadcast=False)"));
    }
  }
  return dims;
}

void PutAlongAxisInferMeta(const DenseTensor& arr, const DenseTensor& indices,
                           const DenseTensor& values, int64_t axis, int64_t reduce, bool,
                           bool broadcast, DenseTensor* out) {
  CheckIndexDtype(indices, "indices");
  CheckAtLeast1d(arr, "arr");
  OAR_ENFORCE(
      reduce == 0 || reduce == 1,
      errors::InvalidArgument("argument 'reduce' (", reduce, ") must be 0 (assign) or 1 (add)"));
  OAR_ENFORCE(
      indices.ndim() == arr.ndim(),
      errors::InvalidArgument("argument 'indices' must have the rank of 'arr' (", arr.ndim(),
                              "), but has shape ", DimsToString(indices.dims())));
  const int64_t a = NormalizeAxis(axis, arr.ndim());
  const DDim domain = PutAlongAxisDomain(arr.dims(), indices.dims(), a, broadcast);
  OAR_ENFORCE(
      BroadcastsTo(values.dims(), domain),
      errors::InvalidArgument("argument 'values' of shape ", DimsToString(values.dims()),
                              " does not broadcast to the indexed shape ", DimsToString(domain)));
  out->set_meta(arr.dtype(), arr.dims());
}

void ScatterInferMeta(const DenseTensor& x, const DenseTensor& index, const DenseTensor& updates,
                      bool, DenseTensor* out) {
  const int64_t n = RowCount(index);
  CheckAtLeast1d(x, "x");
  DDim want(x.dims().begin() + 1, x.dims().end());
  if (index.ndim() == 1) want.insert(want.begin(), n);
  OAR_ENFORCE(updates.dims() == want,
              errors::InvalidArgument("argument 'updates' must have shape ", DimsToString(want),
                                      " (the index's length, then x's dims after the first), but "
                                      "has shape ",
                                      DimsToString(updates.dims())));
  out->set_meta(x.dtype(), x.dims());
}

void ScatterNdAddInferMeta(const DenseTensor& x, const DenseTensor& index,
                           const DenseTensor& updates, DenseTensor* out) {
  const int64_t k = NdDepth(index, x.ndim());
  const DDim want = NdSliceDims(index.dims(), x.dims(), k);
  OAR_ENFORCE(updates.dims() == want,
              errors::InvalidArgument("argument 'updates' must have shape ", DimsToString(want),
                                      " (index.shape[:-1] + x.shape[k:]), but has shape ",
                                      DimsToString(updates.dims())));
  out->set_meta(x.dtype(), x.dims());
}

void ScatterNdInferMeta(const DenseTensor& index, const DenseTensor& updates,
                        const std::vector<int64_t>& shape, DenseTensor* out) {
  for (int64_t d : shape) {
    OAR_ENFORCE(d >= 0, errors::InvalidArgument("argument 'shape' ", StrCat(shape),
                                                " must not contain negative dimensions"));
  }
  const DDim dims = MakeDDim(shape);
  const int64_t k = NdDepth(index, static_cast<int64_t>(dims.size()));
  const DDim want = NdSliceDims(index.dims(), dims, k);
  OAR_ENFORCE(updates.dims() == want,
              errors::InvalidArgument("argument 'updates' must have shape ", DimsToString(want),
                                      " (index.shape[:-1] + shape[k:]), but has shape ",
                                      DimsToString(updates.dims())));
  out->set_meta(updates.dtype(), dims);
}

void IndexAddInferMeta(const DenseTensor& x, const DenseTensor& index, int64_t axis,
                       const DenseTensor& value, double, DenseTensor* out) {
  CheckIndexDtype(index, "index");
  OAR_ENFORCE(index.ndim() == 1, errors::InvalidArgument("argument 'index' must be 1-D, but has "
                                                         "shape ",
                                                         DimsToString(index.dims())));
  CheckAtLeast1d(x, "x");
  const int64_t a = NormalizeAxis(axis, x.ndim());
  DDim want = x.dims();
  want[a] = index.numel();
  OAR_ENFORCE(value.dims() == want,
              errors::InvalidArgument("argument 'value' must have shape ", DimsToString(want),
                                      " (x's with dimension ", a,
                                      " the index's length), but has "
                                      "shape ",
                                      DimsToString(value.dims())));
  out->set_meta(x.dtype(), x.dims());
}

void IndexPutNdInferMeta(const DenseTensor& x, const DenseTensor& index, const DenseTensor& value,
                         bool, DenseTensor* out) {
  const int64_t k = NdDepth(index, x.ndim());
  const DDim want = NdSliceDims(index.dims(), x.dims(), k);
  OAR_ENFORCE(
      BroadcastsTo(value.dims(), want),
      errors::InvalidArgument("argument 'value' of shape ", DimsToString(value.dims()),
                              " does not broadcast to the indexed shape ", DimsToString(want)));
  out->set_meta(x.dtype(), x.dims());
}

}  // namespace oar
