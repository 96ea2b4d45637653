/* main.c - a hosted program linking a model that kiln_add_model() compiled:
 * prefills the token ids given as arguments and prints 16 greedy tokens on
 * one line (the format of kiln-run --generate=16). */
#include "generate.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int32_t prompt[64];
  size_t n = 0;
  for (int i = 1; i < argc && n < 64; ++i)
    prompt[n++] = (int32_t)atoi(argv[i]);
  if (n == 0) {
    fprintf(stderr, "usage: %s TOKEN_ID...\n", argv[0]);
    return 2;
  }
  char text[GENERATE_TEXT_BYTES];
  const char *error = NULL;
  if (generate(prompt, n, text, &error) < 0) {
    fprintf(stderr, "consumer: %s\n", error);
    return 1;
  }
  fputs(text, stdout);
  return 0;
}
