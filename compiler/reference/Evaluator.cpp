//===- Evaluator.cpp - the reference evaluator: plain f32 over kiln IR ----===//
#include "compiler/reference/Evaluator.h"

#include "compiler/support/Quant.h"

#include "llvm/ADT/APFloat.h"
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

/// Kernels that say kiln.activation = "q8_k" see it rounded to ggml's Q8_K
/// blocks (gguf::quantizeQ8K: per 256 values a float scale, ties to even).
void roundToQ8_K(std::vector<float> &row) {
  std::vector<uint8_t> q((size_t)gguf::kQ8KBlockBytes);
  for (size_t b = 0; b + 256 <= row.size(); b += 256) {
    gguf::quantizeQ8K(row.data() + b, q.data(), 256);
    float d;
    std::memcpy(&d, q.data(), 4);
    for (size_t j = 0; j < 256; ++j)
      row[b + j] = d * (float)(int8_t)q[4 + j];
  }
}

/// x as IEEE binary16 holds it, rounded to nearest even (LLVM's APFloat: an
/// implementation independent of the kernels' own conversions).
float roundToHalf(float x) {
  llvm::APFloat f(x);
  bool lost = false;
  f.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &lost);
  f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToFloat();
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

void Evaluator::reset() { seqs.clear(); }

bool Evaluator::run(llvm::ArrayRef<int32_t> tokens, std::vector<float> &logits,
                    std::string &error, int32_t seq) {
  if (tokens.empty()) {
    error = "no tokens to evaluate";
    return false;
  }
  std::vector<int32_t> rowSeqs(tokens.size(), seq);
  std::vector<std::vector<float>> out;
  if (!forwardRows(tokens, rowSeqs, {(int64_t)tokens.size() - 1}, out, error))
    return false;
  logits = std::move(out[0]);
  return true;
}

bool Evaluator::runBatch(llvm::ArrayRef<int32_t> seqIds,
                         llvm::ArrayRef<int32_t> tokens,
                         std::vector<std::vector<float>> &logits,
                         std::string &error) {
  std::vector<int64_t> all;
  for (size_t i = 0; i < tokens.size(); ++i)
    all.push_back((int64_t)i);
  return forwardRows(tokens, seqIds, all, logits, error);
}

