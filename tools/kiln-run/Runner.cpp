//===- Runner.cpp - the C program kiln-run links against a compiled model -===//
//
// The prompt and the plan are baked into the source, so the same program runs
// natively, under qemu-user, or freestanding on Hexagon without argv or stdio;
// logits travel as the hex of their bits, so nothing is lost in printing.
//
#include "tools/kiln-run/Runner.h"
#include "compiler/codegen/Toolchain.h"
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cstdio>
#include <cstring>
#include <sstream>

using namespace kiln;

bool kiln::buildAndRun(mlir::ModuleOp module, const WeightStore &weights,
                       EmitOptions opts, const Target &t,
                       const std::string &source, int64_t vectorBits,
                       const std::string &keepDir, std::string &output,
                       int &status, std::string &error) {
  // A private build directory, removed at the end unless keepDir names one.
  std::string dir = keepDir;
  if (dir.empty()) {
    llvm::SmallString<128> tmp;
    if (auto ec = llvm::sys::fs::createUniqueDirectory("kiln-run", tmp)) {
      error = "cannot create a temporary directory: " + ec.message();
      return false;
    }
    dir = tmp.str().str();
  }
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      if (!dir.empty())
        llvm::sys::fs::remove_directories(dir);
    }
  } cleanup{keepDir.empty() ? dir : ""};
  opts.outDir = dir;
  if (!writeLibrary(module, weights, opts, error))
    return false;
  {
    std::FILE *f = std::fopen((dir + "/runner.c").c_str(), "w");
    if (!f) {
      error = "cannot write " + dir + "/runner.c";
      return false;
    }
    std::fputs(source.c_str(), f);
    std::fclose(f);
  }
  Toolchain toolchain(t, opts.cc);
  if (!toolchain.compile(dir, "runner.c", {}, error) ||
      !toolchain.link(dir, {"runner.o", "libmodel.a"}, "runner", error)) {
    error = "building the runner: " + error;
    return false;
  }
  status = toolchain.run({dir + "/runner"}, vectorBits, dir, output);
  if (status != 0)
    error = "runner exited with status " + std::to_string(status) + ": " +
            dir + "/runner\n" + output.substr(0, 2000);
  return true;
}

