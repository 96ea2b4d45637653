//===- Model.h - reading an ONNX model file --------------------------------===//
#ifndef KILN_FRONTEND_ONNX_MODEL_H
#define KILN_FRONTEND_ONNX_MODEL_H

#include "compiler/frontend/onnx/Graph.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace kiln::onnx {
/// Opsets of the default domain Kiln imports (ONNX 1.12 defines up to 17).
/// Models of opsets 1 to 6 import too where their operators mean what they
/// mean at 7 (most do; the legacy `broadcast` attribute is rejected).
constexpr int64_t kMinOpset = 1, kMaxOpset = 18;

/// Fixed dimensions for a graph input, and where the user gave them.
struct InputShape {
  std::vector<int64_t> dims;
  /// Where the shape came from, as messages name it: empty for
  /// --input-shape, else e.g. "--input=x=... (a tensor of shape [1,3,4])".
  std::string given;
  /// `given`, or "--input-shape=NAME=..." for the input `name`.
  std::string origin(const std::string &name) const {
    return given.empty() ? "--input-shape=" + name + "=..." : given;
  }
};
/// Fixed dimensions for graph inputs: --input-shape=NAME=1,3,48,320.
using InputShapes = std::map<std::string, InputShape>;
/// Parses "NAME=D0,D1,..." into `shapes`; false with `error` if malformed.
bool parseInputShape(const std::string &spec, InputShapes &shapes,
                     std::string &error);

/// Parses "NAME=FILE.pb" (--freeze-input, kiln-run --input) and reads the
/// TensorProto file into `values[NAME]`; `option` names the flag in messages.
bool parseTensorBinding(const std::string &spec, const std::string &option,
                        std::map<std::string, Tensor> &values,
                        std::string &error);

/// A parsed ONNX model and the directory its external data lives in.
struct Model {
  std::string path, dir;
  std::shared_ptr<::onnx::ModelProto> proto;
  int64_t opset = 0;
  /// The most bytes one tensor (initializer, input, output, temporary) may
  /// take when the model is lowered (kilnc --max-tensor-bytes).
  uint64_t maxTensorBytes = kMaxTensorBytes;
};

/// Reads and validates the protobuf of `path`.
std::unique_ptr<Model> loadModel(const std::string &path, std::string &error);
/// The same for a model in memory, named `name` in messages; external data
/// resolves against the current directory (the fuzzer's entry point).
std::unique_ptr<Model> loadModelFromBuffer(const void *data, size_t size,
                                           const std::string &name,
                                           std::string &error);

/// Reads a TensorProto (an initializer, a Constant's value or a test's
/// input_N.pb) into `out`, with external data resolved against `dir`.
/// `what` names it in messages ("initializer 'W'").
bool readTensor(const ::onnx::TensorProto &t, const std::string &dir,
                const std::string &what, Tensor &out, std::string &error,
                uint64_t maxBytes = kMaxTensorBytes);
/// Reads a serialized TensorProto file.
bool readTensorFile(const std::string &path, Tensor &out, std::string &error);
/// Writes `t` as a serialized TensorProto file (raw_data).
bool writeTensorFile(const std::string &path, const Tensor &t,
                     std::string &error);

/// Lowers the model's main graph (Lower.cpp). With `inputValues` (by input
/// name) those inputs are constants: the whole graph then folds on the host,
/// which evaluates a model with the tensor kernels and no target compiler.
bool lowerModel(const Model &model, const InputShapes &shapes,
                LoweredGraph &out, std::string &error,
                const std::map<std::string, Tensor> *inputValues = nullptr);
} // namespace kiln::onnx

#endif
