#include "oar/api/nan_inf_check.h"

#include <cmath>

#include "oar/kernels/funcs/copy.h"

namespace oar {

void CheckTensorHasNanOrInf(const std::string& op, const Tensor& t) {
  if (!t.initialized() || !IsFloating(t.dtype())) return;
  // A sparse tensor's stored values are its only numbers.
  const DenseTensor d = funcs::Contiguous(t.is_sparse_coo()   ? t.sparse_coo().values()
                                          : t.is_sparse_csr() ? t.sparse_csr().values()
                                                              : t.dense());
  int64_t nan = 0, inf = 0;
  VisitDType(d.dtype(), [&]<typename T>() {
    if constexpr (std::is_floating_point_v<compute_t<T>>) {
      const T* p = static_cast<const T*>(d.data());
      for (int64_t i = 0; i < d.numel(); ++i) {
        const auto v = static_cast<compute_t<T>>(p[i]);
        nan += std::isnan(v);
        inf += std::isinf(v);
      }
    }
  });
  if (nan || inf) {
    throw errors::PreconditionNotMet("FLAGS_check_nan_inf: the output of ", op, " (", d.dtype(),
                                     DimsToString(d.dims()), ") contains ", nan, " NaN and ", inf,
                                     " Inf values");
  }
}

void CheckTensorHasNanOrInf(const std::string& op, const std::vector<Tensor>& ts) {
  for (const auto& t : ts) CheckTensorHasNanOrInf(op, t);
}

}  // namespace oar
