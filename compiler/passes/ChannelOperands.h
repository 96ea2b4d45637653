//===- ChannelOperands.h - operands that broadcast along a conv's channels ===//
#ifndef KILN_PASSES_CHANNELOPERANDS_H
#define KILN_PASSES_CHANNELOPERANDS_H

#include "mlir/IR/BuiltinTypes.h"

namespace kiln {
/// True if a tensor of type `t` broadcasts against `out` ([N, M, ...]) with
/// one value per channel: right-aligned, M on axis 1 and 1 everywhere else
/// ([M, 1, 1], [1, M, 1, 1], ...).
inline bool broadcastsPerChannel(mlir::RankedTensorType t,
                                 mlir::RankedTensorType out) {
  const int64_t r = t.getRank(), R = out.getRank();
  if (r > R || R < 2)
    return false;
  for (int64_t d = 0; d < r; ++d)
    if (t.getDimSize(d) != (R - r + d == 1 ? out.getDimSize(1) : 1))
      return false;
  return true;
}
} // namespace kiln

#endif
