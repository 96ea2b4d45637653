/* kiln_tokenizer.c - encode and decode over a kiln_vocab (kiln_tokenizer.h).
 *
 * Encoding, as llama.cpp's tokenizers do it:
 *  1. Special tokens are cut out of the text, longest piece first: each
 *     occurrence of the longest becomes its id and the text between is cut
 *     by the next longest, and so on (user-defined tokens always, control and
 *     unknown ones with KILN_TOKENIZE_PARSE_SPECIAL).
 *  2. SPM: each remaining fragment gets the space prefix when it follows a
 *     special token or starts the text, spaces become U+2581, and adjacent
 *     symbols merge by the highest score of their concatenation.
 *     BPE: the fragment is decoded to code points, split into words by the
 *     pre-tokenizer, and each word's bytes merge by the lowest merge rank.
 * Both merge loops keep one candidate per adjacent pair in an indexed heap,
 * so a word of n symbols takes O(n log n) time and O(n) scratch.
 */
#include "kiln/kiln_tokenizer.h"
#include "kiln_unicode_tables.h"

/* ---- bytes and code points -------------------------------------------- */

static int bytes_compare(const char *a, size_t na, const char *b, size_t nb) {
  size_t n = na < nb ? na : nb;
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i])
      return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

static void bytes_copy(char *dst, const char *src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = src[i];
}

#define REPLACEMENT 0xFFFDu

/* One code point from s[*at .. n): llama.cpp's reading (overlong forms and
 * surrogates pass; a byte that starts no complete sequence, or a sequence
 * above U+10FFFF, is U+FFFD and advances one byte). */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *at) {
  size_t i = *at;
  unsigned c = s[i];
  size_t len;
  uint32_t cp;
  if (c < 0x80) {
    *at = i + 1;
    return c;
  }
  if ((c & 0x40) == 0) {
    len = 0;
  } else if ((c & 0x20) == 0) {
    len = 2;
    cp = c & 0x1f;
  } else if ((c & 0x10) == 0) {
    len = 3;
    cp = c & 0x0f;
  } else if ((c & 0x08) == 0) {
    len = 4;
    cp = c & 0x07;
  } else {
    len = 0;
  }
  if (len == 0 || n - i < len) {
    *at = i + 1;
    return REPLACEMENT;
  }
  for (size_t k = 1; k < len; ++k) {
    if ((s[i + k] & 0xc0) != 0x80) {
      *at = i + 1;
      return REPLACEMENT;
    }
    cp = (cp << 6) | (s[i + k] & 0x3f);
  }
  if (cp > 0x10FFFF) {
    *at = i + 1;
    return REPLACEMENT;
  }
  *at = i + len;
  return cp;
}

static size_t utf8_put(uint32_t cp, char *out) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xc0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

size_t kiln_utf8_complete(const char *text, size_t len) {
  /* Look back at most three bytes for the start of the last sequence. */
  const unsigned char *s = (const unsigned char *)text;
  for (size_t back = 1; back <= 4 && back <= len; ++back) {
    unsigned c = s[len - back];
    if ((c & 0xc0) == 0x80)
      continue; /* a continuation byte */
    size_t need = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                  : (c & 0xf8) == 0xf0                 ? 4
                                                       : 1;
    return need > back ? len - back : len;
  }
  return len;
}

/* Character class flags of a code point (kiln_unicode_tables.h). */
static unsigned cp_class(uint32_t cp) {
  size_t lo = 0, hi = sizeof kiln_unicode_runs / sizeof kiln_unicode_runs[0];
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if ((kiln_unicode_runs[mid] >> 8) <= cp)
      lo = mid;
    else
      hi = mid;
  }
  return kiln_unicode_runs[lo] & 0xffu;
}

/* GPT-2's byte-to-unicode map: printable Latin-1 bytes stand for themselves,
 * the other 68 bytes for U+0100.. in byte order. */
static int byte_is_printable(unsigned b) {
  return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
}

static uint32_t byte_to_cp(unsigned b) {
  if (byte_is_printable(b))
    return b;
  unsigned n = 0;
  for (unsigned k = 0; k < b; ++k)
    n += !byte_is_printable(k);
  return 0x100 + n;
}

size_t kiln_bpe_byte_char(unsigned char byte, char out[2]) {
  return utf8_put(byte_to_cp(byte), out);
}

/* The byte a code point of a byte-level piece stands for, or -1. */
static int cp_to_byte(uint32_t cp) {
  if (cp < 0x100)
    return byte_is_printable(cp) ? (int)cp : -1;
  if (cp >= 0x100 + 68)
    return -1;
  unsigned n = cp - 0x100;
  for (unsigned b = 0; b < 256; ++b)
    if (!byte_is_printable(b) && n-- == 0)
      return (int)b;
  return -1;
}

