//===- KvAllocatorTest.cpp - the paged KV cache against a reference model -===//
//
// Random open / append / fork / close operations on the runtime's block
// allocator, each checked against a simple model after every step:
//   - the status of every operation (context full, pool exhausted, no free
//     sequence, bad sequence) is the one the model predicts, and a refused
//     operation changes nothing;
//   - the free count is exact, and every block is held by exactly the
//     sequences the model says (shared only through fork, copied on write);
//   - every position of every sequence reads back what was written to that
//     sequence (or its ancestor before a fork): no sequence reads a block it
//     does not own.
// Layouts with an f16 cache (two-byte elements, rows of odd byte counts)
// run the same operations through kiln_kv_at.
//
#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

namespace {
struct Config {
  uint32_t block, context, seqs, blocks, layers, width;
  uint32_t dtype = KILN_KV_F32;
};

struct ModelSeq {
  bool open = false;
  std::vector<float> marks;       // the marker written at each position
  std::vector<int> blocks;        // model block ids, in table order
};

class KvAllocator : public ::testing::TestWithParam<Config> {
protected:
  void SetUp() override {
    const Config &c = GetParam();
    layout = {KILN_ABI_VERSION, sizeof(kiln_layout), c.layers, c.width,
              c.context, c.seqs, c.block, c.blocks, 64, 1, c.dtype, 0, 0};
    size_t bytes = kiln_arena_bytes(&layout);
    ASSERT_GT(bytes, 0u);
    arena.assign(bytes + KILN_ARENA_ALIGN, 0);
    base = arena.data() + (KILN_ARENA_ALIGN -
                           (uintptr_t)arena.data() % KILN_ARENA_ALIGN) % KILN_ARENA_ALIGN;
    ASSERT_EQ(kiln_ctx_init(&ctx, &layout, base, bytes), KILN_OK);
    model.assign(c.seqs, ModelSeq());
  }

  // --- the model -------------------------------------------------------------
  int newBlock() { refs[nextBlock] = 1; return nextBlock++; }
  void release(int b) {
    if (--refs[b] == 0)
      refs.erase(b);
  }
  uint32_t needed(const ModelSeq &s, size_t n) const {
    const uint32_t B = layout.kv_block;
    size_t len = s.marks.size();
    uint32_t need = (uint32_t)((len + n + B - 1) / B) - (uint32_t)s.blocks.size();
    if (n > 0 && len % B != 0 && refs.at(s.blocks.back()) > 1)
      ++need;
    return need;
  }

  // --- operations, each checked against the model ----------------------------
  void open() {
    int32_t seq = -1;
    kiln_status st = kiln_seq_open(&ctx, &seq);
    int expect = -1;
    for (size_t i = 0; i < model.size(); ++i)
      if (!model[i].open) {
        expect = (int)i;
        break;
      }
    if (expect < 0) {
      ASSERT_EQ(st, KILN_ERR_NO_FREE_SEQUENCE);
      return;
    }
    ASSERT_EQ(st, KILN_OK);
    ASSERT_EQ(seq, expect);
    model[seq] = ModelSeq();
    model[seq].open = true;
  }

  void close(int32_t seq) {
    kiln_status st = kiln_seq_close(&ctx, seq);
    if (seq < 0 || seq >= (int32_t)model.size() || !model[seq].open) {
      ASSERT_EQ(st, KILN_ERR_BAD_SEQUENCE);
      return;
    }
    ASSERT_EQ(st, KILN_OK);
    for (int b : model[seq].blocks)
      release(b);
    model[seq] = ModelSeq();
  }

  void fork(int32_t parent) {
    int32_t child = -1;
    kiln_status st = kiln_seq_fork(&ctx, parent, &child);
    if (parent < 0 || parent >= (int32_t)model.size() || !model[parent].open) {
      ASSERT_EQ(st, KILN_ERR_BAD_SEQUENCE);
      return;
    }
    int expect = -1;
    for (size_t i = 0; i < model.size(); ++i)
      if (!model[i].open) {
        expect = (int)i;
        break;
      }
    if (expect < 0) {
      ASSERT_EQ(st, KILN_ERR_NO_FREE_SEQUENCE);
      return;
    }
    ASSERT_EQ(st, KILN_OK);
    ASSERT_EQ(child, expect);
    stats.sharedForks += !model[parent].blocks.empty();
    model[child] = model[parent];
    for (int b : model[child].blocks)
      ++refs[b];
  }

