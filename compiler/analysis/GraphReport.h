//===- GraphReport.h - static cost of a compiled graph model (ONNX) -------===//
//
// kilnc MODEL.onnx --report: what one run of the graph must at least move
// and compute, from the IR after kilnc's pipeline (kiln.constant and
// kiln.tensor_op, their types and the memory plan), and with a device the
// latency those floors allow and which one binds.
//
// FLOPs: 2 per multiply-add of conv, conv_transpose, matmul and gemm (the
// kernel parameters and the operand types give the sizes); every other kernel
// counts one per output element, pooling one per window tap of each. Bytes: the
// floor is every constant, graph input and graph output once (weights are read
// once per run, an input read, an output written); the kernels' operands and
// results together (as if no intermediate stayed in a cache) are the ceiling
// of the traffic.
//
#ifndef KILN_ANALYSIS_GRAPHREPORT_H
#define KILN_ANALYSIS_GRAPHREPORT_H

#include "compiler/analysis/Report.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace kiln {

/// The kernels of one name (kiln_t_<kernel>).
struct GraphKernelCost {
  std::string kernel;
  int64_t count = 0;
  double flops = 0;
  int64_t bytes = 0; // operands and results of its calls
};

struct GraphReport {
  std::string source, target, cpu;
  int64_t constants = 0, calls = 0;
  int64_t weightBytes = 0;        // every kiln.constant
  int64_t inputBytes = 0, outputBytes = 0;
  ActivationPlan activation;      // intermediates and kernel scratch
  double flops = 0;
  int64_t callBytes = 0;          // all calls' operands and results
  std::vector<GraphKernelCost> kernels; // by FLOPs, then bytes, descending

  /// Bytes a run must move at least: constants, inputs and outputs once.
  int64_t minBytes() const { return weightBytes + inputBytes + outputBytes; }
};

/// What a device profile predicts for one run on one core: the time the
/// FLOPs take at the f32 peak and the time the bytes take at the read
/// bandwidth; the larger one binds and is the floor of the latency.
struct GraphPrediction {
  double computeS = 0, bandwidthS = 0, latencyS = 0;
  std::string bound; // "compute" or "bandwidth"
};

/// Computes the report of a graph module that went through kiln-plan-memory.
bool computeGraphReport(mlir::ModuleOp module, GraphReport &report,
                        std::string &error);
GraphPrediction predictGraph(const GraphReport &r, const DeviceProfile &d);

std::string graphReportText(const GraphReport &r, const DeviceProfile *d,
                            const GraphPrediction *p);
std::string graphReportJson(const GraphReport &r, const DeviceProfile *d,
                            const GraphPrediction *p);
} // namespace kiln

#endif
