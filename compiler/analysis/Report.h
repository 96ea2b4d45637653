//===- Report.h - static cost of a compiled model: bytes, FLOPs, roofline -===//
//
// The seeds' method starts from the physical limit: decode reads every weight
// once per token, so tokens/s <= bandwidth / bytes per token; prefill is bound
// by compute. This file computes those numbers from the IR after kilnc's
// pipeline (ops, weight types, kernel and memory-plan attributes) and turns
// them into predictions for a device profile.
//
#ifndef KILN_ANALYSIS_REPORT_H
#define KILN_ANALYSIS_REPORT_H

#include "compiler/codegen/Emitter.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>
#include <vector>

namespace llvm::json {
class OStream;
} // namespace llvm::json

namespace kiln {

/// kiln-plan-memory's plan of a function's activations against its bounds.
struct ActivationPlan {
  int64_t bytes = 0;      // kiln.arena_bytes: what the plan holds
  int64_t lowerBound = 0; // kiln.arena_lower_bound: the most live at once
  int64_t noReuse = 0;    // kiln.arena_no_reuse: every buffer apart
};
/// Reads the plan's attributes from a planned function (0 where absent).
ActivationPlan activationPlan(mlir::Operation *func);
/// "activation plan: B bytes, lower bound L (...), without reuse U\n".
std::string activationPlanText(const ActivationPlan &p);

/// Cost of the ops of one kind (grouped by the op's name without the layer
/// prefix: "attn_q", "ffn_down", "attention", "output", ...).
struct OpGroupCost {
  std::string name;
  std::string precision;        // "int8" (q8_0 activations), "f32"
  int64_t count = 0;            // ops in the model
  int64_t decodeBytes = 0;      // weight (and KV) bytes one decode step reads
  double decodeFlops = 0;       // per decoded token
  double prefillFlops = 0;      // per prompt token (averaged over the prompt)
};

struct ModelReport {
  std::string source, target, cpu;
  int64_t layers = 0, width = 0, heads = 0, kvHeads = 0, headDim = 0, ffn = 0,
          vocab = 0, contextLength = 0, maxBatch = 0, threads = 1;
  /// The L2 per core the prefill chunk was sized for (--max-batch=auto), or
  /// 0 when the chunk was given or no L2 was known.
  int64_t maxBatchL2Bytes = 0;
  /// N: decode figures are for the token after N cached tokens (it attends
  /// N + 1 positions); prefill figures are averages over an N-token prompt.
  int64_t reportContext = 0;
  int64_t weightsBytes = 0;        // every kiln.weight, in its IR type
  int64_t decodeWeightBytes = 0;   // weight bytes one decode step reads
  int64_t kvBytesPerToken = 0;     // K and V, all layers, one sequence
  int64_t kvElementBytes = 4;      // K/V element: 4 (f32) or 2 (--kv-cache=f16)
  int64_t decodeKvReadBytes = 0;   // K/V bytes the decode step reads
  double prefillBytesPerToken = 0; // weights per chunk + KV, per prompt token
  double decodeFlops = 0, prefillFlops = 0;
  double decodeMatmulFlops = 0, decodeAttentionFlops = 0;
  double prefillMatmulFlops = 0, prefillAttentionFlops = 0;
  ActivationPlan activation;         // one forward call's activations
  int64_t arenaBytes = 0;           // NAME_ARENA_BYTES: with KV pool, tables
  /// Sliding-window layers kept in rings of swaRing positions per sequence
  /// (kiln_layout.swa_layers / swa_ring), their widest window, and the
  /// arena bytes the rings save against keeping those layers in KV blocks.
  int64_t swaLayers = 0, swaRing = 0, swaWindow = 0, swaSavedBytes = 0;
  std::vector<OpGroupCost> groups;
  /// Matmul weight type -> the kernels that multiply it (kiln.kernel; names
  /// ending in _generic are the portable C kernels).
  std::map<std::string, std::vector<std::string>> matmulKernels;

