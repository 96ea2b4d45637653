//===- Measure.cpp - running and timing kiln-bench's child programs -------===//
#include "tools/kiln-bench/Measure.h"

#include "compiler/support/Process.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;

double bench::now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool bench::runChild(const std::vector<std::string> &argv, std::string &out,
                     double &start, std::string &error) {
  int fds[2];
  if (pipe(fds) != 0) {
    error = std::string("pipe: ") + strerror(errno);
    return false;
  }
  start = now();
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    fprintf(stderr, "cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  out.clear();
  char buf[4096];
  ssize_t got;
  while ((got = read(fds[0], buf, sizeof buf)) > 0 ||
         (got < 0 && errno == EINTR))
    if (got > 0)
      out.append(buf, (size_t)got);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error = joinCommand(argv) + " failed (status " +
            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status)
                                             : 128 + WTERMSIG(status)) +
            "); output:\n" + out;
    return false;
  }
  return true;
}

bool bench::BuildDir::open(const std::string &keep, std::string &error) {
  if (!keep.empty()) {
    path_ = keep;
    return true;
  }
  llvm::SmallString<128> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("kiln-bench", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  path_ = std::string(dir.str());
  temporary_ = true;
  return true;
}

bench::BuildDir::~BuildDir() {
  if (temporary_)
    llvm::sys::fs::remove_directories(path_);
}

bench::Stat bench::summarize(std::vector<double> v) {
  Stat s;
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

std::string bench::formatNumber(double v) {
  char b[64];
  if (v >= 1e6)
    snprintf(b, sizeof b, "%.1fM", v / 1e6);
  else if (v >= 100)
    snprintf(b, sizeof b, "%.1f", v);
  else
    snprintf(b, sizeof b, "%.4g", v);
  return b;
}
