//===- Runner.cpp - the C program kiln-run links against a compiled model -===//
//
// The prompt and the plan are baked into the source, so the same program runs
// natively, under qemu-user, or freestanding on Hexagon without argv or stdio;
// logits travel as the hex of their bits, so nothing is lost in printing.
//
#include "tools/kiln-run/Runner.h"

#include <cstring>
#include <sstream>

using namespace kiln;

std::string kiln::runnerSource(const RunPlan &plan) {
  std::ostringstream os;
  os << "/* runner.c - written by kiln-run */\n#include \"model.h\"\n";
  if (plan.hosted)
    os << "#include <stdio.h>\n#include <stdlib.h>\n";
  os << "static const int32_t prompt[] = {";
  for (size_t i = 0; i < plan.prompt.size(); ++i)
    os << (i ? ", " : "") << plan.prompt[i];
  os << "};\nstatic const int64_t logits_at[] = {";
  for (size_t i = 0; i < plan.logitsAt.size(); ++i)
    os << (i ? ", " : "") << plan.logitsAt[i];
  if (plan.logitsAt.empty())
    os << "-1";
  os << "};\n#define N_PROMPT " << plan.prompt.size() << "\n#define GENERATE "
     << plan.generate << "\n#define N_AT " << plan.logitsAt.size() << "\n";
  if (plan.hosted) {
    os << R"c(static void out(const char *s, size_t n) { fwrite(s, 1, n, stdout); }
static void finish(int rc) { fflush(stdout); exit(rc); }
)c";
  } else {
    os << R"c(static long sys3(long nr, long a, long b, long c) {
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
  os << R"c(static char buf[4096];
static size_t used;
static void flush(void) { out(buf, used); used = 0; }
static void put(const char *s) {
  while (*s) { if (used == sizeof buf) flush(); buf[used++] = *s++; }
}
static void put_u32_hex(uint32_t v) {
  char t[10]; t[0] = ' ';
  for (int i = 0; i < 8; ++i) t[1 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
  t[9] = 0; put(t);
}
static void put_int(int64_t v) {
  char t[24]; int i = 23; t[i] = 0;
  int neg = v < 0; uint64_t u = neg ? (uint64_t)(-v) : (uint64_t)v;
  do { t[--i] = (char)('0' + u % 10); u /= 10; } while (u);
  if (neg) t[--i] = '-';
  put(t + i);
}
static void check(kiln_status s) {
  if (s == KILN_OK) return;
  put("E "); put(kiln_status_string(s)); put("\n"); flush(); finish(2);
}
static _Alignas(KILN_ARENA_ALIGN) uint8_t arena[MODEL_ARENA_BYTES];
static float logits[MODEL_VOCAB_SIZE];
static void dump(int64_t step) {
  for (int i = 0; i < N_AT; ++i) {
    if (logits_at[i] != step) continue;
    put("L "); put_int(step);
    for (int j = 0; j < MODEL_VOCAB_SIZE; ++j) {
      union { float f; uint32_t u; } v = {logits[j]};
      put_u32_hex(v.u);
    }
    put("\n");
  }
}
static int run(void) {
  kiln_ctx ctx;
  check(model_init(&ctx, arena, sizeof arena));
)c";
  if (plan.externalWeights)
    os << R"c(  static _Alignas(KILN_ARENA_ALIGN) uint8_t weights[MODEL_WEIGHTS_BYTES];
  FILE *wf = fopen("model.weights", "rb");
  if (!wf || fread(weights, 1, sizeof weights, wf) != sizeof weights) {
    put("E cannot read model.weights\n"); flush(); finish(2);
  }
  fclose(wf);
  check(model_set_weights(&ctx, weights, sizeof weights));
)c";
  os << R"c(  int32_t seq;
  check(model_seq_open(&ctx, &seq));
  check(model_prefill(&ctx, seq, prompt, N_PROMPT, logits));
  dump(0);
  for (int64_t g = 0; g < GENERATE; ++g) {
    int32_t best = 0;
    for (int32_t i = 1; i < MODEL_VOCAB_SIZE; ++i)
      if (logits[i] > logits[best]) best = i;
    put("T "); put_int(best); put("\n");
    check(model_decode(&ctx, seq, best, logits));
    dump(g + 1);
  }
  check(model_seq_close(&ctx, seq));
  flush();
  return 0;
}
)c";
  if (plan.hosted)
    os << "int main(void) { return run(); }\n";
  else
    os << "void _start(void) { finish(run()); }\n";
  return os.str();
}

bool kiln::parseRunnerOutput(const std::string &text, RunOutput &out,
                             std::string &error) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "T") {
      int32_t t;
      ls >> t;
      out.tokens.push_back(t);
    } else if (tag == "L") {
      int64_t step;
      ls >> step;
      std::vector<float> v;
      std::string hex;
      while (ls >> hex) {
        uint32_t bits = (uint32_t)std::stoul(hex, nullptr, 16);
        float f;
        std::memcpy(&f, &bits, 4);
        v.push_back(f);
      }
      out.logits.push_back({step, std::move(v)});
    } else if (tag == "E") {
      error = "the compiled model returned an error: " + line.substr(2);
      return false;
    } else if (!tag.empty()) {
      error = "unexpected runner output: " + line.substr(0, 200);
      return false;
    }
  }
  return true;
}
