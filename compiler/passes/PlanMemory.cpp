//===- PlanMemory.cpp - static offsets for every intermediate in one arena ===//
//
// The runtime never allocates, so every value a function computes gets a fixed
// offset in the caller's arena. Values are placed largest first, each at the
// lowest offset free during its whole live range (best fit over lifetimes).
//
#include "compiler/dialect/KilnDialect.h"
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

struct Buffer {
  Operation *owner;   // op that defines it
  bool scratch;       // the op's own scratch space, live only during the op
  int64_t bytes, first, last;
  int64_t offset = -1;
};

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
    int64_t context = moduleInt("kiln.context_length");

    // Number the ops, then give each result a live range up to its last use.
    llvm::DenseMap<Operation *, int64_t> index;
    int64_t n = 0;
    for (Operation &op : func.getBody().front())
      index[&op] = n++;
    std::vector<Buffer> buffers;
    for (Operation &op : func.getBody().front()) {
      if (op.getNumResults() == 0)
        continue;
      if (op.getNumResults() != 1)
        continue;
      auto type = op.getResult(0).getType().dyn_cast<RankedTensorType>();
      if (!type)
        continue;
      int64_t elems = 1;
      for (int64_t d : type.getShape())
        elems *= ShapedType::isDynamic(d) ? rows : d;
      int64_t bytes = alignUp(elems * (type.getElementTypeBitWidth() / 8));
      int64_t last = index[&op];
      for (Operation *user : op.getResult(0).getUsers()) {
        Operation *top = func.getBody().front().findAncestorOpInBlock(*user);
        // The returned value must survive until the caller reads it.
        last = std::max(last, isa<func::ReturnOp>(top) ? n : index[top]);
      }
      buffers.push_back({&op, false, bytes, index[&op], last});
      // Kernels that quantize their input ask for scratch per input row; a
      // matmul split over threads needs it per slice, plus room for its rows
      // of output slices before they are interleaved.
      auto perRow = op.getAttrOfType<IntegerAttr>("kiln.scratch_per_row");
      int64_t slices = 1, sliceOut = 0;
      if (isa<MatMulOp>(op) && moduleInt("kiln.threads") > 1) {
        int64_t N = type.getDimSize(1);
        slices = (int64_t)matmulSlices(N, moduleInt("kiln.threads")).size() - 1;
        if (slices > 1)
          sliceOut = elems * 4;
      }
      if (perRow || sliceOut) {
        auto in = op.getOperand(0).getType().cast<RankedTensorType>();
        int64_t inRows = in.isDynamicDim(0) ? rows : in.getDimSize(0);
        int64_t q = perRow ? perRow.getInt() * inRows : 0;
        buffers.push_back({&op, true, alignUp(slices * q + sliceOut),
                           index[&op], index[&op]});
      }
      if (isa<AttentionOp>(op)) {
        if (context <= 0) {
          op.emitOpError("needs module attribute kiln.context_length to size "
                         "its score scratch");
          return signalPassFailure();
        }
        buffers.push_back(
            {&op, true, alignUp(context * 4), index[&op], index[&op]});
      }
    }

    // Largest first (longer lives break ties), lowest non-conflicting offset.
    std::vector<Buffer *> order;
    for (Buffer &b : buffers)
      order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](Buffer *a, Buffer *b) {
      if (a->bytes != b->bytes)
        return a->bytes > b->bytes;
      return (a->last - a->first) > (b->last - b->first);
    });
    std::vector<Buffer *> placed;
    int64_t arena = 0, noReuse = 0;
    for (Buffer *b : order) {
      std::vector<std::pair<int64_t, int64_t>> busy;
      for (Buffer *p : placed)
        if (p->first <= b->last && b->first <= p->last)
          busy.push_back({p->offset, p->offset + p->bytes});
      std::sort(busy.begin(), busy.end());
      int64_t offset = 0;
      for (auto [lo, hi] : busy) {
        if (offset + b->bytes <= lo)
          break;
        offset = std::max(offset, hi);
      }
      b->offset = offset;
      placed.push_back(b);
      arena = std::max(arena, offset + b->bytes);
      noReuse += b->bytes;
    }
    int64_t lowerBound = 0;
    for (int64_t t = 0; t <= n; ++t) {
      int64_t live = 0;
      for (Buffer &b : buffers)
        if (b.first <= t && t <= b.last)
          live += b.bytes;
      lowerBound = std::max(lowerBound, live);
    }

    Builder builder(func.getContext());
    for (Buffer &b : buffers) {
      StringRef prefix = b.scratch ? "kiln.scratch_" : "kiln.";
      b.owner->setAttr((prefix + "offset").str(),
                       builder.getI64IntegerAttr(b.offset));
      b.owner->setAttr((prefix + "bytes").str(),
                       builder.getI64IntegerAttr(b.bytes));
    }
    func->setAttr("kiln.arena_bytes", builder.getI64IntegerAttr(arena));
    func->setAttr("kiln.arena_lower_bound",
                  builder.getI64IntegerAttr(lowerBound));
    func->setAttr("kiln.arena_no_reuse", builder.getI64IntegerAttr(noReuse));
  }
};
} // namespace
