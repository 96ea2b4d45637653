//===- Evaluator.cpp - the reference evaluator: plain f32 over kiln IR ----===//
#include "compiler/reference/Evaluator.h"

#include "compiler/frontend/gguf/Quant.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

namespace {
struct Tensor {
  int64_t rows = 0, width = 0;
  std::vector<float> data;
  float *row(int64_t r) { return data.data() + r * width; }
};

/// Kernels that say kiln.activation = "q8_0" see their input rounded to Q8_0
/// blocks (fp16 scale amax/127, int8 round-half-away); so does the oracle.
void roundToQ8_0(std::vector<float> &row) {
  for (size_t b = 0; b + 32 <= row.size(); b += 32) {
    float amax = 0.0f;
    for (size_t j = 0; j < 32; ++j)
      amax = std::max(amax, std::fabs(row[b + j]));
    const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
    const float dq = gguf::fp16ToFp32(gguf::fp32ToFp16(d));
    for (size_t j = 0; j < 32; ++j) {
      float v = row[b + j] * id;
      int q = (int)(v >= 0.0f ? v + 0.5f : v - 0.5f);
      row[b + j] = dq * (float)q;
    }
  }
}

int64_t widthOf(Value v) {
  return v.getType().cast<RankedTensorType>().getDimSize(1);
}
} // namespace

bool Evaluator::prepare(std::string &error) {
  forward = module.lookupSymbol<func::FuncOp>("forward");
  if (!forward || forward.isExternal()) {
    error = "module has no @forward function";
    return false;
  }
  for (auto w : module.getOps<WeightOp>()) {
    std::vector<float> values;
    if (!store.dequantized(w, values, error))
      return false;
    weights[w.getSymName()] = std::move(values);
  }
  auto results = forward.getFunctionType().getResults();
  vocab = results.size() == 1
              ? results[0].cast<RankedTensorType>().getDimSize(1)
              : 0;
  reset();
  return true;
}

void Evaluator::reset() {
  keys.clear();
  values.clear();
  position = 0;
}

