//===- PlanMemory.cpp - static offsets for every intermediate in one arena ===//
//
// The runtime never allocates, so every value a function computes gets a fixed
// offset in the caller's arena. This pass works out what must be stored and
// for how long (results, in-place reuse, per-op scratch); MemoryPlanner.cpp
// chooses the offsets.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/MemoryPlanner.h"
#include "compiler/passes/Passes.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

namespace kiln {
#define GEN_PASS_DEF_PLANMEMORY
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
constexpr int64_t kAlign = 64;

int64_t alignUp(int64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

/// A buffer and what it holds: op results (several when an elementwise op
/// reuses its operand's buffer in place) or one op's scratch.
struct Buffer {
  std::vector<Value> values;
  Operation *scratchOf = nullptr;
  PlanBuffer plan;
};

/// Elementwise ops whose kernels read element i before writing element i (or
/// a row before writing that row), so their result may take the buffer of an
/// operand that dies at the op.
bool reusesOperandInPlace(Operation *op) {
  if (auto t = dyn_cast<TensorOp>(op)) {
    // Graph kernels that write element i after reading only element i of an
    // operand of the result's type and shape (the copy of a Reshape becomes
    // no work at all: kiln_t_copy skips a copy onto itself).
    StringRef k = t.getKernel();
    return k == "copy" || k == "unary" || k == "binary" || k == "clip";
  }
  return isa<AddOp, SiluMulOp, GeluMulOp, RMSNormOp, RoPEOp>(op);
}

struct PlanMemoryPass : kiln::impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;

  int64_t moduleInt(StringRef name) {
    auto module = getOperation()->getParentOfType<ModuleOp>();
    if (!module)
      return 0;
    auto attr = module->getAttrOfType<IntegerAttr>(name);
    return attr ? attr.getInt() : 0;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    int64_t rows = maxBatch ? maxBatch : moduleInt("kiln.max_batch");
    if (rows <= 0) {
      func.emitError("kiln-plan-memory needs a positive max-batch option or "
                     "module attribute kiln.max_batch");
      return signalPassFailure();
    }
    // A typed graph op has no kernel call yet: its scratch is unknown.
    WalkResult typed = func.walk([](Operation *op) {
      if (!isTypedGraphOp(op))
        return WalkResult::advance();
      op->emitOpError("has no kernel call yet: run kiln-select-kernels "
                      "before kiln-plan-memory");
      return WalkResult::interrupt();
    });
    if (typed.wasInterrupted())
      return signalPassFailure();
    int64_t context = moduleInt("kiln.context_length");
    int64_t threads = std::max<int64_t>(1, moduleInt("kiln.threads"));

    // Number the ops; each value lives from its op to its last use.
    Block &block = func.getBody().front();
    llvm::DenseMap<Operation *, int64_t> index;
    int64_t n = 0;
    for (Operation &op : block)
      index[&op] = n++;
    auto lastUse = [&](Value v) {
      int64_t last = index[v.getDefiningOp()];
      for (Operation *user : v.getUsers()) {
        Operation *top = block.findAncestorOpInBlock(*user);
        // The returned value must survive until the caller reads it.
        last = std::max(last, isa<func::ReturnOp>(top) ? n : index[top]);
      }
      return last;
    };
    auto bytesOf = [&](Value v) {
      auto type = v.getType().cast<RankedTensorType>();
      int64_t elems = 1;
      for (int64_t d : type.getShape())
        elems *= ShapedType::isDynamic(d) ? rows : d;
      // Booleans (i1) take a byte each, as in kiln_tensor.h.
      return alignUp(elems * ((type.getElementTypeBitWidth() + 7) / 8));
    };

    std::vector<Buffer> buffers;
    llvm::DenseMap<Value, size_t> bufferOf;
    int64_t inPlace = 0, views = 0;
    for (Operation &op : block) {
      const int64_t at = index[&op];
      for (Value r : op.getResults()) {
        // Constants of graph models live in the weight blob, not the arena.
        if (!r.getType().isa<RankedTensorType>() || isa<ConstantOp>(op))
          continue;
        // A reshape is a view: it shares its operand's buffer whether or not
        // the operand dies here, the buffer living until both are read. One
        // of a graph input or a constant has no buffer (the emitter reads
        // its operand where it is), and so no call writes over it in place.
        if (auto view = dyn_cast<ReshapeOp>(op)) {
          ++views;
          auto it = bufferOf.find(view.getInput());
          if (it == bufferOf.end())
            continue;
          Buffer &b = buffers[it->second];
          b.values.push_back(r);
          b.plan.last = std::max(b.plan.last, lastUse(r));
          bufferOf[r] = it->second;
          continue;
        }
        // In place: an operand of the same size whose buffer dies here.
        std::optional<size_t> reuse;
        if (inPlaceReuse && reusesOperandInPlace(&op))
          for (Value operand : op.getOperands()) {
            auto it = bufferOf.find(operand);
            if (it == bufferOf.end() || buffers[it->second].plan.last != at ||
                buffers[it->second].plan.bytes != bytesOf(r))
              continue;
            // A graph kernel may only overwrite an operand laid out as its
            // result (same element type and shape; Reshape: same bytes).
            if (auto t = dyn_cast<TensorOp>(op);
                t && t.getKernel() != "copy" &&
                operand.getType() != r.getType())
              continue;
            reuse = it->second;
            break;
          }
        if (reuse) {
          Buffer &b = buffers[*reuse];
          b.values.push_back(r);
          b.plan.last = lastUse(r);
          bufferOf[r] = *reuse;
          ++inPlace;
          continue;
        }
        bufferOf[r] = buffers.size();
        buffers.push_back({{r}, nullptr, {bytesOf(r), at, lastUse(r)}});
      }
      // Scratch lives only during its op.
      int64_t scratch = 0;
      if (auto m = dyn_cast<MatMulOp>(op)) {
        auto in = m.getInput().getType().cast<RankedTensorType>();
        scratch = matmulScratch(m, in.isDynamicDim(0) ? rows : in.getDimSize(0),
                                threads)
                      .total();
      } else if (isa<AttentionOp>(op)) {
        if (context <= 0) {
          op.emitOpError("needs module attribute kiln.context_length to size "
                         "its score scratch");
          return signalPassFailure();
        }
        scratch = alignUp(context * 4);
      } else if (auto t = dyn_cast<TensorOp>(op)) {
        // A call run in shares (kiln.parts) has one scratch per share, each
        // aligned, at kiln.scratch_offset + share * kiln.scratch_bytes / parts.
        int64_t parts = 1;
        if (auto a = op.getAttrOfType<IntegerAttr>("kiln.parts"))
          parts = std::max<int64_t>(1, a.getInt());
        scratch = alignUp(t.getScratch()) * parts;
      }
      if (scratch)
        buffers.push_back({{}, &op, {scratch, at, at}});
    }

    std::vector<PlanBuffer> plan;
    for (Buffer &b : buffers)
      plan.push_back(b.plan);
    PlanSummary summary = planOffsets(plan, exactLimit);

    Builder builder(func.getContext());
    for (size_t i = 0; i < buffers.size(); ++i) {
      auto offset = builder.getI64IntegerAttr(plan[i].offset);
      auto bytes = builder.getI64IntegerAttr(plan[i].bytes);
      if (Operation *op = buffers[i].scratchOf) {
        op->setAttr("kiln.scratch_offset", offset);
        op->setAttr("kiln.scratch_bytes", bytes);
        continue;
      }
      // One offset per result: a single-result op gets kiln.offset, a split
      // matmul gets kiln.offsets in result order.
      for (Value v : buffers[i].values) {
        Operation *op = v.getDefiningOp();
        if (op->getNumResults() == 1) {
          op->setAttr("kiln.offset", offset);
          op->setAttr("kiln.bytes", bytes);
          continue;
        }
        SmallVector<int64_t> offsets(op->getNumResults(), -1);
        if (auto a = op->getAttrOfType<DenseI64ArrayAttr>("kiln.offsets"))
          offsets.assign(a.asArrayRef().begin(), a.asArrayRef().end());
        offsets[v.cast<OpResult>().getResultNumber()] = plan[i].offset;
        op->setAttr("kiln.offsets", builder.getDenseI64ArrayAttr(offsets));
      }
    }
    // The ceiling every tensor of the ONNX path is held to (the module's
    // kiln.max_tensor_bytes, 2^40 by default), for the arena the header
    // states and a caller allocates.
    const int64_t limit =
        moduleLayout(func->getParentOfType<ModuleOp>()).maxTensorBytes;
    if (summary.arena > limit) {
      func.emitError() << "the activation arena would take " << summary.arena
                       << " bytes, more than " << limit
                       << " (kiln.max_tensor_bytes, kilnc --max-tensor-bytes)";
      return signalPassFailure();
    }
    func->setAttr("kiln.arena_bytes", builder.getI64IntegerAttr(summary.arena));
    func->setAttr("kiln.arena_lower_bound",
                  builder.getI64IntegerAttr(summary.lowerBound));
    func->setAttr("kiln.arena_no_reuse",
                  builder.getI64IntegerAttr(summary.noReuse));
    func->setAttr("kiln.arena_method", builder.getStringAttr(summary.method));
    if (inPlace)
      func->setAttr("kiln.arena_in_place", builder.getI64IntegerAttr(inPlace));
    if (views)
      func->setAttr("kiln.arena_views", builder.getI64IntegerAttr(views));
  }
};
} // namespace
