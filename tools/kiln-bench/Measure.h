//===- Measure.h - running and timing kiln-bench's child programs ---------===//
#ifndef KILN_TOOLS_KILN_BENCH_MEASURE_H
#define KILN_TOOLS_KILN_BENCH_MEASURE_H

#include <string>
#include <vector>

namespace kiln::bench {
/// CLOCK_MONOTONIC in seconds (the drivers print times on the same clock).
double now();

/// Forks and runs argv with its standard output captured in `out`; `start`
/// is the time just before the fork. False with `error` (the command, its
/// status and its output) unless it exits with status 0.
bool runChild(const std::vector<std::string> &argv, std::string &out,
              double &start, std::string &error);

struct Stat {
  double median = 0, min = 0, max = 0;
};
Stat summarize(std::vector<double> v);

/// Where kiln-bench builds the library and its driver: --keep=DIR, or a
/// temporary directory removed with this object.
class BuildDir {
public:
  /// False with `error` if the temporary directory cannot be made.
  bool open(const std::string &keep, std::string &error);
  const std::string &path() const { return path_; }
  ~BuildDir();

private:
  std::string path_;
  bool temporary_ = false;
};

/// A number for the text tables: 12.3M, 123.4, 1.234.
std::string formatNumber(double v);
} // namespace kiln::bench

#endif
