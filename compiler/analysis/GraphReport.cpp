//===- GraphReport.cpp - static cost of a compiled graph model (ONNX) -----===//
#include "compiler/analysis/GraphReport.h"
#include "compiler/dialect/KilnDialect.h"
#include "kernels/KernelTable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <map>

using namespace mlir;
using namespace kiln;

namespace {
int64_t numel(Type t) {
  return t.cast<RankedTensorType>().getNumElements();
}
/// Bytes of a tensor as the kernels store it (i1: a byte each).
int64_t bytesOf(Type t) {
  auto r = t.cast<RankedTensorType>();
  return r.getNumElements() * ((r.getElementTypeBitWidth() + 7) / 8);
}

/// FLOPs of one call: two per multiply-add of a product kernel, one per
/// output element of any other call (and of each operation of a product's
/// fused epilogue); `error` if the call does not have the operands its
/// kernel needs (an IR that kilnc did not write).
bool callFlops(TensorOp op, double &flops, std::string &error) {
  const StringRef k = op.getKernel();
  ArrayRef<int64_t> p = op.getParams();
  auto outputs = op.getOutputs();
  auto bad = [&](const char *what) {
    error = "kiln.tensor_op \"" + k.str() + "\" (node '" +
            op.getNode().str() + "'): " + what;
    return false;
  };
  double outElems = 0;
  for (Value v : outputs)
    outElems += (double)numel(v.getType());
  double macs = 0;
  if (kernels::tensorMultiplyAdds(k.str(), p.data(), p.size(), macs)) {
    if (macs < 0)
      return bad("parameters too short for the kernel's layout");
    // A fused epilogue's operations count as the calls they replaced did:
    // one FLOP per output element each (saving a value and the wrapper of a
    // generated loop are not operations).
    flops = 2.0 * macs;
    const int64_t at = kernels::tensorEpilogueAt(k.str(), p.data(), p.size());
    for (int64_t i = 0; at >= 0 && i < p[at]; ++i) {
      const auto kind = (EpilogueKind)p[at + 1 + 4 * i];
      if (kind != EpilogueKind::Save && kind != EpilogueKind::Call)
        flops += outElems;
    }
    return true;
  }
  if (k == "pool") {
    // p = {dtype, kind, countIncludePad, storageOrder, wantIndices, nsp, NC,
    //      in[nsp], k[nsp], ...}: every element of Y reads prod(k) taps.
    if (p.size() < 7 || p[5] < 0 || (int64_t)p.size() < 7 + 2 * p[5])
      return bad("expected {dtype, kind, ..., nsp, NC, in[nsp], k[nsp], ...}");
    double taps = 1;
    for (int64_t i = 0; i < p[5]; ++i)
      taps *= (double)p[7 + p[5] + i];
    flops = (double)numel(outputs[0].getType()) * taps;
    return true;
  }
  flops = outElems;
  return true;
}
} // namespace

bool kiln::computeGraphReport(ModuleOp module, GraphReport &r,
                              std::string &error) {
  auto func = module.lookupSymbol<func::FuncOp>("run");
  if (!func || !func->hasAttr("kiln.arena_bytes")) {
    error = "graph module has not been through memory planning";
    return false;
  }
  if (auto s = module->getAttrOfType<StringAttr>("kiln.source"))
    r.source = s.getValue().str();
  if (TargetAttr t = moduleTarget(module)) {
    r.target = t.getIsa().str();
    r.cpu = t.getCpu().str();
  }
  r.activation = activationPlan(func);
  for (Type t : func.getFunctionType().getInputs())
    r.inputBytes += bytesOf(t);
  for (Type t : func.getFunctionType().getResults())
    r.outputBytes += bytesOf(t);
  std::map<std::string, GraphKernelCost> kernels;
  for (Operation &op : func.getBody().front()) {
    if (auto c = dyn_cast<ConstantOp>(op)) {
      ++r.constants;
      r.weightBytes += bytesOf(c.getResult().getType());
      continue;
    }
    auto call = dyn_cast<TensorOp>(op);
    if (!call) // kiln.reshape is a view: no work, no bytes
      continue;
    double flops = 0;
    if (!callFlops(call, flops, error))
      return false;
    int64_t bytes = 0;
    for (Value v : call.getInputs())
      bytes += bytesOf(v.getType());
    for (Value v : call.getOutputs())
      bytes += bytesOf(v.getType());
    GraphKernelCost &g = kernels[call.getKernel().str()];
    g.kernel = call.getKernel().str();
    ++g.count;
    g.flops += flops;
    g.bytes += bytes;
    ++r.calls;
    r.flops += flops;
    r.callBytes += bytes;
  }
  for (auto &entry : kernels)
    r.kernels.push_back(entry.second);
  std::stable_sort(r.kernels.begin(), r.kernels.end(),
                   [](const GraphKernelCost &a, const GraphKernelCost &b) {
                     return a.flops != b.flops ? a.flops > b.flops
                                               : a.bytes > b.bytes;
                   });
  return true;
}