  void append(int32_t seq, size_t n) {
    kiln_status st = kiln_seq_reserve(&ctx, seq, n);
    if (seq < 0 || seq >= (int32_t)model.size() || !model[seq].open) {
      ASSERT_EQ(st, KILN_ERR_BAD_SEQUENCE);
      return;
    }
    ModelSeq &s = model[seq];
    if (s.marks.size() + n > layout.context) {
      ASSERT_EQ(st, KILN_ERR_CONTEXT_FULL);
      return;
    }
    if (needed(s, n) > layout.kv_blocks - liveBlocks()) {
      ASSERT_EQ(st, KILN_ERR_KV_POOL_EXHAUSTED);
      ++stats.exhausted;
      return;
    }
    ASSERT_EQ(st, KILN_OK);
    ++stats.appends;
    // Model: copy a shared partly filled last block, then take new blocks.
    const uint32_t B = layout.kv_block;
    if (n > 0 && s.marks.size() % B != 0 && refs[s.blocks.back()] > 1) {
      ++stats.copies;
      release(s.blocks.back());
      s.blocks.back() = newBlock();
    }
    while (s.blocks.size() * B < s.marks.size() + n)
      s.blocks.push_back(newBlock());
    kiln_seq_grow(&ctx, seq, n);
    // Write a fresh marker at every new position, in every layer and plane,
    // as a forward call would.
    for (size_t i = 0; i < n; ++i) {
      float mark = (float)(++writes);
      uint32_t pos = (uint32_t)s.marks.size();
      for (uint32_t l = 0; l < layout.n_layers; ++l)
        for (uint32_t w = 0; w < 2; ++w) {
          void *row = kiln_kv_at(&ctx, seq, l, w, pos);
          for (uint32_t k = 0; k < layout.kv_width; ++k) {
            if (layout.kv_dtype == KILN_KV_F16)
              static_cast<uint16_t *>(row)[k] = halfMark(mark, l, w);
            else
              static_cast<float *>(row)[k] = mark + (float)(l * 2 + w) * 0.25f;
          }
        }
      s.marks.push_back(mark);
    }
    ctx.seqs[seq].length += (uint32_t)n; // what the forward call does
  }

  uint32_t liveBlocks() const { return (uint32_t)refs.size(); }
  /// The marker of an f16 cache: raw bits, distinct per layer and plane.
  static uint16_t halfMark(float mark, uint32_t l, uint32_t w) {
    return (uint16_t)((uint32_t)mark * 4u + l * 2u + w);
  }

