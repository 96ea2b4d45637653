#!/usr/bin/python3
# tokenizer_fixture.py - SentencePiece's own encoding of texts, the expected
# ids of Kiln's tokenizer test (test/unit/TokenizerTest.cpp).
#
#   /usr/bin/python3 models/train/tokenizer_fixture.py models/kjv-llama.tokenizer.model \
#       TEXT... > EXPECTED
#
# Writes one line per text file: the file's name, then the ids of the whole
# file encoded without BOS, space-separated. Needs python3-sentencepiece only.
import os
import sys

import sentencepiece as spm


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sp = spm.SentencePieceProcessor(model_file=sys.argv[1])
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        ids = sp.encode(text)
        assert sp.decode(ids) == text, f"{path}: SentencePiece does not round-trip"
        print(os.path.basename(path), " ".join(map(str, ids)))


if __name__ == "__main__":
    main()