GraphPrediction kiln::predictGraph(const GraphReport &r,
                                   const DeviceProfile &d) {
  GraphPrediction p;
  auto it = d.peakGflopsPerCore.find("f32");
  const double peak = it != d.peakGflopsPerCore.end() ? it->second : 0.0;
  p.computeS = peak > 0 ? r.flops / (peak * 1e9) : 0.0;
  p.bandwidthS = d.readBandwidthGBs > 0
                     ? (double)r.minBytes() / (d.readBandwidthGBs * 1e9)
                     : 0.0;
  p.latencyS = std::max(p.computeS, p.bandwidthS);
  p.bound = p.computeS >= p.bandwidthS ? "compute" : "bandwidth";
  return p;
}

std::string kiln::graphReportText(const GraphReport &r, const DeviceProfile *d,
                                  const GraphPrediction *p) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto fmt = [](double v, int prec) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", prec, v);
    return std::string(buf);
  };
  os << "kilnc report: " << r.source << " for --target=" << r.target
     << (r.cpu.empty() ? "" : " --cpu=" + r.cpu) << ", 1 thread\n"
     << "graph: " << r.calls << " kernel calls, " << r.constants
     << " constants\n"
     << "weights: " << r.weightBytes << " bytes (every constant)\n"
     << "inputs: " << r.inputBytes << " bytes, outputs: " << r.outputBytes
     << " bytes\n"
     << "arena: " << r.activation.bytes
     << " bytes (intermediates and kernel scratch, kiln.arena_bytes)\n"
     << activationPlanText(r.activation)
     << "per run: FLOPs " << fmt(r.flops, 0) << "; bytes at least "
     << r.minBytes()
     << " (weights, inputs and outputs once), at most " << r.callBytes
     << " (every call's operands and results)\n"
     << "per kernel (calls, FLOPs, operand and result bytes):\n";
  for (const GraphKernelCost &g : r.kernels) {
    char line[256];
    snprintf(line, sizeof line, "  %-16s x%-5lld %16.0f %14lld B\n",
             g.kernel.c_str(), (long long)g.count, g.flops,
             (long long)g.bytes);
    os << line;
  }
  if (d && p) {
    auto it = d->peakGflopsPerCore.find("f32");
    os << "device " << d->name << ": read bandwidth "
       << fmt(d->readBandwidthGBs, 1) << " GB/s, peak f32 "
       << fmt(it != d->peakGflopsPerCore.end() ? it->second : 0.0, 1)
       << " GFLOP/s on one core\n"
       << "  predicted run: at least " << fmt(p->latencyS * 1e3, 3) << " ms, "
       << p->bound << " bound (compute " << fmt(p->computeS * 1e3, 3)
       << " ms, bandwidth " << fmt(p->bandwidthS * 1e3, 3) << " ms)\n";
  }
  return s;
}

std::string kiln::graphReportJson(const GraphReport &r, const DeviceProfile *d,
                                  const GraphPrediction *p) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("source", r.source);
    j.attribute("target", r.target);
    j.attribute("cpu", r.cpu);
    j.attribute("threads", 1);
    j.attribute("kernel_calls", r.calls);
    j.attribute("constants", r.constants);
    j.attribute("weights_bytes", r.weightBytes);
    j.attribute("input_bytes", r.inputBytes);
    j.attribute("output_bytes", r.outputBytes);
    j.attribute("activation_arena_bytes", r.activation.bytes);
    j.attribute("activation_lower_bound_bytes", r.activation.lowerBound);
    j.attribute("activation_no_reuse_bytes", r.activation.noReuse);
    j.attribute("flops_per_run", r.flops);
    j.attribute("min_bytes_per_run", r.minBytes());
    j.attribute("call_bytes_per_run", r.callBytes);
    j.attributeArray("kernels", [&] {
      for (const GraphKernelCost &g : r.kernels)
        j.object([&] {
          j.attribute("kernel", g.kernel);
          j.attribute("count", g.count);
          j.attribute("flops", g.flops);
          j.attribute("bytes", g.bytes);
        });
    });
    if (d && p) {
      writeDeviceJson(j, *d);
      j.attributeObject("prediction", [&] {
        j.attribute("run_s", p->latencyS);
        j.attribute("bound", p->bound);
        j.attribute("compute_s", p->computeS);
        j.attribute("bandwidth_s", p->bandwidthS);
      });
    }
  });
  os << "\n";
  return s;
}