  // --- the invariants ---------------------------------------------------------
  void checkInvariants() {
    ASSERT_EQ(kiln_kv_free_blocks(&ctx), layout.kv_blocks - liveBlocks());
    std::map<int, int32_t> modelToRuntime;
    std::map<int32_t, int> runtimeToModel;
    std::map<int32_t, uint32_t> tableRefs;
    for (size_t i = 0; i < model.size(); ++i) {
      const ModelSeq &s = model[i];
      ASSERT_EQ(ctx.seqs[i].open != 0, s.open);
      if (!s.open)
        continue;
      ASSERT_EQ(ctx.seqs[i].length, s.marks.size());
      ASSERT_EQ(ctx.seqs[i].n_blocks, s.blocks.size());
      const int32_t *table = ctx.block_tables + i * ctx.blocks_per_seq;
      for (size_t k = 0; k < s.blocks.size(); ++k) {
        int32_t b = table[k];
        ASSERT_GE(b, 0);
        ASSERT_LT(b, (int32_t)layout.kv_blocks);
        // The same model block is always the same runtime block, and back.
        auto [it, fresh] = modelToRuntime.insert({s.blocks[k], b});
        ASSERT_EQ(it->second, b);
        auto [jt, fresh2] = runtimeToModel.insert({b, s.blocks[k]});
        ASSERT_EQ(jt->second, s.blocks[k]);
        ++tableRefs[b];
      }
      for (uint32_t pos = 0; pos < s.marks.size(); ++pos)
        for (uint32_t l = 0; l < layout.n_layers; ++l)
          for (uint32_t w = 0; w < 2; ++w) {
            if (layout.kv_dtype == KILN_KV_F16) {
              const auto *row = static_cast<const uint16_t *>(
                  kiln_kv_at(&ctx, (int32_t)i, l, w, pos));
              ASSERT_EQ(row[0], halfMark(s.marks[pos], l, w))
                  << "sequence " << i << " position " << pos;
              ASSERT_EQ(row[layout.kv_width - 1], row[0]);
              continue;
            }
            const float *row = kiln_kv_row(&ctx, (int32_t)i, l, w, pos);
            ASSERT_EQ(row[0], s.marks[pos] + (float)(l * 2 + w) * 0.25f)
                << "sequence " << i << " position " << pos;
            ASSERT_EQ(row[layout.kv_width - 1], row[0]);
          }
    }
    // Reference counts equal the table references; free blocks are held by none.
    for (auto &[b, n] : tableRefs)
      ASSERT_EQ(ctx.block_refs[b], n) << "block " << b;
    std::set<int32_t> free;
    for (uint32_t i = 0; i < ctx.n_free; ++i) {
      int32_t b = ctx.free_blocks[i];
      ASSERT_TRUE(free.insert(b).second) << "block " << b << " freed twice";
      ASSERT_EQ(tableRefs.count(b), 0u) << "block " << b << " free but held";
      ASSERT_EQ(ctx.block_refs[b], 0u);
    }
  }

  kiln_layout layout;
  std::vector<uint8_t> arena;
  uint8_t *base = nullptr;
  kiln_ctx ctx;
  std::vector<ModelSeq> model;
  std::map<int, uint32_t> refs; // model block -> sequences holding it
  int nextBlock = 0;
  uint64_t writes = 0;
  struct {
    int appends = 0, exhausted = 0, copies = 0, sharedForks = 0;
  } stats;
};

TEST_P(KvAllocator, RandomOperationsMatchTheModel) {
  std::mt19937 rng(12345 + GetParam().block);
  const int kOps = 30000;
  const int32_t seqs = (int32_t)GetParam().seqs;
  for (int op = 0; op < kOps; ++op) {
    int32_t seq = (int32_t)(rng() % (seqs + 1)) - (rng() % 16 == 0 ? 1 : 0);
    switch (rng() % 10) {
    case 0:
    case 1:
      open();
      break;
    case 2:
      close(seq);
      break;
    case 3:
      fork(seq);
      break;
    default:
      append(seq, rng() % (2 * GetParam().block + 3) + (rng() % 8 == 0 ? 0 : 1));
      break;
    }
    if (HasFatalFailure())
      FAIL() << "at operation " << op;
    checkInvariants();
    if (HasFatalFailure())
      FAIL() << "invariant broken after operation " << op;
  }
  // The run must have exercised what it claims to check.
  EXPECT_GT(stats.appends, kOps / 20);
  EXPECT_GT(stats.exhausted, 100);
  EXPECT_GT(stats.sharedForks, 100);
  if (GetParam().block > 1) // with one-token blocks no block is ever partial
    EXPECT_GT(stats.copies, 20);
  RecordProperty("appends", stats.appends);
  RecordProperty("copies_on_write", stats.copies);
}

// A refused append (context or pool) leaves the allocator exactly as it was.
TEST_P(KvAllocator, RefusedAppendChangesNothing) {
  open();
  append(0, 1);
  std::vector<uint8_t> before(base, base + kiln_arena_bytes(&layout));
  kiln_ctx saved = ctx;
  ASSERT_NE(kiln_seq_reserve(&ctx, 0, layout.context), KILN_OK);
  EXPECT_EQ(0, memcmp(&saved, &ctx, sizeof ctx));
  EXPECT_EQ(0, memcmp(before.data(), base, before.size()));
}

// Block sizes from one token to the whole context (the contiguous layout);
// pools from scarce (exhaustion is frequent) to one full context per sequence.
// The last is the contiguous layout (one block per sequence) with fewer
// blocks than sequences; the last two keep f16. 6 configurations x 30,000 =
// 180,000 operations.
INSTANTIATE_TEST_SUITE_P(Layouts, KvAllocator,
                         ::testing::Values(Config{1, 24, 4, 40, 2, 3},
                                           Config{4, 30, 5, 20, 1, 2},
                                           Config{16, 64, 8, 12, 2, 4},
                                           Config{48, 48, 3, 2, 1, 1},
                                           Config{4, 30, 5, 20, 1, 3, KILN_KV_F16},
                                           Config{16, 64, 8, 12, 2, 4, KILN_KV_F16}),
                         [](const auto &info) {
                           return "block" + std::to_string(info.param.block) +
                                  "_pool" + std::to_string(info.param.blocks) +
                                  (info.param.dtype == KILN_KV_F16 ? "_f16" : "");
                         });

// The pool's size follows the element type: an f16 cache takes half the
// bytes of an f32 one (every other region equal), and a layout naming an
// unknown type is refused.
TEST(KvLayout, F16PoolIsHalfTheF32Pool) {
  kiln_layout l = {KILN_ABI_VERSION, sizeof(kiln_layout), 2, 64, 128, 2, 16, 16,
                   64, 1, KILN_KV_F32, 0, 0};
  const size_t f32 = kiln_arena_bytes(&l);
  EXPECT_EQ(kiln_kv_elem_bytes(&l), 4u);
  l.kv_dtype = KILN_KV_F16;
  EXPECT_EQ(kiln_kv_elem_bytes(&l), 2u);
  const size_t pool16 = (size_t)16 * 2 * 2 * 16 * 64 * 2; // blocks x layers x K,V x block x width x 2
  EXPECT_EQ(kiln_arena_bytes(&l), f32 - pool16);
  l.kv_dtype = 2;
  EXPECT_EQ(kiln_arena_bytes(&l), 0u);
}
} // namespace

