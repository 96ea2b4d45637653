//===- Compile.h - from a model file to a static library ------------------===//
#ifndef KILN_DRIVER_COMPILE_H
#define KILN_DRIVER_COMPILE_H

#include "compiler/weights/WeightStore.h"
#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/onnx/Model.h"
#include "compiler/codegen/Emitter.h"
#include "compiler/passes/Pipeline.h"

#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace kiln {

/// What kilnc is asked for, in the groups the stages read: the target and
/// the layout are recorded in the module (kiln.target, kiln.max_batch, ...),
/// the pipeline's options go to the passes, the rest to codegen.
struct CompileOptions {
  std::string target = "generic";
  TargetOptions targetOptions; // --cpu, --sve-bits
  LayoutOptions layout;
  PipelineOptions pipeline;
  EmitOptions emit;
};

struct LoadedModel {
  std::unique_ptr<gguf::File> file;
  std::unique_ptr<WeightStore> weights;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// A C identifier made from a model path: "tiny-llama.Q4_0.gguf" ->
/// "tiny_llama_Q4_0".
std::string defaultModelName(const std::string &path);
/// Maps, validates and imports a model file: GGUF, or ONNX with its dynamic
/// input dimensions fixed by `inputShapes` (--input-shape).
/// `frozenInputs` (ONNX, --freeze-input) become constants with those values,
/// e.g. a Reshape's shape that the graph takes as an input.
/// `maxTensorBytes` (--max-tensor-bytes) bounds every ONNX tensor.
bool loadModel(mlir::MLIRContext &ctx, const std::string &path,
               LoadedModel &model, std::string &error,
               const onnx::InputShapes &inputShapes = {},
               const std::map<std::string, onnx::Tensor> &frozenInputs = {},
               uint64_t maxTensorBytes = onnx::kMaxTensorBytes);
/// True for a module imported from an ONNX graph (entry point @run).
bool isGraphModule(mlir::ModuleOp module);
/// The prefill chunk (rows of one forward call) for an L2 cache of
/// `l2Bytes` per core: the largest power of two from 16 to 128 whose int8
/// activations of the widest matmul input fill at most half of it. Every
/// weight group is reused across the chunk's rows while those activations
/// stay in L2, so a larger chunk streams the weights fewer times, until the
/// activations start to evict the weights. 32 when `l2Bytes` is 0 or the
/// module has no matmul. At most `context` when it is positive.
int64_t prefillChunk(mlir::ModuleOp module, int64_t l2Bytes,
                     int64_t context);
/// Records the target and the layout in the module and runs kilnc's
/// pipeline (kernel selection, memory planning) up to
/// `opts.pipeline.stopAfter`. A layout maxBatch of 0 becomes
/// prefillChunk(module, layout.l2CacheBytes, context), recorded with the L2
/// it was chosen for (kiln.max_batch_l2_bytes).
bool runPipeline(mlir::ModuleOp module, const CompileOptions &opts,
                 std::string &error);
} // namespace kiln

#endif
