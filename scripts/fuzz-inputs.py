#!/usr/bin/env python3
"""The fuzzer's seed corpus and dictionary, made from the repository.

Corpus: every lit input under test/, one file per `// -----` split, so that
each seed is a program the parser takes (or one of the negative tests' bad
inputs, which is as good a seed).

Dictionary (libFuzzer's -dict): PIT's op and attribute names from the ODS
files, and the op names and keywords the lit inputs use, so that mutations
insert whole tokens the parser knows rather than letters.

Usage: fuzz-inputs.py CORPUS_DIR DICTIONARY_FILE
"""

import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
# Words the fuzzer should insert whole, besides the names found below.
KEYWORDS = ["ins", "outs", "indexing_maps", "iterator_types", "affine_map",
            "#linalg.iterator_type<parallel>", "#linalg.iterator_type<reduction>",
            "memref<", "tensor<", "vector<", "?x", "16x", "64x", "4096x",
            "f16", "bf16", "f32", "f64", "i1", "i32", "index", "tf32",
            "{pit.sparse = ", "micro_tiles", "dense_latencies", "->", "%"]


def seeds():
    for path in sorted(ROOT.glob("test/**/*.mlir")):
        for number, chunk in enumerate(SPLIT.split(path.read_text())):
            if chunk.strip():
                name = path.relative_to(ROOT / "test").as_posix().replace("/", "_")
                yield f"{name}.{number}", chunk


def ods_names():
    names = set()
    for path in (ROOT / "include/PIT/Dialect/PIT/IR").glob("*.td"):
        text = path.read_text()
        names.update("pit." + op for op in re.findall(r'PIT_Op<"(\w+)"', text))
        names.update("#pit." + attr for attr in
                     re.findall(r'PIT_Attr<"\w+",\s*"(\w+)"', text))
        names.update("#pit." + attr for attr in
                     re.findall(r'EnumAttr<PIT_Dialect,\s*\w+,\s*"(\w+)"', text))
    return names


def corpus_names(texts):
    """Dotted op names and identifiers that occur in several seeds."""
    counts = collections.Counter()
    for text in texts:
        counts.update(set(re.findall(r"\b[a-z_]+\.[a-z_.]+\b|\b[a-z_]{3,}\b", text)))
    return {word for word, count in counts.items() if count >= 3}


def escape(token):
    return token.replace("\\", "\\\\").replace('"', '\\"')


def main(corpus_dir, dictionary):
    corpus = pathlib.Path(corpus_dir)
    corpus.mkdir(parents=True, exist_ok=True)
    texts = []
    for name, text in seeds():
        (corpus / name).write_text(text)
        texts.append(text)
    tokens = sorted(ods_names() | corpus_names(texts) | set(KEYWORDS))
    pathlib.Path(dictionary).write_text(
        "".join(f'"{escape(token)}"\n' for token in tokens))
    print(f"fuzz-inputs: {len(texts)} seeds in {corpus}, "
          f"{len(tokens)} tokens in {dictionary}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
