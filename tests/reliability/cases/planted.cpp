// A shared object that must never be loaded: its constructor leaves a marker file (path in
// $PTOKIT_TEST_MARKER) and its kernel_entry writes nothing. The reliability tests plant it,
// padded to the size of a genuine kernel, where the simulator keeps its images.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void planted_constructor(void) {
    const char* path = getenv("PTOKIT_TEST_MARKER");
    FILE* f = path ? fopen(path, "w") : nullptr;
    if (f) {
        fputs("the planted constructor ran\n", f);
        fclose(f);
    }
}

extern "C" __attribute__((visibility("default"))) void kernel_entry(int64_t* args) { (void)args; }
