#include "oar/core/grad_mode.h"

#include "oar/core/macros.h"

namespace oar {
namespace detail {
constinit OAR_HOT_TLS thread_local bool tls_has_grad = true;
}  // namespace detail

}  // namespace oar
