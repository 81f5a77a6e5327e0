// OpenBLAS's kernels chosen by what the CPU has when OpenBLAS does not know the CPU.
#include <dlfcn.h>

#include <cstdlib>
#include <string_view>

#include "oar/core/cpu_isa.h"

namespace oar::cpu {
namespace {

// Note [OpenBLAS's core on a CPU it does not know]
// A DYNAMIC_ARCH OpenBLAS (Debian's) picks its kernels by the CPU's family and model
// when it is loaded, and falls back to "Prescott" (SSE3) for a model it does not
// know: Debian 12's 0.3.21 does so on an Intel Xeon reporting family 6, model 207,
// which has AVX-512. Every product oar leaves to OpenBLAS (float64, products with one
// row or column, float32 ones below oneDNN's threshold, LAPACK's) then ran 4.5x slower:
// 700 x 512 x 10000, read transposed, 111 ms against 24.6 with OPENBLAS_CORETYPE=
// SkylakeX (two threads). When the library fell back and OPENBLAS_CORETYPE is unset,
// liboar asks it again for the core of the CPU's instruction set (what oar's own
// dispatch finds, Note [One cap on the dispatched ISA] in core/cpu_isa.h: AVX-512
// SkylakeX, AVX2 Haswell; 0.3.21 does not take "Cooperlake" by name, and oar runs no
// bfloat16 product on OpenBLAS), through the loader's own entry
// points: OpenBLAS re-reads the variable in gotoblas_dynamic_init once
// gotoblas_dynamic_quit cleared its choice. This runs when liboar is loaded, before
// any product; the variable is set only meanwhile. A BLAS without those entry points
// (another BLAS, or an OpenBLAS built for one CPU) is left as it is.
struct CoreForCpu {
  CoreForCpu() {
    if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
    using NameFn = char* (*)();
    using InitFn = void (*)();
    auto name = reinterpret_cast<NameFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    auto quit = reinterpret_cast<InitFn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
    auto init = reinterpret_cast<InitFn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
    if (!name || !quit || !init || std::string_view(name()) != "Prescott") return;
    const CpuIsa isa = DetectedCpuIsa();
    const char* core = isa >= CpuIsa::kAvx512 ? "SkylakeX"
                       : isa >= CpuIsa::kAvx2 ? "Haswell"
                                              : nullptr;
    if (!core) return;
    setenv("OPENBLAS_CORETYPE", core, 0);
    quit();
    init();
    unsetenv("OPENBLAS_CORETYPE");
  }
};
const CoreForCpu kCoreForCpu;  // set up when liboar is loaded

}  // namespace
}  // namespace oar::cpu
