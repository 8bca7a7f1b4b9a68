//===- DummyPITFuzz.cpp - pit-fuzz without libFuzzer ----------------------===//
//
// The main of a pit-fuzz built without libFuzzer: runs each input file named
// on the command line once, so that lit replays the crashes the fuzzer found.
//
//===----------------------------------------------------------------------===//

#include "llvm/FuzzMutate/FuzzerCLI.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  return llvm::runFuzzerOnInputs(argc, argv, LLVMFuzzerTestOneInput);
}