bool Evaluator::run(llvm::ArrayRef<int32_t> tokens, std::vector<float> &logits,
                    std::string &error) {
  if (tokens.empty()) {
    error = "no tokens to evaluate";
    return false;
  }
  llvm::DenseMap<Value, Tensor> env;
  const int64_t n = (int64_t)tokens.size();
  auto W = [&](FlatSymbolRefAttr s) -> const std::vector<float> & {
    return weights[s.getValue()];
  };
  for (Operation &op : forward.getBody().front()) {
    Tensor out;
    if (op.getNumResults() == 1) {
      out.rows = op.getResult(0).getType().cast<RankedTensorType>().isDynamicDim(0)
                     ? n
                     : 1;
      out.width = widthOf(op.getResult(0));
      out.data.assign(out.rows * out.width, 0.0f);
    }
    if (auto e = dyn_cast<EmbeddingOp>(op)) {
      const auto &table = W(e.getTableAttr());
      int64_t rowsInTable = (int64_t)table.size() / out.width;
      for (int64_t r = 0; r < n; ++r) {
        if (tokens[r] < 0 || tokens[r] >= rowsInTable) {
          error = "token id " + std::to_string(tokens[r]) +
                  " out of range [0, " + std::to_string(rowsInTable) + ")";
          return false;
        }
        std::copy_n(table.data() + tokens[r] * out.width, out.width, out.row(r));
      }
    } else if (auto m = dyn_cast<RMSNormOp>(op)) {
      Tensor &x = env[m.getInput()];
      const auto &w = W(m.getWeightAttr());
      float eps = m.getEpsilon().convertToFloat();
      for (int64_t r = 0; r < x.rows; ++r) {
        double ss = 0;
        for (int64_t i = 0; i < x.width; ++i)
          ss += (double)x.row(r)[i] * x.row(r)[i];
        float scale = (float)(1.0 / std::sqrt(ss / x.width + eps));
        for (int64_t i = 0; i < x.width; ++i)
          out.row(r)[i] = x.row(r)[i] * scale * w[i];
      }
    } else if (auto m = dyn_cast<MatMulOp>(op)) {
      Tensor &x = env[m.getInput()];
      const auto &w = W(m.getWeightAttr());
      const std::vector<float> *bias =
          m.getBiasAttr() ? &W(m.getBiasAttr()) : nullptr;
      const int64_t K = x.width;
      auto act = m->getAttrOfType<StringAttr>("kiln.activation");
      if (act && act.getValue() != "q8_0") {
        error = "reference evaluator: unknown kiln.activation '" +
                act.getValue().str() + "'";
        return false;
      }
      std::vector<float> in;
      for (int64_t r = 0; r < x.rows; ++r) {
        in.assign(x.row(r), x.row(r) + K);
        if (act)
          roundToQ8_0(in);
        for (int64_t j = 0; j < out.width; ++j) {
          double acc = bias ? (*bias)[j] : 0.0;
          for (int64_t k = 0; k < K; ++k)
            acc += (double)in[k] * w[j * K + k];
          out.row(r)[j] = (float)acc;
        }
      }
    } else if (auto m = dyn_cast<RoPEOp>(op)) {
      Tensor &x = env[m.getInput()];
      out.data = x.data;
      const int64_t hd = m.getHeadDim(), half = hd / 2;
      const double theta = m.getTheta().convertToFloat();
      const bool neox = m.getStyle() == "neox";
      for (int64_t r = 0; r < x.rows; ++r)
        for (int64_t h = 0; h < x.width / hd; ++h)
          for (int64_t i = 0; i < half; ++i) {
            double angle = (double)(position + r) *
                           std::pow(theta, -2.0 * (double)i / (double)hd);
            int64_t a = h * hd + (neox ? i : 2 * i);
            int64_t b = h * hd + (neox ? i + half : 2 * i + 1);
            double x0 = x.row(r)[a], x1 = x.row(r)[b];
            out.row(r)[a] = (float)(x0 * std::cos(angle) - x1 * std::sin(angle));
            out.row(r)[b] = (float)(x0 * std::sin(angle) + x1 * std::cos(angle));
          }
    } else if (auto a = dyn_cast<AttentionOp>(op)) {
      Tensor &q = env[a.getQuery()], &k = env[a.getKey()], &v = env[a.getValue()];
      const int64_t layer = a.getLayer(), H = a.getNumHeads(),
                    KVH = a.getNumKvHeads(), hd = a.getHeadDim();
      if ((int64_t)keys.size() <= layer) {
        keys.resize(layer + 1);
        values.resize(layer + 1);
      }
      auto &K = keys[layer], &V = values[layer];
      K.insert(K.end(), k.data.begin(), k.data.end());
      V.insert(V.end(), v.data.begin(), v.data.end());
      const int64_t kvw = KVH * hd;
      for (int64_t r = 0; r < q.rows; ++r) {
        const int64_t len = position + r + 1;
        for (int64_t h = 0; h < H; ++h) {
          const int64_t kh = h / (H / KVH);
          std::vector<double> s(len);
          double mx = -INFINITY;
          for (int64_t t = 0; t < len; ++t) {
            double dot = 0;
            for (int64_t d = 0; d < hd; ++d)
              dot += (double)q.row(r)[h * hd + d] * K[t * kvw + kh * hd + d];
            s[t] = dot / std::sqrt((double)hd);
            mx = std::max(mx, s[t]);
          }
          double sum = 0;
          for (double &e : s)
            sum += (e = std::exp(e - mx));
          for (int64_t d = 0; d < hd; ++d) {
            double acc = 0;
            for (int64_t t = 0; t < len; ++t)
              acc += s[t] / sum * V[t * kvw + kh * hd + d];
            out.row(r)[h * hd + d] = (float)acc;
          }
        }
      }
    } else if (auto m = dyn_cast<SiluMulOp>(op)) {
      Tensor &g = env[m.getGate()], &u = env[m.getUp()];
      for (size_t i = 0; i < out.data.size(); ++i)
        out.data[i] = (float)(g.data[i] / (1.0 + std::exp(-(double)g.data[i])) *
                              u.data[i]);
    } else if (auto m = dyn_cast<AddOp>(op)) {
      Tensor &x = env[m.getLhs()], &y = env[m.getRhs()];
      for (size_t i = 0; i < out.data.size(); ++i)
        out.data[i] = x.data[i] + y.data[i];
    } else if (auto m = dyn_cast<LastTokenOp>(op)) {
      Tensor &x = env[m.getInput()];
      std::copy_n(x.row(x.rows - 1), x.width, out.row(0));
    } else if (auto r = dyn_cast<func::ReturnOp>(op)) {
      logits = env[r.getOperand(0)].data;
      position += n;
      return true;
    } else {
      error = "reference evaluator: unsupported op " +
              op.getName().getStringRef().str();
      return false;
    }
    env[op.getResult(0)] = std::move(out);
  }
  error = "@forward has no return";
  return false;
}
