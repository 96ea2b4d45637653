//===- MemoryPlanner.cpp - offsets for buffers with known lifetimes -------===//
#include "compiler/passes/MemoryPlanner.h"

#include <algorithm>
#include <functional>
#include <numeric>

using namespace kiln;

int64_t kiln::liveLowerBound(const std::vector<PlanBuffer> &buffers) {
  // Sweep over starts and ends: +bytes at first, -bytes after last.
  std::vector<std::pair<int64_t, int64_t>> events;
  for (const PlanBuffer &b : buffers) {
    events.push_back({b.first, b.bytes});
    events.push_back({b.last + 1, -b.bytes});
  }
  std::sort(events.begin(), events.end()); // ends (negative) before starts
  int64_t live = 0, best = 0;
  for (auto [t, d] : events) {
    live += d;
    best = std::max(best, live);
  }
  return best;
}

namespace {
bool overlapsInTime(const PlanBuffer &a, const PlanBuffer &b) {
  return a.first <= b.last && b.first <= a.last;
}

/// Places buffers[order[i]] one by one at the lowest offset that does not
/// overlap an already placed buffer live at the same time; returns the arena.
/// Stops (returning a value >= cutoff) once the arena reaches `cutoff`.
struct Placer {
  const std::vector<PlanBuffer> &buffers;
  std::vector<int64_t> offset;
  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> busy;

  explicit Placer(const std::vector<PlanBuffer> &b)
      : buffers(b), offset(b.size(), -1) {}

  int64_t lowestFit(size_t i) {
    busy.clear();
    for (size_t p : placed)
      if (overlapsInTime(buffers[p], buffers[i]))
        busy.push_back({offset[p], offset[p] + buffers[p].bytes});
    std::sort(busy.begin(), busy.end());
    int64_t at = 0;
    for (auto [lo, hi] : busy) {
      if (at + buffers[i].bytes <= lo)
        break;
      at = std::max(at, hi);
    }
    return at;
  }
  void place(size_t i, int64_t at) {
    offset[i] = at;
    placed.push_back(i);
  }
  void unplace() {
    offset[placed.back()] = -1;
    placed.pop_back();
  }
  int64_t run(const std::vector<size_t> &order) {
    placed.clear();
    std::fill(offset.begin(), offset.end(), -1);
    int64_t arena = 0;
    for (size_t i : order) {
      int64_t at = lowestFit(i);
      place(i, at);
      arena = std::max(arena, at + buffers[i].bytes);
    }
    return arena;
  }
};
} // namespace

PlanSummary kiln::planOffsets(std::vector<PlanBuffer> &buffers,
                              size_t exactLimit) {
  PlanSummary s;
  s.lowerBound = liveLowerBound(buffers);
  for (const PlanBuffer &b : buffers)
    s.noReuse += b.bytes;
  if (buffers.empty())
    return s;

  Placer placer(buffers);
  std::vector<int64_t> bestOffsets;
  int64_t best = INT64_MAX;
  auto consider = [&](int64_t arena, const char *method) {
    if (arena < best) {
      best = arena;
      bestOffsets = placer.offset;
      s.method = method;
    }
  };
  auto length = [&](size_t i) { return buffers[i].last - buffers[i].first + 1; };
  using Less = std::function<bool(size_t, size_t)>;
  const std::pair<const char *, Less> orders[] = {
      // Largest first, longer lives breaking ties (classic greedy by size).
      {"size", [&](size_t a, size_t b) {
         if (buffers[a].bytes != buffers[b].bytes)
           return buffers[a].bytes > buffers[b].bytes;
         return length(a) > length(b);
       }},
      // Largest first, in program order among equals.
      {"size", [&](size_t a, size_t b) {
         return buffers[a].bytes > buffers[b].bytes;
       }},
      // Longest lived first: they constrain everyone, so they go to the bottom.
      {"lifetime", [&](size_t a, size_t b) {
         if (length(a) != length(b))
           return length(a) > length(b);
         return buffers[a].bytes > buffers[b].bytes;
       }},
      // Area in the (time, bytes) plane.
      {"area", [&](size_t a, size_t b) {
         return buffers[a].bytes * length(a) > buffers[b].bytes * length(b);
       }},
      // In program order, as a linear-scan allocator would.
      {"start", [&](size_t a, size_t b) {
         if (buffers[a].first != buffers[b].first)
           return buffers[a].first < buffers[b].first;
         return buffers[a].bytes > buffers[b].bytes;
       }},
  };
  std::vector<size_t> order(buffers.size());
  for (auto &[name, less] : orders) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), less);
    consider(placer.run(order), name);
    if (best == s.lowerBound)
      break;
  }

  // Exact: every order, lowest fit, pruned once a partial plan is no better
  // than the best. A node budget keeps pathological inputs bounded; the
  // result is called exact only if the search finished.
  if (best > s.lowerBound && buffers.size() <= exactLimit) {
    int64_t nodes = 0;
    const int64_t budget = 2000000;
    std::vector<bool> used(buffers.size(), false);
    placer.placed.clear();
    std::fill(placer.offset.begin(), placer.offset.end(), -1);
    std::function<void(int64_t)> search = [&](int64_t arena) {
      if (arena >= best || nodes > budget || best == s.lowerBound)
        return;
      if (placer.placed.size() == buffers.size()) {
        consider(arena, "exact");
        return;
      }
      for (size_t i = 0; i < buffers.size(); ++i) {
        if (used[i])
          continue;
        ++nodes;
        int64_t at = placer.lowestFit(i);
        used[i] = true;
        placer.place(i, at);
        search(std::max(arena, at + buffers[i].bytes));
        placer.unplace();
        used[i] = false;
      }
    };
    search(0);
    s.exact = nodes <= budget;
    if (s.exact && s.method != "exact")
      s.method += ", proved optimal";
  }
  if (best == s.lowerBound)
    s.exact = true;
  for (size_t i = 0; i < buffers.size(); ++i)
    buffers[i].offset = bestOffsets[i];
  s.arena = best;
  return s;
}
