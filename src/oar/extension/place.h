// Paddle's places for custom operators (docs/custom_ops.md): paddle::Place,
// CPUPlace, GPUPlace and phi::AllocationType, over oar's Place.
//
// oar spells its allocation types kCPU/kGPU (oar::AllocationType, which is also
// paddle::PlaceType, so `x.place() == paddle::PlaceType::kCPU` compares), while
// Paddle's phi::AllocationType spells them CPU/GPU and is what
// Place::GetType() returns. The two enums share their values, so converting is
// a cast; the types Paddle has and oar lacks (XPU, custom devices) are refused
// by name when a place is made of them.
#pragma once

#include <cstdint>
#include <string>

#include "oar/core/errors.h"
#include "oar/core/place.h"

namespace phi {

enum class AllocationType : int8_t {
  UNDEFINED = 0,
  CPU = 1,
  GPU = 2,
  GPUPINNED = 3,
  XPU = 4,
  IPU = 7,
  CUSTOM = 9,
};

}  // namespace phi

namespace paddle {

// Paddle's deprecated spelling of the allocation type (PlaceType::kCPU).
using PlaceType = oar::AllocationType;

class Place : public oar::Place {
 public:
  using oar::Place::Place;
  constexpr Place() = default;
  constexpr Place(const oar::Place& p) : oar::Place(p) {}  // NOLINT: same value
  // Place(phi::AllocationType::CPU); oar has only the CPU and (as a name, with
  // no backend) the GPU, so other types are an Unimplemented error.
  explicit Place(phi::AllocationType t, int device_id = 0) : oar::Place(ToOar(t), device_id) {}

  phi::AllocationType GetType() const { return static_cast<phi::AllocationType>(type); }
  int8_t GetDeviceId() const { return device; }
  std::string DebugString() const { return oar::StrCat(static_cast<const oar::Place&>(*this)); }

 private:
  static const char* Name(phi::AllocationType t) {
    switch (t) {
      case phi::AllocationType::GPUPINNED:
        return "GPUPINNED";
      case phi::AllocationType::XPU:
        return "XPU";
      case phi::AllocationType::IPU:
        return "IPU";
      case phi::AllocationType::CUSTOM:
        return "CUSTOM";
      default:
        return "<unknown>";
    }
  }
  static oar::AllocationType ToOar(phi::AllocationType t) {
    if (t == phi::AllocationType::CPU || t == phi::AllocationType::GPU ||
        t == phi::AllocationType::UNDEFINED) {
      return static_cast<oar::AllocationType>(t);
    }
    throw oar::errors::Unimplemented("paddle::Place: phi::AllocationType::", Name(t),
                                     " is not a device oar has; only CPU exists (and GPU as a ",
                                     "name, with no backend)");
  }
};

// Classes, as in Paddle, so that both `paddle::CPUPlace()` and
// `paddle::GPUPlace place(0);` compile.
class CPUPlace : public Place {
 public:
  constexpr CPUPlace() : Place(oar::AllocationType::kCPU) {}
};
class GPUPlace : public Place {
 public:
  constexpr GPUPlace(int device_id = 0) : Place(oar::AllocationType::kGPU, device_id) {}  // NOLINT
};

}  // namespace paddle

namespace phi {
using Place = paddle::Place;
using CPUPlace = paddle::CPUPlace;
using GPUPlace = paddle::GPUPlace;
}  // namespace phi
