#ifndef C_LIB_FUZZER_H
#define C_LIB_FUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, from libclang_rt.fuzzer_no_main (scripts/fuzz.sh links it).
///
/// SwiftPM gives an executable a Swift `main`, so libFuzzer's own `main` cannot be used;
/// each fuzz target's `main.swift` calls this instead, with its one-input callback.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
