/* generate.h - greedy generation with the compiled model "tiny". */
#ifndef CONSUMER_GENERATE_H
#define CONSUMER_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#define GENERATE_TOKENS 16
/* Room for GENERATE_TOKENS ids of up to 10 digits, separators and a NUL. */
#define GENERATE_TEXT_BYTES (GENERATE_TOKENS * 11 + 1)

/* Prefills prompt[0..n) and writes the GENERATE_TOKENS greedy tokens that
 * follow into text, space-separated, ending in a newline. Returns the length
 * of the text, or -1 with *error set to the runtime's status message. */
int generate(const int32_t *prompt, size_t n, char *text, const char **error);

#endif
