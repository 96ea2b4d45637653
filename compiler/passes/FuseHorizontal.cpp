//===- FuseHorizontal.cpp - one matmul for Q, K, V and for gate, up -------===//
//
// Matmuls that read the same activation each quantize it and each make one
// pass over it; merged, the input is quantized once and the three (or two)
// weights are read as one, in one kernel call (one thread-pool dispatch when
// the matmul is split over threads). Only the IR changes: the new weight is
// declared as the concatenation of the file's tensors and the weight store
// builds it when the library is written.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace kiln {
#define GEN_PASS_DEF_FUSEHORIZONTAL
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// What must agree for two weights to be stored as one.
struct WeightKind {
  Type element, source;
  bool hasBias;
  bool operator==(const WeightKind &o) const {
    return element == o.element && source == o.source && hasBias == o.hasBias;
  }
};

std::string describe(const WeightKind &k) {
  std::string s = weightTypeName(k.element).str();
  if (k.source)
    s += " (from " + weightTypeName(k.source).str() + ")";
  return s + (k.hasBias ? " with bias" : "");
}

/// "blk.0.attn_q", "blk.0.attn_k" -> "blk.0.attn_q+attn_k".
std::string fusedName(ArrayRef<StringRef> names) {
  size_t common = names[0].size();
  for (StringRef n : names) {
    size_t i = 0;
    while (i < common && i < n.size() && n[i] == names[0][i])
      ++i;
    common = i;
  }
  common = names[0].substr(0, common).rfind('.') + 1; // npos + 1 == 0
  std::string s = names[0].str();
  for (size_t i = 1; i < names.size(); ++i)
    s += "+" + names[i].drop_front(common).str();
  return s;
}

struct FuseHorizontalPass
    : kiln::impl::FuseHorizontalBase<FuseHorizontalPass> {
  using FuseHorizontalBase::FuseHorizontalBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    auto weightOf = [&](FlatSymbolRefAttr s) {
      return symbols.lookup<WeightOp>(s.getValue());
    };
    auto plain = [&](WeightOp w) {
      return w && !w.getConcat() && !w.getScaleColumns();
    };

    // Candidate groups: plain matmuls (no split, no epilogue) by input.
    SmallVector<SmallVector<MatMulOp>> groups;
    module.walk([&](func::FuncOp func) {
      llvm::DenseMap<Value, size_t> byInput;
      func.walk([&](MatMulOp m) {
        if (m.getSplit() || m.getEpilogue() || !plain(weightOf(m.getWeightAttr())) ||
            (m.getBiasAttr() && !plain(weightOf(m.getBiasAttr()))))
          return;
        auto [it, fresh] = byInput.insert({m.getInput(), groups.size()});
        if (fresh)
          groups.emplace_back();
        groups[it->second].push_back(m);
      });
    });

    OpBuilder b(module.getContext());
    for (auto &readers : groups) {
      if (readers.size() < 2)
        continue;
      // Split the readers by weight kind; the largest kind is fused and the
      // others are named in a remark.
      SmallVector<std::pair<WeightKind, SmallVector<MatMulOp>>> kinds;
      for (MatMulOp m : readers) {
        WeightOp w = weightOf(m.getWeightAttr());
        WeightKind k{w.getTensorType().getElementType(),
                     w.getSourceType() ? *w.getSourceType() : Type(),
                     (bool)m.getBiasAttr()};
        auto it = llvm::find_if(kinds, [&](auto &e) { return e.first == k; });
        if (it == kinds.end())
          kinds.push_back({k, {m}});
        else
          it->second.push_back(m);
      }
      // Every remark first: fusing a kind erases its matmuls, which the
      // remarks of the other kinds name.
      for (auto &[kind, group] : kinds)
        if (kinds.size() > 1)
          for (auto &[other, others] : kinds)
            if (!(other == kind))
              for (MatMulOp m : group)
                m.emitRemark() << "not fused with " << others.size()
                               << " matmul(s) reading the same input ("
                               << others.front().getWeight() << "): weight "
                               << describe(kind) << " vs " << describe(other);
      for (auto &[kind, group] : kinds)
        if (group.size() >= 2)
          fuse(group, module, symbols, b);
    }
  }

  void fuse(SmallVector<MatMulOp> &group, ModuleOp module, SymbolTable &symbols,
            OpBuilder &b) {
    SmallVector<StringRef> names, biasNames;
    SmallVector<int64_t> parts;
    SmallVector<Type> types;
    SmallVector<Location> locs;
    WeightOp first = symbols.lookup<WeightOp>(group[0].getWeight());
    for (MatMulOp m : group) {
      WeightOp w = symbols.lookup<WeightOp>(m.getWeight());
      names.push_back(w.getSymName());
      parts.push_back(w.getTensorType().getDimSize(0));
      types.push_back(m.getOutput().getType());
      locs.push_back(m.getLoc());
      if (m.getBiasAttr())
        biasNames.push_back(m.getBiasAttr().getValue());
    }
    int64_t N = 0;
    for (int64_t p : parts)
      N += p;

    auto declare = [&](WeightOp like, ArrayRef<StringRef> syms,
                       ArrayRef<int64_t> shape) {
      SmallVector<Attribute> rest;
      for (StringRef s : syms.drop_front())
        rest.push_back(
            b.getStringAttr(symbols.lookup<WeightOp>(s).getSource()));
      b.setInsertionPoint(like);
      auto type = RankedTensorType::get(shape, like.getTensorType().getElementType());
      auto w = b.create<WeightOp>(like.getLoc(), b.getStringAttr(fusedName(syms)),
                                  TypeAttr::get(type), like.getSourceAttr(),
                                  like.getSourceTypeAttr(), b.getArrayAttr(rest),
                                  StringAttr());
      symbols.insert(w); // renames on a clash
      return FlatSymbolRefAttr::get(w.getSymNameAttr());
    };
    auto fusedWeight = declare(first, names,
                               {N, first.getTensorType().getDimSize(1)});
    FlatSymbolRefAttr fusedBias;
    if (!biasNames.empty())
      fusedBias = declare(symbols.lookup<WeightOp>(biasNames[0]), biasNames, {N});

    // At the first reader: every reader's users come after its reader.
    MatMulOp head = group[0];
    for (MatMulOp m : group)
      if (m->isBeforeInBlock(head))
        head = m;
    b.setInsertionPoint(head);
    auto fused = b.create<MatMulOp>(b.getFusedLoc(locs), types, head.getInput(),
                                    fusedWeight, fusedBias,
                                    b.getDenseI64ArrayAttr(parts), StringAttr(),
                                    Value());
    for (size_t i = 0; i < group.size(); ++i) {
      group[i].getOutput().replaceAllUsesWith(fused.getOutputs()[i]);
      group[i].erase();
    }
    // Drop the original weights no other op reads (a tied embedding still does).
    for (ArrayRef<StringRef> list : {ArrayRef<StringRef>(names), ArrayRef<StringRef>(biasNames)})
      for (StringRef s : list) {
        WeightOp w = symbols.lookup<WeightOp>(s);
        if (w && SymbolTable::symbolKnownUseEmpty(w, module)) {
          symbols.erase(w);
        }
      }
  }
};
} // namespace
