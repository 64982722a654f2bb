// A C target needs a source file; the driver itself comes from libFuzzer (-sanitize=fuzzer).
#include "libfuzzer.h"
