/* tokenize_main.c - encodes each text of a llama.cpp tokenizer vector file
 * (texts separated by "\n__ggml_vocab_test__\n") with the tokenizer compiled
 * into library m (kilnc --tokenizer=embed --name=m), one line of ids per
 * text, as llama.cpp's .out files have them; with a second argument
 * "special", with BOS/EOS and special tokens parsed. The scratch and the
 * output are this program's: the library allocates nothing. */
#include "m.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kSep[] = "\n__ggml_vocab_test__\n";

static uint32_t flags;

static void encode(const char *text, size_t len) {
  size_t need = 0, n = 0;
  if (m_tokenize_scratch(len, &need) != KILN_OK)
    exit(2);
  void *scratch = malloc(need);
  int32_t *ids = malloc((len + 3) * sizeof(int32_t));
  kiln_status st = m_tokenize(text, len, flags, scratch, need, ids, len + 3, &n);
  if (st != KILN_OK) {
    fprintf(stderr, "m_tokenize: %s\n", kiln_status_string(st));
    exit(1);
  }
  for (size_t i = 0; i < n; ++i)
    printf("%s%d", i ? " " : "", ids[i]);
  printf("\n");
  free(scratch);
  free(ids);
}

int main(int argc, char **argv) {
  if (argc != 2 && !(argc == 3 && strcmp(argv[2], "special") == 0))
    return 2;
  if (argc == 3)
    flags = KILN_TOKENIZE_ADD_SPECIAL | KILN_TOKENIZE_PARSE_SPECIAL;
  FILE *f = fopen(argv[1], "rb");
  if (!f)
    return 2;
  static char buf[1 << 20];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = 0;
  for (size_t at = 0; at < len;) {
    char *next = strstr(buf + at, kSep);
    size_t end = next ? (size_t)(next - buf) : len;
    encode(buf + at, end - at);
    at = next ? end + sizeof kSep - 1 : len;
  }
  return 0;
}
