//===- Report.cpp - bytes, FLOPs and roofline predictions from the IR -----===//
//
// Everything here is read off the module after kiln-plan-memory: the weights'
// IR types (weightBytes), each op's shape, kiln.activation (the precision the
// kernel computes in), kiln.max_batch (the prefill chunk), the plan's
// kiln.arena_bytes. Nothing is run.
//
// Counting rules, chosen to match what the generated code does:
//  - a matmul reads its whole weight once per forward call and does 2*N*K
//    FLOPs per row; ops after kiln.last_token run on one row per call (the
//    output matmul costs prefill one row per prompt, not per token);
//  - an embedding reads one table row per token;
//  - norm scales and biases are read as f32 (the emitter converts them);
//  - attention over L positions does 2*d*L (q.k) + 2*d*L (p.v) FLOPs per
//    query head and reads L rows of K and V (f32, as the runtime stores them);
//  - elementwise ops (rope, silu_mul, add, the norms' arithmetic) are left
//    out of the FLOPs: O(width) per token, well under 0.1% of a matmul layer;
//    the RoPE tables (head_dim x 4 bytes per rope op and token) likewise.
// Weight bytes are in GGML block layout; the targets' packed layouts add only
// padding (rows to the tile, metadata to 64 bytes).
//
#include "compiler/analysis/Report.h"
#include "compiler/dialect/KilnDialect.h"
#include "kiln/kiln.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace kiln;

namespace {
// "blk.12.attn_q" -> "attn_q": one row per kind of op, summed over layers.
std::string stripLayer(StringRef s) {
  if (s.consume_front("blk.")) {
    auto dot = s.find('.');
    if (dot != StringRef::npos)
      return s.substr(dot + 1).str();
  }
  return s.str();
}

// An op fused from several (kiln-fuse-*) carries their names in a FusedLoc:
// "attn_q+attn_k+attn_v", "ffn_down+ffn_residual".
std::string groupName(Operation *op) {
  if (auto nl = op->getLoc().dyn_cast<NameLoc>())
    return stripLayer(nl.getName());
  if (auto fl = op->getLoc().dyn_cast<FusedLoc>()) {
    std::string name;
    for (Location l : fl.getLocations())
      if (auto nl = l.dyn_cast<NameLoc>())
        name += (name.empty() ? "" : "+") + stripLayer(nl.getName());
    if (!name.empty())
      return name;
  }
  return op->getName().stripDialect().str();
}

int64_t widthOf(Value v) {
  return v.getType().cast<RankedTensorType>().getDimSize(1);
}

std::string withCommas(double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.0f", v);
  std::string s = buf, out;
  int n = 0;
  for (int i = (int)s.size() - 1; i >= 0; --i) {
    out.insert(out.begin(), s[i]);
    if (isdigit((unsigned char)s[i]) && ++n % 3 == 0 && i > 0 &&
        isdigit((unsigned char)s[i - 1]))
      out.insert(out.begin(), ',');
  }
  return out;
}
} // namespace

std::map<std::string, double> ModelReport::flopsByPrecision(bool decode) const {
  std::map<std::string, double> m;
  for (const OpGroupCost &g : groups)
    if (!g.precision.empty())
      m[g.precision] += decode ? g.decodeFlops : g.prefillFlops;
  return m;
}