  int64_t decodeBytes() const { return decodeWeightBytes + decodeKvReadBytes; }
  /// FLOPs per token by precision, for the compute bound.
  std::map<std::string, double> flopsByPrecision(bool decode) const;
};

/// A device: read bandwidth and peak arithmetic rate per precision.
struct DeviceProfile {
  std::string name, comment, path;
  double readBandwidthGBs = 0;            // GB/s a decode can stream
  int64_t cores = 1;                      // cores compute scales over
  std::map<std::string, double> peakGflopsPerCore; // "f32", "int8"
  int64_t l2BytesPerCore = 0; // one core's L2 (or its share); 0: not stated
};

/// What a device profile predicts for a report.
struct Prediction {
  double decodeBandwidthTokS = 0, decodeComputeTokS = 0, decodeTokS = 0;
  double prefillBandwidthTokS = 0, prefillComputeTokS = 0, prefillTokS = 0;
  std::string decodeBound, prefillBound; // "bandwidth" or "compute"
};

/// Computes the report from a module that went through kiln-plan-memory.
/// `reportContext` <= 0 picks min(512, context - 1). The target and the
/// layout are the module's.
bool computeReport(mlir::ModuleOp module,
                   int64_t reportContext, ModelReport &report,
                   std::string &error);

/// Loads a device profile: "host" (measured now, see Device.cpp), a path to
/// a JSON file, or the name of a shipped profile in `profileDir`.
bool loadDeviceProfile(const std::string &spec, const std::string &profileDir,
                       const std::string &cc, DeviceProfile &profile,
                       std::string &error);
/// Parses a profile's JSON text; `where` names it in errors.
bool parseDeviceProfile(const std::string &text, const std::string &where,
                        DeviceProfile &profile, std::string &error);
/// Measures this machine: single-thread read bandwidth and matmul rates of a
/// probe compiled with `cc` -O3 -march=native (about a second).
bool measureHost(const std::string &cc, DeviceProfile &profile,
                 std::string &error);
/// measureHost in two steps, for callers that probe again and again: builds
/// the probe into `dir` (its path in `exe`), then runs it.
bool buildHostProbe(const std::string &cc, const std::string &dir,
                    std::string &exe, std::string &error);
bool runHostProbe(const std::string &exe, DeviceProfile &profile,
                  std::string &error);
/// This machine's L2 cache per core and its last-level (L3) cache, from
/// Linux's sysfs (/sys/devices/system/cpu/cpu0/cache), else from glibc's
/// sysconf (CPUID on x86), or 0 where neither says.
int64_t hostL2CacheBytes();
int64_t hostL3CacheBytes();
/// The L2 an automatic prefill chunk (--max-batch=auto) is sized for: the
/// `device` profile's when it states one, else this machine's when the
/// library is built for it (`target` x86 with `cpu` host, its default), else
/// 0 (the chunk stays 32).
int64_t chunkCacheBytes(const std::string &target, const std::string &cpu,
                        const DeviceProfile *device);
/// The folder of shipped profiles next to the running tool
/// (BIN/../share/kiln/devices), or $KILN_DEVICES_DIR.
std::string defaultProfileDir(const char *argv0, void *mainAddr);

Prediction predict(const ModelReport &r, const DeviceProfile &d);
/// The "device" member of a report's JSON (the language model's and the
/// graph's).
void writeDeviceJson(llvm::json::OStream &j, const DeviceProfile &d);

/// "64 (sized to a 1024 KiB L2)", or "32" when the chunk was not sized to
/// an L2: the prefill chunk as the report and kiln-bench print it.
std::string prefillChunkText(const ModelReport &r);
/// The report as text (for people) and JSON (for machines).
std::string reportText(const ModelReport &r, const DeviceProfile *d,
                       const Prediction *p);
std::string reportJson(const ModelReport &r, const DeviceProfile *d,
                       const Prediction *p);
/// A roofline plot (SVG) of the model's op kinds on a device: arithmetic
/// intensity of each at decode (FLOPs per byte read) against the rate the
/// device allows it, under the bandwidth slope and the f32/int8 roofs; the
/// whole model's decode and prefill as two more points.
std::string rooflineSvg(const ModelReport &r, const DeviceProfile &d);
} // namespace kiln

#endif
