// A C target needs one source file; the module is the header's declaration.
#include "CLibFuzzer.h"