bool kiln::computeReport(ModuleOp module,
                         int64_t reportContext, ModelReport &r,
                         std::string &error) {
  auto func = module.lookupSymbol<func::FuncOp>("forward");
  if (!func || !func->hasAttr("kiln.arena_bytes")) {
    error = "module has not been through memory planning";
    return false;
  }
  auto modInt = [&](StringRef n) {
    auto a = module->getAttrOfType<IntegerAttr>(n);
    return a ? a.getInt() : 0;
  };
  if (auto s = module->getAttrOfType<StringAttr>("kiln.source"))
    r.source = s.getValue().str();
  if (TargetAttr t = moduleTarget(module)) {
    r.target = t.getIsa().str();
    r.cpu = t.getCpu().str();
  }
  const LayoutOptions opts = moduleLayout(module);
  r.kvElementBytes = opts.kvF16 ? 2 : 4;
  r.contextLength = modInt("kiln.context_length");
  r.maxBatch = std::max<int64_t>(1, modInt("kiln.max_batch"));
  r.maxBatchL2Bytes = modInt("kiln.max_batch_l2_bytes");
  r.threads = std::max<int64_t>(1, modInt("kiln.threads"));
  r.activation = activationPlan(func);
  r.vocab = func.getFunctionType().getResult(0).cast<RankedTensorType>()
                .getDimSize(1);
  if (r.contextLength < 2) {
    error = "module has no kiln.context_length of at least 2";
    return false;
  }
  const int64_t N =
      reportContext > 0 ? reportContext
                        : std::min<int64_t>(512, r.contextLength - 1);
  if (N < 1 || N > r.contextLength - 1) {
    error = "--report-context=" + std::to_string(reportContext) +
            ": expected 1 to " + std::to_string(r.contextLength - 1) +
            " (the compiled context is " + std::to_string(r.contextLength) +
            " tokens)";
    return false;
  }
  r.reportContext = N;

  for (WeightOp w : module.getOps<WeightOp>())
    r.weightsBytes += weightBytes(w.getTensorType());

  // Rows after kiln.last_token: one per forward call, not one per token.
  llvm::DenseSet<Value> tail;
  std::map<std::string, OpGroupCost> groups;
  std::vector<std::string> order;
  // Weight bytes read once per forward call before / after last_token, and
  // per token (embedding rows).
  int64_t bodyBytes = 0, tailBytes = 0, perTokenBytes = 0;
  SymbolTable symbols(module);
  auto weightType = [&](StringRef sym) {
    auto w = symbols.lookup<WeightOp>(sym);
    return w ? w.getTensorType() : RankedTensorType();
  };
  for (Operation &op : func.getBody().front()) {
    bool inTail = isa<LastTokenOp>(op);
    for (Value v : op.getOperands())
      inTail |= tail.contains(v);
    if (inTail)
      for (Value v : op.getResults())
        tail.insert(v);
    if (op.getDialect() != module->getContext()->getLoadedDialect<KilnDialect>())
      continue;
    std::string name = groupName(&op);
    if (!groups.count(name))
      order.push_back(name);
    OpGroupCost &g = groups[name];
    g.name = name;
    ++g.count;
    // Per-token FLOPs of a tail op in prefill: one row per N-token prompt.
    const double prefillShare = inTail ? 1.0 / (double)N : 1.0;
    if (auto e = dyn_cast<EmbeddingOp>(op)) {
      auto t = weightType(e.getTable());
      if (!t) {
        error = "embedding table @" + e.getTable().str() + " not found";
        return false;
      }
      int64_t row = weightBytes(t) / t.getDimSize(0);
      g.decodeBytes += row;
      perTokenBytes += row;
      r.width = widthOf(e.getResult());
    } else if (auto m = dyn_cast<MatMulOp>(op)) {
      auto t = weightType(m.getWeight());
      if (!t) {
        error = "matmul weight @" + m.getWeight().str() + " not found";
        return false;
      }
      const int64_t outN = t.getDimSize(0), K = t.getDimSize(1);
      int64_t bytes = weightBytes(t) + (m.getBias() ? outN * 4 : 0);
      g.decodeBytes += bytes;
      (inTail ? tailBytes : bodyBytes) += bytes;
      const double flops = 2.0 * (double)outN * (double)K;
      g.decodeFlops += flops;
      g.prefillFlops += flops * prefillShare;
      r.decodeMatmulFlops += flops;
      r.prefillMatmulFlops += flops * prefillShare;
      auto act = op.getAttrOfType<StringAttr>("kiln.activation");
      g.precision = act ? "int8" : "f32";
      if (auto k = op.getAttrOfType<StringAttr>("kiln.kernel")) {
        auto &ks = r.matmulKernels[weightTypeName(t.getElementType()).str()];
        if (std::find(ks.begin(), ks.end(), k.getValue().str()) == ks.end())
          ks.push_back(k.getValue().str());
      }
      // A gated FFN fused into its matmul (kiln-fuse-elementwise).
      if (m.getEpilogue() && *m.getEpilogue() != "add")
        r.ffn = widthOf(m.getOutput());
    } else if (auto n = dyn_cast<RMSNormOp>(op)) {
      // A scale folded into the next weights (kiln-fuse-elementwise) is read
      // there, not here.
      int64_t bytes =
          n.getWeight()
              ? (n.getGroup() ? *n.getGroup() : widthOf(n.getResult())) * 4
              : 0;
      g.decodeBytes += bytes;
      (inTail ? tailBytes : bodyBytes) += bytes;
    } else if (auto a = dyn_cast<AttentionOp>(op)) {
      const int64_t h = a.getNumHeads(), kvh = a.getNumKvHeads(),
                    d = a.getHeadDim();
      r.layers = std::max<int64_t>(r.layers, a.getLayer() + 1);
      r.heads = h, r.kvHeads = kvh, r.headDim = d;
      const int64_t kvRow = 2 * kvh * d * r.kvElementBytes;
      r.kvBytesPerToken += kvRow;
      // Decode: the new token attends all N + 1 positions, or the last w
      // with a sliding window of w.
      const int64_t w = a.getWindow() ? (int64_t)*a.getWindow() : N + 1;
      const int64_t seen = std::min(N + 1, w);
      r.swaWindow = std::max(r.swaWindow, a.getWindow() ? w : 0);
      const double decode = 4.0 * (double)(h * d) * (double)seen;
      // Prefill: token i (1-based) of the prompt attends min(i, w)
      // positions; average.
      const double attended =
          N <= w ? (double)N * (double)(N + 1) / 2.0
                 : (double)w * (double)(w + 1) / 2.0 + (double)(N - w) * (double)w;
      const double prefill = 4.0 * (double)(h * d) * attended / (double)N;
      g.decodeFlops += decode;
      g.prefillFlops += prefill;
      g.decodeBytes += seen * kvRow;
      g.precision = "f32";
      r.decodeAttentionFlops += decode;
      r.prefillAttentionFlops += prefill;
      r.decodeKvReadBytes += seen * kvRow;
    } else if (isa<SiluMulOp, GeluMulOp>(op)) {
      r.ffn = widthOf(op.getResult(0));
    }
  }
  for (const std::string &n : order)
    r.groups.push_back(groups[n]);
  r.decodeWeightBytes = bodyBytes + tailBytes + perTokenBytes;
  r.decodeFlops = r.decodeMatmulFlops + r.decodeAttentionFlops;
  r.prefillFlops = r.prefillMatmulFlops + r.prefillAttentionFlops;

  // Prefill of an N-token prompt runs ceil(N / max_batch) forward calls; each
  // reads the body's weights once and the K/V rows up to its end (at least).
  double prefillBytes = (double)tailBytes + (double)N * (double)perTokenBytes;
  for (int64_t end = 0; end < N;) {
    end = std::min(N, end + r.maxBatch);
    prefillBytes += (double)bodyBytes + (double)end * (double)r.kvBytesPerToken;
  }
  r.prefillBytesPerToken = prefillBytes / (double)N;

  // The whole arena, as the header's NAME_ARENA_BYTES states it: the same
  // layout the emitter fills in, sized by the runtime's own code.
  const KvPlan kv = planKv(func, opts, r.contextLength);
  const kiln_layout l =
      libraryLayout(opts, r.contextLength, kv, r.activation.bytes);
  r.arenaBytes = (int64_t)kiln_arena_bytes(&l);
  r.swaLayers = kv.swaLayers;
  r.swaRing = kv.swaRing;
  if (kv.swaLayers > 0) {
    KvPlan blocksOnly = kv;
    blocksOnly.swaLayers = blocksOnly.swaRing = 0;
    const kiln_layout b = libraryLayout(opts, r.contextLength, blocksOnly,
                                        r.activation.bytes);
    r.swaSavedBytes = (int64_t)kiln_arena_bytes(&b) - r.arenaBytes;
  }
  return true;
}

