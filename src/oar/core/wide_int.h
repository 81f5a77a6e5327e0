// 128-bit integers for size and index arithmetic that must not wrap: a product or
// sum of int64 shape values (sizes, strides, paddings, offsets) is formed here and
// compared with the int64 limit before it is narrowed (docs/reliability.md, "a read
// of the shape inference"). One alias, so a compiler without __int128 has one place
// to supply a replacement.
#pragma once

namespace oar {

__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

}  // namespace oar