namespace {
// Sliding-window layers (the last swa_layers KV slots) live in one ring of
// swa_ring positions per sequence instead of the block pool: the pool's
// blocks shrink by those layers, the rings add max_seqs x layers x K,V x
// ring rows; position p of a ring is row p % swa_ring, rows of a
// block-aligned run are contiguous; a fork copies the parent's rings.
kiln_layout ringLayout(uint32_t swaLayers, uint32_t ring) {
  // 3 layers, width 2 f32, context 32, 2 sequences, 16 blocks of 4.
  kiln_layout l = {KILN_ABI_VERSION, sizeof(kiln_layout), 3, 2, 32, 2, 4, 16,
                   64, 1, KILN_KV_F32, swaLayers, ring};
  return l;
}

struct RingCtx {
  kiln_layout layout;
  std::vector<uint8_t> arena;
  kiln_ctx ctx;
  explicit RingCtx(const kiln_layout &l) : layout(l) {
    const size_t bytes = kiln_arena_bytes(&layout);
    arena.assign(bytes + KILN_ARENA_ALIGN, 0);
    uint8_t *base = arena.data() + (KILN_ARENA_ALIGN - (uintptr_t)arena.data() %
                                                          KILN_ARENA_ALIGN) %
                                       KILN_ARENA_ALIGN;
    EXPECT_EQ(kiln_ctx_init(&ctx, &layout, base, bytes), KILN_OK);
  }
  float *at(int32_t seq, uint32_t slot, uint32_t which, uint32_t pos) {
    return (float *)kiln_kv_at(&ctx, seq, slot, which, pos);
  }
};

TEST(KvRings, ArenaTradesBlockRowsForRings) {
  const kiln_layout none = ringLayout(0, 0), one = ringLayout(1, 8);
  // Pool: 16 blocks x 1 layer x K,V x 4 rows x 2 x 4 bytes fewer; rings:
  // 2 sequences x 1 layer x K,V x 8 rows x 2 x 4 bytes more (both multiples
  // of the region alignment).
  EXPECT_EQ(kiln_arena_bytes(&none) - kiln_arena_bytes(&one),
            (size_t)16 * 2 * 4 * 2 * 4 - (size_t)2 * 2 * 8 * 2 * 4);
  kiln_layout bad = ringLayout(1, 6); // not whole blocks
  EXPECT_EQ(kiln_arena_bytes(&bad), 0u);
  bad = ringLayout(4, 8); // more ring layers than layers
  EXPECT_EQ(kiln_arena_bytes(&bad), 0u);
  bad = ringLayout(0, 8); // a ring without layers
  EXPECT_EQ(kiln_arena_bytes(&bad), 0u);
  bad = ringLayout(1, 0);
  EXPECT_EQ(kiln_arena_bytes(&bad), 0u);
}

TEST(KvRings, PositionsWrapAndSlotsStaySeparate) {
  RingCtx r(ringLayout(1, 8));
  int32_t a = -1, b = -1;
  ASSERT_EQ(kiln_seq_open(&r.ctx, &a), KILN_OK);
  ASSERT_EQ(kiln_seq_open(&r.ctx, &b), KILN_OK);
  ASSERT_EQ(kiln_seq_reserve(&r.ctx, a, 32), KILN_OK);
  kiln_seq_grow(&r.ctx, a, 32);
  // Ring slot 2: position p and p + 8 share a row, K and V do not.
  EXPECT_EQ(r.at(a, 2, 0, 3), r.at(a, 2, 0, 11));
  EXPECT_EQ(r.at(a, 2, 1, 3), r.at(a, 2, 1, 27));
  EXPECT_NE(r.at(a, 2, 0, 3), r.at(a, 2, 1, 3));
  EXPECT_NE(r.at(a, 2, 0, 3), r.at(b, 2, 0, 3));
  // A block-aligned run of kv_block positions is contiguous.
  for (uint32_t p = 8; p < 12; ++p)
    EXPECT_EQ(r.at(a, 2, 0, p), r.at(a, 2, 0, 8) + 2 * (p - 8));
  // Mark every row of both sequences' rings and every block row of `a`;
  // nothing overwrites anything else.
  std::map<float *, float> marks;
  float m = 1.0f;
  for (int32_t s : {a, b})
    for (uint32_t which = 0; which < 2; ++which)
      for (uint32_t p = 0; p < 8; ++p)
        for (int e = 0; e < 2; ++e)
          marks[r.at(s, 2, which, p) + e] = m++;
  for (uint32_t slot = 0; slot < 2; ++slot)
    for (uint32_t which = 0; which < 2; ++which)
      for (uint32_t p = 0; p < 32; ++p)
        for (int e = 0; e < 2; ++e)
          marks[r.at(a, slot, which, p) + e] = m++;
  EXPECT_EQ(marks.size(), (size_t)(2 * 2 * 8 * 2 + 2 * 2 * 32 * 2));
  for (auto [p, v] : marks)
    *p = v;
  for (auto [p, v] : marks)
    EXPECT_EQ(*p, v);
}

TEST(KvRings, ForkCopiesTheRing) {
  RingCtx r(ringLayout(2, 4));
  int32_t parent = -1, child = -1;
  ASSERT_EQ(kiln_seq_open(&r.ctx, &parent), KILN_OK);
  ASSERT_EQ(kiln_seq_reserve(&r.ctx, parent, 6), KILN_OK);
  kiln_seq_grow(&r.ctx, parent, 6);
  for (uint32_t slot = 1; slot < 3; ++slot)
    for (uint32_t p = 2; p < 6; ++p)
      *r.at(parent, slot, 1, p) = (float)(10 * slot + p);
  ASSERT_EQ(kiln_seq_fork(&r.ctx, parent, &child), KILN_OK);
  for (uint32_t slot = 1; slot < 3; ++slot)
    for (uint32_t p = 2; p < 6; ++p) {
      EXPECT_EQ(*r.at(child, slot, 1, p), (float)(10 * slot + p));
      EXPECT_NE(r.at(child, slot, 1, p), r.at(parent, slot, 1, p));
    }
  *r.at(child, 2, 1, 5) = -1.0f;
  EXPECT_EQ(*r.at(parent, 2, 1, 5), 25.0f);
}
} // namespace