Prediction kiln::predict(const ModelReport &r, const DeviceProfile &d) {
  Prediction p;
  const double cores = (double)std::min<int64_t>(r.threads, d.cores);
  auto peak = [&](const std::string &prec) {
    auto it = d.peakGflopsPerCore.find(prec);
    return (it != d.peakGflopsPerCore.end() ? it->second : 0.0) * cores * 1e9;
  };
  auto computeSeconds = [&](bool decode) {
    double s = 0;
    for (auto &[prec, flops] : r.flopsByPrecision(decode))
      s += flops / peak(prec);
    return s;
  };
  const double bw = d.readBandwidthGBs * 1e9;
  double decodeMem = (double)r.decodeBytes() / bw;
  double decodeCompute = computeSeconds(true);
  double prefillMem = r.prefillBytesPerToken / bw;
  double prefillCompute = computeSeconds(false);
  p.decodeBandwidthTokS = 1.0 / decodeMem;
  p.decodeComputeTokS = 1.0 / decodeCompute;
  p.decodeTokS = 1.0 / std::max(decodeMem, decodeCompute);
  p.decodeBound = decodeMem >= decodeCompute ? "bandwidth" : "compute";
  p.prefillBandwidthTokS = 1.0 / prefillMem;
  p.prefillComputeTokS = 1.0 / prefillCompute;
  p.prefillTokS = 1.0 / std::max(prefillMem, prefillCompute);
  p.prefillBound = prefillMem >= prefillCompute ? "bandwidth" : "compute";
  return p;
}

