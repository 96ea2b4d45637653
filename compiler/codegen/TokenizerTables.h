//===- TokenizerTables.h - a tokenizer compiled into a model's library ----===//
//
// kilnc --tokenizer=embed: the tables of a kiln_vocab become read-only data
// of the library (NAME_tokenizer.bin, through .incbin), beside the runtime's
// C tokenizer and NAME_tokenize / NAME_detokenize.
//
#ifndef KILN_CODEGEN_TOKENIZERTABLES_H
#define KILN_CODEGEN_TOKENIZERTABLES_H

#include "compiler/codegen/Emitter.h"
#include "kiln/kiln_tokenizer.h"

#include <string>

namespace kiln {

/// Adds the tokenizer's files and units to a library's sources: its tables,
/// the kiln_vocab over them and the API, and the C tokenizer.
void addTokenizerSources(const kiln_vocab &vocab, const std::string &name,
                         LibrarySources &out);

/// NAME.h's part for the tokenizer: kiln_tokenizer.h and the declarations
/// (or NAME_HAS_TOKENIZER 0 when `embedded` is false).
std::string tokenizerHeader(const std::string &name, bool embedded);

} // namespace kiln

#endif