bool Evaluator::forwardRows(llvm::ArrayRef<int32_t> tokens,
                            llvm::ArrayRef<int32_t> rowSeq,
                            llvm::ArrayRef<int64_t> outRows,
                            std::vector<std::vector<float>> &logitsOut,
                            std::string &error) {
  llvm::DenseMap<Value, Tensor> env;
  const int64_t n = (int64_t)tokens.size();
  // Each row's position: its sequence's length plus the rows of the same
  // sequence before it in this call.
  std::vector<int64_t> rowPos(n);
  {
    std::map<int32_t, int64_t> next;
    for (int64_t r = 0; r < n; ++r) {
      auto it = next.find(rowSeq[r]);
      if (it == next.end())
        it = next.insert({rowSeq[r], seqs[rowSeq[r]].length}).first;
      rowPos[r] = it->second++;
    }
  }
  auto W = [&](FlatSymbolRefAttr s) -> const std::vector<float> & {
    return weights[s.getValue()];
  };
  for (Operation &op : forward.getBody().front()) {
    Tensor out;
    if (op.getNumResults() == 1) {
      // Rows: the batch, or after kiln.last_token the requested rows.
      out.rows = n;
      if (isa<LastTokenOp>(op))
        out.rows = (int64_t)outRows.size();
      else if (op.getNumOperands() > 0 && env.count(op.getOperand(0)))
        out.rows = env[op.getOperand(0)].rows;
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
      if (auto scale = e.getScale())
        for (float &v : out.data)
          v *= scale->convertToFloat();
    } else if (auto m = dyn_cast<RMSNormOp>(op)) {
      Tensor &x = env[m.getInput()];
      const std::vector<float> *w =
          m.getWeightAttr() ? &W(m.getWeightAttr()) : nullptr;
      float eps = m.getEpsilon().convertToFloat();
      // Each group of a row (a head, with `group`) on its own.
      const int64_t g = m.getGroup() ? *m.getGroup() : x.width;
      for (int64_t r = 0; r < x.rows; ++r) {
        for (int64_t at = 0; at < x.width; at += g) {
          const float *in = x.row(r) + at;
          double ss = 0;
          for (int64_t i = 0; i < g; ++i)
            ss += (double)in[i] * in[i];
          float scale = (float)(1.0 / std::sqrt(ss / g + eps));
          for (int64_t i = 0; i < g; ++i)
            out.row(r)[at + i] = in[i] * scale * (w ? (*w)[i] : 1.0f);
        }
      }
    } else if (auto m = dyn_cast<MatMulOp>(op)) {
      Tensor &x = env[m.getInput()];
      const auto &w = W(m.getWeightAttr());
      const std::vector<float> *bias =
          m.getBiasAttr() ? &W(m.getBiasAttr()) : nullptr;
      const int64_t K = x.width;
      auto act = m->getAttrOfType<StringAttr>("kiln.activation");
      if (act && act.getValue() != "q8_0" && act.getValue() != "q8_k") {
        error = "reference evaluator: unknown kiln.activation '" +
                act.getValue().str() + "'";
        return false;
      }
      // Every weight row against every input row, then the parts and the
      // epilogue: the semantics of kiln.matmul, independent of fusion.
      int64_t N = (int64_t)w.size() / K;
      std::vector<float> full((size_t)(x.rows * N)), in;
      for (int64_t r = 0; r < x.rows; ++r) {
        in.assign(x.row(r), x.row(r) + K);
        if (act && act.getValue() == "q8_k")
          roundToQ8_K(in);
        else if (act)
          roundToQ8_0(in);
        for (int64_t j = 0; j < N; ++j) {
          double acc = bias ? (*bias)[j] : 0.0;
          for (int64_t k = 0; k < K; ++k)
            acc += (double)in[k] * w[j * K + k];
          full[r * N + j] = (float)acc;
        }
      }
      auto silu = [](float v) { return (float)(v / (1.0 + std::exp(-(double)v))); };
      StringRef ep = m.getEpilogue() ? *m.getEpilogue() : "";
      auto parts = m.getParts();
      std::vector<Tensor> outs(parts.size());
      int64_t j0 = 0;
      for (size_t p = 0; p < parts.size(); ++p) {
        outs[p].rows = x.rows;
        outs[p].width = parts[p];
        outs[p].data.resize(x.rows * parts[p]);
        for (int64_t r = 0; r < x.rows; ++r)
          std::copy_n(&full[r * N + j0], parts[p], outs[p].row(r));
        j0 += parts[p];
      }
      if (ep == "swiglu") {
        for (size_t i = 0; i < outs[0].data.size(); ++i)
          outs[0].data[i] = silu(outs[0].data[i]) * outs[1].data[i];
        outs.pop_back();
      } else if (!ep.empty()) {
        const Tensor &o = env[m.getOther()];
        for (size_t i = 0; i < outs[0].data.size(); ++i) {
          float y = outs[0].data[i], v = o.data[i];
          outs[0].data[i] = ep == "add"        ? y + v
                            : ep == "silu_mul" ? silu(y) * v
                                               : y * silu(v);
        }
      }
      for (size_t p = 0; p < outs.size(); ++p)
        env[m.getOutputs()[p]] = std::move(outs[p]);
      continue;
    } else if (auto m = dyn_cast<RoPEOp>(op)) {
      Tensor &x = env[m.getInput()];
      out.data = x.data;
      const int64_t hd = m.getHeadDim(), half = hd / 2;
      const double theta = m.getTheta().convertToFloat();
      const bool neox = m.getStyle() == "neox";
      std::vector<float> factors((size_t)half, 1.0f);
      auto ctxAttr = module->getAttrOfType<IntegerAttr>("kiln.context_length");
      if (auto sym = m.freqFactorsAt(ctxAttr ? ctxAttr.getInt() : 0))
        factors = W(sym);
      const double scale = m.cosSinScale();
      for (int64_t r = 0; r < x.rows; ++r)
        for (int64_t h = 0; h < x.width / hd; ++h)
          for (int64_t i = 0; i < half; ++i) {
            double angle = (double)rowPos[r] *
                           std::pow(theta, -2.0 * (double)i / (double)hd) /
                           (double)factors[i] / m.linearFactor();
            int64_t a = h * hd + (neox ? i : 2 * i);
            int64_t b = h * hd + (neox ? i + half : 2 * i + 1);
            double x0 = x.row(r)[a], x1 = x.row(r)[b];
            double c = std::cos(angle) * scale, sn = std::sin(angle) * scale;
            out.row(r)[a] = (float)(x0 * c - x1 * sn);
            out.row(r)[b] = (float)(x0 * sn + x1 * c);
          }
    } else if (auto a = dyn_cast<AttentionOp>(op)) {
      Tensor &q = env[a.getQuery()], &k = env[a.getKey()], &v = env[a.getValue()];
      const int64_t layer = a.getLayer(), H = a.getNumHeads(),
                    KVH = a.getNumKvHeads(), hd = a.getHeadDim();
      const int64_t kvw = KVH * hd;
      for (int64_t r = 0; r < q.rows; ++r) {
        SeqState &st = seqs[rowSeq[r]];
        if ((int64_t)st.keys.size() <= layer) {
          st.keys.resize(layer + 1);
          st.values.resize(layer + 1);
        }
        st.keys[layer].insert(st.keys[layer].end(), k.row(r), k.row(r) + kvw);
        st.values[layer].insert(st.values[layer].end(), v.row(r), v.row(r) + kvw);
        if (kvF16)
          for (auto *cache : {&st.keys[layer], &st.values[layer]})
            for (auto it = cache->end() - kvw; it != cache->end(); ++it)
              *it = roundToHalf(*it);
      }
      // A sliding window leaves the positions at or below p - window out.
      const int64_t window = a.getWindow() ? (int64_t)*a.getWindow() : 0;
      for (int64_t r = 0; r < q.rows; ++r) {
        const int64_t len = rowPos[r] + 1;
        const int64_t first = window && len > window ? len - window : 0;
        const auto &K = seqs[rowSeq[r]].keys[layer];
        const auto &V = seqs[rowSeq[r]].values[layer];
        for (int64_t h = 0; h < H; ++h) {
          const int64_t kh = h / (H / KVH);
          std::vector<double> s(len, -INFINITY);
          double mx = -INFINITY;
          for (int64_t t = first; t < len; ++t) {
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
            for (int64_t t = first; t < len; ++t)
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
    } else if (auto m = dyn_cast<GeluMulOp>(op)) {
      Tensor &g = env[m.getGate()], &u = env[m.getUp()];
      const double c = std::sqrt(2.0 / M_PI);
      for (size_t i = 0; i < out.data.size(); ++i) {
        const double x = g.data[i];
        out.data[i] = (float)(0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x))) *
                              u.data[i]);
      }
    } else if (auto m = dyn_cast<AddOp>(op)) {
      Tensor &x = env[m.getLhs()], &y = env[m.getRhs()];
      for (size_t i = 0; i < out.data.size(); ++i)
        out.data[i] = x.data[i] + y.data[i];
    } else if (auto m = dyn_cast<LastTokenOp>(op)) {
      Tensor &x = env[m.getInput()];
      for (size_t o = 0; o < outRows.size(); ++o)
        std::copy_n(x.row(outRows[o]), x.width, out.row((int64_t)o));
    } else if (auto r = dyn_cast<func::ReturnOp>(op)) {
      Tensor &l = env[r.getOperand(0)];
      logitsOut.clear();
      for (int64_t o = 0; o < l.rows; ++o)
        logitsOut.emplace_back(l.row(o), l.row(o) + l.width);
      for (int64_t row = 0; row < n; ++row)
        ++seqs[rowSeq[row]].length;
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