std::string kiln::prefillChunkText(const ModelReport &r) {
  std::string s = std::to_string(r.maxBatch);
  if (r.maxBatchL2Bytes > 0)
    s += " (sized to a " + std::to_string(r.maxBatchL2Bytes / 1024) +
         " KiB L2)";
  return s;
}

std::string kiln::reportText(const ModelReport &r, const DeviceProfile *d,
                             const Prediction *p) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto fmt = [](double v, int prec) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", prec, v);
    return std::string(buf);
  };
  const int64_t N = r.reportContext;
  os << "kilnc report: " << r.source << " for --target=" << r.target
     << (r.cpu.empty() ? "" : " --cpu=" + r.cpu) << ", " << r.threads
     << (r.threads == 1 ? " thread" : " threads") << "\n"
     << "model: " << r.layers << " layers, width " << r.width << ", "
     << r.heads << " heads / " << r.kvHeads << " KV heads of " << r.headDim
     << ", FFN " << r.ffn << ", vocab " << r.vocab << ", context "
     << r.contextLength << ", prefill chunk " << prefillChunkText(r) << "\n"
     << "weights: " << r.weightsBytes << " bytes ("
     << withCommas((double)r.weightsBytes) << ")\n"
     << "weight bytes per decoded token: " << r.decodeWeightBytes << " ("
     << withCommas((double)r.decodeWeightBytes)
     << "; the embedding contributes one row)\n"
     << "KV bytes per token per sequence: " << r.kvBytesPerToken
     << " (2 x " << r.layers << " layers x " << r.kvHeads << " KV heads x "
     << r.headDim << " x " << r.kvElementBytes << " bytes, "
     << (r.kvElementBytes == 2 ? "f16" : "f32") << ")\n"
     << "attention position: decode is the token after " << N
     << " cached tokens (" << N + 1 << " positions); prefill is averaged over a "
     << N << "-token prompt (--report-context=N)\n"
     << "decode: bytes per token " << r.decodeBytes() << " (weights "
     << r.decodeWeightBytes << " + KV read " << r.decodeKvReadBytes
     << "), FLOPs per token " << fmt(r.decodeFlops, 0) << " (matmul "
     << fmt(r.decodeMatmulFlops, 0) << " + attention "
     << fmt(r.decodeAttentionFlops, 0) << ")\n"
     << "prefill: bytes per token " << fmt(r.prefillBytesPerToken, 0)
     << ", FLOPs per token " << fmt(r.prefillFlops, 0) << " (matmul "
     << fmt(r.prefillMatmulFlops, 0) << " + attention "
     << fmt(r.prefillAttentionFlops, 0) << ")\n"
     << "arena: " << r.arenaBytes << " bytes (activations "
     << r.activation.bytes << ", kiln.arena_bytes)\n"
     << activationPlanText(r.activation);
  if (r.swaLayers > 0)
    os << "sliding-window layers: " << r.swaLayers << " of " << r.layers
       << " keep a ring of " << r.swaRing
       << " positions per sequence (window " << r.swaWindow
       << " + prefill chunk - 1, in whole KV blocks) instead of the context "
       << r.contextLength << ": the arena is " << r.swaSavedBytes
       << " bytes smaller\n";
  else if (r.swaWindow > 0)
    os << "sliding-window layers: window " << r.swaWindow
       << " + prefill chunk - 1 is not less than the context "
       << r.contextLength << ": kept in KV blocks like the others\n";
  if (!r.matmulKernels.empty()) {
    os << "matmul kernels by weight type (portable: the scalar C kernels):\n";
    for (const auto &[type, ks] : r.matmulKernels) {
      os << "  " << type << ":";
      for (const std::string &k : ks) {
        const bool portable = k.size() > 8 && k.rfind("_generic") == k.size() - 8;
        os << " " << k << (portable ? " (portable)" : "");
      }
      os << "\n";
    }
  }
  os << "per op kind (decode bytes, decode FLOPs, prefill FLOPs per token):\n";
  for (const OpGroupCost &g : r.groups) {
    if (!g.decodeBytes && g.decodeFlops == 0)
      continue;
    char line[256];
    snprintf(line, sizeof line, "  %-14s x%-4lld %-5s %14lld B %16.0f %16.0f\n",
             g.name.c_str(), (long long)g.count,
             g.precision.empty() ? "-" : g.precision.c_str(),
             (long long)g.decodeBytes, g.decodeFlops, g.prefillFlops);
    os << line;
  }
  if (d && p) {
    os << "device " << d->name << ": read bandwidth "
       << fmt(d->readBandwidthGBs, 1) << " GB/s, peak per core f32 "
       << fmt(d->peakGflopsPerCore.at("f32"), 1) << " / int8 "
       << fmt(d->peakGflopsPerCore.at("int8"), 1) << " GFLOP/s, "
       << std::min<int64_t>(r.threads, d->cores) << " of " << d->cores
       << " cores used\n"
       << "  predicted decode: " << fmt(p->decodeTokS, 1) << " tokens/s, "
       << p->decodeBound << " bound (bandwidth " << fmt(p->decodeBandwidthTokS, 1)
       << ", compute " << fmt(p->decodeComputeTokS, 1) << ")\n"
       << "  predicted prefill: " << fmt(p->prefillTokS, 1) << " tokens/s, "
       << p->prefillBound << " bound (bandwidth "
       << fmt(p->prefillBandwidthTokS, 1) << ", compute "
       << fmt(p->prefillComputeTokS, 1) << ")\n";
  }
  return s;
}

