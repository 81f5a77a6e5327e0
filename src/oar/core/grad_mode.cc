#include "oar/core/grad_mode.h"

#include "oar/core/macros.h"

namespace oar {
namespace {
OAR_HOT_TLS thread_local bool tls_has_grad = true;
}  // namespace

bool HasGrad() { return tls_has_grad; }
void SetHasGrad(bool enabled) { tls_has_grad = enabled; }

}  // namespace oar
