//===- Process.cpp - running the C toolchain and generated programs -------===//
#include "compiler/support/Process.h"

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;

int kiln::runProgram(const std::vector<std::string> &argv,
                     const std::string &cwd, std::string &output) {
  output.clear();
  int fds[2];
  if (pipe(fds) != 0) {
    output = std::string("pipe: ") + strerror(errno);
    return 127;
  }
  pid_t pid = fork();
  if (pid < 0) {
    output = std::string("fork: ") + strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return 127;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
      dup2(devnull, 0);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
      fprintf(stderr, "cannot enter %s: %s\n", cwd.c_str(), strerror(errno));
      _exit(127);
    }
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    fprintf(stderr, "cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t got;
  while ((got = read(fds[0], buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
    if (got > 0)
      output.append(buf, (size_t)got);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return 127;
}

std::string kiln::joinCommand(const std::vector<std::string> &argv) {
  std::string s;
  for (const std::string &a : argv) {
    if (!s.empty())
      s += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t'\"\\$;&|<>()*?") == std::string::npos;
    s += plain ? a : "'" + a + "'";
  }
  return s;
}

std::string kiln::programIoSource(bool hosted) {
  if (hosted)
    return "#include <stdio.h>\n#include <stdlib.h>\n"
           "static void out(const char *s, size_t n) { fwrite(s, 1, n, stdout); }\n"
           "static void finish(int rc) { fflush(stdout); exit(rc); }\n";
  return R"c(static long sys3(long nr, long a, long b, long c) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r6 __asm__("r6") = nr;
  __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r6) : "memory");
  return r0;
}
static void out(const char *s, size_t n) { sys3(64, 1, (long)s, (long)n); }
static void finish(int rc) { sys3(93, rc, 0, 0); for (;;) {} }
)c";
}

std::string kiln::programEntrySource(bool hosted) {
  return hosted ? "int main(void) { finish(run()); return 0; }\n"
                : "void _start(void) { finish(run()); }\n";
}