void kiln::writeDeviceJson(llvm::json::OStream &j, const DeviceProfile &d) {
  j.attributeObject("device", [&] {
    j.attribute("name", d.name);
    j.attribute("path", d.path);
    if (!d.comment.empty())
      j.attribute("comment", d.comment);
    j.attribute("read_bandwidth_gbs", d.readBandwidthGBs);
    j.attribute("cores", d.cores);
    j.attributeObject("peak_gflops_per_core", [&] {
      for (auto &[k, v] : d.peakGflopsPerCore)
        j.attribute(k, v);
    });
    if (d.l2BytesPerCore > 0)
      j.attribute("l2_kib_per_core", d.l2BytesPerCore / 1024);
  });
}

std::string kiln::reportJson(const ModelReport &r, const DeviceProfile *d,
                             const Prediction *p) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("source", r.source);
    j.attribute("target", r.target);
    j.attribute("cpu", r.cpu);
    j.attribute("threads", r.threads);
    j.attributeObject("model", [&] {
      j.attribute("layers", r.layers);
      j.attribute("width", r.width);
      j.attribute("heads", r.heads);
      j.attribute("kv_heads", r.kvHeads);
      j.attribute("head_dim", r.headDim);
      j.attribute("ffn", r.ffn);
      j.attribute("vocab", r.vocab);
      j.attribute("context_length", r.contextLength);
      j.attribute("max_batch", r.maxBatch);
      if (r.maxBatchL2Bytes > 0)
        j.attribute("max_batch_l2_bytes", r.maxBatchL2Bytes);
    });
    j.attribute("report_context", r.reportContext);
    j.attribute("weights_bytes", r.weightsBytes);
    j.attribute("weight_bytes_per_token", r.decodeWeightBytes);
    j.attribute("kv_bytes_per_token", r.kvBytesPerToken);
    j.attribute("kv_element_bytes", r.kvElementBytes);
    j.attributeObject("decode", [&] {
      j.attribute("bytes_per_token", r.decodeBytes());
      j.attribute("weight_bytes", r.decodeWeightBytes);
      j.attribute("kv_read_bytes", r.decodeKvReadBytes);
      j.attribute("flops_per_token", r.decodeFlops);
      j.attribute("matmul_flops", r.decodeMatmulFlops);
      j.attribute("attention_flops", r.decodeAttentionFlops);
    });
    j.attributeObject("prefill", [&] {
      j.attribute("bytes_per_token", r.prefillBytesPerToken);
      j.attribute("flops_per_token", r.prefillFlops);
      j.attribute("matmul_flops", r.prefillMatmulFlops);
      j.attribute("attention_flops", r.prefillAttentionFlops);
    });
    j.attribute("arena_bytes", r.arenaBytes);
    j.attribute("activation_arena_bytes", r.activation.bytes);
    j.attribute("activation_lower_bound_bytes", r.activation.lowerBound);
    j.attribute("activation_no_reuse_bytes", r.activation.noReuse);
    j.attributeObject("sliding_window", [&] {
      j.attribute("window", r.swaWindow);
      j.attribute("ring_layers", r.swaLayers);
      j.attribute("ring_positions", r.swaRing);
      j.attribute("arena_bytes_saved", r.swaSavedBytes);
    });
    j.attributeObject("matmul_kernels", [&] {
      for (const auto &entry : r.matmulKernels)
        j.attributeArray(entry.first, [&] {
          for (const std::string &k : entry.second)
            j.value(k);
        });
    });
    j.attributeArray("ops", [&] {
      for (const OpGroupCost &g : r.groups)
        j.object([&] {
          j.attribute("name", g.name);
          j.attribute("count", g.count);
          j.attribute("precision", g.precision);
          j.attribute("decode_bytes", g.decodeBytes);
          j.attribute("decode_flops", g.decodeFlops);
          j.attribute("prefill_flops", g.prefillFlops);
        });
    });
    if (d && p) {
      writeDeviceJson(j, *d);
      j.attributeObject("prediction", [&] {
        j.attribute("decode_tokens_per_s", p->decodeTokS);
        j.attribute("decode_bound", p->decodeBound);
        j.attribute("decode_bandwidth_tokens_per_s", p->decodeBandwidthTokS);
        j.attribute("decode_compute_tokens_per_s", p->decodeComputeTokS);
        j.attribute("prefill_tokens_per_s", p->prefillTokS);
        j.attribute("prefill_bound", p->prefillBound);
        j.attribute("prefill_bandwidth_tokens_per_s", p->prefillBandwidthTokS);
        j.attribute("prefill_compute_tokens_per_s", p->prefillComputeTokS);
      });
    }
  });
  os << "\n";
  return s;
}