/* ---- vocabulary lookups ------------------------------------------------ */

static const char *piece(const kiln_vocab *v, uint32_t id, size_t *len) {
  *len = v->piece_offsets[id + 1] - v->piece_offsets[id];
  return v->pieces + v->piece_offsets[id];
}

/* The id whose piece is text[0 .. n), or -1. */
static int32_t find_piece(const kiln_vocab *v, const char *text, size_t n) {
  size_t lo = 0, hi = v->n_tokens;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2, len;
    const char *p = piece(v, v->sorted[mid], &len);
    int c = bytes_compare(p, len, text, n);
    if (c == 0)
      return (int32_t)v->sorted[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* The merge of (left, right): its index in merge_pairs, or -1. */
static int64_t find_merge(const kiln_vocab *v, int32_t left, int32_t right) {
  if (left < 0 || right < 0)
    return -1;
  uint64_t key = ((uint64_t)(uint32_t)left << 32) | (uint32_t)right;
  size_t lo = 0, hi = v->n_merges;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->merge_pairs[mid] == key)
      return (int64_t)mid;
    if (v->merge_pairs[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* ---- output ------------------------------------------------------------- */

typedef struct encoder {
  const kiln_vocab *v;
  uint32_t flags;
  int32_t *ids;
  size_t max_ids, n_ids;
  /* scratch, sized by kiln_tokenize_scratch for the whole text */
  uint32_t *cps;        /* code points of a fragment */
  char *word;           /* a word's bytes */
  char *escaped;        /* SPM: the escaped fragment; BPE: a mapped word */
  struct symbol *syms;  /* merge state of a word */
  uint32_t *heap;       /* symbol indices, best candidate first */
  struct frame *frames; /* special-token partition stack */
} encoder;

static void put_id(encoder *e, int32_t id) {
  if (e->n_ids < e->max_ids)
    e->ids[e->n_ids] = id;
  e->n_ids++;
}

/* ---- merging: one candidate per adjacent pair, in an indexed heap ------- */

typedef struct symbol {
  int32_t prev, next; /* neighbours, -1 at the ends */
  uint32_t at, len;   /* bytes of the symbol in the merged text */
  int32_t id;         /* BPE: its token, -1 when it has none */
  /* the candidate merge of this symbol with its right neighbour */
  int32_t result;     /* token of the merge, -1 when there is none */
  float priority;     /* lower merges first: BPE rank, SPM -score */
  int32_t slot;       /* its place in the heap, -1 when absent */
} symbol;

typedef struct merger {
  symbol *s;
  uint32_t *heap;
  uint32_t n;
} merger;

/* Lower priority first; on a tie the leftmost symbol. */
static int better(const symbol *s, uint32_t a, uint32_t b) {
  if (s[a].priority != s[b].priority)
    return s[a].priority < s[b].priority;
  return a < b;
}

static void heap_set(merger *m, uint32_t slot, uint32_t sym) {
  m->heap[slot] = sym;
  m->s[sym].slot = (int32_t)slot;
}

static void heap_up(merger *m, uint32_t slot) {
  uint32_t sym = m->heap[slot];
  while (slot > 0) {
    uint32_t parent = (slot - 1) / 2;
    if (!better(m->s, sym, m->heap[parent]))
      break;
    heap_set(m, slot, m->heap[parent]);
    slot = parent;
  }
  heap_set(m, slot, sym);
}

static void heap_down(merger *m, uint32_t slot) {
  uint32_t sym = m->heap[slot];
  for (;;) {
    uint32_t child = 2 * slot + 1;
    if (child >= m->n)
      break;
    if (child + 1 < m->n && better(m->s, m->heap[child + 1], m->heap[child]))
      child++;
    if (!better(m->s, m->heap[child], sym))
      break;
    heap_set(m, slot, m->heap[child]);
    slot = child;
  }
  heap_set(m, slot, sym);
}

static void heap_remove(merger *m, uint32_t sym) {
  int32_t slot = m->s[sym].slot;
  if (slot < 0)
    return;
  m->s[sym].slot = -1;
  uint32_t last = m->heap[--m->n];
  if ((uint32_t)slot == m->n)
    return;
  heap_set(m, (uint32_t)slot, last);
  heap_up(m, (uint32_t)slot);
  heap_down(m, (uint32_t)m->s[last].slot);
}

/* Recomputes the candidate of symbol `i` with its right neighbour, and its
 * place in the heap (in place when it stays there). */
static void candidate(const encoder *e, merger *m, int32_t i, const char *text) {
  if (i < 0)
    return;
  symbol *s = &m->s[i];
  s->result = -1;
  if (s->next >= 0) {
    const symbol *r = &m->s[s->next];
    const kiln_vocab *v = e->v;
    if (v->kind == KILN_VOCAB_BPE) {
      int64_t k = find_merge(v, s->id, r->id);
      if (k >= 0) {
        s->result = (int32_t)v->merge_results[k];
        s->priority = (float)v->merge_ranks[k];
      }
    } else {
      int32_t id = find_piece(v, text + s->at, s->len + r->len);
      if (id >= 0) {
        s->result = id;
        s->priority = -v->scores[id];
      }
    }
  }
  if (s->result < 0) {
    heap_remove(m, (uint32_t)i);
  } else if (s->slot < 0) {
    m->heap[m->n] = (uint32_t)i;
    heap_up(m, m->n++);
  } else {
    heap_up(m, (uint32_t)s->slot);
    heap_down(m, (uint32_t)s->slot);
  }
}

/* Merges the symbols s[0 .. n) of `text` until no candidate is left. */
static void merge_all(encoder *e, uint32_t n, const char *text) {
  merger m = {e->syms, e->heap, 0};
  for (uint32_t i = 0; i < n; ++i)
    m.s[i].slot = -1;
  for (uint32_t i = 0; i < n; ++i)
    candidate(e, &m, (int32_t)i, text);
  while (m.n > 0) {
    uint32_t li = m.heap[0];
    symbol *l = &m.s[li];
    symbol *r = &m.s[l->next];
    heap_remove(&m, (uint32_t)l->next);
    l->len += r->len;
    l->id = l->result;
    l->next = r->next;
    if (r->next >= 0)
      m.s[r->next].prev = (int32_t)li;
    r->len = 0;
    candidate(e, &m, l->prev, text);
    candidate(e, &m, (int32_t)li, text);
  }
}

/* ---- SPM ----------------------------------------------------------------- */

static size_t utf8_len(unsigned char c) {
  static const unsigned char lookup[16] = {1, 1, 1, 1, 1, 1, 1, 1,
                                           1, 1, 1, 1, 2, 2, 3, 4};
  return lookup[c >> 4];
}

static void spm_fragment(encoder *e, const char *text, size_t len,
                         int prefix) {
  const kiln_vocab *v = e->v;
  char *s = e->escaped;
  size_t n = 0;
  if (prefix) {
    bytes_copy(s, "\xe2\x96\x81", 3);
    n = 3;
  }
  for (size_t i = 0; i < len; ++i) {
    if (text[i] == ' ') {
      bytes_copy(s + n, "\xe2\x96\x81", 3);
      n += 3;
    } else {
      s[n++] = text[i];
    }
  }
  uint32_t count = 0;
  for (size_t at = 0; at < n; count++) {
    size_t l = utf8_len((unsigned char)s[at]);
    if (l > n - at)
      l = n - at;
    symbol *y = &e->syms[count];
    y->prev = (int32_t)count - 1;
    y->at = (uint32_t)at;
    y->len = (uint32_t)l;
    y->id = -1;
    at += l;
    y->next = at == n ? -1 : (int32_t)count + 1;
  }
  if (count == 0)
    return;
  merge_all(e, count, s);
  for (int32_t i = 0; i >= 0; i = e->syms[i].next) {
    const symbol *y = &e->syms[i];
    int32_t id = find_piece(v, s + y->at, y->len);
    if (id >= 0) {
      put_id(e, id);
      continue;
    }
    for (uint32_t k = 0; k < y->len; ++k) {
      int32_t b = v->byte_tokens[(unsigned char)s[y->at + k]];
      put_id(e, b >= 0 ? b : v->unk);
    }
  }
}

/* ---- BPE: byte-level merges of one word ------------------------------------ */

static void bpe_word(encoder *e, const uint32_t *cps, size_t n) {
  const kiln_vocab *v = e->v;
  size_t len = 0;
  for (size_t i = 0; i < n; ++i)
    len += utf8_put(cps[i], e->word + len);
  if (v->flags & KILN_VOCAB_IGNORE_MERGES) {
    size_t m = 0;
    for (size_t i = 0; i < len; ++i)
      m += utf8_put(byte_to_cp((unsigned char)e->word[i]), e->escaped + m);
    int32_t id = find_piece(v, e->escaped, m);
    if (id >= 0) {
      put_id(e, id);
      return;
    }
  }
  for (size_t i = 0; i < len; ++i) {
    symbol *y = &e->syms[i];
    y->prev = (int32_t)i - 1;
    y->next = i + 1 == len ? -1 : (int32_t)i + 1;
    y->at = (uint32_t)i;
    y->len = 1;
    y->id = v->byte_tokens[(unsigned char)e->word[i]];
  }
  merge_all(e, (uint32_t)len, e->word);
  /* A byte whose character is not in the vocabulary has no token and is
   * dropped, as llama.cpp drops it. */
  for (int32_t i = 0; i >= 0; i = e->syms[i].next)
    if (e->syms[i].id >= 0)
      put_id(e, e->syms[i].id);
}

/* ---- BPE pre-tokenizers ------------------------------------------------------ */

#define IN_RANGE 0x100u /* flags of a position inside the span */

typedef struct span {
  const uint32_t *cp;
  size_t begin, end;
} span;

static unsigned flags_at(const span *s, size_t pos) {
  return pos >= s->begin && pos < s->end ? cp_class(s->cp[pos]) | IN_RANGE
                                         : 0;
}

static uint32_t cp_at(const span *s, size_t pos) {
  return pos >= s->begin && pos < s->end ? s->cp[pos] : 0xFFFFFFFFu;
}

static uint32_t ascii_lower(uint32_t c) {
  return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

typedef void (*word_fn)(encoder *e, const uint32_t *cps, size_t b, size_t end,
                        int stage);

/* 's|'t|'re|'ve|'m|'ll|'d at pos (case-insensitively when `fold`): its
 * length, or 0. */
static size_t contraction(const span *s, size_t pos, int fold) {
  if (cp_at(s, pos) != '\'' || pos + 1 >= s->end)
    return 0;
  uint32_t a = cp_at(s, pos + 1), b = pos + 2 < s->end ? cp_at(s, pos + 2) : 0;
  if (fold) {
    a = ascii_lower(a);
    b = ascii_lower(b);
  }
  if (a == 's' || a == 't' || a == 'm' || a == 'd')
    return 2;
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
    return 3;
  return 0;
}

/* Whitespace run at pos: \s+(?!\S) leaves the last space to the next word,
 * \s+ takes the run at the end. Returns the end of the word, or pos. */
static size_t whitespace_word(const span *s, size_t pos) {
  size_t n = 0;
  while (flags_at(s, pos + n) & KILN_UC_WHITESPACE)
    n++;
  if (n > 1 && pos + n < s->end)
    return pos + n - 1;
  return pos + n;
}

/* 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static void split_gpt2(encoder *e, const span *s, word_fn next, int stage) {
  size_t prev = s->begin;
  for (size_t pos = s->begin; pos < s->end;) {
    size_t end;
    uint32_t c = s->cp[pos];
    unsigned f2 = c == ' ' ? flags_at(s, pos + 1) : flags_at(s, pos);
    size_t k = contraction(s, pos, 0);
    if (k) {
      end = pos + k;
    } else if (f2 & (KILN_UC_LETTER | KILN_UC_NUMBER)) {
      unsigned cls = f2 & KILN_UC_LETTER ? KILN_UC_LETTER : KILN_UC_NUMBER;
      end = pos + (c == ' ');
      while (flags_at(s, end) & cls)
        end++;
    } else if (!(f2 & (KILN_UC_WHITESPACE | KILN_UC_LETTER | KILN_UC_NUMBER)) &&
               f2) {
      end = pos + (c == ' ');
      for (unsigned f = f2;
           !(f & (KILN_UC_WHITESPACE | KILN_UC_LETTER | KILN_UC_NUMBER)) && f;)
        f = flags_at(s, ++end);
    } else {
      end = whitespace_word(s, pos);
      if (end == pos)
        end = pos + 1;
    }
    next(e, s->cp, prev, end, stage + 1);
    prev = pos = end;
  }
}

/* Llama 3's: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|
 * \p{N}{1,digits}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 * `marks` counts \p{M} as letters (Qwen 3.5's). */
static void split_llama3(encoder *e, const span *s, word_fn next, int stage,
                         size_t digits, int marks) {
  const unsigned L = KILN_UC_LETTER | (marks ? KILN_UC_MARK : 0u);
  const unsigned WLN = KILN_UC_WHITESPACE | KILN_UC_NUMBER | L;
  for (size_t pos = s->begin; pos < s->end;) {
    uint32_t c = s->cp[pos];
    unsigned f = flags_at(s, pos);
    size_t k = contraction(s, pos, 1);
    if (k) {
      next(e, s->cp, pos, pos + k, stage + 1);
      pos += k;
      continue;
    }
    if (!(c == '\r' || c == '\n' || (f & KILN_UC_NUMBER)) &&
        ((f & L) || (flags_at(s, pos + 1) & L))) {
      size_t end = pos + 1;
      while (flags_at(s, end) & L)
        end++;
      next(e, s->cp, pos, end, stage + 1);
      pos = end;
      continue;
    }
    if (f & KILN_UC_NUMBER) {
      size_t start = pos;
      while (flags_at(s, pos) & KILN_UC_NUMBER) {
        if (++pos - start >= digits) {
          next(e, s->cp, start, pos, stage + 1);
          start = pos;
        }
      }
      if (pos > start)
        next(e, s->cp, start, pos, stage + 1);
      continue;
    }
    unsigned f2 = c == ' ' ? flags_at(s, pos + 1) : f;
    if (!(f2 & WLN) && f) {
      size_t end = pos + (c == ' ');
      while (!(f2 & WLN) && f2)
        f2 = flags_at(s, ++end);
      while (cp_at(s, end) == '\r' || cp_at(s, end) == '\n')
        end++;
      next(e, s->cp, pos, end, stage + 1);
      pos = end;
      continue;
    }
    size_t n = 0, last_newline = 0;
    while (flags_at(s, pos + n) & KILN_UC_WHITESPACE) {
      uint32_t w = s->cp[pos + n];
      if (w == '\r' || w == '\n')
        last_newline = pos + n + 1;
      n++;
    }
    size_t end = last_newline ? last_newline : whitespace_word(s, pos);
    if (end == pos)
      end = pos + 1;
    next(e, s->cp, pos, end, stage + 1);
    pos = end;
  }
}

/* A regular expression of one character class, as std::regex splits with
 * it: each match and each run between matches is a word. `single` matches
 * one character at a time ([class]), otherwise runs ([class]+); `triple`
 * matches exactly three class characters. */
typedef int (*class_fn)(uint32_t cp);

static void split_class(encoder *e, const span *s, word_fn next, int stage,
                        class_fn in, int single, int triple) {
  size_t prev = s->begin;
  for (size_t pos = s->begin; pos < s->end;) {
    size_t end = pos;
    if (triple) {
      if (pos + 3 <= s->end && in(s->cp[pos]) && in(s->cp[pos + 1]) &&
          in(s->cp[pos + 2]))
        end = pos + 3;
    } else if (in(s->cp[pos])) {
      end = pos + 1;
      while (!single && end < s->end && in(s->cp[end]))
        end++;
    }
    if (end == pos) {
      pos++;
      continue;
    }
    if (pos > prev)
      next(e, s->cp, prev, pos, stage + 1);
    next(e, s->cp, pos, end, stage + 1);
    prev = pos = end;
  }
  if (s->end > prev)
    next(e, s->cp, prev, s->end, stage + 1);
}

static int is_number(uint32_t cp) { return (cp_class(cp) & KILN_UC_NUMBER) != 0; }

static int is_ascii_digit(uint32_t cp) { return cp >= '0' && cp <= '9'; }

/* [\p{P}\$\+<=>\^~\|`] as llama.cpp evaluates it: ASCII punctuation and
 * the listed symbols; beyond ASCII, \p{P} unless the character is a space. */
static int is_falcon_punct(uint32_t cp) {
  if (cp < 128) {
    unsigned f = cp_class(cp);
    return (f & KILN_UC_PUNCTUATION) || cp == '$' || cp == '+' || cp == '<' ||
           cp == '=' || cp == '>' || cp == '^' || cp == '~' || cp == '|' ||
           cp == '`';
  }
  unsigned f = cp_class(cp);
  return !(f & KILN_UC_WHITESPACE) && (f & KILN_UC_PUNCTUATION);
}

/* The pre-tokenizers' regular expressions, applied in stages: each splits
 * the words of the one before. */
enum split {
  SPLIT_DONE = 0,
  SPLIT_GPT2,
  SPLIT_LLAMA3,
  SPLIT_QWEN2,
  SPLIT_QWEN35,
  SPLIT_EACH_NUMBER,
  SPLIT_FALCON_PUNCT,
  SPLIT_THREE_DIGITS
};

#define MAX_STAGES 3
static const uint8_t kStages[][MAX_STAGES] = {
    [KILN_PRE_NONE] = {SPLIT_DONE},
    [KILN_PRE_GPT2] = {SPLIT_GPT2},
    [KILN_PRE_LLAMA3] = {SPLIT_LLAMA3},
    [KILN_PRE_QWEN2] = {SPLIT_QWEN2},
    [KILN_PRE_QWEN35] = {SPLIT_QWEN35},
    [KILN_PRE_STARCODER] = {SPLIT_EACH_NUMBER, SPLIT_GPT2},
    [KILN_PRE_FALCON] = {SPLIT_FALCON_PUNCT, SPLIT_GPT2, SPLIT_THREE_DIGITS},
};

static void pre_stage(encoder *e, const uint32_t *cps, size_t b, size_t end,
                      int stage) {
  span s = {cps, b, end};
  if (b >= end)
    return;
  unsigned pre = e->v->pre;
  unsigned split = pre < sizeof kStages / sizeof kStages[0] && stage < MAX_STAGES
                       ? kStages[pre][stage]
                       : SPLIT_DONE;
  switch (split) {
  case SPLIT_GPT2:
    split_gpt2(e, &s, pre_stage, stage);
    break;
  case SPLIT_LLAMA3:
    split_llama3(e, &s, pre_stage, stage, 3, 0);
    break;
  case SPLIT_QWEN2:
    split_llama3(e, &s, pre_stage, stage, 1, 0);
    break;
  case SPLIT_QWEN35:
    split_llama3(e, &s, pre_stage, stage, 1, 1);
    break;
  case SPLIT_EACH_NUMBER:
    split_class(e, &s, pre_stage, stage, is_number, 1, 0);
    break;
  case SPLIT_FALCON_PUNCT:
    split_class(e, &s, pre_stage, stage, is_falcon_punct, 0, 0);
    break;
  case SPLIT_THREE_DIGITS:
    split_class(e, &s, pre_stage, stage, is_ascii_digit, 0, 1);
    break;
  default:
    bpe_word(e, cps + b, end - b);
  }
}

static void bpe_fragment(encoder *e, const char *text, size_t len) {
  size_t n = 0;
  for (size_t at = 0; at < len;)
    e->cps[n++] = utf8_next((const unsigned char *)text, len, &at);
  pre_stage(e, e->cps, 0, n, 0);
}

/* ---- special tokens ------------------------------------------------------ */

static int matches_special(const kiln_vocab *v, uint32_t id, uint32_t flags) {
  uint8_t t = v->token_types[id];
  if (t == KILN_TOKEN_USER_DEFINED)
    return 1;
  return (flags & KILN_TOKENIZE_PARSE_SPECIAL) &&
         (t == KILN_TOKEN_CONTROL || t == KILN_TOKEN_UNKNOWN);
}

/* C's isspace in the "C" locale. */
static int is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

/* First occurrence of p[0 .. n) in text[from .. to), or `to`. */
static size_t find_bytes(const char *text, size_t from, size_t to,
                         const char *p, size_t n) {
  if (n == 0 || to - from < n)
    return to;
  for (size_t i = from; i + n <= to; ++i) {
    if (text[i] != p[0])
      continue;
    size_t k = 1;
    while (k < n && text[i + k] == p[k])
      k++;
    if (k == n)
      return i;
  }
  return to;
}

/* A text range being cut at the occurrences of special token `token` (an
 * index into v->special) from `cursor` on; `pending` is the id to write when
 * the range resumes (the occurrence after the gap just cut), or -1. */
typedef struct frame {
  size_t cursor, end;
  uint32_t token;
  int32_t pending;
} frame;

typedef struct fragment_state {
  int after_special; /* SPM: the next fragment gets the space prefix */
} fragment_state;

static void raw_fragment(encoder *e, fragment_state *st, const char *text,
                         size_t b, size_t end) {
  if (end <= b)
    return;
  if (e->v->kind == KILN_VOCAB_SPM)
    spm_fragment(e, text + b, end - b,
                 st->after_special && (e->v->flags & KILN_VOCAB_SPACE_PREFIX));
  else
    bpe_fragment(e, text + b, end - b);
  st->after_special = 0;
}

/* The first special token from index `first` on that occurs in
 * text[b .. end), or n_special. */
static uint32_t first_special(const encoder *e, const char *text, size_t b,
                              size_t end, uint32_t first) {
  const kiln_vocab *v = e->v;
  for (uint32_t k = first; k < v->n_special; ++k) {
    uint32_t id = v->special[k];
    if (!matches_special(v, id, e->flags))
      continue;
    size_t n;
    const char *p = piece(v, id, &n);
    if (find_bytes(text, b, end, p, n) < end)
      return k;
  }
  return v->n_special;
}

/* Cuts the text at special tokens, longest first, and encodes the rest. A
 * range cut by token k has its gaps cut by tokens after k, so the stack
 * holds at most n_special + 1 frames. */
static void partition(encoder *e, const char *text, size_t len) {
  const kiln_vocab *v = e->v;
  fragment_state st = {1};
  uint32_t k = first_special(e, text, 0, len, 0);
  if (k == v->n_special) {
    raw_fragment(e, &st, text, 0, len);
    return;
  }
  frame *stack = e->frames;
  size_t depth = 0;
  stack[depth++] = (frame){0, len, k, -1};
  while (depth > 0) {
    frame *f = &stack[depth - 1];
    if (f->pending >= 0) {
      put_id(e, f->pending);
      f->pending = -1;
      st.after_special = 1;
    }
    if (f->cursor >= f->end) {
      depth--;
      continue;
    }
    size_t n;
    const uint32_t id = v->special[f->token];
    const char *p = piece(v, id, &n);
    size_t at = find_bytes(text, f->cursor, f->end, p, n);
    size_t gap = f->cursor, gap_end = at;
    const unsigned attrs = v->token_attrs ? v->token_attrs[id] : 0;
    f->cursor = at < f->end ? at + n : f->end;
    if (at < f->end) {
      f->pending = (int32_t)id;
      /* Whitespace the token takes along (llama.cpp's lstrip / rstrip). */
      if (attrs & KILN_TOKEN_LSTRIP)
        while (gap_end > gap && is_space(text[gap_end - 1]))
          gap_end--;
      if (attrs & KILN_TOKEN_RSTRIP)
        while (f->cursor < f->end && is_space(text[f->cursor]))
          f->cursor++;
    }
    if (gap_end == gap)
      continue;
    uint32_t inner = first_special(e, text, gap, gap_end, f->token + 1);
    if (inner < v->n_special)
      stack[depth++] = (frame){gap, gap_end, inner, -1};
    else
      raw_fragment(e, &st, text, gap, gap_end);
  }
}

/* ---- entry points ------------------------------------------------------- */

/* Scratch layout for `len` bytes of text: code points (one per byte at
 * most), a word's bytes (U+FFFD turns one invalid byte into three), the
 * escaped or byte-mapped text (two bytes per word byte, SPM three per byte
 * plus the prefix), symbols and heap (one per word byte), and the partition
 * stack. */
typedef struct layout {
  size_t cps, word, escaped, syms, heap, frames, end;
} layout;

static int mul_add(size_t a, size_t b, size_t c, size_t *out) {
  if (b != 0 && a > (SIZE_MAX - c) / b)
    return 0;
  *out = a * b + c;
  return 1;
}

static int scratch_layout(const kiln_vocab *v, size_t len, layout *l) {
  size_t word, escaped, syms, at = 0, size;
  if (!mul_add(len, 3, 4, &word) || !mul_add(word, 2, 3, &escaped))
    return 0;
  syms = word; /* BPE: a word's bytes; SPM: characters, at most len + 1 */
  size_t parts[6][2] = {{len, sizeof(uint32_t)},
                        {word, 1},
                        {escaped, 1},
                        {syms, sizeof(symbol)},
                        {syms, sizeof(uint32_t)},
                        {(size_t)v->n_special + 1, sizeof(frame)}};
  size_t *fields[6] = {&l->cps, &l->word, &l->escaped,
                       &l->syms, &l->heap, &l->frames};
  for (int i = 0; i < 6; ++i) {
    at = (at + 15) & ~(size_t)15;
    *fields[i] = at;
    if (!mul_add(parts[i][0], parts[i][1], at, &size) || size > SIZE_MAX - 16)
      return 0;
    at = size;
  }
  if (at > SIZE_MAX - 15)
    return 0;
  l->end = at + 15; /* slack to align the caller's pointer */
  return 1;
}

static int vocab_usable(const kiln_vocab *v) {
  return v && v->version == KILN_VOCAB_VERSION && v->n_tokens > 0 &&
         (v->kind == KILN_VOCAB_SPM || v->kind == KILN_VOCAB_BPE);
}

kiln_status kiln_tokenize_scratch(const kiln_vocab *vocab, size_t len,
                                  size_t *bytes) {
  layout l;
  if (!vocab_usable(vocab) || !bytes)
    return KILN_ERR_INVALID_ARGUMENT;
  if (len > UINT32_MAX / 8 || !scratch_layout(vocab, len, &l))
    return KILN_ERR_INVALID_ARGUMENT;
  *bytes = l.end;
  return KILN_OK;
}

kiln_status kiln_tokenize(const kiln_vocab *vocab, const char *text,
                          size_t len, uint32_t flags, void *scratch,
                          size_t scratch_bytes, int32_t *ids, size_t max_ids,
                          size_t *n_ids) {
  layout l;
  if (!vocab_usable(vocab) || (!text && len) || (!ids && max_ids) || !n_ids)
    return KILN_ERR_INVALID_ARGUMENT;
  if (len > UINT32_MAX / 8 || !scratch_layout(vocab, len, &l))
    return KILN_ERR_INVALID_ARGUMENT;
  if (!scratch || scratch_bytes < l.end)
    return KILN_ERR_SCRATCH_TOO_SMALL;
  char *base = (char *)scratch;
  base += (16 - ((uintptr_t)base & 15)) & 15; /* the layout's slack */
  encoder e = {vocab, flags, ids, max_ids, 0,
               (uint32_t *)(base + l.cps), base + l.word, base + l.escaped,
               (symbol *)(base + l.syms), (uint32_t *)(base + l.heap),
               (frame *)(base + l.frames)};
  int special = (flags & KILN_TOKENIZE_ADD_SPECIAL) != 0;
  if (special && (vocab->flags & KILN_VOCAB_ADD_BOS) && vocab->bos >= 0)
    put_id(&e, vocab->bos);
  if (len > 0)
    partition(&e, text, len);
  if (special && (vocab->flags & KILN_VOCAB_ADD_EOS) && vocab->eos >= 0)
    put_id(&e, vocab->eos);
  *n_ids = e.n_ids;
  return e.n_ids > max_ids ? KILN_ERR_OUTPUT_TOO_SMALL : KILN_OK;
}

/* ---- decoding ------------------------------------------------------------ */

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

int kiln_byte_token(const char *p, size_t n) {
  if (!p || n != 6 || p[0] != '<' || p[1] != '0' || p[2] != 'x' || p[5] != '>')
    return -1;
  int hi = hex_digit(p[3]), lo = hex_digit(p[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

typedef struct writer {
  char *out;
  size_t cap, n;
  int strip_space; /* drop the text's first byte if it is a space */
} writer;

static void put_byte(writer *w, char c) {
  if (w->strip_space) {
    w->strip_space = 0;
    if (c == ' ')
      return;
  }
  if (w->n < w->cap)
    w->out[w->n] = c;
  w->n++;
}

static void put_bytes(writer *w, const char *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    put_byte(w, p[i]);
}

static void decode_token(const kiln_vocab *v, uint32_t id, uint32_t flags,
                         writer *w) {
  size_t n;
  const char *p = piece(v, id, &n);
  switch (v->token_types[id]) {
  case KILN_TOKEN_CONTROL:
  case KILN_TOKEN_UNKNOWN:
    if (flags & KILN_DETOKENIZE_SPECIAL)
      put_bytes(w, p, n);
    return;
  case KILN_TOKEN_USER_DEFINED:
    put_bytes(w, p, n);
    return;
  case KILN_TOKEN_BYTE: { /* <0xNN>, checked when the tables were built */
    int b = kiln_byte_token(p, n);
    if (b >= 0)
      put_byte(w, (char)b);
    return;
  }
  case KILN_TOKEN_NORMAL:
    break;
  default:
    return;
  }
  if (v->kind == KILN_VOCAB_SPM) {
    for (size_t i = 0; i < n;) {
      if (n - i >= 3 && p[i] == '\xe2' && p[i + 1] == '\x96' &&
          p[i + 2] == '\x81') {
        put_byte(w, ' ');
        i += 3;
      } else {
        put_byte(w, p[i++]);
      }
    }
    return;
  }
  /* Byte-level BPE: each character stands for a byte; a character outside
   * the map is written as it is. */
  for (size_t at = 0; at < n;) {
    size_t start = at;
    uint32_t cp = utf8_next((const unsigned char *)p, n, &at);
    int b = cp_to_byte(cp);
    if (b >= 0)
      put_byte(w, (char)b);
    else
      put_bytes(w, p + start, at - start);
  }
}

kiln_status kiln_detokenize(const kiln_vocab *vocab, const int32_t *ids,
                            size_t n, uint32_t flags, char *text, size_t cap,
                            size_t *n_bytes) {
  if (!vocab_usable(vocab) || (!ids && n) || (!text && cap) || !n_bytes)
    return KILN_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || (uint32_t)ids[i] >= vocab->n_tokens)
      return KILN_ERR_TOKEN_OUT_OF_RANGE;
  /* SentencePiece drops the prefix space of the text's first piece. */
  writer w = {text, cap, 0,
              vocab->kind == KILN_VOCAB_SPM &&
                  (vocab->flags & KILN_VOCAB_SPACE_PREFIX) &&
                  !(flags & KILN_DETOKENIZE_CONTINUATION)};
  for (size_t i = 0; i < n; ++i)
    decode_token(vocab, (uint32_t)ids[i], flags, &w);
  *n_bytes = w.n;
  return w.n > cap ? KILN_ERR_OUTPUT_TOO_SMALL : KILN_OK;
}
