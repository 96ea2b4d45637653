//===- MemoryPlanner.h - offsets for buffers with known lifetimes ---------===//
//
// The algorithm behind kiln-plan-memory, free of MLIR so it can be tested on
// random graphs: given buffers with a size and a live range [first, last] over
// the op order, give each an offset so that no two buffers live at the same
// time overlap, in as small an arena as we can find.
//
#ifndef KILN_PASSES_MEMORYPLANNER_H
#define KILN_PASSES_MEMORYPLANNER_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {
struct PlanBuffer {
  int64_t bytes = 0, first = 0, last = 0; // live during ops first..last
  int64_t offset = -1;                    // set by planOffsets
};

struct PlanSummary {
  int64_t arena = 0;      // bytes the offsets need
  int64_t lowerBound = 0; // most bytes live at one time: no plan does better
  int64_t noReuse = 0;    // sum of all buffers
  std::string method;     // heuristic that won, or "exact"
  bool exact = false;     // true when the search proved `arena` optimal
};

/// Largest total of bytes live at one op.
int64_t liveLowerBound(const std::vector<PlanBuffer> &buffers);

/// Assigns every buffer an offset. Runs several placement orders (by size, by
/// lifetime length, by size x lifetime, by start), each buffer at the lowest
/// offset free over its lifetime, and keeps the best; with at most
/// `exactLimit` buffers it searches every order (branch and bound), which
/// finds an optimal plan: placing the buffers of any plan lowest-first in the
/// order of their offsets never places one higher than that plan did.
/// Stops early when a plan meets the lower bound.
PlanSummary planOffsets(std::vector<PlanBuffer> &buffers, size_t exactLimit = 10);
} // namespace kiln

#endif
