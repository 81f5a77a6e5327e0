#include "oar/autograd/grad_mode.h"

namespace oar {
namespace {
thread_local bool tls_has_grad = true;
}  // namespace

bool HasGrad() { return tls_has_grad; }
void SetHasGrad(bool enabled) { tls_has_grad = enabled; }

}  // namespace oar