std::string kiln::rooflineSvg(const ModelReport &r, const DeviceProfile &d) {
  const double cores = (double)std::min<int64_t>(r.threads, d.cores);
  const double bw = d.readBandwidthGBs; // GB/s: GFLOP/s per FLOP/byte
  auto peakOf = [&](const std::string &prec) {
    auto it = d.peakGflopsPerCore.find(prec);
    return (it != d.peakGflopsPerCore.end() ? it->second : 0.0) * cores;
  };
  const double top = std::max(peakOf("f32"), peakOf("int8"));
  // Log-log axes: intensity 1/64 .. 1024 FLOP/byte, rate top/4096 .. 2*top.
  const double x0 = 1.0 / 64, x1 = 1024, y1 = top * 2, y0 = y1 / 8192;
  const int W = 720, H = 480, L = 70, R = 20, T = 30, B = 50;
  auto px = [&](double ai) {
    return L + (double)(W - L - R) * std::log(ai / x0) / std::log(x1 / x0);
  };
  auto py = [&](double g) {
    return H - B - (double)(H - T - B) * std::log(g / y0) / std::log(y1 / y0);
  };
  auto num = [](double v) {
    char b[32];
    snprintf(b, sizeof b, "%.1f", v);
    return std::string(b);
  };
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
     << "<title>roofline: " << r.source << " on " << d.name << "</title>\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << L << "\" y=\"18\" font-size=\"13\">" << r.source
     << " (" << r.target << ", " << r.threads << " thread" << (r.threads > 1 ? "s" : "")
     << ") on " << d.name << ": " << num(bw) << " GB/s</text>\n";
  // Axes with decade ticks.
  os << "<g stroke=\"#999\" stroke-width=\"0.5\">\n";
  for (double v = x0; v <= x1 * 1.001; v *= 4)
    os << "<line x1=\"" << num(px(v)) << "\" y1=\"" << T << "\" x2=\"" << num(px(v))
       << "\" y2=\"" << H - B << "\"/>\n";
  for (double v = 1e-3; v <= y1; v *= 10)
    if (v >= y0)
      os << "<line x1=\"" << L << "\" y1=\"" << num(py(v)) << "\" x2=\"" << W - R
         << "\" y2=\"" << num(py(v)) << "\"/>\n";
  os << "</g>\n";
  for (double v = x0; v <= x1 * 1.001; v *= 4)
    os << "<text x=\"" << num(px(v)) << "\" y=\"" << H - B + 14
       << "\" text-anchor=\"middle\">" << (v < 1 ? "1/" + num(1 / v).substr(0, num(1 / v).size() - 2) : num(v).substr(0, num(v).size() - 2))
       << "</text>\n";
  for (double v = 1e-3; v <= y1; v *= 10)
    if (v >= y0)
      os << "<text x=\"" << L - 4 << "\" y=\"" << num(py(v) + 4)
         << "\" text-anchor=\"end\">" << (v < 1 ? num(v * 1000) + "M" : num(v)) << "</text>\n";
  os << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12
     << "\" text-anchor=\"middle\">FLOPs per byte read (decode, per op kind)</text>\n"
     << "<text x=\"16\" y=\"" << (T + H - B) / 2
     << "\" transform=\"rotate(-90 16 " << (T + H - B) / 2
     << ")\" text-anchor=\"middle\">GFLOP/s</text>\n";
  // Roofs: min(peak, intensity x bandwidth) for each precision.
  const char *colors[] = {"#1f77b4", "#d62728"};
  int c = 0;
  for (const char *prec : {"f32", "int8"}) {
    double peak = peakOf(prec), knee = peak / bw;
    os << "<polyline class=\"roof\" fill=\"none\" stroke=\"" << colors[c++]
       << "\" stroke-width=\"2\" points=\"" << num(px(x0)) << ","
       << num(py(std::max(x0 * bw, y0))) << " " << num(px(std::min(knee, x1)))
       << "," << num(py(std::min(peak, x1 * bw))) << " " << num(px(x1)) << ","
       << num(py(std::min(peak, x1 * bw))) << "\"/>\n"
       << "<text x=\"" << num(W - R - 4) << "\" y=\"" << num(py(peak) - 4)
       << "\" text-anchor=\"end\">" << prec << " peak " << num(peak)
       << " GFLOP/s</text>\n";
  }
  // One point per op kind that computes, and the model's decode and prefill.
  // Labels of points that coincide (every matmul of one weight type) stack.
  std::map<std::pair<int, int>, int> labelsAt;
  auto point = [&](const std::string &label, double flops, double bytes,
                   const std::string &prec, const char *fill) {
    if (flops <= 0 || bytes <= 0)
      return;
    double ai = std::min(std::max(flops / bytes, x0), x1);
    double g = std::max(std::min(peakOf(prec), ai * bw), y0);
    int stacked = labelsAt[{(int)px(ai), (int)py(g)}]++;
    os << "<circle class=\"op\" cx=\"" << num(px(ai)) << "\" cy=\"" << num(py(g))
       << "\" r=\"4\" fill=\"" << fill << "\"><title>" << label << ": "
       << num(flops / bytes) << " FLOP/byte, " << num(g) << " GFLOP/s</title></circle>\n"
       << "<text x=\"" << num(px(ai) + 6) << "\" y=\""
       << num(py(g) + 14 + 12 * stacked) << "\">"
       << label << "</text>\n";
  };
  for (const OpGroupCost &g : r.groups)
    point(g.name, g.decodeFlops, (double)g.decodeBytes, g.precision, "#444");
  point("model decode", r.decodeFlops, (double)r.decodeBytes(), "int8", "#2ca02c");
  point("model prefill", r.prefillFlops, r.prefillBytesPerToken, "int8", "#ff7f0e");
  os << "</svg>\n";
  return s;
}

kiln::ActivationPlan kiln::activationPlan(Operation *func) {
  auto num = [&](StringRef attr) {
    auto a = func->getAttrOfType<IntegerAttr>(attr);
    return a ? a.getInt() : 0;
  };
  return {num("kiln.arena_bytes"), num("kiln.arena_lower_bound"),
          num("kiln.arena_no_reuse")};
}

std::string kiln::activationPlanText(const ActivationPlan &p) {
  return "activation plan: " + std::to_string(p.bytes) + " bytes, lower bound " +
         std::to_string(p.lowerBound) + " (the most live at once), without reuse " +
         std::to_string(p.noReuse) + "\n";
}