std::string kiln::runnerSource(const RunPlan &plan) {
  std::ostringstream os;
  os << "/* runner.c - written by kiln-run */\n#include \"model.h\"\n";
  const size_t S = plan.prompts.size();
  os << "static const int32_t prompts[] = {";
  size_t total = 0;
  std::string offsets, lengths;
  for (size_t s = 0; s < S; ++s) {
    offsets += (s ? ", " : "") + std::to_string(total);
    lengths += (s ? ", " : "") + std::to_string(plan.prompts[s].size());
    for (int32_t t : plan.prompts[s])
      os << (total++ ? ", " : "") << t;
  }
  os << "};\nstatic const int prompt_at[] = {" << offsets
     << "};\nstatic const int prompt_len[] = {" << lengths << "};\n"
     << "#define N_SEQ " << S << "\n";
  os << "static const int64_t logits_at[] = {";
  for (size_t i = 0; i < plan.logitsAt.size(); ++i)
    os << (i ? ", " : "") << plan.logitsAt[i];
  if (plan.logitsAt.empty())
    os << "-1";
  os << "};\nstatic const int32_t stops[] = {";
  for (size_t i = 0; i < plan.stopTokens.size(); ++i)
    os << (i ? ", " : "") << plan.stopTokens[i];
  if (plan.stopTokens.empty())
    os << "-1";
  os << "};\n#define N_STOPS " << (S == 1 ? plan.stopTokens.size() : 0);
  os << "\n#define THREADS " << plan.threads << "u\n#define GENERATE "
     << plan.generate << "\n#define N_AT " << plan.logitsAt.size() << "\n";
  os << "#define EMBEDDED_TOKENIZER " << (plan.embeddedTokenizer ? 1 : 0)
     << "\n";
  if (plan.embeddedTokenizer) {
    os << "static const char prompt_text[] = {";
    for (size_t i = 0; i < plan.promptText.size(); ++i)
      os << (i ? ", " : "") << (int)(signed char)plan.promptText[i];
    if (plan.promptText.empty())
      os << "0";
    os << "};\n#define PROMPT_TEXT_BYTES " << plan.promptText.size()
       << "u\n#define TOKENIZE_FLAGS " << plan.tokenizeFlags
       << "u\n#define TOKENIZE_SCRATCH " << plan.scratchBytes + 16
       << "u\n#define MAX_PROMPT_IDS " << plan.promptText.size() + 4 << "u\n";
  }
  os << programIoSource(plan.hosted);
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
static float logits[N_SEQ * MODEL_VOCAB_SIZE];
static void dump(int s, int64_t step) {
  for (int i = 0; i < N_AT; ++i) {
    if (logits_at[i] != step) continue;
    put("L "); put_int(s); put(" "); put_int(step);
    for (int j = 0; j < MODEL_VOCAB_SIZE; ++j) {
      union { float f; uint32_t u; } v = {logits[s * MODEL_VOCAB_SIZE + j]};
      put_u32_hex(v.u);
    }
    put("\n");
  }
}
static int run(void) {
  kiln_ctx ctx;
  check(model_init_threads(&ctx, arena, sizeof arena, THREADS));
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
  os << R"c(  int32_t seq[N_SEQ], next[N_SEQ];
  const int32_t *prompt_ids = prompts;
  size_t n_prompt = (size_t)prompt_len[0];
#if EMBEDDED_TOKENIZER
  static _Alignas(16) unsigned char scratch[TOKENIZE_SCRATCH];
  static int32_t ids[MAX_PROMPT_IDS];
  size_t need = 0;
  check(model_tokenize_scratch(PROMPT_TEXT_BYTES, &need));
  if (need > sizeof scratch) { put("E tokenizer scratch\n"); flush(); finish(2); }
  check(model_tokenize(prompt_text, PROMPT_TEXT_BYTES, TOKENIZE_FLAGS, scratch,
                       sizeof scratch, ids, MAX_PROMPT_IDS, &n_prompt));
  put("P");
  for (size_t i = 0; i < n_prompt; ++i) { put(" "); put_int(ids[i]); }
  put("\n");
  prompt_ids = ids;
  static int32_t generated[GENERATE > 0 ? GENERATE : 1];
  int64_t n_generated = 0;
#endif
  for (int s = 0; s < N_SEQ; ++s) {
    check(model_seq_open(&ctx, &seq[s]));
    check(model_prefill(&ctx, seq[s], s == 0 ? prompt_ids : prompts + prompt_at[s],
                        s == 0 ? n_prompt : (size_t)prompt_len[s],
                        logits + s * MODEL_VOCAB_SIZE));
    dump(s, 0);
  }
  for (int64_t g = 0; g < GENERATE; ++g) {
    for (int s = 0; s < N_SEQ; ++s) {
      const float *l = logits + s * MODEL_VOCAB_SIZE;
      int32_t best = 0;
      for (int32_t i = 1; i < MODEL_VOCAB_SIZE; ++i)
        if (l[i] > l[best]) best = i;
      next[s] = best;
      put("T "); put_int(s); put(" "); put_int(best); put("\n");
    }
    int stop = 0;
    for (int i = 0; i < N_STOPS; ++i)
      stop |= next[0] == stops[i];
#if EMBEDDED_TOKENIZER
    stop |= model_ends_generation(next[0]);
    if (!stop)
      generated[n_generated++] = next[0];
#endif
    if (stop)
      break;
    /* Several sequences advance together, reading each weight once. */
    if (N_SEQ == 1)
      check(model_decode(&ctx, seq[0], next[0], logits));
    else
      check(model_decode_batch(&ctx, seq, next, N_SEQ, logits));
    for (int s = 0; s < N_SEQ; ++s)
      dump(s, g + 1);
  }
#if EMBEDDED_TOKENIZER
  /* The continuation, a token at a time as a streaming printer would write
     it: only whole UTF-8 sequences leave the pending buffer. */
  static char pending[4096];
  size_t held = 0;
  for (int64_t g = 0; g <= n_generated; ++g) {
    size_t n = 0;
    if (g < n_generated)
      check(model_detokenize(&generated[g], 1, KILN_DETOKENIZE_CONTINUATION,
                             pending + held, sizeof pending - held, &n));
    held += n;
    size_t ready = g < n_generated ? kiln_utf8_complete(pending, held) : held;
    if (ready) {
      put("X");
      for (size_t i = 0; i < ready; ++i) {
        char h[4] = {' ', "0123456789abcdef"[(unsigned char)pending[i] >> 4],
                     "0123456789abcdef"[pending[i] & 15], 0};
        put(h);
      }
      put("\n");
      for (size_t i = ready; i < held; ++i)
        pending[i - ready] = pending[i];
      held -= ready;
    }
  }
#endif
  for (int s = 0; s < N_SEQ; ++s)
    check(model_seq_close(&ctx, seq[s]));
  model_shutdown(&ctx);
  flush();
  return 0;
}
)c";
  os << programEntrySource(plan.hosted);
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
      int s;
      int32_t t;
      ls >> s >> t;
      if (s < 0 || s > 4096) {
        error = "bad runner output: " + line.substr(0, 200);
        return false;
      }
      if ((int)out.tokens.size() <= s)
        out.tokens.resize(s + 1);
      out.tokens[s].push_back(t);
    } else if (tag == "L") {
      int s;
      int64_t step;
      ls >> s >> step;
      std::vector<float> v;
      std::string hex;
      while (ls >> hex) {
        uint32_t bits = (uint32_t)std::stoul(hex, nullptr, 16);
        float f;
        std::memcpy(&f, &bits, 4);
        v.push_back(f);
      }
      out.logits.push_back({{s, step}, std::move(v)});
    } else if (tag == "P") {
      for (int32_t t; ls >> t;)
        out.promptIds.push_back(t);
    } else if (tag == "X") {
      for (std::string hex; ls >> hex;)
        out.text += (char)std::stoul(hex, nullptr, 16);
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
